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

Switching between threads: the Discord bot's event loop shares the interpreter with
the worker threads that run the rules, the Views and the store (pure Python for the most
part). Each time the loop makes a call that lets the interpreter go (a socket's send or
receive, a pipe's write, a queue's put), it must take it back from a busy worker, which
holds it for up to the switch interval — Python's default, 5 ms — before passing it on.
A callback that sends ten requests waits ten times: under a burst that, not the loop's
own work, was most of the loop's lag (docs/performance.md, "Round 4"). So:

* :func:`tune_switching` sets the switch interval to :data:`SWITCH_SECONDS` (1 ms) in the
  bot's process: the loop gets the interpreter back within about 1 ms; a worker thread
  loses little (switching costs microseconds).

Stopping: a stop (SIGTERM, SIGINT) completes within :data:`STOP_SECONDS`: work in flight
gets :data:`DRAIN_SECONDS` to finish (the bot then answers what is left "restarting, try
again"), connections are closed within what is left, and :func:`release_leases` gives up
what the process holds (the deadline ticks, the mail leader, following email from
Discord), so the next process takes those jobs at once instead of waiting for the leases to
lapse.
"""

from __future__ import annotations

import gc
import logging
import sys

from bot.store import Store, StoreError

#: Seconds a clean stop takes at most, whatever the process is doing (a systemd unit's
#: TimeoutStopSec must be longer).
STOP_SECONDS = 10.0
#: Of those, the seconds work in flight is given to finish before it is cut short.
DRAIN_SECONDS = 5.0

#: Allocations between two young-generation collections (Python's default: 700).
YOUNG_THRESHOLD = 20_000
#: Seconds a thread holds the interpreter while another waits for it (Python's: 0.005).
SWITCH_SECONDS = 0.001


def tune_gc() -> None:
    """Apply the garbage-collector settings above to this process (idempotent)."""
    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)


def tune_switching() -> None:
    """Apply the switch interval above to this process (idempotent)."""
    sys.setswitchinterval(SWITCH_SECONDS)


def release_leases(store: Store, *holders: str, log: logging.Logger) -> list[str]:
    """Release every lease of ``holders`` (this process's names) on a clean stop, and log
    which; a store that cannot be reached now leaves them to lapse (logged too)."""
    try:
        names = [name for holder in holders for name in store.release_held(holder)]
    except StoreError as error:
        log.warning("leases not released (%s): they lapse on their own", error)
        return []
    log.info("released leases: %s", ", ".join(names) or "none held")
    return names
