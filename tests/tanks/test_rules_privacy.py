"""Secret orders (20.0, 19.1, standing orders) and what an undo could not take back."""

from __future__ import annotations

import json
from typing import Any

from adjudicator.kernel.dice import FixedDice
from adjudicator.kernel.events import visible_to
from adjudicator.kernel.orders import SetStanding
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.orders import Hide, Mine, Move
from bot.service import undo_refusal

GAME = TanksGame()

HIDDEN = {
    "blank_map": True, "phasing": "soviet", "phase": "move1",
    "units": [
        {"id": "gun", "side": "german", "type": "pak-88", "hex": "1113", "hidden": True},
        {"id": "t34", "side": "soviet", "type": "t34a", "hex": "1209", "facing": "S"},
    ],
}


def test_standing_orders_stay_private_as_the_kernel_says() -> None:
    assert GAME.is_secret(SetStanding(kind="defensive-fire", policy="best-shot"))
    assert GAME.is_secret_text("standing defensive-fire hold")
    assert GAME.is_secret(Hide(unit="gun", hex="0101"))  # 20.0
    assert GAME.is_secret(Mine(hex="0101"))  # 19.1
    assert GAME.is_secret_text("mine 1213")
    assert not GAME.is_secret(Move(unit="t34", steps=("0101",)))
    assert not GAME.is_secret_text("move t34 0101")
    assert not GAME.is_secret_text("no such order")


def _last(side: str, text: str, outcome: Any) -> dict[str, Any]:
    return {"kind": "order", "side": side, "text": text,
            "rolls": json.dumps([r.model_dump() for r in outcome.rolls]),
            "applied": json.dumps(outcome.applied),
            "events": json.dumps([e.model_dump() for e in outcome.events])}


def test_undo_reveals_names_a_spotted_hidden_unit_20_0() -> None:
    state = GAME.case_position(HIDDEN)
    outcome = GAME.apply_text(state, "soviet", "move t34 1210 1211 1212 1213", FixedDice())
    assert not outcome.rolls  # no dice: only the reveal stands in the way of an undo
    public = visible_to(outcome.events, "public")
    reasons = GAME.undo_reveals(public)
    assert reasons == ["hidden unit gun in 1113 (20.0)"]
    refusal = undo_refusal(GAME, _last("soviet", "move", outcome), {"soviet"}, outcome.state)
    assert refusal is not None and "hidden unit gun" in refusal


def test_undo_reveals_nothing_for_a_plain_move() -> None:
    state = GAME.case_position(HIDDEN)
    outcome = GAME.apply_text(state, "soviet", "move t34 1210", FixedDice())
    assert GAME.undo_reveals(visible_to(outcome.events, "public")) == []
    assert undo_refusal(GAME, _last("soviet", "move", outcome), {"soviet"},
                        outcome.state) is None


def test_undo_reveals_names_a_found_minefield_19_2() -> None:
    state = GAME.case_position({
        "blank_map": True, "phasing": "german", "phase": "move1",
        "mines": {"soviet": ["1012"]},
        "units": [{"id": "a", "side": "german", "type": "ivh", "hex": "1010", "facing": "S"}],
    })
    outcome = GAME.apply_text(state, "german", "move a 1011 1012", FixedDice([6, 6]))
    assert GAME.undo_reveals(visible_to(outcome.events, "public")) == [
        "a minefield in 1012 (19.2)"]
