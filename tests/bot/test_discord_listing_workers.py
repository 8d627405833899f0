"""``umpire bot`` makes autocomplete's listings in a worker process (``--listing-processes``,
default 1; issue 26 round 8): the bot run by ``serve`` against the fake Discord answers
``/order``'s autocomplete with the listing its worker made, and closes its workers when it
stops; keystrokes that ask for the same listing while it is made wait for that one."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any, ClassVar

import pytest

from bot.discord import app as discord_app
from bot.discord.port import ServicePort
from bot.offload import ListingPool
from bot.service import DEADLINE_LEASE, Actor, GameInfo, GameService
from bot.store import Store
from tests.bot.serving import serving, wait_while
from tests.bot.test_discord_stop import START_S, STOP_S, _leases, _measured
from tests.fakediscord.server import FakeDiscord

GAME = "listed"


class CountedPool(ListingPool):
    """The real pool, its jobs counted and its close seen."""

    made: ClassVar[list[CountedPool]] = []

    def __init__(self, processes: int = 1, games: Any = ()) -> None:
        super().__init__(processes, games=("stalingrad",))
        self.jobs: list[str] = []
        self.closed = False
        self.warmed = threading.Event()
        CountedPool.made.append(self)

    def warm(self, timeout: float = 120.0) -> None:
        super().warm(timeout)
        self.warmed.set()

    def submit(self, game: str, pack: Path | None, state: bytes, side: str,
               what: str = "orders") -> Future[list[Any]]:
        self.jobs.append(side)
        return super().submit(game, pack, state, side, what)

    def close(self, timeout: float = 2.0) -> None:
        self.closed = True
        super().close(timeout)


def started(service: GameService, gm: int, german: int, russian: int) -> GameInfo:
    """A TP:S game started, its players seated by their Discord ids."""
    boss = Actor.discord(gm)
    service.create_game(boss, "stalingrad", "historical", game_id=GAME)
    for side, user in (("german", german), ("russian", russian)):
        service.seat(GAME, boss, side, Actor.discord(user))
    return service.start(GAME, boss)


async def test_the_bots_autocomplete_is_listed_by_its_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeDiscord()
    monkeypatch.setattr(discord_app, "load_renderer", lambda processes=0: None)
    monkeypatch.setattr(discord_app, "ListingPool", CountedPool)
    _measured(monkeypatch)
    db = tmp_path / "u.db"
    gm, ann, bob = fake.add_user("gm"), fake.add_user("ann"), fake.add_user("bob")
    channel = fake.add_channel("general")
    store = Store(db)
    try:
        service = GameService(store)
        info = started(service, gm.id, ann.id, bob.id)
        player = ann if info.to_act == "german" else bob
        wanted = service.legal_orders(GAME, Actor.discord(player.id), complete=True)
    finally:
        store.close()
    assert wanted
    CountedPool.made.clear()
    async with serving(fake, db, monkeypatch, listing_processes=1) as task:
        await wait_while(task, lambda: DEADLINE_LEASE in _leases(db), START_S,
                         "the bot never became ready")
        # its worker started (an autocomplete asked before waits at most LISTING_WAIT)
        assert await asyncio.to_thread(CountedPool.made[0].warmed.wait, START_S)
        typed = wanted[0][:2]
        record = await fake.interact(4, player, channel, fake.command_data(
            "order", {"text": typed, "game": GAME}, channel, player, focused="text"))
        await asyncio.wait_for(record.responded.wait(), START_S)
        os.kill(os.getpid(), signal.SIGTERM)  # serve's own handler: a clean stop
        await asyncio.wait_for(task, STOP_S)
    (pool,) = CountedPool.made
    assert pool.jobs == [info.to_act]
    offered = [choice["value"] for choice in record.choices]
    assert offered and all(value in wanted for value in offered), offered
    assert pool.closed


class HeldLister:
    """A lister whose listings are made only when released (from the state's JSON)."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.jobs: list[Future[list[Any]]] = []
        self.asked = threading.Event()

    def submit(self, game: str, pack: Path | None, state: bytes, side: str,
               what: str = "orders") -> Future[list[Any]]:
        rules = self.service.game_rules(game)
        made: Future[list[Any]] = Future()
        self.jobs.append(made)
        self.listing = rules.complete_orders(rules.load_state(state), side)
        self.asked.set()
        return made

    def release(self) -> None:
        for made in self.jobs:
            if not made.done():
                made.set_result(self.listing)


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[ServicePort, GameInfo, Actor, HeldLister]]:
    """A started game's port whose service lists only when its lister is released; the
    player to act."""
    store = Store(tmp_path / "u.db")
    try:
        service = GameService(store)
        info = started(service, 1, 2, 3)
        lister = HeldLister(service)
        service.lister = lister
        actor = Actor.discord(2 if info.to_act == "german" else 3)
        yield ServicePort(service), info, actor, lister
    finally:
        store.close()


async def test_keystrokes_asking_for_one_listing_wait_for_the_one_made(
        held: tuple[ServicePort, GameInfo, Actor, HeldLister]) -> None:
    """Typing 'm', 'mo', 'mov' sends three autocompletes before a big listing is made:
    the bot makes it once, and one keystroke Discord gave up on (cancelled) takes nothing
    from the others; the next position is listed anew."""
    port, info, actor, lister = held
    asks = [asyncio.create_task(port.legal_orders(info, actor, complete=True))
            for _ in range(3)]
    assert await asyncio.to_thread(lister.asked.wait, START_S), "never listed"
    asks[0].cancel()
    lister.release()
    second, third = await asyncio.wait_for(asyncio.gather(*asks[1:]), START_S)
    assert second == third == lister.listing and second
    assert len(lister.jobs) == 1
    assert await port.legal_orders(info, actor, complete=True) == second
    assert len(lister.jobs) == 1  # kept for the position
    moved = info.model_copy(update={"head_seq": info.head_seq + 1})
    lister.asked.clear()
    later = asyncio.create_task(port.legal_orders(moved, actor, complete=True))
    assert await asyncio.to_thread(lister.asked.wait, START_S), "never listed"
    lister.release()
    await asyncio.wait_for(later, START_S)
    assert len(lister.jobs) == 2


async def test_an_autocomplete_waits_for_a_slow_listing_no_longer_than_it_may(
        held: tuple[ServicePort, GameInfo, Actor, HeldLister]) -> None:
    """Discord drops an autocomplete's answer after 3 s: a keystroke waits ``within``
    seconds for a listing still being made, then offers nothing (the bot answers in time);
    the listing goes on and the next keystroke has it without a listing made again."""
    port, info, actor, lister = held
    waited = port.legal_orders(info, actor, complete=True, within=0.2)
    assert await asyncio.wait_for(waited, START_S) == []  # not left waiting
    assert lister.asked.is_set() and len(lister.jobs) == 1
    lister.release()
    for _ in range(2):
        got = await port.legal_orders(info, actor, complete=True, within=START_S)
        assert got == lister.listing and got
    assert len(lister.jobs) == 1
