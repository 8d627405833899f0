"""``umpire bench writers`` (also the end of ``umpire bench store``): several writer
processes submitting orders at once, on SQLite and on PostgreSQL, side by side.

For 1, 2, 4 and 8 processes, each plays its own Duel games through
``GameService.submit`` (as bot and mail processes sharing one database do) and the bench
prints, per backend, submit p50/p95 (wall, per order), actions stored per second over all
processes, and errors (orders refused as busy, or exceptions). Then 4 processes on ONE
game, all submitting for whoever's turn it is (conflicting writers), with each of
PostgreSQL's ways to serialise a game's writers: the advisory lock held from load to
commit, or the row lock of the sequence check alone (the loser replans and retries).

PostgreSQL: ``--db postgresql://…`` (the bench works in a schema of its own, dropped at
the end; nothing else in the database is touched). Without it, SQLite alone is measured.
Targets (from the scale-out issue): no error at any process count on either backend, and
PostgreSQL's p95 at 8 processes no worse than SQLite's at 2. Wall-clock figures on a shared
2-core machine: read them side by side, not as absolutes.
"""

from __future__ import annotations

import multiprocessing
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:  # as a script, bench/ must not hide the packages
    sys.path.insert(0, str(ROOT))

from bench.common import Figures, Out, percentile  # noqa: E402
from tests.kernel import duel  # noqa: E402,F401  (registers the Duel test game)

GAME = "tests.kernel.duel:DuelGame"
COUNTS = (1, 2, 4, 8)
GAMES_EACH = 2


def _service(url: str, **options: Any) -> Any:
    from bot.service import GameService
    from bot.store import Store

    return GameService(Store(url, **options), snapshot_every=64)


def _new_games(service: Any, count: int, tag: str) -> list[str]:
    from bot.service import Actor

    gm = Actor.discord(f"gm-{tag}")
    ids = []
    for number in range(count):
        game_id = service.create_game(gm, GAME).id
        service.seat(game_id, gm, "red", Actor.discord(f"red-{tag}-{number}"))
        service.seat(game_id, gm, "blue", Actor.discord(f"blue-{tag}-{number}"))
        service.start(game_id, gm)
        ids.append(game_id)
    return ids


def _writer(url: str, games: list[str], orders: int, start: Any, out: Any) -> None:
    """Submit ``orders`` orders round the ``games``; send back latencies and errors."""
    from bot.service import Actor

    service = _service(url)
    latencies: list[float] = []
    errors = 0
    why: dict[str, int] = {}
    start.wait()
    began = time.perf_counter()
    for number in range(orders):
        game_id = games[number % len(games)]
        info = service.info(game_id)
        side = info.to_act or "red"
        who = Actor.discord(f"{side}-{info.id}")
        seat = next((s for s in info.seats if s.side == side), None)
        if seat is not None and seat.discord_id:
            who = Actor.discord(seat.discord_id)
        text = "trap 1" if info.head_seq == 0 else "pass"
        t0 = time.perf_counter()
        try:
            result = service.submit(game_id, who, text, f"{uuid.uuid4().hex}")
            if result.status == "refused" and result.error_rule not in ("turn",):
                errors += 1
                why[str(result.error_rule)] = why.get(str(result.error_rule), 0) + 1
        except Exception as error:  # an exception escaping the service is an error too
            errors += 1
            why[type(error).__name__] = why.get(type(error).__name__, 0) + 1
        latencies.append(time.perf_counter() - t0)
    out.put({"latencies": latencies, "errors": errors, "why": why,
             "seconds": time.perf_counter() - began})
    service.store.close()


def _round(url: str, processes: int, orders: int, shared: bool = False) -> dict[str, Any]:
    """``processes`` writers at once; their own games each, or all on one game."""
    setup = _service(url)
    if shared:
        games = _new_games(setup, 1, "shared")
        plan = [games] * processes
    else:
        plan = [_new_games(setup, GAMES_EACH, f"w{n}-{uuid.uuid4().hex[:6]}")
                for n in range(processes)]
    setup.store.close()
    context = multiprocessing.get_context("fork")
    start = context.Barrier(processes + 1)
    out = context.Queue()
    workers = [context.Process(target=_writer, args=(url, plan[n], orders, start, out))
               for n in range(processes)]
    for worker in workers:
        worker.start()
    start.wait()
    began = time.perf_counter()
    reports = [out.get(timeout=900) for _ in workers]
    wall = time.perf_counter() - began
    for worker in workers:
        worker.join(timeout=60)
    latencies = [x for r in reports for x in r["latencies"]]
    errors = sum(int(r["errors"]) for r in reports)
    why = sorted({k for r in reports for k in r["why"]})
    check = _service(url)
    try:
        stored = sum(check.store.count_actions(g) for g in {g for gs in plan for g in gs})
    finally:
        check.store.close()
    return {"p50": 1000 * percentile(latencies, 0.5), "p95": 1000 * percentile(latencies, 0.95),
            "rate": stored / wall, "errors": errors, "stored": stored,
            "why": ", ".join(why)}


@contextmanager
def _pg_schema(url: str) -> Iterator[str]:
    """A URL of ``url``'s database whose tables live in a new schema, dropped after."""
    import psycopg

    from bot.store.postgres import split_url

    conninfo, _own = split_url(url)
    schema = f"umpire_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    parts = urlsplit(url)
    query = [*parse_qsl(parts.query), ("options", f"-c search_path={schema}")]
    try:
        yield urlunsplit(parts._replace(query=urlencode(query, quote_via=quote)))
    finally:
        from bot.store.postgres import close_stores

        close_stores()
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def _with_lock(url: str, lock: str) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "lock"] + [("lock", lock)]
    return urlunsplit(parts._replace(query=urlencode(query, quote_via=quote)))


def run(actions: int = 120, out: Out = print, db: str | None = None) -> dict[str, Any]:
    """``actions``: orders each writer process submits (per round)."""
    orders = max(10, min(actions, 400))
    results: dict[str, dict[int, dict[str, Any]]] = {}
    shared: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as folder:
        backends = {"sqlite": f"sqlite://{Path(folder) / 'writers.db'}"}
        with _pg_schema(db) if db else _nothing() as pg:
            if pg:
                backends["postgresql"] = pg
            for name, url in backends.items():
                _service(url).store.close()  # the schema, before the writers start
                results[name] = {}
                for count in COUNTS:
                    results[name][count] = _round(url, count, orders)
                out(f"{name}: measured {len(COUNTS)} rounds of {orders} orders per process")
            if pg:
                for lock in ("advisory", "row"):
                    shared[lock] = _round(_with_lock(pg, lock), 4, orders // 2, shared=True)
    names = list(results)
    out("")
    out("writers  " + "".join(f"| {n:^37} " for n in names))
    out("         " + "".join("| p50 ms   p95 ms  actions/s  errors " for _ in names))
    for count in COUNTS:
        out(f"{count:>7}  " + "".join(
            f"| {results[n][count]['p50']:6.1f}  {results[n][count]['p95']:7.1f}  "
            f"{results[n][count]['rate']:9.1f}  {int(results[n][count]['errors']):6d} "
            for n in names))
    if not db:
        out("(PostgreSQL not measured: give --db postgresql://USER@HOST/DB)")
    for name in names:
        for count in COUNTS:
            if results[name][count]["why"]:
                out(f"{name}, {count} writers: errors were {results[name][count]['why']}")
    for lock, figures in shared.items():
        out(f"postgresql, 4 writers on ONE game, {lock:>8} lock: p50 {figures['p50']:6.1f} ms  "
            f"p95 {figures['p95']:7.1f} ms  {figures['rate']:6.1f} actions/s  "
            f"{int(figures['errors'])} errors" + (f" ({figures['why']})" if figures['why'] else ""))
    closing = Figures()
    for name in names:
        worst = max(results[name][c]["errors"] for c in COUNTS)
        closing.add(f"{name} errors at any writer count", worst, 0.0)
    if "postgresql" in results:
        ratio = results["postgresql"][8]["p95"] / max(results["sqlite"][2]["p95"], 1e-9)
        closing.add("postgresql p95 at 8 writers / sqlite p95 at 2", ratio, 1.0, " x")
    closing.report(out)
    return {"writers": {n: {str(c): v for c, v in r.items()} for n, r in results.items()},
            "one_game": shared}


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 120,
        db=sys.argv[2] if len(sys.argv) > 2 else None)
