"""The game service's in-process caches, bounded so that a long-running process holding many
games stays within a memory budget.

* :class:`StateCache` keeps the latest state of recently used games (a game's next order
  then needs no snapshot load and replay), least recently used dropped first, within a
  budget of bytes. A state's size is estimated from its canonical serialisation (the bytes
  the store hashes), times :data:`MEMORY_PER_BYTE`: the objects of a state take several
  times their JSON size.
* :class:`GameLocks` hands out one lock per game, kept only while someone holds or waits
  for it.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from types import TracebackType
from typing import Generic, TypeVar

#: Estimated bytes of memory per byte of a state's canonical JSON (Turning Point:
#: Stalingrad's states measure about 7, Stalin's Tanks' about 3.5).
MEMORY_PER_BYTE = 8
#: The default budget of the state cache, in bytes of estimated memory.
DEFAULT_STATE_BUDGET = 64 * 2**20

T = TypeVar("T")


@dataclass
class _Entry(Generic[T]):
    value: T
    size: int


class StateCache(Generic[T]):
    """A map game id -> value with a total size budget (least recently used dropped first).

    Thread-safe. ``size`` is the value's canonical byte count; the budget is compared with
    ``size * MEMORY_PER_BYTE`` summed over the entries. A value bigger than the whole budget
    is not kept.
    """

    def __init__(self, budget: int = DEFAULT_STATE_BUDGET) -> None:
        self.budget = budget
        self._items: OrderedDict[str, _Entry[T]] = OrderedDict()
        self._used = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> T | None:
        with self._lock:
            entry = self._items.get(key)
            if entry is None:
                return None
            self._items.move_to_end(key)
            return entry.value

    def put(self, key: str, value: T, size: int) -> None:
        cost = size * MEMORY_PER_BYTE
        with self._lock:
            self._drop(key)
            if cost > self.budget:
                return
            self._items[key] = _Entry(value, cost)
            self._used += cost
            while self._used > self.budget:
                _key, oldest = self._items.popitem(last=False)
                self._used -= oldest.size

    def pop(self, key: str) -> None:
        with self._lock:
            self._drop(key)

    def _drop(self, key: str) -> None:
        entry = self._items.pop(key, None)
        if entry is not None:
            self._used -= entry.size

    def __len__(self) -> int:
        return len(self._items)

    @property
    def used(self) -> int:
        """Estimated bytes held."""
        return self._used


class GameLock:
    """One game's lock (a context manager)."""

    __slots__ = ("__weakref__", "_lock")

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __enter__(self) -> GameLock:
        self._lock.acquire()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._lock.release()


class GameLocks:
    """``locks[game_id]``: the game's lock, the same object for everyone who holds a
    reference to it; forgotten once nobody does (so the map never outgrows the games in
    use)."""

    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[str, GameLock] = weakref.WeakValueDictionary()
        self._guard = threading.Lock()

    def __getitem__(self, game_id: str) -> GameLock:
        with self._guard:
            lock = self._locks.get(game_id)
            if lock is None:
                lock = self._locks[game_id] = GameLock()
            return lock

    def __len__(self) -> int:
        return len(self._locks)
