"""A clean stop releases the process's leases (issue 24): the mail gateway and the Discord
bot, stopped by SIGTERM, leave no lease behind, so the next process sharing the store
ticks deadlines at once instead of waiting up to five minutes for the leases to lapse."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import discord
import pytest
import yarl

from bot.discord import app as discord_app
from bot.service import DEADLINE_LEASE, GameService
from bot.store import Store
from tests.fakediscord.server import FakeDiscord
from tests.mail.servers import free_port

#: Generous bounds for a busy machine (the events usually come within seconds).
START_S = 120.0
STOP_S = 60.0


def _leases(db: Path) -> dict[str, str]:
    store = Store(db)
    try:
        return {str(r["name"]): str(r["holder"]) for r in store.query(
            "SELECT name, holder FROM leases")}
    finally:
        store.close()


def _wait_for(what: Callable[[], bool], seconds: float, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        if proc.poll() is not None:
            pytest.fail(f"the process ended early: {proc.communicate()[0]}")
        if time.monotonic() > deadline:
            pytest.fail("the event did not come")
        time.sleep(0.2)


def _another_process_ticks_at_once(db: Path) -> None:
    """A second service on the store takes the deadline lease on its first tick."""
    service = GameService(Store(db))
    try:
        service.tick()
        assert service.store.lease_holder(DEADLINE_LEASE) == service.instance
    finally:
        service.store.close()


def test_a_mail_gateway_stopped_by_sigterm_releases_its_leases(tmp_path: Path) -> None:
    db = tmp_path / "u.db"
    Store(db).close()
    config = tmp_path / "mail.toml"
    config.write_text('address = "umpire@example.org"\n[smtp]\nhost = "127.0.0.1"\n'
                      f'port = {free_port()}\ntls = "none"\n[listen]\nport = {free_port()}\n',
                      encoding="utf-8")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("UMPIRE_DB", None)
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "mail", "--config", str(config),
                             "--db", str(db)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    try:
        _wait_for(lambda: {"mail:leader", DEADLINE_LEASE} <= set(_leases(db)), START_S, proc)
        holders = set(_leases(db).values())
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=STOP_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, output
    assert "released leases: mail:leader, deadlines" in output, output
    assert not holders & set(_leases(db).values())
    assert _leases(db) == {}
    _another_process_ticks_at_once(db)


async def test_the_discord_bot_stopped_by_sigterm_releases_its_leases(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeDiscord()
    await fake.start()
    monkeypatch.setattr(discord.http.Route, "BASE", fake.rest_base)
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY",
                        yarl.URL(fake.gateway_url))
    db = tmp_path / "u.db"
    task = asyncio.create_task(discord_app.serve("token", db, fake.guild_id))
    try:
        deadline = time.monotonic() + START_S
        while DEADLINE_LEASE not in (_leases(db) if db.exists() else {}):
            assert not task.done(), task.result()
            assert time.monotonic() < deadline, "the bot never ticked deadlines"
            await asyncio.sleep(0.2)
        os.kill(os.getpid(), signal.SIGTERM)  # serve's own handler: a clean stop
        await asyncio.wait_for(task, STOP_S)
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await fake.stop()
    assert _leases(db) == {}
    _another_process_ticks_at_once(db)
