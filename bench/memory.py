"""``umpire bench memory``: a long-running process holding many games stays within its budget.

One ``GameService`` with its default settings (its state cache's memory budget included)
starts Turning Point: Stalingrad games one after another, each played a few random orders;
then every game gets one more order, round-robin, as a busy server's traffic would (games
dropped from the cache are rebuilt from their snapshots). It prints this process's resident
memory after 1, 100 and 1,000 games (``--actions N``: the largest count) and the cache's
estimated size, against the target: the growth from 1 game to the most stays within the
state cache's budget plus a quarter for the rest (SQLite's page cache, allocator slack).

Run: ``uv run umpire bench memory``.
"""

from __future__ import annotations

import gc
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))

from bench.common import Figures, Out, Table, rss_mb  # noqa: E402

ORDERS_EACH = 3


def play(table: Table, orders: int) -> None:
    for _ in range(orders):
        step = table.next_order()
        if step is None:
            return
        actor, text = step
        table.service.submit(table.game_id, actor, text, table.key())


def budget(service: Any) -> int:
    """The service's states' budget: the current states' and the states before the last
    actions' caches."""
    return int(service._cache.budget + service._before.budget)


def held(service: Any) -> int:
    return int(service._cache.used + service._before.used)


def run(actions: int = 1000, out: Out = print) -> dict[str, float]:
    """``actions``: how many games the process ends up holding."""
    from bot.service import GameService
    from bot.store import Store

    games = max(2, actions)
    marks = sorted({1, min(100, games), games})
    figures = Figures()
    rss: dict[int, float] = {}
    from bot.runtime import tune_gc

    tune_gc()  # the bot's and the mail gateway's process settings
    with tempfile.TemporaryDirectory() as folder:
        service = GameService(Store(Path(folder) / "memory.db"))
        tables: list[Table] = []
        for number in range(1, games + 1):
            table = Table(service, "stalingrad", "historical", seed=number)
            play(table, ORDERS_EACH)
            tables.append(table)
            if number in marks:
                gc.collect()
                rss[number] = rss_mb()
                out(f"{number:>5} games started: RSS {rss[number]:7.1f} MB; state cache "
                    f"{len(service._cache)} games, ~{held(service) / 2**20:.1f} MB "
                    f"(budget {budget(service) / 2**20:.0f} MB)")
        for table in tables:
            play(table, 1)
        gc.collect()
        after = rss_mb()
        out(f"{games:>5} games, one more order each: RSS {after:7.1f} MB; state cache "
            f"{len(service._cache)} games")
        budget_mb = budget(service) / 2**20
        service.store.close()
    growth = max(rss[games], after) - rss[1]
    for mark in marks:
        figures.add(f"RSS with {mark} games", rss[mark], None, " MB")
    figures.add(f"RSS growth from 1 to {games} games", growth, 1.25 * budget_mb, " MB")
    figures.report(out)
    return figures.as_dict()


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
