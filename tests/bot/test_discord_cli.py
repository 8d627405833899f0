"""``umpire bot``: where the token comes from, that it is never shown, and that the real
start-up path (store, service, bot, command sync) runs against the fake Discord."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from typing import Any

import discord
import pytest
import yarl
from typer.testing import CliRunner

from bot.cli import app
from bot.discord import app as discord_app
from bot.discord import limits
from bot.discord.settings import SettingsError, load_settings
from bot.runtime import SWITCH_SECONDS
from tests.fakediscord import FakeDiscord
from tests.waiting import until_async

runner = CliRunner()
SECRET = "very-secret-token-value"


def test_without_a_token_it_explains_where_to_put_one(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    result = runner.invoke(app, ["bot", "--config", str(tmp_path / "none.toml")])
    assert result.exit_code == 2
    assert "no config file" in result.output
    empty = tmp_path / "empty.toml"
    empty.write_text("", encoding="utf-8")
    result = runner.invoke(app, ["bot", "--config", str(empty)])
    assert result.exit_code == 2 and "DISCORD_TOKEN" in result.output


def test_token_from_the_environment_is_passed_on_and_never_printed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def fake_run(token: str, db: Path, guild: int | None, gm_role: str,
                 games: list[str], shards: int | None, shard_ids: list[int] | None,
                 render_processes: int, log_format: str = "text",
                 listing_processes: int = 0) -> None:
        seen.update(token=token, db=db, guild=guild, gm_role=gm_role, games=games,
                    shards=shards, shard_ids=shard_ids, render_processes=render_processes,
                    listing_processes=listing_processes)

    monkeypatch.setattr(discord_app, "run", fake_run)
    monkeypatch.setenv("DISCORD_TOKEN", SECRET)
    db = tmp_path / "u.db"
    empty = tmp_path / "empty.toml"
    empty.write_text("", encoding="utf-8")
    result = runner.invoke(app, ["bot", "--guild", "123", "--db", str(db),
                                 "--config", str(empty), "--render-processes", "0"])
    assert result.exit_code == 0, result.output
    assert seen == {"token": SECRET, "db": str(db), "guild": 123, "gm_role": "Umpire GM",
                    "games": [], "shards": None, "shard_ids": None, "render_processes": 0,
                    "listing_processes": 1}
    assert SECRET not in result.output and "123" in result.output
    result = runner.invoke(app, ["bot", "--db", str(db), "--config", str(empty),
                                 "--shards", "4", "--shard-ids", "3,2"])
    assert result.exit_code == 0, result.output
    assert (seen["shards"], seen["shard_ids"]) == (4, [2, 3])
    assert seen["render_processes"] >= 1 and "shards 2, 3 of 4" in result.output
    result = runner.invoke(app, ["bot", "--db", str(db), "--config", str(empty),
                                 "--shards", "8", "--shard-ids", "0-2,5"])
    assert result.exit_code == 0 and seen["shard_ids"] == [0, 1, 2, 5], result.output
    for bad in (["--shards", "2", "--shard-ids", "2"], ["--shard-ids", "0"],
                ["--shards", "2", "--shard-ids", "x"]):
        result = runner.invoke(app, ["bot", "--db", str(db), "--config", str(empty), *bad])
        assert result.exit_code == 2 and "--shard-ids" in result.output, result.output


def test_config_file_settings(tmp_path: Path) -> None:
    config = tmp_path / "discord.toml"
    config.write_text('token = "from-file"\nguild = 42\ngm_role = "Referee"\n'
                      'games = ["tests.kernel.duel:DuelGame"]\n', encoding="utf-8")
    config.chmod(0o600)  # it holds the token (bot.config_secrets)
    settings = load_settings(config, environ={})
    assert settings.token.reveal() == "from-file" and "from-file" not in repr(settings)
    assert (settings.guild_id, settings.gm_role) == (42, "Referee")
    assert settings.extra_games == ["tests.kernel.duel:DuelGame"]
    assert load_settings(config, guild_id=7, environ={"DISCORD_TOKEN": "env"}).guild_id == 7
    assert load_settings(config, environ={"DISCORD_TOKEN": "env"}).token.reveal() == "env"
    config.write_text("guild = 'x'\ntoken = 't'\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="number"):
        load_settings(config, environ={})


async def test_serve_starts_syncs_and_shuts_down(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeDiscord()
    await fake.start()
    monkeypatch.setattr(discord.http.Route, "BASE", fake.rest_base)
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY",
                        yarl.URL(fake.gateway_url))
    switching = sys.getswitchinterval()
    sys.setswitchinterval(0.005)  # Python's default, which the bot's start-up tunes
    task = asyncio.create_task(discord_app.serve(SECRET, tmp_path / "u.db", fake.guild_id))
    try:
        # start-up draws picture layers first: a generous bound for busy CPUs; a bot that
        # stopped fails at once
        await until_async(lambda: str(fake.guild_id) in fake.commands or task.done(),
                          "the bot to sync its guild commands", timeout=120)
        assert not task.done(), task.result()
        assert fake.token_seen == SECRET
        assert "game" in {c["name"] for c in fake.commands.get("global", [])}
        assert [c["name"] for c in fake.commands[str(fake.guild_id)]] == ["gm"]
        assert (tmp_path / "u.db").exists()
        assert sys.getswitchinterval() == pytest.approx(SWITCH_SECONDS)  # bot.runtime
    finally:
        sys.setswitchinterval(switching)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await fake.stop()


def test_the_documented_invite_permissions() -> None:
    text = (Path(__file__).parents[2] / "docs" / "discord.md").read_text(encoding="utf-8")
    wanted = discord.Permissions(view_channel=True, read_message_history=True,
                                 send_messages=True, attach_files=True,
                                 create_public_threads=True, send_messages_in_threads=True)
    assert f"`{wanted.value}`" in text


def test_check_commands_prints_every_payload_and_finds_no_problem() -> None:
    result = runner.invoke(app, ["bot", "--check-commands", "--guild", "42"])
    assert result.exit_code == 0, result.output
    assert "# global: 6 commands" in result.output and "# 42: 1 commands" in result.output
    assert '"name": "stalingrad"' in result.output and '"name": "gm"' in result.output
    assert "0 problems" in result.output and "PROBLEM" not in result.output


def test_the_limits_check_finds_what_discord_refuses() -> None:
    ok = {"name": "move", "description": "d", "options": [
        {"type": 3, "name": "a", "description": "d", "required": True},
        {"type": 3, "name": "b", "description": "d"}]}
    assert limits.check({"global": [ok]}) == []
    bad_order = {**ok, "options": list(reversed(ok["options"]))}
    long_text = {**ok, "description": "x" * 101}
    big = {**ok, "options": [{"type": 3, "name": f"o{n}", "description": "x" * 100}
                             for n in range(25)] + [{"type": 1, "name": "s", "description": "x"}]}
    many = {**ok, "options": [{"type": 3, "name": "c", "description": "d", "choices": [
        {"name": f"{n:02d}" * 40, "value": f"{n:02d}" * 40} for n in range(26)]}]}
    found = limits.check({"global": [bad_order, long_text, big, many, {**ok, "name": "Move"}],
                          "1": [{**ok, "name": f"c{n}"} for n in range(101)]})
    text = "\n".join(found)
    for wanted in ("required option after an optional", "description has 101",
                   "26 options", "subcommands mixed", "26 choices", "characters (at most 3600",
                   "'Move' is not", "101 slash commands"):
        assert wanted in text, (wanted, text)
