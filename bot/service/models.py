"""The service's public records and errors: who asks (:class:`Actor`), what a game and its
seats look like (:class:`GameInfo`, :class:`SeatInfo`), a game record for one requester
(:class:`Export`), and the outcome of anything that may add to the action log
(:class:`SubmitResult`, :class:`RollbackPreview`, :class:`RollForwardReport`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from adjudicator.kernel.decisions import PendingDecision
from bot.messages import Message

#: Where a submission was typed (:meth:`GameService.submit`): ``private`` — only its side
#: reads it (a DM, a mail to Umpire alone, a console seat's own screen); ``public`` — others
#: read what Umpire posts of it (a Discord thread, the hot-seat console's shared screen), so
#: a secret order (:attr:`Secrecy.private_only`) is refused there before anything is
#: applied; ``copied`` — others read the typed text itself (a mail with copies), so every
#: hidden line is refused, standing orders too; ``shared`` — one screen every side sees,
#: where its players agreed to type (the hot-seat console): a secret line is taken, and the
#: result names it (``SubmitResult.secret_lines``) so the frontend can say so.
Channel = Literal["private", "public", "copied", "shared"]
PRIVATE_CHANNEL: Channel = "private"
PUBLIC_CHANNEL: Channel = "public"
COPIED_CHANNEL: Channel = "copied"
SHARED_CHANNEL: Channel = "shared"

#: The rule of a refusal for a secret order given where others read it (frontends word it
#: for their own channel: where to send it instead).
SECRET_RULE = "secret"
#: The rule of a refusal asking the sender to confirm a set-up's ``done`` that gives up
#: something (:attr:`SetupGuide.forfeit`): the same text sent again is applied.
CONFIRM_RULE = "confirm"


class ServiceError(Exception):
    """A request the service refuses; the message is meant for the user."""


class NotFound(ServiceError):
    pass


class PermissionDenied(ServiceError):
    pass


class InvalidOperation(ServiceError):
    pass


class Actor(BaseModel):
    """Who is asking: a Discord user id and/or an email address."""

    model_config = ConfigDict(frozen=True)

    discord_id: str | None = None
    email: str | None = None

    @classmethod
    def discord(cls, user_id: str | int) -> Actor:
        return cls(discord_id=str(user_id))

    @classmethod
    def mail(cls, address: str) -> Actor:
        return cls(email=address.strip().lower())

    @property
    def label(self) -> str:
        if self.discord_id:
            return f"discord:{self.discord_id}"
        if self.email:
            return f"email:{self.email.lower()}"
        return "anonymous"

    def holds(self, seat: Mapping[str, Any]) -> bool:
        if self.discord_id and seat.get("discord_id") == self.discord_id:
            return True
        return bool(self.email and seat.get("email")
                    and str(seat["email"]).lower() == self.email.lower())


class SeatInfo(BaseModel):
    side: str | None
    role: Literal["player", "gm"]
    discord_id: str | None = None
    email: str | None = None
    #: Whether the seat has a secret (see :meth:`GameService.set_seat_secret`).
    secret: bool = False


class GameInfo(BaseModel):
    id: str
    game: str
    #: The scenario stored with the game (None: created without one, its game's default).
    scenario: str | None
    #: The scenario played, named: the stored one, else its game's default (what every
    #: frontend shows, so ``create`` and ``status`` name it alike).
    scenario_name: str = ""
    status: str
    to_act: str | None
    result: str | None
    commitment: str
    pack_hash: str | None
    seats: list[SeatInfo]
    head_seq: int
    branch: int
    deadline_at: float | None
    bindings: dict[str, Any]
    #: When the game was created (seconds since the epoch).
    created: float | None = None
    #: While the game is paused: when, by whom and why (the clock is stopped meanwhile).
    paused_at: float | None = None
    paused_by: str | None = None
    pause_reason: str | None = None
    #: The players' dice entropy as committed: one digest per contribution (the texts are
    #: hidden until the game starts, and in its full record from then on).
    entropy: list[str] = Field(default_factory=list)

    @property
    def paused(self) -> bool:
        return self.status == "paused"


#: The ``record`` tag of a record redacted for one audience (a player's export in play).
VIEW_FORMAT = "umpire/1-view"


class Export(BaseModel):
    """A game record for one requester: the full record, or one audience's redacted view."""

    game_id: str
    full: bool
    audience: str
    lines: list[dict[str, Any]]

    def jsonl(self) -> bytes:
        return "".join(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n"
                       for line in self.lines).encode()


class Prompt(BaseModel):
    """The moment as one seated side meets it, for a frontend that prompts it."""

    game_id: str
    #: The game's last action (what was read): a frontend keys what it keeps on it.
    head: int
    status: str
    #: The side prompted (None: a GM's read when no side is to act).
    side: str | None
    to_act: str | None
    result: str | None
    #: The decision ``side`` owes now, if any.
    pending: PendingDecision | None = None
    #: Whether ``side`` now enters secrets (a hidden set-up, mines): take its lines privately.
    private_input: bool = False
    #: ``side``'s standing orders: decision kind -> policy.
    standing: dict[str, str] = Field(default_factory=dict)


class SubmitResult(BaseModel):
    """The outcome of anything that may add to the action log."""

    status: Literal["applied", "partial", "refused"]
    game_id: str
    side: str | None = None
    seqs: list[int] = Field(default_factory=list)
    applied: list[str] = Field(default_factory=list)
    error: str | None = None
    error_rule: str | None = None
    legal: list[str] = Field(default_factory=list)
    stopped_at: int | None = None
    to_act: str | None = None
    pending_side: str | None = None
    messages: dict[str, Message] = Field(default_factory=dict)
    duplicate: bool = False
    #: The order lines the service read of the text submitted, numbered as ``stopped_at``
    #: counts them (blank lines and comments dropped): what a frontend reports line by line.
    lines: list[str] = Field(default_factory=list)
    #: On a shared screen (channel ``shared``): the numbers of the lines that were secret
    #: orders, typed where every side could read them.
    secret_lines: list[int] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status != "refused"


class RollbackPreview(BaseModel):
    to_seq: int
    reverted: list[str]
    changes: list[str]
    rolls_discarded: int


class RollForwardReport(BaseModel):
    rollback_seq: int
    reapplied: list[str]
    skipped: list[str]
    stopped_at: int | None = None
    error: str | None = None
    results: list[SubmitResult] = Field(default_factory=list)
