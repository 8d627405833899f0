"""The Discord frontend's one door into the game service.

Everything the bot needs from the service goes through :class:`ServicePort`: each call
runs in a worker thread (the service is synchronous and thread-safe), so the event loop
never blocks on SQLite or on adjudication. The port keeps only what a chat frontend
caches: the game bound to each Discord thread and, per game position and user, the legal
orders that autocomplete ranks. Everything else — legal orders, the log and the record
as each audience may read them, the thread binding — is the service's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, TypeVar

from adjudicator.kernel.briefing import Briefing
from adjudicator.kernel.decisions import SetupGuide
from adjudicator.kernel.events import GM, PUBLIC
from adjudicator.kernel.game import Game
from adjudicator.kernel.views import View
from bot import gm_notices, health
from bot.deadlines import Notice
from bot.messages import LogEntry
from bot.service import (
    Actor,
    Export,
    GameInfo,
    GameService,
    InvalidOperation,
    RollbackPreview,
    RollForwardReport,
    ServiceError,
    SubmitResult,
    WebLink,
)
from bot.service.models import PRIVATE_CHANNEL, Channel

T = TypeVar("T")
log = logging.getLogger("umpire.discord")
#: (game, branch, head, seats, actor, complete): what a listing of legal orders depends on
LegalKey = tuple[str, int, int, int, str, bool]

#: Keys under which a game's Discord binding is kept in the service's ``bindings``.
THREAD_KEY = "discord_thread"
CHANNEL_KEY = "discord_channel"
GUILD_KEY = "discord_guild"


class ServicePort:
    """The bot's every service call (issue 22: no ``port.service`` reach-ins; the
    commands, the publisher and the controls see the port only, never the service or
    its store: ``tests/bot/test_one_door.py`` pins it)."""

    def __init__(self, service: GameService) -> None:
        self._service = service
        self._by_thread: dict[int, str] = {}
        self._legal: dict[LegalKey, list[str]] = {}
        #: the listings being made, by the same key: asked again meanwhile, one is awaited
        self._asking: dict[LegalKey, asyncio.Future[list[str]]] = {}

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(partial(fn, *args, **kwargs))

    # ---- rules metadata (names, sides, scenarios, notation) -----------------------------

    def rules(self, name: str) -> Game[Any]:
        """The rules of a kind of game (metadata and notation only, never a state)."""
        return self._service.game_rules(name)

    def known_rules(self, name: str) -> Game[Any] | None:
        try:
            return self.rules(name)
        except InvalidOperation:
            return None

    async def game_rules(self, info: GameInfo) -> Game[Any]:
        """The rules one game is played with, bound to its own data pack."""
        return await self.call(self._service.rules, info.id)

    # ---- games and threads ----------------------------------------------------------------

    async def create_game(self, creator: Actor, game: str, scenario: str | None,
                          options: Mapping[str, Any], bindings: Mapping[str, Any],
                          game_id: str) -> GameInfo:
        info = await self.call(self._service.create_game, creator, game, scenario, options,
                               bindings=bindings, game_id=game_id)
        thread = bindings.get(THREAD_KEY)
        if thread is not None:
            self._by_thread[int(thread)] = info.id
        return info

    async def game_for_thread(self, thread_id: int) -> GameInfo | None:
        """The game bound to a Discord thread (the binding is stored with the game)."""
        known = self._by_thread.get(thread_id)
        if known is not None:
            info = await self.info(known)
            if str(info.bindings.get(THREAD_KEY)) == str(thread_id):
                return info
        found: GameInfo | None = await self.call(self._service.find_by_binding, THREAD_KEY,
                                                 thread_id)
        if found is not None:
            self._by_thread[thread_id] = found.id
        return found

    async def games_in_guild(self, guild_id: int) -> list[GameInfo]:
        """The games created in a Discord server, newest first."""
        return await self.call(self._service.games_bound, GUILD_KEY, guild_id)

    async def leave(self, info: GameInfo, player: Actor) -> GameInfo:
        """Close a player's seats before the game starts; the game's creator (its first GM)
        vouches for the frontend, as for :meth:`ensure_gm_seat`."""
        creator = next((s for s in info.seats if s.role == "gm" and s.discord_id), None)
        if creator is None:
            raise ServiceError("this game has no GM seat to vouch for leaving it")
        return await self.call(self._service.unseat, info.id,
                               Actor.discord(str(creator.discord_id)), player,
                               "left before the start")

    async def info(self, game_id: str) -> GameInfo:
        return await self.call(self._service.info, game_id)

    async def games_for(self, actor: Actor) -> list[GameInfo]:
        return await self.call(self._service.games_for, actor)

    # ---- orders -------------------------------------------------------------------------

    async def submit(self, game_id: str, actor: Actor, text: str, key: str,
                     side: str | None = None, channel: Channel = PRIVATE_CHANNEL
                     ) -> SubmitResult:
        """The service's one submission (:meth:`GameService.submit`): ``channel`` public
        for a thread, where the service refuses a secret order before applying anything;
        a set-up's forfeiting ``done`` is asked once (not ``confirmed``)."""
        return await self.call(self._service.submit, game_id, actor, text, key, side, channel,
                               confirmed=False)

    async def setup_guide(self, game_id: str, actor: Actor) -> SetupGuide | None:
        """What the actor's side has left to place in a secret set-up (DMs only)."""
        return await self.call(self._service.setup_guide, game_id, actor)

    async def accepted(self, game_id: str, actor: Actor, orders: list[str], limit: int
                       ) -> list[str]:
        """The first ``limit`` of ``orders`` the rules would accept from the actor now."""
        return await self.call(self._service.accepted, game_id, actor, orders, limit=limit)

    async def briefing(self, game_id: str, actor: Actor) -> Briefing:
        """The scenario's briefing (public: it comes from the scenario, not the state)."""
        return await self.call(self._service.briefing, game_id, actor)

    async def view(self, game_id: str, actor: Actor, viewer: str | None = None) -> View:
        return await self.call(self._service.view, game_id, actor, viewer)

    async def legal_orders(self, info: GameInfo, actor: Actor, complete: bool = False,
                           within: float | None = None) -> list[str]:
        """The orders the actor may give now (the service's answer for their seat: empty
        when it is not their turn, the game is not in play, or they hold no seat).
        ``complete``: every legal order, never a sample (autocomplete). ``within``: seconds
        to wait for a listing being made (an autocomplete has Discord's 3); past them,
        nothing, and the listing goes on for the next keystroke."""
        if info.status != "active":
            return []
        seats = hash(tuple((s.side, s.role, s.discord_id) for s in info.seats))
        key = (info.id, info.branch, info.head_seq, seats, actor.label, complete)
        cached = self._legal.get(key)
        if cached is not None:
            return cached
        asking = self._asking.get(key)
        if asking is None:  # keystrokes come faster than a big listing: one is made
            asking = self._asking[key] = asyncio.ensure_future(
                self._listed(key, info.id, actor, complete))
            asking.add_done_callback(lambda _: self._asking.pop(key, None))
        # shielded: an autocomplete Discord gave up on leaves the listing to the next
        try:
            return await asyncio.wait_for(asyncio.shield(asking), within)
        except TimeoutError:
            log.info("game %s: the legal orders took more than %.1f s to list; still "
                     "listing for the next keystroke", info.id, within)
            return []

    async def _listed(self, key: LegalKey, game_id: str, actor: Actor, complete: bool
                      ) -> list[str]:
        """The listing of ``key``, kept for its position once made (whoever still waits)."""
        try:
            if complete:  # made off the bot's interpreter lock where it can be
                made = await self.call(self._service.complete_orders, game_id, actor)
                listed = await asyncio.wrap_future(made)
            else:
                listed = await self.call(self._service.legal_orders, game_id, actor)
        except ServiceError:
            listed = []
        if len(self._legal) > 256:
            self._legal.clear()
        self._legal[key] = listed
        return listed

    async def undo(self, game_id: str, actor: Actor) -> SubmitResult:
        """Take back the actor's last action, if the rules allow it."""
        return await self.call(self._service.undo, game_id, actor)

    async def short_texts(self, game_id: str, texts: list[str]) -> list[str]:
        """``texts`` with unit ids by their short names (for display only)."""
        return await self.call(self._service.short_texts, game_id, texts)

    # ---- seats and the start ----------------------------------------------------------------

    async def issue_link(self, game_id: str, actor: Actor, *, side: str | None = None,
                         new: bool = False) -> WebLink:
        """A new web link to ``actor``'s seat (docs/web.md)."""
        return await self.call(self._service.issue_link, game_id, actor, side=side, new=new)

    async def reissue_link(self, game_id: str, gm: Actor, side: str) -> WebLink:
        """The GM replaces every link of ``side``'s seat with one new link."""
        return await self.call(self._service.reissue_link, game_id, gm, side)

    async def observer_link(self, game_id: str, actor: Actor, *, new: bool = False
                            ) -> WebLink:
        """The game's public (observer) link."""
        return await self.call(self._service.observer_link, game_id, actor, new=new)

    async def private_input(self, game_id: str) -> str | None:
        """The side the game takes secret input from now, if any."""
        return await self.call(self._service.private_input, game_id)

    async def seat(self, game_id: str, by: Actor, side: str | None, who: Actor,
                   role: str = "player") -> GameInfo:
        return await self.call(self._service.seat, game_id, by, side, who, role)

    async def unseat(self, game_id: str, by: Actor, who: Actor | str, reason: str
                     ) -> GameInfo:
        return await self.call(self._service.unseat, game_id, by, who, reason)

    async def start(self, game_id: str, gm: Actor, deadline_seconds: float | None = None
                    ) -> GameInfo:
        return await self.call(self._service.start, game_id, gm,
                               deadline_seconds=deadline_seconds)

    async def set_deadline(self, game_id: str, gm: Actor, seconds: float | None) -> GameInfo:
        return await self.call(self._service.set_deadline, game_id, gm, seconds)

    async def reveal_seed(self, game_id: str, actor: Actor) -> str:
        return await self.call(self._service.reveal_seed, game_id, actor)

    # ---- what the bot keeps in the store (posts, pings, pictures, leases, notices) -----------

    async def note(self, key: str) -> str | None:
        """A small record the bot keeps under ``key`` (shared by every bot process)."""
        return await self.call(self._service.store.get_meta, key)

    async def set_note(self, key: str, value: str) -> None:
        await self.call(self._service.store.set_meta, key, value)

    async def mark(self, key: str, value: str) -> bool:
        """Set ``key`` to ``value``; whether it changed (the first process to see a change
        claims it)."""
        return await self.call(self._service.store.mark, key, value)

    async def lease(self, name: str, seconds: float) -> bool:
        """Whether this process holds (or now takes) the lease ``name`` for ``seconds``."""
        return await self.call(self._service.store.lease, name, self._service.instance,
                               seconds)

    async def games_behind(self, key: str, published: str) -> list[GameInfo]:
        """The games bound by ``key`` whose log grew past the bot's ``published`` mark."""
        return await self.call(self._service.games_behind, key, published)

    async def updates(self, game_id: str, after: int, only_actor: str | None = None
                      ) -> SubmitResult:
        """The actions after ``after`` as one result to publish (e.g. those taken by
        email)."""
        return await self.call(self._service.updates, game_id, after, only_actor=only_actor)

    async def gm_notices(self, frontend: str) -> list[tuple[str, str, str]]:
        """The notices another frontend left for GMs to receive here (key, game, text)."""
        return await self.call(gm_notices.waiting, self._service.store, frontend)

    async def gm_notice_delivered(self, key: str) -> None:
        await self.call(gm_notices.delivered, self._service.store, key)

    async def record_health(self, frontend: str, **changes: Any) -> None:
        """Update this process's health record."""
        await self.call(health.record, self._service.store, frontend, self._service.instance,
                        **changes)

    def hold_rollback(self, token: str, game_id: str, gm: str, to_seq: int, reason: str,
                      head: int, expires: float) -> None:
        """Keep a rollback preview for its GM's confirmation (any bot process takes it)."""
        self._service.store.hold_rollback(token, game_id, gm, to_seq, reason, head,
                                          expires=expires)

    def take_rollback(self, token: str, now: float) -> Mapping[str, Any] | None:
        return self._service.store.take_rollback(token, now=now)

    def held_rollbacks(self, now: float) -> int:
        return self._service.store.held_rollbacks(now=now)

    # ---- GM -----------------------------------------------------------------------------

    async def ensure_gm_seat(self, info: GameInfo, gm: Actor) -> None:
        """Mirror a Discord GM (GM role or administrator, not playing) into a GM seat of the
        game. A GM with GM powers now (the creator first) vouches for the frontend's
        decision; a GM who plays has none while the game runs."""
        if any(s.role == "gm" and _holds(gm, s.discord_id) for s in info.seats):
            return
        vouchers = [user_id for user_id in gms_of(info)
                    if await self.has_gm_powers(info, Actor.discord(user_id))]
        if not vouchers:
            raise ServiceError(
                "no GM of this game may seat a new GM now: its GM plays in it, and a GM who "
                "also plays has no GM powers while the game runs; a GM who does not play "
                "takes their seat (any /gm command) before the start")
        await self.call(self._service.seat, info.id, Actor.discord(vouchers[0]), None, gm,
                        "gm")

    async def has_gm_powers(self, info: GameInfo, actor: Actor) -> bool:
        """Whether the actor reads and acts as the game's GM now (the service decides: a GM
        seat, and no player seat while the game runs)."""
        return await self.call(self._service.has_gm_powers, info.id, actor)

    async def gm_readers(self, info: GameInfo) -> list[str]:
        """The Discord ids of the GMs who may read GM-only news now (not a GM who plays,
        during play)."""
        return [user_id for user_id in gms_of(info)
                if await self.has_gm_powers(info, Actor.discord(user_id))]

    async def override(self, game_id: str, gm: Actor, op: Mapping[str, Any], reason: str,
                       key: str) -> SubmitResult:
        return await self.call(self._service.override, game_id, gm, dict(op), reason, key)

    async def rollback_preview(self, game_id: str, gm: Actor, to_seq: int) -> RollbackPreview:
        return await self.call(self._service.rollback_preview, game_id, gm, to_seq)

    async def roll_forward(self, game_id: str, gm: Actor) -> RollForwardReport:
        return await self.call(self._service.roll_forward, game_id, gm)

    async def rollback(self, game_id: str, gm: Actor, to_seq: int, reason: str) -> SubmitResult:
        return await self.call(self._service.rollback, game_id, gm, to_seq, reason)

    async def pause(self, game_id: str, gm: Actor, reason: str, key: str) -> SubmitResult:
        return await self.call(self._service.pause, game_id, gm, reason, key)

    async def resume(self, game_id: str, gm: Actor, reason: str, key: str) -> SubmitResult:
        return await self.call(self._service.resume, game_id, gm, reason, key)

    async def tick(self) -> list[Notice]:
        return await self.call(self._service.tick)

    # ---- log and record ---------------------------------------------------------------------

    async def log(self, game_id: str, actor: Actor, last: int, audience: str | None = None
                  ) -> list[LogEntry]:
        """The last ``last`` actions as the actor may read them (``audience``: as that
        audience reads them, if the actor may)."""
        return await self.call(self._service.log, game_id, actor, last, audience=audience)

    async def export(self, game_id: str, actor: Actor) -> Export:
        """The record the actor may have: full, or redacted to their view during play."""
        return await self.call(self._service.export, game_id, actor)


def _holds(actor: Actor, discord_id: str | None) -> bool:
    return actor.discord_id is not None and discord_id == actor.discord_id


def viewer_for(info: GameInfo, actor: Actor, gm: bool) -> str:
    """The richest view an actor may have: GM, their side, else public."""
    if gm:
        return GM
    for seat in info.seats:
        if seat.role == "player" and seat.side and _holds(actor, seat.discord_id):
            return seat.side
    return PUBLIC


def players_of(info: GameInfo, side: str) -> list[str]:
    """Discord ids seated for ``side``."""
    return [str(s.discord_id) for s in info.seats
            if s.role == "player" and s.side == side and s.discord_id]


def gms_of(info: GameInfo) -> list[str]:
    """Discord ids holding a GM seat (whether it has GM powers now is the service's call:
    :meth:`ServicePort.gm_readers`)."""
    return [str(s.discord_id) for s in info.seats if s.role == "gm" and s.discord_id]


def plays_in(info: GameInfo) -> list[str]:
    """Discord ids seated as players (of any side)."""
    return [str(s.discord_id) for s in info.seats if s.role == "player" and s.discord_id]


def now() -> float:
    return time.time()
