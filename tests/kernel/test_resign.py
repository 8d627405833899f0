"""``resign``: every game's way to give up, in its own notation, replayable like any order."""

from __future__ import annotations

import pytest

from adjudicator.kernel.dice import FixedDice
from adjudicator.kernel.errors import NotationError, RuleError
from adjudicator.kernel.events import visible_to
from adjudicator.kernel.orders import Resign
from tests.kernel.duel import DuelGame

GAME = DuelGame()


def test_resign_parses_and_formats_canonically() -> None:
    assert GAME.parse("  Resign ") == Resign()
    assert GAME.format(Resign()) == "resign"
    with pytest.raises(NotationError):
        GAME.parse("resign now")


def test_a_side_may_resign_out_of_turn_and_the_other_wins() -> None:
    state = GAME.apply_text(GAME.setup(), "red", "trap 3", FixedDice()).state
    assert GAME.acting_side(state) == "red"
    outcome = GAME.apply_text(state, "blue", "resign", FixedDice())
    assert outcome.state.result == "blue resigns; red wins"
    assert GAME.acting_side(outcome.state) is None
    assert outcome.applied == ["resign"]
    (event,) = visible_to(outcome.events, "public")
    assert event.text == "blue resigns; red wins"
    assert state.result is None  # pure: the input is untouched


def test_no_resigning_a_finished_game() -> None:
    over = GAME.apply_text(GAME.setup(), "red", "resign", FixedDice()).state
    with pytest.raises(RuleError) as refused:
        GAME.apply_text(over, "blue", "resign", FixedDice())
    assert refused.value.rule == "over"
