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
    # the console wraps at its width: words at a space, a long temporary path anywhere
    words, joined = " ".join(result.output.split()), result.output.replace("\n", "")
    assert "KeyError: 'opening'" in words and "step 1 (red: pass)" in words
    assert "2 passed, 1 failed" in words
    assert "b-fine.toml" in joined and "c-fine.toml" in joined


def run_text(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "case.toml"
    path.write_text(text, encoding="utf-8")
    [result] = run_paths([path], load_game)
    return result.failures


SAWMILL_STUKA = """
game = "stalingrad"
source = "Kuibyshev Sawmill 5"
title = "the scenario's own rule applies to the case"
{scenario}
[position]
date = "S14"
box = 2
to_act = "german"
advantage_used = true
control = {{ "1" = "german", "2" = "russian", "C" = "german" }}
map.areas = [{{ key = "1", tem = 1, quadrant = "south" }}, \
{{ key = "2", tem = 2, quadrant = "south" }}, \
{{ key = "C", zone = true, tem = 1, quadrants = ["south"], supply = "german" }}]
map.links = [["1", "2"], ["C", "1"]]
units = [{{ id = "g-stuka", side = "german", kind = "air", area = "box" }}, \
{{ id = "r1", side = "russian", kind = "infantry", attack = 2, defense = 3, \
spent_defense = 2, mf = 4, area = "2" }}]

[[steps]]
side = "german"
order = "attack 2 with g-stuka"
error_rule = "Sawmill 5"
"""


def test_a_case_chooses_a_scenario_and_its_special_rules_apply(tmp_path: Path) -> None:
    """The Sawmill's rule 5 (Stukas on odd days only) applies with ``scenario = "sawmill"``
    and without any internal option key; without the scenario the Stuka attacks."""
    assert run_text(tmp_path, SAWMILL_STUKA.format(scenario='scenario = "sawmill"')) == []
    failures = run_text(tmp_path, SAWMILL_STUKA.format(scenario=""))
    assert failures and "expected rule Sawmill 5" in failures[0]


def test_an_unknown_scenario_is_a_failure_naming_the_scenarios(tmp_path: Path) -> None:
    [failure] = run_text(tmp_path, SAWMILL_STUKA.format(scenario='scenario = "mill"'))
    assert "unknown scenario 'mill'" in failure and "sawmill" in failure


def test_a_tanks_scenario_keeps_its_entry_rules_25_1(tmp_path: Path) -> None:
    """25.1 First Encounter: the German enters road-bound; the case chooses the scenario
    and states no flag."""
    text = """
game = "tanks"
scenario = "first-encounter"
source = "25.1"
title = "road-bound entry"
[position]
blank_map = true
roads = ["0101", "0102"]
units = [{ id = "p", side = "german", type = "panther", enter_edges = ["N"] }]
[[steps]]
side = "german"
order = "move p 0501"
error_rule = "25.1"
"""
    assert run_text(tmp_path, text) == []
    assert run_text(tmp_path, text.replace('scenario = "first-encounter"\n', ""))


def test_no_winner_yet(tmp_path: Path) -> None:
    assert run(tmp_path, PASSING + "[[expect]]\nno_winner = true\n") == []
    [failure] = run(tmp_path, PASSING + "[[expect]]\nno_winner = false\n")
    assert "no winner yet: expected False, got True" in failure


SEES = """
game = "tanks"
source = "20.0, 25.7"
title = "what each side sees"
[position]
blank_map = true
phasing = "soviet"
units = [
    { id = "gun", side = "german", type = "pak-88", hex = "1014", hidden = true },
    { id = "tank", side = "german", type = "panther", hex = "0510", concealed = true },
    { id = "ivh", side = "german", type = "ivh", hex = "0310", facing = "S" },
    { id = "t34", side = "soviet", type = "t34a", hex = "1009", facing = "S" },
]
[[expect]]
after = 0
sees = [{ side = "soviet", visible = ["ivh", "t34"], concealed = ["tank"], absent = ["gun"] },
        { side = "german", visible = ["gun", "tank", "ivh", "t34"] }]
"""


def test_a_case_states_what_a_side_sees_20_0_25_7(tmp_path: Path) -> None:
    assert run_text(tmp_path, SEES) == []
    wrong = SEES.replace('concealed = ["tank"], absent = ["gun"]',
                         'concealed = ["gun"], absent = ["tank"]')
    failures = run_text(tmp_path, wrong)
    assert any("soviet sees gun: expected concealed, got absent" in f for f in failures)
    assert any("soviet sees tank: expected absent, got concealed" in f for f in failures)
    leak = SEES.replace('visible = ["ivh", "t34"]', 'visible = ["ivh", "t34", "gun"]')
    assert any("expected visible, got absent" in f for f in run_text(tmp_path, leak))


def test_docs_list_every_key_the_runner_and_the_games_accept() -> None:
    """docs/conformance.md names every case, step and expectation key (as `key`) that the
    runner or a game's case adapter reads."""
    from adjudicator.kernel.conformance import GENERIC_KEYS, Case, Step
    from adjudicator.stalingrad.game import CHECK_KEYS
    from adjudicator.tanks.game import CASE_OTHER_KEYS, CASE_POSITION_KEYS, CASE_UNIT_KEYS

    docs = (Path(__file__).parents[2] / "docs" / "conformance.md").read_text(encoding="utf-8")
    keys = {*Case.model_fields, *Step.model_fields, *GENERIC_KEYS, *CHECK_KEYS,
            *CASE_POSITION_KEYS, *CASE_UNIT_KEYS, *CASE_OTHER_KEYS}
    missing = sorted(k for k in keys if f"`{k}`" not in docs and f"`{k} =" not in docs)
    assert missing == []


R_S = """
game = "stalingrad"
source = "8.2"
title = "a case's own unit r-s is r-s, not the shipped r:stzmil"
[position]
to_act = "russian"
advantage_used = true
control = { "1" = "russian", "2" = "russian" }
map = { areas = [{ key = "1", tem = 1 }, { key = "2", tem = 1 }], links = [["1", "2"]] }
units = [{ id = "r-s", side = "russian", kind = "infantry", attack = 1, defense = 2, \
spent_defense = 1, mf = 4, area = "1" }]
[[steps]]
side = "russian"
order = "move r-s to 2"
[[expect]]
unit = "r-s"
area = "2"
"""


def test_an_exact_unit_id_of_a_case_wins_over_a_prefix_of_a_shipped_counter(
    tmp_path: Path,
) -> None:
    """`r-s` read with its punctuation is no prefix of the pack's `r:stzmil`."""
    from adjudicator.kernel.names import unit_index

    assert run_text(tmp_path, R_S) == []
    names = unit_index([("r:stzmil", ("STZMil infantry",)), ("r-s", ())])
    assert names.resolve("R-S") == "r-s" and names.resolve("r:st") == "r:stzmil"
    assert unit_index([("r:stzmil", ("STZMil infantry",))]).index.candidates("r-s") == []


STZ = R_S.replace("r-s", "stz")


def test_a_case_unit_whose_id_prefixes_a_shipped_counter_name_is_the_case_unit(
    tmp_path: Path,
) -> None:
    """8.2 (names): `stz`, a case's own unit, is a prefix of the shipped `stzmil`; the
    game's own board reads it, and an exact id of a unit in play wins."""
    from adjudicator.stalingrad.game import StalingradGame

    assert run_text(tmp_path, STZ) == []
    game = StalingradGame()
    assert game.parse("move stz to 2").model_dump()["units"] == ("r:stzmil",)


EXIT = """
game = "tanks"
source = "6.6, 8.2"
title = "the edge a unit exited by"
[position]
blank_map = true
phasing = "german"
units = [{ id = "pz", side = "german", type = "ivh", hex = "3101", facing = "SE" }]
[[steps]]
side = "german"
order = "move pz exit"
[[expect]]
unit = "pz"
exited_edge = "E"
"""


def test_a_case_states_the_edge_a_unit_exited_by_6_6(tmp_path: Path) -> None:
    assert run_text(tmp_path, EXIT) == []
    [failure] = run_text(tmp_path, EXIT.replace('exited_edge = "E"', 'exited_edge = "N"'))
    assert "pz: exited_edge is 'E', expected 'N'" in failure


def test_a_misspelt_tanks_position_key_fails_the_case(tmp_path: Path) -> None:
    [failure] = run_text(tmp_path, EXIT.replace("blank_map", "blank_mapp"))
    assert "unknown position keys ['blank_mapp']" in failure


START = """
game = "stalingrad"
source = "5.1"
title = "a case starting from its scenario states nothing else of the position"
scenario = "historical"
[position]
start = true
date = "S15"
"""


def test_a_case_starting_from_its_scenario_may_not_restate_the_position_5_1(
    tmp_path: Path,
) -> None:
    """5.1: `start = true` is the scenario's own first position; a position key beside it
    (which it would silently override) fails the case, naming what may be given."""
    [failure] = run_text(tmp_path, START)
    assert "['date'] cannot be used with start = true" in failure
    assert run_text(tmp_path, START.replace('date = "S15"\n', "")) == []
