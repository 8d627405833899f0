"""pack.toml and the loaded pack: :class:`StalingradPack` holds every file's records and adds
the queries the rules engine needs (spaces by key, neighbours, distances, units by id,
schedules by date)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, PrivateAttr

from adjudicator.kernel.briefing import BriefingNotes
from adjudicator.stalingrad.data_models.calendar import Calendar
from adjudicator.stalingrad.data_models.common import QuadrantKey, Side, Sourced
from adjudicator.stalingrad.data_models.map import Area, Board, FagBox, Quadrant, Region, Zone
from adjudicator.stalingrad.data_models.scenarios import Scenario
from adjudicator.stalingrad.data_models.tables import Tables
from adjudicator.stalingrad.data_models.units import Formation, Unit


class Manifest(Sourced):
    """pack.toml: identifies the pack and lists its files."""

    game: str
    name: str
    version: str
    description: str = ""
    files: tuple[str, ...]


AnySpace = Area | Zone


class StalingradPack(BaseModel):
    """A loaded, validated pack. Obtain it with ``adjudicator.stalingrad.data.load_pack``."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    manifest: Manifest
    board: Board
    quadrants: tuple[Quadrant, ...]
    volga: Region
    east_bank: Region
    fag_boxes: tuple[FagBox, ...]
    areas: dict[int, Area]
    zones: dict[str, Zone]
    formations: tuple[Formation, ...]
    units: dict[str, Unit]
    calendar: Calendar
    tables: Tables
    scenarios: dict[str, Scenario]
    briefings: dict[str, BriefingNotes]
    hash: str

    _neighbours: dict[str, tuple[str, ...]] = PrivateAttr(default_factory=dict)
    _regiments: dict[tuple[str, str | None, str], int] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        nb: dict[str, list[str]] = {k: [] for k in self.space_keys()}
        for area in self.areas.values():
            nb[area.key].extend(str(b) for b in area.borders if b in self.areas)
        for zone in self.zones.values():
            nb[zone.key].extend(z for z in zone.zones if z in self.zones)
            for a in zone.arrows:
                if a in self.areas:
                    nb[zone.key].append(str(a))
                    nb[str(a)].append(zone.key)
        self._neighbours = {k: tuple(dict.fromkeys(v)) for k, v in nb.items()}
        regs: dict[tuple[str, str | None, str], int] = {}
        for u in self.units.values():
            if u.regiment is not None:
                k = (u.side, u.parent, u.regiment)
                regs[k] = regs.get(k, 0) + 1
        self._regiments = regs

    # -- spaces
    def space_keys(self) -> list[str]:
        """Every space key: "1".."74" then "A".."H"."""
        return [str(n) for n in sorted(self.areas)] + sorted(self.zones)

    def spaces(self) -> Iterator[AnySpace]:
        yield from (self.areas[n] for n in sorted(self.areas))
        yield from (self.zones[k] for k in sorted(self.zones))

    def space(self, key: str | int) -> AnySpace:
        """Area by number (56, "56") or Zone by letter ("C"); KeyError otherwise."""
        k = str(key).strip().upper()
        if k.isdigit() and int(k) in self.areas:
            return self.areas[int(k)]
        if k in self.zones:
            return self.zones[k]
        raise KeyError(f"no Area or Zone {key!r}")

    def area(self, number: int | str) -> Area:
        n = int(number)
        if n not in self.areas:
            raise KeyError(f"no Area {number!r}")
        return self.areas[n]

    def zone(self, letter: str) -> Zone:
        if letter.upper() not in self.zones:
            raise KeyError(f"no Zone {letter!r}")
        return self.zones[letter.upper()]

    def name_entries(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """(key, name, aliases) of every space, for a notation's name lookup."""
        return [(s.key, s.name or "", s.aliases) for s in self.spaces()]

    # -- adjacency (3.2, 8.2, 11.1)
    def neighbours(self, key: str | int) -> tuple[str, ...]:
        """Keys of every space a unit may move to from ``key`` in one step (8.2, 11.1)."""
        return self._neighbours[self.space(key).key]

    def adjacent(self, a: str | int, b: str | int) -> bool:
        return self.space(b).key in self.neighbours(a)

    def distance(self, a: str | int, b: str | int, *, areas_only: bool = True) -> int | None:
        """Steps between two spaces; with ``areas_only`` paths run through Areas only (the
        count used for Observer range, 15.211/15.212). None when unreachable."""
        start, goal = self.space(a).key, self.space(b).key
        seen = {start: 0}
        todo = deque([start])
        while todo:
            k = todo.popleft()
            if k == goal:
                return seen[k]
            for n in self._neighbours[k]:
                if areas_only and not n.isdigit():
                    continue
                if n not in seen:
                    seen[n] = seen[k] + 1
                    todo.append(n)
        return None

    def within(self, key: str | int, steps: int, *, areas_only: bool = True) -> set[str]:
        """Keys of spaces at distance 1..steps (15.211, 15.212)."""
        start = self.space(key).key
        seen = {start: 0}
        todo = deque([start])
        while todo:
            k = todo.popleft()
            if seen[k] == steps:
                continue
            for n in self._neighbours[k]:
                if (areas_only and not n.isdigit()) or n in seen:
                    continue
                seen[n] = seen[k] + 1
                todo.append(n)
        return {k for k, d in seen.items() if d > 0}

    def observation_targets(self, key: str | int) -> set[str]:
        """Areas an Observer in Area ``key`` may reach by range (15.21-15.212)."""
        space = self.space(key)
        rng = space.observation_range if isinstance(space, Area) else 0
        return self.within(space.key, rng) if rng else set()

    # -- map facts
    def ferry_landings(self) -> list[str]:
        """Glossary, 18.3: the nine Ferry Landings."""
        return [s.key for s in self.spaces() if s.ferry_landing]

    def river_bank_areas(self) -> list[int]:
        return [a.number for a in self.areas.values() if a.river_bank]

    def supply_sources(self, side: Side) -> list[str]:
        """12.1: spaces printed with the side's supply symbol."""
        return [s.key for s in self.spaces() if s.supply == side]

    def total_vp(self) -> int:
        """19.1: a possible 28 Victory Points."""
        return sum(s.vp for s in self.spaces())

    def quadrant_areas(self, quadrant: QuadrantKey) -> list[int]:
        return [a.number for a in self.areas.values() if a.quadrant == quadrant]

    # -- units
    def unit(self, unit_id: str) -> Unit:
        if unit_id not in self.units:
            raise KeyError(f"no unit {unit_id!r}")
        return self.units[unit_id]

    def units_of(self, side: Side) -> list[Unit]:
        return [u for u in self.units.values() if u.side == side]

    def starting_units(self, side: Side) -> list[Unit]:
        """Units with a setup symbol (5.4); boxed Luftwaffe/FAG not included."""
        return [u for u in self.units.values() if u.side == side and u.starts_on_map]

    def reinforcements(self, side: Side, day: date, *, extension: bool = True) -> list[Unit]:
        """Units arriving on ``day`` (18.1); without ``extension`` only the counters of the
        basic set, which arrive no later than ``calendar.base_counters_until`` (21.1)."""
        return [
            u
            for u in self.units.values()
            if u.side == side
            and u.arrive == day
            and (extension or u.arrive <= self.calendar.base_counters_until)
        ]

    def withdrawals(self, day: date) -> list[Unit]:
        """German units withdrawn before Dawn of ``day`` (21.3)."""
        return [u for u in self.units.values() if u.withdraw == day]

    def regiment_size(self, unit: Unit) -> int:
        """Battalions in the unit's Regiment/Brigade (Regimental Integrity, Glossary, 8.351B).
        0 for a unit with no regiment."""
        if unit.regiment is None:
            return 0
        return self._regiments.get((unit.side, unit.parent, unit.regiment), 0)

    def extension_unit(self, unit: Unit) -> bool:
        """21.1: counters only in the Simulation Game extension set (arrive after week 3)."""
        return unit.arrive is not None and unit.arrive > self.calendar.base_counters_until
