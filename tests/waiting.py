"""Waiting in tests for the event they need, with a generous bound.

A test on a busy machine (two cores shared by many processes, the CI's soak stage with two
CPU-bound burners beside it) must wait for what it needs to happen, never for a short fixed
time: these helpers poll a condition until it holds and fail only after :data:`GENEROUS`
seconds, long past anything a loaded machine takes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

#: Seconds a test waits for an event before it fails (a bound, not an expected time).
GENEROUS = 60.0
#: Seconds between two looks at the condition.
POLL = 0.02


def until(condition: Callable[[], object], what: str = "the condition",
          timeout: float = GENEROUS) -> None:
    """Return as soon as ``condition()`` is true; fail naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(POLL)


async def until_async(condition: Callable[[], object], what: str = "the condition",
                      timeout: float = GENEROUS) -> None:
    """:func:`until` inside an event loop (the loop runs while it waits)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        await asyncio.sleep(POLL)
