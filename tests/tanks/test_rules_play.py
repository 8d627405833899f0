"""Random legal play of every scenario to its end, with invariants after every order (25.0)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.game import Outcome
from adjudicator.tanks.context import Ctx
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.state import TanksState

GAME = TanksGame()
SCENARIOS = list(GAME.scenarios())
MAX_ORDERS = 4000


def choose(game: TanksGame, state: TanksState, side: str, rng: random.Random,
           legal: list[str] | None = None) -> list[str]:
    """Candidate orders in the order to try them: mostly action, sometimes 'done'.
    ``legal``: the side's legal orders, when the caller has listed them already."""
    if legal is None:
        legal = game.legal_orders(state, side)
    action = [o for o in legal if o != "done"]
    rng.shuffle(action)
    if state.phase == "setup":
        return [*action, "done"] if action and rng.random() > 0.05 else ["done", *action]
    if action and rng.random() < 0.7:
        return [*action[:8], "done", *action[8:]]
    return ["done", *action]


def step(game: TanksGame, state: TanksState, dice: CommittedDice,
         rng: random.Random) -> tuple[str, str, Outcome[TanksState]]:
    side = game.acting_side(state)
    assert side is not None
    last: RuleError | None = None
    for order in choose(game, state, side, rng):
        try:
            return side, order, game.apply_text(state, side, order, dice)
        except RuleError as error:
            # every listed order is legal ('done' is not listed while units must enter, 6.5)
            assert order not in game.legal_orders(state, side), (
                f"listed order {order!r} refused: {error}")
            last = error
    raise AssertionError(f"no legal order for {side} in {state.phase}: {last}")


def check_invariants(game: TanksGame, state: TanksState) -> None:
    ctx = Ctx(game.data, state)
    by_hex: dict[str, list[str]] = {}
    for unit in state.units:
        if unit.status == "on":
            assert unit.hex is not None and ctx.on_map(unit.hex), unit
            by_hex.setdefault(unit.hex, []).append(unit.id)
            if ctx.type_of(unit).has_facing:
                assert unit.facing is not None, unit
            if unit.carrier is not None:
                carrier = state.unit(unit.carrier)
                assert carrier is not None and carrier.status == "on", unit
                assert carrier.hex == unit.hex and carrier.side == unit.side
                assert ctx.type_of(carrier).kind == "halftrack"
        else:
            assert unit.hex is None and unit.carrier is None, unit
    for hex_name, ids in by_hex.items():
        units = [state.unit(i) for i in ids]
        sides = {u.side for u in units if u}
        assert len(sides) == 1, f"enemies share {hex_name}: {ids}"  # 6.3
        loose = [u for u in units if u and u.carrier is None]
        kinds = sorted(ctx.type_of(u).kind for u in loose)
        unloaded = kinds in (["at_gun", "halftrack"], ["halftrack", "infantry"])  # 17.3
        assert len(loose) <= 1 or unloaded, f"stacked in {hex_name}: {ids}"  # 6.2, 19.2
    assert game.load_state(state.to_bytes()) == state
    public = game.view(state, "public").model_dump_json()
    for unit in state.units:
        if unit.hidden and unit.status == "on":
            assert f'"{unit.id}"' not in public, unit.id


def play(scenario: str, seed: int, check: bool = True, orders: int | None = None
         ) -> TanksState:
    """A random game to its end (``orders``: only its first orders, not to the end)."""
    rng = random.Random(seed)
    state = GAME.setup(scenario)
    dice = CommittedDice(seed.to_bytes(32, "big"), f"play-{scenario}")
    for _ in range(MAX_ORDERS if orders is None else orders):
        if state.result is not None:
            return state
        _, _, outcome = step(GAME, state, dice, rng)
        state = outcome.state
        if check:
            check_invariants(GAME, state)
    if orders is not None:
        return state
    raise AssertionError(f"{scenario} did not end within {MAX_ORDERS} orders")


#: Scenarios whose random game is long (Kursk counterattack: ~300 orders of many units):
#: played to the end in the soak stage; the default run plays their first orders.
LONG = ("kursk-counterattack",)
FIRST_ORDERS = 75  # the whole first turn (every unit's entry) and into the second


@pytest.mark.parametrize("scenario", [pytest.param(s, marks=pytest.mark.soak) if s in LONG
                                      else s for s in SCENARIOS])
def test_random_legal_play_reaches_a_result_25_0(scenario: str) -> None:
    """25.0: every scenario played by random legal orders reaches its result, the invariants
    holding after every order (the long ones in the soak stage; see the next test)."""
    state = play(scenario, seed=7)
    assert state.result
    assert state.turn == state.last_turn
    assert all(s.revealed for s in state.secrets.values())  # secrets published at the end


@pytest.mark.parametrize("scenario", LONG)
def test_random_legal_play_of_a_long_scenario_keeps_the_invariants_25_0(scenario: str) -> None:
    """The first orders of the same random game as above (to its result in the soak stage):
    every listed order accepted, the invariants after each."""
    state = play(scenario, seed=7, orders=FIRST_ORDERS)
    assert state.result is None and state.turn > 1  # well into the game, not yet over


def test_every_scenario_sets_up_its_forces_25() -> None:
    counts = {}
    for scenario in SCENARIOS:
        state = GAME.setup(scenario)
        counts[scenario] = Counter(u.side for u in state.units)
    assert counts["first-encounter"] == {"german": 16, "soviet": 11}
    assert counts["pakfront"] == {"german": 15, "soviet": 20}
    assert counts["gauntlet"] == {"german": 8, "soviet": 20}
    assert GAME.setup("pakfront").phase == "setup"  # German hidden set-up (20.0)
    assert GAME.setup("first-encounter").phase == "move1"


@pytest.mark.soak
@pytest.mark.parametrize("seed", range(1, 3))
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_random_play_soak(scenario: str, seed: int) -> None:
    assert play(scenario, seed).result
