"""``umpire bench writers`` (also the end of ``umpire bench store``): several writer
processes submitting orders at once, on SQLite and on PostgreSQL, side by side, at equal
durability.

The orders are a real Turning Point: Stalingrad game (the historical scenario): one game is
played first by seeded random players choosing from the legal orders (not timed), and its
orders are the script every writer gives again on games of its own. Every game is made with
the same seed and dice id (the service's ``seed_source`` and ``dice_factory``), so the same
orders roll the same dice and stay legal: what a writer times is the submit alone.

For 1, 2, 4 and 8 processes, each plays its own games through ``GameService.submit`` (as
bot and mail processes sharing one database do) and the bench prints, per backend, submit
p50/p95 (wall, per order), actions stored per second over all processes, and errors
(orders refused as busy or as illegal, or exceptions). It does so twice, at equal
durability: with an fsync at every commit (SQLite ``synchronous=FULL``; PostgreSQL
``synchronous_commit=on`` on a server with ``fsync`` on) and with none (SQLite
``synchronous=NORMAL`` in WAL mode; PostgreSQL ``synchronous_commit=off``). Then 4 processes
on ONE game, all submitting for whoever's turn it is (conflicting writers), with each of
PostgreSQL's ways to serialise a game's writers: the advisory lock held from load to
commit, or the row lock of the sequence check alone (the loser replans and retries).
Last, the statements of one submit on each backend (PostgreSQL: round trips to the server,
a pipeline counted once; SQLite: statements run in the library), from the store's count.

The ceiling of the peak throughput: writers on separate games share nothing but the CPU
(and, with fsync, the disk), so over one writer's the peak can reach at most cores x one
writer's wall per order / (its CPU per order: the writer's own plus the server's). The
bench measures both in the same run — the server's from ``/proc`` (the postmaster's own
time, its exited children's, and its live children's, before and after each round) when
the server is on this machine — and prints the ceiling beside the measured peak.

PostgreSQL: ``--db postgresql://…`` (the bench works in a schema of its own, dropped at
the end; nothing else in the database is touched). Without it, SQLite alone is measured.
Targets (issue 26): PostgreSQL's submit p50 at one writer at most 2x SQLite's (at each
durability); PostgreSQL's peak throughput over the writer counts at least 3x one writer's;
no error at any process count on either backend. Wall-clock figures on a shared 2-core
machine: read them side by side, not as absolutes.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
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

GAME = "stalingrad"
SCENARIO = "historical"
COUNTS = (1, 2, 4, 8)
GAMES_EACH = 2
#: (name, SQLite's ``synchronous``, PostgreSQL's ``synchronous_commit``)
DURABILITY = (("fsync at commit", "FULL", "on"), ("no fsync at commit", "NORMAL", "off"))
Script = list[tuple[str, str]]


def _seed(size: int) -> bytes:
    return b"umpire bench writers".ljust(size, b".")[:size]


def _dice(seed: bytes, _dice_id: str, branch: int, start: int) -> Any:
    from adjudicator.kernel.dice import CommittedDice

    return CommittedDice(seed, "bench-writers", branch=branch, start_index=start)


def _service(url: str, **options: Any) -> Any:
    from bot.service import GameService
    from bot.store import Store

    return GameService(Store(url, **options), seed_source=_seed, dice_factory=_dice)


def _script(orders: int) -> Script:
    """(side, order) of the first ``orders`` orders of a seeded random game (see above)."""
    from bench.common import Table

    with tempfile.TemporaryDirectory() as folder:
        service = _service(f"sqlite://{Path(folder) / 'script.db'}", synchronous="OFF")
        table = Table(service, GAME, SCENARIO, seed=26)
        script: Script = []
        while len(script) < orders:
            step = table.next_order()
            if step is None:
                break
            side = service.info(table.game_id).to_act
            result = service.submit(table.game_id, step[0], step[1], table.key())
            if result.ok:
                script.append((str(side), step[1]))
        service.store.close()
    return script


Games = list[tuple[str, dict[str, Any], int]]


def _new_games(service: Any, count: int, tag: str) -> Games:
    """``count`` started games: their ids, players by side and head once started."""
    from bot.service import Actor

    gm = Actor.discord(f"gm-{tag}")
    games = []
    for number in range(count):
        game_id = service.create_game(gm, GAME, SCENARIO).id
        players = {}
        for side in service.rules(game_id).sides:
            players[side] = Actor.discord(f"{side}-{tag}-{number}")
            service.seat(game_id, gm, side, players[side])
        service.start(game_id, gm)
        games.append((game_id, players, service.info(game_id).head_seq))
    return games


def _writer(url: str, games: Games, script: Script, orders: int,
            options: dict[str, Any], start: Any, out: Any) -> None:
    """Submit ``orders`` orders round the ``games``, each game following the script from
    where it is; send back latencies and errors."""
    service = _service(url, **options)
    latencies: list[float] = []
    errors = 0
    why: dict[str, int] = {}
    start.wait()
    began, cpu = time.perf_counter(), time.process_time()
    for number in range(orders):
        game_id, players, first = games[number % len(games)]
        position = service.info(game_id).head_seq - first
        side, text = script[position % len(script)]
        t0 = time.perf_counter()
        try:
            result = service.submit(game_id, players[side], text, f"{game_id}-{position}")
            if result.status == "refused" and result.error_rule not in ("turn",):
                errors += 1
                why[str(result.error_rule)] = why.get(str(result.error_rule), 0) + 1
        except Exception as error:  # an exception escaping the service is an error too
            errors += 1
            why[type(error).__name__] = why.get(type(error).__name__, 0) + 1
        latencies.append(time.perf_counter() - t0)
    out.put({"latencies": latencies, "errors": errors, "why": why,
             "seconds": time.perf_counter() - began, "cpu": time.process_time() - cpu})
    service.store.close()


def _server_pid(url: str) -> int | None:
    """The PostgreSQL server's postmaster, when it runs on this machine (else None)."""
    import psycopg

    from bot.store.postgres import split_url

    try:
        with psycopg.connect(split_url(url)[0], autocommit=True) as conn:
            row = conn.execute("SELECT pg_backend_pid()").fetchone()
            if row is None:
                return None
            stat = Path(f"/proc/{int(row[0])}/stat").read_text()
    except (OSError, psycopg.Error):
        return None
    return int(stat.rpartition(")")[2].split()[1])  # the backend's parent


def _server_cpu(postmaster: int | None) -> float | None:
    """Seconds of CPU the server has spent so far: the postmaster's own, its exited
    children's (the backends of closed connections) and its live children's."""
    if postmaster is None:
        return None
    tick = os.sysconf("SC_CLK_TCK")

    def fields(pid: int) -> list[str] | None:
        try:
            return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:  # gone meanwhile: its time is in its parent's
            return None

    own = fields(postmaster)
    if own is None:
        return None
    ticks = sum(int(own[i]) for i in (11, 12, 13, 14))  # utime, stime, cutime, cstime
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != postmaster:
            child = fields(int(entry))
            if child is not None and child[1] == str(postmaster):
                ticks += int(child[11]) + int(child[12])
    return ticks / tick


def _round(url: str, processes: int, orders: int, script: Script,
           options: dict[str, Any], shared: bool = False,
           server: int | None = None) -> dict[str, Any]:
    """``processes`` writers at once; their own games each, or all on one game."""
    setup = _service(url, **options)
    if shared:
        games = _new_games(setup, 1, "shared")
        plan = [games] * processes
    else:
        plan = [_new_games(setup, GAMES_EACH, f"w{n}-{uuid.uuid4().hex[:6]}")
                for n in range(processes)]
    setup.store.close()
    # spawned, not forked: the bench (and ``bench all`` before it) runs threads, and a fork
    # copies their locks held — a child's connection pool then never starts
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(processes + 1)
    out = context.Queue()
    # the writer by its module's own name: ``umpire bench`` loads this file under another,
    # which a spawned child cannot import
    writer = importlib.import_module("bench.writers")._writer
    workers = [context.Process(target=writer, args=(url, plan[n], script, orders, options,
                                                    start, out))
               for n in range(processes)]
    for worker in workers:
        worker.start()
    start.wait()
    began, server_began = time.perf_counter(), _server_cpu(server)
    reports = [out.get(timeout=900) for _ in workers]
    wall = time.perf_counter() - began
    for worker in workers:
        worker.join(timeout=60)
    server_end = _server_cpu(server)  # the writers' backends have exited (or are exiting)
    latencies = [x for r in reports for x in r["latencies"]]
    errors = sum(int(r["errors"]) for r in reports)
    why = sorted({k for r in reports for k in r["why"]})
    check = _service(url, **options)
    try:
        stored = sum(check.store.count_actions(g) for g in {g[0] for gs in plan for g in gs})
    finally:
        check.store.close()
    server_cpu = (None if server_began is None or server_end is None
                  else 1000 * (server_end - server_began) / max(len(latencies), 1))
    return {"p50": 1000 * percentile(latencies, 0.5), "p95": 1000 * percentile(latencies, 0.95),
            "rate": stored / wall, "errors": errors, "stored": stored,
            "cpu": 1000 * sum(float(r["cpu"]) for r in reports) / max(len(latencies), 1),
            "server_cpu": server_cpu, "why": ", ".join(why)}


def ceiling(cores: int, rate: float, client_ms: float, server_ms: float) -> float:
    """The most the peak throughput over writer counts can be, as a multiple of one
    writer's (``rate`` orders/s), when each order costs ``client_ms`` of the writer's CPU
    and ``server_ms`` of the server's and ``cores`` share them: cores x the one writer's
    wall per order / its CPU per order."""
    return cores * (1000 / max(rate, 1e-9)) / max(client_ms + server_ms, 1e-9)


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


def _with_option(url: str, option: str) -> str:
    """``url`` with a server setting added to its ``options`` (``-c name=value``)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query)
    given = " ".join(v for k, v in query if k == "options")
    rest = [(k, v) for k, v in query if k != "options"]
    return urlunsplit(parts._replace(query=urlencode(
        [*rest, ("options", f"{given} {option}".strip())], quote_via=quote)))


def _round_trips(url: str, options: dict[str, Any], script: Script, count: int = 20
                 ) -> tuple[float, float]:
    """Statements (round trips) of one submit, p50 and max, over ``count`` orders of the
    script on a new game, as the store counts them."""
    service = _service(url, **options)
    try:
        ((game_id, players, _first),) = _new_games(service, 1, f"rt-{uuid.uuid4().hex[:6]}")
        spent = []
        for position, (side, text) in enumerate(script[:count]):
            before = service.store.round_trips
            service.submit(game_id, players[side], text, f"{game_id}-{position}")
            spent.append(float(service.store.round_trips - before))
    finally:
        service.store.close()
    return percentile(spent, 0.5), max(spent)


def _server_fsync(url: str) -> str:
    import psycopg

    from bot.store.postgres import split_url

    with psycopg.connect(split_url(url)[0], autocommit=True) as conn:
        row = conn.execute("SHOW fsync").fetchone()
    return str(row[0]) if row else "?"


def run(actions: int = 60, out: Out = print, db: str | None = None) -> dict[str, Any]:
    """``actions``: orders each writer process submits (per round)."""
    orders = max(4, min(actions, 400))
    counts = COUNTS if orders >= 20 else COUNTS[:2]  # a smoke run: 1 and 2 writers
    script = _script(orders + 2)
    out(f"the script: {len(script)} orders of a seeded Turning Point: Stalingrad game "
        f"({', '.join(sorted({t.split()[0] for _s, t in script}))})")
    results: dict[str, dict[str, dict[int, dict[str, Any]]]] = {}
    trips: dict[str, tuple[float, float]] = {}
    shared: dict[str, dict[str, Any]] = {}
    server: int | None = None
    with tempfile.TemporaryDirectory() as folder, _pg_schema(db) if db else _nothing() as pg:
        if pg:
            server = _server_pid(pg)
            out(f"postgresql server: fsync={_server_fsync(pg)}; its CPU "
                + ("read from /proc" if server else "not measured (not on this machine)"))
        for durability, synchronous, commit in DURABILITY:
            backends: dict[str, tuple[str, dict[str, Any]]] = {
                "sqlite": (f"sqlite://{Path(folder) / f'writers-{synchronous}.db'}",
                           {"synchronous": synchronous})}
            if pg:
                backends["postgresql"] = (
                    _with_option(pg, f"-c synchronous_commit={commit}"), {})
            for name, (url, options) in backends.items():
                _service(url, **options).store.close()  # the schema, before the writers
                rounds = results.setdefault(durability, {}).setdefault(name, {})
                for count in counts:
                    rounds[count] = _round(url, count, orders, script, options,
                                           server=server if name == "postgresql" else None)
                trips.setdefault(name, _round_trips(url, options, script))
                out(f"{name}, {durability}: measured {len(counts)} rounds of {orders} "
                    "orders per process")
        if pg:
            for lock in ("advisory", "row"):
                shared[lock] = _round(_with_lock(pg, lock), 4, max(2, orders // 2), script,
                                      {}, shared=True)
    closing = Figures()
    for durability, by_backend in results.items():
        names = list(by_backend)
        out("")
        out(f"{durability}:")
        out("writers  " + "".join(f"| {n:^45} " for n in names))
        out("         " + "".join("| p50 ms   p95 ms  actions/s  errors  CPU ms " for _ in names))
        for count in counts:
            out(f"{count:>7}  " + "".join(
                f"| {by_backend[n][count]['p50']:6.1f}  {by_backend[n][count]['p95']:7.1f}  "
                f"{by_backend[n][count]['rate']:9.1f}  {int(by_backend[n][count]['errors']):6d} "
                f" {by_backend[n][count]['cpu']:6.1f} "
                for n in names))
        out("(CPU ms: the writer processes' own CPU per order, the service's reads included; "
            "the database server's is not)")
        cores = len(os.sched_getaffinity(0))
        for name in names:
            one = by_backend[name][1]
            if one.get("server_cpu") is None:
                continue
            server_ms = [f"{by_backend[name][c]['server_cpu']:.1f}" for c in counts]
            limit = ceiling(cores, one["rate"], one["cpu"], one["server_cpu"])
            best = max(counts, key=lambda c: by_backend[name][c]["rate"])
            top = by_backend[name][best]
            used = top["rate"] * (top["cpu"] + top["server_cpu"]) / 1000
            out(f"{name} server CPU ms per order at {', '.join(map(str, counts))} writers: "
                f"{', '.join(server_ms)}; ceiling of the peak over one writer's: {cores} cores "
                f"x {1000 / max(one['rate'], 1e-9):.1f} ms wall per order / "
                f"({one['cpu']:.1f} client + {one['server_cpu']:.1f} server ms CPU) = "
                f"{limit:.2f}x (measured {top['rate'] / max(one['rate'], 1e-9):.2f}x, at "
                f"{best} writers, whose orders used {used:.2f} of the {cores} cores: the rest "
                "went to other processes)")
            closing.add(f"{name} peak throughput ceiling on {cores} cores / one writer's "
                        f"({durability})", limit, None, "x")
        for name in names:
            for count in counts:
                if by_backend[name][count]["why"]:
                    out(f"{name}, {count} writers: errors were {by_backend[name][count]['why']}")
            worst = max(by_backend[name][c]["errors"] for c in counts)
            closing.add(f"{name} errors at any writer count ({durability})", worst, 0.0)
        if "postgresql" in by_backend:
            pg_rounds, lite = by_backend["postgresql"], by_backend["sqlite"]
            closing.add(f"postgresql submit p50 / sqlite's, one writer ({durability})",
                        pg_rounds[1]["p50"] / max(lite[1]["p50"], 1e-9), 2.0, "x")
            peak = max(pg_rounds[c]["rate"] for c in counts)
            closing.add(f"postgresql peak throughput / one writer's ({durability})",
                        peak / max(pg_rounds[1]["rate"], 1e-9), 3.0, "x", at_least=True)
            most = counts[-1]
            closing.add(f"postgresql p95 at {most} writers / sqlite p95 at 2 ({durability})",
                        pg_rounds[most]["p95"] / max(lite[2]["p95"], 1e-9), None, "x")
    if not db:
        out("(PostgreSQL not measured: give --db postgresql://USER@HOST/DB)")
    out("")
    for name, (p50, most) in trips.items():
        what = "round trips" if name == "postgresql" else "statements (no round trip)"
        out(f"one submit on {name}: {p50:.0f} {what} at p50, {most:.0f} at most")
        closing.add(f"{name} statements per submit p50", p50, None)
    for lock, figures in shared.items():
        out(f"postgresql, 4 writers on ONE game, {lock:>8} lock: p50 {figures['p50']:6.1f} ms  "
            f"p95 {figures['p95']:7.1f} ms  {figures['rate']:6.1f} actions/s  "
            f"{int(figures['errors'])} errors" + (f" ({figures['why']})" if figures['why'] else ""))
    closing.report(out)
    return {"writers": {d: {n: {str(c): v for c, v in r.items()} for n, r in b.items()}
                        for d, b in results.items()},
            "one_game": shared, "round_trips": trips}


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 60,
        db=sys.argv[2] if len(sys.argv) > 2 else None)
