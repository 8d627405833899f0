"""Optional rules (22): secret bids for sides (22.1), cards (22.21) and Feints (22.22).

The leak tests hold the rules to the product's secrets standard: what the other side and
the public see — Views and the events they may read — must not depend on a secret bid or a
secretly chosen card until both are revealed. Each test plays the same position twice with
different secret values and compares everything the other side could read (commitments,
being salted hashes, are masked).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from adjudicator.kernel.dice import CommittedDice, FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import visible_to
from adjudicator.kernel.salted import opens
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.state import StalingradState

GAME = StalingradGame()
pytestmark = pytest.mark.skipif(not GAME.has_pack(), reason="needs the shipped data pack")
HEX = re.compile(r"[0-9a-f]{32,64}")


def dice() -> CommittedDice:
    return CommittedDice(b"optional-rules".ljust(32, b"."), "optional")


def seen_by(state: StalingradState, events: list[Any], viewer: str) -> str:
    """Everything ``viewer`` may read after an order, commitments and salts masked."""
    view = GAME.view(state, viewer).model_dump_json()
    texts = " | ".join(f"{e.kind}:{e.text}:{sorted(e.data.items())}"
                       for e in visible_to(events, viewer))
    return HEX.sub("#", view + texts)


def test_a_bid_is_sealed_and_tells_the_other_side_nothing_22_11() -> None:
    state = GAME.setup("historical", {"bids": True})
    assert state.phase == "bids" and GAME.acting_side(state) == "german"
    assert GAME.private_input(state) == "german"
    assert GAME.is_secret(GAME.parse("bid 3"))
    low = GAME.apply_text(state, "german", "bid -17", dice())
    high = GAME.apply_text(state, "german", "bid 23", dice())
    for viewer in ("public", "russian"):
        assert seen_by(low.state, low.events, viewer) == seen_by(high.state, high.events,
                                                                 viewer)
        assert "-17" not in seen_by(low.state, low.events, viewer)
    assert any("-17" in e.text for e in visible_to(low.events, "german"))
    assert GAME.acting_side(low.state) == "russian"
    with pytest.raises(RuleError):
        GAME.apply_text(low.state, "russian", "pass", dice())


def test_bids_revealed_together_the_higher_commands_the_germans_22_11_22_12() -> None:
    state = GAME.setup("historical", {"bids": True})
    state = GAME.apply_text(state, "german", "bid 1", dice()).state
    outcome = GAME.apply_text(state, "russian", "bid 3", dice())
    revealed = next(e for e in outcome.events if e.kind == "bids-revealed")
    assert revealed.audience == "public"
    assert (revealed.data["german"], revealed.data["russian"]) == (1, 3)
    assert opens(revealed.data["russian_commitment"], revealed.data["russian_salt"], "3")
    assert any(e.kind == "seats-swapped" for e in outcome.events)
    assert outcome.state.options["german_bid"] == 3
    assert outcome.state.phase == "rubble"


def test_tied_bids_go_by_a_die_roll_22_13() -> None:
    state = GAME.setup("sawmill", {"bids": True})
    state = GAME.apply_text(state, "german", "bid 2", FixedDice([1] * 16)).state
    outcome = GAME.apply_text(state, "russian", "bid 2", FixedDice([1] * 16 + [5]))
    assert any(e.kind == "bids-tied" for e in outcome.events)
    assert any(e.kind == "seats-swapped" for e in outcome.events)  # 5: the Russian seat
    assert outcome.state.options["german_bid"] == 2


def opened(options: dict[str, Any]) -> StalingradState:
    state = GAME.setup("historical", options)
    for side in ("german", "russian"):
        state = GAME.apply_text(state, side, "standing advantage never", FixedDice()).state
        state = GAME.apply_text(state, side, "standing artillery never", FixedDice()).state
    return GAME.apply_text(state, "german", "rubble", FixedDice([1] * 8)).state


def first_attack(state: StalingradState) -> str:
    return next(o for o in GAME.legal_orders(state, "german") if o.startswith("attack")
                and "arko" not in o and "stuka" not in o)


def test_cards_replace_the_attack_dice_22_21() -> None:
    state = opened({"cards": True})
    outcome = GAME.apply_text(state, "german", first_attack(state), dice())
    cards = [e for e in outcome.events if e.kind == "card"]
    assert [c.data["side"] for c in cards] == ["german", "russian"]
    assert all(2 <= c.data["value"] <= 12 for c in cards)
    assert len(outcome.state.decks["german"]) == 35 and len(outcome.state.decks["russian"]) == 35
    deck = sorted(outcome.state.decks["german"] + [cards[0].data["value"]])
    assert sum(deck) == 7 * 36  # two dice's 36 outcomes: an average of 7


def test_a_feint_is_secret_until_both_cards_are_chosen_22_22() -> None:
    state = opened({"feints": True})
    outcome = GAME.apply_text(state, "german", first_attack(state), dice())
    pending = outcome.state.pending
    assert pending is not None and pending.kind == "card" and pending.side == "german"
    assert GAME.private_input(outcome.state) == "german"
    assert GAME.is_secret(GAME.parse("decide card 9"))
    low = GAME.apply_text(outcome.state, "german", "decide card 2", dice())
    high = GAME.apply_text(outcome.state, "german", "decide card 12", dice())
    for viewer in ("public", "russian"):
        assert seen_by(low.state, low.events, viewer) == seen_by(high.state, high.events,
                                                                 viewer)
    pending = low.state.pending
    assert pending is not None and pending.kind == "card" and pending.side == "russian"
    done = GAME.apply_text(low.state, "russian", "decide card 7", dice())
    revealed = next(e for e in done.events if e.kind == "cards-revealed")
    assert (revealed.data["attack"], revealed.data["defense"]) == (2, 7)
    assert opens(revealed.data["attack_commitment"], revealed.data["attack_salt"], "2")
    with pytest.raises(RuleError) as error:
        GAME.apply_text(outcome.state, "german", "decide card 13", dice())
    assert error.value.rule == "22.22"
