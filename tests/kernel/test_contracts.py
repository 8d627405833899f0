"""Kernel contracts proven with the Duel test game."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.kernel.dice import CommittedDice, FixedDice
from adjudicator.kernel.errors import NotationError, RuleError
from adjudicator.kernel.events import visible_to
from adjudicator.kernel.game import Applied, Refused, apply_lines
from adjudicator.kernel.orders import Order, SetStanding
from tests.hypothesis_profiles import examples
from tests.kernel.duel import (
    CELLS,
    Attack,
    Decide,
    DuelGame,
    DuelState,
    Move,
    Pass,
    PlaceTrap,
)

GAME = DuelGame()


def started(trap: str = "3") -> DuelState:
    return GAME.apply_text(GAME.setup(), "red", f"trap {trap}", FixedDice()).state


# ---- notation ------------------------------------------------------------------------

orders = st.one_of(
    st.builds(Move, unit=st.sampled_from(["r1", "b2"]), cell=st.sampled_from(list(CELLS))),
    st.builds(Attack, unit=st.sampled_from(["r1", "b2"]), cell=st.sampled_from(list(CELLS))),
    st.just(Pass()),
    st.builds(PlaceTrap, cell=st.sampled_from(list(CELLS))),
    st.builds(Decide, choice=st.sampled_from(["yield", "lose"])),
    st.builds(SetStanding, kind=st.sampled_from(["casualty"]),
              policy=st.sampled_from([None, "lose", "yield-first"])),
)


@given(orders)
def test_parse_format_round_trip(order: object) -> None:
    text = GAME.format(order)  # type: ignore[arg-type]
    assert GAME.parse(text) == order
    assert GAME.format(GAME.parse(text)) == text


@given(orders, st.sampled_from(["", "  "]), st.booleans())
def test_forgiving_input_formats_canonically(order: object, pad: str, upper: bool) -> None:
    text = GAME.format(order)  # type: ignore[arg-type]
    messy = pad + (text.upper() if upper else text).replace(" ", "   ") + pad
    assert GAME.format(GAME.parse(messy)) == text


def test_names_numbers_and_prefixes_resolve() -> None:
    assert GAME.parse("MOVE r1 Mill") == Move(unit="r1", cell="3")
    assert GAME.parse("mo r1 bri") == Move(unit="r1", cell="4")
    assert GAME.parse("att r1 3") == Attack(unit="r1", cell="3")


def test_unknown_name_suggests_the_close_one() -> None:
    with pytest.raises(NotationError) as caught:
        GAME.parse("move r1 Brige")
    assert "unknown cell 'Brige'" in str(caught.value)
    assert "did you mean Bridge (4)?" in str(caught.value)


def test_bad_verb_lists_the_legal_ones() -> None:
    with pytest.raises(NotationError) as caught:
        GAME.parse("charge r1 mill")
    assert caught.value.rule == "notation" and "move" in caught.value.legal


# ---- pure apply ------------------------------------------------------------------------

def test_rule_error_leaves_state_untouched() -> None:
    state = started()
    before = state.state_hash()
    with pytest.raises(RuleError) as caught:
        GAME.apply_text(state, "red", "move r1 mill", FixedDice())
    assert caught.value.rule == "D2"
    assert caught.value.legal == ["move r1 2"]
    assert state.state_hash() == before


def test_apply_never_mutates_its_input() -> None:
    state = started()
    before = state.state_hash()
    outcome = GAME.apply_text(state, "red", "move r1 hill", FixedDice())
    assert state.state_hash() == before
    assert outcome.state.state_hash() != before


def test_state_serialisation_is_deterministic() -> None:
    state = started()
    again = GAME.load_state(state.to_bytes())
    assert again == state
    assert again.to_bytes() == state.to_bytes()
    assert again.state_hash() == state.state_hash()


def test_out_of_turn_orders_are_refused() -> None:
    with pytest.raises(RuleError) as caught:
        GAME.apply_text(started(), "blue", "pass", FixedDice())
    assert caught.value.rule == "turn"


def test_rolls_are_recorded_in_events_with_labels() -> None:
    state = started()
    state.units[1].cell = "3"  # r2 next to b2 at 4
    outcome = GAME.apply_text(state, "red", "attack r2 bridge", FixedDice([1, 1]))
    rolls = [e for e in outcome.events if e.kind == "roll"]
    assert [r.data["label"] for r in rolls] == ["red attack DR"]
    assert rolls[0].data["values"] == [1, 1] and outcome.rolls[0].index == 0


# ---- decisions and standing orders -----------------------------------------------------

def _hit_state() -> DuelState:
    state = started(trap="1")
    state.units[1].cell = "3"
    return state


def test_hit_leaves_a_pending_decision_for_the_defender() -> None:
    outcome = GAME.apply_text(_hit_state(), "red", "attack r2 4", FixedDice([6, 6]))
    pending = outcome.pending
    assert pending is not None and pending.side == "blue" and pending.kind == "casualty"
    assert pending.option_orders() == ["decide yield", "decide lose"]
    assert pending.default == "decide lose"
    with pytest.raises(RuleError):
        GAME.apply_text(outcome.state, "red", "pass", FixedDice())
    answered = GAME.apply_text(outcome.state, "blue", "decide yield", FixedDice())
    assert answered.pending is None
    assert next(u for u in answered.state.units if u.id == "b2").cell == "5"


def test_standing_order_answers_the_decision_at_once() -> None:
    state = _hit_state()
    state = GAME.apply_text(state, "blue", "standing casualty lose", FixedDice()).state
    outcome = GAME.apply_text(state, "red", "attack r2 4", FixedDice([6, 6]))
    assert outcome.pending is None
    assert outcome.applied == ["attack r2 4", "decide lose"]
    assert all(u.id != "b2" for u in outcome.state.units)
    answer = [e for e in outcome.events if e.kind == "standing-answer"]
    assert answer and answer[0].audience == "blue"


def test_standing_order_validation() -> None:
    with pytest.raises(RuleError) as caught:
        GAME.apply_text(started(), "blue", "standing casualty flee", FixedDice())
    assert caught.value.rule == "standing" and "lose" in caught.value.legal
    with pytest.raises(RuleError):
        GAME.apply_text(started(), "blue", "standing weather sunny", FixedDice())


def test_standing_orders_are_private_to_their_side() -> None:
    state = GAME.apply_text(started(), "blue", "standing casualty lose", FixedDice()).state
    assert GAME.view(state, "blue").standing == {"casualty": "lose"}
    assert GAME.view(state, "red").standing == {}
    assert "lose" not in GAME.view(state, "public").model_dump_json()


# ---- views and secrets ------------------------------------------------------------------

def test_a_side_view_omits_the_other_sides_secret() -> None:
    state = started(trap="4")
    red = GAME.view(state, "red")
    assert red.trap == "4"  # type: ignore[attr-defined]
    assert GAME.view(state, "gm").trap == "4"  # type: ignore[attr-defined]
    for viewer in ("blue", "public"):
        view = GAME.view(state, viewer)
        assert view.trap is None  # type: ignore[attr-defined]
        assert '"trap":"4"' not in view.model_dump_json()


def test_secret_events_reach_only_their_audience() -> None:
    outcome = GAME.apply_text(GAME.setup(), "red", "trap bridge", FixedDice())
    public = " ".join(e.text for e in visible_to(outcome.events, "public"))
    blue = " ".join(e.text for e in visible_to(outcome.events, "blue"))
    red = " ".join(e.text for e in visible_to(outcome.events, "red"))
    assert "Bridge" in red
    assert "Bridge" not in public and "Bridge" not in blue
    assert "placed a trap" in public


def test_pending_options_are_shown_only_to_the_owing_side() -> None:
    outcome = GAME.apply_text(_hit_state(), "red", "attack r2 4", FixedDice([6, 6]))
    assert GAME.view(outcome.state, "blue").pending.options  # type: ignore[union-attr]
    red_pending = GAME.view(outcome.state, "red").pending
    assert red_pending is not None and red_pending.options == () and red_pending.side == "blue"


# ---- multi-line submissions -------------------------------------------------------------

def test_apply_lines_hands_each_line_its_own_dice_and_the_state_it_was_applied_to() -> None:
    state = started()
    handed: list[FixedDice] = []

    def dice(order: Order) -> FixedDice:
        handed.append(FixedDice())
        return handed[-1]

    steps = list(apply_lines(GAME, state, "red", ["move r1 2", "move r2 9", "pass"], dice))
    assert [type(s).__name__ for s in steps] == ["Applied", "Refused"]
    first, refused = steps
    assert isinstance(first, Applied) and isinstance(refused, Refused)
    assert first.before is state and first.number == 1 and not first.waits
    assert refused.number == 2 and "unknown cell" in str(refused.error)
    assert len(handed) == 1  # dice for read orders only: line 2 names no cell, line 3 waits
    waits = list(apply_lines(GAME, _hit_state(), "red", ["attack r2 4", "pass"],
                             lambda order: FixedDice([6, 6])))
    assert len(waits) == 1 and isinstance(waits[0], Applied) and waits[0].waits


# ---- hooks every game declares ----------------------------------------------------------

def test_the_service_hooks_are_declared_on_game_with_a_neutral_default() -> None:
    state = started()
    assert GAME.undo_reveals([]) == [] and GAME.gm_operations() == {}
    assert GAME.options() == {}
    assert GAME.deadline_order(state, "red") == (
        "pass" if "pass" in GAME.legal_orders(state, "red") else None)
    with pytest.raises(RuleError, match="no GM edits"):
        GAME.gm_edit(state, "move", SetStanding(kind="casualty"))


def test_a_game_must_declare_its_order_spec() -> None:
    assert isinstance(type("Inherits", (DuelGame,), {})(), DuelGame)  # an inherited spec
    bare = type("Bare", (DuelGame,), {})
    bare.order_spec = None  # type: ignore[assignment]
    with pytest.raises(TypeError, match="declares no order_spec"):
        bare()


# ---- random legal play ------------------------------------------------------------------

@settings(max_examples=examples(40), deadline=None)
@given(st.binary(min_size=4, max_size=8), st.randoms(use_true_random=False))
def test_random_legal_games_keep_invariants(seed: bytes, rnd: object) -> None:
    import random

    assert isinstance(rnd, random.Random)
    dice = CommittedDice(seed, "fuzz")
    state = GAME.setup()
    for _ in range(200):
        side = GAME.acting_side(state)
        if side is None:
            break
        legal = GAME.legal_orders(state, side)
        assert legal, "a side to act always has a legal order"
        outcome = GAME.apply_text(state, side, rnd.choice(legal), dice)
        state = outcome.state
        assert GAME.load_state(state.to_bytes()).state_hash() == state.state_hash()
        assert len({u.id for u in state.units}) == len(state.units)
        assert all(u.cell in CELLS for u in state.units)
        assert GAME.view(state, "blue").trap is None  # type: ignore[attr-defined]


def test_secret_orders_are_declared_by_the_game() -> None:
    assert GAME.is_secret_text("trap mill")
    assert GAME.is_secret_text("standing casualty lose")
    assert not GAME.is_secret_text("move r1 2")
    assert not GAME.is_secret_text("no such order")
