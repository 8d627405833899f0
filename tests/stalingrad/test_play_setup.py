"""Local play starts at once: the default scenario, `setup auto` (5.4-5.6 from 21.2) and a
board header that names the side that must act."""

from __future__ import annotations

import pytest

from adjudicator.kernel.dice import FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.places import POOL
from adjudicator.stalingrad.setup import matches

GAME = StalingradGame()
pytestmark = pytest.mark.skipif(not GAME.has_pack(), reason="needs the shipped data pack")


def header(state: object) -> str:
    return GAME.board_text(GAME.view(state, "public")).splitlines()[0]  # type: ignore[arg-type]


def test_default_scenario_is_the_historical_setup_21_2() -> None:
    state = GAME.setup()
    assert state.scenario == "historical" and state.phase == "rubble"
    assert GAME.acting_side(state) == "german"
    assert GAME.legal_orders(state, "german") == ["rubble"]
    assert "german to act" in header(state)


def test_board_header_names_the_side_setting_up_5_4() -> None:
    state = GAME.setup("basic")
    assert state.turn == "german"  # the impulse side; the Russian sets up first
    assert GAME.acting_side(state) == "russian"
    assert "russian to act" in header(state)
    assert "german to act" not in header(state)


def test_header_names_the_side_owing_a_decision() -> None:
    state = GAME.setup("historical")
    state = GAME.apply_text(state, "german", "rubble", FixedDice([1] * 8)).state
    state = state.model_copy(update={"advantage_used": False})
    legal = GAME.legal_orders(state, "german")
    attack = next(o for o in legal if o.startswith("attack"))
    outcome = GAME.apply_text(state, "german", attack, FixedDice([3, 3, 4, 4]))
    pending = outcome.state.pending
    assert pending is not None
    assert f"{pending.side} to act" in header(outcome.state)


def test_setup_auto_completes_the_free_setup_legally_5_4_5_6() -> None:
    state = GAME.setup("basic")
    board = GAME.pack_board
    # The Russian places one unit by hand somewhere legal but not historical.
    uid, other = next((u, k) for u, d in sorted(board.units.items())
                         if d.side == "russian" and d.setup and d.historical
                         for k, a in sorted(board.areas.items())
                         if matches(d, a) and k != d.historical)
    state = GAME.apply_text(state, "russian", f"setup {uid} in {other}", FixedDice()).state
    assert "setup auto" in GAME.legal_orders(state, "russian")
    state = GAME.apply_text(state, "russian", "setup auto", FixedDice()).state
    assert state.units[uid].loc == other  # a hand-placed unit stays where it was put
    waiting = [u for u, d in board.units.items() if d.side == "russian" and d.setup
               and (d.arrival is None or d.arrival <= 0) and state.units[u].loc == POOL]
    assert waiting == []
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "russian", "setup auto", FixedDice())
    assert error.value.rule == "5.4"
    state = GAME.apply_text(state, "russian", "setup done", FixedDice()).state  # 5.6 holds
    state = GAME.apply_text(state, "german", "setup auto", FixedDice()).state
    state = GAME.apply_text(state, "german", "setup done", FixedDice()).state
    assert state.phase == "rubble"
    for key in board.areas:
        for side in ("german", "russian"):
            here = [u for u, s in state.units.items()
                    if s.loc == key and board.units[u].side == side and board.units[u].combat]
            assert len(here) <= 10, (key, side)


def test_setup_auto_from_nothing_is_the_historical_setup_21_2() -> None:
    state = GAME.setup("basic")
    state = GAME.apply_text(state, "russian", "setup auto", FixedDice()).state
    state = GAME.apply_text(state, "russian", "setup done", FixedDice()).state
    state = GAME.apply_text(state, "german", "setup auto", FixedDice()).state
    historical = GAME.setup("historical")
    assert {u: s.loc for u, s in state.units.items()} == \
        {u: s.loc for u, s in historical.units.items()}
