"""What a mail's commands use of the desk that received it (:class:`bot.mail.desk.Desk`
is one): the game service, the gateway's configuration, the ledger, the games a mail may
create and the clock.

A :class:`~bot.mail.session.Session` holds an :class:`Office` rather than the desk itself,
so the session and the commands written on it (``bot.mail.play``, ``bot.mail.gm``) never
import the desk that imports them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from bot.mail.config import MailConfig
from bot.mail.ledger import Ledger
from bot.service import GameService


class Office(Protocol):
    """The desk, as the commands of one mail see it."""

    @property
    def service(self) -> GameService: ...

    @property
    def config(self) -> MailConfig: ...

    @property
    def ledger(self) -> Ledger: ...

    @property
    def games(self) -> Mapping[str, str]:
        """Games a mail may create, by the name players write (never a module path)."""
        ...

    @property
    def clock(self) -> Callable[[], float]: ...
