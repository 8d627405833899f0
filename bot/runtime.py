"""Settings of Umpire's long-running processes (the Discord bot, the mail gateway, a game at
the console), applied once their start-up is done.

Garbage collection: an order allocates tens of thousands of short-lived objects (the state
copy the rules work on, the events, the View), and Python's default collector starts a
collection every 700 new container objects, now and then scanning every object the process
holds (rules, data packs, picture layers, the cached states of many games). Measured on
Turning Point: Stalingrad through the service, that is a fifth of an order's CPU time. So:

* :func:`tune_gc` freezes what start-up loaded (modules, rules, packs, picture layers: never
  garbage) out of every later collection, and collects the young generation every 20,000
  allocations instead of 700. Umpire's states hold no reference cycles, so little waits
  for a collection; memory stays bounded by the caches' budgets.
"""

from __future__ import annotations

import gc

#: Allocations between two young-generation collections (Python's default: 700).
YOUNG_THRESHOLD = 20_000


def tune_gc() -> None:
    """Apply the garbage-collector settings above to this process (idempotent)."""
    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
