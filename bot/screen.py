"""The console's shared screen and its one gate: every line printed is classified by
audience (the View it came from), and a side's secrets reach a hot-seat screen only behind
that side's look-away step.

Hot-seat (every side at one screen): a line for ``public`` is printed; a line for a side
(or the GM) first asks "German: press Enter when only you are looking", then the screen
stays private to that side until it is handed over: "press Enter to clear the screen", a
clear (scrollback too), and the public lines printed meanwhile are shown again for the
others. Seated (``umpire play --seat SIDE``: one terminal per side): lines for that side
and the public are printed, anything else never is.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rich.console import Console
from rich.markup import escape

from adjudicator.kernel.events import GM, PUBLIC

#: What a real terminal is sent to clear the screen and its scrollback.
CLEAR = "\x1b[H\x1b[2J\x1b[3J"
#: Printed after each clear (a pipe or a test sees where the screen was cleared).
CLEARED = "(screen cleared)"


def who(audience: str) -> str:
    return "GM" if audience == GM else audience.capitalize()


@dataclass
class Screen:
    """One terminal's screen (see the module notes). ``ask`` reads a line (a prompt the
    player answers); ``seat`` is the one side a seated terminal shows."""

    console: Console
    ask: Callable[[str], str]
    seat: str | None = None
    private_to: str | None = None
    #: public lines printed while the screen was private (shown again after the clear)
    missed: list[tuple[str, bool]] = field(default_factory=list)

    def show(self, audience: str, text: str, markup: bool = True) -> bool:
        """Print ``text`` (rich markup unless ``markup`` is False) for ``audience``; False
        when it was not shown (another seat's, or the look-away step was declined)."""
        if audience == PUBLIC:
            self._print(text, markup)
            if self.private_to is not None:
                self.missed.append((text, markup))
            return True
        if self.seat is not None:
            if audience != self.seat:
                return False
        elif audience != self.private_to and not self.open(audience):
            return False
        self._print(text, markup)
        return True

    def show_all(self, audience: str, lines: Sequence[str], markup: bool = True) -> bool:
        """:meth:`show` for several lines behind one look-away step."""
        return all(self.show(audience, line, markup) for line in lines) if lines else True

    def open(self, audience: str) -> bool:
        """The look-away step: the screen becomes private to ``audience`` when its player
        presses Enter (or answers y); anything else declines and nothing is shown."""
        if self.seat is not None:
            return audience == self.seat
        if audience == self.private_to:
            return True
        self.close()
        try:
            answer = self.ask(f"{who(audience)}: press Enter when only you are looking (the "
                              f"screen shows {audience}'s secrets; 'n' skips) ")
        except (EOFError, KeyboardInterrupt):
            answer = "n"
        if answer.strip().lower() not in ("", "y", "yes"):
            self._print("[dim]not shown[/dim]", True)
            return False
        self.private_to = audience
        self._print(f"[dim]— private to {escape(audience)}: an empty line clears the screen "
                    "—[/dim]", True)
        return True

    def close(self, ask: bool = True) -> None:
        """Hand the screen back: Enter (unless not ``ask``: its player is leaving), then a
        clear; the public lines printed while it was private are shown again."""
        if self.private_to is None:
            return
        if ask:
            with contextlib.suppress(EOFError, KeyboardInterrupt):
                self.ask(f"{who(self.private_to)}: press Enter to clear the screen ")
        self.private_to = None
        if self.console.is_terminal:
            self.console.file.write(CLEAR)
            self.console.file.flush()
        self._print(CLEARED, False)
        missed, self.missed = self.missed, []
        if missed:
            self._print("[dim]Meanwhile:[/dim]", True)
            for text, markup in missed:
                self._print(text, markup)

    def _print(self, text: str, markup: bool) -> None:
        self.console.print(text, markup=markup, highlight=False)
