"""Queries never change the state they are asked about.

The service keeps each game's state between requests and answers legal-order lists,
Views, boards and deadline defaults from it: a query that changed it would make the next
action's recorded state differ from what the log replays to (and the game unloadable once
the cached state is dropped). Found by the red team: Turning Point: Stalingrad's legal
orders opened the impulse record of the state they were asked about.
"""

from __future__ import annotations

import random

import pytest

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.registry import load_game


@pytest.mark.parametrize("orders", [12, pytest.param(25, marks=pytest.mark.soak)])
@pytest.mark.parametrize("name", ["stalingrad", "tanks"])
def test_legal_orders_views_and_standing_answers_leave_the_state_alone(name: str,
                                                                       orders: int) -> None:
    """Every scenario's first orders (12; 25 in the soak stage), every query asked of each."""
    game = load_game(name)
    rnd = random.Random(7)
    for scenario in game.scenarios():
        state = game.setup(scenario)
        index = 0
        for _ in range(orders):
            side = game.acting_side(state)
            if side is None:
                break
            before = state.state_hash()
            listed: dict[str, list[str]] = {}
            for other in game.sides:
                listed[other] = game.legal_orders(state, other)
                game.legal_options(state, other)
            for viewer in ("public", "gm", *game.sides):
                game.board_text(game.view(state, viewer))
            if state.pending is not None:
                for policy in game.policies_for(state.pending.kind):
                    game.standing_answer(state, state.pending, policy.policy)
            assert state.state_hash() == before, f"{scenario}: a query changed the state"
            legal = listed[side]  # asked above, of the same (unchanged) state
            if not legal:
                break
            try:
                outcome = game.apply_text(state, side, rnd.choice(legal),
                                          CommittedDice(b"\x05" * 32, "q", start_index=index))
            except RuleError:
                continue
            index += len(outcome.rolls)
            state = outcome.state
