"""The Discord frontend's one door into the game service.

Everything the bot needs from the service goes through :class:`ServicePort`: each call
runs in a worker thread (the service is synchronous and thread-safe), so the event loop
never blocks on SQLite or on adjudication. The port adds only what a chat frontend needs
around the service: finding the game bound to a Discord thread, the acting side's legal
orders for autocomplete (cached per game position), the recent log as an audience sees
it, and the game record for export.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from adjudicator.kernel.events import GM, PUBLIC, Event, visible_to
from adjudicator.kernel.game import Game
from adjudicator.kernel.views import View
from adjudicator.registry import UnknownGame, load_game
from bot.deadlines import Notice
from bot.records import export_lines
from bot.service import (
    Actor,
    GameInfo,
    GameService,
    NotFound,
    RollbackPreview,
    ServiceError,
    SubmitResult,
)

T = TypeVar("T")

#: Keys under which a game's Discord binding is kept in the service's ``bindings``.
THREAD_KEY = "discord_thread"
CHANNEL_KEY = "discord_channel"
GUILD_KEY = "discord_guild"


@dataclass(frozen=True)
class LogEntry:
    seq: int
    kind: str
    side: str | None
    lines: list[str]


class ServicePort:
    def __init__(self, service: GameService) -> None:
        self.service = service
        self._by_thread: dict[int, str] = {}
        self._legal: dict[tuple[str, int, int, str], list[str]] = {}
        self._rules: dict[str, Game[Any]] = {}

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(partial(fn, *args, **kwargs))

    # ---- rules metadata (names, sides, scenarios, notation) -----------------------------

    def rules(self, name: str) -> Game[Any]:
        """The rules object of a game kind (metadata and notation only, never a state)."""
        if name not in self._rules:
            self._rules[name] = load_game(name)
        return self._rules[name]

    def known_rules(self, name: str) -> Game[Any] | None:
        try:
            return self.rules(name)
        except UnknownGame:
            return None

    # ---- games and threads ----------------------------------------------------------------

    async def create_game(self, creator: Actor, game: str, scenario: str | None,
                          options: Mapping[str, Any], bindings: Mapping[str, Any],
                          game_id: str) -> GameInfo:
        info = await self.call(self.service.create_game, creator, game, scenario, options,
                               bindings=bindings, game_id=game_id)
        thread = bindings.get(THREAD_KEY)
        if thread is not None:
            self._by_thread[int(thread)] = info.id
        return info

    async def game_for_thread(self, thread_id: int, hinted_id: str | None) -> GameInfo | None:
        """The game bound to a Discord thread.

        Known bindings are cached; after a restart the game id written in the thread's
        name (``hinted_id``) is checked against the binding stored with the game, so a
        renamed thread cannot point at someone else's game.
        """
        candidates = [self._by_thread.get(thread_id), hinted_id]
        for game_id in candidates:
            if not game_id:
                continue
            try:
                info = await self.call(self.service.info, game_id)
            except NotFound:
                continue
            if str(info.bindings.get(THREAD_KEY)) == str(thread_id):
                self._by_thread[thread_id] = info.id
                return info
        return None

    async def info(self, game_id: str) -> GameInfo:
        return await self.call(self.service.info, game_id)

    async def games_for(self, actor: Actor) -> list[GameInfo]:
        return await self.call(self.service.games_for, actor)

    # ---- orders -------------------------------------------------------------------------

    async def submit(self, game_id: str, actor: Actor, text: str, key: str,
                     side: str | None = None) -> SubmitResult:
        return await self.call(self.service.submit, game_id, actor, text, key, side)

    async def view(self, game_id: str, actor: Actor, viewer: str | None = None) -> View:
        return await self.call(self.service.view, game_id, actor, viewer)

    async def legal_orders(self, info: GameInfo, actor: Actor) -> list[str]:
        """The orders the actor's side may give now (empty when it is not theirs to act)."""
        sides = [s.side for s in info.seats if s.role == "player" and s.side
                 and _holds(actor, s.discord_id)]
        acting = info.to_act
        side = acting if acting in sides else None
        if side is None or info.status != "active":
            return []
        key = (info.id, info.branch, info.head_seq, side)
        cached = self._legal.get(key)
        if cached is None:
            cached = await self.call(self._compute_legal, info, side)
            if len(self._legal) > 256:
                self._legal.clear()
            self._legal[key] = cached
        return cached

    def _compute_legal(self, info: GameInfo, side: str) -> list[str]:
        state = self.service.load_state(info.id)
        return list(self.rules(info.game).legal_orders(state, side))

    # ---- GM -----------------------------------------------------------------------------

    async def ensure_gm_seat(self, info: GameInfo, gm: Actor) -> None:
        """Mirror a Discord GM (GM role or administrator) into a GM seat of the game.

        The game's creator holds the first GM seat and vouches for the frontend's decision.
        """
        if any(s.role == "gm" and _holds(gm, s.discord_id) for s in info.seats):
            return
        creator = next((s for s in info.seats if s.role == "gm" and s.discord_id), None)
        if creator is None:
            raise ServiceError("this game has no GM seat to vouch for a new GM")
        await self.call(self.service.seat, info.id, Actor.discord(str(creator.discord_id)),
                        None, gm, "gm")

    async def override(self, game_id: str, gm: Actor, op: Mapping[str, Any], reason: str,
                       key: str) -> SubmitResult:
        return await self.call(self.service.override, game_id, gm, dict(op), reason, key)

    async def rollback_preview(self, game_id: str, gm: Actor, to_seq: int) -> RollbackPreview:
        return await self.call(self.service.rollback_preview, game_id, gm, to_seq)

    async def rollback(self, game_id: str, gm: Actor, to_seq: int, reason: str) -> SubmitResult:
        return await self.call(self.service.rollback, game_id, gm, to_seq, reason)

    async def tick(self) -> list[Notice]:
        return await self.call(self.service.tick)

    # ---- log and record ---------------------------------------------------------------------

    async def log(self, game_id: str, viewer: str, last: int) -> list[LogEntry]:
        """The last ``last`` active actions, each as the events ``viewer`` may see."""
        return await self.call(self._log, game_id, viewer, last)

    def _log(self, game_id: str, viewer: str, last: int) -> list[LogEntry]:
        rows = self.service.store.actions(game_id, active_only=True)[-last:]
        out = []
        for row in rows:
            events = [Event.model_validate(e) for e in json.loads(row["events"] or "[]")]
            lines = [event.text for event in visible_to(events, viewer)]
            out.append(LogEntry(int(row["seq"]), str(row["kind"]), row["side"], lines))
        return out

    async def export(self, game_id: str, include_seed: bool) -> bytes:
        lines = await self.call(export_lines, self.service.store, game_id, include_seed)
        return "".join(json.dumps(line, sort_keys=True) + "\n" for line in lines).encode()


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
    return [str(s.discord_id) for s in info.seats if s.role == "gm" and s.discord_id]


def now() -> float:
    return time.time()
