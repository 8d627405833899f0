"""Seeded random legal play on a small map, checking the engine's invariants after every
order: occupation limits at impulse end (7.1), one place per unit, Control always set
(7.3), Duration 1..4 dates ahead (10.2, 10.8), Spent units never attack (8.13), and a
state hash that survives serialisation.

Every order the legal query lists must be accepted (only its dice may go badly), and a
side to act always has one: the random players here never fall back on another order.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.orders import Attack
from adjudicator.stalingrad.places import OFF_MAP
from adjudicator.stalingrad.state import StalingradState

GAME = StalingradGame()
KEYS = [str(n) for n in range(1, 13)]
LINKS = [["1", "2"], ["2", "3"], ["3", "4"], ["1", "5"], ["2", "6"], ["3", "7"], ["4", "8"],
         ["5", "6"], ["6", "7"], ["7", "8"], ["5", "9"], ["6", "10"], ["7", "11"], ["8", "12"],
         ["9", "10"], ["10", "11"], ["11", "12"], ["C", "1"], ["D", "4"], ["C", "D"]]


def start() -> StalingradState:
    areas: list[dict[str, Any]] = [{"key": k, "tem": 1 + int(k) % 4,
                                    "ferry": k in ("9", "12"), "river_bank": int(k) >= 9,
                                    "supply": "russian" if k in ("9", "12") else None}
                                   for k in KEYS]
    areas += [{"key": "C", "zone": True, "tem": 1, "supply": "german"},
              {"key": "D", "zone": True, "tem": 1, "supply": "german"}]
    units: list[dict[str, Any]] = []
    kinds = ["infantry", "infantry", "armor", "at", "aa", "infantry"]
    for i in range(12):
        kind = kinds[i % len(kinds)]
        attack: Any = "*" if kind in ("at", "aa") else 2 + i % 3
        units.append({"id": f"g{i:02d}", "side": "german", "kind": kind, "attack": attack,
                      "defense": 3, "spent_defense": 1, "mf": 4 + i % 3,
                      "mechanized": kind == "armor", "parent": str(i % 2),
                      "regiment": "r1" if kind == "infantry" and i < 6 else None,
                      "engineer": i == 5, "area": ["1", "2", "3", "4", "C"][i % 5]})
        units.append({"id": f"r{i:02d}", "side": "russian", "kind": kind, "attack": attack,
                      "defense": 2 + i % 3, "spent_defense": 1, "mf": 3 + i % 2,
                      "parent": "x", "area": ["9", "10", "11", "12", "east"][i % 5]})
    control = {k: "german" if int(k) <= 4 else "russian" for k in KEYS}
    control.update({"C": "german", "D": "german"})
    ask = {"advantage": "ask", "voluntary": "ask"}  # every decision, even default ones
    return GAME.case_position({"date": "S14", "day": True, "box": 1, "to_act": "german",
                               "map": {"areas": areas, "links": LINKS}, "units": units,
                               "control": control,
                               "standing": {"german": ask, "russian": ask}})


def check(state: StalingradState, before: StalingradState, order: str) -> None:
    board = GAME.board_for(state)
    assert set(state.units) == set(board.units)
    for uid, unit in state.units.items():
        assert unit.loc in board.areas or unit.loc in OFF_MAP, (uid, unit.loc)
        assert 0 <= unit.isolation <= 2, (uid, unit.isolation)  # 12.2
        if unit.isolation:
            assert unit.loc in board.areas or unit.loc == "dead", (uid, unit.loc)
        kind = board.units[uid].kind
        assert (unit.loc == "box") == (kind in ("fag", "air") and unit.loc != "out"), uid
        if not unit.fresh and unit.loc not in ("dead", "pool", "out", "withdrawn", "removed") \
                and not (kind == "fag" and unit.recover is None):  # 15.34: awaiting Refit
            assert unit.recover is not None, uid
            assert 1 <= unit.recover - state.date <= 4, (uid, unit.recover, state.date)
    assert set(board.areas) <= set(state.control)
    assert set(state.control.values()) <= {"german", "russian"}
    if state.impulse is None:
        counts: dict[tuple[str, str], int] = {}
        for uid, unit in state.units.items():
            d = board.units[uid]
            info = board.areas.get(unit.loc)
            if info is not None and not info.zone and d.combat:
                key = (unit.loc, d.side)
                counts[key] = counts.get(key, 0) + 1
        over = {k: n for k, n in counts.items() if n > 10}
        assert not over, over
    parsed = GAME.parse(order)
    if isinstance(parsed, Attack):
        for uid in parsed.units:
            assert before.units[uid].fresh, f"Spent {uid} attacked"
    again = GAME.load_state(state.to_bytes())
    assert again.state_hash() == state.state_hash()


def random_orders(seed: int, orders: int, state: StalingradState | None = None
                  ) -> Iterator[tuple[StalingradState, Any]]:
    """``orders`` random listed orders on the small map from ``state`` (default
    :func:`start`; a game that ends starts anew), each accepted and checked: yields the
    state before each order and its outcome."""
    rng = random.Random(seed)
    state = state if state is not None else start()
    dice = CommittedDice(seed.to_bytes(4, "big") * 8, f"random-{seed}")
    for _ in range(orders):
        if state.result is not None:
            assert state.result.startswith(("german wins", "russian wins", "draw"))
            state = start()  # the week ended the game (6.4, 19.2): play another
        side = GAME.acting_side(state)
        assert side is not None
        legal = GAME.legal_orders(state, side)
        assert legal, "a side to act always has a legal order"
        if state.pending is None and "end" in legal and rng.random() < 0.35:
            choice = "end"
        else:
            choice = rng.choice(legal)
        outcome = accepted(state, side, choice, dice)
        check(outcome.state, state, choice)
        yield state, outcome
        state = outcome.state


def play(seed: int, orders: int) -> int:
    return sum(1 for before, outcome in random_orders(seed, orders)
               if outcome.state.impulse is None and before.impulse is not None)


def accepted(state: StalingradState, side: str, order: str, dice: Any) -> Any:
    """Apply a listed order; a refusal is a bug in the legal query (or in the rules)."""
    try:
        return GAME.apply_text(state, side, order, dice)
    except RuleError as error:
        raise AssertionError(f"listed but refused: {side} {order!r} -> {error}") from error


def test_random_legal_play_keeps_the_invariants() -> None:
    total = sum(play(seed, 250) for seed in (1, 2, 3))
    assert total > 100


def choose(rng: random.Random, state: StalingradState, legal: list[str],
           quiet: float = 0.35) -> str:
    """A random listed order: the setup finished quickly ('setup auto', 'setup done'), and
    'end' or 'pass' with probability ``quiet`` so that days pass."""
    for fast in ("setup auto", "setup done", "rubble"):
        if fast in legal:
            return fast
    if state.pending is None and rng.random() < quiet:
        for calm in ("end", "pass"):
            if calm in legal:
                return calm
    return rng.choice(legal)


def play_to_the_end(state: StalingradState, seed: int, limit: int,
                    quiet: float = 0.35, fast: bool = False) -> StalingradState:
    """Random legal orders until the game has a result; every listed order is accepted and
    the invariants hold after each.

    ``fast``: with probability ``quiet`` the player first simply tries 'end', then 'pass'
    (an order the rules may refuse: it was not taken from the list) and lists the legal
    orders only when neither is accepted — the long soak games spend their time in play,
    not in listing a whole side's moves."""
    rng = random.Random(seed)
    dice = CommittedDice(seed.to_bytes(4, "big") * 8, f"{state.scenario}-{seed}")
    for _ in range(limit):
        if state.result is not None:
            return state
        side = GAME.acting_side(state)
        assert side is not None
        if fast and state.phase == "play" and state.pending is None and rng.random() < quiet:
            outcome = None
            for calm in ("end", "pass"):
                try:
                    outcome = GAME.apply_text(state, side, calm, dice)
                except RuleError:
                    continue
                check(outcome.state, state, calm)
                break
            if outcome is not None:
                state = outcome.state
                continue
        legal = GAME.legal_orders(state, side)
        assert legal, "a side to act always has a legal order"
        choice = choose(rng, state, legal, quiet)
        outcome = accepted(state, side, choice, dice)
        check(outcome.state, state, choice)
        state = outcome.state
    raise AssertionError(f"no result after {limit} orders")


@pytest.mark.skipif(not GAME.has_pack(), reason="needs the shipped data pack")
@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.soak),
                                  pytest.param(3, marks=pytest.mark.soak)])
def test_random_sawmill_games_reach_their_result(seed: int) -> None:
    """The Kuibyshev Sawmill scenario played by random legal orders to its end: Dawn of
    September 20 decides it (its rule 3) with the invariants holding throughout (one game;
    three in the soak stage)."""
    state = GAME.setup("sawmill")
    state = play_to_the_end(state, seed, 3000)
    assert state.result is not None
    assert state.result.startswith(("german wins", "russian wins"))
    assert state.date == 7
    board = GAME.board_for(state)
    assert all(s.loc in board.areas or s.loc in OFF_MAP for s in state.units.values())


SCENARIOS = ("historical", "basic", "simulation", "sawmill")


def finished(scenario: str, seed: int, options: dict[str, Any] | None = None,
             quiet: float = 0.6) -> None:
    state = GAME.setup(scenario, options)
    state = play_to_the_end(state, seed, 6000, quiet=quiet, fast=True)
    assert state.result is not None
    assert state.result.startswith(("german wins", "russian wins", "draw"))


@pytest.mark.skipif(not GAME.has_pack(), reason="needs the shipped data pack")
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_random_games_of_every_scenario_reach_a_result(scenario: str) -> None:
    """Every scenario played by random legal orders reaches the result the rules give (19,
    21.1, the Sawmill's 3): invariants after every order, no listed order refused."""
    finished(scenario, 11)


@pytest.mark.soak
@pytest.mark.skipif(not GAME.has_pack(), reason="needs the shipped data pack")
@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("seed", range(50))
def test_soak_random_games_reach_a_result(scenario: str, seed: int) -> None:
    """50 games of each scenario; a quieter player (passes more), so they fit the soak's
    time bound."""
    finished(scenario, 1000 + seed, quiet=0.75)


@pytest.mark.skipif(not GAME.has_pack(), reason="needs the shipped data pack")
@pytest.mark.parametrize("options", [{"bids": True, "cards": True}, {"feints": True}])
def test_random_games_with_the_optional_rules_reach_a_result(options: dict[str, Any]) -> None:
    """22: bids, cards and Feints played by random legal orders to the Sawmill's result."""
    finished("sawmill", 5, options)
