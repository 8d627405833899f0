"""Typed records of the Turning Point: Stalingrad data pack (map, units, calendar, tables).

Every record keeps its provenance: ``source`` is ``"rulebook <sections>"`` or
``"reconstructed: <one-line reason>"``, and ``rulebook`` cites, field by field, the values the
rulebook fixes inside an otherwise reconstructed record. Rule numbers in the docstrings refer
to the rulebook in ``../shared/rules/turning-point-stalingrad.txt``.

The models are frozen; :class:`StalingradPack` adds the queries the rules engine needs
(spaces by key, neighbours, distances, units by id, schedules by date).
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections import deque
from collections.abc import Iterable, Iterator
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

Side = Literal["german", "russian"]
SIDES: tuple[Side, Side] = ("german", "russian")
QuadrantKey = Literal["north", "north-central", "south-central", "south"]
QUADRANT_KEYS: tuple[QuadrantKey, ...] = ("north", "north-central", "south-central", "south")
IdShape = Literal["circle", "square", "triangle"]
Supply = Literal["german", "russian", "none"]
Point = tuple[float, float]
Colour = Annotated[str, Field(pattern=r"^[a-z]+$")]

SOURCE_RE = re.compile(r"^(rulebook [0-9A-Za-z].*|reconstructed: \S.*)$")
DATE_CODE_RE = re.compile(r"^([SON])(\d{1,2})$")
MONTHS = {"S": 9, "O": 10, "N": 11}
YEAR = 1942


def parse_date_code(code: str) -> date:
    """A counter's date code ("S15" = September 15th, 5.4; "O4", "N9") as a 1942 date."""
    m = DATE_CODE_RE.match(code)
    if not m:
        raise ValueError(f"date code {code!r} is not S/O/N followed by a day, like 'S15'")
    return date(YEAR, MONTHS[m.group(1)], int(m.group(2)))


def date_code(day: date) -> str:
    """Inverse of :func:`parse_date_code`: date(1942, 9, 15) -> "S15"."""
    letter = {9: "S", 10: "O", 11: "N"}[day.month]
    return f"{letter}{day.day}"


class Record(BaseModel):
    """Base of every pack record: strict fields, frozen, provenance attached."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str
    rulebook: dict[str, str] = Field(default_factory=dict)

    @field_validator("source")
    @classmethod
    def _source_form(cls, v: str) -> str:
        if not SOURCE_RE.match(v):
            raise ValueError(
                'must be "rulebook <section>" or "reconstructed: <one-line reason>"'
            )
        return v

    @model_validator(mode="after")
    def _rulebook_fields(self) -> Record:
        unknown = sorted(set(self.rulebook) - set(type(self).model_fields))
        if unknown:
            raise ValueError(f"rulebook cites unknown field(s) {', '.join(unknown)}")
        return self

    @property
    def reconstructed(self) -> bool:
        """True when the record as a whole is a reconstruction (fields in ``rulebook`` aside)."""
        return self.source.startswith("reconstructed")


# ----------------------------------------------------------------------------- the map


class Manifest(Record):
    """pack.toml: identifies the pack and lists its files."""

    game: str
    name: str
    version: str
    description: str = ""
    files: tuple[str, ...]


class Board(Record):
    """The frame of the board in map units (inches, 3.1: 1 inch = 500 m; x east, y south)."""

    width: float = Field(gt=0)
    height: float = Field(gt=0)
    unit: str = "inch"
    scale_metres_per_unit: float = Field(gt=0)


class Quadrant(Record):
    """One of the four Quadrants (15.31, Glossary) as a region of the board."""

    key: QuadrantKey
    name: str
    polygon: tuple[Point, ...] = Field(min_length=3)


class Region(Record):
    """A drawn region that is not a space: the Volga, the east bank."""

    name: str
    polygon: tuple[Point, ...] = Field(min_length=3)


class FagBox(Record):
    """A Front Artillery Group box on the east side of the board (5.3, 15.31)."""

    quadrant: QuadrantKey
    name: str
    label: Point


class Space(Record):
    """What Areas and Zones share: Zones count as Areas except as modified by 11 (3.3)."""

    name: str | None = None
    aliases: tuple[str, ...] = ()
    tem: int = Field(ge=1, le=4)  # 3.22
    supply: Supply = "none"  # 12.1
    ferry_landing: bool = False  # Glossary, 18.3
    vp: int = Field(default=0, ge=0)  # 19.1
    label: Point
    polygon: tuple[Point, ...] = Field(min_length=3)

    @property
    @abstractmethod
    def key(self) -> str:
        """The Area's number or the Zone's letter, as text."""

    @property
    def title(self) -> str:
        """"Mamayev Kurgan (56)" or "56"."""
        return f"{self.name} ({self.key})" if self.name else self.key


class Area(Space):
    """One of the 74 numbered Areas (3.2).

    ``id_shape`` and ``setup_colour`` are the ID symbol (3.21, 3.23): square IDs start German-
    controlled, the rest Russian (5.2); white IDs hold no units at start (5.6). ``borders``
    lists the Areas across a common border (3.2, 8.2). ``observation_range`` is how far an
    Observer in the Area can fire: 1 = adjacent only (15.21), 2 on Hill 126.3 (15.211), 3 on
    Hill 102 (15.212).
    """

    number: int = Field(ge=1)
    id_shape: IdShape
    setup_colour: Colour
    river_bank: bool = False  # 19.1, 18.4
    rubble_symbol: bool = False  # 5.7, 14.2
    quadrant: QuadrantKey  # 15.31
    observation_range: int = Field(default=1, ge=1)
    borders: tuple[int, ...] = ()

    @property
    def key(self) -> str:
        return str(self.number)

    @property
    def kind(self) -> Literal["area"]:
        return "area"

    @property
    def initial_control(self) -> Side:
        """5.2: German Control markers in square-ID Areas, Russian in the rest."""
        return "german" if self.id_shape == "square" else "russian"

    @property
    def quadrants(self) -> tuple[QuadrantKey, ...]:
        return (self.quadrant,)

    @property
    def white(self) -> bool:
        """3.23, 5.6: no unit may start in an Area with a white ID."""
        return self.setup_colour == "white"


class Zone(Space):
    """One of the eight perimeter Zones A-H (3.3, 11).

    ``zones`` are the adjacent Zones, ``arrows`` the Areas joined to it by entrance arrows
    (8.2, 11.1). ``quadrants`` are the Quadrants of those Areas (15.31).
    """

    letter: str = Field(pattern=r"^[A-Z]$")
    initial_control: Side
    quadrants: tuple[QuadrantKey, ...] = Field(min_length=1)
    zones: tuple[str, ...] = ()
    arrows: tuple[int, ...] = ()

    @property
    def key(self) -> str:
        return self.letter

    @property
    def kind(self) -> Literal["zone"]:
        return "zone"


# ----------------------------------------------------------------------------- units

UnitType = Literal[
    "infantry", "motorized_infantry", "recon", "pioneer", "engineer",
    "tank", "panzergrenadier", "armored_recon",
    "pak", "td", "atr", "mg",
    "aa", "flak",
    "artillery", "fag", "luftwaffe",
]
Category = Literal["armor", "infantry", "at", "aa", "artillery", "air"]

#: 4.2-4.26: how each unit-type symbol (4.31) behaves in play.
CATEGORY: dict[str, Category] = {
    "infantry": "infantry", "motorized_infantry": "infantry", "recon": "infantry",
    "pioneer": "infantry", "engineer": "infantry",
    "tank": "armor", "panzergrenadier": "armor", "armored_recon": "armor",
    "pak": "at", "td": "at", "atr": "at", "mg": "at",
    "aa": "aa", "flak": "aa",
    "artillery": "artillery", "fag": "artillery", "luftwaffe": "air",
}
UnitSize = Literal["I", "II", "III", "X", "XX", "XXXX"]  # 4.32
FACTORS_RE = re.compile(r"^(\*|-?\d+)-(X|\d+)-(\d+)$")


class SetupSymbol(BaseModel):
    """The coloured shape on a unit's Spent side (5.4): where it may start."""

    model_config = ConfigDict(frozen=True)

    colour: str
    shape: IdShape

    def __str__(self) -> str:
        return f"{self.colour} {self.shape}"

    def matches(self, area: Area) -> bool:
        return area.setup_colour == self.colour and area.id_shape == self.shape


def parse_setup_symbol(text: str) -> SetupSymbol:
    parts = text.split()
    if len(parts) != 2 or parts[1] not in ("circle", "square", "triangle"):
        raise ValueError(f"setup symbol {text!r} is not '<colour> <circle|square|triangle>'")
    return SetupSymbol.model_validate({"colour": parts[0], "shape": parts[1]})


class Formation(Record):
    """One line of a Setup card (5.5): counters sharing every value but their designation.

    ``factors`` is the Fresh side's "Attack-Defense-Movement" (4.2): "*" for no Attack Factor
    (AT/AA, 8.351), "X" for no Defense Factor (Artillery, 4.25). ``spent_defense`` is the
    Defense Factor printed on the Spent side. ``setup`` holds the setup symbols (5.4) and
    ``historical`` the historical Area (21.2) - one for all units or one per unit;
    ``arrive`` / ``withdraw`` are date codes (5.4, 21.3).
    """

    side: Side
    parent: str | None = None
    parent_name: str | None = None
    regiment: str | None = None
    type: UnitType
    size: UnitSize
    factors: str | None = None
    night_attack: int | None = None
    spent_defense: int | None = None
    mechanized: bool = False
    motorized: bool = False
    quadrant: QuadrantKey | None = None
    units: tuple[str, ...] = Field(min_length=1)
    setup: tuple[str, ...] = ()
    historical: str | tuple[str, ...] | None = None
    arrive: str | None = None
    withdraw: str | None = None

    @field_validator("factors")
    @classmethod
    def _factors_form(cls, v: str | None) -> str | None:
        if v is not None and not FACTORS_RE.match(v):
            raise ValueError(f"{v!r} is not Attack-Defense-Movement like '4-5-4' or '*-3-6'")
        return v

    @field_validator("setup")
    @classmethod
    def _setup_form(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for text in v:
            parse_setup_symbol(text)
        return v

    @field_validator("arrive", "withdraw")
    @classmethod
    def _date_form(cls, v: str | None) -> str | None:
        if v is not None:
            parse_date_code(v)
        return v

    @model_validator(mode="after")
    def _consistent(self) -> Formation:
        if isinstance(self.historical, tuple) and len(self.historical) != len(self.units):
            raise ValueError(
                f"historical lists {len(self.historical)} Areas for {len(self.units)} units"
            )
        if self.type not in ("fag", "luftwaffe") and self.factors is None:
            raise ValueError(f"a {self.type} unit needs factors")
        if self.type == "artillery" and self.night_attack is None:
            raise ValueError("German artillery needs its night Attack Factor (4.25, 15.24)")
        if self.type == "fag" and self.quadrant is None:
            raise ValueError("a FAG unit needs its quadrant (15.31)")
        starts = bool(self.setup) or self.historical is not None
        boxed = self.type in ("fag", "luftwaffe")
        if boxed and (starts or self.arrive):
            raise ValueError(f"a {self.type} unit starts in its printed box: no setup, no arrive")
        if not boxed and starts == (self.arrive is not None):
            raise ValueError("a unit either starts on the map (setup) or arrives (arrive)")
        if starts and (not self.setup or self.historical is None):
            raise ValueError("a starting unit needs both setup symbols and a historical Area")
        return self


class Unit(BaseModel):
    """One counter (4). Built from a :class:`Formation`; ``id`` is unique in the pack.

    ``attack`` is None for "*" (may not lead an attack, 8.351) and for units whose strength
    follows the calendar (Luftwaffe 4.26/17.23, Russian FAG 15.3); ``defense`` is None for
    Artillery/aircraft (4.25, 4.26). For German Artillery ``attack`` is the day value and
    ``night_attack`` the parenthesised night value (15.24).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    side: Side
    designation: str
    parent: str | None
    parent_name: str | None
    regiment: str | None
    type: UnitType
    size: UnitSize
    attack: int | None
    defense: int | None
    movement: int | None
    night_attack: int | None
    spent_defense: int | None
    mechanized: bool
    motorized: bool
    quadrant: QuadrantKey | None
    setup: tuple[SetupSymbol, ...]
    historical: str | None
    arrive: date | None
    withdraw: date | None
    source: str
    rulebook: dict[str, str]
    formation: int

    @property
    def category(self) -> Category:
        """4.2: armor, infantry, at, aa, artillery or air."""
        return CATEGORY[self.type]

    @property
    def combat(self) -> bool:
        """Glossary: Combat units are all units except Artillery/Aircraft."""
        return self.category not in ("artillery", "air")

    @property
    def engineer(self) -> bool:
        """Glossary: Pioneers and Engineers are identical (Engineers, 14.3, 14.6)."""
        return self.type in ("pioneer", "engineer")

    @property
    def independent(self) -> bool:
        """Glossary (Parent Organization): no parent - may join any attack without penalty."""
        return self.parent is None

    @property
    def starts_on_map(self) -> bool:
        return bool(self.setup)

    @property
    def in_box(self) -> bool:
        """The Luftwaffe (4.26) and the Russian FAGs (5.3) stay in their printed boxes."""
        return self.type in ("luftwaffe", "fag")

    @property
    def withdrawal_dot(self) -> bool:
        """21.3: units to be withdrawn carry a white dot on their Fresh side."""
        return self.withdraw is not None

    @property
    def factors(self) -> str:
        """The Fresh side as printed, e.g. "4-5-4", "*-3-6", "6-X-5"."""
        if self.attack is None and self.defense is None and self.movement is None:
            return ""
        a = "*" if self.attack is None else str(self.attack)
        d = "X" if self.defense is None else str(self.defense)
        return f"{a}-{d}-{self.movement}"


def expand(formation: Formation, index: int) -> list[Unit]:
    """The counters of one Setup-card line."""
    attack = defense = movement = None
    if formation.factors:
        m = FACTORS_RE.match(formation.factors)
        assert m is not None
        attack = None if m.group(1) == "*" else int(m.group(1))
        defense = None if m.group(2) == "X" else int(m.group(2))
        movement = int(m.group(3))
    if isinstance(formation.historical, tuple):
        areas: list[str | None] = list(formation.historical)
    else:
        areas = [formation.historical] * len(formation.units)
    letter = "G" if formation.side == "german" else "R"
    symbols = tuple(parse_setup_symbol(s) for s in formation.setup)
    return [
        Unit(
            id=f"{letter}{formation.parent or ''}:{des}",
            side=formation.side,
            designation=des,
            parent=formation.parent,
            parent_name=formation.parent_name,
            regiment=formation.regiment,
            type=formation.type,
            size=formation.size,
            attack=attack,
            defense=defense,
            movement=movement,
            night_attack=formation.night_attack,
            spent_defense=formation.spent_defense,
            mechanized=formation.mechanized,
            motorized=formation.motorized,
            quadrant=formation.quadrant,
            setup=symbols,
            historical=area,
            arrive=parse_date_code(formation.arrive) if formation.arrive else None,
            withdraw=parse_date_code(formation.withdraw) if formation.withdraw else None,
            source=formation.source,
            rulebook=formation.rulebook,
            formation=index,
        )
        for des, area in zip(formation.units, areas, strict=True)
    ]


# ----------------------------------------------------------------------------- calendar


class Week(Record):
    """A week of seven Game Turns (6.1, 6.4) with its Victory Point numbers.

    ``blue`` decides the Basic Game (19.2): German total < blue loses, > blue wins, = goes on.
    ``red`` is the inclusive range of the Long Game (21.1): inside it the game goes on.
    ``tie_breaker`` is the small black number of 19.3.
    """

    number: int = Field(ge=1)
    start: date
    end: date
    blue: int = Field(ge=0)
    red: tuple[int, int]
    tie_breaker: int

    @model_validator(mode="after")
    def _shape(self) -> Week:
        if (self.end - self.start).days != 6:
            raise ValueError("a week is seven Game Turns (6.1)")
        if self.red[0] > self.red[1]:
            raise ValueError("red range is (low, high)")
        return self


class Step(Record):
    """A value that holds from ``start`` until the next step (strengths by date)."""

    start: date
    value: int


class Daylight(Record):
    """Impulse Track start boxes from ``start`` (6.31, 6.32; 21.4 when ``option`` is set)."""

    start: date
    day_start: int = Field(ge=1, le=12)
    night_start: int = Field(ge=1, le=12)
    option: str | None = None


class Calendar(Record):
    """The Turn Record Track (3.4) and everything that changes with the date."""

    first: date
    last: date
    base_counters_until: date  # 21.1: no counters past the third week without the extension
    weeks: tuple[Week, ...]
    luftwaffe: tuple[Step, ...]  # 4.26, 17.23
    fag: tuple[Step, ...]  # 15.3
    german_dv_bonus: tuple[Step, ...]  # 8.352F
    interdiction: tuple[Step, ...]  # 18.4 month penalty
    daylight: tuple[Daylight, ...]

    def dates(self) -> list[date]:
        n = (self.last - self.first).days + 1
        return [date.fromordinal(self.first.toordinal() + i) for i in range(n)]

    def turn(self, day: date) -> int:
        """Game Turn number, 1 = September 13."""
        return (day - self.first).days + 1

    def week_of(self, day: date) -> Week:
        for week in self.weeks:
            if week.start <= day <= week.end:
                return week
        raise KeyError(f"{day} is not on the Turn Record Track")

    @staticmethod
    def _step(steps: Iterable[Step], day: date) -> int:
        value: int | None = None
        for step in steps:
            if step.start <= day:
                value = step.value
        if value is None:
            raise KeyError(f"no value before {day}")
        return value

    def luftwaffe_attack(self, day: date) -> int:
        """4.26/17.23: 8 through Sept 26, 5 from Sept 27, 9 from Oct 14."""
        return self._step(self.luftwaffe, day)

    def fag_strength(self, day: date) -> int:
        """15.3: Russian Artillery 1 before Sept 27, 2 through Oct 31, 3 thereafter."""
        return self._step(self.fag, day)

    def german_impulse_dv_bonus(self, day: date) -> int:
        """8.352F: +1 Sept 27-Oct 31, +2 Nov 1-Nov 14 to the DV in German impulses."""
        return self._step(self.german_dv_bonus, day)

    def interdiction_penalty(self, day: date) -> int:
        """18.4: -1 Interdiction Point in October, -2 in November (as a negative number)."""
        return self._step(self.interdiction, day)

    def daylight_boxes(self, day: date, diminishing: bool) -> tuple[int, int]:
        """(day start box, night start box) for ``day``; 21.4 steps only if ``diminishing``."""
        best: Daylight | None = None
        for d in self.daylight:
            if d.start <= day and (d.option is None or diminishing):
                best = d
        if best is None:
            raise KeyError(f"no daylight rule before {day}")
        return best.day_start, best.night_start

    def week_ends(self) -> list[date]:
        """6.4: the dates after whose last night impulse the week is scored."""
        return [w.end for w in self.weeks]


# ----------------------------------------------------------------------------- tables


class CrossingRow(BaseModel):
    """One line of the Crossing Table (18.5)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_dr: int | None = None  # None: no lower bound ("<= 11")
    max_dr: int | None = None  # None: no upper bound (">= 18")
    eliminated: bool = False
    landed: bool
    duration: int = Field(ge=0, le=4)
    text: str


class CrossingTable(Record):
    """18.5: final DR (+1 per Interdiction Point) -> result; reversed for Recrossing (18.7)."""

    drm_per_interdiction_point: int
    max_units_per_impulse: int  # 18.3
    rows: tuple[CrossingRow, ...]

    def result(self, dr: int) -> CrossingRow:
        for row in self.rows:
            if (row.min_dr is None or dr >= row.min_dr) and (
                row.max_dr is None or dr <= row.max_dr
            ):
                return row
        raise KeyError(f"no Crossing Table row for DR {dr}")


class MistakenAttackTable(Record):
    """17.3: equal unmodified DRs of a Stuka attack -> German Casualty Points."""

    rows: tuple[tuple[int, int], ...]

    def casualty_points(self, equal_dr: int) -> int:
        for dr, cp in self.rows:
            if dr == equal_dr:
                return cp
        raise KeyError(f"no Mistaken Attack row for DR {equal_dr}")


class InterdictionCondition(BaseModel):
    """One line of the Interdiction Points table (18.4)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    category: Literal["A", "B", "C"]
    condition: str
    ip: int
    text: str


class InterdictionTable(Record):
    """18.4: the best condition met in each category counts; not cumulative within one."""

    isolated_only_reduction: int
    conditions: tuple[InterdictionCondition, ...]

    def points(self, category: str, condition: str) -> int:
        for c in self.conditions:
            if c.category == category and c.condition == condition:
                return c.ip
        raise KeyError(f"no Interdiction condition {category}/{condition}")


class CasualtyPoints(Record):
    """8.354 (and 8.3541 for a retreating unit lost on entry)."""

    disrupt_fresh: int
    eliminate_fresh: int
    retreat_spent: int
    eliminate_spent: int
    retreat_entry_failure: int


class MovementCosts(Record):
    """8.23 A-E, attack costs 8.34/8.31 and Rubble attack costs 14.6."""

    vacant: int
    vacant_adjacent_fresh_enemy_day: int
    spent_enemy: int
    fresh_enemy: int
    mechanized_rubble_extra: int
    attack_spent_group: int
    attack_fresh_group: int
    attack_rubble: tuple[int, int]
    regroup_mf: int  # 8.27
    recross_mf: int  # 18.7
    replacement_placement_mf: int  # 13.3
    night_russian_extra_mf: int  # 16.3


class DisruptionTable(Record):
    """10 (Reference chart "Disruption Penalties") - Duration levels 0-4."""

    regroup: int
    movement: int
    overrun: int
    voluntary_retreat: int
    fortification: int
    attack_won: int
    attack_tied: int
    attack_lost: int
    defender_casualty: int
    ranged_reduction: int
    ranged_minimum: int
    german_artillery: int
    aircraft: int
    maximum: int


class RubbleEntranceTable(Record):
    """14.4: Rubble Entrance DR needed per level, with cumulative DRMs."""

    need: tuple[int, int]  # DR >= need[level-1]
    drm_friendly_controlled: int
    drm_no_fresh_enemy: int
    drm_no_enemy: int


class RetreatPriority(Record):
    """8.3551: retreat destination classes, best first."""

    order: tuple[str, ...]
    text: tuple[str, ...]


class Constants(Record):
    """Single numbers the rules use, each with its rule in ``rulebook``."""

    stacking_limit: int  # 7.1, 5.6
    impulse_track_spaces: int  # Glossary
    initial_rubble_threshold: int  # 5.7
    rubble_creation_threshold: int  # 14.2
    fortification_threshold: int  # 14.3
    fortification_infantry: int  # 14.3
    max_rubble: int  # 14.2
    rubble_overrun_margin: tuple[int, int]  # 14.6
    rubble_removal_per_cp: int  # 14.6
    rout_margin: int  # 8.37
    attrition_max_dr: int  # 12.22
    refit_max_dr: int  # 15.34
    german_artillery_interval_days: int  # 15.1
    sept13_german_day_impulses: int  # 20.2
    sept13_russian_day_impulses: int  # 20.2
    armor_replacement_per_day: int  # 13.2
    armor_replacement_area: int  # 13.2
    armor_replacement_rubble_dr: int  # 13.2
    mamayev_kurgan: int  # 18.4, 19.1


class Isolation(Record):
    """12.21: factor reductions under the "-1"/"-2" markers."""

    factor_reduction: tuple[int, ...] = Field(min_length=1)


class DurationMarkers(Record):
    """4.4, 10.2, 12.22: after how many dates a Duration marker's colour comes round."""

    colours: int = Field(ge=1)


class Artillery(Record):
    """15.2, 15.32: Observers per Area, the FAGs' Counter-Battery Disruption and dr."""

    observers_per_area: int = Field(ge=1)
    fag_counter_battery_duration: int = Field(ge=1, le=4)
    counter_battery_always: int = Field(ge=0, le=6)


class Withdrawal(Record):
    """21.3: the Russian's compensation for a German unit not withdrawn."""

    compensation_units: int = Field(ge=1)
    compensation_factor: int = Field(ge=1)


class Cards(Record):
    """22.21: each side's deck, as (card value, how many) pairs."""

    deck: tuple[tuple[int, int], ...] = Field(min_length=1)


class Tables(BaseModel):
    """tables.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    crossing: CrossingTable
    mistaken_attack: MistakenAttackTable
    interdiction: InterdictionTable
    casualty_points: CasualtyPoints
    movement_costs: MovementCosts
    disruption: DisruptionTable
    rubble_entrance: RubbleEntranceTable
    retreat_priority: RetreatPriority
    constants: Constants
    isolation: Isolation
    duration_markers: DurationMarkers
    artillery: Artillery
    withdrawal: Withdrawal
    cards: Cards


# ----------------------------------------------------------------------------- scenarios


class Placement(BaseModel):
    """Units a scenario puts somewhere other than their setup symbol says."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    units: tuple[str, ...]
    area: str
    when: Literal["setup", "any_impulse"] = "setup"


class SideSetup(BaseModel):
    """Which units of one side a scenario sets up (by colour) and extra placements."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    colours: tuple[str, ...] | None = None  # None: every starting unit
    fag: tuple[QuadrantKey, ...] | None = None  # None: all four FAG units
    placements: tuple[Placement, ...] = ()
    entry_zones: tuple[str, ...] | None = None  # None: the rulebook's (6.2, 18.2, 18.3); Zones
    # or Areas where units kept off the board enter (the Russian 64th Army's A, B, C, 30: 21.3)


class OptionRef(BaseModel):
    """An optional rule a scenario allows, by rule number."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: str
    name: str
    required: bool = False


class Scenario(Record):
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


# ----------------------------------------------------------------------------- the pack

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
