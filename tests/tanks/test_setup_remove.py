"""A set-up may be changed before its side's ``done``: ``remove UNIT`` takes back a unit set
up (4.0; hidden, 20.0; face-down, 25.7), ``remove mine HEX`` a hex written down (19.1), so
a mine is moved by removing it and mining another hex. What is taken back is told only to
whom its placement was told; after ``done`` nothing is taken back."""

from __future__ import annotations

import pytest

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import PUBLIC, Event
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.state import TanksState

GAME = TanksGame()


def play(state: TanksState, side: str, *orders: str) -> tuple[TanksState, list[Event]]:
    events: list[Event] = []
    for text in orders:
        outcome = GAME.apply_text(state, side, text, CommittedDice(b"\x07" * 32, "remove"))
        state, events = outcome.state, [*events, *outcome.events]
    return state, events


def public_lines(events: list[Event]) -> list[str]:
    return [e.text for e in events if e.audience == PUBLIC]


def test_a_hidden_unit_is_taken_back_in_secret_and_waits_again_20_0() -> None:
    state, _ = play(GAME.setup("pakfront"), "german", "hide flak88-2 0505")
    state, events = play(state, "german", "remove flak88-2")
    unit = state.unit("flak88-2")
    assert unit is not None and unit.status == "waiting" and unit.hex is None
    assert not unit.hidden
    assert [e.text for e in events] == ["flak88-2 taken back from 0505; to set up again"]
    assert public_lines(events) == []  # the hex stays the German's secret
    state, _ = play(state, "german", "hide flak88-2 0606")  # and it is set up again
    assert state.unit("flak88-2").hex == "0606"  # type: ignore[union-attr]


def test_a_unit_set_up_in_sight_is_taken_back_in_sight_4_0() -> None:
    state, _ = play(GAME.setup("pakfront"), "german", "place infde-1 1112")
    state, events = play(state, "german", "remove infde-1")
    assert public_lines(events) == ["infde-1 taken back from 1112"]
    assert state.unit("infde-1").status == "waiting"  # type: ignore[union-attr]


def test_a_face_down_unit_taken_back_keeps_its_identity_secret_25_7() -> None:
    state = GAME.setup("gauntlet")
    side = GAME.private_input(state)
    assert side == "german"
    unit = next(u for u in state.units if u.side == "german" and u.status == "waiting")
    state, _ = play(state, "german", f"place {unit.id} 1010")
    state, events = play(state, "german", f"remove {unit.id}")
    assert public_lines(events) == ["the face-down german unit in 1010 is taken back"]
    assert all(unit.id not in line for line in public_lines(events))


def test_a_mine_is_moved_by_taking_it_back_and_mining_another_hex_19_1() -> None:
    state = GAME.setup("kursk-salient")
    state, _ = play(state, "soviet", "mine 1418", "mine 1518")
    state, events = play(state, "soviet", "remove mine 1418", "mine 1419")
    assert state.mines["soviet"] == ["1419", "1518"]
    assert public_lines(events) == []  # mines stay secret (19.1)
    assert "soviet no longer mines 1418" in [e.text for e in events]
    with pytest.raises(RuleError, match="has not mined 1418") as refused:
        play(state, "soviet", "remove mine 1418")
    assert refused.value.rule == "19.1" and "remove mine 1419" in refused.value.legal


def test_nothing_is_taken_back_after_done_or_that_was_never_set_up_4_0() -> None:
    state = GAME.setup("pakfront")
    with pytest.raises(RuleError, match="german has set up no unit yet"):
        play(state, "german", "remove infde-1")
    state, _ = play(state, "german", "hide infde-5 1111")
    with pytest.raises(RuleError, match="german unit set up"):
        play(state, "german", "remove flak88-1")  # waiting, not set up
    with pytest.raises(RuleError):
        play(state, "soviet", "remove infde-5")  # not the Soviet's set-up (nor unit)
    units = ["su76-1", "su76-2", "su85-1", "su122-1", "su122-2", "at57-1", "at57-2",
             "at76-1", "at76-2", *(f"infsu-{n}" for n in range(1, 9))]
    state = GAME.setup("kursk-salient")
    state, _ = play(state, "soviet", *(f"place {u} {12 + i:02d}13" for i, u in enumerate(units)),
                    "done")
    with pytest.raises(RuleError):
        play(state, "soviet", "remove su76-1")  # done: the set-up stands
    assert state.unit("su76-1").hex == "1213"  # type: ignore[union-attr]


def test_placed_lists_units_hexes_facing_hidden_and_mines_for_the_owner_4_0_19_1_20_0() -> None:
    state, _ = play(GAME.setup("pakfront"), "german", "hide pak88-1 0505 face NW",
                    "place infde-1 1112")
    guide = GAME.setup_guide(state, "german")
    assert guide is not None
    assert guide.placed == ["0505 pak88-1 (88 Pak), hidden (20.0)",
                            "1112 infde-1 (Inf), in sight (4.0)"]
    state, _ = play(GAME.setup("kursk-salient"), "soviet", "mine 1418",
                    "place su76-1 1213 face SE")
    guide = GAME.setup_guide(state, "soviet")
    assert guide is not None and guide.placed[-1] == "mines (19.1): 1418"
    assert guide.placed[0].startswith("1213 su76-1 (")
    assert guide.placed[0].endswith(", facing SE, in sight (4.0)")
