"""Stalin's Tanks defects found by the red team, each pinned by its rule."""

from __future__ import annotations

from typing import Any

import pytest

from adjudicator.kernel.dice import CommittedDice, FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.state import TanksState

GAME = TanksGame()


def dice(start: int = 0) -> CommittedDice:
    return CommittedDice(b"\x07" * 32, "hardening", start_index=start)


def set_up_gauntlet() -> TanksState:
    """The Gauntlet (25.7) after the German face-down set-up: the Soviets move first."""
    state = GAME.setup("gauntlet")
    index = 0
    placed: set[str] = set()  # each unit once: a placed unit may be set up again until done
    while state.phase == "setup":
        side = GAME.acting_side(state)
        assert side is not None
        legal = GAME.legal_orders(state, side)
        order = next((o for o in legal if o.startswith("place")
                      and o.split()[1] not in placed), "done")
        placed.add(order.split()[1] if order != "done" else "")
        outcome = GAME.apply_text(state, side, order, dice(index))
        index += len(outcome.rolls)
        state = outcome.state
    return state


def test_6_5_done_is_not_listed_while_units_must_enter() -> None:
    state = set_up_gauntlet()
    assert state.phase == "move1" and state.phasing == "soviet"
    legal = GAME.legal_orders(state, "soviet")
    assert "done" not in legal
    with pytest.raises(RuleError) as refused:
        GAME.apply_text(state, "soviet", "done", dice())
    assert refused.value.rule == "6.5"
    # Every listed order is accepted.
    for order in legal[:40]:
        GAME.apply_text(state, "soviet", order, dice())


def position(**extra: Any) -> TanksState:
    return GAME.case_position({"blank_map": True, "phasing": "german", "phase": "move1",
                               **extra})


def test_7_2_over_mf_cites_the_road_rate_only_on_a_road() -> None:
    state = position(units=[{"id": "pan", "side": "german", "type": "panther",
                             "hex": "1001", "facing": "S"}])
    with pytest.raises(RuleError) as refused:
        GAME.apply_text(state, "german", "move pan 1002 1003 1004 1005 1006 1007 1008",
                        FixedDice())
    assert refused.value.rule == "6.1"
    assert "Movement Factor of 6" in refused.value.message
    assert "on the road" not in refused.value.message
    roads = [f"10{row:02d}" for row in range(1, 21)]
    on_road = position(roads=roads, units=[{"id": "pan", "side": "german",
                                            "type": "panther", "hex": "1001", "facing": "S"}])
    with pytest.raises(RuleError) as refused:
        GAME.apply_text(on_road, "german", "move pan " + " ".join(roads[1:11]), FixedDice())
    assert "(9 on the road, 7.2)" in refused.value.message
