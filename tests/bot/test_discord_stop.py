"""The bot's stop (issue 24): an interaction in flight at SIGTERM is answered ("restarting,
try again") instead of being left at "thinking…", and the stop keeps within the bot's own
budget (bot.runtime.STOP_SECONDS, at most 10 s). The bot runs in this process against the
fake Discord; its renderer is held so that a ``/game map`` stays in flight.

The bounds of the waits are generous for a busy machine; the budget asserted is the one the
bot measures itself (its clock from the signal to the closed connection)."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest

from bot.discord import app as discord_app
from bot.discord.inflight import RESTARTING
from bot.runtime import STOP_SECONDS
from bot.service import DEADLINE_LEASE, Actor, GameService
from bot.store import Store
from tests.bot.serving import serving, wait_while
from tests.fakediscord.server import FakeDiscord

START_S = 120.0
STOP_S = 60.0
GAME = "stopmap"


class HeldRenderer:
    """Draws nothing until released, once armed (start-up's warming is not held)."""

    def __init__(self) -> None:
        self.armed = False
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, view: Any, pack: Path | None = None, /, **options: bool) -> bytes:
        if self.armed:
            self.entered.set()
            self.release.wait(STOP_S)
        return b"\x89PNG\r\n\x1a\n"


def _leases(db: Path) -> set[str]:
    store = Store(db)
    try:
        return {str(r["name"]) for r in store.query("SELECT name FROM leases")}
    finally:
        store.close()


def test_the_stop_budget_is_ten_seconds_at_most() -> None:
    assert 0 < STOP_SECONDS <= 10.0


def _measured(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The seconds of each stop, as the bot measures them (serve's ``stop_within``)."""
    taken: list[float] = []
    stop_within = discord_app.stop_within

    async def measured(bot: Any, running: asyncio.Task[None]) -> float:
        taken.append(await stop_within(bot, running))
        return taken[-1]

    monkeypatch.setattr(discord_app, "stop_within", measured)
    monkeypatch.setattr(discord_app, "prepare_pictures", lambda games: None)
    return taken


async def test_a_game_map_in_flight_at_sigterm_is_answered_restarting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeDiscord()
    renderer = HeldRenderer()
    monkeypatch.setattr(discord_app, "load_renderer", lambda processes=0: renderer)
    taken = _measured(monkeypatch)
    db = tmp_path / "u.db"
    ann = fake.add_user("ann")
    channel = fake.add_channel("general")
    store = Store(db)
    try:
        GameService(store).create_game(Actor.discord(ann.id), "tanks", game_id=GAME)
    finally:
        store.close()
    try:
        async with serving(fake, db, monkeypatch) as task:
            await wait_while(task, lambda: DEADLINE_LEASE in _leases(db), START_S,
                             "the bot never became ready")
            renderer.armed = True
            record = await fake.interact(2, ann, channel, fake.command_data(
                "game map", {"game": GAME}, channel, ann))
            await wait_while(task, renderer.entered.is_set, START_S, "the map was never drawn")
            os.kill(os.getpid(), signal.SIGTERM)  # serve's own handler: a clean stop
            await asyncio.wait_for(task, STOP_S)
    finally:
        renderer.release.set()
    texts = [text for message in record.messages() for text in message.texts()]
    assert any("restarting" in text for text in texts), texts
    assert RESTARTING.split(".")[0] in " ".join(texts)
    assert taken and taken[0] <= STOP_SECONDS, taken
    assert _leases(db) == set()


async def test_a_bot_that_lost_discord_stops_within_its_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord gone (the bot reconnecting, with its backoff): SIGTERM still stops it within
    the budget, leases released."""
    fake = FakeDiscord()
    monkeypatch.setattr(discord_app, "load_renderer", lambda processes=0: None)
    taken = _measured(monkeypatch)
    db = tmp_path / "u.db"
    async with serving(fake, db, monkeypatch) as task:
        await wait_while(task, lambda: DEADLINE_LEASE in _leases(db), START_S,
                         "the bot never became ready")
        await fake.stop()  # Discord is gone
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.wait_for(task, STOP_S)
    assert taken and taken[0] <= STOP_SECONDS, taken
    assert _leases(db) == set()
