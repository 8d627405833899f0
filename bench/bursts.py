"""What the benchmarks of a burst share (issue 26, "the bot under a burst"): the targets,
the event loop's lag probe and the follow-up's quotient over what was queued before it.

Targets, the same for every frontend measured under a burst (``bench discord``, ``bench
web``): the first response p99 <= 1 s (Discord's deadline is 3 s); each follow-up <= 1.5x
the sum of its pipeline's p95 over what was queued before it and itself, at p95; the event
loop's lag p99 <= 50 ms (the rules and the store off the loop).
"""

from __future__ import annotations

import asyncio
import contextlib

from bench.common import Figures, Out, percentile

FIRST_RESPONSE_P99_S = 1.0
FOLLOW_UP_P95 = 1.5
LOOP_LAG_P99_MS = 50.0
TICK_S = 0.010

#: One burst's follow-ups: (when it took its place, its pipeline's p95, its follow-up).
Queue = list[tuple[float, float, float]]


class LagProbe:
    """How late the event loop wakes a task that sleeps ``TICK_S``, while running."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self.running = False
        self.task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time()
            await asyncio.sleep(TICK_S)
            if self.running:
                self.lags.append(max(0.0, loop.time() - asked - TICK_S))

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._tick())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


def queued_quotients(queue: Queue) -> list[float]:
    """Each follow-up over what was queued before it and itself: ``queue`` holds (when it
    took its place, its pipeline's p95, its follow-up), in any order; the places are
    read from the first item, and each follow-up is divided by the sum of the p95s up to
    its own place."""
    quotients, queued = [], 0.0
    for _, cost, took in sorted(queue):
        queued += cost
        quotients.append(took / max(queued, 1e-6))
    return quotients


def burst_quotients(bursts: list[Queue]) -> list[float]:
    """Every burst's quotients (:func:`queued_quotients`), the figure's samples."""
    return [quotient for queue in bursts for quotient in queued_quotients(queue)]


#: The places in a burst :func:`place_rows` prints (1: acknowledged first), and its last.
PLACES = (1, 2, 3, 5, 10, 20, 30, 40)


def by_place(bursts: list[Queue]) -> dict[int, list[tuple[float, float]]]:
    """Each burst's follow-ups by their place in it (1: the first to take its place, as
    :func:`queued_quotients` reads them): (the follow-up, seconds; its quotient)."""
    places: dict[int, list[tuple[float, float]]] = {}
    for queue in bursts:
        for place, ((_, _, took), quotient) in enumerate(
                zip(sorted(queue), queued_quotients(queue), strict=True), 1):
            places.setdefault(place, []).append((took, quotient))
    return places


def place_rows(out: Out, bursts: list[Queue], places: tuple[int, ...] = PLACES) -> None:
    """Where in a burst the quotient's target is missed: at some places in the bursts (and
    the last), the follow-up's median, the quotient's median and how many bursts' follow-up
    at that place is over :data:`FOLLOW_UP_P95` (the figure's p95 reads them all together:
    the head of every burst waits for the burst's acknowledgements, its tail does not)."""
    found = by_place(bursts)
    if not found:
        return
    out(f"  by place in the burst (1: acknowledged first): follow-up p50, quotient p50, "
        f"bursts over {FOLLOW_UP_P95}x")
    for place in sorted({p for p in places if p in found} | {max(found)}):
        took = [t for t, _ in found[place]]
        quotients = [q for _, q in found[place]]
        over = sum(1 for q in quotients if q > FOLLOW_UP_P95)
        out(f"    place {place:>3} {1000 * percentile(took, 0.5):8.1f} ms "
            f"{percentile(quotients, 0.5):6.2f}x  {over} of {len(quotients)}")


def row(out: Out, label: str, values: list[float], scale: float = 1000.0,
        unit: str = "ms") -> None:
    """One printed line of a burst's figure: its p50, p95 and p99 (``scale``: seconds to
    ``unit``)."""
    out(f"  {label:<44} p50 {scale * percentile(values, 0.5):8.1f} {unit}  "
        f"p95 {scale * percentile(values, 0.95):8.1f} {unit}  "
        f"p99 {scale * percentile(values, 0.99):8.1f} {unit}")


def report(out: Out, figures: Figures, name: str, first: tuple[str, list[float]],
           follow: tuple[str, list[float]], quotient: tuple[str, list[float]],
           lag: tuple[str, list[float]]) -> None:
    """Print a burst's rows (each a label and its samples, seconds) and add the three
    figures with a target of the frontend ``name``: its first response p99, its
    follow-up's quotient p95 (the figure takes the quotient's label), its event loop's lag
    p99."""
    row(out, *first)
    row(out, *follow)
    row(out, *quotient, scale=1.0, unit="x ")
    row(out, *lag)
    figures.add(f"{name} first response p99", percentile(first[1], 0.99),
                FIRST_RESPONSE_P99_S, " s")
    figures.add(f"{name} {quotient[0]} p95", percentile(quotient[1], 0.95), FOLLOW_UP_P95,
                "x")
    figures.add(f"{name} event loop lag p99", 1000 * percentile(lag[1], 0.99),
                LOOP_LAG_P99_MS, " ms")
