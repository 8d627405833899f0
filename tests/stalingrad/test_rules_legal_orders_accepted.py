"""Every order the legal query lists is one the rules accept, on the shipped scenarios.

Seeded random play of the historical (21.2), basic (5.4-5.6) and Kuibyshev Sawmill
games: the chosen order must never be refused, a sample of the other listed orders is
tried at regular positions, and a side to act always has at least one listed order (no
dead end: an impulse that cannot 'end' still lists the move or attack that lets it).
Regression: moves that would have to stop in a full Area (7.1) used to be listed.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.legal import legal_info
from adjudicator.stalingrad.state import Act, Impulse, StalingradState
from tests.stalingrad.test_rules_random_play import GAME, start

pytestmark = pytest.mark.skipif(not GAME.has_pack(), reason="needs the shipped data pack")

ORDERS = 160  # orders per game
SAMPLE_EVERY = 20  # positions at which other listed orders are tried too
SAMPLE = 12


def refused(state: StalingradState, side: str, order: str, dice: CommittedDice) -> str | None:
    try:
        GAME.apply_text(state, side, order, dice)
    except RuleError as error:
        return f"{side} {order!r} -> {error}"
    return None


def play(scenario: str, seed: int) -> Counter[str]:
    """Random listed orders; returns how many of each verb were applied."""
    rng = random.Random(seed)
    dice = CommittedDice(bytes([seed]) * 8, f"{scenario}-{seed}")
    state = GAME.setup(scenario)
    verbs: Counter[str] = Counter()
    for step in range(ORDERS):
        if state.result is not None:
            break
        side = GAME.acting_side(state)
        assert side is not None
        legal = GAME.legal_orders(state, side)
        assert legal, f"{scenario} seed {seed} step {step}: {side} has no legal order"
        if step % SAMPLE_EVERY == 0:
            for order in rng.sample(legal, min(SAMPLE, len(legal))):
                assert refused(state, side, order, dice) is None, (scenario, seed, step)
        choice = rng.choice(legal)
        try:
            state = GAME.apply_text(state, side, choice, dice).state
        except RuleError as error:
            raise AssertionError(f"{scenario} seed {seed} step {step}: listed but refused: "
                                 f"{side} {choice!r} -> {error}") from error
        verbs[choice.split()[0]] += 1
    return verbs


@pytest.mark.parametrize("scenario", ["historical", "basic", "sawmill"])
def test_every_listed_order_is_accepted_and_no_side_is_stuck_7_1_8_1(scenario: str) -> None:
    verbs: Counter[str] = Counter()
    for seed in (0, 6):
        verbs += play(scenario, seed)
    # the games got past setup and into impulses with real movement and combat
    assert verbs["move"] > 20 and verbs["attack"] > 0, verbs


def full_area_position(left: int) -> tuple[StalingradState, str]:
    """Ten German Combat units in Area 2 of the small test map; another German Combat unit
    in Area 1, next to it, acting this impulse with ``left`` MF still to spend (entering
    Area 2 costs one). Area 3, beyond Area 2, is empty."""
    state = start()
    board = GAME.board_for(state)
    germans = sorted(u for u in state.units if board.units[u].side == "german")
    mover = next(u for u in germans if board.units[u].kind == "infantry")
    others = [u for u in germans if u != mover and board.units[u].combat]
    for uid in germans:
        state.units[uid].loc = "C"
    for uid in others[:10]:
        state.units[uid].loc = "2"
    state.units[mover].loc = "1"
    used = board.units[mover].mf - left
    state.impulse = Impulse(side="german", origin="1", acts={mover: Act(start="1", mf=used)})
    return state, mover


@pytest.mark.parametrize("left", [1, 2])
def test_a_unit_that_would_stop_in_a_full_area_is_not_offered_it_7_1(left: int) -> None:
    """7.1: a unit may pass through a full Area but not end its movement there. With one
    MF left it would have to stop in Area 2, so neither the query nor 'move' allow it;
    with two it may go in, and on to Area 3 through it."""
    state, mover = full_area_position(left)
    info = legal_info(Ctx(GAME.board_for(state), state), "german", "1")
    reach = {r.area: r for r in info.reach[mover]}
    order = f"move {mover} to 2"
    listed = order in GAME.legal_orders(state, "german")
    error = refused(state, "german", order, CommittedDice(b"x" * 8, "full"))
    if left == 1:
        assert "2" not in reach and not listed
        assert error is not None and "7.1" in error
    else:
        assert "2" in reach and listed and error is None
        assert reach["3"].via == ["2"]
