"""The rules read every table and scenario from the data pack: a GM's corrected pack
changes the game (docs/data-stalingrad.md, "Replacing the pack").

Each test copies the shipped pack to a temporary folder, edits one table there, and plays
the same position with the shipped pack and with the edited one.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from adjudicator.kernel.dice import FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.data import DEFAULT_PACK
from adjudicator.stalingrad.game import StalingradGame

SHIPPED = StalingradGame()
pytestmark = pytest.mark.skipif(not SHIPPED.has_pack(), reason="needs the shipped data pack")

MAP = {"areas": [{"key": "1", "tem": 1}, {"key": "2", "tem": 2},
                 {"key": "3", "tem": 3, "river_bank": True},
                 {"key": "4", "tem": 2, "ferry": True, "river_bank": True},
                 {"key": "5", "tem": 1}],
       "links": [["1", "2"], ["2", "3"], ["3", "4"], ["2", "5"]]}


def edited(tmp_path: Path, file: str, old: str, new: str) -> StalingradGame:
    """A game bound to a copy of the shipped pack with ``old`` replaced by ``new``."""
    dest = tmp_path / "pack"
    shutil.copytree(DEFAULT_PACK, dest, ignore=shutil.ignore_patterns("tools"))
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
