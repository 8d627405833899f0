"""The conformance runner reports every deviation of a case as a failure."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from adjudicator.kernel.conformance import run_paths
from adjudicator.kernel.dice import Dice
from adjudicator.kernel.events import Event
from adjudicator.kernel.orders import Order
from adjudicator.registry import load_game, register
from bot.cli import app
from tests.kernel.duel import DuelGame, DuelState, Pass

HEAD = """
game = "duel"
plugin = "tests.kernel.duel:DuelGame"
source = "Duel D3"
title = "t"
[position]
to_act = "red"
trap = "5"
units = [
    { id = "r1", side = "red", cell = "2", strength = 3 },
    { id = "b1", side = "blue", cell = "3", strength = 3 },
]
"""


def run(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "case.toml"
    path.write_text(HEAD + body, encoding="utf-8")
    [result] = run_paths([path], load_game)
    return result.failures


def test_a_correct_case_passes(tmp_path: Path) -> None:
    body = '[[steps]]\nside = "red"\norder = "attack r1 3"\ndice = [1, 1]\n' \
           '[[expect]]\nevent = { kind = "attack", total = 5, hit = false }\n'
    assert run(tmp_path, body) == []


def test_wrong_expectation_fails(tmp_path: Path) -> None:
    body = '[[steps]]\nside = "red"\norder = "attack r1 3"\ndice = [1, 1]\n' \
           '[[expect]]\nevent = { kind = "attack", total = 6 }\n'
    [failure] = run(tmp_path, body)
    assert "no event matching" in failure


def test_unused_dice_fail(tmp_path: Path) -> None:
    body = '[[steps]]\nside = "red"\norder = "move r1 1"\ndice = [3]\n'
    [failure] = run(tmp_path, body)
    assert "dice left unused: [3]" in failure


def test_missing_dice_fail(tmp_path: Path) -> None:
    body = '[[steps]]\nside = "red"\norder = "attack r1 3"\ndice = [3]\n'
    [failure] = run(tmp_path, body)
    assert "no fixed die left" in failure


def test_expected_error_that_does_not_happen_fails(tmp_path: Path) -> None:
    body = '[[steps]]\nside = "red"\norder = "move r1 1"\nerror_rule = "D2"\n'
    [failure] = run(tmp_path, body)
    assert "expected rule D2, got no error" in failure


def test_wrong_rule_cited_fails(tmp_path: Path) -> None:
    body = '[[steps]]\nside = "red"\norder = "move r1 4"\nerror_rule = "D3"\n'
    [failure] = run(tmp_path, body)
    assert "expected rule D3" in failure and "D2" in failure


def test_unreadable_case_is_a_failure_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("game = \n", encoding="utf-8")
    [result] = run_paths([path], load_game)
    assert not result.passed and "cannot read case" in result.failures[0]


class CrashingDuel(DuelGame):
    """Duel with a defect: its ``pass`` raises the way a missing table key would."""

    def resolve(self, state: DuelState, side: str, order: Order, dice: Dice) -> list[Event]:
        if isinstance(order, Pass):
            raise KeyError("opening")
        return super().resolve(state, side, order, dice)


register("tests.kernel.crashing-duel", CrashingDuel)
CRASHING = HEAD.replace("tests.kernel.duel:DuelGame", "tests.kernel.crashing-duel")
PASSING = '[[steps]]\nside = "red"\norder = "attack r1 3"\ndice = [1, 1]\n'


def test_a_crashing_step_is_a_failed_case_naming_the_step_and_the_exception(
    tmp_path: Path,
) -> None:
    path = tmp_path / "crash.toml"
    path.write_text(CRASHING + '[[steps]]\nside = "red"\norder = "move r1 1"\n'
                    '[[steps]]\nside = "blue"\norder = "pass"\n', encoding="utf-8")
    [result] = run_paths([path], load_game)
    assert result.failures == ["step 2 (blue: pass): crashed: KeyError: 'opening'"]


def test_a_crash_in_a_case_check_is_a_failure(tmp_path: Path) -> None:
    class Boom(DuelGame):
        def case_check(self, state: DuelState, expect: object) -> list[str]:
            raise ZeroDivisionError("defect")

    path = tmp_path / "case.toml"
    path.write_text(HEAD + PASSING + '[[expect]]\nunit = "r1"\ncell = "2"\n',
                    encoding="utf-8")
    [result] = run_paths([path], lambda name: Boom())
    assert len(result.failures) == 1
    assert "crashed: ZeroDivisionError: defect" in result.failures[0]


def test_the_run_goes_on_after_a_crashing_case_and_the_exit_code_says_failure(
    tmp_path: Path,
) -> None:
    """`umpire conformance FOLDER`: the crashing case is reported, the others still run."""
    (tmp_path / "a-crash.toml").write_text(
        CRASHING + '[[steps]]\nside = "red"\norder = "pass"\n', encoding="utf-8")
    (tmp_path / "b-fine.toml").write_text(HEAD + PASSING, encoding="utf-8")
    (tmp_path / "c-fine.toml").write_text(HEAD + PASSING, encoding="utf-8")
    result = CliRunner().invoke(app, ["conformance", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "KeyError: 'opening'" in result.output and "step 1 (red: pass)" in result.output
    assert "2 passed, 1 failed" in result.output
    assert "b-fine.toml" in result.output and "c-fine.toml" in result.output
