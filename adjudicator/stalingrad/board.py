"""The narrow view of map and counters the rules engine needs.

The engine never reads the data pack directly: it works against a :class:`Board` — Areas
and Zones with their printed facts, adjacency, and the unit definitions (the printed,
never-changing side of each counter). A Board is built either from the shipped (or a
GM's replacement) data pack by :func:`board_from_pack`, or from a conformance case's
``[position.map]`` / ``[[position.units]]`` tables by :func:`board_from_spec`, so cases
can define the few local map facts an example needs.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from adjudicator.kernel.names import Named, NameIndex, UnitNames, unit_index
from adjudicator.stalingrad.data_models import Calendar, Tables

UnitKind = Literal["armor", "infantry", "at", "aa", "artillery", "fag", "air"]
KINDS: tuple[str, ...] = ("armor", "infantry", "at", "aa", "artillery", "fag", "air")
#: Units that are not Combat units (Glossary): German Observers, Russian FAGs, the Stuka.
NON_COMBAT = frozenset({"artillery", "fag", "air"})

def area_key_order(key: str) -> tuple[int, int, str]:
    """Areas by number, then Zones by letter."""
    return (0, int(key), "") if key.isdigit() else (1, 0, key)


# Dates are indexes from the Turn Record Track's first date (the pack's ``calendar.first``,
# September 13, 1942, 5.1): date 0 is that day.


def day_of(first: _dt.date, index: int) -> _dt.date:
    """Date ``index`` of a track that starts on ``first``: ``0`` -> ``first``."""
    return first + _dt.timedelta(days=index)


def date_label(first: _dt.date, index: int) -> str:
    """``0`` -> ``"Sep 13"`` on a track that starts on September 13."""
    day = day_of(first, index)
    return f"{day.strftime('%b')} {day.day}"


def date_index(first: _dt.date, month: int, day: int) -> int:
    """The index of ``month``/``day`` in the year of the track's first date."""
    return (_dt.date(first.year, month, day) - first).days


def parse_date_code(first: _dt.date, code: str) -> int:
    """A counter's arrival code (``"S15"``, ``"O4"``, ``"N1"``) or ``"Sep 15"`` -> date index
    on a track that starts on ``first``."""
    text = code.strip().lower().replace(".", "")
    months = {"s": 9, "sep": 9, "sept": 9, "o": 10, "oct": 10, "n": 11, "nov": 11, "d": 12,
              "dec": 12}
    head = text.rstrip("0123456789 ")
    digits = text[len(head):].strip()
    if head.strip() not in months or not digits.isdigit():
        raise ValueError(f"not a date code: {code!r}")
    return date_index(first, months[head.strip()], int(digits))


class AreaInfo(BaseModel):
    """One Area or Zone as printed on the map (3.2, 3.21, 3.22, 3.3)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    name: str = ""
    aliases: tuple[str, ...] = ()
    zone: bool = False
    tem: int = 0
    id_shape: str | None = None  # circle / square / triangle
    id_colour: str | None = None  # setup colour; "white" = no units at start (3.23)
    river_bank: bool = False
    ferry: bool = False
    supply: str | None = None  # side whose supply symbol is printed here
    rubble_symbol: bool = False
    vp: int = 0
    quadrant: str | None = None
    quadrants: tuple[str, ...] = ()  # a Zone's Quadrants (15.31); an Area's own
    observation: int = 1  # Observer range in Areas (15.21, 15.211, 15.212)
    control: str | None = None  # initial Control when the pack states it (5.2, 19.1)

    @property
    def label(self) -> str:
        if self.name:
            return f"{self.name} ({self.key})"
        return f"Zone {self.key}" if self.zone else f"Area {self.key}"


class UnitDef(BaseModel):
    """The printed facts of one counter (4.2-4.32)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    side: str
    kind: UnitKind
    name: str = ""
    engineer: bool = False
    attack: int | None = None  # None: "*" (AT/AA, may not lead an attack, 8.351)
    defense: int = 0
    spent_defense: int = 0
    mf: int = 0
    mechanized: bool = False
    motorized: bool = False
    parent: str | None = None  # None: independent (Glossary, Parent Organization)
    regiment: str | None = None  # parent Regiment/Brigade of a battalion (Regimental Integrity)
    battalion: bool = True
    setup: tuple[str, ...] = ()  # colour-shape codes, e.g. "red-circle"
    historical: str | None = None  # Area key for the historical setup (21.2)
    arrival: int | None = None  # date index of arrival as a reinforcement (5.4, 18.1)
    withdrawal: int | None = None
    night_attack: int | None = None  # a German Observer's night Attack Factor (15.24)
    quadrant: str | None = None  # a Russian FAG's Quadrant (15.31)

    @property
    def combat(self) -> bool:
        """Combat units: all units except Artillery/Aircraft (Glossary)."""
        return self.kind not in NON_COMBAT

    @property
    def numeric_attack(self) -> bool:
        return self.attack is not None and self.kind not in ("at", "aa")


@dataclass
class Board:
    """Areas, Zones, adjacency and unit definitions, with forgiving name lookup."""

    areas: dict[str, AreaInfo]
    adjacency: dict[str, frozenset[str]]
    units: dict[str, UnitDef]
    #: The pack's tables (tables.toml) and Turn Record Track (calendar.toml): every number
    #: the rules use comes from here, so a GM's corrected pack changes the game.
    tables: Tables
    calendar: Calendar
    source: str = "local"
    #: The pack's scenarios (``data_models.Scenario``), by key; empty for a case's board.
    scenarios: dict[str, Any] = field(default_factory=dict)
    #: Spaces a scenario may use when it plays on part of the map (the Sawmill's South
    #: Quadrant: its Areas and the Zones with an arrow into it), by scenario key.
    playable: dict[str, frozenset[str]] = field(default_factory=dict)
    #: Blue Victory Point number per week (19.2), week 1 = Sept 13-19.
    blue: dict[int, int] = field(default_factory=dict)
    names: NameIndex = field(init=False)
    unit_names: UnitNames = field(init=False)
    regiment_size: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.names = NameIndex.of("area", (
            Named(a.key, a.name, (*a.aliases, *( (f"zone {a.key}",) if a.zone else
                                               (f"area {a.key}",))))
            for a in self.areas.values()))
        # a unit by its id, its designation ("i/103", the id after the formation), its
        # designation and type ("i/103 infantry"), a number only it has, a unique prefix
        self.unit_names = unit_index((u.id, (u.name,)) for u in self.units.values())
        sizes: dict[str, int] = {}
        for unit in self.units.values():
            if unit.regiment and unit.battalion and unit.kind == "infantry":
                sizes[unit.regiment] = sizes.get(unit.regiment, 0) + 1
        self.regiment_size = sizes

    @property
    def max_stack(self) -> int:
        """7.1, 5.6: Combat units of one side an Area may hold."""
        return self.tables.constants.stacking_limit

    def by_date(self, steps: Iterable[Any], index: int) -> int:
        """The value of a calendar step list (strengths by date) on date ``index``."""
        return self.calendar._step(steps, self.day_of(index))

    def day_of(self, index: int) -> _dt.date:
        """Date ``index`` of the Turn Record Track (0: its first date, 5.1)."""
        return day_of(self.calendar.first, index)

    def date_label(self, index: int) -> str:
        """``"Sep 13"`` for date 0 of the shipped track."""
        return date_label(self.calendar.first, index)

    def parse_date_code(self, code: str) -> int:
        """``"S15"``, ``"O4"``, ``"Sep 15"`` -> the date's index on the track."""
        return parse_date_code(self.calendar.first, code)

    def restricted(self, keys: frozenset[str]) -> Board:
        """The same board limited to ``keys`` (a scenario on part of the map): other
        spaces cannot be entered, retreated into or counted."""
        return Board(areas={k: a for k, a in self.areas.items() if k in keys},
                     adjacency={k: frozenset(n for n in adj if n in keys)
                                for k, adj in self.adjacency.items() if k in keys},
                     units=self.units, tables=self.tables, calendar=self.calendar,
                     source=self.source, scenarios=self.scenarios,
                     playable=self.playable, blue=self.blue)

    def with_units(self, units: dict[str, UnitDef]) -> Board:
        """The same map and tables with a case's own counters."""
        return Board(areas=self.areas, adjacency=self.adjacency, units=units,
                     tables=self.tables, calendar=self.calendar, source="case")

    def adjacent(self, key: str) -> frozenset[str]:
        return self.adjacency.get(key, frozenset())

    def area(self, key: str) -> AreaInfo:
        return self.areas[key]

    def resolve_area(self, text: str) -> str:
        if text in self.areas:
            return text
        return self.names.resolve(text)

    def resolve_unit(self, text: str) -> str:
        """A unit id from any of its names (:func:`~adjudicator.kernel.names.unit_index`):
        the id in any case, its designation ("i/103"), a number or prefix only it has."""
        wanted = text.strip().lower()
        if wanted in self.units:
            return wanted
        return self.unit_names.resolve(text)

    def short_unit(self, uid: str) -> str:
        """The unit's short name for listings ("i/103"), its id when that is ambiguous (or
        when it is no unit's id)."""
        return self.unit_names.short(uid) if uid in self.units else uid


# ---- building boards ---------------------------------------------------------------------


def _links(pairs: Iterable[Iterable[Any]]) -> dict[str, set[str]]:
    adjacency: dict[str, set[str]] = {}
    for pair in pairs:
        a, b = (str(x) for x in pair)
        adjacency.setdefault(a, set()).add(b)
        adjacency.setdefault(b, set()).add(a)
    return adjacency


def unit_def_from_spec(spec: Mapping[str, Any], first: _dt.date) -> UnitDef:
    """A unit definition from a case table (extra, dynamic keys are ignored); date codes
    count from ``first``, the track's first date."""
    known = set(UnitDef.model_fields)
    data = {k: v for k, v in spec.items() if k in known}
    data["id"] = str(data["id"]).lower()
    if isinstance(data.get("attack"), str):
        data["attack"] = None if data["attack"] == "*" else int(data["attack"])
    if "spent_defense" not in data:
        data["spent_defense"] = data.get("defense", 0)
    for key in ("arrival", "withdrawal"):
        if isinstance(data.get(key), str):
            data[key] = parse_date_code(first, data[key])
    if isinstance(data.get("setup"), str):
        data["setup"] = (data["setup"],)
    for key in ("parent", "regiment", "historical"):
        if key in data and data[key] is not None:
            data[key] = str(data[key])
    return UnitDef.model_validate(data)


def board_from_spec(map_spec: Mapping[str, Any], units: Iterable[Mapping[str, Any]],
                    tables: Tables, calendar: Calendar) -> Board:
    """A local Board from a conformance case (``[position.map]`` + unit tables), with the
    game's pack tables and calendar."""
    areas: dict[str, AreaInfo] = {}
    for raw in map_spec.get("areas", []):
        data = dict(raw)
        data["key"] = str(data["key"])
        areas[data["key"]] = AreaInfo.model_validate(data)
    adjacency = _links(map_spec.get("links", []))
    for key in adjacency:
        if key not in areas:
            areas[key] = AreaInfo(key=key, zone=key.isalpha() and len(key) == 1)
    defs = [unit_def_from_spec(u, calendar.first) for u in units]
    return Board(areas=areas, adjacency={k: frozenset(adjacency.get(k, ())) for k in areas},
                 units={u.id: u for u in defs}, tables=tables, calendar=calendar,
                 source="case")


#: Pack unit categories (4.2) -> engine kinds; the Russian FAGs (type ``fag``) are kind
#: ``fag``; the Luftwaffe (category ``air``) is kind ``air``. Both stay in their boxes.
PACK_KINDS = {"armor": "armor", "infantry": "infantry", "at": "at", "aa": "aa",
              "artillery": "artillery", "air": "air"}


def board_from_pack(pack: Any) -> Board:
    """Adapt a loaded :class:`~adjudicator.stalingrad.data_models.StalingradPack`."""
    areas: dict[str, AreaInfo] = {}
    for space in pack.spaces():
        zone = space.kind == "zone"
        areas[space.key] = AreaInfo(
            key=space.key,
            name=space.name or "",
            aliases=tuple(space.aliases),
            zone=zone,
            tem=space.tem,
            id_shape=None if zone else space.id_shape,
            id_colour=None if zone else space.setup_colour,
            river_bank=False if zone else space.river_bank,
            ferry=space.ferry_landing,
            supply=None if space.supply == "none" else space.supply,
            rubble_symbol=False if zone else space.rubble_symbol,
            vp=space.vp,
            quadrant=space.quadrants[0] if zone else space.quadrant,
            quadrants=tuple(space.quadrants),
            observation=1 if zone else space.observation_range,
            control=space.initial_control,
        )
    adjacency = {key: frozenset(pack.neighbours(key)) for key in areas}
    units: dict[str, UnitDef] = {}
    first = pack.calendar.first
    for unit in pack.units.values():
        kind = "fag" if unit.type == "fag" else PACK_KINDS.get(unit.category)
        if kind is None:
            continue
        uid = unit.id.lower()
        regiment = f"{unit.side}:{unit.parent}:{unit.regiment}" if unit.regiment else None
        units[uid] = UnitDef(
            id=uid, side=unit.side, kind=kind,
            name=f"{unit.designation} {unit.type}".strip(),
            engineer=unit.engineer,
            attack=unit.attack, defense=unit.defense or 0,
            spent_defense=unit.spent_defense if unit.spent_defense is not None
            else (unit.defense or 0),
            mf=unit.movement or 0, mechanized=unit.mechanized,
            motorized=unit.motorized or kind == "artillery",  # 4.25
            parent=unit.parent, regiment=regiment, battalion=unit.size in ("I", "II"),
            setup=tuple(f"{s.colour}-{s.shape}" for s in unit.setup),
            historical=unit.historical,
            arrival=(unit.arrive - first).days if unit.arrive else None,
            withdrawal=(unit.withdraw - first).days if unit.withdraw else None,
            night_attack=unit.night_attack, quadrant=unit.quadrant,
        )
    playable: dict[str, frozenset[str]] = {}
    for key, scenario in pack.scenarios.items():
        quadrants = set(scenario.playable_quadrants)
        if len(quadrants) >= len(pack.quadrants):
            continue
        playable[key] = frozenset(
            {str(k) for k, a in pack.areas.items() if a.quadrant in quadrants}
            | {z for z, zone in pack.zones.items() if quadrants & set(zone.quadrants)})
    blue = {week.number: week.blue for week in pack.calendar.weeks}
    return Board(areas=areas, adjacency=adjacency, units=units, tables=pack.tables,
                 calendar=pack.calendar, source="pack", scenarios=dict(pack.scenarios),
                 playable=playable, blue=blue)
