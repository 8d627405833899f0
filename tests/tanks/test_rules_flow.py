"""Sequence of play (5.0) and PBEM flow: a whole phase in one message, decisions, set-up."""

from __future__ import annotations

from adjudicator.kernel.dice import FixedDice
from adjudicator.kernel.events import visible_to
from adjudicator.tanks.game import TanksGame

GAME = TanksGame()

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
    batch = GAME.submit_lines(state, "german", text, FixedDice([6, 6, 6, 6]))
    assert batch.error is None, batch.error
    assert batch.stopped_at is None
    assert batch.state.phasing == "soviet" and batch.state.phase == "move1"
    assert [e.kind for e in batch.events].count("fire") == 2
    assert any(e.kind == "standing-answer" for e in visible_to(batch.events, "soviet"))
    assert not any(e.kind == "standing-answer" for e in visible_to(batch.events, "german"))


def test_without_a_standing_order_the_message_stops_at_the_decision_5_1() -> None:
    state = GAME.case_position(POSITION)
    batch = GAME.submit_lines(state, "german", "done\ndone\nfire pan at kv\n", FixedDice())
    assert batch.stopped_at == 2
    assert batch.pending is not None and batch.pending.side == "soviet"
    assert GAME.view(batch.state, "german").pending.options == ()  # type: ignore[union-attr]


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
