"""A table of players who play by mail: a gateway on dovecot and the SMTP sink, and the
mail each player sends (IMAP APPEND into Umpire's mailbox) and receives (the sink)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.game import Game
from adjudicator.kernel.state import GameState
from bot.mail.config import MailConfig, password
from bot.mail.desk import Desk
from bot.mail.gateway import Gateway
from bot.mail.transport import Inbox, Outbox
from bot.service import GameService
from bot.store import Store
from tests.mail.servers import Dovecot, Received, SmtpSink
from tests.mail.support import raw_mail


@dataclass
class Player:
    address: str
    secret: str = ""
    game_id: str = ""

    @property
    def subject(self) -> str:
        return f"Re: [umpire {self.game_id}] orders" if self.game_id else "Umpire"


@dataclass
class Table:
    dovecot: Dovecot
    mailbox: str
    sink: SmtpSink
    config: MailConfig
    games: dict[str, str] | None = None
    seed: bytes = b"\x05" * 32
    players: dict[str, Player] = field(default_factory=dict)

    def __post_init__(self) -> None:
        assert self.config.imap is not None and self.config.database is not None
        self.service = GameService(Store(self.config.database, synchronous="NORMAL"),
                                   seed_source=lambda n: self.seed[:n])
        self.desk = Desk(self.service, self.config, games=self.games)
        self.gateway = Gateway(
            self.desk, self.config,
            Outbox(self.config.smtp, password(self.config.smtp), self.config.address),
            Inbox(self.config.imap, password(self.config.imap)))

    def player(self, address: str) -> Player:
        return self.players.setdefault(address, Player(address))

    def send(self, who: Player, body: str, *, subject: str | None = None,
             password_line: bool = True, **kwargs: Any) -> list[Received]:
        """``who`` mails Umpire; the gateway reads the mailbox; the mail it sent back."""
        before = len(self.sink.received)
        text = (f"password {who.secret}\n" if password_line and who.secret else "") + body
        self.dovecot.append(raw_mail(who.address, text, subject or who.subject, **kwargs),
                            user=self.mailbox)
        self.gateway.poll()
        return self.sink.received[before:]

    def reply_to(self, who: Player, mails: Iterable[Received]) -> Received:
        replies = [m for m in mails if who.address in m.to and
                   m.header("Auto-Submitted") == "auto-replied"]
        assert len(replies) == 1, [m.subject for m in mails]
        return replies[0]

    def mails_to(self, who: Player) -> list[Received]:
        return self.sink.to(who.address)

    # ---- a player's choices (the test's own oracle: the game's rules on a copy) ------------

    def state(self, game_id: str) -> GameState:
        return self.service.load_state(game_id)

    def rules(self, game_id: str) -> Game[Any]:
        return self.service.rules(game_id)


def greedy_orders(rules: Game[Any], state: GameState, side: str, rng: random.Random,
                  limit: int = 30) -> list[str]:
    """Orders for ``side`` until its turn ends: ``decide 1`` for a decision, ``done``, ``pass``
    or ``end`` when legal, else a random legal order — tried on a copy with made-up dice
    (the server's dice may differ; a line it refuses is reported and the next mail goes on)."""
    lines: list[str] = []
    dice = CommittedDice(bytes(32), "oracle")
    for _ in range(limit):
        if state.result is not None or rules.acting_side(state) != side:
            break
        pending = state.pending
        if pending is not None:
            lines.append("decide 1")
            order = pending.options[0].order if pending.options else pending.default
            candidates = [order] if order else []
        else:
            legal = rules.legal_orders(state, side)
            enders = [o for o in legal if o.split()[0] in ("done", "pass", "end")]
            others = [o for o in legal if o not in enders]
            rng.shuffle(others)
            candidates = enders + others[:20]
        for order in candidates:
            try:
                state = rules.apply_text(state, side, order, dice).state
            except RuleError:
                continue
            if pending is None:
                lines.append(order)
            break
        else:
            break
        if state.pending is not None:
            break
    return lines


def path_of(config: MailConfig) -> Path:
    assert config.database is not None
    return Path(config.database)
