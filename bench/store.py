"""``umpire bench store``: what the game service costs on top of SQLite.

Builds a Duel game of N actions (default 2,000) through ``GameService.submit`` (no
rendering), then measures:

* submit latency p50/p95, against a bare SQLite insert of the same action rows (same
  file settings: WAL, synchronous=FULL, one transaction per row);
* rollback of the N-action game to its middle and to its start (target: < 0.5 s each);
* loading the state in a fresh process-like service: nearest snapshot + tail replay, and
  a full replay from scratch (what ``umpire verify`` does) for comparison.

Then several writer processes at once on SQLite and, with ``--db postgresql://…``, on
PostgreSQL, side by side (:mod:`bench.writers`).

Run: ``uv run umpire bench store`` (``--actions 500`` for a quicker run).
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:  # as a script, bench/ must not hide the packages
    sys.path.insert(0, str(ROOT))

from bench.common import Figures  # noqa: E402
from bot.records import export_lines, verify  # noqa: E402
from bot.service import Actor, GameService  # noqa: E402
from bot.store import Store  # noqa: E402

GAME = "tests.kernel.duel:DuelGame"
GM = Actor.discord("gm")
RED = Actor.discord("red")
BLUE = Actor.discord("blue")
RED_MOVES = ("move r2 3", "move r2 2")
BLUE_MOVES = ("move b1 4", "move b1 5")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def build(path: Path, actions: int) -> tuple[GameService, str, list[float]]:
    service = GameService(Store(path), snapshot_every=64, snapshot_on_side_change=False)
    game_id = service.create_game(GM, GAME).id
    service.seat(game_id, GM, "red", RED)
    service.seat(game_id, GM, "blue", BLUE)
    service.start(game_id, GM)
    timings: list[float] = []
    start = time.perf_counter()
    result = service.submit(game_id, RED, "trap 1", "k0")
    timings.append(time.perf_counter() - start)
    for number in range(1, actions):
        red = number % 2 == 1
        text = (RED_MOVES if red else BLUE_MOVES)[((number - 1) // 2) % 2]
        start = time.perf_counter()
        result = service.submit(game_id, RED if red else BLUE, text, f"k{number}")
        timings.append(time.perf_counter() - start)
        if not result.ok:
            raise RuntimeError(f"bench game refused {text}: {result.error}")
    return service, game_id, timings


def bare_inserts(path: Path, rows: list[dict[str, Any]]) -> list[float]:
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    columns = list(rows[0])
    conn.execute(f"CREATE TABLE actions ({', '.join(columns)}, PRIMARY KEY (game_id, seq))")
    sql = f"INSERT INTO actions VALUES ({', '.join('?' for _ in columns)})"
    timings = []
    for row in rows:
        start = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(sql, [row[c] for c in columns])
        conn.execute("COMMIT")
        timings.append(time.perf_counter() - start)
    conn.close()
    return timings


def copy_db(source: Path, target: Path) -> None:
    src = sqlite3.connect(str(source))
    dst = sqlite3.connect(str(target))
    src.backup(dst)
    src.close()
    dst.close()


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = action()
    return time.perf_counter() - start, value


def run(actions: int = 2000, out: Callable[[str], Any] = print, db: str | None = None
        ) -> dict[str, float]:
    """The single-writer figures on SQLite, then :mod:`bench.writers` (several writer
    processes, SQLite and — with ``db``, a ``postgresql://`` URL — PostgreSQL)."""
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        out(f"building a {actions}-action game through GameService.submit …")
        service, game_id, submit = build(base / "bench.db", actions)
        rows = service.store.actions(game_id)
        bare = bare_inserts(base / "bare.db", rows)
        figures = {
            "submit_p50_ms": 1000 * percentile(submit, 0.5),
            "submit_p95_ms": 1000 * percentile(submit, 0.95),
            "bare_p50_ms": 1000 * percentile(bare, 0.5),
            "bare_p95_ms": 1000 * percentile(bare, 0.95),
        }
        for name, target in (("middle", actions // 2), ("start", 0)):
            copy = base / f"rollback-{name}.db"
            copy_db(base / "bench.db", copy)
            other = GameService(Store(copy))
            other.load_state(game_id)  # warm, as a running service is
            seconds, result = timed(lambda o=other, t=target: o.rollback(game_id, GM, t, "bench"))
            if not result.ok:
                raise RuntimeError(f"rollback failed: {result.error}")
            figures[f"rollback_{name}_s"] = seconds
        fresh = GameService(Store(base / "bench.db"))
        snapshot = fresh.store.latest_snapshot(game_id)
        tail = len(rows) - (snapshot.seq if snapshot else 0)
        figures["load_s"], _ = timed(lambda: fresh.load_state(game_id))
        figures["replay_all_s"], report = timed(lambda: verify(export_lines(fresh.store,
                                                                            game_id)))
        if not report.ok:
            raise RuntimeError(f"the bench game does not verify: {report.problems}")
    out(f"submit      p50 {figures['submit_p50_ms']:7.2f} ms   p95 "
        f"{figures['submit_p95_ms']:7.2f} ms")
    out(f"bare insert p50 {figures['bare_p50_ms']:7.2f} ms   p95 {figures['bare_p95_ms']:7.2f} ms")
    out(f"ratio       p50 {figures['submit_p50_ms'] / figures['bare_p50_ms']:7.1f} x   p95 "
        f"{figures['submit_p95_ms'] / figures['bare_p95_ms']:7.1f} x   (service / bare insert)")
    for name in ("middle", "start"):
        seconds = figures[f"rollback_{name}_s"]
        flag = "ok" if seconds < 0.5 else "OVER the 0.5 s target"
        out(f"rollback to {name:<6} {seconds * 1000:8.1f} ms   ({flag}; "
            f"{seconds * 1000 / figures['bare_p50_ms']:.0f} x a bare insert)")
    out(f"state load  {figures['load_s'] * 1000:8.1f} ms   (snapshot + {tail}-action tail); "
        f"full replay {figures['replay_all_s'] * 1000:.1f} ms "
        f"({figures['replay_all_s'] / max(figures['load_s'], 1e-9):.0f} x)")
    closing = Figures()
    closing.add("submit p50", figures["submit_p50_ms"], None, " ms")
    for name in ("middle", "start"):
        closing.add(f"rollback to {name}", figures[f"rollback_{name}_s"], 0.5, " s")
    closing.report(out)
    from bench import writers

    out("")
    out("several writer processes (bench/writers.py):")
    writers.run(min(actions, 120), out, db)
    return figures


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
