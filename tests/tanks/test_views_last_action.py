"""View fields for the map picture: revealed mines, shot hexes, the last action (19.0, 20.0)."""

from __future__ import annotations

from typing import Any

from adjudicator.kernel.dice import FixedDice
from adjudicator.kernel.events import Event, visible_to
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.last_action import fold, for_viewer
from adjudicator.tanks.views import TanksView

GAME = TanksGame()


def view(state: Any, viewer: str) -> TanksView:
    found = GAME.view(state, viewer)
    assert isinstance(found, TanksView)
    return found


def test_known_mines_tell_revealed_mines_from_secret_ones_19_2() -> None:
    state = GAME.case_position({
        "blank_map": True, "phasing": "german", "phase": "move1",
        "mines": {"soviet": ["1012", "2012"]},
        "units": [{"id": "a", "side": "german", "type": "ivh", "hex": "1010", "facing": "S"}],
    })
    assert view(state, "soviet").known_mines == {}
    state = GAME.apply_text(state, "german", "move a 1011 1012", FixedDice([6, 6])).state
    owner = view(state, "soviet")
    assert owner.mines == {"1012": "soviet", "2012": "soviet"}
    assert owner.known_mines == {"1012": "soviet"}  # 2012 is still the owner's secret
    public = view(state, "public")
    assert public.mines == public.known_mines == {"1012": "soviet"}
    assert view(state, "german").known_mines == {"1012": "soviet"}


DEFENSIVE = {
    "blank_map": True, "phasing": "soviet", "phase": "defensive",
    "units": [
        {"id": "gun", "side": "german", "type": "pak-88", "hex": "1113", "hidden": True},
        {"id": "t34", "side": "soviet", "type": "t34a", "hex": "1108", "facing": "S"},
    ],
}


def test_a_hidden_firer_s_hex_goes_public_only_with_its_reveal_20_0() -> None:
    state = GAME.case_position(DEFENSIVE)
    assert "1113" not in view(state, "public").model_dump_json()
    assert "1113" not in view(state, "soviet").model_dump_json()
    outcome = GAME.apply_text(state, "german", "fire gun at t34", FixedDice([4, 3, 2, 2]))
    public = visible_to(outcome.events, "public")
    kinds = [e.kind for e in public if e.kind in ("revealed", "fire")]
    assert kinds == ["revealed", "fire"]  # the fire reveals it (20.0) before the shot is told
    shot = next(e for e in public if e.kind == "fire")
    assert shot.data["firer_hexes"] == ["1113"] and shot.data["target_hex"] == "1108"
    seen = view(outcome.state, "public").last_action
    assert seen is not None and seen.shot is not None
    assert seen.shot.from_ == ["1113"] and seen.shot.to == "1108"
    assert seen.shot.destroyed is True and seen.shot.text == "HIT - destroyed"


def test_last_action_move_path_and_shot_line_10_2() -> None:
    state = GAME.case_position({
        "blank_map": True, "phasing": "german", "phase": "move1",
        "units": [
            {"id": "pan", "side": "german", "type": "panther", "hex": "1010", "facing": "S"},
            {"id": "kv", "side": "soviet", "type": "kvia", "hex": "1016", "facing": "N"},
        ],
    })
    assert view(state, "public").last_action is None
    state = GAME.apply_text(state, "german", "move pan 1011 face SE 1111",
                            FixedDice()).state
    for viewer in ("public", "german", "soviet", "gm"):
        seen = view(state, viewer).last_action
        assert seen is not None and seen.model_dump() == {
            "move": {"unit": "pan", "path": ["1010", "1011", "1111"], "audience": "public"}}
    for _ in range(3):  # ends of phases leave the last action as it was
        state = GAME.apply_text(state, "german" if state.phase != "defensive" else "soviet",
                                "done", FixedDice()).state
    assert state.phase == "mobile"
    state = GAME.apply_text(state, "german", "fire pan at kv", FixedDice([6, 6])).state
    seen = view(state, "public").last_action
    assert seen is not None and set(seen.model_dump()) == {"shot"} and seen.shot is not None
    assert seen.shot.from_ == ["1111"] and seen.shot.to == "1016"
    assert seen.shot.hit is False and seen.shot.text == "MISS"


def test_last_action_barrage_target_and_scatter_18_2() -> None:
    state = GAME.case_position({
        "blank_map": True, "phasing": "german", "phase": "move1",
        "barrages": {"german": {"weight": "light", "per_turn": 1}},
        "units": [
            {"id": "pan", "side": "german", "type": "panther", "hex": "1010", "facing": "S"},
            {"id": "kv", "side": "soviet", "type": "kvia", "hex": "1016", "facing": "N"},
        ],
    })
    state = GAME.apply_text(state, "german", "barrage 1016", FixedDice()).state
    seen = view(state, "soviet").last_action
    assert seen is not None and seen.model_dump() == {
        "barrage": {"target": "1016", "scatter_to": None, "hexes": [], "audience": "public"}}
    state = GAME.apply_text(state, "german", "move pan 1011", FixedDice()).state
    seen = view(state, "public").last_action  # the marker stays in the picture (18.1)
    assert seen is not None and seen.barrage is not None and seen.move is not None
    assert seen.barrage.target == "1016"
    for side in ("german", "german", "soviet"):
        state = GAME.apply_text(state, side, "done", FixedDice()).state
    # end of Mobile Fire: scatter dr 1 (scatters), direction dr, then one DR for the KV
    outcome = GAME.apply_text(state, "german", "done", FixedDice([1, 4, 6, 6]))
    seen = view(outcome.state, "public").last_action
    assert seen is not None and seen.barrage is not None
    barrage = seen.barrage
    scatter = next(e for e in outcome.events if e.kind == "scatter")
    assert barrage.target == "1016" and barrage.scatter_to == scatter.data["hex"]
    assert barrage.scatter_to in barrage.hexes and len(barrage.hexes) == 7


def test_last_action_entries_keep_to_their_audience() -> None:
    events = [
        Event(kind="move", text="m", audience="german",
              data={"unit": "a", "hexes": ["0101", "0102"]}),
        Event(kind="fire", text="f", data={"firers": ["b"], "firer_hexes": ["0303"],
                                           "target": "c", "target_hex": "0306", "hit": True}),
    ]
    record = fold(events)
    german = for_viewer(record, "german", None)
    assert german is not None and german.model_dump() == {
        "move": {"unit": "a", "path": ["0101", "0102"], "audience": "german"},
        "shot": {"from": ["0303"], "to": "0306", "hit": True, "destroyed": False,
                 "disrupted": False, "text": "HIT - no effect", "firers": ["b"],
                 "target": "c", "mode": None, "audience": "public"}}

    def parts(viewer: str) -> set[str]:
        seen = for_viewer(record, viewer, None)
        return set(seen.model_dump()) if seen is not None else set()

    assert parts("soviet") == parts("public") == {"shot"}
    assert parts("gm") == {"move", "shot"}
    assert record.audiences_seen_by("soviet") == {"public"}


def test_the_record_is_stored_as_states_always_stored_it() -> None:
    """The state keeps the record in the shape it always had ({} when empty, absent
    entries left out, the shot's firers' hexes under "from"), so stored hashes hold."""
    from adjudicator.tanks.state import TanksState

    state = TanksState(scenario="x", last_turn=1, order=["german", "soviet"])
    assert state.model_dump(mode="json")["last_action"] == {}
    shot = {"from": ["0303"], "to": "0306", "hit": True, "destroyed": False,
            "disrupted": False, "text": "HIT - no effect", "firers": ["b"], "target": "c",
            "mode": None, "audience": "public"}
    again = TanksState.model_validate({**state.model_dump(mode="json"),
                                       "last_action": {"shot": shot}})
    assert again.model_dump(mode="json")["last_action"] == {"shot": shot}


def test_a_mine_kill_is_said_in_the_crop_caption_19_2() -> None:
    """19.2: a unit destroyed by a minefield on its way: the zoomed picture's caption says
    so, not only the arrow of the move; the stored state is what it always was."""
    from render.tanks import crop_caption

    state = GAME.case_position({
        "blank_map": True, "phasing": "german", "phase": "move1",
        "mines": {"soviet": ["1012"]},
        "units": [{"id": "a", "side": "german", "type": "ivh", "hex": "1010", "facing": "S"}],
    })
    after = GAME.apply_text(state, "german", "move a 1011 1012", FixedDice([1, 1])).state
    seen = view(after, "soviet")
    assert crop_caption(seen, seen.last_action).endswith(
        " - a destroyed by the minefield in 1012 (19.2)")
    assert set(after.model_dump()["last_action"]["move"]) == {"audience", "unit", "path"}
    lucky = GAME.apply_text(state, "german", "move a 1011 1012", FixedDice([6, 6])).state
    shown = view(lucky, "german")
    assert "attacked by the minefield in 1012, survived (19.2)" in crop_caption(
        shown, shown.last_action)
    quiet = view(GAME.apply_text(state, "german", "move a 1011", FixedDice()).state, "german")
    assert "minefield" not in crop_caption(quiet, quiet.last_action)
