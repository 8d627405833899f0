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


def test_an_at_unit_entering_beside_an_attacker_is_in_the_complete_listing_8_22() -> None:
    """8.22: an AT unit may enter an Area holding only Spent enemy units when a unit with a
    numerical Attack Factor enters with it. Alone it is refused; the stack is accepted, and
    the complete listing's family for that Area holds the AT unit beside the attacker."""
    from adjudicator.kernel.listed import Families
    from tests.stalingrad.test_rules_engine import position, unit

    state = position([unit("gat", "german", "2", kind="at", attack=None),
                      unit("ginf", "german", "2"),
                      unit("r1", "russian", "3", fresh=False)])
    dice = CommittedDice(b"a" * 32, "at")
    with pytest.raises(RuleError) as refused:
        GAME.apply_text(state, "german", "move gat to 3", dice)
    assert refused.value.rule == "8.22"
    stack = GAME.parse("move gat ginf to 3")
    GAME.apply(state, "german", stack, dice)  # accepted
    entries = GAME.legal_options(state, "german", complete=True)
    found = Families(entries, GAME.parse, GAME.listing_form).find(stack)
    assert found is not None and "gat" in found.free["units"]  # type: ignore[attr-defined]
    assert all(e.order != "move gat to 3" for e in entries)  # never listed alone
