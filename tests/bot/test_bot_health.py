"""Health of the bot (issue 24): one log line per handled interaction and per deadline tick
(game, actor, verb, outcome, ms), and ``umpire status``, run as another process, reading from
the store whether the bot is connected, its last interaction and deadline tick, the leases
it holds and its last error. The bot runs in this process against the fake Discord."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bot import health
from bot.discord import app as discord_app
from bot.store import Store
from tests.bot.serving import serving, wait_while
from tests.fakediscord.server import FakeDiscord
from tests.waiting import until_async

START_S = 120.0
STOP_S = 60.0


def _records(db: Path) -> list[dict[str, Any]]:
    if not db.exists():
        return []
    store = Store(db)
    try:
        return health.records(store)
    finally:
        store.close()


def _status(db: Path) -> str:
    """``umpire status`` in another process."""
    env = {**os.environ}
    env.pop("UMPIRE_DB", None)
    result = subprocess.run([sys.executable, "-m", "bot.cli", "status", "--db", str(db)],
                            capture_output=True, text=True, env=env, timeout=STOP_S,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def _lines(caplog: pytest.LogCaptureFixture, verb: str) -> list[dict[str, Any]]:
    return [dict(r.fields) for r in caplog.records  # type: ignore[attr-defined]
            if r.getMessage() == "handled" and r.fields["verb"] == verb]  # type: ignore[attr-defined]


async def test_interactions_and_ticks_are_logged_and_umpire_status_reads_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="umpire.discord")
    fake = FakeDiscord()
    monkeypatch.setattr(discord_app, "load_renderer", lambda processes=0: None)
    monkeypatch.setattr(discord_app, "prepare_pictures", lambda games: None)
    db = tmp_path / "u.db"
    ann = fake.add_user("ann")
    channel = fake.add_channel("general")
    async with serving(fake, db, monkeypatch) as task:
        await wait_while(task, lambda: any(r.get("last_tick") and r.get("connected")
                                           for r in _records(db)), START_S,
                         "no deadline tick recorded")
        helped = await fake.interact(2, ann, channel, fake.command_data("help", {}, channel,
                                                                        ann))
        refused = await fake.interact(2, ann, channel, fake.command_data(
            "game status", {}, channel, ann))
        await wait_while(task, lambda: len(_lines(caplog, "game status")) == 1, START_S,
                         "no log line for /game status")
        await wait_while(task, lambda: bool(_lines(caplog, "help")), START_S,
                         "no log line for /help")
        await wait_while(task, lambda: any(r.get("last_interaction") for r in _records(db)),
                         START_S, "no interaction recorded")
        running = _status(db)
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.wait_for(task, STOP_S)
    assert helped.responded.is_set() and refused.responded.is_set()
    actor = f"discord:{ann.id}"
    assert _lines(caplog, "help")[0] | {"ms": 0} == {
        "game": "-", "actor": actor, "verb": "help", "outcome": "ok", "ms": 0}
    assert _lines(caplog, "game status")[0]["outcome"] == "refused"
    ticks = _lines(caplog, "deadline tick")
    assert ticks and ticks[0]["actor"] == "umpire" and ticks[0]["outcome"] == "ok"
    assert all(isinstance(line["ms"], int) and line["ms"] >= 0 for line in ticks)
    assert "1 process(es) recorded" in running
    assert ": connected" in running
    assert "last interaction: never" not in running
    assert "last deadline tick: never" not in running
    assert "leases held: deadlines" in running, running
    assert "last error: none" in running
    stopped = _status(db)
    assert ": stopped " in stopped and "leases held: none" in stopped, stopped


def test_a_health_record_shows_the_last_error_and_survives_bad_rows(tmp_path: Path) -> None:
    store = Store(tmp_path / "u.db")
    try:
        health.record(store, "discord", "host:1:ab", connected=True)
        health.record(store, "discord", "host:1:ab", last_error="game map: boom",
                      last_error_at=time.time())
        store.set_meta("health:discord:broken", "{not json")
        store.lease("deadlines", "host:1:ab", 60)
        (item,) = health.records(store)
    finally:
        store.close()
    assert item["connected"] is True and item["leases"] == ["deadlines"]
    text = "\n".join(health.describe(item))
    assert "last error: game map: boom at" in text


def test_status_shows_what_another_kind_of_process_records(tmp_path: Path) -> None:
    """The gateway may keep its own fields in the same record format (issue 24)."""
    store = Store(tmp_path / "u.db")
    try:
        health.record(store, "mail", "host:2:cd", connected=True, last_poll=time.time() - 5,
                      queue=3)
        (item,) = health.records(store)
    finally:
        store.close()
    text = "\n".join(health.describe(item))
    assert text.startswith("mail host:2:cd: connected")
    assert "  queue: 3" in text and re.search(r"  last poll: \S+ \S+ \([56] s ago\)", text)
    assert json.loads(json.dumps(item)) == item


class _Port:
    """A port whose health record write takes a little while, noting when each was made."""

    def __init__(self) -> None:
        self.writes: list[tuple[float, float, dict[str, Any]]] = []

    async def record_health(self, frontend: str, **changes: Any) -> None:
        began = time.monotonic()
        await asyncio.sleep(0.01)
        self.writes.append((began, time.monotonic(), changes))


async def test_a_burst_writes_the_health_record_once_an_interval_and_a_state_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a burst the times of the last interaction wait for HEALTH_SECONDS since the
    last write (each write is a transaction beside the orders'); being connected or not,
    an error, or the stop's flush are written at once, with what waited."""
    from bot.discord import inflight

    monkeypatch.setattr(inflight, "HEALTH_SECONDS", 600.0)  # nothing here waits for it
    port = _Port()
    flight = inflight.InFlight(type("Client", (), {"port": port})())
    for n in range(40):
        flight.health(last_interaction=float(n))
        await asyncio.sleep(0.002)
    flight.health(last_error="boom", last_error_at=1.0)
    await until_async(lambda: len(port.writes) == 2, "the error written")
    flight.health(last_interaction=99.0)
    await flight.flush(START_S)
    assert [w[2] for w in port.writes] == [
        {"last_interaction": 0.0},
        {"last_interaction": 39.0, "last_error": "boom", "last_error_at": 1.0},
        {"last_interaction": 99.0}]


async def test_the_times_alone_are_written_after_the_interval(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.discord import inflight

    monkeypatch.setattr(inflight, "HEALTH_SECONDS", 0.3)
    port = _Port()
    flight = inflight.InFlight(type("Client", (), {"port": port})())
    flight.health(last_interaction=0.0)
    await until_async(lambda: port.writes, "the first time written")
    flight.health(last_interaction=1.0)
    flight.health(last_interaction=2.0)
    await until_async(lambda: port.writes and port.writes[-1][2].get("last_interaction") == 2.0,
                      "the last time written")
    assert len(port.writes) == 2
    assert port.writes[1][0] - port.writes[0][1] >= 0.3
