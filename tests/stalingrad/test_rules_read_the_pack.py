"""The rules read every table and scenario from the data pack: a GM's corrected pack
changes the game (docs/data-stalingrad.md, "Replacing the pack").

Each test copies the shipped pack to a temporary folder, edits one table there, and plays
the same position with the shipped pack and with the edited one.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from adjudicator.kernel.dice import FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.data import DEFAULT_PACK
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.losses import retreat_options
from adjudicator.stalingrad.setup import check_options
from adjudicator.stalingrad.state import StalingradState
from adjudicator.stalingrad.victory import last_week
from adjudicator.stalingrad.views import StalingradView
from tests.packs import copy_pack

SHIPPED = StalingradGame()
pytestmark = pytest.mark.skipif(not SHIPPED.has_pack(), reason="needs the shipped data pack")

MAP = {"areas": [{"key": "1", "tem": 1}, {"key": "2", "tem": 2},
                 {"key": "3", "tem": 3, "river_bank": True},
                 {"key": "4", "tem": 2, "ferry": True, "river_bank": True},
                 {"key": "5", "tem": 1}],
       "links": [["1", "2"], ["2", "3"], ["3", "4"], ["2", "5"]]}


def edited(tmp_path: Path, file: str, old: str, new: str) -> StalingradGame:
    """A game bound to a copy of the shipped pack with ``old`` replaced by ``new``."""
    dest = copy_pack(DEFAULT_PACK, tmp_path)
    path = dest / file
    text = path.read_text()
    assert re.search(old, text, re.M), f"{old!r} not in {file}"
    path.write_text(re.sub(old, new, text, count=1, flags=re.M))
    return StalingradGame(pack=dest)


def unit(uid: str, side: str, area: str, **extra: Any) -> dict[str, Any]:
    return {"id": uid, "side": side, "kind": "infantry", "attack": 3, "defense": 3,
            "spent_defense": 2, "mf": 5, "area": area, **extra}


def position(game: StalingradGame, units: list[dict[str, Any]], **extra: Any) -> Any:
    pos: dict[str, Any] = {"date": "S15", "day": True, "box": 2, "to_act": "german",
                           "advantage_used": True, "map": MAP, "units": units,
                           "control": {"1": "german", "2": "german", "3": "russian",
                                       "4": "russian", "5": "german"}}
    pos.update(extra)
    return game.case_position(pos)


def moved_mf(game: StalingradGame) -> int:
    state = position(game, [unit("g1", "german", "1")])
    outcome = game.apply_text(state, "german", "move g1 via 2 to 5", FixedDice())
    return sum(e.data["cost"] for e in outcome.events if e.kind == "move")


def test_movement_costs_come_from_the_pack_8_23(tmp_path: Path) -> None:
    assert moved_mf(SHIPPED) == 2
    game = edited(tmp_path, "tables.toml", r"^vacant = 1$", "vacant = 2")
    assert moved_mf(game) == 4


def test_the_crossing_table_comes_from_the_pack_18_5(tmp_path: Path) -> None:
    def cross(game: StalingradGame) -> str:
        state = position(game, [unit("r1", "russian", "east")], day=False, to_act="russian",
                         box=3)
        outcome = game.apply_text(state, "russian", "cross r1 to 4", FixedDice([6, 6]))
        return next(e.data["outcome"] for e in outcome.events if e.kind == "crossing")

    assert cross(SHIPPED) == "landed-disrupted"
    game = edited(tmp_path, "tables.toml", r"min_dr = 12, max_dr = 12, landed = true",
                  "min_dr = 12, max_dr = 12, landed = false")
    assert cross(game) == "returned"


def test_the_three_unit_crossing_limit_comes_from_the_pack_18_3(tmp_path: Path) -> None:
    units = [unit(f"r{i}", "russian", "east") for i in range(3)]

    def cross(game: StalingradGame) -> None:
        state = position(game, units, day=False, to_act="russian", box=3)
        game.apply_text(state, "russian", "cross r0 r1 r2 to 4", FixedDice([3, 3] * 3))

    cross(SHIPPED)
    game = edited(tmp_path, "tables.toml", r"^max_units_per_impulse = 3$",
                  "max_units_per_impulse = 2")
    with pytest.raises(RuleError) as error:
        cross(game)
    assert error.value.rule == "18.3"


def test_the_stacking_limit_comes_from_the_pack_7_1(tmp_path: Path) -> None:
    units = [unit(f"g{i}", "german", "1") for i in range(10)] + [unit("g10", "german", "2")]

    def move_and_end(game: StalingradGame) -> None:
        state = game.apply_text(position(game, units), "german", "move g10 to 1",
                                FixedDice()).state
        game.apply_text(state, "german", "end", FixedDice([6, 6]))

    with pytest.raises(RuleError) as error:
        move_and_end(SHIPPED)
    assert error.value.rule == "7.1"
    move_and_end(edited(tmp_path, "tables.toml", r"^stacking_limit = 10$",
                        "stacking_limit = 11"))


def test_casualty_points_come_from_the_pack_8_354(tmp_path: Path) -> None:
    def result(game: StalingradGame) -> str:
        state = position(game, [unit("g1", "german", "3", attack=9),
                                unit("r1", "russian", "3", defense=1)])
        # 10 + 7 vs 1 + 3 + 7 = 17:11, six CP: an Overrun of one Fresh unit (3) unless a
        # Fresh unit is worth more.
        outcome = game.apply_text(state, "german", "attack 3 with g1", FixedDice([4, 3, 4, 3]))
        return next(e.data["result"] for e in outcome.events if e.kind == "attack-result")

    assert result(SHIPPED) == "overrun"
    game = edited(tmp_path, "tables.toml", r"^eliminate_fresh = 3$", "eliminate_fresh = 6")
    assert result(game) == "cp"


def test_interdiction_comes_from_the_pack_18_4(tmp_path: Path) -> None:
    def ip(game: StalingradGame) -> int:
        state = position(game, [unit("r1", "russian", "east"), unit("g1", "german", "3")],
                         day=False, to_act="russian", box=3,
                         control={"1": "german", "2": "german", "3": "german", "4": "russian",
                                  "5": "german"})
        outcome = game.apply_text(state, "russian", "cross r1 to 4", FixedDice([1, 1]))
        return int(next(e.data["ip"] for e in outcome.events if e.kind == "interdiction"))

    assert ip(SHIPPED) == 4  # B: a River Bank Area German-controlled, 2; C: next to it, 2
    game = edited(tmp_path, "tables.toml",
                  r'condition = "control", ip = 2, text = "Germans Control adjacent',
                  'condition = "control", ip = 5, text = "Germans Control adjacent')
    assert ip(game) == ip(SHIPPED) - 2 + 5


def test_the_scenario_list_comes_from_the_pack(tmp_path: Path) -> None:
    assert list(SHIPPED.scenarios())[:4] == ["historical", "basic", "sawmill", "simulation"]
    game = edited(tmp_path, "scenarios.toml", r'^key = "sawmill"$', 'key = "sawmill-short"')
    briefings = tmp_path / "pack" / "briefings.toml"  # every scenario has its briefing
    briefings.write_text(briefings.read_text().replace('scenario = "sawmill"',
                                                       'scenario = "sawmill-short"'))
    assert "sawmill" not in game.scenarios() and "sawmill-short" in game.scenarios()
    with pytest.raises(ValueError):
        game.setup("sawmill")
    assert game.setup("sawmill-short").scenario == "sawmill-short"


def test_the_date_modifier_comes_from_the_calendar_8_352f(tmp_path: Path) -> None:
    def dv(game: StalingradGame) -> int:
        state = position(game, [unit("g1", "german", "3"), unit("r1", "russian", "3")],
                         date="S28")
        outcome = game.apply_text(state, "german", "attack 3 with g1", FixedDice([3, 3, 3, 3]))
        return int(next(e.data["dv"] for e in outcome.events if e.kind == "attack"))

    game = edited(tmp_path, "calendar.toml", r'start = 1942-09-27\nvalue = 1\n',
                  'start = 1942-09-27\nvalue = 3\n')
    assert dv(game) == dv(SHIPPED) + 2


# ---- the constants (tables.toml [constants], [bids], [cards]) and the calendar's dates ------


def opened(game: StalingradGame, options: dict[str, Any] | None = None,
           rubble: int = 1) -> StalingradState:
    """The historical setup with both sides' Advantage standing at "never", the initial
    Rubble rolled with ``rubble`` on every die."""
    state = game.setup("historical", options or {})
    for side in ("german", "russian"):
        state = game.apply_text(state, side, "standing advantage never", FixedDice()).state
        state = game.apply_text(state, side, "standing artillery never", FixedDice()).state
    return game.apply_text(state, "german", "rubble", FixedDice([rubble] * 8)).state


def test_the_initial_rubble_threshold_comes_from_the_pack_5_7(tmp_path: Path) -> None:
    shipped = len(opened(SHIPPED, rubble=3).rubble)
    game = edited(tmp_path, "tables.toml", r"^initial_rubble_threshold = 7$",
                  "initial_rubble_threshold = 5")
    assert len(opened(game, rubble=3).rubble) > shipped


def rubble_result(game: StalingradGame) -> str:
    state = position(game, [unit("g-pnr", "german", "3", engineer=True, attack=4)],
                     rubble={"3": 1})
    # OV 4 vs Rubble 1 + enemy-controlled 1 = 2; 4 + 4 + 4 = 12 vs 2 + 3 + 3 = 8: four points.
    outcome = game.apply_text(state, "german", "attack 3 rubble with g-pnr",
                              FixedDice([4, 4, 3, 3]))
    return str(next(e.data["result"] for e in outcome.events if e.kind == "attack-result"))


def test_the_rubble_overrun_margins_come_from_the_pack_14_6(tmp_path: Path) -> None:
    assert rubble_result(SHIPPED) == "overrun"  # 4 or more against Rubble 1
    game = edited(tmp_path, "tables.toml", r"^rubble_overrun_margin = \[4, 7\]$",
                  "rubble_overrun_margin = [5, 7]")
    assert rubble_result(game) == "cp"


def observer_duration(game: StalingradGame) -> int:
    state = position(game, [unit("g-obs", "german", "2", kind="artillery", attack=6,
                                 night_attack=4, defense=0, spent_defense=0),
                            unit("r1", "russian", "3")])
    state = game.apply_text(state, "german", "attack 3 with g-obs", FixedDice([1, 1, 6, 6])).state
    outcome = game.apply_text(state, "german", "end", FixedDice())
    return int(next(e.data["duration"] for e in outcome.events
                    if e.kind == "spent" and e.data["unit"] == "g-obs"))


def test_the_german_artillery_interval_comes_from_the_pack_15_1(tmp_path: Path) -> None:
    assert observer_duration(SHIPPED) == 4
    game = edited(tmp_path, "tables.toml", r"^german_artillery_interval_days = 4$",
                  "german_artillery_interval_days = 3")
    assert observer_duration(game) == 3


def after_the_twelfth_german_impulse(game: StalingradGame) -> StalingradState:
    state = position(game, [unit("g1", "german", "1"), unit("r1", "russian", "4")],
                     date="S13", box=12, german_impulses_today=11)
    return game.apply_text(state, "german", "pass", FixedDice()).state


def test_september_13s_russian_daylight_impulses_come_from_the_pack_20_2(
        tmp_path: Path) -> None:
    shipped = after_the_twelfth_german_impulse(SHIPPED)
    assert not shipped.day and shipped.turn == "russian"  # 12 and 11: Sunset at once
    game = edited(tmp_path, "tables.toml", r"^sept13_russian_day_impulses = 11$",
                  "sept13_russian_day_impulses = 12")
    state = after_the_twelfth_german_impulse(game)
    assert state.day and state.turn == "russian"  # the Russian's twelfth daylight impulse
    state = game.apply_text(state, "russian", "pass", FixedDice()).state
    assert not state.day and state.turn == "russian"


def integrity_ov(game: StalingradGame) -> int:
    battalions = [unit(f"g{i}", "german", "3", regiment="194", parent="71", attack=2)
                  for i in range(4)]
    state = position(game, [*battalions, unit("r1", "russian", "3")])
    outcome = game.apply_text(state, "german", "attack 3 with g0 g1 g2 g3",
                              FixedDice([3, 3, 3, 3]))
    return int(next(e.data["ov"] for e in outcome.events if e.kind == "attack"))


def test_regimental_integrity_comes_from_the_pack_8_351b(tmp_path: Path) -> None:
    shipped = integrity_ov(SHIPPED)  # 2 + 3 extra units + 1 Integrity + 1 daylight
    assert shipped == 7
    per_two = edited(tmp_path / "a", "tables.toml", r"^regimental_integrity_units = 3$",
                     "regimental_integrity_units = 2")
    assert integrity_ov(per_two) == shipped + 1
    bigger = edited(tmp_path / "b", "tables.toml",
                    r"^regimental_integrity_min_battalions = 3$",
                    "regimental_integrity_min_battalions = 5")
    assert integrity_ov(bigger) == shipped - 1


def tied_bids_swap(game: StalingradGame, dr: int) -> bool:
    state = game.setup("sawmill", {"bids": True})
    state = game.apply_text(state, "german", "bid 2", FixedDice([1] * 16)).state
    outcome = game.apply_text(state, "russian", "bid 2", FixedDice([1] * 16 + [dr]))
    return any(e.kind == "seats-swapped" for e in outcome.events)


def test_the_tied_bid_die_comes_from_the_pack_22_13(tmp_path: Path) -> None:
    assert not tied_bids_swap(SHIPPED, 3) and tied_bids_swap(SHIPPED, 4)
    game = edited(tmp_path, "tables.toml", r"^tie_german_max_dr = 3$", "tie_german_max_dr = 4")
    assert not tied_bids_swap(game, 4) and tied_bids_swap(game, 5)


def test_court_card_names_and_the_middle_card_come_from_the_pack_22_21(
        tmp_path: Path) -> None:
    game = edited(tmp_path, "tables.toml", r'^names = \{ "11" = "Jack", "12" = "Queen" \}$',
                  'names = { "2" = "Deuce", "12" = "Queen" }')
    state = opened(game, {"feints": True})
    attack = next(o for o in game.legal_orders(state, "german") if o.startswith("attack")
                  and "arko" not in o and "stuka" not in o)
    pending = game.apply_text(state, "german", attack, FixedDice()).state.pending
    assert pending is not None and pending.kind == "card"
    labels = {o.order: o.label for o in pending.options}
    assert labels["decide card 2"].startswith("Deuce (2)")
    assert labels["decide card 11"].startswith("11 ")
    assert pending.default == "decide card 7"  # the deck's average
    skewed = edited(tmp_path / "b", "tables.toml", r"^deck = \[\[2, 1\]",
                    "deck = [[2, 31]")  # thirty more 2's: an average of 312 / 66, about 4.7
    state = opened(skewed, {"feints": True})
    pending = skewed.apply_text(state, "german", attack, FixedDice()).state.pending
    assert pending is not None and pending.default == "decide card 5"


def test_the_retreat_priority_order_comes_from_the_pack_8_3551(tmp_path: Path) -> None:
    def best(game: StalingradGame) -> tuple[list[str], str]:
        # From 2 the German may go to Free Area 1 or to friendly-controlled Area 5, which a
        # Russian Contests.
        state = position(game, [unit("g1", "german", "2"), unit("g2", "german", "5"),
                                unit("r1", "russian", "5"), unit("r2", "russian", "3")])
        return retreat_options(Ctx(game.board_for(state), state), "german", "2", set())

    assert best(SHIPPED) == (["1"], "priority A: Free Area adjacent to least number of "
                                    "enemy-controlled Areas")
    game = edited(tmp_path, "tables.toml",
                  r'^order = \["free_least_enemy_adjacent", "friendly_contested",',
                  'order = ["friendly_contested", "free_least_enemy_adjacent",')
    keys, why = best(game)
    assert keys == ["5"] and why.startswith("priority A: ")


def test_dates_and_weeks_come_from_the_calendar_5_1_6_4_19_3() -> None:
    board = SHIPPED.pack_board
    assert board.date_label(0) == "Sep 13" and board.parse_date_code("O1") == 18
    moved = dataclasses.replace(board, calendar=board.calendar.model_copy(
        update={"first": date(1942, 9, 12)}))
    assert moved.date_label(0) == "Sep 12" and moved.parse_date_code("O1") == 19
    state = StalingradState()  # no scenario setting: the track's last week
    assert last_week(Ctx(board, state)) == len(board.calendar.weeks)
    spec = board.scenarios["basic"]
    assert check_options(spec, {"tie_breaker": 9}, 9) == {"tie_breaker": 9}
    with pytest.raises(ValueError, match="1-8"):
        check_options(spec, {"tie_breaker": 9}, 8)


def test_the_year_comes_from_the_calendar_5_1_5_4(tmp_path: Path) -> None:
    """5.1, 5.4: the Turn Record Track's first date is the pack's (``calendar.first``); a
    counter's date code ("S15") is a day of that year, and the view and pictures say it."""
    from render.replay import heading

    dest = copy_pack(DEFAULT_PACK, tmp_path)
    for name in ("calendar.toml", "scenarios.toml"):
        path = dest / name
        path.write_text(re.sub(r"\b1942-", "1943-", path.read_text()))
    game = StalingradGame(pack=dest)
    board, shipped = game.pack_board, SHIPPED.pack_board
    assert board.day_of(0) == date(1943, 9, 13)
    assert {u: d.arrival for u, d in board.units.items()} == {
        u: d.arrival for u, d in shipped.units.items()}
    assert board.units["g:stahel"].arrival == shipped.parse_date_code("S15") == 2
    view, before = (g.view(g.setup("historical"), "german") for g in (game, SHIPPED))
    assert isinstance(view, StalingradView) and isinstance(before, StalingradView)
    assert view.year == 1943 and heading(view).startswith("Sep 13 1943, day")
    assert before.year == 1942 and heading(before).startswith("Sep 13 1942, day")
