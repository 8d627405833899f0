"""A fortification attempt ends its units' movement (14.3), and no unit may end its
movement in a fully-occupied Area (7.1): an attempt in an Area holding more than ten of the
side's Combat units is refused before any roll — accepted, it left an impulse that could
never end (a random game met it: the fortifying Pioneer could not leave, nothing else
could, and neither ``end`` nor any listed order was possible)."""

from __future__ import annotations

import pytest

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.game import StalingradGame

GAME = StalingradGame()


@pytest.mark.skipif(not GAME.has_pack(), reason="needs the shipped data pack")
def test_no_fortification_in_an_overfull_area_7_1_14_3() -> None:
    """7.1, 14.3: refused with the rule, naming the Area; the same attempt with ten units
    there is accepted."""
    dice = CommittedDice(b"\x05" * 8, "fortify")
    state = GAME.apply_text(GAME.setup("historical"), "german", "rubble", dice).state
    board = GAME.board_for(state)
    german = [u for u, unit in state.units.items() if board.units[u].side == "german"
              and unit.loc in board.areas and unit.fresh and board.units[u].combat]
    engineer = next(u for u in german if board.units[u].engineer)
    area = state.units[engineer].loc
    others = [u for u in german if state.units[u].loc != area]
    here = sum(1 for u in german if state.units[u].loc == area)
    for uid in others[:board.max_stack - here]:
        state.units[uid].loc = area
    GAME.apply_text(state, "german", f"fortify {area} with {engineer}", dice)  # ten: fine
    state.units[others[board.max_stack - here]].loc = area  # eleven
    with pytest.raises(RuleError) as refused:
        GAME.apply_text(state, "german", f"fortify {area} with {engineer}", dice)
    assert refused.value.rule == "7.1" and f"Area {area}" in str(refused.value)
