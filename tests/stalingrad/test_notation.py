"""TP:S notation: canonical, symmetric, forgiving (parse(format(o)) == o)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.kernel.errors import NotationError
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.orders import (
    Advantage,
    Attack,
    Casualties,
    Cross,
    End,
    Fortify,
    Infiltrate,
    Move,
    Notation,
    Pass,
    Recross,
    Regroup,
    Reinforce,
    RetreatTo,
    RollRubble,
    Setup,
    SetupDone,
    Tie,
)

PLAIN = Notation()
GAME = StalingradGame()

areas = st.sampled_from(["1", "6", "25", "56", "70", "A", "C", "H"])
unit_ids = st.sampled_from(["g1", "r-124", "g24pz:i/21", "r284:iii/1045", "g-pak", "r10nkvd:272"])
units = st.lists(unit_ids, min_size=1, max_size=4, unique=True).map(tuple)
maybe_units = st.lists(unit_ids, max_size=3, unique=True).map(tuple)

orders = st.one_of(
    st.just(Pass()), st.just(End()), st.just(RollRubble()), st.just(SetupDone()),
    st.builds(Move, units=units, to=areas, via=st.lists(areas, max_size=3).map(tuple),
              origin=st.one_of(st.none(), areas)),
    st.builds(Regroup, units=units, to=areas),
    st.builds(Attack, area=areas, group=st.sampled_from([None, "fresh", "spent", "rubble"]),
              units=units),
    st.builds(Infiltrate, area=areas, units=units),
    st.builds(Fortify, area=areas, units=units),
    st.builds(Cross, units=units, to=areas),
    st.builds(Recross, units=units, origin=areas),
    st.builds(Advantage, action=st.sampled_from(["reroll", "prolong", "decline"])),
    st.builds(Casualties, disrupt=maybe_units, retreat=maybe_units, eliminate=maybe_units,
              voluntary=maybe_units, to=st.one_of(st.none(), areas)),
    st.builds(Tie, unit=unit_ids),
    st.builds(RetreatTo, area=areas),
    st.builds(Reinforce, zone=st.sampled_from([None, "C", "D", "E", "F"])),
    st.builds(Setup, units=units, area=areas),
)


@given(orders)
def test_parse_format_round_trip(order: object) -> None:
    text = PLAIN.format(order)  # type: ignore[arg-type]
    assert PLAIN.parse(text) == order
    assert PLAIN.format(PLAIN.parse(text)) == text


@given(orders, st.booleans())
def test_messy_input_formats_canonically(order: object, upper: bool) -> None:
    text = PLAIN.format(order)  # type: ignore[arg-type]
    messy = "  " + (text.upper() if upper else text).replace(" ", "   ") + "  # note"
    assert PLAIN.format(PLAIN.parse(messy)) == text


def test_unit_lists_are_sorted_and_commas_accepted() -> None:
    order = PLAIN.parse("mo G2, g1 from 7 via 6,25 to 35")
    assert order == Move(units=("g1", "g2"), to="35", via=("6", "25"), origin="7")
    assert PLAIN.format(order) == "move g1 g2 from 7 via 6 25 to 35"


def test_verb_prefixes_and_aliases() -> None:
    assert PLAIN.parse("att 36 spent vs g1") == Attack(area="36", group="spent", units=("g1",))
    assert PLAIN.parse("ranged 36 with g1") == Attack(area="36", units=("g1",))
    assert PLAIN.parse("adv pro") == Advantage(action="prolong")
    assert PLAIN.parse("decide cas retreat r1 to 35") == Casualties(retreat=("r1",), to="35")
    assert PLAIN.parse("decide casualties none") == Casualties()


def test_bad_text_is_a_notation_error_with_templates() -> None:
    with pytest.raises(NotationError) as error:
        PLAIN.parse("charge 35")
    assert "move" in error.value.legal
    with pytest.raises(NotationError):
        PLAIN.parse("move g1 35")


@pytest.mark.skipif(not GAME.has_pack(), reason="needs the shipped data pack (issue 3)")
def test_pack_names_resolve_areas_and_units() -> None:
    order = GAME.parse("move r284:iii/1045 to mamayev kurgan")
    assert isinstance(order, Move)
    assert order.to == "56"
    assert GAME.parse("attack mamay with r284:iii/1045").area == "56"  # type: ignore[attr-defined]
