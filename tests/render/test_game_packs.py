"""A game played with a GM's data pack is drawn with that pack: by the Discord bot, by
``umpire render`` and by ``umpire export-gif``."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

import render
from bot.cli import app
from bot.discord.app import load_renderer
from bot.discord.core import BotConfig, UmpireBot
from bot.discord.port import ServicePort
from bot.service import Actor, GameService
from bot.store import Store

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "stalingrad"


@pytest.fixture
def gm_pack(tmp_path: Path) -> Path:
    """The shipped pack with one Area renamed, in a folder of its own."""
    pack = tmp_path / "pack"
    shutil.copytree(SHIPPED, pack, ignore=shutil.ignore_patterns("tools"))
    areas = pack / "areas.toml"
    text = areas.read_text()
    assert text.count('name = "Kuibyshev Sawmill"\n') == 1
    areas.write_text(text.replace('name = "Kuibyshev Sawmill"\n', 'name = "Sawmill No. 2"\n'))
    return pack


def _game(tmp_path: Path, pack: Path) -> tuple[GameService, str]:
    service = GameService(Store(tmp_path / "games.db"))
    info = service.create_game(Actor.discord("1"), "stalingrad", "historical", pack=pack)
    return service, info.id


def test_the_pack_changes_the_picture(gm_pack: Path) -> None:
    from adjudicator.stalingrad.game import StalingradGame

    game = StalingradGame(gm_pack)
    view = game.view(game.setup("historical"), "public")
    assert render.render(view, render.load_pack("stalingrad", gm_pack)) != render.render(view)


async def test_the_discord_bot_draws_a_game_with_its_own_pack(tmp_path: Path,
                                                              gm_pack: Path) -> None:
    service, game_id = _game(tmp_path, gm_pack)
    renderer = load_renderer()
    assert renderer is not None
    bot = UmpireBot(ServicePort(service), BotConfig(tick_seconds=0), renderer=renderer)
    try:
        info = service.info(game_id)
        view = service.rules(game_id).view(service.load_state(game_id), "public")
        picture = await bot.publisher.picture(view, "map.png", info)
        assert picture is not None
        data = picture.fp.read()
        # the zoom on the last action, as the bot posts it, drawn with the game's pack
        assert data == render.render(view, render.load_pack("stalingrad", gm_pack), crop=True)
        assert data != render.render(view, render.load_pack("stalingrad"), crop=True)
        # a renderer that only takes the View still draws games with the shipped pack
        shipped = GameService(service.store)
        plain_id = shipped.create_game(Actor.discord("1"), "stalingrad", "historical").id
        seen: list[int] = []

        def view_only(v: object) -> bytes:
            seen.append(1)
            return b"png"

        bot.publisher.renderer = view_only
        drawn = await bot.publisher.picture(view, "map.png", shipped.info(plain_id))
        assert drawn is not None and seen == [1]
    finally:
        await bot.close()
        service.store.close()


def test_render_and_export_gif_commands_use_the_games_pack(tmp_path: Path,
                                                           gm_pack: Path) -> None:
    service, game_id = _game(tmp_path, gm_pack)
    gm = Actor.discord("1")
    service.seat(game_id, gm, "german", Actor.discord("2"))
    service.seat(game_id, gm, "russian", Actor.discord("3"))
    service.start(game_id, gm)
    view = service.rules(game_id).view(service.load_state(game_id), "public")
    service.store.close()
    runner = CliRunner()
    out = tmp_path / "map.png"
    result = runner.invoke(app, ["render", game_id, "--db", str(tmp_path / "games.db"),
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    ours = render.load_pack("stalingrad", gm_pack)
    assert out.read_bytes() == render.render(view, ours)
    assert out.read_bytes() != render.render(view)
    gif = tmp_path / "replay.gif"
    result = runner.invoke(app, ["export-gif", game_id, "--db", str(tmp_path / "games.db"),
                                 "--out", str(gif)])
    assert result.exit_code == 0, result.output
    first = Image.open(io.BytesIO(gif.read_bytes()))
    assert first.format == "GIF"
