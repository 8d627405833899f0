"""Unit names a person can type: ids, short names, numbers only one unit has, prefixes;
ambiguous names list the candidates, unknown ones suggest the closest."""

from __future__ import annotations

import pytest

from adjudicator.kernel.errors import NotationError, RuleError
from adjudicator.kernel.names import unit_index
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.tanks.game import TanksGame

NAMES = unit_index([("g14pz:i/103", ("I/103 infantry",)), ("g14pz:ii/103", ("II/103 infantry",)),
                    ("g14pz:pi13", ("Pi13 pioneer",)), ("r45:i/10", ("I/10 infantry",))])


@pytest.mark.parametrize(("typed", "unit"), [
    ("g14pz:i/103", "g14pz:i/103"), ("G14PZ:I/103", "g14pz:i/103"),  # the id, any case
    ("i/103", "g14pz:i/103"), ("I/103", "g14pz:i/103"),  # the short name
    ("pi13", "g14pz:pi13"), ("13", "g14pz:pi13"),  # a number only one unit has
    ("i/10", "r45:i/10"),  # an exact short name wins over the longer ones it begins
    ("ii", "g14pz:ii/103"),  # a unique prefix
])
def test_a_unit_by_any_name_it_alone_has(typed: str, unit: str) -> None:
    assert NAMES.resolve(typed) == unit


def test_a_name_several_units_share_lists_them() -> None:
    with pytest.raises(NotationError) as error:
        NAMES.resolve("103")
    assert "ambiguous unit '103'" in str(error.value)
    assert "i/103 (g14pz:i/103)" in str(error.value)
    assert "ii/103 (g14pz:ii/103)" in str(error.value)


def test_an_unknown_name_suggests_the_closest() -> None:
    with pytest.raises(NotationError, match=r"did you mean .*pi13"):
        NAMES.resolve("pi31")


def test_short_names_for_listings() -> None:
    assert NAMES.short("g14pz:i/103") == "i/103"
    assert NAMES.short("r45:i/10") == "i/10"


def test_stalingrad_orders_take_short_names() -> None:
    game = StalingradGame()
    order = game.parse("move i/103 to 14")
    assert game.format(order) == "move g14pz:i/103 to 14"
    board = game.pack_board
    assert board.short_unit("g14pz:i/103") == "i/103"
    with pytest.raises(RuleError, match="could be i/103"):
        board.resolve_unit("103")


def test_tanks_units_by_id_without_dash_or_unique_prefix() -> None:
    game = TanksGame()
    state = game.setup("first-encounter")
    ctx = game.ctx(state)
    german = [u for u in state.units if u.side == "german"]
    assert ctx.find(german, "iia1", "unit").id == "iia-1"
    assert ctx.find(german, "IIa-2", "unit").id == "iia-2"
    with pytest.raises(RuleError, match="could be stugb-1, stugb-2"):
        ctx.find(german, "stug", "unit")
    with pytest.raises(RuleError, match="did you mean"):
        ctx.find(german, "iiia-1", "unit")
