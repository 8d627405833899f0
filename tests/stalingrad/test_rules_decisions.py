"""Decisions the rules hand a player beyond the attack: which units continue a retreat out
of a full Area (8.355, 8.3553), where a continued retreat goes (8.3551), and German
reinforcements split among the entry Zones (6.2, 18.2) — each with a legal default and a
standing order."""

from __future__ import annotations

from typing import Any

import pytest

from adjudicator.kernel.dice import FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.state import StalingradState

GAME = StalingradGame()
# 3 is attacked; 4 is the only Area open to retreat (Free, Russian); 5 and 6 lie beyond it.
MAP = {"areas": [{"key": str(k), "tem": 1} for k in range(1, 7)]
       + [{"key": z, "zone": True, "tem": 1} for z in "CDEF"],
       "links": [["2", "3"], ["3", "4"], ["4", "5"], ["4", "6"], ["1", "C"], ["C", "D"],
                 ["D", "E"], ["E", "F"], ["1", "2"]]}
CONTROL = {"1": "german", "2": "german", "3": "russian", "4": "russian", "5": "russian",
           "6": "russian", "C": "german", "D": "german", "E": "russian", "F": "german"}


def unit(uid: str, side: str, area: str, **extra: Any) -> dict[str, Any]:
    return {"id": uid, "side": side, "kind": "infantry", "attack": 3, "defense": 3,
            "spent_defense": 2, "mf": 5, "area": area, **extra}


def position(units: list[dict[str, Any]], **extra: Any) -> StalingradState:
    pos: dict[str, Any] = {"date": "S15", "day": True, "box": 2, "to_act": "german",
                           "advantage_used": True, "map": MAP, "units": units,
                           "control": CONTROL}
    pos.update(extra)
    return GAME.case_position(pos)


def overfull(**extra: Any) -> StalingradState:
    """Three Spent Russians in 3 retreat into 4, which already holds eight."""
    units = [unit("g1", "german", "2", attack=9),
             unit("ra", "russian", "3", fresh=False, defense=5, spent_defense=4),
             unit("rb", "russian", "3", fresh=False, spent_defense=1),
             unit("rc", "russian", "3", fresh=False, spent_defense=2)]
    units += [unit(f"r{i}", "russian", "4") for i in range(8)]
    return position(units, **extra)


def attack_and_retreat(state: StalingradState) -> StalingradState:
    # Ranged 10:6 (9 + 1 German daylight vs Spent 4 + doubled TEM 2); DRs 2 and 3: 12:9,
    # 3 CP (the Group could pay 6): the three retreat, one CP each.
    state = GAME.apply_text(state, "german", "attack 3 with g1", FixedDice([1, 1, 1, 2])).state
    assert state.pending is not None and state.pending.kind == "casualties"
    return GAME.apply_text(state, "russian", "decide casualties retreat ra rb rc",
                           FixedDice()).state


def test_owner_chooses_who_continues_out_of_a_full_area_8_3553() -> None:
    state = attack_and_retreat(overfull())
    pending = state.pending
    assert pending is not None and pending.kind == "overflow" and pending.side == "russian"
    assert pending.rule == "8.3553"
    # Default: the strongest (ra, spent 4; rc, spent 2) stay, the weakest goes on.
    assert pending.default == "decide overflow rb"
    assert pending.option_orders() == ["decide overflow rb", "decide overflow ra"]
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "russian", "decide overflow ra rb", FixedDice())
    assert error.value.rule == "8.3553"
    with pytest.raises(RuleError):
        GAME.apply_text(state, "russian", "decide overflow r1", FixedDice())
    # The owner picks ra to go on instead; it must then choose between 5 and 6 (8.3551).
    state = GAME.apply_text(state, "russian", "decide overflow ra", FixedDice()).state
    assert {u: state.units[u].loc for u in ("rb", "rc")} == {"rb": "4", "rc": "4"}
    pending = state.pending
    assert pending is not None and pending.kind == "retreat"
    assert pending.option_orders() == ["decide retreat 5", "decide retreat 6"]
    state = GAME.apply_text(state, "russian", "decide retreat 6", FixedDice()).state
    assert state.units["ra"].loc == "6" and state.pending is None and state.battle is None
    assert len([u for u, s in state.units.items() if s.loc == "4"]) == 10  # 7.1


def test_overflow_standing_orders_answer_at_once_8_3553() -> None:
    state = overfull(standing={"russian": {"overflow": "weakest-stay", "retreat": "first"}})
    state = attack_and_retreat(state)
    assert state.pending is None
    # weakest-stay: rb (1) and rc (2) stay, ra (4) continues to the first Area, 5.
    assert state.units["ra"].loc == "5"
    assert state.units["rb"].loc == "4" and state.units["rc"].loc == "4"


def test_a_retreat_through_a_full_area_needs_no_choice_8_355() -> None:
    units = [unit("g1", "german", "2", attack=9),
             unit("ra", "russian", "3", fresh=False, spent_defense=4)]
    units += [unit(f"r{i}", "russian", "4") for i in range(10)]
    state = position(units)
    # 10:6, DRs 2 and 5: 12:11, one CP.
    state = GAME.apply_text(state, "german", "attack 3 with g1", FixedDice([1, 1, 2, 3])).state
    state = GAME.apply_text(state, "russian", "decide casualties retreat ra", FixedDice()).state
    pending = state.pending
    assert pending is not None and pending.kind == "retreat"  # 5 or 6, beyond the full 4
    state = GAME.apply_text(state, "russian", pending.default, FixedDice()).state
    assert state.units["ra"].loc == "5"


def reinforcement_dawn(**extra: Any) -> StalingradState:
    units = [unit("g1", "german", "1"), unit("r1", "russian", "5")]
    units += [unit(f"n{i}", "german", "pool", arrival="S16") for i in range(5)]
    state = position(units, day=False, box=9, **extra)
    return GAME.apply_text(state, "german", "pass", FixedDice([1, 1])).state


def test_german_reinforcements_may_be_split_among_zones_6_2_18_2() -> None:
    state = reinforcement_dawn()
    pending = state.pending
    assert pending is not None and pending.kind == "reinforcements"
    assert pending.data["zones"] == ["C", "D", "F"]  # E is Russian-controlled
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "german", "decide reinforcements n0 in E", FixedDice())
    assert error.value.rule == "18.2"
    state = GAME.apply_text(state, "german", "decide reinforcements n0 n1 in D",
                            FixedDice()).state
    pending = state.pending
    assert pending is not None and pending.data["units"] == ["n2", "n3", "n4"]
    state = GAME.apply_text(state, "german", "decide reinforcements n2 delay", FixedDice()).state
    state = GAME.apply_text(state, "german", "decide reinforcements F", FixedDice()).state
    assert state.pending is None
    locs = {u: state.units[u].loc for u in ("n0", "n1", "n2", "n3", "n4")}
    assert locs == {"n0": "D", "n1": "D", "n2": "offboard", "n3": "F", "n4": "F"}
    # The delayed unit enters later by paying the entry MF (6.2, 18.2).
    state = GAME.apply_text(state, "russian", "pass", FixedDice()).state
    state = GAME.apply_text(state, "german", "move n2 to C", FixedDice()).state
    assert state.units["n2"].loc == "C"


def test_spread_standing_order_shares_reinforcements_out_6_2() -> None:
    state = reinforcement_dawn(standing={"german": {"reinforcements": "spread"}})
    assert state.pending is None
    locs = sorted(state.units[f"n{i}"].loc for i in range(5))
    assert locs == ["C", "C", "D", "D", "F"]


def test_reinforcement_notation_round_trips() -> None:
    for text in ("decide reinforcements C", "decide reinforcements delay",
                 "decide reinforcements n0 n1 in D", "decide reinforcements n2 delay",
                 "decide overflow ra rb"):
        assert GAME.format(GAME.parse(text)) == text
