"""The conformance runner reports every deviation of a case as a failure."""

from __future__ import annotations

from pathlib import Path

from adjudicator.kernel.conformance import run_paths
from adjudicator.registry import load_game

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
