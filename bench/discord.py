"""``umpire bench discord``: the bot under a burst of interactions.

Umpire's real bot (``bot.discord.core``, the real discord.py client) runs against the local
fake Discord of the tests (``tests.fakediscord``: REST and gateway on 127.0.0.1, in a process
of its own, ``tests.fakediscord.apart``: Discord's servers are not the bot's process's work),
with the service on a SQLite store in a temporary folder, its pictures drawn and its
autocomplete's listings made in worker processes as ``umpire bot`` has them by default
(``bot.offload``).
Set-up (not timed): ``--actions``/10 Turning Point: Stalingrad games (default 50), each
opened in Discord by a GM, joined by two players and started (``/game new``, ``/game
join``, ``/game start``).

Then ``--actions`` interactions (default 500) in bursts: in each burst every game gets one
interaction, all sent at once — an order of the side to act (``/order``, from the legal
orders listed before the burst), the answer to a decision owed (``/decide``), the public map
(``/game map``) or an autocomplete of ``/order``'s text, chosen at random (seeded).
For each interaction it measures (wall clock, the loop's own):

* interaction → first response (the acknowledgement or defer Discord must get within 3 s);
* interaction → follow-up: the bot done with it, its picture posted (orders, decisions and
  maps; an autocomplete has no follow-up);
* the event loop's lag during the bursts: a ticker asks to wake every 10 ms and records how
  late it woke (rendering and the store run in threads, off the loop).

Targets (issue 26): first response p99 <= 1 s; the event loop's lag p99 <= 50 ms; the
follow-up p95 <= 1.5x "the pipeline's p95 for the same orders, summed over what was queued
before it". The pipeline's p95 is ``bench pipeline``'s (wall, measured in the same run on TP:S
orders) by kind: an order or a decision is submit + View + picture, a map View + picture, an
autocomplete none. What was queued before a follow-up is read in the order the bot
acknowledged its burst's interactions (the order of its gate, ``bot.discord.gate``), itself
included: each follow-up is divided by the sum of those p95s, and the p95 of that quotient
is the figure.
Under the burst's rows, the follow-ups by their place in the burst (``bench.bursts
.place_rows``): where, from the head of a burst to its tail, the quotient is missed.

Run: ``uv run umpire bench discord`` (``--actions N``: interactions; games = N/10).
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:  # as a script, bench/ must not hide the packages
    sys.path.insert(0, str(ROOT))

from bench.bursts import (  # noqa: E402
    TICK_S,
    LagProbe,
    Queue,
    burst_quotients,
    place_rows,
    report,
    row,
)
from bench.common import Figures, Out, percentile  # noqa: E402


class Seat:
    """One game: its id, its Discord thread and its players by side. (Plain classes here:
    ``umpire bench`` loads this file as a module of no package, where dataclasses fail.)"""

    def __init__(self, game_id: str, thread: Any, players: dict[str, Any]) -> None:
        self.game_id, self.thread, self.players = game_id, thread, players


class Samples:
    def __init__(self) -> None:
        self.first: list[float] = []
        self.follow: list[float] = []
        self.bursts: list[Queue] = []  # each burst's follow-ups: the quotients, the places
        self.lag: list[float] = []
        self.reference: list[float] = []
        self.kinds: dict[str, int] = {}
        self.without = 0  # follow-ups without a picture: a refused order, or no board change
        self.pictures = 0


#: The idle reference: an event loop of its own process doing nothing but the same ticks.
REFERENCE = """
import asyncio, json, sys, threading
lags, on = [], [False]
async def main():
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    def read():
        for line in sys.stdin:
            on[0] = line.strip() == "on"
        loop.call_soon_threadsafe(stop.set)
    threading.Thread(target=read, daemon=True).start()
    while not stop.is_set():
        asked = loop.time()
        await asyncio.sleep(TICK)
        if on[0]:
            lags.append(max(0.0, loop.time() - asked - TICK))
    print(json.dumps(lags))
asyncio.run(main())
""".replace("TICK", repr(TICK_S))


class ReferenceProbe:
    """The machine's own lag: an idle event loop in a process of its own, ticking as the
    LagProbe does during the same bursts. Its lag is the operating system's (other
    processes on the shared cores), not the bot's: printed beside the bot's, as context."""

    def __init__(self) -> None:
        import subprocess

        self.process = subprocess.Popen([sys.executable, "-c", REFERENCE], text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def running(self, on: bool) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("on\n" if on else "off\n")
        self.process.stdin.flush()

    def finish(self) -> list[float]:
        import json

        out, _ = self.process.communicate(timeout=60)
        return [float(lag) for lag in json.loads(out)]


def pipeline_p95(actions: int) -> dict[str, float]:
    """The pipeline's p95 (wall seconds) of TP:S orders, measured now (``bench.pipeline``),
    by what an interaction of each kind does: an order or a decision is submit + View + the
    posted picture; a map is the View + the picture (``/game map`` submits nothing)."""
    from bench.pipeline import bot_renderer, measure_game
    from bot.service import GameService
    from bot.store import Store

    with tempfile.TemporaryDirectory() as folder:
        service = GameService(Store(Path(folder) / "pipeline.db"))
        series = measure_game(service, "stalingrad", ["historical"], actions, bot_renderer())
        service.store.close()
    whole = percentile(series["pipeline_wall"], 0.95)
    drawn = percentile([whole - submit for whole, submit
                        in zip(series["pipeline_wall"], series["submit_wall"], strict=True)], 0.95)
    return {"order": whole, "decision": whole, "map": drawn}


async def send(remote: Any, client: Any, type_: int, user: int, channel: int,
               data: dict[str, Any], timeout: float, wait_done: bool = True
               ) -> tuple[int, float, float, float | None]:
    """Send one interaction through the fake Discord's process: its id, when Discord sent it,
    when its first response came, and when the bot was done with it (None: not waited
    for), all ``time.monotonic()`` (the loop's clock, the same in every process)."""
    loop = asyncio.get_running_loop()
    (iid,) = await remote.call("new_ids", count=1)

    async def finished() -> float:
        await client.wait_for("umpire_interaction_done", check=lambda i: i.id == iid,
                              timeout=timeout)
        return loop.time()

    done = loop.create_task(finished()) if wait_done else None
    times = await remote.call("interact", type_=type_, user=user, channel=channel, data=data,
                              iid=iid, timeout=timeout)
    return iid, times["sent"], times["responded"], None if done is None else await done


async def open_games(remote: Any, client: Any, count: int) -> list[Seat]:
    gm = await remote.call("add_user", name="gm", admin=True)
    seats = []

    async def slash(user: int, channel: int, path: str, **options: Any) -> None:
        data = await remote.call("command_data", path=path, options=options, channel=channel,
                                 user=user)
        await send(remote, client, 2, user, channel, data, 120.0)

    for number in range(count):
        players = {side: await remote.call("add_user", name=f"{side}{number}")
                   for side in ("german", "russian")}
        before = set(await remote.call("threads"))
        await slash(gm, remote.general, "game new", game="stalingrad", scenario="historical")
        (thread,) = [c for c in await remote.call("threads") if c not in before]
        for side, player in players.items():
            await slash(player, thread, "game join", side=side)
        await slash(gm, thread, "game start")
        seats.append(Seat(f"b{number}", thread, players))  # the bot's ``game_ids``, in turn
    return seats


def plan_burst(service: Any, seats: list[Seat], rnd: random.Random
               ) -> list[tuple[Seat, str, Any, str, dict[str, Any]]]:
    """(seat, kind, user, command path, options) of one interaction per game."""
    from bot.service import Actor

    planned = []
    for seat in seats:
        info = service.info(seat.game_id)
        side = info.to_act
        roll = rnd.random()
        if side is None or info.status != "active" or roll < 0.2:
            planned.append((seat, "map", seat.players["german"], "game map", {}))
            continue
        user = seat.players[side]
        if roll < 0.35:
            planned.append((seat, "autocomplete", user, "order", {"text": "mo"}))
            continue
        legal = service.legal_orders(seat.game_id, Actor.discord(user), side)
        decisions = [o for o in legal if o.startswith("decide")]
        busy = [o for o in legal if o not in ("done", "pass", "end")] or legal
        if decisions:
            planned.append((seat, "decision", user, "decide", {"answer": rnd.choice(decisions)}))
        elif busy:
            planned.append((seat, "order", user, "order", {"text": rnd.choice(busy)}))
        else:
            planned.append((seat, "map", user, "game map", {}))
    return planned


async def burst(remote: Any, client: Any,
                planned: list[tuple[Seat, str, Any, str, dict[str, Any]]],
                costs: dict[str, float], samples: Samples, timeout: float) -> None:
    """One burst, all sent at once. Each follow-up is then divided by what was queued
    before it, and itself, in the order the bot acknowledged them (the gate's order): the
    sum of each one's pipeline p95 by kind (``costs``; an autocomplete is no pipeline)."""
    queue: Queue = []  # (acknowledged, its p95, follow-up)

    async def one(seat: Seat, kind: str, user: int, path: str,
                  options: dict[str, Any]) -> None:
        focused = "text" if kind == "autocomplete" else None
        data = await remote.call("command_data", path=path, options=options,
                                 channel=seat.thread, user=user, focused=focused)
        before = await remote.call("messages_in", channel=seat.thread)
        iid, sent, responded, done = await send(remote, client, 4 if focused else 2, user,
                                           seat.thread, data, timeout, wait_done=not focused)
        samples.first.append(responded - sent)
        samples.kinds[kind] = samples.kinds.get(kind, 0) + 1
        if done is None:
            return
        samples.follow.append(done - sent)
        queue.append((responded, costs[kind], done - sent))
        if await remote.call("pictured", iid=iid, channel=seat.thread, before=before):
            samples.pictures += 1
        else:
            samples.without += 1  # refused, or nothing on the board changed (no new map)

    await asyncio.gather(*(one(*item) for item in planned))
    samples.bursts.append(queue)


async def measure(actions: int, costs: dict[str, float], out: Out) -> Samples:
    import pytest

    from bot.discord.app import create_bot
    from bot.discord.core import BotConfig
    from bot.discord.errors import Refusal
    from bot.offload import ListingPool, PicturePool
    from bot.runtime import tune_gc, tune_switching
    from bot.service import GameService, ServiceError
    from bot.store import Store
    from tests.fakediscord import run_client
    from tests.fakediscord.apart import FakeProcess

    games = max(2, actions // 10)
    # As ``umpire bot`` draws by default: half the CPUs' worker processes, warm (bot.offload).
    renderer = PicturePool(max(1, (os.cpu_count() or 2) // 2), games=("stalingrad",))
    renderer.warm()
    # As ``umpire bot`` lists by default: one warm listing worker (``--listing-processes``).
    lister = ListingPool(1, games=("stalingrad",))
    lister.warm()
    rounds = max(1, actions // games)
    samples = Samples()
    monkeypatch = pytest.MonkeyPatch()
    # Discord in a process of its own: its servers' work is not the bot's process's.
    remote = FakeProcess()
    await remote.start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            tune_gc()  # as ``umpire bot`` does once started (bot.runtime)
            tune_switching()
            store = Store(Path(folder) / "umpire.db")
            service = GameService(store, seed_source=lambda n: bytes([26]) * n,
                                  lister=lister)
            bot = create_bot(service, BotConfig(
                tick_seconds=0, guild_id=remote.guild_id, follow_seconds=0,
                game_ids=[f"b{n}" for n in range(games)]), renderer,
                guild_ready_timeout=0.05)
            try:
                async with run_client(remote, bot, bot.tree, monkeypatch,  # type: ignore[arg-type]
                                      expected=(Refusal, ServiceError)) as harness:
                    seats = await open_games(remote, bot, games)
                    out(f"{games} games opened, started and seated through the fake Discord")
                    rnd = random.Random(26)
                    probe = LagProbe()
                    probe.start()
                    reference = ReferenceProbe()
                    try:
                        for _ in range(rounds):
                            planned = await asyncio.to_thread(plan_burst, service, seats,
                                                              rnd)
                            probe.running = True
                            reference.running(True)
                            await burst(remote, bot, planned, costs, samples, timeout=300.0)
                            probe.running = False
                            reference.running(False)
                    finally:
                        samples.reference = reference.finish()
                    await probe.stop()
                    samples.lag = probe.lags
                    await remote.refresh()
                    harness.check()  # the bot raised nothing, Discord refused nothing
            finally:
                store.close()
    finally:
        await remote.stop()
        monkeypatch.undo()
        renderer.close()
        lister.close()
    return samples


def run(actions: int = 500, out: Out = print) -> dict[str, float]:
    from bot.discord.app import prepare_pictures

    prepare_pictures(["stalingrad"])  # as the bot starts (``umpire discord``)
    costs = pipeline_p95(max(20, min(actions // 5, 100)))
    samples = asyncio.run(measure(actions, costs, out))
    figures = Figures()
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(samples.kinds.items()))
    out(f"{len(samples.first)} interactions in bursts ({kinds}); {samples.pictures} follow-ups "
        f"with a picture, {samples.without} without one (a refused order, or a board that "
        "did not change: only a changed board is drawn)")
    out(f"pipeline p95 (TP:S, wall, this run): an order's submit + View + posted picture "
        f"{1000 * costs['order']:.1f} ms, a map's View + picture {1000 * costs['map']:.1f} ms")

    report(out, figures, "discord", ("interaction -> first response", samples.first),
           ("interaction -> follow-up with picture", samples.follow),
           ("follow-up / (pipeline p95 x queue place)", burst_quotients(samples.bursts)),
           ("event loop lag during the bursts", samples.lag))
    place_rows(out, samples.bursts)
    row(out, "an idle loop's lag, own process, same time", samples.reference)
    figures.add("discord follow-up p95", 1000 * percentile(samples.follow, 0.95), None, " ms")
    figures.add("discord an idle loop's lag p99 (the machine's, same time)",
                1000 * percentile(samples.reference, 0.99), None, " ms")
    figures.report(out)
    return figures.as_dict()


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
