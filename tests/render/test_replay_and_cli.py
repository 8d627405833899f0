"""Animated replays, and the render / export-gif / map commands."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

from PIL import Image
from typer.testing import CliRunner

from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.tanks.game import TanksGame
from bot.cli import app
from bot.service import Actor, GameService
from bot.store import Store
from render import stalingrad as tps
from render.replay import Frame, animate, frames_by_step, step_key
from tests.render.games import random_game

runner = CliRunner()


def test_one_frame_per_step_with_the_orders_as_caption() -> None:
    game = TanksGame()
    steps = random_game(game, "first-encounter", 40, 2)
    items = [Frame(game.view(s.state, "public"), s.order) for s in steps]
    frames = frames_by_step(items)
    keys = [step_key(f.view) for f in frames]
    assert len(frames) < len(items)
    assert all(a != b for a, b in itertools.pairwise(keys))
    assert sum(len([c for c in f.caption.split("; ") if c]) for f in frames) == \
        sum(1 for s in steps if s.order)


def test_animated_gif_and_apng_have_a_frame_each_and_are_deterministic() -> None:
    game = StalingradGame()
    steps = random_game(game, "historical", 25, 3)
    frames = frames_by_step(Frame(game.view(s.state, "public"), s.order)
                            for s in steps)
    assert len(frames) >= 2
    gif = animate(frames)
    assert gif == animate(frames)
    image = Image.open(io.BytesIO(gif))
    assert image.format == "GIF" and image.n_frames == len(frames)
    apng = Image.open(io.BytesIO(animate(frames, fmt="png")))
    assert apng.format == "PNG" and getattr(apng, "n_frames", 1) == len(frames)


def test_render_command_for_a_fresh_setup(tmp_path: Path) -> None:
    out = tmp_path / "s.png"
    result = runner.invoke(app, ["render", "--new", "stalingrad", "--scenario", "historical",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert Image.open(out).size == tps.build_static(load_pack()).size
    crop = tmp_path / "t.png"
    result = runner.invoke(app, ["render", "--new", "tanks", "--viewer", "german", "--crop",
                                 "--out", str(crop)])
    assert result.exit_code == 0, result.output
    assert Image.open(crop).format == "PNG"
    assert runner.invoke(app, ["render"]).exit_code == 2
    bad = runner.invoke(app, ["render", "--new", "tanks", "--viewer", "martians"])
    assert bad.exit_code == 2 and "unknown viewer" in bad.output


def test_render_and_export_gif_of_a_stored_game(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    service = GameService(Store(db))
    gm, ger, sov = Actor.discord("gm"), Actor.discord("g"), Actor.discord("s")
    game_id = service.create_game(gm, "tanks", "first-encounter").id
    service.seat(game_id, gm, "german", ger)
    service.seat(game_id, gm, "soviet", sov)
    service.start(game_id, gm)
    rules = service.rules(game_id)
    played = 0
    for _ in range(30):
        state = service.load_state(game_id)
        side = rules.acting_side(state)
        legal = rules.legal_orders(state, side) if side else []
        if not legal:
            break
        actor = ger if side == "german" else sov
        for text in legal:
            if service.submit(game_id, actor, text, f"k{played}-{text}").ok:
                played += 1
                break
    assert played > 5
    png = tmp_path / "g.png"
    result = runner.invoke(app, ["render", game_id, "--db", str(db), "--viewer", "gm",
                                 "--out", str(png)])
    assert result.exit_code == 0, result.output
    assert Image.open(png).format == "PNG"
    gif = tmp_path / "g.gif"
    result = runner.invoke(app, ["export-gif", game_id, "--db", str(db), "--out", str(gif)])
    assert result.exit_code == 0, result.output
    assert Image.open(gif).n_frames >= 2
    missing = runner.invoke(app, ["render", "nope", "--db", str(db)])
    assert missing.exit_code == 1


def test_console_map_command_writes_the_picture(tmp_path: Path) -> None:
    out = tmp_path / "m.png"
    result = runner.invoke(app, ["play", "tanks", "--scenario", "first-encounter", "--db",
                                 str(tmp_path / "u.db")], input=f"map public {out}\nquit\n")
    assert result.exit_code == 0, result.output
    assert "map written" in result.output and Image.open(out).format == "PNG"
