"""A complete listing (autocomplete's, issue 29) reads its entries' orders back as it wrote
them (``spec.formats_kept``) instead of parsing its own text again: the same listing as
parsing every entry, on positions of random play in both games."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.game import Game
from adjudicator.kernel.listed import Listed, complete_orders, members
from adjudicator.kernel.spec import formats_kept
from adjudicator.registry import load_game


def positions(rules: Game[Any], scenario: str, seed: int, count: int
              ) -> Iterator[tuple[int, Any, str]]:
    """(number, state, side to act) of ``count`` positions of a random game."""
    state = rules.setup(scenario, {})
    rnd = random.Random(seed)
    for number in range(count):
        side = rules.acting_side(state)
        if side is None:
            return
        yield number, state, side
        dice = CommittedDice(bytes(32), "listing", start_index=100 * number)
        state = rules.apply_text(state, side, rnd.choice(rules.legal_orders(state, side)),
                                 dice).state


@pytest.mark.parametrize(("game", "scenario"), [("stalingrad", "historical"),
                                                ("stalingrad", "sawmill"),
                                                ("tanks", "kursk-counterattack"),
                                                ("tanks", "gauntlet")])
def test_a_listing_read_back_as_written_equals_one_parsed_again(game: str,
                                                                scenario: str) -> None:
    rules = load_game(game)
    compared = 0
    for number, state, side in positions(rules, scenario, 7, 36):
        if number % 4 == 0:
            parsed = complete_orders(rules.legal_options(state, side, complete=True),
                                     rules.parse, rules.format)
            assert rules.complete_orders(state, side) == parsed, (game, number)
            compared += len(parsed)
    assert compared > 100


@pytest.mark.parametrize(("game", "scenario"), [("stalingrad", "historical"),
                                                ("stalingrad", "sawmill")])
def test_each_unit_alone_is_written_in_place_as_its_order_formats(game: str,
                                                                  scenario: str) -> None:
    """A family of one unit's order (``move r:1 to 4`` for any of r:1 r:2 r:3): each unit
    alone is its word put in the order's text, which must be what formatting the order of
    that unit writes. (Stalin's Tanks' orders name one unit in a plain field, written in
    place the same way.)"""
    rules = load_game(game)
    checked = 0
    for _number, state, side in positions(rules, scenario, 3, 24):
        for entry in rules.legal_options(state, side, complete=True):
            units = entry.free.get("units") if isinstance(entry, Listed) else None
            model = rules.parse(entry.order)
            if not units or len(getattr(model, "units", ())) != 1:
                continue
            given = members(entry, rules.parse, rules.format)
            for unit in units:
                text = rules.format(model.model_copy(update={"units": (unit,)}))
                assert text in given, (entry.order, unit, given)
                checked += 1
    assert checked > 50


def test_formats_are_kept_inside_the_block_only() -> None:
    rules = load_game("stalingrad")
    order = rules.parse("pass")
    rules.format(order)  # outside: nothing kept anywhere
    with formats_kept() as kept:
        text = rules.format(order)
    rules.format(rules.parse("end"))
    assert kept == {text: order}
