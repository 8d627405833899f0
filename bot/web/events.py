"""Live updates: one watcher per process polls the store for the head sequence of every game
with an open event stream, all in one statement (:meth:`bot.store.Store.link_watch`), so an
action stored by any process — this one, the Discord bot, the mail gateway — reaches every
open stream of the game; an action stored through this server's own submit wakes the
streams at once (:meth:`Watchers.advance`).

A stream waits for its game's change in one step (:func:`wait_changed`, no task of its own
per wait), so a stream woken by :meth:`Watchers.advance` writes its event in the loop's next
pass, before the order's poster is answered.

A stream is told the new sequence number only (``event: seq``): it carries nothing a seat
may not know, and the page then fetches its state. The watcher also counts each game's
ended links (revoked, or their seat closed): when that count moves, each stream of the game
checks its own link again and a revoked one ends at once (``event: revoked``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

log = logging.getLogger("umpire.web")

#: game id -> (head sequence, ended links), for the games asked about that exist.
Probe = Callable[[Sequence[str]], Awaitable[dict[str, tuple[int, int]]]]


@dataclass
class Watch:
    """One game's last reading and the streams waiting on it."""

    head: int
    ended: int
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    streams: int = 0


async def wait_changed(watch: Watch, seconds: float) -> bool:
    """Wait, holding ``watch.changed``, until the watch is notified (True) or ``seconds``
    pass (False). :func:`asyncio.timeout`, not :func:`asyncio.wait_for`: in Python 3.11 the
    latter runs the wait as a task of its own, and a notified stream would need two passes
    of the loop to run again."""
    try:
        async with asyncio.timeout(seconds):
            await watch.changed.wait()
    except TimeoutError:
        return False
    return True


class Watchers:
    """The watched games of this process (see the module notes); ``interval``: seconds
    between two polls."""

    def __init__(self, probe: Probe, interval: float) -> None:
        self.probe = probe
        self.interval = interval
        self.games: dict[str, Watch] = {}
        self.closed = False
        self.task: asyncio.Task[None] | None = None

    async def subscribe(self, game_id: str) -> Watch:
        watch = self.games.get(game_id)
        if watch is None:
            reading = (await self.probe([game_id])).get(game_id, (0, 0))
            watch = self.games.setdefault(game_id, Watch(*reading))
        watch.streams += 1
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._poll())
        return watch

    def unsubscribe(self, game_id: str, watch: Watch) -> None:
        watch.streams -= 1
        if watch.streams <= 0 and self.games.get(game_id) is watch:
            del self.games[game_id]

    async def advance(self, game_id: str, head: int) -> None:
        """This process stored actions up to ``head``: the game's streams are told at once,
        without a read of the store, and have written their event when this returns — the
        other seats are told before the poster's answer is sent (the streams woken run
        first: each waits in one step, so one pass of the loop is all they need)."""
        watch = self.games.get(game_id)
        if watch is not None and head > watch.head:
            watch.head = head
            async with watch.changed:
                watch.changed.notify_all()
            await asyncio.sleep(0)  # the woken streams' turn, queued before ours

    async def close(self) -> None:
        self.closed = True
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        for watch in list(self.games.values()):
            async with watch.changed:
                watch.changed.notify_all()
        self.games.clear()

    async def _poll(self) -> None:
        while not self.closed and self.games:
            await asyncio.sleep(self.interval)
            try:
                await self.read()
            except asyncio.CancelledError:
                raise
            except Exception:  # a store hiccup: the next poll tries again
                log.warning("watching %d game(s) failed", len(self.games), exc_info=True)

    async def read(self) -> None:
        """Read every watched game now; wake the streams of those that moved."""
        readings = await self.probe(list(self.games))
        for game_id, reading in readings.items():
            watch = self.games.get(game_id)
            if watch is None or reading == (watch.head, watch.ended):
                continue
            watch.head, watch.ended = max(watch.head, reading[0]), reading[1]
            async with watch.changed:
                watch.changed.notify_all()
