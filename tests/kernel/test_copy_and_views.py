"""The state copy ``apply`` works on, and views shared between viewers, on every game.

* ``copy_for_apply`` is a deep copy: equal to the original (same canonical bytes), sharing no
  mutable container with it except the fields a game declares never mutated in place, so a
  change to the copy never shows in the original;
* ``Game.views(state)`` gives every viewer exactly what ``Game.view(state, viewer)`` gives,
  while building each distinct view once (``view_key``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from pydantic import BaseModel

from adjudicator.kernel.events import GM, PUBLIC
from adjudicator.kernel.game import Game
from adjudicator.kernel.state import copy_model
from adjudicator.registry import load_game
from tests.kernel.duel import DuelGame
from tests.render.games import random_game

SCALARS = (str, int, float, bool, type(None), bytes)
GAMES: list[tuple[str, str | None, int]] = [
    ("duel", None, 30), ("stalingrad", "historical", 30), ("stalingrad", "sawmill", 20),
    ("tanks", "pakfront", 25), ("tanks", "kursk-counterattack", 25),
]


@cache
def rules(name: str) -> Game[Any]:
    return DuelGame() if name == "duel" else load_game(name)


@cache
def states(name: str, scenario: str | None, orders: int) -> list[Any]:
    """Every third state of a seeded random game."""
    return [step.state for step in random_game(rules(name), scenario, orders, seed=5)[::3]]


def mutable_parts(value: Any, skip: tuple[str, ...] = (), top: bool = True) -> list[Any]:
    """Every mutable container and model reachable from ``value`` (``skip``: top-level
    fields left out)."""
    found: list[Any] = []

    def walk(item: Any) -> None:
        if isinstance(item, SCALARS):
            return
        if isinstance(item, tuple):
            for part in item:
                walk(part)
            return
        found.append(item)
        if isinstance(item, BaseModel):
            for name, part in item.__dict__.items():
                if not (item is value and name in skip):
                    walk(part)
        elif isinstance(item, dict):
            for part in item.values():
                walk(part)
        elif isinstance(item, list | set):
            for part in item:
                walk(part)

    walk(value)
    return found


@pytest.mark.parametrize(("name", "scenario", "orders"), GAMES)
def test_the_copy_for_apply_is_deep_and_equal(name: str, scenario: str | None,
                                              orders: int) -> None:
    for state in states(name, scenario, orders):
        copy = state.copy_for_apply()
        assert copy == state and copy.to_bytes() == state.to_bytes()
        shared = ("local", "pending")  # replaced, never changed in place (both games' states)
        originals = {id(part) for part in mutable_parts(state, shared)}
        assert not [part for part in mutable_parts(copy, shared) if id(part) in originals]


def test_a_change_to_the_copy_never_shows_in_the_original() -> None:
    state = states("stalingrad", "historical", 30)[-1]
    before = state.to_bytes()
    copy = state.copy_for_apply()
    uid = next(iter(copy.units))
    copy.units[uid].loc, copy.units[uid].fresh = "dead", False
    copy.control[next(iter(copy.control))] = "nobody"
    if copy.last_action is not None:
        copy.last_action.orders.clear()
    assert state.to_bytes() == before
    assert copy.to_bytes() != before


def test_copy_model_shares_only_what_it_is_told() -> None:
    state = rules("tanks").setup("pakfront")
    assert copy_model(state).units[0] is not state.units[0]
    assert copy_model(state, ("units",)).units is state.units


@pytest.mark.parametrize(("name", "scenario", "orders"), GAMES)
def test_shared_views_are_the_views(name: str, scenario: str | None, orders: int) -> None:
    game = rules(name)
    viewers = [PUBLIC, *game.sides, GM]
    for state in states(name, scenario, orders):
        views = game.views(state)
        for viewer in viewers:
            alone = game.view(state, viewer)
            shared = views(viewer)
            assert shared.viewer == viewer
            assert shared.model_dump(mode="json") == alone.model_dump(mode="json"), viewer
            assert views(viewer) is shared  # built once
        assert views.built == len({game.view_key(state, v) for v in viewers})


def test_stalingrad_builds_one_view_for_everybody_when_all_is_public() -> None:
    game = rules("stalingrad")
    state = states("stalingrad", "historical", 30)[-1]
    views = game.views(state)
    for viewer in (PUBLIC, *game.sides, GM):
        views(viewer)
    assert views.built == 1


def test_unknown_viewers_are_refused() -> None:
    game = DuelGame()
    with pytest.raises(ValueError, match="unknown viewer"):
        game.views(game.setup())("spectator")


def test_the_advantage_pause_puts_back_the_state_the_order_found_9_4(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """9.4: an order whose roll pauses for the Advantage leaves the state as it found it
    (plus the offer). Copying apply's untouched original only on a pause gives exactly what
    copying the state before every such order gave."""
    from adjudicator.kernel.dice import CommittedDice
    from adjudicator.kernel.errors import RuleError
    from adjudicator.stalingrad import game as stalingrad_game

    game = rules("stalingrad")
    pauses = 0
    for number, state in enumerate(states("stalingrad", "historical", 30)):
        side = game.acting_side(state)
        if side is None:
            continue
        for text in game.legal_orders(state, side)[:12]:
            outcomes = []
            for eager in (False, True):
                with monkeypatch.context() as patch:
                    if eager:
                        patch.setattr(stalingrad_game, "original_of", lambda work: None)
                    dice = CommittedDice(bytes([number]) * 32, "pause")
                    try:
                        done = game.apply_text(state, side, text, dice)
                    except RuleError as error:
                        outcomes.append(str(error))
                        continue
                    outcomes.append((done.state.to_bytes(),
                                     [e.model_dump() for e in done.events]))
            assert outcomes[0] == outcomes[1], text
            if isinstance(outcomes[0], tuple) and b'"kind":"advantage"' in outcomes[0][0]:
                pauses += 1
    assert pauses > 0  # the pause path was taken
