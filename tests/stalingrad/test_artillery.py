"""Artillery and the Luftwaffe on the shipped pack (15, 17): Observer ranges, strengths by
date, and every listed Artillery/Air order accepted."""

from __future__ import annotations

import pytest

from adjudicator.kernel.dice import CommittedDice, FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.artillery import observer_targets, strength
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.state import StalingradState

GAME = StalingradGame()
pytestmark = pytest.mark.skipif(not GAME.has_pack(), reason="needs the shipped data pack")


def played() -> StalingradState:
    state = GAME.setup("historical")
    for side in ("german", "russian"):
        state = GAME.apply_text(state, side, "standing advantage never", FixedDice()).state
    return GAME.apply_text(state, "german", "rubble", FixedDice([1] * 8)).state


def test_hill_102_reaches_42_53_68_not_43_52_15_212() -> None:
    state = played()
    ctx = Ctx(GAME.board_for(state), state)
    observer = next(u for u, d in ctx.board.units.items() if d.kind == "artillery")
    state.units[observer].loc = "56"
    for uid, unit in state.units.items():  # no friendly units in the way
        if uid != observer and unit.loc in ("42", "53", "68", "43", "52") \
                and ctx.board.units[uid].side == "german":
            unit.loc = "pool"
    ctx = Ctx(GAME.board_for(state), state)
    targets = set(observer_targets(ctx, observer))
    assert {"42", "53", "68"} <= targets
    assert not {"43", "52"} & targets
    state.units[observer].loc = "23"  # Hill 126.3: two Areas
    ctx = Ctx(GAME.board_for(state), state)
    from adjudicator.stalingrad.data import load_pack

    within = load_pack().within(23, 2)
    targets = set(observer_targets(ctx, observer))
    assert targets and targets <= within and "13" not in targets


@pytest.mark.parametrize(("date", "fag", "stuka"), [
    ("S26", 1, 8), ("S27", 2, 5), ("O13", 2, 5), ("O14", 2, 9), ("O31", 2, 9), ("N1", 3, 9)])
def test_strengths_by_date_15_3_17_23(date: str, fag: str, stuka: int) -> None:
    state = played().model_copy(update={"date": GAME.pack_board.parse_date_code(date)})
    ctx = Ctx(GAME.board_for(state), state)
    assert strength(ctx, "r:fag-s") == fag
    assert strength(ctx, "g:stuka") == stuka


def test_observer_day_and_night_factors_15_24() -> None:
    state = played()
    ctx = Ctx(GAME.board_for(state), state)
    observer = "g94:arko94"
    assert strength(ctx, observer) == 6
    night = state.model_copy(update={"day": False})
    assert strength(Ctx(GAME.board_for(night), night), observer) == 4


def test_every_listed_artillery_and_air_order_is_accepted() -> None:
    """The legal list offers the Opening Bombardment, Observer and Stuka attacks on the
    historical setup; each is accepted (only its dice may go badly)."""
    state = played()
    legal = GAME.legal_orders(state, "german")
    fire = [o for o in legal if o.startswith("bombard")
            or (o.startswith("attack") and ("arko" in o or "stuka" in o))]
    assert any(o.startswith("bombard") for o in fire)
    assert any("g:stuka" in o for o in fire)
    dice = CommittedDice(b"artillery".ljust(32, b"."), "artillery")
    for order in fire[:40]:
        try:
            GAME.apply_text(state, "german", order, dice)
        except RuleError as error:
            raise AssertionError(f"listed but refused: {order!r}: {error}") from error


def test_the_russian_is_asked_about_his_artillery_and_may_refuse_15_3() -> None:
    state = played()
    state = GAME.apply_text(state, "german", "pass", FixedDice()).state  # Sept 13: no DR
    state = GAME.apply_text(state, "russian", "pass", FixedDice()).state
    legal = GAME.legal_orders(state, "german")
    attack = next(o for o in legal if o.startswith("attack") and "arko" not in o
                  and "stuka" not in o)
    outcome = GAME.apply_text(state, "german", attack, FixedDice())
    pending = outcome.state.pending
    if pending is None or pending.kind != "artillery":
        pytest.skip("no FAG covers the first listed attack")
    assert pending.side == "russian"
    assert "decide artillery none" in pending.option_orders()
    after = GAME.apply_text(outcome.state, "russian", "decide artillery none",
                            FixedDice([3, 3, 3, 3]))
    assert not any(e.kind == "counter-battery" for e in after.events)


def test_an_observer_in_a_combat_attack_is_told_it_attacks_alone_8_24_15_2() -> None:
    """8.24, 15.2: an Observer listed with Combat units is refused, and the refusal says
    what it can do instead (attack on its own as the impulse's action), with the order."""
    state = played()
    with pytest.raises(RuleError) as error:
        GAME.apply_text(state, "german", "attack 20 with ii/2 i/79 ii/79 arko16", FixedDice())
    assert error.value.rule == "8.24"
    assert error.value.message == (
        "arko16 is Artillery, not a Combat unit: it does not join an attack by Combat units "
        "(8.24); it attacks on its own, as the impulse's action (15.2): attack 20 with arko16")
    outcome = GAME.apply_text(state, "german", "attack 20 with arko16", FixedDice([4, 4, 2, 2]))
    assert any(e.kind == "attack" for e in outcome.events)


def test_after_an_attack_the_side_is_told_to_end_the_impulse_8_1() -> None:
    """8.1: once an attack is over with nothing pending, what the side whose impulse it is
    does next ('end') is said with the attack; while a decision is pending, nothing yet."""
    state = played()
    outcome = GAME.apply_text(state, "german", "attack 20 with arko16", FixedDice([6, 6, 1, 1]))
    [hint] = [e for e in outcome.events if e.kind == "next"]
    assert hint.audience == "public" and hint.rule == "8.1" and hint.data["side"] == "german"
    assert "german types 'end' to end the impulse" in hint.text
    assert outcome.events[-1] is hint and GAME.legal_orders(outcome.state, "german") == ["end"]
    waiting = GAME.apply_text(state, "german", "attack 20 with arko16", FixedDice([4, 4, 2, 3]))
    assert waiting.state.pending is not None  # 3 CP: whose loss is first waits for a choice
    assert not any(e.kind == "next" for e in waiting.events)
    state, said = waiting.state, []
    while state.pending is not None:  # answered as the first option each time
        pending = state.pending
        outcome = GAME.apply(state, pending.side, GAME.parse(pending.options[0].order),
                             FixedDice([3] * 8))
        state, said = outcome.state, [e for e in outcome.events if e.kind == "next"]
    assert len(said) == 1 and "german types 'end'" in said[0].text


def test_dice_lines_follow_their_action_line_and_units_have_one_name_5_7_8_35() -> None:
    """8.35: the attack's line comes first, then its two DRs, then what they decided; 5.7:
    each initial Rubble dr just before its result. Unit names in what the rules say are
    the short names players type (arko16, 1rb115), never the ids with their formation."""
    state = GAME.setup("historical")
    for side in ("german", "russian"):
        state = GAME.apply_text(state, side, "standing advantage never", FixedDice()).state
    rubble = GAME.apply_text(state, "german", "rubble", FixedDice([1] * 8)).events
    assert [e.kind for e in rubble[:4]] == ["roll", "initial-rubble", "roll", "initial-rubble"]
    assert "(33)" in rubble[0].text and "(33)" in rubble[1].text
    state = played()
    events = GAME.apply_text(state, "german", "attack 20 with arko16",
                             FixedDice([6, 6, 1, 1])).events
    kinds = [e.kind for e in events]
    assert kinds[:4] == ["attack", "roll", "roll", "attack-dice"]
    assert kinds.index("attack-result") > 3
    texts = " ".join(e.text for e in events)
    assert "with arko16" in texts and "1rb115 is eliminated" in texts
    assert "g16pz:" not in texts and "r115rb:" not in texts
