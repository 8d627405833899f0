"""A GM's corrected pack loads with a warning, not a refusal; ``umpire data check --strict``
counts the warnings (the shipped packs pass it). The mechanism is the kernel's
(:class:`adjudicator.kernel.packs.Problems`), shared by both games: the Stalin's Tanks case
is pinned here beside the Turning Point: Stalingrad one."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from adjudicator.kernel.packs import PackWarning, Problems, warnings_of
from adjudicator.stalingrad import data as stalingrad_data
from adjudicator.tanks import data as tanks_data
from bot.cli import app
from tests.packs import copy_pack, edit_text

runner = CliRunner()


def corrected_stalingrad(where: Path) -> Path:
    """19.1 gives a River Bank Area 1 VP: a GM's pack gives Area 69 two."""
    pack = copy_pack(stalingrad_data.DEFAULT_PACK, where)
    text = (pack / "areas.toml").read_text(encoding="utf-8")
    head = text.index("number = 69\n")
    at = text.index("vp = 1\n", head)
    (pack / "areas.toml").write_text(text[:at] + "vp = 2\n" + text[at + len("vp = 1\n"):],
                                     encoding="utf-8")
    return pack


def corrected_tanks(where: Path) -> Path:
    """13.4's Anti-Personnel Table: a GM's pack needs 8 at 1-1 (more than at 2-1)."""
    pack = copy_pack(tanks_data.DEFAULT_PACK, where)
    edit_text(pack / "tables.toml", 'odds = "1-1"\nneed = 6', 'odds = "1-1"\nneed = 8')
    return pack


def test_problems_file_warnings_aside() -> None:
    found = Problems(["units.toml: missing"])
    found += [PackWarning("areas.toml: Area 69: vp is 2, 19.1 gives 1")]
    found.append(PackWarning("x: y"))
    found.extend(["zones.toml: missing"])
    assert list(found) == ["units.toml: missing", "zones.toml: missing"]
    assert found.warnings == ["areas.toml: Area 69: vp is 2, 19.1 gives 1", "x: y"]
    assert found.every(strict=False) == list(found)
    assert found.every(strict=True) == [*found, *found.warnings]
    assert warnings_of(found) == found.warnings and warnings_of(["a"]) == []


def test_corrected_stalingrad_pack_loads_with_a_warning_19_1(tmp_path: Path) -> None:
    pack = corrected_stalingrad(tmp_path)
    problems = stalingrad_data.check_pack(pack)
    assert problems == []
    assert "areas.toml: Area 69: vp is 2, 19.1 gives 1" in problems.warnings
    assert stalingrad_data.load_pack(pack).area(69).vp == 2


def test_corrected_tanks_pack_loads_with_a_warning_13_4(tmp_path: Path) -> None:
    pack = corrected_tanks(tmp_path)
    problems = tanks_data.check_pack(pack)
    assert problems == []
    assert warnings_of(problems) == [
        "tables.toml: anti_personnel: better odds never need a lower roll (13.4)"]
    loaded = tanks_data.load_pack(pack)
    assert [c.need for c in loaded.tables.anti_personnel.column if c.odds == "1-1"] == [8]


def test_a_structural_problem_still_refuses_the_pack(tmp_path: Path) -> None:
    pack = corrected_stalingrad(tmp_path)
    edit_text(pack / "areas.toml", "borders = [31, 32, 43, 61]", "borders = [31, 32, 43, 61, 97]")
    problems = stalingrad_data.check_pack(pack)
    assert "areas.toml: Area 41: adjacent to 97, which does not exist" in problems
    with pytest.raises(stalingrad_data.PackError):
        stalingrad_data.load_pack(pack)


@pytest.mark.parametrize("game", ["stalingrad", "tanks"])
def test_shipped_packs_pass_the_strict_check(game: str) -> None:
    module = stalingrad_data if game == "stalingrad" else tanks_data
    result = runner.invoke(app, ["data", "check", "--strict", str(module.DEFAULT_PACK)])
    assert result.exit_code == 0, result.output
    assert "warning" not in result.output and f"a valid {game} pack" in result.output


@pytest.mark.parametrize("corrected", [corrected_stalingrad, corrected_tanks])
def test_data_check_warns_and_strict_refuses(corrected: object, tmp_path: Path) -> None:
    assert callable(corrected)
    pack = corrected(tmp_path)
    result = runner.invoke(app, ["data", "check", str(pack)])
    assert result.exit_code == 0, result.output
    count = result.output.count("warning: ")
    assert count >= 1 and f"{count} warning(s)" in result.output
    assert "problem(s)" not in result.output
    strict = runner.invoke(app, ["data", "check", "--strict", str(pack)])
    assert strict.exit_code == 1, strict.output
    assert f"{count} problem(s)" in strict.output and "a valid" not in strict.output


def test_a_game_starts_with_a_corrected_pack_and_says_what_differs(tmp_path: Path) -> None:
    pack = corrected_stalingrad(tmp_path)
    result = runner.invoke(app, ["play", "stalingrad", "--pack", str(pack), "--db",
                                 str(tmp_path / "u.db")], input="quit\n")
    assert result.exit_code == 0, result.output
    assert "warning: areas.toml: Area 69: vp is 2, 19.1 gives 1" in result.output.replace(
        "\n", " ")


def test_a_changed_rule_constant_is_a_warning_5_7(tmp_path: Path) -> None:
    pack = copy_pack(stalingrad_data.DEFAULT_PACK, tmp_path)
    edit_text(pack / "tables.toml", "initial_rubble_threshold = 7\n",
              "initial_rubble_threshold = 5\n")
    problems = stalingrad_data.check_pack(pack)
    assert problems == [] and problems.warnings == [
        "tables.toml: constants: initial_rubble_threshold is 5, 5.7 says 7"]
    assert stalingrad_data.load_pack(pack).tables.constants.initial_rubble_threshold == 5
