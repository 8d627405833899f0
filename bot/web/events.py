"""Live updates: one watcher per game polls the store's head sequence (one cheap statement,
:meth:`bot.store.Store.link_watch`), so an action stored by any process — this one, the
Discord bot, the mail gateway — reaches every open event stream of the game; an action
stored through this server's own submit wakes the streams at once (:meth:`Watchers.advance`).

A stream is told the new sequence number only (``event: seq``): it carries nothing a seat
may not know, and the page then fetches its state. The watcher also counts the game's ended
links (revoked, or their seat closed): when that count moves, each stream checks its own
link again and a revoked one ends at once (``event: revoked``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

log = logging.getLogger("umpire.web")

#: (head sequence, ended links) of a game, or None when it is gone.
Probe = Callable[[str], Awaitable[tuple[int, int] | None]]


@dataclass
class Watch:
    """One game's watcher: the last reading and the streams waiting on it."""

    head: int
    ended: int
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    streams: int = 0
    task: asyncio.Task[None] | None = None


class Watchers:
    """The watchers of every game with an open stream in this process (see the module
    notes); ``interval``: seconds between two polls of one game."""

    def __init__(self, probe: Probe, interval: float) -> None:
        self.probe = probe
        self.interval = interval
        self.games: dict[str, Watch] = {}
        self.closed = False

    async def subscribe(self, game_id: str) -> Watch:
        watch = self.games.get(game_id)
        if watch is None:
            reading = await self.probe(game_id)
            head, ended = reading if reading is not None else (0, 0)
            watch = self.games.setdefault(game_id, Watch(head, ended))
        watch.streams += 1
        if watch.task is None or watch.task.done():
            watch.task = asyncio.create_task(self._poll(game_id, watch))
        return watch

    def unsubscribe(self, game_id: str, watch: Watch) -> None:
        watch.streams -= 1
        if watch.streams <= 0 and self.games.get(game_id) is watch:
            del self.games[game_id]
            if watch.task is not None:
                watch.task.cancel()

    async def poke(self, game_id: str) -> None:
        """Read the game now: its streams wake at once if it moved."""
        watch = self.games.get(game_id)
        if watch is not None:
            await self._read(game_id, watch)

    async def advance(self, game_id: str, head: int) -> None:
        """This process stored actions up to ``head``: the game's streams are told at once,
        without a read of the store."""
        watch = self.games.get(game_id)
        if watch is not None and head > watch.head:
            watch.head = head
            async with watch.changed:
                watch.changed.notify_all()

    async def close(self) -> None:
        self.closed = True
        for watch in list(self.games.values()):
            if watch.task is not None:
                watch.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await watch.task
            async with watch.changed:
                watch.changed.notify_all()
        self.games.clear()

    async def _poll(self, game_id: str, watch: Watch) -> None:
        while not self.closed:
            await asyncio.sleep(self.interval)
            try:
                await self._read(game_id, watch)
            except asyncio.CancelledError:
                raise
            except Exception:  # a store hiccup: the next poll tries again
                log.warning("watching game %s failed", game_id, exc_info=True)

    async def _read(self, game_id: str, watch: Watch) -> None:
        reading = await self.probe(game_id)
        if reading is None:
            return
        if reading != (watch.head, watch.ended):
            watch.head, watch.ended = max(watch.head, reading[0]), reading[1]
            async with watch.changed:
                watch.changed.notify_all()
