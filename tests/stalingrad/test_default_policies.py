"""Decisions only when they matter (9.2-9.4, 8.355): a side that has set no standing order
is not asked about a voluntary retreat — its default policy ('never') answers — and is asked
about the Advantage only when it can turn a roll its way ('helps'); 'standing KIND ask'
asks each time."""

from __future__ import annotations

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.orders import SetStanding
from adjudicator.stalingrad.game import StalingradGame

GAME = StalingradGame()


def dice() -> CommittedDice:
    return CommittedDice(b"\x07" * 32, "defaults")


def test_the_initial_rubble_asks_nobody_and_says_nothing_about_the_advantage_5_7_9_4() -> None:
    """5.7, 9.4: the set-up's Rubble drs are not worth the Advantage by default: no
    question, and no "answers by default" line either (issue 23)."""
    state = GAME.setup("historical")
    outcome = GAME.apply_text(state, "german", "rubble", dice())
    assert outcome.state.pending is None
    assert any(e.kind == "initial-rubble" and e.data["rubble"] for e in outcome.events)
    assert not [e for e in outcome.events if e.kind == "standing-answer"
                or "advantage" in e.text.lower()]


def test_standing_ask_brings_the_question_back_9_4() -> None:
    state = GAME.setup("historical")
    state = GAME.apply(state, "german", SetStanding(kind="advantage", policy="ask"),
                       dice()).state
    outcome = GAME.apply_text(state, "german", "rubble", dice())
    assert outcome.state.pending is not None
    assert outcome.state.pending.kind == "advantage"


def test_the_defaults_are_listed_with_the_policies() -> None:
    defaults = {p.kind: p.policy for p in GAME.standing_policies() if p.default}
    assert defaults == {"advantage": "helps", "voluntary": "never"}
    assert GAME.default_policy("casualties") is None  # losses are always the player's choice
    assert {"advantage", "voluntary"} <= {p.kind for p in GAME.standing_policies()
                                         if p.policy == "ask"}
