"""Decisions only when they matter (9.2-9.4, 8.355): a side that has set no standing order
is not asked about the Advantage or a voluntary retreat — its default policy ('never')
answers; 'standing KIND ask' asks again."""

from __future__ import annotations

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.orders import SetStanding
from adjudicator.stalingrad.game import StalingradGame

GAME = StalingradGame()


def dice() -> CommittedDice:
    return CommittedDice(b"\x07" * 32, "defaults")


def test_the_initial_rubble_asks_nobody_about_the_advantage_5_7_9_4() -> None:
    state = GAME.setup("historical")
    outcome = GAME.apply_text(state, "german", "rubble", dice())
    assert outcome.state.pending is None
    defaults = [e for e in outcome.events if e.kind == "standing-answer"]
    assert defaults and all(e.data["default"] and e.audience == "german" for e in defaults)
    assert "'standing advantage ask' to be asked" in defaults[0].text


def test_standing_ask_brings_the_question_back_9_4() -> None:
    state = GAME.setup("historical")
    state = GAME.apply(state, "german", SetStanding(kind="advantage", policy="ask"),
                       dice()).state
    outcome = GAME.apply_text(state, "german", "rubble", dice())
    assert outcome.state.pending is not None
    assert outcome.state.pending.kind == "advantage"


def test_the_defaults_are_listed_with_the_policies() -> None:
    defaults = {p.kind: p.policy for p in GAME.standing_policies() if p.default}
    assert defaults == {"advantage": "never", "voluntary": "never"}
    assert GAME.default_policy("casualties") is None  # losses are always the player's choice
    assert {"advantage", "voluntary"} <= {p.kind for p in GAME.standing_policies()
                                         if p.policy == "ask"}
