"""Sequence of play (5.0) and PBEM flow: a whole phase in one message, decisions, set-up."""

from __future__ import annotations

import pytest

from adjudicator.kernel.dice import Dice, FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import Event, visible_to
from adjudicator.kernel.game import order_lines
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.state import TanksState

GAME = TanksGame()


def each_line(state: TanksState, side: str, text: str,
              dice: Dice) -> tuple[TanksState, list[Event]]:
    """The state and events after every order line of ``text``, applied in turn (each must
    be accepted; the service's multi-line loop is pinned in tests/bot/test_service.py)."""
    events: list[Event] = []
    for line in order_lines(text):
        outcome = GAME.apply_text(state, side, line, dice)
        state = outcome.state
        events.extend(outcome.events)
    return state, events

POSITION = {
    "blank_map": True, "phasing": "german", "phase": "move1",
    "units": [
        {"id": "pan", "side": "german", "type": "panther", "hex": "1010", "facing": "S"},
        {"id": "ivh", "side": "german", "type": "ivh", "hex": "1210", "facing": "S"},
        {"id": "kv", "side": "soviet", "type": "kvia", "hex": "1016", "facing": "N"},
    ],
}


def test_a_whole_player_turn_in_one_message_5_0() -> None:
    state = GAME.case_position({**POSITION, "standing": {"soviet": {"defensive-fire": "hold"}}})
    text = """
        move pan 1011 1012      # First Movement
        done
        fire ivh at kv          # Stationary Fire: ivh did not move
        done                    # -> Defensive Fire, answered by the Soviet standing order
        fire pan at kv          # Mobile Fire
        done
        move ivh 1211 1212      # Second Movement: half the Movement Factor
        done
    """
    state, events = each_line(state, "german", text, FixedDice([6, 6, 6, 6]))
    assert state.pending is None
    assert state.phasing == "soviet" and state.phase == "move1"
    assert [e.kind for e in events].count("fire") == 2
    assert any(e.kind == "standing-answer" for e in visible_to(events, "soviet"))
    assert not any(e.kind == "standing-answer" for e in visible_to(events, "german"))


def test_without_a_standing_order_the_turn_waits_for_the_decision_5_1() -> None:
    """After Stationary Fire the Soviet owes his Defensive Fire (5.1): the German's next
    order is refused until he answers, and only the Soviet sees the options."""
    state, _events = each_line(GAME.case_position(POSITION), "german", "done\ndone\n",
                               FixedDice())
    assert state.pending is not None and state.pending.side == "soviet"
    assert GAME.view(state, "german").pending.options == ()  # type: ignore[union-attr]
    assert GAME.view(state, "soviet").pending.options  # type: ignore[union-attr]
    with pytest.raises(RuleError, match="waiting for soviet to decide"):
        GAME.apply_text(state, "german", "fire pan at kv", FixedDice())


def test_phase_order_5_1() -> None:
    state = GAME.case_position(POSITION)
    seen = []
    dice = FixedDice()
    for side in ["german", "german", "soviet", "german", "german"]:
        state = GAME.apply_text(state, side, "done", dice).state
        seen.append(state.phase)
    assert seen == ["stationary", "defensive", "mobile", "move2", "move1"]
    assert state.phasing == "soviet" and state.turn == 1


def test_secret_set_up_is_private_and_committed_19_1_20_0() -> None:
    state = GAME.setup("kursk-salient")
    assert GAME.private_input(state) == "soviet"
    dice = FixedDice([9] * 16)
    events = []
    free = ["2420", "2421", "2422", "2423", "2424", "2425"]
    for unit in [u for u in state.units if u.side == "soviet"]:
        hex_ = next(str(h) for h in GAME.ctx(state).map.all_hexes
                    if h.col >= 13 and h.row >= 14 and not state.at(str(h))
                    and GAME.ctx(state).terrain(str(h)) == "clear" and str(h) not in free)
        state = GAME.apply_text(state, "soviet", f"place {unit.id} {hex_}", dice).state
    for hex_ in free:
        outcome = GAME.apply_text(state, "soviet", f"mine {hex_}", dice)
        state, events = outcome.state, events + outcome.events
        assert GAME.is_secret_text(f"mine {hex_}")
    outcome = GAME.apply_text(state, "soviet", "done", dice)
    events += outcome.events
    assert GAME.private_input(outcome.state) is None
    public = [e.text for e in visible_to(events, "public")]
    assert not any("24" in t for t in public if "commitment" not in t)
    assert any(e.kind == "commitment" for e in visible_to(events, "german"))
    assert GAME.view(outcome.state, "german").mines == {}
    assert set(GAME.view(outcome.state, "soviet").mines) == set(free)
