"""The Kuibyshev Sawmill introductory scenario (rulebook, its rules 1-7) and the end of
the week (6.4, 19.2)."""

from __future__ import annotations

import pytest

from adjudicator.kernel.dice import FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.crossing import interdiction
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.places import BOX, OFFBOARD, OUT, POOL
from adjudicator.stalingrad.state import StalingradState

GAME = StalingradGame()
pytestmark = pytest.mark.skipif(not GAME.has_pack(), reason="needs the shipped data pack")
SOUTH = {"1", "2", "3", "4", "5", "26", "27", "28", "29", "30", "31", "32", "33", "41", "43",
         "44", "61", "62"}
SAWMILL_COLOURS = {"russian": {"grey", "purple"}, "german": {"grey", "purple", "orange"}}


def started() -> StalingradState:
    """After the initial Rubble, with no Advantage questions (9.4) in the way."""
    state = GAME.setup("sawmill")
    for side in ("german", "russian"):
        state = GAME.apply_text(state, side, "standing advantage never", FixedDice()).state
    return GAME.apply_text(state, "german", "rubble", FixedDice([1, 1, 1])).state


def test_only_the_south_quadrant_is_played_rule_1() -> None:
    state = GAME.setup("sawmill")
    board = GAME.board_for(state)
    assert set(board.areas) == SOUTH | {"A", "B", "C"}
    assert "6" not in board.adjacent("5") and "6" not in board.adjacent("C")
    assert set(state.control) == set(board.areas)
    # Initial Rubble is rolled in 33, 61 and 62 only (rule 1, 5.7).
    outcome = GAME.apply_text(state, "german", "standing advantage never", FixedDice())
    outcome = GAME.apply_text(outcome.state, "german", "rubble", FixedDice([6, 1, 6]))
    rolled = [e.data["area"] for e in outcome.events if e.kind == "initial-rubble"]
    assert rolled == ["33", "61", "62"]
    assert outcome.state.rubble == {"33": 1, "62": 1}
    with pytest.raises(RuleError):
        GAME.apply_text(outcome.state, "german", "move g71:i/194 to 6", FixedDice())


def test_setup_by_colour_and_the_extra_units_rule_2() -> None:
    state = GAME.setup("sawmill")
    board = GAME.pack_board
    for uid, unit in state.units.items():
        d = board.units[uid]
        colours = {c.split("-")[0] for c in d.setup}
        if uid in ("g:stuka", "r:fag-s"):
            assert unit.loc == BOX  # the Luftwaffe (rule 5) and the South FAG (rule 2)
        elif uid.startswith("g71:") and uid.endswith("/194"):
            assert unit.loc == "5"  # the three yellow units
        elif uid.startswith("r10nkvd:") and uid.endswith("/272"):
            assert unit.loc == OFFBOARD  # the 272nd enters in Area 61
        elif d.setup and colours & SAWMILL_COLOURS[d.side]:
            assert unit.loc == d.historical
        elif d.arrival is not None and 0 < d.arrival <= 6:
            assert unit.loc == POOL  # a reinforcement of the week (rule 6)
        else:
            assert unit.loc == OUT, uid
    on_map = [u for u, s in state.units.items() if s.loc in SOUTH]
    assert len(on_map) > 40


def test_the_272nd_enters_area_61_in_a_russian_impulse_rule_2() -> None:
    state = started()
    state = GAME.apply_text(state, "german", "pass", FixedDice()).state
    assert GAME.acting_side(state) == "russian"
    legal = GAME.legal_orders(state, "russian")
    assert any(o.startswith("move r10nkvd:i/272 to 61") for o in legal)
    with pytest.raises(RuleError) as error:  # a path entering anywhere else is refused
        GAME.apply_text(state, "russian", "move r10nkvd:i/272 via 62 to 61", FixedDice())
    assert error.value.rule == "18.2"
    # a destination beyond it is reached through it (8.2: the cheapest path)
    beyond = GAME.apply_text(state, "russian", "move r10nkvd:i/272 to 62", FixedDice())
    assert any(e.kind == "path" and e.data["path"] == ["61", "62"] for e in beyond.events)
    state = GAME.apply_text(state, "russian", "move r10nkvd:i/272 r10nkvd:ii/272 to 61",
                            FixedDice()).state
    assert state.units["r10nkvd:i/272"].loc == "61"


def test_two_spaces_per_german_impulse_and_sunset_after_six_rule_4() -> None:
    state = started()
    boxes = []
    # Passes stand in for impulses; no two count as consecutive (8.14 would flip).
    for _ in range(6):
        state = state.model_copy(update={"passes": 0})
        state = GAME.apply_text(state, "german", "pass", FixedDice()).state  # no impulse DR
        boxes.append((state.day, state.box))
        if state.day:
            state = state.model_copy(update={"passes": 0})
            state = GAME.apply_text(state, "russian", "pass", FixedDice()).state
    assert boxes[:5] == [(True, 3), (True, 5), (True, 7), (True, 9), (True, 11)]
    assert boxes[5] == (False, 3)  # Sunset after the German impulse on space 11
    assert GAME.acting_side(state) == "russian"


def test_impulse_marker_never_passes_space_11_rule_4() -> None:
    state = started()
    state = state.model_copy(update={"date": 1, "box": 9, "german_impulses_today": 0})
    state = GAME.apply_text(state, "german", "pass", FixedDice([6, 6])).state
    assert state.box == 11
    state = GAME.apply_text(state, "russian", "pass", FixedDice()).state  # both passed
    assert not state.day


def test_reinforcements_arrive_on_a_dr_of_1_to_3_in_zone_b_rule_6() -> None:
    state = started()
    board = GAME.board_for(state)
    due = sorted(u for u, s in state.units.items()
                 if s.loc == POOL and board.units[u].arrival == 1)
    assert due, "the pack schedules reinforcements for September 14"
    night = state.model_copy(update={"day": False, "box": 11, "german_impulses_today": 12,
                                     "turn": "german"})
    dice = [5, 6] + [1 if i % 2 == 0 else 6 for i in range(len(due))]
    # German impulse DR 11 <= 11: Dawn of September 14, then one dr per arrival.
    outcome = GAME.apply_text(night, "german", "pass", FixedDice(dice))
    state = outcome.state
    rolls = [e for e in outcome.events if e.kind == "reinforcement-dr"]
    assert len(rolls) == len(due)
    for event in rolls:
        uid = event.data["unit"]
        expected_out = event.data["dr"] > 3
        assert (state.units[uid].loc == OUT) == expected_out
    german = [e.data["unit"] for e in rolls if e.data["arrives"]
              and board.units[e.data["unit"]].side == "german"]
    if german:
        assert state.pending is not None and state.pending.kind == "reinforcements"
        assert state.pending.data["zones"] == ["B"]


def test_interdiction_point_for_mamayev_kurgan_from_september_15_rule_7() -> None:
    state = started()
    board = GAME.board_for(state)
    assert "56" not in board.areas
    ip14, _ = interdiction(Ctx(board, state.model_copy(update={"date": 1})), "62")
    ip15, parts = interdiction(Ctx(board, state.model_copy(update={"date": 2})), "62")
    assert ip15 == ip14 + 1
    assert ("A Mamayev Kurgan", 1) in parts


def week_end(control: dict[str, str]) -> StalingradState:
    """The night of September 19 ending, the German holding the South's non-VP Areas (so
    he can trace supply to his VP Areas, 19.1) and the VP Areas in ``control``."""
    state = started()
    held = {k: "german" for k in SOUTH if k not in ("30", "31", "61", "62")}
    night = state.model_copy(update={"date": 6, "day": False, "box": 11,
                                     "german_impulses_today": 12, "turn": "german",
                                     "control": {**state.control, **held, **control}})
    return GAME.apply_text(night, "german", "pass", FixedDice([5, 6])).state


def test_german_wins_with_four_vp_at_the_end_of_the_week_rule_3() -> None:
    state = week_end({"31": "german", "62": "german"})
    assert state.result is not None and state.result.startswith("german wins: German 4 VP")
    assert GAME.acting_side(state) is None
    with pytest.raises(RuleError):
        GAME.apply_text(state, "russian", "pass", FixedDice())


def test_russian_wins_by_denying_the_german_rule_3() -> None:
    state = week_end({"31": "german", "61": "german"})
    assert state.result is not None and state.result.startswith("russian wins")
    assert "3 VP" in state.result


def test_end_of_week_decides_against_the_blue_number_6_4_19_2() -> None:
    state = GAME.setup("historical")
    state = GAME.apply_text(state, "german", "standing advantage never", FixedDice()).state
    state = GAME.apply_text(state, "german", "rubble", FixedDice([1] * 8)).state
    night = state.model_copy(update={"date": 6, "day": False, "box": 12,
                                     "german_impulses_today": 12, "turn": "german"})
    outcome = GAME.apply_text(night, "german", "pass", FixedDice([5, 6]))
    report = next(e for e in outcome.events if e.kind == "end-of-week")
    blue = GAME.pack_board.blue[1]
    assert report.data["week"] == 1 and report.data["blue"] == blue
    assert report.data["vp"] == 2  # Zone H (a Ferry Landing) is German at start (19.1)
    assert outcome.state.result is not None
    assert outcome.state.result.startswith("russian wins")  # 2 < blue (19.2)
    assert outcome.state.date == 7
