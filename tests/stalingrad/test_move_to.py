"""Move by destination (8.2): ``move UNIT to AREA`` takes the cheapest legal path, ties
broken as docs/rulings.md states, says which path it took; the legal list offers each
destination once with its cost."""

from __future__ import annotations

from typing import Any

import pytest

from adjudicator.kernel.dice import FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.state import StalingradState

GAME = StalingradGame()
# A diamond 1-2-4 / 1-3-4 with a tail 4-5, and a long way round 1-6-7-5.
MAP = {"areas": [{"key": k, "tem": 1} for k in ("1", "2", "3", "4", "5", "6", "7", "8")],
       "links": [["1", "2"], ["1", "3"], ["2", "4"], ["3", "4"], ["4", "5"], ["1", "6"],
                 ["6", "7"], ["7", "5"], ["2", "8"]]}


def unit(uid: str, side: str, area: str, **extra: Any) -> dict[str, Any]:
    base = {"id": uid, "side": side, "kind": "infantry", "attack": 3, "defense": 3,
            "spent_defense": 2, "mf": 4, "area": area}
    return {**base, **extra}


def position(units: list[dict[str, Any]], day: bool = False) -> StalingradState:
    return GAME.case_position({"date": "S15", "day": day, "box": 2, "to_act": "german",
                               "advantage_used": True, "map": MAP, "units": units})


def moved(state: StalingradState, text: str) -> tuple[StalingradState, list[str], int]:
    outcome = GAME.apply_text(state, "german", text, FixedDice())
    (path,) = [e for e in outcome.events if e.kind == "path"]
    return outcome.state, path.data["path"], path.data["mf"]


def test_a_destination_two_areas_away_is_reached_by_the_cheapest_path_8_2() -> None:
    state = position([unit("g1", "german", "1"), unit("r9", "russian", "7")])
    after, path, mf = moved(state, "move g1 to 5")
    assert after.units["g1"].loc == "5"
    # 1-2-4-5 and 1-3-4-5 cost 3 at night; 1-6-7-5 enters the Russian in 7 (stops there)
    assert path == ["2", "4", "5"] and mf == 3


def test_equal_paths_fewer_areas_then_lower_areas_first() -> None:
    # 2 costs 2 MF by day next to the Fresh Russian in 6's neighbour... keep it plain:
    # at night every vacant Area costs 1, so 1-2-4 and 1-3-4 tie: Area 2 comes first.
    state = position([unit("g1", "german", "1")])
    _, path, _ = moved(state, "move g1 to 4")
    assert path == ["2", "4"]


def test_a_costlier_area_is_avoided_by_day_8_23b() -> None:
    # By day Area 2 costs 2 MF: it is next to the Fresh Russian in 8 (case B); 3 costs 1.
    state = position([unit("g1", "german", "1"), unit("r1", "russian", "8")], day=True)
    _, path, mf = moved(state, "move g1 to 4")
    assert path == ["3", "4"] and mf == 2


def test_an_adjacent_destination_moves_there_directly() -> None:
    state = position([unit("g1", "german", "1")])
    outcome = GAME.apply_text(state, "german", "move g1 to 2", FixedDice())
    assert outcome.state.units["g1"].loc == "2"
    assert not [e for e in outcome.events if e.kind == "path"]


def test_an_unreachable_destination_says_where_the_unit_can_go_8_23() -> None:
    state = position([unit("g1", "german", "1", mf=1)])
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "german", "move g1 to 5", FixedDice())
    assert error.value.rule == "8.2"
    assert "g1 can reach" in error.value.message and "2 (1 MF)" in error.value.message
    assert "move g1 to 2" in error.value.legal


def test_via_keeps_the_players_path() -> None:
    state = position([unit("g1", "german", "1")])
    outcome = GAME.apply_text(state, "german", "move g1 via 3 4 to 5", FixedDice())
    assert [e.data["area"] for e in outcome.events if e.kind == "move"] == ["3", "4", "5"]


def test_an_mf_refusal_names_each_cost_8_23() -> None:
    state = position([unit("g1", "german", "1", mf=2)])
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "german", "move g1 via 2 4 to 5", FixedDice())
    message = error.value.message
    assert error.value.rule == "8.23"
    assert "2 1 (case A: vacant) + 4 1 (case A: vacant) + 5 1 (case A: vacant) = 3 MF" \
        in message.replace("Area ", "")
    assert "but it has 2 (printed MF 2" in message


def test_the_legal_list_offers_each_destination_once_with_its_cost() -> None:
    state = position([unit("g1", "german", "1")])
    options = [o for o in GAME.legal_options(state, "german") if o.order.startswith("move")]
    orders = [o.order for o in options]
    assert len(orders) == len(set(orders))
    assert "move g1 to 5" in orders and not any(" via " in o for o in orders)
    label = next(o.label for o in options if o.order == "move g1 to 5")
    assert label.startswith("3 MF")
    for order in orders:  # every one of them is accepted
        GAME.apply_text(state, "german", order, FixedDice())
