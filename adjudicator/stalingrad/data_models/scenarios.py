"""scenarios.toml: the ways to play — the Basic Game, the Kuibyshev Sawmill scenario, the
Simulation Game — with their settings, set-ups and the optional rules they allow."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import Field

from adjudicator.kernel.packs import Record
from adjudicator.stalingrad.data_models.common import QUADRANT_KEYS, QuadrantKey, Side, Sourced


class Placement(Record):
    """Units a scenario puts somewhere other than their setup symbol says."""

    units: tuple[str, ...]
    area: str
    when: Literal["setup", "any_impulse"] = "setup"


class SideSetup(Record):
    """Which units of one side a scenario sets up (by colour) and extra placements."""

    colours: tuple[str, ...] | None = None  # None: every starting unit
    fag: tuple[QuadrantKey, ...] | None = None  # None: all four FAG units
    placements: tuple[Placement, ...] = ()
    entry_zones: tuple[str, ...] | None = None  # None: the rulebook's (6.2, 18.2, 18.3); Zones
    # or Areas where units kept off the board enter (the Russian 64th Army's A, B, C, 30: 21.3)


class OptionRef(Record):
    """An optional rule a scenario allows, by rule number."""

    rule: str
    name: str
    required: bool = False


class Scenario(Sourced):
    """A way to play: the Basic Game, the Kuibyshev Sawmill scenario, the Simulation Game."""

    key: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    name: str
    description: str = ""  # one line for scenario lists (`umpire play stalingrad --scenario`)
    start: date
    end: date
    setup_modes: tuple[Literal["free", "historical"], ...] = Field(min_length=1)
    victory: Literal["blue", "red", "vp_at_week_end"]
    victory_vp: int | None = None
    playable_quadrants: tuple[QuadrantKey, ...] = QUADRANT_KEYS
    rubble_roll_areas: tuple[int, ...]
    extension_units: bool = False
    withdrawals: bool = False
    diminishing_daylight: bool = False
    impulse_advance: int = 1
    impulse_max: int = 12
    sept13_fixed_day_impulses: int | None = None
    sept13_automatic_sunset_after: int | None = None
    luftwaffe_days: Literal["all", "odd"] = "all"
    reinforcement_max_dr: int | None = None
    interdiction_bonus: tuple[int, int, date] | None = None  # (area, IP, from date)
    supply_from_border_areas: bool = False
    german: SideSetup = Field(default_factory=SideSetup)
    russian: SideSetup = Field(default_factory=SideSetup)
    options: tuple[OptionRef, ...] = ()
    final_tie: Literal["tie_breaker", "russian", "draw"] = "tie_breaker"

    def side(self, side: Side) -> SideSetup:
        return self.german if side == "german" else self.russian
