"""Caches keyed by the objects a value was made from, holding those objects.

A cache keyed by ``id(obj)`` alone can hand out a stale value: once ``obj`` is freed (a data
pack loaded anew, a conformance map dropped), a new object may get the same id. A
:class:`Memo` keeps the objects of each key and compares them by identity, so a hit is
always a value made from these very objects.

>>> memo = Memo[int](size=8)
>>> table = {"a": 1}
>>> memo.get((table,), "size", lambda: len(table))
1
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class Memo(Generic[V]):
    """Values by (objects, extra key); at most ``size`` kept (all dropped when full)."""

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._items: dict[tuple[tuple[int, ...], Hashable], tuple[tuple[object, ...], V]] = {}
        self._lock = threading.Lock()

    def get(self, objects: tuple[object, ...], extra: Hashable, make: Callable[[], V]) -> V:
        """The value made from ``objects`` (identity) and ``extra`` (value), made on a miss."""
        key = (tuple(id(o) for o in objects), extra)
        found = self._items.get(key)
        if found is not None and all(a is b for a, b in zip(found[0], objects, strict=True)):
            return found[1]
        value = make()
        with self._lock:
            if len(self._items) >= self._size:
                self._items.clear()
            self._items[key] = (objects, value)
        return value

    def __len__(self) -> int:
        return len(self._items)
