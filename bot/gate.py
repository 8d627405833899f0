"""A first-in, first-out gate after the acknowledgement: at most ``width`` requests do
their work (the store, the picture, the answer) at once; the others wait their turn in the
order they arrived (issue 26). Under a burst the first in line is answered first, instead
of every answer arriving near the end of the burst, as threads sharing the interpreter
would have them. The Discord bot gates the work after an interaction's acknowledgement
(which is never behind the gate: Discord wants it within 3 seconds,
:mod:`bot.discord.inflight`). The web pages store their orders in a thread of their own
instead, which takes them in arrival order (:mod:`bot.web.routes`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator


class Gate:
    """A first-in, first-out gate of ``width`` places, entered by a key: an interaction's
    id, a request's."""

    def __init__(self, width: int) -> None:
        if width < 1:
            raise ValueError(f"the gate needs at least one place, not {width}")
        self.width = width
        self._inside: set[int] = set()
        self._waiting: collections.deque[tuple[int, asyncio.Future[None]]] = (
            collections.deque())
        self.closed = False

    @property
    def inside(self) -> int:
        return len(self._inside)

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    async def enter(self, key: int) -> None:
        """Wait for a place (in arrival order); entering twice with one key is one entry."""
        if self.closed:  # the bot is stopping: this one was answered "restarting"
            raise asyncio.CancelledError
        if key in self._inside:
            return
        if len(self._inside) < self.width and not self._waiting:
            self._inside.add(key)
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((key, turn))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # admitted, then cancelled: pass it on
                self.leave(key)
            else:
                self._waiting = collections.deque(w for w in self._waiting if w[1] is not turn)
            raise

    @contextlib.asynccontextmanager
    async def place(self, key: int) -> AsyncIterator[None]:
        """A place for ``key`` while the block runs (:meth:`enter`, then :meth:`leave`)."""
        await self.enter(key)
        try:
            yield
        finally:
            self.leave(key)

    def close(self) -> None:
        """Admit nobody more (the stop): those waiting end, cancelled, their work not done
        (the stop answers them "restarting", :mod:`bot.discord.inflight`)."""
        self.closed = True
        while self._waiting:
            _, turn = self._waiting.popleft()
            turn.cancel()

    def leave(self, key: int) -> None:
        """Free ``key``'s place (nothing if it holds none) for the first one waiting."""
        if key not in self._inside:
            return
        self._inside.discard(key)
        while self._waiting and len(self._inside) < self.width:
            next_key, turn = self._waiting.popleft()
            if turn.done():
                continue
            self._inside.add(next_key)
            turn.set_result(None)
