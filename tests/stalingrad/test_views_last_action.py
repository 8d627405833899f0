"""The View's ``last_action``: the last impulse as the rules resolved it (paths through Areas
and Zones, the attack and its result, retreats and Routs, Overruns), per viewer; and the
Victory Point tally the View carries (19.1)."""

from __future__ import annotations

from typing import Any

import pytest

from adjudicator.kernel.dice import FixedDice
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.last_action import (
    AttackRecord,
    LastAction,
    MoveRecord,
    RetreatRecord,
    attack_text,
)
from adjudicator.stalingrad.state import StalingradState
from adjudicator.stalingrad.victory import german_vp
from adjudicator.stalingrad.views import StalingradView
from tests.render.games import random_game
from tests.stalingrad.test_rules_decisions import attack_and_retreat, overfull, position, unit

GAME = StalingradGame()


def last(state: StalingradState, viewer: str = "public") -> LastAction:
    view = GAME.view(state, viewer)
    assert isinstance(view, StalingradView) and view.last_action is not None
    return view.last_action


def test_a_move_keeps_its_full_path_through_zones_8_2_11() -> None:
    state = position([unit("g1", "german", "1"), unit("g2", "german", "1"),
                      unit("r1", "russian", "5")])
    state = GAME.apply_text(state, "german", "move g1 g2 via C to D", FixedDice()).state
    record = last(state)
    assert record.side == "german" and record.origin == "1" and not record.passed
    # units that went the same way are one move, the start Area first
    assert record.moves == [MoveRecord(units=["g1", "g2"], path=["1", "C", "D"])]
    assert [o.text for o in record.orders] == ["move g1 g2 via C to D"]
    # a later order of the same impulse extends the path
    state = GAME.apply_text(state, "german", "move g2 to E", FixedDice()).state
    assert {tuple(m.units): m.path for m in last(state).moves} == {
        ("g1",): ["1", "C", "D"], ("g2",): ["1", "C", "D", "E"]}


def test_the_record_stays_after_the_impulse_and_a_new_impulse_starts_a_new_one() -> None:
    state = position([unit("g1", "german", "1"), unit("r1", "russian", "5")])
    state = GAME.apply_text(state, "german", "move g1 to C", FixedDice()).state
    state = GAME.apply_text(state, "german", "end", FixedDice([6, 6])).state
    assert state.impulse is None and state.turn == "russian"
    record = last(state, "russian")
    assert record.side == "german" and record.moves[0].path == ["1", "C"]
    assert [o.text for o in record.orders] == ["move g1 to C", "end"]
    state = GAME.apply_text(state, "russian", "pass", FixedDice()).state
    record = last(state)
    assert record.side == "russian" and record.passed and not record.moves
    assert (record.date, record.day, record.box) == (2, True, 3)


def test_an_attack_with_its_odds_result_and_a_continued_retreat_8_35_8_3553() -> None:
    state = attack_and_retreat(overfull())
    record = last(state)
    assert record.attacks == [AttackRecord(
        area="3", group="spent", side="german", units=["g1"], ranged_from=["2"],
        odds="10:6", total="12:9", cp=3, result="cp", text="12:9 — 3 CP")]
    assert record.retreats == [RetreatRecord(units=["ra", "rb", "rc"], path=["3", "4"])]
    # 4 holds room for two: ra goes on, to 6 — its own path from there
    state = GAME.apply_text(state, "russian", "decide overflow ra", FixedDice()).state
    state = GAME.apply_text(state, "russian", "decide retreat 6", FixedDice()).state
    record = last(state)
    assert record.retreats == [RetreatRecord(units=["rb", "rc"], path=["3", "4"]),
                               RetreatRecord(units=["ra"], path=["3", "4", "6"])]
    assert [(o.side, o.text) for o in record.orders] == [
        ("german", "attack 3 with g1"), ("russian", "decide casualties retreat ra rb rc"),
        ("russian", "decide overflow ra"), ("russian", "decide retreat 6")]


def test_a_rout_is_a_retreat_of_the_attackers_8_37() -> None:
    state = position([unit("g1", "german", "2", attack=1),
                      unit("r1", "russian", "3", defense=9)])
    state = GAME.apply_text(state, "german", "move g1 to 3", FixedDice()).state
    # 1 + 1 vs 9 + TEM 1: DRs 2 and 12 -> 4:22, beaten by ten: Routed back to 2
    state = GAME.apply_text(state, "german", "attack 3 with g1", FixedDice([1, 1, 6, 6])).state
    record = last(state)
    attack = record.attacks[-1]
    assert (attack.total, attack.result, attack.routed) == ("4:22", "repulsed", ["g1"])
    assert attack.text == "4:22 — repulsed, Rout"
    assert record.moves == [MoveRecord(units=["g1"], path=["2", "3"])]
    assert record.retreats == [RetreatRecord(kind="rout", units=["g1"], path=["3", "2"])]


def test_an_overrun_names_the_units_it_eliminated_8_36() -> None:
    state = position([unit("g1", "german", "2", attack=20),
                      unit("r1", "russian", "3", fresh=False, spent_defense=1)])
    state = GAME.apply_text(state, "german", "attack 3 with g1", FixedDice([6, 6, 1, 1])).state
    record = last(state)
    attack = record.attacks[-1]
    assert attack.result == "overrun" and attack.text == "33:5 — 28 CP, Overrun"
    assert attack.eliminated == ["r1"]
    assert [(e.unit, e.area) for e in record.eliminated] == [("r1", "3")]


def test_attack_texts() -> None:
    assert attack_text("15:12", "cp", 3) == "15:12 — 3 CP"
    assert attack_text("19:11", "overrun", 8) == "19:11 — 8 CP, Overrun"
    assert attack_text("12:12", "equal", 0) == "12:12 — no effect"
    assert attack_text("9:14", "repulsed", 0, rout=True) == "9:14 — repulsed, Rout"
    assert attack_text("14:8", "cp", 2, rubble=True) == "14:8 vs Rubble — 2 layer(s) removed"


def test_the_last_action_is_per_viewer() -> None:
    state = position([unit("g1", "german", "1"), unit("r1", "russian", "5")])
    state = GAME.apply_text(state, "german", "move g1 to C", FixedDice()).state
    assert state.last_action is not None
    # an entry told to one side only (none is, in TP:S today) stays with that side and the GM
    secret: dict[str, Any] = {"audience": "german"}
    state.last_action.moves.append(MoveRecord(units=["g9"], path=["1", "2"], **secret))
    state.last_action.attacks.append(AttackRecord(area="2", group="fresh", side="german",
                                                  **secret))
    for viewer, sees in (("public", False), ("russian", False), ("german", True),
                         ("gm", True)):
        record = last(state, viewer)
        assert any(m.units == ["g9"] for m in record.moves) is sees, viewer
        assert bool(record.attacks) is sees, viewer
        assert record.moves[0].path == ["1", "C"]


@pytest.mark.parametrize("games", [
    (("historical", 1), ("sawmill", 2)),
    pytest.param((("historical", 1), ("historical", 5), ("sawmill", 2)),
                 marks=pytest.mark.soak, id="three")])
def test_every_step_of_a_random_game_agrees_with_its_events(
        games: tuple[tuple[str, int], ...]) -> None:
    """The record of random games (two; three in the soak stage) says what their events
    say, step by step."""
    seen = {"move": 0, "attack-result": 0, "retreat": 0}
    for scenario, seed in games:
        for step in random_game(GAME, scenario, 120, seed):
            if step.state.last_action is None:  # set-up, the initial Rubble
                assert step.state.phase != "play" or step.order in (
                    "rubble", "advantage decline", "advantage reroll")
                continue
            record = last(step.state)
            view = GAME.view(step.state, "public")
            assert isinstance(view, StalingradView)
            paths = {u: m.path for m in record.moves for u in m.units}
            went: dict[str, list[str]] = {}  # the Areas each unit entered in this step
            for event in step.events:
                data = event.data
                if event.kind in ("move", "retrace", "regroup", "land", "infiltration") \
                        and data.get("area") and data["unit"] in paths:
                    went.setdefault(data["unit"], []).append(data["area"])
                elif event.kind == "attack-result":
                    seen["attack-result"] += 1
                    attack = next(a for a in reversed(record.attacks)
                                  if a.area == data["area"])
                    assert attack.total == data["total"] and attack.text
                elif event.kind == "retreat" and "from" in data:
                    seen["retreat"] += 1
                    assert any(r.path[-1] == data["area"] for r in record.retreats)
            for uid, areas in went.items():  # the path ends with them, in order
                seen["move"] += 1
                assert paths[uid][-len(areas):] == areas, (step.order, paths[uid], areas)
            # the tally is the rules' own (19.1)
            vp, areas = german_vp(GAME.board_for(step.state), step.state)
            assert (view.vp, view.vp_areas) == (vp, areas)
    assert all(seen.values()), seen


def test_the_view_carries_the_victory_points_19_1() -> None:
    state = GAME.setup("historical")
    view = GAME.view(state, "public")
    assert isinstance(view, StalingradView)
    assert view.vp_total == 28
    assert view.vp == sum(GAME.pack_board.areas[k].vp for k in view.vp_areas)
    assert all(state.control.get(k) == "german" for k in view.vp_areas)
    assert all(not u.isolated for u in view.units)  # Isolation is part 2's (12)
    sawmill = GAME.view(GAME.setup("sawmill"), "public")
    assert isinstance(sawmill, StalingradView)
    assert 0 < sawmill.vp_total < 28  # the South Quadrant's VP Areas only
