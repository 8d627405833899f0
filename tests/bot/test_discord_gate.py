"""The gate after the acknowledgement (issue 26, docs/performance.md "The bot under a
burst"): under a burst every interaction is acknowledged at once (Discord's 3-second
deadline), and the work after it — the store, the picture, the follow-up — goes through
at most ``working_at_once`` at a time, in the order the interactions were acknowledged.

The bot runs against the fake Discord; its renderer holds every picture until released,
so the test sees who is drawing while the burst waits. Bounds are generous (busy machine).
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, cast

import pytest

from bot.discord.core import DONE_EVENT, UmpireBot
from bot.discord.inflight import RESTARTING
from bot.gate import Gate
from bot.service import Actor
from tests.fakediscord.harness import run_umpire, served
from tests.fakediscord.server import FakeDiscord

WAIT_S = 120.0
PNG = b"\x89PNG\r\n\x1a\n"


class HeldRenderer:
    """Draws nothing until released; counts the pictures being drawn at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, view: Any, pack: Path | None = None, /, **options: bool) -> bytes:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        self.entered.set()
        self.release.wait(WAIT_S)
        with self.lock:
            self.now -= 1
        return PNG


async def _wait_for(check: Any, what: str) -> None:
    """Wait (bounded, generously) until ``check()``; else fail saying ``what``."""
    try:
        async with asyncio.timeout(WAIT_S):
            while not check():
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(what) from None


@pytest.mark.parametrize("width", [1, 2])
async def test_a_burst_is_acknowledged_at_once_and_followed_up_in_arrival_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    """Five /game map at once: all five are acknowledged while the first picture is still
    being drawn (the defer is never behind the gate); no more than ``width`` pictures are
    drawn at once; the follow-ups end in the order the interactions came."""
    fake = FakeDiscord()
    ann = fake.add_user("ann")
    renderer = HeldRenderer()
    async with run_umpire(fake, tmp_path / "u.db", monkeypatch, renderer=renderer,
                          warm_pictures=False, working_at_once=width) as harness:
        service = served(harness)
        games = [f"gate{n}" for n in range(5)]
        for game in games:
            service.create_game(Actor.discord(ann.id), "tanks", game_id=game)
        channel = fake.add_channel("maps")
        finished: list[int] = []

        async def done_of(iid: int) -> None:
            await harness.client.wait_for(DONE_EVENT, check=lambda i: i.id == iid,
                                          timeout=WAIT_S)
            finished.append(iid)

        sent, waiting, records = [], [], []
        try:
            for game in games:
                iid = fake.new_id()
                waiting.append(asyncio.ensure_future(done_of(iid)))
                record = await fake.interact(2, ann, channel, fake.command_data(
                    "game map", {"game": game}, channel, ann), iid=iid)
                await asyncio.wait_for(record.responded.wait(), WAIT_S)  # acknowledged
                sent.append(iid)
                records.append(record)
            await _wait_for(renderer.entered.is_set, "no picture was drawn")
            assert finished == []  # every acknowledgement came while the first was drawing
            gate = cast(UmpireBot, harness.client).inflight.gate
            await _wait_for(lambda: gate.inside == width, "the gate did not fill")
            assert gate.waiting == len(games) - width
        finally:
            renderer.release.set()
        await asyncio.wait_for(asyncio.gather(*waiting), WAIT_S)
    assert renderer.most <= width
    if width == 1:
        assert finished == sent
    else:  # two at once: none ends before one sent two places before it
        assert all(sent.index(a) < sent.index(b) + width
                   for n, a in enumerate(finished) for b in finished[n + 1:])
    assert all(any(m.attachments for m in r.messages()) for r in records)


async def test_the_gate_admits_in_arrival_order_and_skips_who_gave_up() -> None:
    gate = Gate(1)
    await gate.enter(1)
    order: list[int] = []

    async def turn(key: int) -> None:
        await gate.enter(key)
        order.append(key)

    second, third, fourth = (asyncio.ensure_future(turn(k)) for k in (2, 3, 4))
    await asyncio.sleep(0)
    assert gate.waiting == 3
    third.cancel()
    await asyncio.sleep(0)
    gate.leave(1)
    await asyncio.wait_for(second, WAIT_S)
    assert order == [2] and gate.inside == 1
    gate.leave(99)  # holds no place: nothing changes
    assert not fourth.done()
    gate.leave(2)
    await asyncio.wait_for(fourth, WAIT_S)
    assert order == [2, 4]
    gate.leave(4)
    assert gate.inside == 0 and gate.waiting == 0
    with pytest.raises(ValueError):
        Gate(0)


async def test_a_place_is_left_when_its_block_ends_even_by_an_error() -> None:
    """``Gate.place`` (the web pages' orders use it): the next in line enters once the
    block before it ends, whether it returned or raised."""
    gate = Gate(1)
    with pytest.raises(RuntimeError):
        async with gate.place(1):
            assert gate.inside == 1
            raise RuntimeError("the work failed")
    assert gate.inside == 0
    async with gate.place(2):
        waiting = asyncio.ensure_future(gate.enter(3))
        await asyncio.sleep(0)
        assert gate.waiting == 1 and not waiting.done()
    await asyncio.wait_for(waiting, WAIT_S)
    assert gate.inside == 1
    gate.leave(3)


async def test_the_stop_answers_who_waits_at_the_gate_and_lets_none_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stop's drain (issue 24) answers "restarting" to the interaction drawing and to
    the one waiting its turn; the one waiting never starts its work afterwards."""
    fake = FakeDiscord()
    ann = fake.add_user("ann")
    renderer = HeldRenderer()
    async with run_umpire(fake, tmp_path / "u.db", monkeypatch, renderer=renderer,
                          warm_pictures=False, working_at_once=1) as harness:
        bot = cast(UmpireBot, harness.client)
        for game in ("stop0", "stop1"):
            served(harness).create_game(Actor.discord(ann.id), "tanks", game_id=game)
        channel = fake.add_channel("maps")
        records = []
        try:
            for game in ("stop0", "stop1"):
                record = await fake.interact(2, ann, channel, fake.command_data(
                    "game map", {"game": game}, channel, ann))
                await asyncio.wait_for(record.responded.wait(), WAIT_S)
                records.append(record)
            await _wait_for(renderer.entered.is_set, "no picture was drawn")
            await _wait_for(lambda: bot.inflight.gate.waiting == 1, "nobody waits")
            assert await bot.inflight.drain(0.2) == 2
        finally:
            renderer.release.set()
        await _wait_for(lambda: renderer.now == 0, "the picture never ended")
        await asyncio.sleep(0.5)  # room for a wrongly admitted one to start drawing
        assert renderer.most == 1 and bot.inflight.gate.inside <= 1
        harness.forgive()
    for record in records:
        texts = " ".join(t for m in record.messages() for t in m.texts())
        assert RESTARTING.split(".")[0] in texts, texts
