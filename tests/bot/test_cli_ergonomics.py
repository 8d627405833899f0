"""The umpire command for a newcomer: the stored games listed, a game in progress moved
to another database and continued with its seed, one-line errors, scenario names and plain
metavars in the help."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bot.cli import _rich_console, app
from bot.store import Store

runner = CliRunner()


def test_games_lists_the_stored_games_with_their_status(tmp_path: Path) -> None:
    db = str(tmp_path / "u.db")
    empty = runner.invoke(app, ["games", "--db", db])
    assert empty.exit_code == 0 and "no games yet" in empty.output
    played = runner.invoke(app, ["play", "stalingrad", "--db", db], input="rubble\nquit\n")
    assert played.exit_code == 0, played.output
    _rich_console.cache_clear()  # a console as wide as a terminal of 200 columns
    listed = runner.invoke(app, ["games", "--db", db], env={"COLUMNS": "200"})
    _rich_console.cache_clear()
    assert listed.exit_code == 0, listed.output
    game_id = Store(db).games()[0]["id"]
    assert game_id in listed.output and "stalingrad" in listed.output
    assert "active" in listed.output and "german, russian" in listed.output
    assert "historical (default)" in listed.output  # not "-" for the default scenario


def test_a_game_in_progress_goes_on_elsewhere_with_its_seed(tmp_path: Path) -> None:
    first, second = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    played = runner.invoke(app, ["play", "stalingrad", "--db", first],
                           input="rubble\nmove i/103 to 14\nquit\n")
    assert played.exit_code == 0, played.output
    game_id = Store(first).games()[0]["id"]
    record, seed = tmp_path / "g.jsonl", tmp_path / "g.seed"
    exported = runner.invoke(app, ["export", game_id, "--db", first, "--out", str(record),
                                   "--seed-out", str(seed)])
    assert exported.exit_code == 0, exported.output
    assert "--seed-file" in exported.output and len(seed.read_text().strip()) == 64
    imported = runner.invoke(app, ["import", str(record), "--seed-file", str(seed),
                                   "--db", second], terminal_width=200)
    assert imported.exit_code == 0, imported.output
    assert f"umpire play stalingrad --resume {game_id}" in imported.output
    resumed = runner.invoke(app, ["play", "stalingrad", "--db", second, "--resume", game_id],
                            input="move ii/103 to 14\nquit\n")
    assert resumed.exit_code == 0, resumed.output
    assert "ii/103 enters" in resumed.output
    without = runner.invoke(app, ["import", str(record), "--db", str(tmp_path / "c.db")],
                            terminal_width=200)
    assert "archived" in without.output and "--seed-file" in without.output


def test_bad_games_and_scenarios_are_one_line_errors(tmp_path: Path) -> None:
    for args in (["render", "--new", "chess"],
                 ["render", "--new", "stalingrad", "--scenario", "bogus"],
                 ["render", "nosuch", "--db", str(tmp_path / "u.db")],
                 ["export", "nosuch", "--db", str(tmp_path / "u.db")]):
        result = runner.invoke(app, args)
        assert result.exit_code != 0, args
        assert "Traceback" not in result.output and len(result.output.strip().splitlines()) \
            == 1, (args, result.output)
    bad = runner.invoke(app, ["render", "--new", "stalingrad", "--scenario", "bogus"])
    assert "historical, basic" in bad.output


def test_help_names_the_scenarios_with_plain_metavars() -> None:
    shown = runner.invoke(app, ["play", "--help"], terminal_width=200)
    assert shown.exit_code == 0
    text = " ".join(shown.output.split())
    assert "stalingrad: historical, basic" in text and "tanks: first-encounter" in text
    assert "GAME" in text and "--scenario NAME" in text and "--db DB" in text
    assert "<str>" not in text and "TEXT" not in text
    data = runner.invoke(app, ["data", "show", "tanks"], terminal_width=200)
    assert data.exit_code == 0 and "kursk-salient" in data.output


def test_map_with_only_a_file_writes_your_own_view(tmp_path: Path) -> None:
    """`help` shows `map [SIDE|public|gm] [FILE]`: `map FILE` alone is your own view to FILE,
    not "no viewer"."""
    picture = tmp_path / "mine.png"
    played = runner.invoke(app, ["play", "stalingrad", "--db", str(tmp_path / "u.db")],
                           input=f"map {picture}\nquit\n")
    assert played.exit_code == 0, played.output
    assert "no viewer" not in played.output
    assert picture.read_bytes().startswith(b"\x89PNG")
