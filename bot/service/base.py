"""The service's own state and how it reads a game: the store, the rules of each game (bound
to its data pack), the per-game locks, the cache of states between requests, and loading a
game's state from its newest good snapshot plus the active actions after it; with the
permission checks every request makes."""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from adjudicator.kernel.dice import CommittedDice, Dice
from adjudicator.kernel.game import Game, OriginalNeeded, Views
from adjudicator.kernel.packs import hash_files, pack_files
from adjudicator.kernel.state import GameState
from adjudicator.registry import load_game
from bot import listing
from bot.caches import DEFAULT_STATE_BUDGET, GameLock, GameLocks, StateCache
from bot.history import SNAPSHOT_REPLAY_MS, DiceFactory, ReplayError, initial_state, replay_chain
from bot.service.models import (
    Actor,
    InvalidOperation,
    NotFound,
    PermissionDenied,
    ServiceError,
    SubmitResult,
)
from bot.service.text import MAX_ID, check_text
from bot.store import Store, holder_name

logger = logging.getLogger("bot.service")

#: The statuses of a game in play: a GM who also plays has no GM powers in them.
RUNNING = frozenset({"active", "paused"})

#: How long one tick holds the deadlines lease (seconds; see :meth:`GameService.tick`).
TICK_LEASE_S = 300.0


class Lister(Protocol):
    """Makes the complete listing of a side's legal orders elsewhere than the calling
    thread (``bot.offload.ListingPool``: in worker processes): the game's name, its pack's
    folder, the state's JSON (:meth:`GameState.to_json`), the side and what to list; the
    list :func:`bot.listing.made` would make, as a future."""

    def submit(self, game: str, pack: Path | None, state: bytes, side: str,
               what: listing.Made = "orders") -> Future[list[Any]]: ...


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
    #: the Views of ``state`` the action that made it handed out (those built so far are
    #: kept: the public one, a picture's, gives a dice position without a View of its own)
    views: Views[Any] | None = None

    @property
    def id(self) -> str:
        return str(self.row["id"])



@dataclass
class _Cached:
    head: int
    state: GameState
    last_snapshot: int
    replay_cost: float = 0.0
    views: Views[Any] | None = None  # see :attr:`Loaded.views`


@dataclass
class _Before:
    """The state before a game's last action, while that action is its last (``head``):
    what undoing it returns to, at no replay."""

    head: int
    seq: int
    state: GameState


def default_dice(seed: bytes, dice_id: str, branch: int, start: int) -> Dice:
    return CommittedDice(seed, dice_id, branch=branch, start_index=start)



class ServiceBase:
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
        lister: Lister | None = None,
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
        compressed state every ten actions or so rather than at every change of side.

        ``lister``: where complete listings of legal orders are made (autocomplete's and
        the web page's: :meth:`_listing`); None: in the calling thread."""
        self.store = store
        self.lister = lister
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
        #: (game, actor, action) of set-ups whose forfeiting 'done' was asked once
        #: (:meth:`Submitting._confirm_refusal`)
        self._asked_done: set[tuple[str, str, int]] = set()

    # ---- loading a game -------------------------------------------------------------

    def _listing(self, game_id: str, actor: Actor, side: str | None, what: listing.Made
                 ) -> Future[list[Any]]:
        """A complete listing of legal orders made as ``what`` (:func:`bot.listing.made`),
        as a future: by the lister when the service has one (its worker
        processes: the rules' biggest read never holds this process's interpreter lock
        while other games' orders wait for it; a frontend may await the future without a
        thread), else here, done at once. The side is read and the permission checked
        first: nothing leaves for a side the actor may not read. Nothing is legal unless
        the game is in play. A listing the lister cannot make (its worker died, a game
        its workers do not know) is made here instead, with a warning for the operator:
        the future never fails for the lister's sake."""
        ctx = self._load(game_id)
        asked = self._asked_side(ctx, actor, side)
        listed: Future[list[Any]] = Future()
        if asked is None or ctx.row["status"] != "active":
            listed.set_result([])
            return listed
        game, state, lister = ctx.game, ctx.state, self.lister
        if lister is not None:
            try:
                made = lister.submit(game.name, game.pack, state.to_json(), asked, what)
            except Exception:
                logger.warning("game %s: no listing worker; listed in this process", game_id,
                               exc_info=True)
            else:
                def settle(made: Future[list[Any]]) -> None:
                    try:
                        listed.set_result(made.result())
                    except Exception:
                        logger.warning("game %s: the listing worker failed; listed in this "
                                       "process", game_id, exc_info=True)
                        try:
                            listed.set_result(listing.made(what, game, state, asked))
                        except Exception as error:
                            listed.set_exception(error)

                made.add_done_callback(settle)
                return listed
        listed.set_result(listing.made(what, game, state, asked))
        return listed

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
                              cached.replay_cost, cached.views)
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
        """The current state, rebuilt from the nearest snapshot plus the active tail (the
        cache dropped first). Internal: the full state holds every side's secrets, so it is
        for the database tools (``umpire db copy``), the red team and tests, never for a
        frontend — they read views, prompts and legal orders (see
        ``tests/bot/test_frontends_public_face.py``)."""
        self._cache.pop(game_id)
        return self._load(game_id).state

    def _row(self, game_id: str) -> dict[str, Any]:
        check_text(game_id, "the game id", limit=MAX_ID)  # every call naming a game
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
    def _gm_powers(seats: Sequence[Mapping[str, Any]], actor: Actor, status: str) -> bool:
        """Whether ``actor`` may act and read as the game's GM now: they hold a GM seat and,
        while the game runs (:data:`RUNNING`), no player seat. A GM who also plays has GM
        powers only before the start and after the end: during play they are a player like
        the others (no GM views, logs, records, overrides, rollbacks, seats, secrets or
        pauses), whatever else they hold (security round 3, issue 27.3)."""
        mine = [s for s in seats if actor.holds(s)]
        if not any(s["role"] == "gm" for s in mine):
            return False
        return status not in RUNNING or not any(s["role"] == "player" for s in mine)

    def has_gm_powers(self, game_id: str, actor: Actor) -> bool:
        """Whether ``actor`` may act and read as the game's GM now (:meth:`_gm_powers`):
        what a frontend asks before it shows a GM's label or sends GM-only news."""
        with self.store.read():
            row = self._row(game_id)
            seats = self.store.seats(game_id)
        return self._gm_powers(seats, actor, str(row["status"]))

    def _require_gm(self, seats: Sequence[Mapping[str, Any]], actor: Actor, what: str,
                    status: str | None = None) -> None:
        """:class:`PermissionDenied` unless ``actor`` has GM powers now (:meth:`_gm_powers`).
        ``status``: the game's, if the caller has it (else read when it matters: for a GM
        who also plays)."""
        mine = [s for s in seats if actor.holds(s)]
        if not any(s["role"] == "gm" for s in mine):
            raise PermissionDenied(f"only the game's GM may {what}")
        if any(s["role"] == "player" for s in mine):
            if status is None:
                status = str(self._row(str(mine[0]["game_id"]))["status"])
            if not self._gm_powers(seats, actor, status):
                raise PermissionDenied(
                    f"you play in this game, so you may not {what} while it runs: a GM who "
                    "also plays has no GM powers during play (another GM, who does not "
                    "play, may)")

    def _gm_refusal(self, ctx: Loaded, actor: Actor, what: str, reason: str, no_reason: str,
                    *, rule: str) -> SubmitResult | None:
        """A refusal unless ``actor`` is the game's GM and says why (``reason``)."""
        try:
            self._require_gm(ctx.seats, actor, what, str(ctx.row["status"]))
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

    @staticmethod
    def _asked_side(ctx: Loaded, actor: Actor, side: str | None) -> str | None:
        """The side a read is about: ``side`` if the actor may read as it (a player: a side
        they hold; a GM: any), else :class:`PermissionDenied`. Without ``side``: the side to
        act if the actor holds it (a GM: the side to act), else the actor's own side (None
        for a GM when no side is to act)."""
        mine = [s for s in ctx.seats if actor.holds(s)]
        held = [str(s["side"]) for s in mine if s["role"] == "player"]
        is_gm = ServiceBase._gm_powers(ctx.seats, actor, str(ctx.row["status"]))
        if side is None:
            acting = ctx.game.acting_side(ctx.state)
            if acting is not None and (acting in held or is_gm):
                return str(acting)
            if held:
                return held[0]
            if not is_gm:
                raise PermissionDenied(f"you are not seated in game {ctx.id}")
            return None
        if side not in ctx.game.sides:
            raise InvalidOperation(f"unknown side {side!r}; sides are "
                                   + ", ".join(ctx.game.sides))
        if side not in held and not is_gm:
            raise PermissionDenied(f"you hold no seat for {side}")
        return side

    def _side_for(self, ctx: Loaded, actor: Actor, side: str | None) -> str | SubmitResult:
        stopped = self._not_in_play(ctx)
        if stopped is not None:
            return stopped
        mine = [s for s in ctx.seats if actor.holds(s)]
        if not mine:
            return self._refused(ctx.id, f"you are not seated in game {ctx.id}",
                                 rule="permission")
        sides = [s["side"] for s in mine if s["role"] == "player"]
        is_gm = self._gm_powers(ctx.seats, actor, str(ctx.row["status"]))
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


def _line(error: BaseException) -> str:
    """An error as one short line (pydantic's are many)."""
    text = " ".join(str(error).split())
    return text if len(text) <= 160 else text[:157] + "..."
