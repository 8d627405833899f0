"""umpire data check / show: a GM's replacement pack is validated with clear errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2] / "data"


@pytest.mark.parametrize("game", ["stalingrad", "tanks"])
def test_shipped_packs_check_clean(game: str) -> None:
    result = runner.invoke(app, ["data", "check", str(ROOT / game)])
    assert result.exit_code == 0, result.output
    assert f"a valid {game} pack" in result.output


@pytest.mark.parametrize("game", ["stalingrad", "tanks"])
def test_show_prints_counts(game: str) -> None:
    result = runner.invoke(app, ["data", "show", game])
    assert result.exit_code == 0, result.output
    assert "reconstructed" in result.output


def test_broken_replacement_pack_lists_problems_not_a_traceback(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(ROOT / "stalingrad", pack)
    areas = next(p for p in pack.glob("*.toml") if p.name == "areas.toml")
    areas.write_text(areas.read_text(encoding="utf-8") + "\n[[[broken\n", encoding="utf-8")
    result = runner.invoke(app, ["data", "check", str(pack)])
    assert result.exit_code == 1
    assert "areas.toml" in result.output and "problem" in result.output
    assert "Traceback" not in result.output


def test_pack_without_manifest_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["data", "check", str(tmp_path)])
    # the console wraps a long path at its width: read the message unwrapped
    assert result.exit_code == 1 and "pack.toml" in result.output.replace("\n", "")


def test_a_game_starts_with_a_replacement_pack_and_stores_its_hash(tmp_path: Path) -> None:
    from adjudicator.kernel.packs import hash_pack_dir
    from bot.store import Store

    pack = tmp_path / "pack"
    shutil.copytree(ROOT / "stalingrad", pack)
    manifest = pack / "pack.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "\n# GM's corrected pack\n",
                        encoding="utf-8")
    db = tmp_path / "u.db"
    result = runner.invoke(app, ["play", "stalingrad", "--pack", str(pack), "--db", str(db)],
                           input="quit\n")
    assert result.exit_code == 0, result.output
    [row] = Store(db).db.execute("SELECT pack_path, pack_hash FROM games").fetchall()
    assert row == (str(pack), hash_pack_dir(pack))
    assert row[1] != hash_pack_dir(ROOT / "stalingrad")


def test_a_broken_replacement_pack_is_refused_before_the_game(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(ROOT / "tanks", pack)
    (pack / "units.toml").write_text("[[broken\n", encoding="utf-8")
    result = runner.invoke(app, ["play", "tanks", "--pack", str(pack), "--db",
                                 str(tmp_path / "u.db")], input="quit\n")
    assert result.exit_code == 1 and "units.toml" in result.output
    wrong = runner.invoke(app, ["play", "tanks", "--pack", str(ROOT / "stalingrad"), "--db",
                                str(tmp_path / "u.db")], input="quit\n")
    assert wrong.exit_code == 2 and "is a stalingrad pack" in wrong.output
