"""``move UNIT to HEX [face D]``: the cheapest legal path of hexes and facings within the
Movement Factor (6.0-8.4), said in the reply; refusals that explain their costs; a facing
the unit already has is no error (8.3)."""

from __future__ import annotations

import pytest

from adjudicator.kernel.dice import FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.hexgrid import Hex, distance
from adjudicator.tanks.state import TanksState

GAME = TanksGame()


def position(*units: dict[str, object], **extra: object) -> TanksState:
    return GAME.case_position({"blank_map": True, "phasing": "german", "phase": "move1",
                               "units": list(units), **extra})


def test_a_tank_goes_to_a_hex_by_the_cheapest_path_and_says_which_6_0_8_2() -> None:
    state = position({"id": "pz", "side": "german", "type": "ivh", "hex": "1010",
                      "facing": "S"})
    outcome = GAME.apply_text(state, "german", "move pz to 1013", FixedDice())
    unit = outcome.state.unit("pz")
    assert unit is not None and unit.hex == "1013" and unit.spent == 3
    (path,) = [e for e in outcome.events if e.kind == "path"]
    assert path.data["steps"] == ["1011", "1012", "1013"] and path.data["cost"] == "3 MF"
    assert "the cheapest path to 1013 is 1011 1012 1013 (3 MF)" in path.text


def test_a_final_facing_is_reached_the_cheapest_way_8_2_8_3() -> None:
    state = position({"id": "pz", "side": "german", "type": "ivh", "hex": "1010",
                      "facing": "S"})
    outcome = GAME.apply_text(state, "german", "move pz to 1012 face N", FixedDice())
    unit = outcome.state.unit("pz")
    assert unit is not None and (unit.hex, unit.facing) == ("1012", "N")
    # two hexes ahead and one turn (1 + 1 + 1) costs less than turning first and backing
    # up (1 + 2 x 2, 8.4)
    assert unit.spent == 3


def test_a_facing_already_satisfied_is_not_an_error_8_3() -> None:
    state = position({"id": "pz", "side": "german", "type": "ivh", "hex": "1010",
                      "facing": "S"})
    outcome = GAME.apply_text(state, "german", "move pz face S", FixedDice())
    unit = outcome.state.unit("pz")
    assert unit is not None and unit.spent == 0 and not unit.move_done
    assert any("already faces S" in e.text for e in outcome.events)
    outcome = GAME.apply_text(state, "german", "move pz 1011 face S 1012", FixedDice())
    unit = outcome.state.unit("pz")
    assert unit is not None and unit.hex == "1012" and unit.spent == 2  # no MF for it
    outcome = GAME.apply_text(state, "german", "move pz to 1010 face S", FixedDice())
    assert any("nothing to do" in e.text for e in outcome.events)


def test_an_unreachable_hex_says_where_the_unit_can_go() -> None:
    state = position({"id": "pz", "side": "german", "type": "ivh", "hex": "1010",
                      "facing": "S"})
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "german", "move pz to 1020", FixedDice())
    assert "pz cannot reach 1020 this phase: the cheapest path costs" in error.value.message
    assert "; nearest it can reach: " in error.value.message
    assert error.value.legal and error.value.legal[0].startswith("move pz to ")


def test_cannot_reach_lists_the_nearest_hexes_and_the_blocking_cost_6_1() -> None:
    """6.1: a refused destination is explained by what the cheapest path costs (the woods
    hex's own cost named) against the MF left, and the hexes offered instead are those
    nearest the target, not the first of the map."""
    state = position({"id": "pz", "side": "german", "type": "ivh", "hex": "1010",
                      "facing": "S"}, terrain={"1014": "woods"})
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "german", "move pz to 1015", FixedDice())
    message = error.value.message
    assert "the cheapest path costs 6 MF (1015 is clear: 1 MF to enter) and it has 5 MF " \
           "left" in message
    nearest = message.split("nearest it can reach: ")[1].split(" and ")[0].split(", ")
    away = [distance(Hex.parse(h), Hex.parse("1015")) for h in nearest]
    assert away == sorted(away) and away[0] == 1 and "1014" in nearest and "0101" not in message
    assert error.value.legal[0] == f"move pz to {nearest[0]}"
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "german", "move pz to 1014 face N", FixedDice())
    assert "cannot reach 1014 facing N this phase: it cannot also face N there" in \
        error.value.message


def test_cannot_reach_names_a_prohibited_terrain_and_a_known_enemy_6_1_6_3() -> None:
    """A building is closed to a tank (terrain table): the refusal says so; an enemy unit
    the side sees closes its hex (6.3)."""
    state = position({"id": "pz", "side": "german", "type": "ivh", "hex": "1010",
                      "facing": "S"},
                     {"id": "t34", "side": "soviet", "type": "t34c", "hex": "1013",
                      "facing": "N"}, terrain={"1012": "building"})
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "german", "move pz to 1012", FixedDice())
    assert "1012 is building, which a tank may not enter" in error.value.message
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "german", "move pz to 1013", FixedDice())
    assert "an enemy unit is in 1013 (6.3)" in error.value.message


def test_an_mf_refusal_names_each_cost_and_why_the_road_rate_did_not_apply_7_2() -> None:
    state = position({"id": "pz", "side": "german", "type": "ivh", "hex": "1010",
                      "facing": "S"}, terrain={"1012": "hill"}, roads=["1010", "1011"])
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "german", "move pz 1011 face SE 1112 face S 1113 1114 1115",
                        FixedDice())
    message = error.value.message
    assert "1011 clear 1" in message and "face SE 1 (8.3)" in message
    assert "= 7, more than its Movement Factor of 5" in message
    assert "the road rate" in message and "1112 is not a road hex" in message
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "german", "move pz 1011 1012 1013 1014 1015", FixedDice())
    assert "1012 hill 2" in error.value.message


def test_the_legal_list_offers_each_hex_once_with_its_cost() -> None:
    state = position({"id": "pz", "side": "german", "type": "ivh", "hex": "1010",
                      "facing": "S"})
    options = [o for o in GAME.legal_options(state, "german") if o.order.startswith("move")]
    destinations = [o.order for o in options if " to " in o.order]
    assert len(destinations) == len(set(destinations)) > 20
    labels = {o.order: o.label for o in options}
    assert labels["move pz to 1013"] == "3 MF"


def test_a_facing_for_a_unit_without_one_is_refused_or_noted_never_dropped_8_1() -> None:
    """8.1: only tanks and SP guns have a facing. `move inf to HEX face N` is refused with
    the order without it (as the step form `move inf 1011 face N` is); a facing typed in a
    set-up order is noted to its owner alone."""
    state = position({"id": "inf", "side": "german", "type": "inf-de", "hex": "1010"})
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "german", "move inf to 1012 face N", FixedDice())
    assert error.value.rule == "8.1" and "has no facing" in error.value.message
    assert error.value.legal == ["move inf to 1012"]
    set_up = GAME.setup("pakfront")
    order = next(o for o in GAME.legal_orders(set_up, "german") if o.startswith("hide pak"))
    events = GAME.apply_text(set_up, "german", f"{order} face N", FixedDice()).events
    [note] = [e for e in events if e.kind == "note"]
    assert note.audience == "german" and "has no facing (8.1): 'N' is ignored" in note.text


def test_a_hidden_units_move_says_it_reveals_the_unit_before_and_as_it_is_given_20_0() -> None:
    """20.0: a hidden unit is placed on the map when it moves. The listed moves say so
    before the order is given; the reply tells the owner first, then all see it revealed."""
    state = position({"id": "hid", "side": "german", "type": "inf-de", "hex": "0510",
                      "hidden": True},
                     {"id": "su", "side": "soviet", "type": "inf-su", "hex": "2020"})
    options = GAME.legal_options(state, "german")
    moves = [o for o in options if o.order.startswith("move hid")]
    assert moves and all("reveals it" in o.label and "(20.0)" in o.label for o in moves)
    events = GAME.apply_text(state, "german", "move hid to 0512", FixedDice()).events
    kinds = [(e.kind, e.audience) for e in events]
    assert kinds.index(("note", "german")) < kinds.index(("revealed", "public"))
