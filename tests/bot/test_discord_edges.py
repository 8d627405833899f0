"""Discord's edges (issue 24): every command within Umpire's 3,600-character budget (Discord
refuses the whole command set when one command passes 4,000), ``/game export`` never fails
silently on a large record (gzipped, or said), and the start-up reports the command sync
after it happened, as Discord answered it."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import logging
import time
from pathlib import Path
from typing import Any

import discord
import pytest
import yarl
from typer.testing import CliRunner

from bot.cli import app
from bot.discord import app as discord_app
from bot.discord import limits
from bot.discord.core import BotConfig
from bot.service import GameService
from bot.store import Store
from tests.fakediscord import FakeDiscord, run_umpire

DUEL = "tests.kernel.duel:DuelGame"
START_S = 120.0


def _payloads(tmp_path: Path) -> dict[str, list[dict[str, Any]]]:
    store = Store(tmp_path / "check.db")
    try:
        bot = discord_app.create_bot(GameService(store), BotConfig(guild_id=42))
        return discord_app.command_payloads(bot)
    finally:
        store.close()


def test_every_command_stays_within_the_3600_character_budget(tmp_path: Path) -> None:
    scopes = _payloads(tmp_path)
    sizes = {c["name"]: limits.size(c) for commands in scopes.values() for c in commands}
    assert {"stalingrad", "tanks", "game", "gm"} <= set(sizes)
    assert all(total <= limits.COMMAND_BUDGET == 3600 for total in sizes.values()), sizes
    assert limits.check(scopes) == []


def test_the_limits_check_refuses_a_command_over_the_budget() -> None:
    choices = [{"name": f"{n:02d}" * 20, "value": f"{n:02d}" * 20} for n in range(25)]
    big: dict[str, Any] = {"name": "big", "description": "d", "options": [
        {"type": 3, "name": f"o{n:02d}", "description": "x" * 100} for n in range(24)]}
    big["options"].append({"type": 3, "name": "pick", "description": "d",
                           "choices": choices[:3]})
    while limits.size(big) <= limits.COMMAND_BUDGET:
        big["options"][-1]["choices"] = choices[:len(big["options"][-1]["choices"]) + 1]
    total = limits.size(big)
    assert limits.COMMAND_BUDGET < total < limits.MAX_COMMAND_CHARS
    (problem,) = limits.check({"global": [big]})
    assert f"{total} characters (at most 3600" in problem


def test_order_descriptions_keep_their_rule_numbers(tmp_path: Path) -> None:
    """Shortened to fit the budget, a subcommand's description still ends with the rules it
    applies (8.3 for /stalingrad attack)."""
    (stalingrad,) = [c for c in _payloads(tmp_path)["global"] if c["name"] == "stalingrad"]
    attack = next(o for o in stalingrad["options"] if o["name"] == "attack")
    assert attack["description"].endswith("(8.3, 8.31 …)")
    assert len(attack["description"]) <= 80


def test_a_file_over_the_attachment_limit_is_gzipped_or_refused_with_its_sizes() -> None:
    data = b'{"action": "pass"}\n' * 2000
    assert limits.fit_attachment(data, "r.jsonl") == limits.Fitted("r.jsonl", data)
    fitted = limits.fit_attachment(data, "r.jsonl", limit=len(data) - 1)
    assert isinstance(fitted, limits.Fitted) and fitted.name == "r.jsonl.gz"
    assert gzip.decompress(fitted.data) == data and "gzipped" in fitted.note
    refused = limits.fit_attachment(data, "r.jsonl", limit=20)
    assert isinstance(refused, str) and "more than" in refused and "r.jsonl" in refused


async def test_game_export_gzips_a_large_record_and_says_when_it_cannot_send_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeDiscord()
    gm = fake.add_user("gm", roles=("Umpire GM",))
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    async with run_umpire(fake, tmp_path / "u.db", monkeypatch, extra_games=[DUEL],
                          game_ids=["duel1"]) as h:
        await h.slash(gm, fake.general, "game new", game=DUEL)
        (thread,) = fake.threads()
        await h.slash(ann, thread, "game join", side="red")
        await h.slash(bob, thread, "game join", side="blue")
        await h.slash(gm, thread, "game start")
        whole = await h.slash(gm, thread, "game export")
        (attached,) = whole.original.attachments
        assert attached.filename == "umpire-duel1.jsonl"
        monkeypatch.setattr(limits, "ATTACHMENT_BYTES", len(attached.data) - 1)
        packed = await h.slash(gm, thread, "game export")
        (gz,) = packed.original.attachments
        assert gz.filename == "umpire-duel1.jsonl.gz" and "gzipped" in packed
        assert gzip.decompress(gz.data) == attached.data
        monkeypatch.setattr(limits, "ATTACHMENT_BYTES", 64)
        refused = await h.slash(gm, thread, "game export")
        assert refused.ephemeral and refused.original.attachments == []
        assert "cannot be sent here" in refused and "umpire export duel1" in refused
        mine = await h.slash(ann, thread, "game export")  # a player's view: no CLI hint
        assert mine.original.attachments == [] and "/game log" in mine
        assert "umpire export" not in mine


def test_the_start_up_line_claims_no_sync(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discord_app, "run", lambda *a, **k: None)
    monkeypatch.setenv("DISCORD_TOKEN", "t")
    empty = tmp_path / "discord.toml"
    empty.write_text("", encoding="utf-8")
    result = CliRunner().invoke(app, ["bot", "--db", str(tmp_path / "u.db"), "--config",
                                      str(empty), "--guild", "42"])
    assert result.exit_code == 0, result.output
    assert "synced" not in result.output and "/gm for server 42" in result.output


async def test_the_sync_is_logged_after_discord_accepted_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="umpire.discord")
    fake = FakeDiscord()
    await fake.start()
    monkeypatch.setattr(discord.http.Route, "BASE", fake.rest_base)
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY",
                        yarl.URL(fake.gateway_url))
    task = asyncio.create_task(discord_app.serve("token", tmp_path / "u.db", fake.guild_id))
    try:
        deadline = time.monotonic() + START_S
        while "commands synced to server" not in caplog.text:
            assert not task.done(), task.result()
            assert time.monotonic() < deadline, caplog.text
            await asyncio.sleep(0.1)
        synced = [r.getMessage() for r in caplog.records if "commands synced" in r.getMessage()]
        assert synced[0].startswith("commands synced globally: /game, ")
        assert "/stalingrad" in synced[0]
        assert synced[1] == f"commands synced to server {fake.guild_id}: /gm"
        assert [c["name"] for c in fake.commands[str(fake.guild_id)]] == ["gm"]
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await fake.stop()
