"""One received mail being answered: its context (game, seats its secret unlocks), the
reply being written, and the other mail it causes.

Commands (``bot.mail.play``, ``bot.mail.gm``) work through a :class:`Session`: they find
the game, check that the mail may act for a seat (the seat's address **and** its secret),
call the game service, and write what happened into the reply. A command that cannot be
done raises :class:`Refusal`; the reply then says why, for that line, and the next line
is read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from adjudicator.kernel.errors import NotationError
from adjudicator.kernel.events import GM, PUBLIC
from adjudicator.kernel.game import Game
from adjudicator.kernel.spec import read_number
from bot.mail.commands import Line, Script
from bot.mail.inbound import Inbound
from bot.mail.office import Office
from bot.mail.outbound import Outgoing
from bot.service import Actor, GameInfo, SeatInfo, ServiceError, SubmitResult

log = logging.getLogger("umpire.mail")

#: Legal orders or options listed in one reply before "(+N more)".
LIST_LIMIT = 40
#: Games whose seats one mail's password is checked against (each check is a slow hash).
SECRET_GAMES = 5


class Refusal(Exception):
    """A command that cannot be done; the message says why and what to do instead."""


@dataclass
class Touched:
    """A game this mail concerned: the head before it, and whether a map was asked for."""

    before: int
    map_viewer: str | None = None
    acted: bool = False


@dataclass
class Session:
    desk: Office
    inbound: Inbound
    script: Script
    game_id: str | None = None
    out: list[str] = field(default_factory=list)
    extra: list[Outgoing] = field(default_factory=list)
    #: (game, audience, text) of notices for everyone else who follows the game by email
    #: (the desk mails them: :meth:`Desk.announce`), e.g. that it started
    notices: list[tuple[str, str, str]] = field(default_factory=list)
    touched: dict[str, Touched] = field(default_factory=dict)
    _seats: dict[str, list[SeatInfo]] = field(default_factory=dict)
    #: Whether the mail held a valid command: a command carried out, or an order line the
    #: game read (applied, or refused by a rule rather than unreadable).
    understood: bool = False
    #: Whether the reply hands out a seat's secret (then it is for its recipient alone).
    hands_secret: bool = False
    _warned: set[str] = field(default_factory=set)
    _checked: set[str] = field(default_factory=set)

    @property
    def sender(self) -> str:
        assert self.inbound.sender is not None
        return self.inbound.sender

    @property
    def actor(self) -> Actor:
        return Actor.mail(self.sender)

    @property
    def service(self) -> Any:
        return self.desk.service

    @property
    def others(self) -> list[str]:
        """Whom else the mail was sent to (To and Cc besides Umpire and the sender): they
        read whatever it says, its password and its orders included."""
        own = {self.desk.config.address.lower(), self.sender}
        return list(dict.fromkeys(a for a in self.inbound.recipients if a not in own))

    def unlocked(self) -> dict[str, list[SeatInfo]]:
        """The seats the mail's password unlocked so far, by game."""
        return {game_id: seats for game_id, seats in self._seats.items() if seats}

    def say(self, *lines: str) -> None:
        self.out.extend(lines)

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """A service call whose refusal (ServiceError) becomes this line's refusal."""
        try:
            return fn(*args, **kwargs)
        except ServiceError as error:
            raise Refusal(str(error)) from error

    # ---- the game --------------------------------------------------------------------------

    def game(self, named: str | None = None) -> GameInfo:
        """The game a command is about: named, else the mail's current game."""
        game_id = named or self.game_id
        if not game_id:
            raise Refusal("which game? Put [umpire GAMEID] in the subject or a line "
                          "'game GAMEID' first; 'list' shows your games")
        info = self.info(game_id)
        self.touch(info)
        return info

    def info(self, game_id: str) -> GameInfo:
        try:
            # every seat's address: the gateway mails its players (it shows them to the GM only)
            info: GameInfo = self.service.info(game_id, contacts=True)
        except ServiceError as error:
            raise Refusal(f"there is no game {game_id!r}; 'list' shows your games") from error
        return info

    def rules(self, info: GameInfo) -> Game[Any]:
        rules: Game[Any] = self.call(self.service.rules, info.id)
        return rules

    def touch(self, info: GameInfo, map_viewer: str | None = None) -> None:
        touched = self.touched.setdefault(info.id, Touched(before=info.head_seq))
        if map_viewer is not None:
            touched.map_viewer = map_viewer

    # ---- who the mail may act for ---------------------------------------------------------

    def seats(self, info: GameInfo) -> list[SeatInfo]:
        """The seats this mail acts for: the sender's own, unlocked by the mail's password.

        The password is checked against the sender's own seats only (one slow hash check
        each), in at most :data:`SECRET_GAMES` games per mail: a stranger's password costs
        nothing, and no mail can make the gateway hash for long."""
        if info.id not in self._seats:
            unlocked: list[SeatInfo] = []
            secret = self.script.password
            if secret and self.claimed(info):
                if len(self._checked) < SECRET_GAMES:
                    self._checked.add(info.id)
                    unlocked = list(self.service.unlocked_seats(info.id, self.actor, secret))
                else:
                    self.say(f"  (your password was not checked for game {info.id}: one "
                             f"mail acts in at most {SECRET_GAMES} games)")
            self._seats[info.id] = unlocked
        return self._seats[info.id]

    def claimed(self, info: GameInfo) -> list[SeatInfo]:
        """The sender's seats by address alone (what a forged From would claim)."""
        return [s for s in info.seats if s.email and s.email == self.sender]

    def is_gm(self, info: GameInfo) -> bool:
        return any(s.role == "gm" for s in self.seats(info))

    def sides(self, info: GameInfo) -> list[str]:
        return [str(s.side) for s in self.seats(info) if s.role == "player" and s.side]

    def audience(self, info: GameInfo) -> str:
        """The richest audience this mail may read as: GM, its side, else public."""
        if self.is_gm(info):
            return GM
        sides = self.sides(info)
        if sides:
            return info.to_act if info.to_act in sides else sides[0]
        return PUBLIC

    def require_side(self, info: GameInfo) -> str:
        """The side this mail plays (the one to act when it holds several)."""
        sides = self.sides(info)
        if not sides:
            raise Refusal(self._no_seat(info, "a player's seat"))
        return info.to_act if info.to_act in sides else sides[0]

    def require_gm(self, info: GameInfo) -> Actor:
        if not self.is_gm(info):
            raise Refusal(self._no_seat(info, "the GM's seat"))
        return self.actor

    def _no_seat(self, info: GameInfo, what: str) -> str:
        claimed = self.claimed(info)
        if not claimed:
            return f"this address holds no seat in game {info.id}: that needs {what}"
        if not any(s.secret for s in claimed):
            return (f"your seat in game {info.id} has no secret yet, so it cannot be played "
                    "by mail: ask the GM to send you one ('secret SIDE')")
        if info.id not in self._warned:
            self._warned.add(info.id)
            log.warning("mail from %s for game %s without the seat's secret", self.sender,
                        info.id)
            return (f"this mail came from the address of a seat in game {info.id} but did "
                    "not carry the seat's secret ('password ...' line), so nothing was done "
                    f"for {what}. If you did not send it, someone tried to act for you: your "
                    "secret is still safe, and the GM can reset it ('secret SIDE').")
        return f"nothing done: the mail does not carry the secret of {what}"

    # ---- writing results ---------------------------------------------------------------------

    def result(self, result: SubmitResult, lines: list[Line]) -> None:
        """What became of order lines submitted together (applied, partial, refused)."""
        info = self.info(result.game_id)
        done = len(result.seqs) if result.ok else 0
        if done or result.duplicate or result.error_rule != "notation":
            self.understood = True
        if result.duplicate:
            self.say("  (already handled: this mail was read before; nothing applied twice)")
        for line in lines[:done]:
            self.say(f"  applied: {line.text}")
        if done:
            self.touched[info.id].acted = True
        if result.error is not None:
            where = lines[min(done, len(lines) - 1)]
            self.say(f"  line {where.number} not applied — {result.error}")
            if len(result.legal) > 12:
                self.say(f"  ({len(result.legal)} legal in all: 'legal WORD' lists those "
                         "with WORD)")
            rest = lines[done + 1:]
            if rest:
                self.say(f"  lines {rest[0].number}-{rest[-1].number} were not read: send "
                         "them again once the line above is right")


def number(text: str, usage: str) -> int:
    """A number argument of a command, read by the one parser of numbers (the order
    notation's :func:`~adjudicator.kernel.spec.read_number`); else this line's refusal."""
    try:
        return read_number(text)
    except NotationError as error:
        raise Refusal(f"{error.message}; {usage}") from error


def listed(items: list[str], narrower: str) -> str:
    shown = items[:LIST_LIMIT]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" (+{more} more: narrow it with '{narrower}')" if more else "")


FOOTER = ("\n\n-- \nUmpire, the referee. One command per line; 'help' lists them. Keep "
          "[umpire GAMEID] in the subject and your 'password ...' line in every mail.")
