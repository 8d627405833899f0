"""Random legal games for the picture tests: every step's state and the events it made."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import Event
from adjudicator.kernel.game import Game


@dataclass
class Step:
    state: Any
    side: str
    order: str
    events: list[Event]


def random_game(game: Game[Any], scenario: str | None, orders: int, seed: int) -> list[Step]:
    """Up to ``orders`` random legal orders from the start (refused ones are skipped)."""
    rnd = random.Random(seed)
    dice = CommittedDice(bytes([seed % 256]) * 32, game_id=f"render-{seed}")
    state = game.setup(scenario)
    # be asked every decision a default policy would answer, so random play explores them
    for side in game.sides:
        for policy in game.standing_policies():
            if policy.policy == "ask" and game.default_policy(policy.kind) is not None:
                state.standing.setdefault(side, {})[policy.kind] = "ask"
    steps = [Step(state, "", "", [])]
    tries = 0
    while len(steps) <= orders and tries < orders * 4:
        tries += 1
        side = game.acting_side(state)
        if side is None:
            break
        legal = game.legal_orders(state, side)
        if not legal:
            break
        text = rnd.choice(legal)
        try:
            outcome = game.apply_text(state, side, text, dice)
        except RuleError:
            continue
        state = outcome.state
        steps.append(Step(state, side, text, list(outcome.events)))
    return steps


def stalingrad_views(orders: int, seed: int) -> list[Any]:
    """The public View after every step of a random Turning Point: Stalingrad game
    (historical scenario)."""
    from adjudicator.stalingrad.game import StalingradGame
    from adjudicator.stalingrad.views import StalingradView

    game = StalingradGame()
    views = []
    for step in random_game(game, "historical", orders, seed):
        view = game.view(step.state, "public")
        assert isinstance(view, StalingradView)
        views.append(view)
    return views
