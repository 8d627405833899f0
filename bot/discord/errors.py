"""What a command raises when it will not do what was asked."""

from __future__ import annotations

from discord import app_commands


class Refusal(app_commands.AppCommandError):
    """A request that cannot be done; nothing changed. The text is shown to the user alone
    (an ephemeral reply) by the command tree's error handler."""


class Unexpected(app_commands.AppCommandError):
    """An unexpected exception in a button, menu or modal (outside the command tree),
    handed to the tree's error handler like a command's."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(f"{type(original).__name__}: {original}")
        self.original = original
