"""6.5: one order for a whole entry, ``enter all at HEX-HEX [face D]``.

It stands for one ordinary ``move UNIT HEX`` per unit still to enter, which the kernel's
multi-line loop applies (and the service stores) one by one, each checked as if typed."""

from __future__ import annotations

import pytest

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.game import Applied, Refused, apply_lines
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.orders import Enter, Move, parse_order
from adjudicator.tanks.state import TanksState

GAME = TanksGame()
DICE = CommittedDice(bytes(32), "enter-all")


def kursk_entry() -> TanksState:
    """Kursk: Into the Salient (25.3) after the set-up: the German, turn 1, First
    Movement Phase, 33 units waiting to enter by the north edge."""
    state = GAME.setup("kursk-salient")
    placed: set[str] = set()  # each unit once: a placed unit may be set up again until done
    while state.phase == "setup":
        side = GAME.acting_side(state)
        assert side is not None
        placing = [o for o in GAME.legal_orders(state, side)
                   if o.startswith(("place", "hide")) and o.split()[1] not in placed]
        if placing:
            placed.add(placing[0].split()[1])
        state = GAME.apply_text(state, side, placing[0] if placing else "done", DICE).state
    assert (state.phase, GAME.acting_side(state), state.turn) == ("move1", "german", 1)
    return state


def waiting(state: TanksState) -> list[str]:
    return [u.id for u in state.units if u.side == "german" and u.status == "waiting"]


def run(state: TanksState, *lines: str) -> list[Applied[TanksState] | Refused]:
    return list(apply_lines(GAME, state, "german", lines, lambda order: DICE))


def test_6_5_enter_all_parses_and_formats() -> None:
    """6.5: the range is one word (``0126-1526``, ``01.26-15.26``), the facing optional."""
    order = parse_order("Enter ALL at 01.26-15.26 facing 1")
    assert order == Enter(hexes=("0126", "1526"), face="N")
    assert GAME.format(order) == "enter all at 0126-1526 face N"
    assert parse_order("enter all 0101").hexes == ("0101", "0101")  # type: ignore[attr-defined]
    with pytest.raises(RuleError) as caught:
        parse_order("enter all at x")
    assert "range of hexes" in str(caught.value)


def test_6_5_enter_all_is_one_ordinary_move_per_unit() -> None:
    """6.5: the whole German entry in one line: one ``move UNIT HEX face S`` per waiting
    unit, in roster order, on the range's hexes from its first (each an ordinary order:
    its text reads back as the same order, so the record and its replay are unchanged)."""
    state = kursk_entry()
    units = waiting(state)
    steps = run(state, "enter all at 0101-3101 face S")
    assert all(isinstance(step, Applied) for step in steps)
    applied = [step for step in steps if isinstance(step, Applied)]
    assert [step.number for step in applied] == list(range(1, len(units) + 1))
    assert [step.order.unit for step in applied] == units  # type: ignore[attr-defined]
    assert applied[0].text == "move iia-1 0101 face S"
    assert applied[1].text == "move iia-2 0201 face S"
    for step in applied:
        assert isinstance(step.order, Move)
        assert GAME.parse_in(step.before, step.text) == step.order
    final = applied[-1].outcome.state
    assert waiting(final) == []
    assert {u.facing for u in final.units if u.side == "german"
            and GAME.ctx(final).type_of(u).has_facing} == {"S"}


def test_6_5_units_beyond_the_free_hexes_enter_again_and_move_one_hex_in() -> None:
    """6.5: 33 units, 31 north edge hexes: the last two enter on 0201 and 0301 again (the
    corner 0101 has no hex straight in) and move one hex in; the edge hex counts double
    for the second unit to enter there: 2 + 1 for the clear hex in."""
    state = kursk_entry()
    applied = [s for s in run(state, "enter all at 0101-3101") if isinstance(s, Applied)]
    assert [s.text for s in applied[-2:]] == ["move ht-7 0201 0202", "move ht-8 0301 0302"]
    final = applied[-1].outcome.state
    assert {u.id: u.spent for u in final.units if u.id in ("ht-6", "ht-7")} == {
        "ht-6": 1, "ht-7": 3}


def test_6_5_the_whole_order_applied_at_once_gives_the_same_position() -> None:
    """6.5: ``apply`` of the whole order (a conformance step) and the loop's orders one by
    one reach the same position."""
    state = kursk_entry()
    whole = GAME.apply_text(state, "german", "enter all at 0101-3101 face S", DICE).state
    steps = run(state, "enter all at 0101-3101 face S")
    last = steps[-1]
    assert isinstance(last, Applied)
    assert whole.state_hash() == last.outcome.state.state_hash()


def test_6_5_a_refused_move_names_unit_and_hex_and_keeps_the_ones_before() -> None:
    """6.5, 6.3: an enemy unit on 0501: the fifth move is refused naming the unit and the
    hex; like the lines before a refused line, the four moves before it stay applied and
    nothing after it is applied."""
    state = kursk_entry()
    blocker = next(u for u in state.units if u.side == "soviet" and u.hex is not None)
    blocker.hex, blocker.hidden = "0501", False
    steps = run(state, "enter all at 0101-3101 face S")
    assert [type(s).__name__ for s in steps] == ["Applied"] * 4 + ["Refused"]
    refused = steps[-1]
    assert isinstance(refused, Refused)
    assert refused.number == 5
    assert refused.text == "move ivh-1 0501 face S"
    assert "ivh-1" in str(refused.error) and "0501" in str(refused.error)
    assert "enter all at 0101-3101 face S" in str(refused.error)


def test_6_5_a_bad_range_lists_edge_hexes_near_the_target_never_from_0101() -> None:
    """6.5: a range end that is not a map edge hex is refused before anything is applied;
    the legal choices are the edge hexes nearest it, short."""
    state = kursk_entry()
    for text, near in (("enter all at 1613-3101", "1601"), ("enter all at 3301-2001", "3101")):
        steps = run(state, text)
        assert len(steps) == 1 and isinstance(steps[0], Refused)
        error = steps[0].error
        assert error.rule == "6.5"
        assert near in error.legal and "0101" not in error.legal
        assert len(str(error)) < 2000


def test_6_5_a_range_too_narrow_is_refused_whole_with_free_hexes_beyond() -> None:
    """6.5, 6.2: 33 units cannot end on 3 edge hexes and the 2 hexes in from them: the
    order is refused before any move, naming the first unit left without a hex and
    listing free edge hexes beyond the range."""
    state = kursk_entry()
    steps = run(state, "enter all at 0101-0301")
    assert len(steps) == 1 and isinstance(steps[0], Refused)
    error = steps[0].error
    assert error.rule == "6.2" and "ivh-2" in str(error)
    assert error.legal[:3] == ["0401", "0501", "0601"]
    assert len(str(error)) < 2000


def test_6_5_other_edge_and_other_phase_are_refused() -> None:
    """6.5 / 25.3: the German enters by the north edge only; 5.0: units enter in a
    movement phase."""
    state = kursk_entry()
    steps = run(state, "enter all at 0126-1526 face N")
    assert isinstance(steps[0], Refused) and steps[0].error.rule == "6.5"
    assert "north edge" in str(steps[0].error)
    setup = GAME.setup("kursk-salient")
    assert GAME.acting_side(setup) == "soviet"
    steps = list(apply_lines(GAME, setup, "soviet", ["enter all at 0101-3101"],
                             lambda order: DICE))
    assert isinstance(steps[0], Refused) and steps[0].error.rule == "5.0"


def test_6_5_enter_all_is_listed_only_where_each_move_is_legal() -> None:
    """6.5: the legal orders offer the whole edge the units enter by, facing inward; not in
    First Encounter, where 25.1 keeps the German on the road (0101 is off it)."""
    state = kursk_entry()
    listed = [o for o in GAME.legal_orders(state, "german") if o.startswith("enter")]
    assert listed == ["enter all at 0101-3101 face S"]
    labels = {o.order: o.label for o in GAME.legal_options(state, "german")}
    assert labels[listed[0]] == "33 units enter by the north edge (6.5)"
    encounter = GAME.setup("first-encounter")
    assert not [o for o in GAME.legal_orders(encounter, "german") if o.startswith("enter")]
    with pytest.raises(RuleError) as caught:
        GAME.apply_text(encounter, "german", "enter all at 0101-3101 face S", DICE)
    assert caught.value.rule == "25.1" and "iia-1" in str(caught.value)


def test_6_5_enter_all_out_of_turn_is_refused_as_any_order_out_of_turn() -> None:
    """5.0: the Soviet's ``enter all`` during the German's phase is refused for the turn,
    not expanded (nothing of the Soviet's entry is judged or told)."""
    state = kursk_entry()
    steps = list(apply_lines(GAME, state, "soviet", ["enter all at 0126-3126 face N"],
                             lambda order: DICE))
    assert len(steps) == 1 and isinstance(steps[0], Refused)
    plain = list(apply_lines(GAME, state, "soviet", ["done"], lambda order: DICE))
    assert isinstance(plain[0], Refused)
    assert steps[0].error.rule == plain[0].error.rule
