"""The legal query (issue: autocomplete) agrees with the rules it summarises: every
reachable Area it lists is a move the rules accept at the MF it states (8.2, 8.21-8.26),
and nothing it leaves out of a unit's one-step neighbourhood is accepted."""

from __future__ import annotations

import random

import pytest

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.legal import legal_info
from adjudicator.stalingrad.orders import Move, Notation
from adjudicator.stalingrad.places import OFF_MAP
from adjudicator.stalingrad.state import StalingradState
from tests.stalingrad.test_rules_random_play import GAME, start

DICE = CommittedDice(b"q" * 32, "legal")


def positions(seed: int, count: int) -> list[StalingradState]:
    """States met in seeded random play on the small test map."""
    rng = random.Random(seed)
    state = start()
    out = []
    for _ in range(count):
        side = GAME.acting_side(state)
        assert side is not None
        legal = GAME.legal_orders(state, side)
        try:
            state = GAME.apply_text(state, side, rng.choice(legal), DICE).state
        except RuleError:
            fallback = state.pending.default if state.pending else (
                "end" if "end" in legal else "pass")
            try:
                state = GAME.apply_text(state, side, fallback, DICE).state
            except RuleError:
                continue  # an impulse that must still attack: draw again
        if state.pending is None and state.battle is None:
            out.append(state)
    return out


def check_reach(game: StalingradGame, state: StalingradState, side: str) -> int:
    board = game.board_for(state)
    info = legal_info(Ctx(board, state), side)
    checked = 0
    for uid, reaches in info.reach.items():
        loc = state.units[uid].loc
        if loc in OFF_MAP:
            continue
        listed = {r.area: r for r in reaches}
        for r in reaches:
            order = Notation.format(Move(units=(uid,), to=r.area, via=tuple(r.via)))
            if any(state.rubble.get(a, 0) for a in [*r.via, r.area]) and \
                    board.units[uid].mechanized:
                continue  # Rubble Entrance dice may stop it; the MF check is what we pin
            outcome = game.apply_text(state, side, order, DICE)
            assert outcome.state.impulse is not None
            assert outcome.state.impulse.acts[uid].mf == r.mf, (order, r.mf)
            checked += 1
        for nxt in board.adjacent(loc):
            if nxt in listed or nxt == loc:
                continue
            with pytest.raises(RuleError):
                game.apply_text(state, side, f"move {uid} to {nxt}", DICE)
            checked += 1
    return checked


def test_reachable_agrees_with_moves_8_2() -> None:
    checked = 0
    for state in positions(7, 120)[::6]:
        side = GAME.acting_side(state)
        assert side is not None
        checked += check_reach(GAME, state, side)
    assert checked > 50
