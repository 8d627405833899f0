"""pack.toml and the loaded pack: :class:`TanksPack` holds every file's records and answers
the queries the rules and pictures make (unit types by name, scenarios, constants, tables)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator

from adjudicator.kernel.briefing import BriefingNotes
from adjudicator.kernel.packs import Record
from adjudicator.tanks.data_models.common import Side, Terrain
from adjudicator.tanks.data_models.map import MapFile, TanksMap
from adjudicator.tanks.data_models.scenarios import Scenario
from adjudicator.tanks.data_models.tables import (
    HitCell,
    TablesFile,
    anti_personnel_need,
    hit_effect,
    to_hit_need,
)
from adjudicator.tanks.data_models.units import UnitType

PACK_FILES = ("map.toml", "units.toml", "tables.toml", "scenarios.toml", "briefings.toml")


class Manifest(Record):
    game: Literal["tanks"]
    name: str = Field(min_length=1)
    version: str = Field(min_length=1)
    rulebook: str = ""
    description: str = ""
    files: list[str] = Field(default_factory=lambda: list(PACK_FILES))

    @field_validator("files")
    @classmethod
    def _all_files(cls, files: list[str]) -> list[str]:
        missing = [f for f in PACK_FILES if f not in files]
        if missing:
            raise ValueError(f"files must list {', '.join(missing)}")
        return files


@dataclass(frozen=True)
class TanksPack:
    path: Path
    manifest: Manifest
    map: TanksMap
    units: Mapping[str, UnitType]
    tables: TablesFile
    scenarios: Mapping[str, Scenario]
    content_hash: str
    _map_file: MapFile = field(repr=False)
    #: briefings.toml: each scenario's goals and special rules (:mod:`adjudicator.kernel.briefing`)
    briefings: Mapping[str, BriefingNotes] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def version(self) -> str:
        return self.manifest.version

    def unit(self, name: str, side: Side | str | None = None) -> UnitType:
        """A unit type by id, counter label or alias (``side`` settles "Inf")."""
        if name in self.units:
            return self.units[name]
        want = Side(side) if side is not None else None
        found = [
            u
            for u in self.units.values()
            if (name == u.label or name in u.aliases) and (want is None or u.side is want)
        ]
        if len(found) == 1:
            return found[0]
        if not found:
            raise KeyError(f"no unit type {name!r}")
        raise KeyError(f"{name!r} is ambiguous: {', '.join(u.id for u in found)}; give a side")

    def scenario(self, scenario_id: str) -> Scenario:
        if scenario_id in self.scenarios:
            return self.scenarios[scenario_id]
        for s in self.scenarios.values():
            if scenario_id in (s.section, s.title):
                return s
        raise KeyError(f"no scenario {scenario_id!r}; known: {', '.join(self.scenarios)}")

    def constant(self, constant_id: str) -> int | float | str | bool:
        for c in self.tables.constant:
            if c.id == constant_id:
                return c.value
        raise KeyError(f"no constant {constant_id!r}")

    def terrain_effect(self, terrain: Terrain | str) -> Any:
        t = Terrain(terrain)
        return next(e for e in self.tables.terrain_effect if e.terrain is t)

    def to_hit_need(self, range_: int, mobile: bool = False) -> int | None:
        return to_hit_need(self.tables, range_, mobile)

    def hit_effect(self, at: int, armor_class: str) -> HitCell:
        return hit_effect(self.tables, at, armor_class)

    def anti_personnel_need(self, ap: int, defense: int) -> tuple[str, int] | None:
        return anti_personnel_need(self.tables, ap, defense)
