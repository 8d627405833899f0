"""The umpire command: local play, conformance, unfinished commands fail loudly."""

from __future__ import annotations

from typer.testing import CliRunner

from bot.cli import app

runner = CliRunner()
DUEL = "tests.kernel.duel:DuelGame"


def test_play_runs_a_hot_seat_game_to_the_end() -> None:
    script = "\n".join([
        "trap 1", "move r1 2", "move b2 3", "attack r1 3", "decide lose",
        "move b1 4", "move r1 3", "pass", "attack r1 4", "decide lose",
    ]) + "\n"
    # With this seed both attacks hit; the seed is shown at the end for verification.
    result = runner.invoke(app, ["play", DUEL, "--seed", "00000000"], input=script)
    assert result.exit_code == 0, result.output
    assert "Dice commitment:" in result.output
    assert "Game over: red wins" in result.output
    assert "Dice seed (check the commitment): 00000000" in result.output
    assert "Dice verified: yes" in result.output


def test_play_reports_illegal_orders_with_their_rule() -> None:
    result = runner.invoke(app, ["play", DUEL], input="trap 3\nmove r1 5\nquit\n")
    assert result.exit_code == 0
    assert "D2" in result.output and "not adjacent" in result.output


def test_play_unknown_game_is_a_clear_error() -> None:
    result = runner.invoke(app, ["play", "chess"])
    assert result.exit_code == 2 and "unknown game 'chess'" in result.output


def test_conformance_command_runs_the_duel_cases() -> None:
    result = runner.invoke(app, ["conformance", "tests/conformance/duel"])
    assert result.exit_code == 0, result.output
    assert "4 passed, 0 failed" in result.output


def test_unfinished_commands_exit_non_zero() -> None:
    for command in ("mail", "bench"):
        result = runner.invoke(app, [command])
        assert result.exit_code != 0
        assert "not available yet" in result.output
