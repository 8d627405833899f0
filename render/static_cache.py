"""Static layers, built once per (game, data pack hash, scale) and kept for the process.

A static layer is everything that does not change during a game: the map's polygons or
hexes, terrain, labels, the frame of the tracks and the legend, plus the per-space geometry
(counter slots, masks) the dynamic layers use. Building one takes a few hundred
milliseconds; every later picture of a game with the same pack reuses it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_LIMIT = 8
_items: OrderedDict[tuple[object, ...], object] = OrderedDict()
_lock = threading.Lock()
stats = {"builds": 0, "hits": 0}


def cached(key: tuple[object, ...], build: Callable[[], T]) -> T:
    """The cached value for ``key``, building it on first use (least recently used dropped)."""
    with _lock:
        if key in _items:
            _items.move_to_end(key)
            stats["hits"] += 1
            return _items[key]  # type: ignore[return-value]
    value = build()
    with _lock:
        _items[key] = value
        _items.move_to_end(key)
        stats["builds"] += 1
        while len(_items) > _LIMIT:
            _items.popitem(last=False)
    return value


def clear() -> None:
    with _lock:
        _items.clear()
