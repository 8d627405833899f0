"""``umpire bench web``: the web page per seat (issue 25) against the service it serves.

Two Stalin's Tanks Pakfront games on one service (SQLite in a temporary folder), with the
same dice seed and the same hidden set-up, are played in lockstep with the same seeded
random orders: each order is given in the first game by ``GameService.submit`` (the
service's own pipeline for that action) and in the second through the page — a real HTTP
server on loopback (``bot.web.app.WebServer``), the acting seat's ``POST api/submit`` — while
the other seat's page listens on its event stream. Per action:

* ``update``: from the POST sent to the other seat's ``event: seq`` received, over the same
  order's ``submit`` in the first game (target: median <= 1.3);
* every fifth action, ``page load``: the other seat's page as a browser loads it (the HTML,
  the state JSON, the map picture of the new position) over what the service does for the
  same (its View of that seat and the picture drawn from it), no target.

Then the server under a burst (issue 26, the targets of ``bench discord``: ``bench.bursts``):
20 such pairs of games, both seats' pages of each paged game open; each round every seat to
act POSTs one order, all at once. Per order: POST -> its answer (the first response: an
order is answered once stored), POST -> the other seat's event divided by the twin games'
``submit`` p95 times the place of its answer in the burst, and the server's loop lag.

The server, with its service, runs in a process of its own (``python bench/web.py --serve
FOLDER``, driven over a pipe: one JSON line a request), as a user's browser is another
process: the page's client (aiohttp, here) neither shares the server's event loop nor its
interpreter. The first game's ``submit`` is timed in that process, on the same service, so
the ratio compares the two paths of one service. The earlier reading — the server in the
bench's own process and loop, beside its client — is played too and printed without a
target (docs/performance.md, "The web page's update, round 5").

Run: ``uv run umpire bench web`` (``--actions N``: orders in each timed run, default 60).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:  # as a script, bench/ must not hide the packages
    sys.path.insert(0, str(ROOT))

from bench.bursts import LagProbe, Queue, burst_quotients, place_rows, report  # noqa: E402
from bench.common import Figures, Out, percentile  # noqa: E402

TARGET_UPDATE = 1.3
#: Games of the burst (issue 26: as the mail gateway's burst), one order each at once.
BURST_TABLES = 20
#: Seconds the bench waits for an event or an answer (a busy machine; they come in ms).
WAIT_S = 60.0
SETUP = ["hide pak75-1 0101", "hide pak75-2 0102", "hide flak88-1 0103",
         *(f"place {unit} 01{n:02d}" for n, unit in enumerate(
             ["flak88-2", "pak88-1", "pak88-2", *(f"infde-{i}" for i in range(1, 10))],
             start=4)), "done"]
JSON = dict[str, Any]


class Lockstep:
    """The two games on one service and the server's settings (in whichever process runs
    the server): ``direct`` played by ``submit``, ``paged`` through the page."""

    def __init__(self, folder: Path, tables: int = 1) -> None:
        import render
        from bot.service import Actor, GameService, default_dice
        from bot.store import Store
        from bot.web.settings import WebSettings

        def same_dice(seed: bytes, _game: str, branch: int, start: int) -> Any:
            return default_dice(seed, "bench", branch, start)  # both games roll alike

        self.service = service = GameService(Store(folder / "bench.db"),
                                             seed_source=lambda n: b"\x05" * n,
                                             dice_factory=same_dice)
        gm = Actor.discord("1")
        self.players = {"german": Actor.discord("2"), "soviet": Actor.discord("3")}
        #: (direct, paged) games per table; the first table is ``direct`` and ``paged``.
        self.pairs = [(self._game(gm), self._game(gm)) for _ in range(tables)]
        self.direct, self.paged = self.pairs[0]
        #: Each table's paged game's links by side; the first table's are ``tokens``.
        self.links = [{side: service.issue_link(paged, actor).token
                       for side, actor in self.players.items()} for _, paged in self.pairs]
        self.tokens = self.links[0]
        self.probe: LagProbe | None = None
        rules = service.rules(self.direct)
        self.pack = render.load_pack(rules.name, rules.pack)
        many = (1e6, 1e6)
        self.settings = WebSettings(port=0, per_link=many, per_address=many, submits=many,
                                    poll=0.05)

    def _game(self, gm: Any) -> str:
        service = self.service
        game_id: str = service.create_game(gm, "tanks", "pakfront").id
        for side, actor in self.players.items():
            service.seat(game_id, gm, side, actor)
        service.start(game_id, gm)
        result = service.submit(game_id, self.players["german"], "\n".join(SETUP))
        assert result.status == "applied", result
        return game_id

    def turn(self, table: int = 0) -> JSON | None:
        """The side to act in the table's first game, its legal orders, the second game's
        head sequence; None once the game is over."""
        service = self.service
        direct, paged = self.pairs[table]
        info = service.info(direct)
        side = info.to_act
        if info.status != "active" or side is None:
            return None
        return {"side": side, "seq": service.info(paged).head_seq,
                "orders": service.legal_orders(direct, self.players[side], side)}

    def turns(self) -> list[JSON | None]:
        """:meth:`turn` of every table."""
        return [self.turn(table) for table in range(len(self.pairs))]

    def submit(self, side: str, order: str, table: int = 0) -> JSON:
        """``order`` by ``submit`` in the table's first game: its outcome, wall and CPU
        seconds."""
        cpu, started = time.thread_time(), time.perf_counter()
        result = self.service.submit(self.pairs[table][0], self.players[side], order)
        return {"seconds": time.perf_counter() - started, "cpu": time.thread_time() - cpu,
                "status": result.status, "seqs": result.seqs}

    def draw(self, side: str) -> float:
        """Seconds of the service's View of ``side`` and its picture (the page load's
        denominator)."""
        import render

        service, started = self.service, time.perf_counter()
        render.render(service.view(self.direct, self.players[side], side), self.pack)
        return time.perf_counter() - started

    def cpu(self) -> float:
        """This process's CPU seconds so far."""
        return time.process_time()

    def lag_start(self) -> None:
        """Start timing how late this process's event loop wakes (a burst begins)."""
        self.probe = LagProbe()
        self.probe.start()
        self.probe.running = True

    def lag_stop(self) -> list[float]:
        """Stop it: the lags seen since :meth:`lag_start`, in seconds."""
        assert self.probe is not None and self.probe.task is not None
        self.probe.running = False
        self.probe.task.cancel()
        return self.probe.lags


class Server:
    """The server's side, in this process (the earlier reading: the bench's own process
    settings, as before) or another (:class:`Apart`): start it, ask its games, stop it. In
    this process every call runs on the loop's thread, as the child runs them on its own."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.games: Lockstep | None = None
        self.server: Any = None

    async def start(self) -> tuple[int, dict[str, str]]:
        from bot.web.app import WebServer

        self.games = games = Lockstep(self.folder)
        self.server = WebServer(games.service, games.settings)
        return await self.server.start(), games.tokens

    async def call(self, op: str, **args: Any) -> Any:
        assert self.games is not None
        return getattr(self.games, op)(**args)

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop()
        if self.games is not None:
            self.games.service.store.close()


class Apart(Server):
    """The server and its games in a child process (``bench/web.py --serve FOLDER``)."""

    def __init__(self, folder: Path, tables: int = 1) -> None:
        super().__init__(folder)
        self.tables = tables
        self.process: asyncio.subprocess.Process | None = None
        #: The process the server runs in (0 until started).
        self.pid = 0
        #: Each table's links by side (set once started).
        self.links: list[dict[str, str]] = []

    async def start(self) -> tuple[int, dict[str, str]]:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, str(Path(__file__).resolve()), "--serve", str(self.folder),
            str(self.tables), cwd=str(ROOT), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, limit=16 * 1024 * 1024)
        started = await self._answer()
        self.pid = int(started["pid"])
        self.links = [dict(links) for links in started["links"]]
        return int(started["port"]), dict(started["tokens"])

    async def _answer(self) -> Any:
        assert self.process is not None and self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), WAIT_S)
        if not line:
            raise RuntimeError("the web server's process ended")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"the web server's process: {reply['error']}")
        return reply["result"]

    async def call(self, op: str, **args: Any) -> Any:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(json.dumps({"op": op, "args": args}).encode() + b"\n")
        return await self._answer()

    async def stop(self) -> None:
        if self.process is None:
            return
        if self.process.stdin is not None:
            self.process.stdin.close()  # the child stops its server and ends
        try:
            await asyncio.wait_for(self.process.wait(), WAIT_S)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


async def serve(folder: Path, tables: int = 1) -> None:
    """The child's main: the games, the server as ``umpire web`` runs it
    (:func:`bot.web.app.serve`: its process settings too), then one answer per request line
    on stdin (:class:`Lockstep` calls, run on the loop's thread) until stdin closes."""
    from bot.web.app import serve as umpire_web

    loop = asyncio.get_running_loop()
    out = sys.stdout.buffer

    def reply(answer: JSON) -> None:
        out.write(json.dumps(answer).encode() + b"\n")
        out.flush()

    stop, listening = asyncio.Event(), loop.create_future()
    try:
        games = Lockstep(folder, tables)
        serving = asyncio.create_task(umpire_web(games.service, games.settings, stop,
                                                 started=listening.set_result))
        await asyncio.wait_for(asyncio.shield(listening), WAIT_S)
    except Exception as error:  # the parent raises it
        reply({"error": f"{type(error).__name__}: {error}"})
        raise
    reply({"result": {"port": listening.result(), "tokens": games.tokens,
                      "links": games.links, "pid": os.getpid()}})
    reader = asyncio.StreamReader(limit=16 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    try:
        while line := await reader.readline():  # until the parent closes the pipe
            request = json.loads(line)
            try:
                reply({"result": getattr(games, request["op"])(**request["args"])})
            except Exception as error:
                reply({"error": f"{type(error).__name__}: {error}"})
    finally:
        stop.set()
        await serving
        games.service.store.close()


class Reading:
    """One timed run's figures: update ÷ submit per order, page loads, and the times (a
    plain class: ``umpire bench`` loads this file as a module of no package, which a
    dataclass cannot be made in)."""

    def __init__(self) -> None:
        self.ratios: list[float] = []
        self.loads: list[float] = []
        self.times: list[tuple[float, float]] = []
        #: CPU seconds per update of the server's process and of the client (apart only),
        #: and of the first game's submit.
        self.server_cpu: list[float] = []
        self.client_cpu: list[float] = []
        self.submit_cpu: list[float] = []

    def summary(self) -> str:
        median = statistics.median
        text = (f"submit p50 {median(t[0] for t in self.times) * 1000:.1f} ms, update p50 "
                f"{median(t[1] for t in self.times) * 1000:.1f} ms")
        if self.server_cpu:
            text += (f"; CPU per update p50: the server's process "
                     f"{median(self.server_cpu) * 1000:.2f} ms (its submit "
                     f"{median(self.submit_cpu) * 1000:.2f} ms), the client "
                     f"{median(self.client_cpu) * 1000:.2f} ms")
        return text


async def _stream(http: Any, url: str, seen: asyncio.Queue[tuple[int, float]]) -> None:
    """Put (seq, time received) of each ``event: seq`` of the stream at ``url``."""
    async with http.get(url) as response:
        name = ""
        async for raw in response.content:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: ") and name == "seq":
                seen.put_nowait((int(line.split(":")[-1].strip(" }")), time.perf_counter()))


async def _next_seq(seen: asyncio.Queue[tuple[int, float]], seq: int) -> float:
    while True:
        got, when = await asyncio.wait_for(seen.get(), WAIT_S)
        if got >= seq:
            return when


async def _timed(actions: int, server: Server, out: Out) -> Reading:
    """Play ``actions`` orders in lockstep through ``server``'s games and the page."""
    import aiohttp

    apart = isinstance(server, Apart)
    port, tokens = await server.start()
    base = f"http://127.0.0.1:{port}"
    rnd = random.Random(7)
    reading = Reading()
    try:
        async with aiohttp.ClientSession() as http:
            csrf = {}
            queues: dict[str, asyncio.Queue[tuple[int, float]]] = {}
            readers = []
            for side, token in tokens.items():
                async with http.get(f"{base}/s/{token}/api/state") as response:
                    csrf[side] = (await response.json())["csrf"]
                queues[side] = asyncio.Queue()
                readers.append(asyncio.create_task(
                    _stream(http, f"{base}/s/{token}/events", queues[side])))
            for side in tokens:  # each stream's first event: the current action
                await _next_seq(queues[side], 0)
            for number in range(actions):
                turn = await server.call("turn")
                if turn is None or not turn["orders"]:
                    out(f"  the game ended after {number} actions")
                    break
                side, order = turn["side"], rnd.choice(turn["orders"])
                other = next(s for s in tokens if s != side)

                async def paged_submit(token: str = tokens[side], key: str = csrf[side],
                                       body: dict[str, str] = {"text": order,  # noqa: B006
                                                               "key": f"b{number}"},
                                       told_to: Any = queues[other], seq: int = turn["seq"]
                                       ) -> tuple[JSON, float, float, float]:
                    server_cpu = await server.call("cpu") if apart else 0.0
                    cpu, started = time.thread_time(), time.perf_counter()
                    async with http.post(f"{base}/s/{token}/api/submit", json=body,
                                         headers={"X-CSRF-Token": key}) as response:
                        answer = await response.json()
                    told = (await _next_seq(told_to, seq + len(answer["seqs"]))
                            if answer["seqs"] else time.perf_counter())
                    cpu = time.thread_time() - cpu
                    if apart:
                        server_cpu = await server.call("cpu") - server_cpu
                    return answer, told - started, cpu, server_cpu

                # in turn first and second: what one warms for the other evens out
                if number % 2:
                    (answer, update, client_cpu, server_cpu) = await paged_submit()
                    result = await server.call("submit", side=side, order=order)
                else:
                    result = await server.call("submit", side=side, order=order)
                    (answer, update, client_cpu, server_cpu) = await paged_submit()
                assert answer["status"] == result["status"], (answer, result)
                if not result["seqs"]:
                    continue
                reading.ratios.append(update / result["seconds"])
                reading.times.append((result["seconds"], update))
                if apart:
                    reading.server_cpu.append(server_cpu)
                    reading.client_cpu.append(client_cpu)
                    reading.submit_cpu.append(result["cpu"])
                if number % 5 == 0:
                    reading.loads.append(await _page_load(http, base, tokens[other],
                                                          server, other))
            for reader in readers:
                reader.cancel()
    finally:
        await server.stop()
    if reading.times:
        out(f"  {reading.summary()}")
    return reading


async def _page_load(http: Any, base: str, token: str, server: Server, side: str) -> float:
    """The other seat's page load (HTML, state, map picture) over the service's View and
    picture of the same position."""
    started = time.perf_counter()
    for path in ("", "/api/state", "/api/map.png"):
        async with http.get(f"{base}/s/{token}{path}") as response:
            await response.read()
            assert response.status == 200, path
    page = time.perf_counter() - started
    drawn: float = await server.call("draw", side=side)
    return page / drawn


class BurstReading:
    """The burst's figures (issue 26): per order POSTed, its answer and the other seat's
    event, seconds after the POST was sent; the same orders' ``submit`` in the twin games
    (the denominator); the server's loop lag during the bursts."""

    def __init__(self) -> None:
        self.first: list[float] = []
        self.follow: list[float] = []
        self.bursts: list[Queue] = []  # each burst's events: the quotients, the places
        self.submits: list[float] = []
        self.lag: list[float] = []
        self.orders = 0
        #: The twin games' submit p95, seconds (the quotients' denominator).
        self.cost = 0.0


async def _burst(tables: int, rounds: int, folder: Path) -> BurstReading:
    """``rounds`` bursts over ``tables`` paged games at once: each round, every table's
    seat to act POSTs one seeded random legal order, all sent together, while the other
    seat's page listens. Then the same orders are given by ``submit`` to the twin games
    (their wall time, one at a time: the pipeline of a web order) and each follow-up is
    divided by the sum of that p95 over the orders answered before it and itself (the
    server answers a POST once the order is stored: the answer's place is its place in the
    server's queue)."""
    import aiohttp

    server = Apart(folder, tables)
    port, _ = await server.start()
    base = f"http://127.0.0.1:{port}"
    rnd = random.Random(26)
    reading = BurstReading()
    queued: list[list[tuple[float, float]]] = []  # per burst: (answered, follow-up)
    try:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
            csrf: list[dict[str, str]] = []
            queues: list[dict[str, asyncio.Queue[tuple[int, float]]]] = []
            readers = []
            for links in server.links:
                csrf.append({})
                queues.append({})
                for side, token in links.items():
                    async with http.get(f"{base}/s/{token}/api/state") as response:
                        csrf[-1][side] = (await response.json())["csrf"]
                    queues[-1][side] = asyncio.Queue()
                    readers.append(asyncio.create_task(
                        _stream(http, f"{base}/s/{token}/events", queues[-1][side])))
            for table in queues:  # each stream's first event: the current action
                for queue in table.values():
                    await _next_seq(queue, 0)
            for number in range(rounds):
                planned = [(table, turn["side"], rnd.choice(turn["orders"]), turn["seq"])
                           for table, turn in enumerate(await server.call("turns"))
                           if turn is not None and turn["orders"]]
                if not planned:
                    break

                async def post(table: int, side: str, order: str, seq: int,
                               key: str = f"burst{number}"
                               ) -> tuple[JSON, float, float, float]:
                    other = next(s for s in queues[table] if s != side)
                    started = time.perf_counter()
                    async with http.post(
                            f"{base}/s/{server.links[table][side]}/api/submit",
                            json={"text": order, "key": key},
                            headers={"X-CSRF-Token": csrf[table][side]}) as response:
                        answer = await response.json()
                    answered = time.perf_counter()
                    told = (await _next_seq(queues[table][other], seq + len(answer["seqs"]))
                            if answer["seqs"] else answered)
                    return answer, started, answered, told

                await server.call("lag_start")
                posted = await asyncio.gather(*(post(*item) for item in planned))
                reading.lag.extend(await server.call("lag_stop"))
                burst = []
                for (table, side, order, _), (answer, started, answered, told) in zip(
                        planned, posted, strict=True):
                    twin = await server.call("submit", side=side, order=order, table=table)
                    assert answer["status"] == twin["status"], (answer, twin)
                    reading.orders += 1
                    reading.first.append(answered - started)
                    if answer["seqs"]:
                        reading.submits.append(twin["seconds"])
                        reading.follow.append(told - started)
                        burst.append((answered, told - started))
                queued.append(burst)
            for reader in readers:
                reader.cancel()
    finally:
        await server.stop()
    reading.cost = percentile(reading.submits, 0.95)
    reading.bursts = [[(answered, reading.cost, took) for answered, took in burst]
                      for burst in queued]
    return reading


def _burst_figures(reading: BurstReading, tables: int, figures: Figures, out: Out) -> None:
    out(f"burst     {tables} games at once, {reading.orders} orders POSTed in bursts; the "
        f"same orders' submit p95 (wall, the server's process) {1000 * reading.cost:.1f} ms")

    report(out, figures, "web burst", ("POST -> its answer (the first response)", reading.first),
           ("POST -> the other seat's event", reading.follow),
           ("event / (submit p95 x queue place)", burst_quotients(reading.bursts)),
           ("the server's event loop lag, bursts", reading.lag))
    place_rows(out, reading.bursts)


def run(actions: int = 60, out: Out = print) -> dict[str, float]:
    figures = Figures()
    actions = max(2, actions)
    readings = {}
    for name, kind in (("apart", Apart), ("in one process", Server)):
        out("the server in a process of its own" if kind is Apart else
            "the server in the bench's process, beside its client (the earlier reading)")
        with tempfile.TemporaryDirectory(prefix="umpire-bench-web-") as folder:
            readings[name] = asyncio.run(_timed(actions, kind(Path(folder)), out))
        if not readings[name].ratios:
            raise RuntimeError("no action was timed")
    reading, shared = readings["apart"], readings["in one process"]
    out(f"update    {len(reading.ratios)} orders: POST -> the other seat's event over the "
        "same order's submit")
    out(f"  ratio p50 {statistics.median(reading.ratios):.2f}, max {max(reading.ratios):.2f}"
        f"; in one process: p50 {statistics.median(shared.ratios):.2f}")
    if reading.loads:
        out(f"page load {len(reading.loads)} loads (HTML, state, picture) over the service's "
            f"View and picture: p50 {statistics.median(reading.loads):.2f}")
    figures.add("web update / submit (p50)", statistics.median(reading.ratios),
                TARGET_UPDATE, "x")
    figures.add("web update / submit, server in the bench's process (p50)",
                statistics.median(shared.ratios), None, "x")
    if reading.loads:
        figures.add("web page load / view + picture (p50)", statistics.median(reading.loads),
                    None, "x")
    tables = max(2, min(BURST_TABLES, actions))
    out(f"the server under a burst: {tables} games, their seats' pages all open")
    with tempfile.TemporaryDirectory(prefix="umpire-bench-web-") as folder:
        burst = asyncio.run(_burst(tables, max(1, 2 * actions // tables), Path(folder)))
    _burst_figures(burst, tables, figures, out)
    figures.report(out)
    return figures.as_dict()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        asyncio.run(serve(Path(sys.argv[2]), int(sys.argv[3]) if sys.argv[3:] else 1))
    else:
        run()
