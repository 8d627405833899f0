"""What every benchmark shares: CPU and wall clocks, percentiles, peak memory, random games
played through the real service, and the closing lines (one per figure, with its target).

A figure is measured in this process's CPU time (``time.process_time``) as well as wall time:
the machine is shared, so wall time is noisy and ratios of two CPU times measured in the
same run are what the targets are stated in.
"""

from __future__ import annotations

import random
import resource
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:  # as a script, bench/ must not hide the packages
    sys.path.insert(0, str(ROOT))

Out = Callable[[str], Any]


def percentile(values: list[float], fraction: float) -> float:
    """The value below which ``fraction`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


@dataclass
class Clock:
    """CPU and wall seconds of one measured call."""

    cpu: float = 0.0
    wall: float = 0.0


def measure(work: Callable[[], Any]) -> tuple[Clock, Any]:
    """Run ``work`` once: its CPU and wall seconds, and its value."""
    cpu, wall = time.process_time(), time.perf_counter()
    value = work()
    return Clock(time.process_time() - cpu, time.perf_counter() - wall), value


def best_cpu(work: Callable[[], Any], repeat: int = 5) -> float:
    """The least CPU seconds of ``repeat`` runs (the steadiest figure on a busy machine)."""
    return min(measure(work)[0].cpu for _ in range(repeat))


def rss_mb() -> float:
    """This process's resident set now, in MB (from /proc; 0 where unavailable)."""
    try:
        with open("/proc/self/statm") as stat:
            pages = int(stat.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0.0
    return pages * resource.getpagesize() / 2**20


def peak_rss_mb() -> float:
    """The peak resident set of this process so far, in MB: the high-water mark of its own
    memory (``VmHWM``; ``getrusage``'s maximum where /proc is missing, which on Linux also
    counts the memory of the parent that started this process, a large one included)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@dataclass
class Figure:
    """One reported figure and its target: ``value`` must be <= ``target`` (>= with
    ``at_least``)."""

    name: str
    value: float
    target: float | None
    unit: str = ""
    at_least: bool = False

    @property
    def ok(self) -> bool:
        if self.target is None:
            return True
        return self.value >= self.target if self.at_least else self.value <= self.target

    def line(self) -> str:
        shown = f"{self.value:.2f}{self.unit}"
        if self.target is None:
            return f"FIGURE {self.name}: {shown} (no target)"
        verdict = "ok" if self.ok else "MISSED"
        bound = ">=" if self.at_least else "<="
        return f"FIGURE {self.name}: {shown} (target {bound} {self.target:g}{self.unit}) {verdict}"


@dataclass
class Figures:
    items: list[Figure] = field(default_factory=list)

    def add(self, name: str, value: float, target: float | None = None,
            unit: str = "", at_least: bool = False) -> None:
        self.items.append(Figure(name, value, target, unit, at_least))

    def report(self, out: Out) -> bool:
        """The closing lines: one per figure with its target; True when every target is met."""
        for item in self.items:
            out(item.line())
        return all(item.ok for item in self.items)

    def as_dict(self) -> dict[str, float]:
        return {item.name: item.value for item in self.items}


# ---- random games through the service ---------------------------------------------------------


class Table:
    """One game played through :class:`~bot.service.GameService` by seeded random players:
    a GM and one player per side, each order chosen from the side's legal orders."""

    def __init__(self, service: Any, game: str, scenario: str | None, seed: int,
                 game_id: str | None = None) -> None:
        from bot.service import Actor

        self.service = service
        self.rnd = random.Random(seed)
        gm = Actor.discord(f"gm-{seed}")
        info = service.create_game(gm, game, scenario, game_id=game_id)
        self.game_id: str = info.id
        self.gm = gm
        self.players: dict[str, Any] = {}
        for side in service.rules(self.game_id).sides:
            player = Actor.discord(f"{side}-{seed}")
            service.seat(self.game_id, gm, side, player)
            self.players[side] = player
        service.start(self.game_id, gm)
        self.keys = 0

    def next_order(self) -> tuple[Any, str] | None:
        """(actor, order text) of the next random order, or None when the game is over."""
        info = self.service.info(self.game_id)
        side = info.to_act
        if side is None or info.status != "active":
            return None
        player = self.players[side]
        legal = self.service.legal_orders(self.game_id, player, side)
        if not legal:
            return None
        return player, self.choose(legal)

    def choose(self, legal: list[str]) -> str:
        """Mostly something that changes the board: orders other than ending a phase are
        preferred, so a random game gets busy rather than passing through."""
        busy = [o for o in legal if o not in ("done", "pass", "end")]
        if busy and self.rnd.random() < 0.85:
            return self.rnd.choice(busy)
        return self.rnd.choice(legal)

    def key(self) -> str:
        self.keys += 1
        return f"{self.game_id}-{self.keys}"


def played(service: Any, game: str, scenarios: list[str | None], actions: int,
           seed: int = 1) -> Iterator[tuple[Table, Any, str]]:
    """(table, actor, text) for ``actions`` random orders, through the given scenarios in
    turn (a new game when one ends or the scenario's share is used up)."""
    share = max(1, actions // len(scenarios))
    done = 0
    round_ = 0
    while done < actions:
        for index, scenario in enumerate(scenarios):
            table = Table(service, game, scenario, seed + round_ * 100 + index)
            for _ in range(min(share, actions - done)):
                step = table.next_order()
                if step is None:
                    break
                yield table, *step
                done += 1
            if done >= actions:
                return
        round_ += 1
