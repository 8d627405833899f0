"""Stalin's Tanks notation: canonical round trip and forgiving input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.kernel.errors import NotationError
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.orders import (
    Assault,
    Barrage,
    Done,
    Fire,
    Hide,
    Load,
    Mine,
    Move,
    Place,
    TanksOrder,
    Unload,
    format_order,
    parse_order,
)

hexes = st.builds(lambda c, r: f"{c:02d}{r:02d}", st.integers(1, 99), st.integers(1, 99))
facings = st.sampled_from(["N", "NE", "SE", "S", "SW", "NW"])
unit_ids = st.from_regex(r"[a-z][a-z0-9]{0,6}(-[0-9]{1,2})?", fullmatch=True).filter(
    lambda s: s not in ("at", "face", "exit", "overrun", "suicide", "off", "turn", "facing"))
middle = st.one_of(hexes, facings.map(lambda f: f"face {f}"))
steps = st.builds(
    lambda body, tail: tuple(body) + tail,
    st.lists(middle, min_size=1, max_size=8),
    st.one_of(st.just(()), st.just(("exit",)), hexes.map(lambda h: (f"overrun {h}",))),
)

orders: st.SearchStrategy[TanksOrder] = st.one_of(
    st.builds(Move, unit=unit_ids, steps=steps),
    st.builds(Fire, units=st.lists(unit_ids, min_size=1, max_size=3).map(tuple), target=unit_ids,
              mode=st.sampled_from([None, "at", "ap", "he"])),
    st.builds(Assault, unit=unit_ids, target=unit_ids, suicide=st.booleans()),
    st.builds(Load, unit=unit_ids, passenger=unit_ids,
              steps=st.lists(hexes, max_size=4).map(tuple)),
    st.builds(Unload, unit=unit_ids, steps=st.lists(hexes, max_size=3).map(tuple)),
    st.builds(Barrage, hex=hexes),
    st.builds(Place, unit=unit_ids, hex=hexes, facing=st.one_of(st.none(), facings)),
    st.builds(Hide, unit=unit_ids, hex=hexes, facing=st.one_of(st.none(), facings)),
    st.builds(Mine, hex=hexes),
    st.just(Done()),
)


@given(orders)
def test_parse_format_round_trip(order: TanksOrder) -> None:
    text = format_order(order)
    assert parse_order(text) == order
    assert format_order(parse_order(text)) == text


@pytest.mark.parametrize(("text", "canonical"), [
    ("MOVE Pan-1 24.13 24-14 Face se 2415", "move pan-1 2413 2414 face SE 2415"),
    ("mo t34a-1 2413, 2414 facing 4 exit", "move t34a-1 2413 2414 face S exit"),
    ("f ivh-2 kvia-1", "fire ivh-2 at kvia-1"),
    ("fire infde-1+infde-2 at infsu-3 ap", "fire infde-1+infde-2 at infsu-3 ap"),
    ("fire nash-1 at t34c-2 HE", "fire nash-1 at t34c-2 he"),
    ("assault infsu-1 at ivh-1 suicide", "assault infsu-1 at ivh-1 suicide"),
    ("as infde-1 t34a-1", "assault infde-1 at t34a-1"),
    ("hide pak88-1 1205 nw", "hide pak88-1 1205 face NW"),
    ("place ht-1 0910", "place ht-1 0910"),
    ("mine 14.18", "mine 1418"),
    ("barrage 918", "barrage 0918"),
    ("DONE  # end of phase", "done"),
    ("load ht-1 infde-1 1011 1012", "load ht-1 infde-1 1011 1012"),
    ("unload ht-1", "unload ht-1"),
])
def test_forgiving_input_has_one_canonical_form(text: str, canonical: str) -> None:
    assert format_order(parse_order(text)) == canonical


@pytest.mark.parametrize("text", [
    "", "move", "move pan-1", "move pan-1 24134", "move pan-1 exit 2413",
    "move pan-1 face", "move pan-1 face up", "fire pan-1", "fire pan-1 at a b c",
    "barrage", "mine 1", "teleport pan-1 2413", "hide pan-1", "d x",
])
def test_bad_text_is_a_notation_error(text: str) -> None:
    with pytest.raises(NotationError):
        parse_order(text)


def test_secret_orders_are_flagged_for_private_entry_20_0_19_1() -> None:
    game = TanksGame()
    assert game.is_secret(parse_order("hide pak88-1 1205"))
    assert game.is_secret(parse_order("mine 1418"))
    assert not game.is_secret(parse_order("place infde-1 1205"))
    assert not game.is_secret(parse_order("move pan-1 2413"))
