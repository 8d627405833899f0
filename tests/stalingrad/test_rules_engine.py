"""TP:S rules behaviours pinned outside the conformance cases (each cites its rule)."""

from __future__ import annotations

from typing import Any

import pytest

from adjudicator.kernel.dice import CommittedDice, FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.state import StalingradState

GAME = StalingradGame()
MAP = {"areas": [{"key": "1", "tem": 1}, {"key": "2", "tem": 2}, {"key": "3", "tem": 3},
                 {"key": "4", "tem": 1}, {"key": "5", "tem": 1}, {"key": "C", "zone": True,
                                                                 "tem": 1}],
       "links": [["1", "2"], ["2", "3"], ["3", "4"], ["3", "5"], ["4", "5"], ["1", "C"]]}


def unit(uid: str, side: str, area: str, **extra: Any) -> dict[str, Any]:
    base = {"id": uid, "side": side, "kind": "infantry", "attack": 3, "defense": 3,
            "spent_defense": 2, "mf": 5, "area": area}
    return {**base, **extra}


def position(units: list[dict[str, Any]], **extra: Any) -> StalingradState:
    pos = {"date": "S15", "day": True, "box": 2, "to_act": "german", "advantage_used": True,
           "map": MAP, "units": units,
           "control": {"1": "german", "2": "german", "3": "russian", "4": "russian",
                       "5": "russian"}}
    pos.update(extra)
    return GAME.case_position(pos)


def test_first_casualty_point_from_the_highest_defense_factor_8_354() -> None:
    state = position([unit("g1", "german", "3", attack=5),
                      unit("r1", "russian", "3", defense=2), unit("r2", "russian", "3",
                                                                   defense=5)])
    # 6:8, 17:14: three CP.
    state = GAME.apply_text(state, "german", "attack 3 with g1", FixedDice([6, 5, 3, 3])).state
    assert state.pending is not None and state.pending.kind == "casualties"
    assert state.pending.data["first_loss"] == "r2"
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "russian", "decide casualties eliminate r1", FixedDice())
    assert error.value.rule == "8.354"


def test_ties_for_the_first_loss_are_the_attackers_choice_8_354() -> None:
    state = position([unit("g1", "german", "3", attack=5),
                      unit("r1", "russian", "3", defense=4, attack=1),
                      unit("r2", "russian", "3", defense=4, attack=2)])
    state = GAME.apply_text(state, "german", "attack 3 with g1", FixedDice([6, 5, 3, 3])).state
    assert state.pending is not None and state.pending.kind == "tie"
    assert state.pending.side == "german"
    assert state.pending.default == "decide tie r2"  # highest Attack Factor by default
    state = GAME.apply_text(state, "german", "decide tie r1", FixedDice()).state
    assert state.pending is not None and state.pending.data["first_loss"] == "r1"


def test_default_casualties_follow_example_4_8_3541() -> None:
    state = position([unit("g1", "german", "3", attack=5, engineer=True),
                      unit("r6", "russian", "3", kind="aa", attack="*", defense=6),
                      unit("r3", "russian", "3", kind="aa", attack="*", defense=3)],
                     control={"1": "german", "2": "german", "3": "russian", "4": "russian",
                              "5": "russian"})
    # 6:6 (AA halved: 3 + TEM 3); 17:14 = three CP: the 6 flipped, the 3 flipped and
    # retreated, as in Example 4.
    outcome = GAME.apply_text(state, "german", "attack 3 with g1", FixedDice([6, 5, 4, 4]))
    pending = outcome.state.pending
    assert pending is not None and pending.kind == "casualties"
    assert pending.data["cp"] == 3
    assert pending.default == "decide casualties disrupt r6, retreat r3"


def test_retreat_priority_leaves_a_choice_between_equal_free_areas_8_3551() -> None:
    state = position([unit("g1", "german", "2"), unit("r1", "russian", "3", fresh=False)])
    # Ranged 4:8, 15:14: one CP.
    state = GAME.apply_text(state, "german", "attack 3 with g1", FixedDice([6, 5, 3, 3])).state
    state = GAME.apply_text(state, "russian", "decide casualties retreat r1", FixedDice()).state
    assert state.pending is not None and state.pending.kind == "retreat"
    assert state.pending.option_orders() == ["decide retreat 4", "decide retreat 5"]
    state = GAME.apply_text(state, "russian", "decide retreat 5", FixedDice()).state
    assert state.units["r1"].loc == "5"
    assert state.units["r1"].recover == state.date + 4  # 10.5


def test_contested_retreat_into_a_friendly_area_rolls_a_dr_8_3552() -> None:
    state = position([unit("g1", "german", "2"), unit("g2", "german", "4"),
                      unit("g3", "german", "4"), unit("r1", "russian", "3", fresh=False),
                      unit("r2", "russian", "4")],
                     control={"1": "german", "2": "german", "3": "russian", "4": "russian",
                              "5": "german"})
    state = GAME.apply_text(state, "german", "attack 3 with g1", FixedDice([6, 5, 3, 3])).state
    outcome = GAME.apply_text(state, "russian", "decide casualties retreat r1 to 4",
                              FixedDice([1, 1]))
    assert outcome.state.units["r1"].loc == "dead"  # DR 2 <= two Germans in 4


def test_state_hash_survives_serialisation() -> None:
    state = position([unit("g1", "german", "2"), unit("r1", "russian", "3")])
    state = GAME.apply_text(state, "german", "move g1 to 1", FixedDice()).state
    again = GAME.load_state(state.to_bytes())
    assert again.state_hash() == state.state_hash()
    assert again == state


def test_refused_order_leaves_state_untouched_and_names_the_rule() -> None:
    state = position([unit("g1", "german", "2", kind="aa", attack="*"),
                      unit("r1", "russian", "2")])
    before = state.state_hash()
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "german", "move g1 to 1", FixedDice())
    assert error.value.rule == "8.21"
    assert state.state_hash() == before


def test_mechanized_units_double_mf_when_not_attacking_8_25() -> None:
    state = position([unit("g1", "german", "C", kind="armor", mf=2, mechanized=True)],
                     control={"1": "german", "2": "german", "3": "german", "4": "german",
                              "5": "german"})
    state = GAME.apply_text(state, "german", "move g1 via 1 2 to 3", FixedDice()).state
    act = state.impulse.acts["g1"]  # type: ignore[union-attr]
    assert act.mf == 3 and act.doubled


def test_motorized_units_may_not_double_into_enemy_controlled_areas_8_26() -> None:
    state = position([unit("g1", "german", "1", mf=1, motorized=True)])
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "german", "move g1 via 2 to 3", FixedDice())
    assert error.value.rule == "8.23"


def test_night_gives_fresh_russians_one_extra_mf_16_3() -> None:
    state = position([unit("r1", "russian", "5", mf=1)], day=False, box=3, to_act="russian",
                     control={"1": "russian", "2": "russian", "3": "russian",
                              "4": "russian", "5": "russian"})
    state = GAME.apply_text(state, "russian", "move r1 via 3 to 2", FixedDice()).state
    assert state.units["r1"].loc == "2"


def test_german_night_attack_adds_one_to_the_russian_dv_8_352c() -> None:
    state = position([unit("g1", "german", "2"), unit("r1", "russian", "3", defense=2)],
                     day=False, box=3)
    state = GAME.apply_text(state, "german", "move g1 to 3", FixedDice()).state
    outcome = GAME.apply_text(state, "german", "attack 3 with g1", FixedDice([1, 1, 6, 6]))
    attack = next(e for e in outcome.events if e.kind == "attack")
    assert attack.data["odds"] == "3:6"  # 2 + TEM 3 + 1 night


def test_date_modifier_from_september_27_8_352f() -> None:
    state = position([unit("g1", "german", "3"), unit("r1", "russian", "3", defense=2)],
                     date="S27")
    outcome = GAME.apply_text(state, "german", "attack 3 with g1", FixedDice([1, 1, 6, 6]))
    attack = next(e for e in outcome.events if e.kind == "attack")
    assert attack.data["odds"] == "4:6"  # 2 + TEM 3 + 1 (German impulse Sept 27-Oct 31)


def test_german_reinforcements_wait_for_a_zone_at_dawn_6_2() -> None:
    state = position([unit("g1", "german", "1"), unit("g9", "german", "pool", arrival="S16")],
                     day=False, box=9, control={"1": "german", "2": "german", "3": "russian",
                                                "4": "russian", "5": "russian", "C": "german"})
    state = GAME.apply_text(state, "german", "pass", FixedDice([1, 1])).state
    assert state.pending is not None and state.pending.kind == "reinforcements"
    state = GAME.apply_text(state, "german", "decide reinforcements C", FixedDice()).state
    assert state.units["g9"].loc == "C"


def test_views_and_board_text() -> None:
    state = position([unit("g1", "german", "2"), unit("r1", "russian", "3")])
    view = GAME.view(state, "public")
    text = GAME.board_text(view)
    assert "g1[3-3-5]" in text and "Sep 15 day" in text


def test_legal_orders_are_accepted() -> None:
    state = position([unit("g1", "german", "2"), unit("g2", "german", "2"),
                      unit("r1", "russian", "3")])
    legal = GAME.legal_orders(state, "german")
    assert "pass" in legal
    moves = [o for o in legal if o.startswith("move")]
    attacks = [o for o in legal if o.startswith("attack")]
    assert moves and attacks
    for text in moves + attacks:
        GAME.apply_text(state, "german", text, CommittedDice(b"s" * 32, "t"))


@pytest.mark.skipif(not GAME.has_pack(), reason="needs the shipped data pack (issue 3)")
def test_historical_setup_and_initial_rubble_on_the_pack_21_2_5_7() -> None:
    state = GAME.setup("historical")
    assert state.phase == "rubble"
    # The German holds the Advantage and would be asked to reroll Rubble (9.4); not here.
    state = GAME.apply_text(state, "german", "standing advantage never", FixedDice()).state
    outcome = GAME.apply_text(state, "german", "rubble", FixedDice([6] * 8))
    rubbled = {e.data["area"] for e in outcome.events if e.kind == "initial-rubble"}
    assert rubbled == {"33", "59", "61", "62", "63", "64", "65", "66"}
    assert outcome.state.phase == "play" and outcome.state.rubble


@pytest.mark.skipif(not GAME.has_pack(), reason="needs the shipped data pack (issue 3)")
def test_free_setup_checks_colour_and_shape_and_russians_first_5_4() -> None:
    state = GAME.setup("basic")
    assert GAME.acting_side(state) == "russian"
    board = GAME.pack_board
    german = next(u for u, d in board.units.items() if d.side == "german" and d.setup)
    with pytest.raises(RuleError):
        GAME.apply_text(state, "german", f"setup {german} in 1", FixedDice())
    russian = next(u for u, d in board.units.items() if d.side == "russian" and d.setup)
    wrong = next(k for k, a in board.areas.items() if a.id_shape == "square")
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "russian", f"setup {russian} in {wrong}", FixedDice())
    assert error.value.rule in ("5.4", "5.6")
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "russian", "setup done", FixedDice())
    assert error.value.rule == "5.4"


@pytest.mark.skipif(not GAME.has_pack(), reason="needs the shipped data pack")
def test_the_board_uses_short_names_and_explains_its_tokens_4_4() -> None:
    """4.4: a Spent unit's "(s2/1)" is its Spent Defense and the dates its Duration marker
    has left; the board prints that key, and names units as players type them."""
    state = GAME.setup("historical")
    state.units["g14pz:i/103"].fresh = False
    state.units["g14pz:i/103"].recover = state.date + 1
    text = GAME.board_text(GAME.view(state, "public"))
    assert " i/103(s" in text and "/1)" in text.split(" i/103(s")[1][:4]
    assert "g14pz:" not in text
    key = text.splitlines()[-1]
    assert key.startswith("key: ") and "Duration marker: Fresh again in 1 date (4.4)" in key
