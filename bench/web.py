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

Run: ``uv run umpire bench web`` (``--actions N``: orders in the timed run, default 60).
"""

from __future__ import annotations

import asyncio
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

from bench.common import Figures, Out  # noqa: E402

TARGET_UPDATE = 1.3
#: Seconds the bench waits for an event (a busy machine; it comes in milliseconds).
WAIT_S = 60.0
SETUP = ["hide pak75-1 0101", "hide pak75-2 0102", "hide flak88-1 0103",
         *(f"place {unit} 01{n:02d}" for n, unit in enumerate(
             ["flak88-2", "pak88-1", "pak88-2", *(f"infde-{i}" for i in range(1, 10))],
             start=4)), "done"]


def _game(service: Any, gm: Any, players: dict[str, Any]) -> str:
    game_id: str = service.create_game(gm, "tanks", "pakfront").id
    for side, actor in players.items():
        service.seat(game_id, gm, side, actor)
    service.start(game_id, gm)
    result = service.submit(game_id, players["german"], "\n".join(SETUP))
    assert result.status == "applied", result
    return game_id


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


async def _timed(actions: int, folder: Path, out: Out) -> tuple[list[float], list[float]]:
    import aiohttp

    import render
    from bot.service import Actor, GameService, default_dice
    from bot.store import Store
    from bot.web.app import WebServer
    from bot.web.settings import WebSettings

    def same_dice(seed: bytes, _game: str, branch: int, start: int) -> Any:
        return default_dice(seed, "bench", branch, start)  # both games roll alike

    service = GameService(Store(folder / "bench.db"), seed_source=lambda n: b"\x05" * n,
                          dice_factory=same_dice)
    gm = Actor.discord("1")
    players = {"german": Actor.discord("2"), "soviet": Actor.discord("3")}
    direct, paged = _game(service, gm, players), _game(service, gm, players)
    tokens = {side: service.issue_link(paged, actor).token for side, actor in players.items()}
    rules = service.rules(direct)
    pack = render.load_pack(rules.name, rules.pack)
    many = (1e6, 1e6)
    server = WebServer(service, WebSettings(port=0, per_link=many, per_address=many,
                                            submits=many, poll=0.05))
    port = await server.start()
    base = f"http://127.0.0.1:{port}"
    rnd = random.Random(7)
    ratios: list[float] = []
    loads: list[float] = []
    times: list[tuple[float, float]] = []
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
                info = service.info(direct)
                side = info.to_act
                if info.status != "active" or side is None:
                    out(f"  the game ended after {number} actions")
                    break
                orders = service.legal_orders(direct, players[side], side)
                if not orders:
                    break
                order = rnd.choice(orders)
                other = next(s for s in tokens if s != side)
                seq = service.info(paged).head_seq

                def direct_submit(actor: Any = players[side], order: str = order
                                  ) -> tuple[Any, float]:
                    started = time.perf_counter()
                    result = service.submit(direct, actor, order)
                    return result, time.perf_counter() - started

                async def paged_submit(token: str = tokens[side], key: str = csrf[side],
                                       body: dict[str, str] = {"text": order,  # noqa: B006
                                                               "key": f"b{number}"},
                                       told_to: Any = queues[other], seq: int = seq
                                       ) -> tuple[dict[str, Any], float]:
                    started = time.perf_counter()
                    async with http.post(f"{base}/s/{token}/api/submit", json=body,
                                         headers={"X-CSRF-Token": key}) as response:
                        answer = await response.json()
                    told = (await _next_seq(told_to, seq + len(answer["seqs"]))
                            if answer["seqs"] else time.perf_counter())
                    return answer, told - started

                # in turn first and second: what one warms for the other evens out
                if number % 2:
                    (answer, update), (result, pipeline) = await paged_submit(), direct_submit()
                else:
                    (result, pipeline), (answer, update) = direct_submit(), await paged_submit()
                assert answer["status"] == result.status, (answer, result)
                if not result.seqs:
                    continue
                ratios.append(update / pipeline)
                times.append((pipeline, update))
                if number % 5 == 0:
                    loads.append(await _page_load(http, base, tokens[other], service, direct,
                                                  players[other], other, pack))
            for reader in readers:
                reader.cancel()
    finally:
        await server.stop()
        service.store.close()
    if times:
        out(f"  submit p50 {statistics.median(t[0] for t in times) * 1000:.1f} ms, update "
            f"p50 {statistics.median(t[1] for t in times) * 1000:.1f} ms")
    return ratios, loads


async def _page_load(http: Any, base: str, token: str, service: Any, game_id: str,
                     actor: Any, side: str, pack: Any) -> float:
    """The other seat's page load (HTML, state, map picture) over the service's View and
    picture of the same position."""
    import render

    started = time.perf_counter()
    for path in ("", "/api/state", "/api/map.png"):
        async with http.get(f"{base}/s/{token}{path}") as response:
            await response.read()
            assert response.status == 200, path
    page = time.perf_counter() - started
    started = time.perf_counter()
    render.render(service.view(game_id, actor, side), pack)
    return page / (time.perf_counter() - started)


def run(actions: int = 60, out: Out = print) -> dict[str, float]:
    figures = Figures()
    with tempfile.TemporaryDirectory(prefix="umpire-bench-web-") as folder:
        ratios, loads = asyncio.run(_timed(max(2, actions), Path(folder), out))
    if not ratios:
        raise RuntimeError("no action was timed")
    out(f"update    {len(ratios)} orders: POST -> the other seat's event over the same "
        "order's submit")
    out(f"  ratio p50 {statistics.median(ratios):.2f}, max {max(ratios):.2f}")
    if loads:
        out(f"page load {len(loads)} loads (HTML, state, picture) over the service's View and "
            f"picture: p50 {statistics.median(loads):.2f}")
    figures.add("web update / submit (p50)", statistics.median(ratios), TARGET_UPDATE, "x")
    if loads:
        figures.add("web page load / view + picture (p50)", statistics.median(loads),
                    None, "x")
    figures.report(out)
    return figures.as_dict()


if __name__ == "__main__":
    run()
