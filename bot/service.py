"""GameService: seats, permissions, per-game serialisation, orders in, outcomes out.

The service knows nothing of Discord or email. Every frontend calls it with an
:class:`Actor` (a Discord user id and/or an email address) and text in the game's
notation, and gets back per-audience :class:`~bot.messages.Message` objects built from
Views only.

Conventions:

* Methods that may add to the action log (``submit``, ``override``, ``rollback``,
  ``roll_forward``, ``undo``) never raise for a user's mistake: they return a
  :class:`SubmitResult` whose ``status`` is ``"refused"`` with a clear ``error``.
* Administrative methods (create, seat, start, deadlines, previews) raise
  :class:`ServiceError` subclasses with a clear message.
* Orders for one game are serialised by a per-game lock, across processes by the store's
  game lock (PostgreSQL), and in the store by an expected-sequence check inside the
  append's transaction; different games run in parallel.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from adjudicator.kernel.decisions import SetupGuide
from adjudicator.kernel.dice import CommittedDice, Dice, commitment, effective_seed
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import GM, PUBLIC, Event
from adjudicator.kernel.game import Game, OriginalNeeded, order_lines
from adjudicator.kernel.orders import SetStanding, check_size
from adjudicator.kernel.packs import hash_files, pack_files
from adjudicator.kernel.state import GameState
from adjudicator.kernel.views import View
from adjudicator.registry import UnknownGame, load_game
from bot import deadlines, seat_secrets
from bot.caches import DEFAULT_STATE_BUDGET, GameLock, GameLocks, StateCache
from bot.history import (
    SNAPSHOT_REPLAY_MS,
    DiceFactory,
    ForcingDice,
    ReplayError,
    forced_before,
    forced_queue,
    initial_state,
    replay_chain,
    rolls_to_json,
)
from bot.messages import (
    LogEntry,
    Message,
    audiences,
    build_messages,
    contact_labels,
    events_from_json,
    events_to_json,
    log_entry,
    message_for,
    order_text_for,
    redact_label,
    view_record_line,
)
from bot.overrides import ForceDice, Override, apply_override, parse_override
from bot.records import FORMAT, entropy_digest, export_lines, redact_contacts
from bot.store import (
    Busy,
    DuplicateKey,
    NewAction,
    Refused,
    SequenceConflict,
    Snapshot,
    Store,
    StoreError,
    holder_name,
    loads,
)
from bot.store.codec import COMPACT, compact_result

logger = logging.getLogger(__name__)

SYSTEM_ACTOR = "system"
#: The lease whose holder ticks deadlines, and how long one tick holds it (seconds).
DEADLINE_LEASE = "deadlines"
TICK_LEASE_S = 300.0
#: Retries when another process wrote to the same game between load and commit.
MAX_ATTEMPTS = 8


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
    scenario: str | None
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


@dataclass
class Loaded:
    row: dict[str, Any]
    game: Game[Any]
    state: GameState
    head: int
    seats: list[dict[str, Any]]
    last_snapshot: int
    #: CPU seconds a replay from ``last_snapshot`` to ``head`` takes (as measured)
    replay_cost: float = 0.0

    @property
    def id(self) -> str:
        return str(self.row["id"])


@dataclass
class Plan:
    actions: list[NewAction]
    states: list[GameState]
    events: list[Event]
    fields: dict[str, Any]
    side: str | None = None
    status: Literal["applied", "partial"] = "applied"
    error: str | None = None
    error_rule: str | None = None
    legal: list[str] = field(default_factory=list)
    stopped_at: int | None = None
    revert_after: int | None = None
    force_snapshot: bool = False
    #: canonical bytes of ``states`` (as far as the planner serialised them for hashing)
    encoded: list[bytes] = field(default_factory=list)
    #: CPU seconds the rules took for each action (what replaying it will cost)
    costs: list[float] = field(default_factory=list)
    #: CPU seconds a replay from the newest snapshot to the plan's end takes (set when its
    #: snapshots are chosen)
    replay_cost: float = 0.0
    #: The revealed seed a reopened game stops using (see ``GameService._reopen``).
    past_seed: dict[str, Any] | None = None


@dataclass
class _Cached:
    head: int
    state: GameState
    last_snapshot: int
    replay_cost: float = 0.0


@dataclass
class _Before:
    """The state before a game's last action, while that action is its last (``head``):
    what undoing it returns to, at no replay."""

    head: int
    seq: int
    state: GameState


def default_dice(seed: bytes, dice_id: str, branch: int, start: int) -> Dice:
    return CommittedDice(seed, dice_id, branch=branch, start_index=start)


class GameService:
    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], float] = time.time,
        dice_factory: DiceFactory = default_dice,
        seed_source: Callable[[int], bytes] = os.urandom,
        snapshot_every: int = 100,
        snapshot_on_side_change: bool = False,
        snapshot_replay_ms: float = SNAPSHOT_REPLAY_MS,
        outage_after: float = 600.0,
        state_cache_bytes: int = DEFAULT_STATE_BUDGET,
        busy_budget: float = 30.0,
        tick_lease: float = TICK_LEASE_S,
    ) -> None:
        """``state_cache_bytes``: the memory budget of the states kept between requests
        (estimated, see :mod:`bot.caches`); past it the least recently used game's state is
        dropped and rebuilt from its snapshot when next needed. An eighth of it keeps, for
        the most recent games, the state before their last action: undoing an order just
        given, or a GM's rollback of it, then replays nothing. ``busy_budget``: seconds an
        order may wait, retrying, for a file another process holds ("database is locked")
        before it is refused as busy.

        Snapshots are spaced by cost: one is taken when replaying the actions since the last
        would take ``snapshot_replay_ms`` of CPU (as the rules took to apply them), or after
        ``snapshot_every`` actions, whichever comes first (``snapshot_on_side_change``: also
        whenever the side to act changes). So resuming a game costs at most a snapshot's
        load and that much replay, whatever its length, and a long game stores a
        compressed state every ten actions or so rather than at every change of side."""
        self.store = store
        self.clock = clock
        self.dice_factory = dice_factory
        self.seed_source = seed_source
        self.snapshot_every = snapshot_every
        self.snapshot_on_side_change = snapshot_on_side_change
        self.snapshot_replay = snapshot_replay_ms / 1000
        self.outage_after = outage_after
        self.busy_budget = busy_budget
        self.tick_lease = tick_lease
        #: This service's name among the processes sharing the database (leases).
        self.instance = holder_name()
        self._locks = GameLocks()
        self._cache: StateCache[_Cached] = StateCache(state_cache_bytes - state_cache_bytes // 8)
        #: an eighth of the budget: the states before the last actions of recent games
        self._before: StateCache[_Before] = StateCache(state_cache_bytes // 8)
        self._rules: dict[tuple[str, str | None], Game[Any]] = {}
        #: pack folder -> (name, size, mtime of each pack file; the pack's hash then)
        self._pack_hashes: dict[str, tuple[tuple[tuple[str, int, int], ...], str]] = {}

    # ---- games, seats, start ----------------------------------------------------------

    def create_game(
        self,
        creator: Actor,
        game: str,
        scenario: str | None = None,
        options: Mapping[str, Any] | None = None,
        pack: Path | None = None,
        *,
        creator_role: Literal["gm", "player"] | None = "gm",
        creator_side: str | None = None,
        bindings: Mapping[str, Any] | None = None,
        game_id: str | None = None,
        creator_secret: str | None = None,
    ) -> GameInfo:
        """A new game in 'setup': seats can be filled and entropy added, then ``start``.

        ``creator_secret``: the secret of the creator's seat (see :meth:`set_seat_secret`).
        """
        try:
            rules = self._load_rules(game, str(pack) if pack else None)
        except UnknownGame as error:
            raise InvalidOperation(str(error)) from error
        if scenario is not None and scenario not in rules.scenarios():
            raise InvalidOperation(f"unknown scenario {scenario!r}; choose from "
                                   + ", ".join(rules.scenarios()))
        try:
            rules.setup(scenario, dict(options or {}))
        except (ValueError, RuleError) as error:
            raise InvalidOperation(f"cannot set up {game}: {error}") from error
        seed = self.seed_source(32)
        gid = game_id or uuid.uuid4().hex[:12]
        if self.store.game(gid) is not None:
            raise InvalidOperation(f"a game {gid!r} already exists")
        seats = []
        if creator_role is not None:
            if creator_role == "player" and creator_side not in rules.sides:
                raise InvalidOperation(f"choose a side: {', '.join(rules.sides)}")
            seats.append(self._seat_row(creator_side if creator_role == "player" else None,
                                        creator_role, creator, creator_secret))
        self.store.insert_game({
            "id": gid, "game": game, "scenario": scenario,
            "options": json.dumps(dict(options or {}), sort_keys=True),
            "pack_path": str(pack) if pack else None,
            "pack_hash": self._pack_hash(str(pack)) if pack else None, "status": "setup",
            "created": self.clock(), "created_by": creator.label,
            "bindings": json.dumps(dict(bindings or {}), sort_keys=True),
            "dice_id": gid, "server_seed": seed, "commitment": commitment(seed),
        }, seats)
        return self.info(gid)

    def _seat_row(self, side: str | None, role: str, player: Actor,
                  secret: str | None = None) -> dict[str, Any]:
        return {"side": side, "role": role, "discord_id": player.discord_id,
                "email": player.email.lower() if player.email else None,
                "password_hash": seat_secrets.hash_secret(secret) if secret else None,
                "created": self.clock()}

    def seat(self, game_id: str, by: Actor, side: str | None, player: Actor,
             role: Literal["player", "gm"] = "player", secret: str | None = None) -> GameInfo:
        """Seat ``player`` for ``side`` (a GM seats anyone; a player may take a free side);
        ``secret``: the new seat's secret, if its frontend needs one."""
        row = self._row(game_id)
        seats = self.store.seats(game_id)
        rules = self._rules_for(row)
        if role == "player" and side not in rules.sides:
            raise InvalidOperation(f"unknown side {side!r}; sides are {', '.join(rules.sides)}")
        if role == "gm":
            side = None
        is_gm = any(by.holds(s) and s["role"] == "gm" for s in seats)
        taken = any(s["side"] == side and s["role"] == "player" for s in seats)
        if not is_gm:
            if role == "gm" or by != player:
                raise PermissionDenied("only the game's GM may seat other people or GMs")
            if taken or row["status"] != "setup":
                raise PermissionDenied(f"{side} is not free to take")
        if not (player.discord_id or player.email):
            raise InvalidOperation("a seat needs a Discord id or an email address")
        if any(player.holds(s) and s["side"] == side and s["role"] == role for s in seats):
            raise InvalidOperation("already seated there")
        self.store.add_seat(game_id, self._seat_row(side, role, player, secret))
        return self.info(game_id)

    # ---- seat secrets (for frontends that cannot authenticate a user, e.g. email) -----

    def set_seat_secret(self, game_id: str, by: Actor, secret: str, *,
                        side: str | None = None, holder: Actor | None = None) -> list[SeatInfo]:
        """Set or reset the secret of the player seats of ``side``, or of ``holder``'s GM
        seats. The GM only; the store keeps the secret's hash, never the secret."""
        row = self._row(game_id)
        seats = self.store.seats(game_id)
        self._require_gm(seats, by, "set seat secrets")
        try:
            secret = seat_secrets.check_strength(secret)
        except seat_secrets.WeakSecret as error:
            raise InvalidOperation(str(error)) from error
        if side is not None:
            sides = self._rules_for(row).sides
            if side not in sides:
                raise InvalidOperation(f"unknown side {side!r}; sides are {', '.join(sides)}")
            chosen = [s for s in seats if s["role"] == "player" and s["side"] == side]
        elif holder is not None:
            chosen = [s for s in seats if s["role"] == "gm" and holder.holds(s)]
        else:
            raise InvalidOperation("name a side, or the GM whose secret to set")
        if not chosen:
            raise InvalidOperation("no such seat in game " + game_id)
        ids = {int(s["id"]) for s in chosen}
        self.store.set_seat_secret(game_id, sorted(ids), seat_secrets.hash_secret(secret))
        return [self._seat_info(s) for s in self.store.seats(game_id) if int(s["id"]) in ids]

    def unlocked_seats(self, game_id: str, actor: Actor, secret: str | None) -> list[SeatInfo]:
        """The actor's seats whose secret is ``secret`` (none without a secret)."""
        if not secret:
            return []
        return [self._seat_info(s) for s in self.store.seats(game_id)
                if actor.holds(s) and seat_secrets.matches(secret, s["password_hash"])]

    def seats_with_secret(self, game_id: str, secret: str) -> list[SeatInfo]:
        """Every seat whose secret is ``secret``, whoever holds it (to warn the owner of a
        secret that someone else has used)."""
        return [self._seat_info(s) for s in self.store.seats(game_id)
                if seat_secrets.matches(secret, s["password_hash"])]

    def unseat(self, game_id: str, gm: Actor, who: str | Actor, reason: str,
               role: Literal["player", "gm"] = "player") -> GameInfo:
        """Close seats so another player can take over (``seat`` then seats the new one).

        ``who`` is a side (every player seated for it) or a player (their seats of
        ``role``). Seats are closed, never deleted: the record keeps who held which side,
        until when, who closed it and why. The last GM seat cannot be closed.
        """
        row = self._row(game_id)
        seats = self.store.seats(game_id)
        self._require_gm(seats, gm, "unseat players")
        if not reason.strip():
            raise InvalidOperation("say why (the reason is kept with the seat)")
        if isinstance(who, str):
            sides = self._rules_for(row).sides
            if who not in sides:
                raise InvalidOperation(f"unknown side {who!r}; sides are {', '.join(sides)}")
            closing = [s for s in seats if s["role"] == "player" and s["side"] == who]
            if not closing:
                raise InvalidOperation(f"no player is seated for {who}")
        else:
            closing = [s for s in seats if who.holds(s) and s["role"] == role]
            if not closing:
                raise InvalidOperation(f"that person holds no {role} seat in game {game_id}")
            if role == "gm" and len([s for s in seats if s["role"] == "gm"]) <= len(closing):
                raise InvalidOperation("a game keeps at least one GM")
        self.store.close_seats(game_id, [int(s["id"]) for s in closing], gm.label, reason,
                               self.clock())
        return self.info(game_id)

    def add_entropy(self, game_id: str, actor: Actor, text: str) -> str:
        """A seated player's contribution to the dice seed; only before the game starts.

        Commit–reveal: the text stays hidden from everyone until the game starts (only its
        digest, returned here, is published: :attr:`GameInfo.entropy`), so no one chooses
        a contribution after seeing another; the server seed was committed before any, and
        nobody sees it before the game is over (:meth:`reveal_seed`).
        """
        row = self._row(game_id)
        if not any(actor.holds(s) for s in self.store.seats(game_id)):
            raise PermissionDenied("only seated players may add dice entropy")
        if row["status"] != "setup":
            raise InvalidOperation("entropy can be added only before the game starts")
        if not text.strip():
            raise InvalidOperation("empty entropy")
        if len(text) > 1000:
            raise InvalidOperation("entropy holds at most 1000 characters")
        self.store.add_entropy(game_id, actor.label, text)
        return entropy_digest(text)

    def start(self, game_id: str, by: Actor, *, deadline_seconds: float | None = None,
              reminders: Sequence[float] = (0.5, 0.9)) -> GameInfo:
        row = self._row(game_id)
        seats = self.store.seats(game_id)
        self._require_gm(seats, by, "start the game")
        if row["status"] != "setup":
            raise InvalidOperation(f"the game is already {row['status']}")
        rules = self._rules_for(row)
        missing = [side for side in rules.sides
                   if not any(s["side"] == side and s["role"] == "player" for s in seats)]
        if missing:
            raise InvalidOperation(f"no player seated for {', '.join(missing)}")
        state = initial_state(rules, row["scenario"], json.loads(row["options"]))
        now = self.clock()
        state_hash = state.state_hash()
        fields: dict[str, Any] = {"status": "active", "state_hash": state_hash,
                                  "to_act": rules.acting_side(state)}
        if deadline_seconds:
            fields.update(deadlines.settings(deadline_seconds, reminders))
            fields.update(deadlines.reset(rules.acting_side(state), deadline_seconds, now))
        self.store.update_game(game_id, fields, expected_seq=0,
                               snapshot=Snapshot(0, state.to_json(), state_hash))
        return self.info(game_id)

    def set_deadline(self, game_id: str, by: Actor, seconds: float | None,
                     reminders: Sequence[float] = (0.5, 0.9)) -> GameInfo:
        with self._lock(game_id):
            ctx = self._load(game_id)
            self._require_gm(ctx.seats, by, "set deadlines")
            fields = deadlines.settings(seconds, reminders)
            side = ctx.game.acting_side(ctx.state)
            # While paused the clock is stopped: the new period starts when play resumes.
            since = ctx.row["paused_at"] if ctx.row["status"] == "paused" else None
            fields.update(deadlines.reset(side, seconds,
                                          float(since) if since is not None else self.clock()))
            self.store.update_game(game_id, fields, expected_seq=ctx.head)
        return self.info(game_id)

    def info(self, game_id: str, viewer: Actor | None = None, *,
             contacts: bool = False) -> GameInfo:
        """The game's status and seats. A seat's email address is shown only to the GM and
        to whoever holds that seat (``viewer``); ``contacts`` gives every address, for a
        frontend that must reach its players and shows addresses to nobody else."""
        row = self._row(game_id)
        seats = self.store.seats(game_id)
        return self._info(row, seats, contacts or self._sees_contacts(seats, viewer), viewer)

    @staticmethod
    def _sees_contacts(seats: Sequence[Mapping[str, Any]], viewer: Actor | None) -> bool:
        """Whether ``viewer`` may read every seat's address: the game's GM."""
        return viewer is not None and any(viewer.holds(s) and s["role"] == "gm" for s in seats)

    def _info(self, row: Mapping[str, Any], seats: Sequence[Mapping[str, Any]],
              contacts: bool = False, viewer: Actor | None = None) -> GameInfo:
        def shown(seat: Mapping[str, Any]) -> bool:
            return contacts or (viewer is not None and viewer.holds(seat))

        labels = contact_labels(seats) if not contacts else {}
        return GameInfo(
            id=row["id"], game=row["game"], scenario=row["scenario"], status=row["status"],
            to_act=row["to_act"], result=row["result"], commitment=row["commitment"],
            pack_hash=row["pack_hash"],
            seats=[GameService._seat_info(s, shown(s)) for s in seats],
            head_seq=row["head_seq"], branch=row["branch"], deadline_at=row["deadline_at"],
            bindings=json.loads(row["bindings"] or "{}"), paused_at=row.get("paused_at"),
            paused_by=redact_label(row.get("paused_by"), labels),
            pause_reason=row.get("pause_reason"),
            entropy=[entropy_digest(e["text"]) for e in self.store.entropy(str(row["id"]))])

    @staticmethod
    def _seat_info(seat: Mapping[str, Any], email: bool = True) -> SeatInfo:
        return SeatInfo(side=seat["side"], role=seat["role"], discord_id=seat["discord_id"],
                        email=seat["email"] if email else None,
                        secret=bool(seat.get("password_hash")))

    def games_for(self, actor: Actor) -> list[GameInfo]:
        """The games ``actor`` is seated in (addresses as :meth:`info` shows them to it)."""
        rows = self.store.games_of(actor.discord_id, actor.email)
        out = []
        for row in rows:
            seats = self.store.seats(row["id"])
            out.append(self._info(row, seats, self._sees_contacts(seats, actor), actor))
        return out

    def view(self, game_id: str, actor: Actor, viewer: str | None = None) -> View:
        """The view ``actor`` may have: their side's, the GM's, or the public one."""
        ctx = self._load(game_id)
        return ctx.game.view(ctx.state, self._audience(ctx.game, ctx.seats, actor, viewer))

    @staticmethod
    def _audience(game: Game[Any], seats: Sequence[Mapping[str, Any]], actor: Actor,
                  wanted: str | None) -> str:
        """The audience ``actor`` reads as: ``wanted`` if allowed, else the richest one
        (GM, then their own side, then public)."""
        mine = [s for s in seats if actor.holds(s)]
        allowed = {PUBLIC} | {s["side"] for s in mine if s["role"] == "player"}
        if any(s["role"] == "gm" for s in mine):
            allowed |= {GM, *game.sides}
        chosen = wanted or next((v for v in (GM, *game.sides) if v in allowed), PUBLIC)
        if chosen not in allowed:
            raise PermissionDenied(f"you may not see the {chosen} view")
        return chosen

    def reveal_seed(self, game_id: str, by: Actor) -> str:
        """The server seed (hex), to anyone once the game is over — and to nobody before,
        the GM included: a seed seen in play tells every die to come (and the entropy was
        fixed before it could be seen). Every read is logged (:meth:`audit`)."""
        row = self._row(game_id)
        if not row["seed_revealed"]:
            raise PermissionDenied("the dice seed stays secret until the game is over, from "
                                   "everyone (the GM too); then anyone may check every die "
                                   f"against the commitment {row['commitment']}")
        if row["server_seed"] is None:
            raise InvalidOperation("this game's seed is not held here")
        self.store.audit(game_id, by.label, "seed-read", "reveal_seed")
        return bytes(row["server_seed"]).hex()

    def audit(self, game_id: str, gm: Actor) -> list[dict[str, Any]]:
        """Who read the game's secrets (dice seed reads), when: for its GM."""
        self._row(game_id)
        self._require_gm(self.store.seats(game_id), gm, "read the audit trail")
        return self.store.audit_trail(game_id)

    def game_rules(self, name: str) -> Game[Any]:
        """The rules of a kind of game with its shipped data pack (names, sides, notation);
        a game's own rules, bound to its pack, are :meth:`rules`."""
        try:
            return self._load_rules(name, None)
        except UnknownGame as error:
            raise InvalidOperation(str(error)) from error

    def games_behind(self, key: str, cursor: str) -> list[GameInfo]:
        """Games a frontend bound with ``key`` that moved on since it last published
        (its cursor: ``meta[cursor + game id]``, the last action it published)."""
        return [self._info(row, self.store.seats(str(row["id"])))
                for row in self.store.games_behind(key, cursor)]

    def find_by_binding(self, key: str, value: str | int) -> GameInfo | None:
        """The game a frontend bound to ``key`` = ``value`` (e.g. a Discord thread id);
        the newest if several were."""
        rows = self.store.games_bound(key, str(value))
        if not rows:
            return None
        return self._info(rows[0], self.store.seats(str(rows[0]["id"])))

    def private_input(self, game_id: str) -> str | None:
        """The side now entering secrets (a hidden or face-down set-up, mines), if any:
        frontends take its lines privately meanwhile (a DM, a prompt without echo)."""
        ctx = self._load(game_id)
        return ctx.game.private_input(ctx.state) if ctx.row["status"] == "active" else None

    def is_private(self, game_id: str, actor: Actor, text: str) -> bool:
        """Whether any line of ``text``, given now by the actor's side, is private
        (:meth:`Game.is_private`): a frontend takes it only privately and never echoes it.
        Standing orders are private too but count not here: frontends acknowledge them to
        their sender alone, wherever given. Unreadable lines are refused, never stored."""
        ctx = self._load(game_id)
        side = self._side_for(ctx, actor, None)
        if isinstance(side, SubmitResult):
            return False
        for line in order_lines(text):
            try:
                order = ctx.game.parse(line)
            except RuleError:
                continue
            if not isinstance(order, SetStanding) and ctx.game.is_private(ctx.state, side,
                                                                          order):
                return True
        return False

    def games_bound(self, key: str, value: str | int) -> list[GameInfo]:
        """Every game a frontend bound to ``key`` = ``value`` (e.g. a Discord server), newest
        first."""
        return [self._info(row, self.store.seats(str(row["id"])))
                for row in self.store.games_bound(key, str(value))]

    def legal_orders(self, game_id: str, actor: Actor, side: str | None = None) -> list[str]:
        """The orders ``side`` may give now, from the game's own rules and data pack.

        Without ``side``: the side to act if the actor holds it (a GM: the side to act),
        else the actor's own side (usually nothing until it is their turn). A player may
        ask only for a side they hold; a GM for any. Nothing is legal unless the game is
        in play (set-up, paused, finished and archived games give an empty list).
        """
        ctx = self._load(game_id)
        mine = [s for s in ctx.seats if actor.holds(s)]
        held = [str(s["side"]) for s in mine if s["role"] == "player"]
        is_gm = any(s["role"] == "gm" for s in mine)
        if side is None:
            acting = ctx.game.acting_side(ctx.state)
            if acting is not None and (acting in held or is_gm):
                side = acting
            elif held:
                side = held[0]
            elif not is_gm:
                raise PermissionDenied(f"you are not seated in game {game_id}")
        elif side not in ctx.game.sides:
            raise InvalidOperation(f"unknown side {side!r}; sides are "
                                   + ", ".join(ctx.game.sides))
        elif side not in held and not is_gm:
            raise PermissionDenied(f"you hold no seat for {side}")
        if side is None or ctx.row["status"] != "active":
            return []
        return list(ctx.game.legal_orders(ctx.state, side))

    def setup_guide(self, game_id: str, actor: Actor) -> SetupGuide | None:
        """While a side the actor plays enters a secret set-up: what it has left to place,
        where, and what ``done`` would forfeit (its own secrets: for its players only)."""
        ctx = self._load(game_id)
        side = ctx.game.private_input(ctx.state)
        if side is None or ctx.row["status"] != "active" or not any(
                actor.holds(s) and s["role"] == "player" and s["side"] == side
                for s in ctx.seats):
            return None
        return ctx.game.setup_guide(ctx.state, side)

    def log(self, game_id: str, viewer: Actor, n: int = 10, *, audience: str | None = None,
            include_reverted: bool = False) -> list[LogEntry]:
        """The last ``n`` actions as ``viewer`` may read them (oldest first).

        Each entry is rendered only from what that audience may see: the events
        ``visible_to`` it, and the order text unless it is another side's secret or
        decision answer (:func:`bot.messages.text_visible`); a GM override's details only
        for the GM. ``audience`` picks a narrower view than the viewer's richest one. An
        actor's email address is shown only in the GM's log (and to its holder).
        """
        row = self._row(game_id)
        game = self._rules_for(row)
        seats = self.store.seats(game_id)
        chosen = self._audience(game, seats, viewer, audience)
        rows = self.store.last_actions(game_id, max(0, n), active_only=not include_reverted)
        entries = [log_entry(game, action, chosen) for action in rows]
        if chosen == GM:
            return entries
        labels = contact_labels(self.store.seat_history(game_id))
        return [entry.model_copy(update={"actor": redact_label(entry.actor, labels,
                                                               viewer.label)})
                for entry in entries]

    def export(self, game_id: str, actor: Actor) -> Export:
        """The game record for ``actor``.

        * A GM, at any time, and anyone once the game is over: the full record
          (:mod:`bot.records`; it verifies; the seed is in it once the game is over).
        * Anyone else while the game is not over: the record redacted for their richest
          audience (their side, else public), tagged ``umpire/1-view``: each action with
          the text, events and rolls that audience may see — no state hashes, no seed,
          no override details, no other side's secrets. It cannot be verified; the full
          record can, after the end.
        """
        row = self._row(game_id)
        seats = self.store.seats(game_id)
        game = self._rules_for(row)
        chosen = self._audience(game, seats, actor, None)
        if chosen == GM or row["status"] == "finished":
            lines = export_lines(self.store, game_id)
            if "seed" in lines[0]:
                self.store.audit(game_id, actor.label, "seed-read", "export")
            if chosen != GM:  # the full record, the other players' addresses withheld
                lines = redact_contacts(lines, contact_labels(self.store.seat_history(game_id)),
                                        actor)
            return Export(game_id=game_id, full=True, audience=chosen, lines=lines)
        header: dict[str, Any] = {
            "record": VIEW_FORMAT, "full_record": FORMAT, "game_id": row["id"],
            "game": row["game"], "scenario": row["scenario"],
            "options": json.loads(row["options"]), "pack_hash": row["pack_hash"],
            "commitment": row["commitment"], "dice_id": row["dice_id"], "audience": chosen,
            "seats": [{"side": s["side"], "role": s["role"], "discord_id": s["discord_id"]}
                      for s in seats],
            "status": row["status"], "result": row["result"], "created": row["created"],
        }
        lines = [header, *(view_record_line(game, action, chosen)
                           for action in self.store.actions(game_id))]
        return Export(game_id=game_id, full=False, audience=chosen, lines=lines)

    # ---- orders -------------------------------------------------------------------------

    def submit(self, game_id: str, actor: Actor, text: str,
               idempotency_key: str | None = None, side: str | None = None) -> SubmitResult:
        """Apply the order lines in ``text`` for the actor's side (see the module notes)."""

        try:
            check_size(text)
        except RuleError as error:
            return self._refused(game_id, str(error), rule=error.rule)

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            acting = self._side_for(ctx, actor, side)
            if isinstance(acting, SubmitResult):
                return acting
            lines = order_lines(text)
            if not lines:
                return self._refused(game_id, "no order given", rule="notation", side=acting)
            return self._lines_plan(ctx, actor.label, acting, lines)

        return self._execute(game_id, plan, idempotency_key, actor.label,
                             ("submit", side, text))

    def updates(self, game_id: str, after: int, *, skip_actor: str | None = None,
                only_actor: str | None = None) -> SubmitResult:
        """What happened after action ``after``, as every audience may read it.

        For a frontend that tells its users of actions taken elsewhere (a move made by
        email, told in a Discord thread): the events of every later action (reverted ones
        too: they were played, and the rollback that reverted them is among the actions),
        and each audience's current view. ``skip_actor`` leaves out actions whose actor
        label starts with it (those the frontend published itself); ``only_actor`` keeps
        only those whose label starts with it.
        """
        ctx = self._load(game_id)
        rows = [r for r in self.store.actions(game_id, after=after, upto=ctx.head)
                if not (skip_actor and str(r["actor"]).startswith(skip_actor))
                and (only_actor is None or str(r["actor"]).startswith(only_actor))]
        events = [e for r in rows for e in events_from_json(loads(r["events"], []))]
        game = ctx.game
        return SubmitResult(status="applied", game_id=game_id, seqs=[int(r["seq"]) for r in rows],
                            to_act=game.acting_side(ctx.state),
                            pending_side=ctx.state.pending.side if ctx.state.pending else None,
                            messages=_messages(game, ctx.state, events))

    async def submit_async(self, game_id: str, actor: Actor, text: str,
                           idempotency_key: str | None = None,
                           side: str | None = None) -> SubmitResult:
        return await asyncio.to_thread(self.submit, game_id, actor, text, idempotency_key, side)

    def _not_in_play(self, ctx: Loaded) -> SubmitResult | None:
        """A refusal when the game takes no orders now (paused, not started, over)."""
        status = ctx.row["status"]
        if status == "paused":
            reason = ctx.row["pause_reason"]
            return self._refused(ctx.id, "the game is paused by the GM"
                                 + (f" ({reason})" if reason else "")
                                 + ": orders and decisions wait until the GM resumes it",
                                 rule="paused")
        if status != "active":
            return self._refused(ctx.id, f"the game is {status}, not in play", rule="status")
        return None

    def _side_for(self, ctx: Loaded, actor: Actor, side: str | None) -> str | SubmitResult:
        stopped = self._not_in_play(ctx)
        if stopped is not None:
            return stopped
        mine = [s for s in ctx.seats if actor.holds(s)]
        if not mine:
            return self._refused(ctx.id, f"you are not seated in game {ctx.id}",
                                 rule="permission")
        sides = [s["side"] for s in mine if s["role"] == "player"]
        is_gm = any(s["role"] == "gm" for s in mine)
        if side is not None:
            if side not in ctx.game.sides:
                return self._refused(ctx.id, f"unknown side {side!r}", rule="permission",
                                     legal=list(ctx.game.sides))
            if side in sides or is_gm:
                return side
            return self._refused(ctx.id, f"you hold no seat for {side}; you play "
                                 + (", ".join(sides) or "no side"), rule="permission")
        acting = ctx.game.acting_side(ctx.state)
        if acting in sides:
            return str(acting)
        if sides:
            return str(sides[0])
        if acting is None:
            return self._refused(ctx.id, "the game is over", rule="over")
        return str(acting)

    def _lines_plan(self, ctx: Loaded, actor: str, side: str, lines: Sequence[str],
                    kind: str | None = None, payload: Mapping[str, Any] | None = None,
                    notice: Sequence[Event] = ()) -> Plan | SubmitResult:
        state = ctx.state
        next_roll = int(ctx.row["next_roll"])
        forced = json.loads(ctx.row["forced_dice"])
        actions: list[NewAction] = []
        states: list[GameState] = []
        events: list[Event] = list(notice)
        now = self.clock()
        plan = Plan(actions=actions, states=states, events=events, fields={}, side=side)
        for number, line in enumerate(lines, start=1):
            before = state.pending
            try:
                dice = self._dice(ctx, next_roll, forced)
                started = time.thread_time()
                order = ctx.game.parse(line)
                private = ctx.game.is_private(state, side, order)
                outcome = ctx.game.apply(state, side, order, dice)
                plan.costs.append(time.thread_time() - started)
            except Exception as caught:  # every input gets a refusal, never an exception
                error = caught if isinstance(caught, RuleError) else _internal(caught, number)
                if not actions:
                    return self._refused(ctx.id, str(error), rule=error.rule, legal=error.legal,
                                         side=side, stopped_at=number)
                plan.status, plan.stopped_at = "partial", number
                plan.error, plan.error_rule, plan.legal = str(error), error.rule, error.legal
                break
            forced = forced[dice.used:]
            next_roll += len(outcome.rolls)
            answered = (before is not None and before.side == side
                        and not isinstance(order, SetStanding))
            data, state_hash = outcome.state.encoded()
            plan.encoded.append(data)
            row_events = [*(notice if number == 1 else ()), *outcome.events]
            actions.append(NewAction(
                seq=ctx.head + number, branch=int(ctx.row["branch"]), actor=actor,
                kind=kind or ("decision" if answered else "order"), side=side,
                text=ctx.game.format(order), order_json=order.model_dump(mode="json"),
                payload=({**(payload or {}), "private": True} if private
                         else dict(payload) if payload else None),
                rolls=rolls_to_json(outcome.rolls, dice.forced_positions),
                events=events_to_json(row_events), applied=outcome.applied,
                next_roll=next_roll, state_hash=state_hash, created=now))
            states.append(outcome.state)
            events.extend(outcome.events)
            state = outcome.state
            if state.pending is not None and number < len(lines):
                plan.status, plan.stopped_at = "partial", number + 1
                plan.error = (f"stopped before line {number + 1}: "
                              f"{state.pending.side} must decide first")
                break
        plan.fields = {"next_roll": next_roll, "forced_dice": json.dumps(forced)}
        return plan

    def _dice(self, ctx: Loaded, start: int, forced: Sequence[Mapping[str, Any]]) -> ForcingDice:
        if ctx.row["server_seed"] is None:
            raise RuleError("dice", "this game holds no dice seed (an archived import)")
        entropy = [e["text"] for e in self.store.entropy(ctx.id)]
        seed = effective_seed(bytes(ctx.row["server_seed"]), entropy)
        inner = self.dice_factory(seed, str(ctx.row["dice_id"]), int(ctx.row["branch"]), start)
        return ForcingDice(inner, forced)

    # ---- GM override ---------------------------------------------------------------------

    def override(self, game_id: str, gm: Actor, op: Override | Mapping[str, Any],
                 reason: str, idempotency_key: str | None = None) -> SubmitResult:
        """Apply a typed GM operation (see :mod:`bot.overrides`), logged with its reason."""

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            denied = self._gm_refusal(ctx, gm, "override", reason,
                                      "an override needs a reason", rule="override")
            if denied is not None:
                return denied
            try:
                typed = parse_override(op)
            except RuleError as error:
                return self._refused(game_id, str(error), rule=error.rule)
            forced = json.loads(ctx.row["forced_dice"])
            next_roll = int(ctx.row["next_roll"])
            dice = self._dice(ctx, next_roll, forced)
            try:
                done = apply_override(ctx.game, ctx.state, typed, reason, dice)
            except RuleError as error:
                return self._refused(game_id, str(error), rule=error.rule, legal=error.legal)
            forced = forced[dice.used:]
            if isinstance(typed, ForceDice):
                forced += [{"value": v, "reason": reason} for v in typed.values]
            next_roll += len(done.rolls)
            action = NewAction(
                seq=ctx.head + 1, branch=int(ctx.row["branch"]), actor=gm.label,
                kind="gm-override", side=done.side, text=None,
                payload={"op": typed.model_dump(mode="json"), "reason": reason},
                rolls=rolls_to_json(done.rolls, dice.forced_positions),
                events=events_to_json(done.events), applied=done.applied,
                next_roll=next_roll, state_hash=done.state.state_hash(), created=self.clock())
            return Plan(actions=[action], states=[done.state], events=done.events,
                        fields={"next_roll": next_roll, "forced_dice": json.dumps(forced)},
                        side=done.side)

        request = op.model_dump(mode="json") if isinstance(op, BaseModel) else dict(op)
        return self._execute(game_id, plan, idempotency_key, gm.label,
                             ("override", request, reason))

    # ---- pause, resume --------------------------------------------------------------------

    def pause(self, game_id: str, gm: Actor, reason: str,
              idempotency_key: str | None = None) -> SubmitResult:
        """Stop play: orders and decisions are refused and deadlines frozen until resumed.

        Logged as a ``pause`` action with the reason and a public notice; the game's state
        does not change. GM tools (overrides, rollback) still work while paused.
        """

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            denied = self._gm_refusal(ctx, gm, "pause the game", reason,
                                      "a pause needs a reason", rule="pause")
            if denied is not None:
                return denied
            if ctx.row["status"] != "active":
                return self._refused(game_id, f"only a game in play can be paused; this one "
                                     f"is {ctx.row['status']}", rule="pause")
            now = self.clock()
            clock = (" The deadline clock is stopped." if ctx.row["deadline_at"] is not None
                     else "")
            notice = Event(kind="pause", audience=PUBLIC,
                           text=f"The GM paused the game — reason: {reason}. Orders and "
                                f"decisions wait until the GM resumes it.{clock}")
            return self._status_plan(ctx, gm.label, "pause", notice, {"reason": reason},
                                     {"status": "paused", "paused_at": now,
                                      "paused_by": gm.label, "pause_reason": reason})

        return self._execute(game_id, plan, idempotency_key, gm.label,
                             ("pause", reason))

    def resume(self, game_id: str, gm: Actor, reason: str,
               idempotency_key: str | None = None) -> SubmitResult:
        """Restart play after :meth:`pause`; a running deadline is extended by the time the
        game stood paused (reminders already sent stay sent)."""

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            denied = self._gm_refusal(ctx, gm, "resume the game", reason,
                                      "say why play resumes", rule="pause")
            if denied is not None:
                return denied
            if ctx.row["status"] != "paused":
                return self._refused(game_id, f"the game is {ctx.row['status']}, not paused",
                                     rule="pause")
            now = self.clock()
            stopped = max(0.0, now - float(ctx.row["paused_at"] or now))
            fields: dict[str, Any] = {"status": "active", "paused_at": None,
                                      "paused_by": None, "pause_reason": None}
            text = f"The GM resumed the game — reason: {reason}."
            if ctx.row["deadline_at"] is not None:
                fields["deadline_at"] = float(ctx.row["deadline_at"]) + stopped
                if ctx.row["deadline_start"] is not None:
                    fields["deadline_start"] = float(ctx.row["deadline_start"]) + stopped
                text += (f" The deadline is extended by {deadlines.duration(stopped)} "
                         "(the time the game stood paused).")
            notice = Event(kind="resume", audience=PUBLIC, text=text)
            return self._status_plan(ctx, gm.label, "resume", notice,
                                     {"reason": reason, "extended": stopped}, fields)

        return self._execute(game_id, plan, idempotency_key, gm.label,
                             ("resume", reason))

    def _status_plan(self, ctx: Loaded, actor: str, kind: str, notice: Event,
                     payload: dict[str, Any], fields: dict[str, Any]) -> Plan:
        """A logged action that changes the game's status, not its state."""
        action = NewAction(
            seq=ctx.head + 1, branch=int(ctx.row["branch"]), actor=actor, kind=kind,
            payload=payload, events=events_to_json([notice]),
            next_roll=int(ctx.row["next_roll"]), state_hash=ctx.state.state_hash(),
            created=self.clock())
        return Plan(actions=[action], states=[ctx.state], events=[notice], fields=fields)

    # ---- rollback, roll-forward, undo ----------------------------------------------------

    def rollback_preview(self, game_id: str, gm: Actor, to_seq: int) -> RollbackPreview:
        ctx = self._load(game_id)
        self._require_gm(ctx.seats, gm, "roll back")
        target, reverted = self._rollback_target(ctx, to_seq)
        rolls = sum(len(json.loads(r["rolls"])) for r in reverted)
        return RollbackPreview(
            to_seq=to_seq,
            reverted=[f"{r['seq']} {r['kind']} {r['side'] or ''} {r['text'] or ''}".strip()
                      for r in reverted],
            changes=state_diff(ctx.state.model_dump(mode="json"),
                               target.model_dump(mode="json")),
            rolls_discarded=rolls)

    def rollback(self, game_id: str, gm: Actor, to_seq: int, reason: str) -> SubmitResult:
        """Return the game to its state after action ``to_seq`` (0: the start)."""

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            denied = self._gm_refusal(ctx, gm, "roll back", reason,
                                      "a rollback needs a reason", rule="rollback")
            if denied is not None:
                return denied
            try:
                target, reverted = self._rollback_target(ctx, to_seq)
            except ServiceError as error:
                return self._refused(game_id, str(error), rule="rollback")
            notice = Event(kind="rollback", audience=PUBLIC,
                           text=f"The GM rolled the game back to action {to_seq} "
                                f"({len(reverted)} action(s) reverted) — reason: {reason}")
            return self._rollback_plan(ctx, gm.label, to_seq, target, reverted, notice,
                                       {"to_seq": to_seq, "reason": reason, "undo": False})

        return self._execute(game_id, plan, None, gm.label)

    def _rollback_target(self, ctx: Loaded, to_seq: int
                         ) -> tuple[GameState, list[dict[str, Any]]]:
        if to_seq < 0 or to_seq >= ctx.head:
            raise InvalidOperation(f"roll back to an action between 0 and {ctx.head - 1}")
        if to_seq > 0:
            row = self.store.action(ctx.id, to_seq)
            if row is None or row["reverted_by"] is not None:
                raise InvalidOperation(f"action {to_seq} is not part of the current game")
        reverted = self.store.actions(ctx.id, active_only=True, after=to_seq)
        if not reverted:
            raise InvalidOperation("nothing to roll back")
        return self._state_at(ctx, to_seq), reverted

    def _state_at(self, ctx: Loaded, seq: int) -> GameState:
        kept = self._before.get(ctx.id)
        if kept is not None and kept.head == ctx.head and kept.seq == seq:
            return kept.state  # the state before the last action, as it was planned on
        return self._rebuild(ctx.id, ctx.row, ctx.game, seq)[0]

    def _rollback_plan(self, ctx: Loaded, actor: str, to_seq: int, target: GameState,
                       reverted: Sequence[Mapping[str, Any]], notice: Event | list[Event],
                       payload: dict[str, Any]) -> Plan:
        notices = notice if isinstance(notice, list) else [notice]
        anchor = self.store.action(ctx.id, to_seq) if to_seq else None
        next_roll = int(anchor["next_roll"]) if anchor else 0
        # The forced dice waiting at ``to_seq``: told from those waiting now and the
        # reverted actions, unless dice were forced among them (then from the log).
        forced = forced_before(json.loads(ctx.row["forced_dice"]), reverted)
        if forced is None:
            forced = forced_queue(self.store.actions(ctx.id, active_only=True, upto=to_seq))
        branch = int(ctx.row["branch"]) + 1
        action = NewAction(
            seq=ctx.head + 1, branch=branch, actor=actor, kind="rollback",
            payload={**payload, "reverted": [int(r["seq"]) for r in reverted]},
            events=events_to_json(notices), next_roll=next_roll,
            state_hash=target.state_hash(), created=self.clock())
        return Plan(actions=[action], states=[target], events=notices,
                    fields={"branch": branch, "next_roll": next_roll,
                            "forced_dice": json.dumps(forced)},
                    revert_after=to_seq, force_snapshot=True)

    def roll_forward(self, game_id: str, gm: Actor, rollback_seq: int | None = None
                     ) -> RollForwardReport:
        """Re-apply, one by one, the orders a rollback reverted, while they stay legal."""
        ctx = self._load(game_id)
        self._require_gm(ctx.seats, gm, "roll forward")
        if rollback_seq is None:
            rows = [r for r in self.store.actions(game_id, active_only=True)
                    if r["kind"] == "rollback" and not json.loads(r["payload"]).get("undo")]
            if not rows:
                raise InvalidOperation("no rollback to roll forward from")
            rollback_seq = int(rows[-1]["seq"])
        anchor = self.store.action(game_id, rollback_seq)
        if anchor is None or anchor["kind"] != "rollback":
            raise InvalidOperation(f"action {rollback_seq} is not a rollback")
        undone = [r for r in self.store.actions(game_id, after=0, upto=rollback_seq)
                  if r["reverted_by"] == rollback_seq]
        report = RollForwardReport(rollback_seq=rollback_seq, reapplied=[], skipped=[])
        for row in undone:
            label = f"{row['seq']} {row['kind']} {row['side'] or ''} {row['text'] or ''}".strip()
            if row["kind"] not in ("order", "decision", "system") or not row["text"]:
                report.skipped.append(label)
                continue
            result = self._reapply(game_id, row, gm)
            report.results.append(result)
            if not result.ok:
                report.stopped_at, report.error = int(row["seq"]), result.error
                break
            report.reapplied.append(label)
        return report

    def _reapply(self, game_id: str, row: Mapping[str, Any], gm: Actor) -> SubmitResult:
        def plan(ctx: Loaded) -> Plan | SubmitResult:
            return self._lines_plan(ctx, str(row["actor"]), str(row["side"]), [str(row["text"])],
                                    kind=str(row["kind"]),
                                    payload={"reapplied": int(row["seq"]), "by": gm.label})

        return self._execute(game_id, plan, None, gm.label)

    def undo(self, game_id: str, actor: Actor) -> SubmitResult:
        """Take back one's own last order, if it revealed nothing (see ``undo_refusal``)."""

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            stopped = self._not_in_play(ctx)
            if stopped is not None:
                return stopped
            mine = {s["side"] for s in ctx.seats if actor.holds(s) and s["role"] == "player"}
            if not mine:
                return self._refused(game_id, f"you play no side in game {game_id}",
                                     rule="permission")
            active = self.store.last_actions(game_id, 2)
            if not active:
                return self._refused(game_id, "there is nothing to undo", rule="undo")
            last = active[-1]
            problem = undo_refusal(ctx.game, last, mine, ctx.state)
            if problem is not None:
                return self._refused(game_id, f"cannot undo: {problem}", rule="undo")
            to_seq = int(active[-2]["seq"]) if len(active) > 1 else 0
            target = self._state_at(ctx, to_seq)
            # The order is quoted only to whom it was visible (never a secret one publicly).
            said = order_text_for(ctx.game, last, PUBLIC)
            notice = [Event(kind="undo", audience=PUBLIC,
                            text=f"{last['side']} takes back: {said}")]
            if said != last["text"]:
                notice.append(Event(kind="undo", audience=str(last["side"]),
                                    text=f"{last['side']} takes back: {last['text']}"))
            return self._rollback_plan(ctx, actor.label, to_seq, target, [last], notice,
                                       {"to_seq": to_seq, "reason": "undone by its player",
                                        "undo": True})

        return self._execute(game_id, plan, None, actor.label)

    # ---- deadlines -------------------------------------------------------------------------

    def tick(self, now: float | None = None) -> list[deadlines.Notice]:
        """Send due reminders and act on expired deadlines; call it every minute or so.

        After an outage (no tick for ``outage_after`` seconds), deadlines that expired while
        the service was down are extended instead of being executed in a burst. Of all the
        processes sharing the database, one ticks: the holder of the ``deadlines`` lease
        (renewed at each tick; another process takes it over once it lapses); the others
        get no notices.
        """
        if not self.store.lease(DEADLINE_LEASE, self.instance, self.tick_lease):
            return []
        now = self.clock() if now is None else now
        last = self.store.get_meta("last_tick")
        outage = last is not None and now - float(last) > self.outage_after
        notices: list[deadlines.Notice] = []
        for row in self.store.games_with_deadlines():
            gid = str(row["id"])
            if row["deadline_at"] <= now:
                if outage:
                    notices.append(self._extend_deadline(gid, now))
                else:
                    notices.extend(self._expire(gid, now))
            else:
                notices.extend(self._reminders(row, now))
        self.store.set_meta("last_tick", repr(now))
        return notices

    def _reminders(self, row: Mapping[str, Any], now: float) -> list[deadlines.Notice]:
        due, sent = deadlines.due_reminders(row, now)
        if due:
            try:
                self.store.update_game(str(row["id"]), {"reminders_sent": json.dumps(sent)},
                                       expected_seq=int(row["head_seq"]))
            except SequenceConflict:
                return []  # the game moved on meanwhile; its deadline was reset
        return due

    def _extend_deadline(self, game_id: str, now: float) -> deadlines.Notice:
        with self._lock(game_id), self.store.game_lock(game_id):
            row = self._row(game_id)
            fields, notice = deadlines.extend_after_outage(row, now)
            self.store.update_game(game_id, fields, expected_seq=int(row["head_seq"]))
            self._cache.pop(game_id)
            return notice

    def _expire(self, game_id: str, now: float) -> list[deadlines.Notice]:
        outcome: list[deadlines.Notice] = []

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            side = ctx.row["deadline_side"]
            if side is None or ctx.game.acting_side(ctx.state) != side:
                return self._refused(game_id, "the deadline no longer applies", rule="deadline")
            text = deadlines.default_order(ctx.game, ctx.state, side)
            if text is None:
                fields = {"deadline_at": None}
                self.store.update_game(game_id, fields, expected_seq=ctx.head)
                outcome.append(deadlines.Notice(
                    game_id=game_id, audience=GM, kind="no-default",
                    text=f"{side}'s deadline passed and the rules give no default order; "
                         "the GM must act"))
                return self._refused(game_id, "no default order", rule="deadline")
            decision = ctx.state.pending is not None
            notices = deadlines.expiry_notices(ctx.game, ctx.state, str(side), text)
            return self._lines_plan(ctx, SYSTEM_ACTOR, str(side), [text], kind="system",
                                    payload={"deadline": True, "decision": decision},
                                    notice=notices)

        result = self._execute(game_id, plan, None, SYSTEM_ACTOR)
        if result.ok:
            outcome.append(deadlines.Notice(game_id=game_id, audience=PUBLIC, kind="expired",
                                            text=result.messages[PUBLIC].lines[0]
                                            if result.messages else "deadline expired"))
        return outcome

    # ---- the core: load, plan, commit ---------------------------------------------------

    def _execute(self, game_id: str, make_plan: Callable[[Loaded], Plan | SubmitResult],
                 key: str | None, actor: str, request: Sequence[Any] = ()) -> SubmitResult:
        """Load, plan and append one action (see the module notes).

        ``key`` (an idempotency key) is scoped to ``actor``: the same actor sending the same
        request again with it gets the first result back; a different request with a used
        key is refused; another actor's key of the same text is another key.
        """
        fingerprint = _fingerprint(request)
        deadline = time.monotonic() + self.busy_budget
        pause = 0.02
        conflicts = 0
        try:
            with self._lock(game_id), self.store.game_lock(game_id):
                while conflicts < MAX_ATTEMPTS:
                    try:
                        result = self._attempt(game_id, make_plan, key, actor, fingerprint)
                    except Busy:  # another process held the file: wait a little, in budget
                        remaining = deadline - time.monotonic()
                        if remaining <= 0:
                            break
                        time.sleep(min(pause, remaining))  # the whole budget, not less
                        pause = min(2 * pause, 1.0)
                        continue
                    if result is not None:
                        return result
                    conflicts += 1
            return self._refused(game_id, "the game is busy (other orders are being stored); "
                                 "nothing was done: try again", rule="busy")
        except ServiceError as error:
            return self._refused(game_id, str(error), rule="service")
        except Refused as refusal:  # e.g. a NUL character: nothing was stored
            return self._refused(game_id, str(refusal), rule="input")
        except StoreError as error:  # a damaged file: a clear line, never a traceback
            logger.error("game %s: %s", game_id, error)
            return self._refused(game_id, f"the game's store cannot be read: {_line(error)}",
                                 rule="store")

    def _attempt(self, game_id: str, make_plan: Callable[[Loaded], Plan | SubmitResult],
                 key: str | None, actor: str, fingerprint: str) -> SubmitResult | None:
        """One try of :meth:`_execute`: None when another writer got there first."""
        if key is not None:
            first = self.store.idempotent_result(game_id, actor, key)
            if first is not None:
                return self._replayed(game_id, *first, fingerprint)
        ctx = self._load(game_id)
        planned = make_plan(ctx)
        if isinstance(planned, SubmitResult):
            return planned
        self._reopen(ctx, planned)
        result = self._result(ctx, planned)
        fields = self._fields(ctx, planned)
        snapshots = self._snapshots(ctx, planned)
        idem = ((key, actor, compact_result(result.model_dump(mode="json", exclude={
            "messages"}), planned.states[-1].result), fingerprint) if key is not None else None)
        try:
            self.store.append(
                game_id, ctx.head, planned.actions, fields, snapshots,
                revert_after=(None if planned.revert_after is None else
                              (planned.revert_after, planned.actions[0].seq)),
                idempotency=idem, past_seed=planned.past_seed)
        except SequenceConflict:
            self._cache.pop(game_id)
            self._before.pop(game_id)
            return None
        except DuplicateKey as duplicate:
            return self._replayed(game_id, duplicate.result, duplicate.request, fingerprint)
        last = snapshots[-1].seq if snapshots else ctx.last_snapshot
        final = planned.states[-1]
        size = len(planned.encoded[-1] if len(planned.encoded) == len(
            planned.states) else final.to_bytes())
        self._cache.put(game_id, _Cached(planned.actions[-1].seq, final, last,
                                         planned.replay_cost), size)
        if planned.revert_after is None:  # what an undo of the last action returns to
            before = ((planned.actions[-2].seq, planned.states[-2])
                      if len(planned.states) > 1 else (ctx.head, ctx.state))
            self._before.put(game_id, _Before(planned.actions[-1].seq, *before), size)
        else:
            self._before.pop(game_id)
        if any(e.kind == "seats-swapped" for e in planned.events):
            # the rules decided who plays which side (TP:S bids, 22.1)
            self.store.swap_sides(game_id, *ctx.game.sides[:2])
        return result

    def _replayed(self, game_id: str, stored: str, request: str | None,
                  fingerprint: str) -> SubmitResult:
        """The first result of an idempotency key used again: its outcome as stored, what
        was applied and what each audience was told read back from its actions (no Views:
        frontends do not publish a duplicate again)."""
        if request is not None and request != fingerprint:
            return self._refused(game_id, "this idempotency key was already used for another "
                                 "request; nothing was done", rule="idempotency")
        data = json.loads(stored)
        if data.pop("v", None) != COMPACT:  # a whole result, as older stores kept it
            return SubmitResult.model_validate(data).model_copy(update={"duplicate": True})
        over = data.pop("over", None)
        rows = [row for seq in data.get("seqs", [])
                if (row := self.store.action(game_id, int(seq))) is not None]
        events = [e for row in rows for e in events_from_json(loads(row["events"], []))]
        applied = [text for row in rows
                   for text in (loads(row["applied"], []) or [row["text"] or row["kind"]])]
        sides = self._rules_for(self._row(game_id)).sides
        messages = {viewer: message_for(viewer, events, to_act=data.get("to_act"),
                                        result=over, pending=None)
                    for viewer in audiences(sides)}
        return SubmitResult(game_id=game_id, applied=applied, messages=messages,
                            duplicate=True, **data)

    def _reopen(self, ctx: Loaded, plan: Plan) -> None:
        """A finished game reopened (a rollback past its end) goes on with a new secret
        seed: the old one was revealed at the end, and rolls from it could be predicted.
        The new seed's commitment is published with the action; the old seed is kept."""
        if ctx.row["status"] != "finished" or plan.states[-1].result is not None:
            return
        seed = self.seed_source(32)
        branch = int(plan.fields.get("branch", ctx.row["branch"]))
        plan.past_seed = {"from_branch": int(ctx.row["seed_from_branch"] or 0),
                          "seed": ctx.row["server_seed"], "commitment": ctx.row["commitment"]}
        plan.fields.update({"server_seed": seed, "commitment": commitment(seed),
                            "seed_from_branch": branch, "seed_revealed": 0})
        notice = Event(kind="dice-commitment", audience=PUBLIC,
                       text=f"The game goes on with new dice (the old seed was revealed at its "
                            f"end): commitment {commitment(seed)}",
                       data={"commitment": commitment(seed), "from_branch": branch})
        plan.events.append(notice)
        plan.actions[-1].events.append(notice.model_dump(mode="json"))

    def _result(self, ctx: Loaded, plan: Plan) -> SubmitResult:
        state = plan.states[-1]
        game = ctx.game
        return SubmitResult(
            status=plan.status, game_id=ctx.id, side=plan.side,
            seqs=[a.seq for a in plan.actions],
            applied=[text for a in plan.actions for text in (a.applied or [a.text or a.kind])],
            error=plan.error, error_rule=plan.error_rule, legal=plan.legal,
            stopped_at=plan.stopped_at, to_act=game.acting_side(state),
            pending_side=state.pending.side if state.pending else None,
            messages=_messages(game, state, plan.events))

    def _fields(self, ctx: Loaded, plan: Plan) -> dict[str, Any]:
        state = plan.states[-1]
        acting = ctx.game.acting_side(state)
        fields: dict[str, Any] = {**plan.fields, "state_hash": plan.actions[-1].state_hash,
                                  "to_act": acting, "result": state.result}
        if state.result is not None:
            fields.update({"status": "finished", "seed_revealed": 1, "deadline_at": None,
                           "paused_at": None, "paused_by": None, "pause_reason": None})
        elif ctx.row["status"] == "finished":
            fields["status"] = "active"  # a new seed was drawn (``_reopen``)
        seconds = ctx.row["deadline_seconds"]
        if seconds and state.result is None:
            before = (ctx.row["deadline_side"], ctx.state.pending is not None)
            if (acting, state.pending is not None) != before or plan.revert_after is not None:
                fields.update(deadlines.reset(acting, float(seconds), self.clock()))
        return fields

    def _snapshots(self, ctx: Loaded, plan: Plan) -> list[Snapshot]:
        """The snapshots to store with ``plan`` (see ``__init__``: spaced by replay cost)."""
        out: list[Snapshot] = []
        last = ctx.last_snapshot
        cost = ctx.replay_cost
        before = ctx.state
        for index, (action, state) in enumerate(zip(plan.actions, plan.states, strict=True)):
            cost += plan.costs[index] if index < len(plan.costs) else 0.0
            side_changed = (self.snapshot_on_side_change and
                            ctx.game.acting_side(before) != ctx.game.acting_side(state))
            if (plan.force_snapshot or side_changed or cost >= self.snapshot_replay
                    or action.seq - last >= self.snapshot_every):
                out.append(Snapshot(action.seq, state.to_json(), action.state_hash))
                last, cost = action.seq, 0.0
            before = state
        plan.replay_cost = cost
        return out

    def _load(self, game_id: str) -> Loaded:
        # One read transaction: the game row, its seats, snapshot and action tail are of one
        # moment, even while another process commits.
        with self.store.read():
            row = self._row(game_id)
            game = self._rules_for(row)
            seats = self.store.seats(game_id)
            head = int(row["head_seq"])
            cached = self._cache.get(game_id)
            if cached is not None and cached.head == head:
                return Loaded(row, game, cached.state, head, seats, cached.last_snapshot,
                              cached.replay_cost)
            try:
                snapshotted = self.store.latest_snapshot(game_id) is not None
            except ValueError:  # there is one, and it does not decode: _rebuild passes it
                snapshotted = True
            if not snapshotted:
                state = initial_state(game, row["scenario"], json.loads(row["options"]))
                return Loaded(row, game, state, head, seats, 0)
            started = time.thread_time()
            state, data, last = self._rebuild(game_id, row, game)
            cost = time.thread_time() - started
        self._cache.put(game_id, _Cached(head, state, last, cost), len(data))
        return Loaded(row, game, state, head, seats, last, cost)

    def _rebuild(self, game_id: str, row: Mapping[str, Any], game: Game[Any],
                 seq: int | None = None) -> tuple[GameState, bytes, int]:
        """The state after action ``seq`` (default: the current one) from the newest
        snapshot that loads and agrees with the log, falling back to earlier snapshots, then
        to the log alone from the set-up: one damaged snapshot never makes a game
        unplayable whose log replays. (state, its bytes, the snapshot's action)."""
        problems: list[str] = []
        upto: int | None = seq
        while True:
            try:
                snapshot = self.store.latest_snapshot(game_id, upto=upto)
            except ValueError as error:
                # A snapshot that does not even decode (the store cannot say which one):
                # the log is replayed from the set-up.
                problems.append(f"a snapshot: {_line(error)}")
                snapshot = None
            if snapshot is None:
                start = initial_state(game, row["scenario"], json.loads(row["options"]))
                after = 0
            else:
                after = snapshot.seq
                try:
                    start = game.load_state(snapshot.state)
                    if start.state_hash() != snapshot.state_hash:
                        raise ValueError("its state does not hash to its recorded hash")
                except (ValueError, TypeError) as error:  # pydantic errors are ValueErrors
                    problems.append(f"snapshot at action {snapshot.seq}: {_line(error)}")
                    upto = snapshot.seq - 1
                    continue
            try:
                rows = self.store.actions(game_id, active_only=True, after=after, upto=seq)
                try:  # in place: ``start`` is this replay's own
                    state = replay_chain(game, start, rows, owned=True)
                except OriginalNeeded:  # a 9.4 pause among them: again, with copies
                    state = replay_chain(game, game.load_state(snapshot.state) if snapshot
                                         else initial_state(game, row["scenario"],
                                                            json.loads(row["options"])), rows)
                data, state_hash = state.encoded()
                if seq is None and row["state_hash"] and state_hash != row["state_hash"]:
                    raise ReplayError("the rebuilt state does not match the store")
            except (ReplayError, ValueError, KeyError, TypeError) as error:
                problems.append(f"from action {after}: {_line(error)}")
                if snapshot is None:
                    raise ServiceError(f"game {game_id}: the stored history does not replay "
                                       f"({'; '.join(problems)})") from error
                upto = snapshot.seq - 1
                continue
            if problems:
                logger.warning("game %s rebuilt from action %d: %s", game_id, after,
                               "; ".join(problems))
            return state, data, after

    def rules(self, game_id: str) -> Game[Any]:
        """The rules object the game is played with (bound to its data pack)."""
        return self._rules_for(self._row(game_id))

    def load_state(self, game_id: str) -> GameState:
        """The current state, rebuilt from the nearest snapshot plus the active tail."""
        self._cache.pop(game_id)
        return self._load(game_id).state

    def _row(self, game_id: str) -> dict[str, Any]:
        row = self.store.game(game_id)
        if row is None:
            raise NotFound(f"no game {game_id!r}")
        return row

    def _rules_for(self, row: Mapping[str, Any]) -> Game[Any]:
        game = self._load_rules(str(row["game"]), row["pack_path"])
        if row["pack_path"] and row["pack_hash"] != self._pack_hash(str(row["pack_path"])):
            raise ServiceError(f"the data pack {row['pack_path']} changed since game "
                               f"{row['id']} was created; restore it or import the game anew")
        return game

    def _pack_hash(self, pack: str) -> str:
        """The pack's hash as on disk now (``hash_pack_dir``), read and hashed again only
        when a pack file was added, removed, resized or touched since the last call."""
        files = pack_files(Path(pack))
        stamp = tuple((f.name, st.st_size, st.st_mtime_ns) for f in files for st in [f.stat()])
        known = self._pack_hashes.get(pack)
        if known is None or known[0] != stamp:
            known = self._pack_hashes[pack] = (
                stamp, hash_files({f.name: f.read_bytes() for f in files}))
        return known[1]

    def _load_rules(self, name: str, pack: str | None) -> Game[Any]:
        key = (name, pack)
        if key not in self._rules:
            self._rules[key] = load_game(name, Path(pack) if pack else None)
        return self._rules[key]

    def _lock(self, game_id: str) -> GameLock:
        return self._locks[game_id]

    @staticmethod
    def _require_gm(seats: Sequence[Mapping[str, Any]], actor: Actor, what: str) -> None:
        if not any(actor.holds(s) and s["role"] == "gm" for s in seats):
            raise PermissionDenied(f"only the game's GM may {what}")

    def _gm_refusal(self, ctx: Loaded, actor: Actor, what: str, reason: str, no_reason: str,
                    *, rule: str) -> SubmitResult | None:
        """A refusal unless ``actor`` is the game's GM and says why (``reason``)."""
        try:
            self._require_gm(ctx.seats, actor, what)
        except PermissionDenied as error:
            return self._refused(ctx.id, str(error), rule="permission")
        if not reason.strip():
            return self._refused(ctx.id, no_reason, rule=rule)
        return None

    @staticmethod
    def _refused(game_id: str, message: str, *, rule: str, legal: Sequence[str] = (),
                 side: str | None = None, stopped_at: int | None = None) -> SubmitResult:
        return SubmitResult(status="refused", game_id=game_id, error=message, error_rule=rule,
                            legal=list(legal), side=side, stopped_at=stopped_at)


def _line(error: BaseException) -> str:
    """An error as one short line (pydantic's are many)."""
    text = " ".join(str(error).split())
    return text if len(text) <= 160 else text[:157] + "..."


def _fingerprint(request: Sequence[Any]) -> str:
    """What an idempotency key was used for: a digest of the request."""
    return hashlib.sha256(json.dumps(list(request), sort_keys=True, default=str,
                                     ensure_ascii=False).encode()).hexdigest()


def _internal(error: Exception, line: int) -> RuleError:
    """A defect met while applying an order: refused (nothing changes), logged for the
    operator. The refusal names no detail: an exception's text may hold a secret."""
    logger.error("internal error applying line %d: %r", line, error, exc_info=error)
    return RuleError("internal", f"Umpire could not apply line {line} (an internal error, "
                     "logged for the operator); nothing was changed")


def _messages(game: Game[Any], state: GameState, events: Sequence[Event]) -> dict[str, Message]:
    """Every audience's message about ``events``, from ``state``'s views; a view (and its
    board text) is built only if a frontend reads it, once per distinct view."""
    return build_messages(game.views(state), audiences(game.sides), events,
                          to_act=game.acting_side(state), result=state.result,
                          pending=state.pending, board=game.board_text)


def undo_refusal(game: Game[Any], last: Mapping[str, Any], sides: set[str],
                 state: GameState) -> str | None:
    """Why the player may not take back ``last`` (the game's last active action), or None.

    An order may be taken back only when all of these hold:

    1. it is an order (not a decision answer, override, rollback or system action), given
       for a side the player holds, and it is the last action of the game — so the other
       side has not acted since;
    2. it rolled no dice;
    3. nobody else answered anything: no standing order fired and no decision is now
       owed by another side;
    4. it told nobody anything private: every event is public or for the player's own
       side (nothing for the other side, nothing GM-only);
    5. the game's ``undo_reveals(events)`` finds nothing in the public events that
       discloses hidden information (a spotted unit, a mine).
    """
    if last["kind"] != "order" or last["side"] not in sides:
        return "your last order is not the game's last action"
    if json.loads(last["rolls"]):
        return "dice were rolled"
    if len(json.loads(last["applied"])) > 1:
        return "a standing order answered it"
    if state.pending is not None and state.pending.side not in sides:
        return "the other side now owes a decision"
    events = events_from_json(json.loads(last["events"]))
    if any(e.audience not in (PUBLIC, last["side"]) for e in events):
        return "it revealed information"
    reasons = game.undo_reveals([e for e in events if e.audience == PUBLIC])
    if reasons:
        return "it revealed " + "; ".join(reasons)
    return None


def state_diff(before: Any, after: Any, path: str = "", limit: int = 40) -> list[str]:
    """A short human summary of how ``after`` differs from ``before`` (JSON data)."""
    out: list[str] = []

    def walk(a: Any, b: Any, where: str) -> None:
        if len(out) >= limit or a == b:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b), key=str):
                walk(a.get(key), b.get(key), f"{where}.{key}" if where else str(key))
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for index, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, f"{where}[{index}]")
        else:
            out.append(f"{where or 'state'}: {_short_json(a)} -> {_short_json(b)}")

    walk(before, after, path)
    if len(out) >= limit:
        out.append("…")
    return out


def _short_json(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."
