"""Pydantic models of the Stalin's Tanks data pack (one model per TOML file).

Every record carries ``source``: ``"rulebook <section>"`` or ``"reconstructed: <reason>"``.
``field_sources`` (or ``cell_sources`` for the Hit Effects rows) overrides it for single
values. Cross-file checks (unit ids in scenarios, hexes on the map, ...) live in
``adjudicator.tanks.data``.
"""

from __future__ import annotations

import re
from enum import StrEnum
from itertools import pairwise
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    field_validator,
    model_validator,
)

from adjudicator.tanks.hexgrid import Direction, Hex, HexError

# -- shared field types ------------------------------------------------------------------------

_SOURCE = re.compile(r"^(rulebook \S.*|reconstructed: \S.*)$")


def _check_source(value: Any) -> str:
    if not isinstance(value, str) or not _SOURCE.match(value.strip()):
        raise ValueError(
            "source must be 'rulebook <section>' or 'reconstructed: <one-line reason>', "
            f"not {value!r}"
        )
    return value.strip()


def _parse_hex(value: Any) -> Hex:
    if isinstance(value, Hex):
        return value
    if not isinstance(value, str):
        raise ValueError(f"a hex is written as a four-digit string like \"2413\", not {value!r}")
    try:
        return Hex.parse(value)
    except HexError as error:
        raise ValueError(str(error)) from error


Source = Annotated[str, PlainValidator(_check_source)]
HexName = Annotated[Hex, PlainValidator(_parse_hex), PlainSerializer(str, return_type=str)]


def provenance(source: str) -> str:
    """``"rulebook"`` or ``"reconstructed"`` for a source string."""
    return "rulebook" if source.startswith("rulebook") else "reconstructed"


class Side(StrEnum):
    GERMAN = "german"
    SOVIET = "soviet"


class Kind(StrEnum):
    TANK = "tank"
    SP_GUN = "sp_gun"
    AT_GUN = "at_gun"
    INFANTRY = "infantry"
    HALFTRACK = "halftrack"


class Terrain(StrEnum):
    CLEAR = "clear"
    HILL = "hill"
    WOODS = "woods"
    SWAMP = "swamp"
    STREAM = "stream"
    BUILDING = "building"


class Edge(StrEnum):
    N = "N"
    E = "E"
    S = "S"
    W = "W"


ARMOR_CLASSES = "ABCDEFGHIJ"
ArmorClass = Literal["A", "B", "C", "D", "E", "F", "G", "H", "I", "J"]


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Sourced(Record):
    source: Source
    field_sources: dict[str, Source] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _field_sources_name_fields(self) -> Sourced:
        unknown = sorted(set(self.field_sources) - set(type(self).model_fields))
        if unknown:
            raise ValueError(f"field_sources names unknown fields: {', '.join(unknown)}")
        return self

    def source_of(self, field: str) -> str:
        return self.field_sources.get(field, self.source)


# -- pack.toml ---------------------------------------------------------------------------------

PACK_FILES = ("map.toml", "units.toml", "tables.toml", "scenarios.toml")


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


# -- map.toml ----------------------------------------------------------------------------------

ORIENTATION = "flat-top-columns-odd-high"


class MapSpec(Sourced):
    columns: int = Field(ge=2, le=99)
    rows: int = Field(ge=2, le=99)
    orientation: Literal["flat-top-columns-odd-high"]
    hex_metres: int = Field(gt=0)


class TerrainGrid(Sourced):
    codes: dict[str, Terrain]
    rows: list[str]

    @field_validator("codes")
    @classmethod
    def _single_chars(cls, codes: dict[str, Terrain]) -> dict[str, Terrain]:
        bad = [c for c in codes if len(c) != 1]
        if bad:
            raise ValueError(f"terrain codes are single characters, not {bad}")
        return codes


class Road(Sourced):
    name: str
    hexes: list[HexName] = Field(min_length=2)


class Bridge(Sourced):
    hex: HexName


class MapFile(Record):
    map: MapSpec
    terrain: TerrainGrid
    road: list[Road] = Field(default_factory=list)
    bridge: list[Bridge] = Field(default_factory=list)


# -- units.toml --------------------------------------------------------------------------------


class UnitType(Sourced):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    label: str = Field(min_length=1)
    name: str
    side: Side
    kind: Kind
    ap: int = Field(ge=0)
    at: int = Field(ge=0)
    at_circled: bool = False
    armored: bool
    armor_class: ArmorClass | None = None
    armor_circled: bool = False
    defense: int | None = Field(default=None, ge=1)
    mf: int = Field(ge=1)
    sp: bool
    turret: bool
    aliases: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> UnitType:
        problems = []
        if self.armored and (self.armor_class is None or self.defense is not None):
            problems.append("an armoured unit has an armor_class and no defense")
        if not self.armored and (self.armor_class is not None or self.defense is None):
            problems.append("an unarmoured unit has a defense and no armor_class")
        if self.armor_circled and not self.armored:
            problems.append("armor_circled needs an armor_class")
        if self.sp != (self.kind is Kind.SP_GUN):
            problems.append("sp is true exactly for kind sp_gun (3.0)")
        if self.turret != (self.kind is Kind.TANK):
            problems.append("turret is true exactly for kind tank (8.6, 8.7)")
        if self.kind in (Kind.TANK, Kind.SP_GUN, Kind.HALFTRACK) and not self.armored:
            problems.append(f"a {self.kind.value} is armoured (3.0)")
        if self.kind in (Kind.AT_GUN, Kind.INFANTRY) and self.armored:
            problems.append(f"an {self.kind.value} is unarmoured (3.0)")
        if self.at_circled and self.side is not Side.GERMAN:
            problems.append("only German units have circled AT factors (11.2)")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @property
    def has_facing(self) -> bool:
        """8.1: tanks and SP guns have a facing; other units do not."""
        return self.kind in (Kind.TANK, Kind.SP_GUN)

    def value_sources(self) -> dict[str, str]:
        """Each game value of the counter with its source."""
        fields = ["ap", "at", "at_circled", "mf"]
        fields += ["armor_class", "armor_circled"] if self.armored else ["defense"]
        return {f: self.source_of(f) for f in fields}


class UnitsFile(Record):
    unit: list[UnitType] = Field(min_length=1)


# -- tables.toml -------------------------------------------------------------------------------


class ToHitBand(Sourced):
    min_range: int = Field(ge=1)
    max_range: int | None = None
    automatic: bool = False
    need: int | None = Field(default=None, ge=2, le=12)
    mobile_need: int | None = Field(default=None, ge=2, le=12)

    @model_validator(mode="after")
    def _need(self) -> ToHitBand:
        if self.automatic == (self.need is not None):
            raise ValueError("a To Hit band is either automatic or has a need")
        if self.max_range is not None and self.max_range < self.min_range:
            raise ValueError("max_range is below min_range")
        return self


class Drm(Sourced):
    table: Literal["anti-tank", "anti-personnel", "he"]
    condition: str
    value: int
    text: str


class OddsColumn(Record):
    odds: str = Field(pattern=r"^\d+-\d+$")
    need: int = Field(ge=2, le=12)

    @property
    def ratio(self) -> tuple[int, int]:
        a, d = self.odds.split("-")
        return (int(a), int(d))


class AntiPersonnelTable(Sourced):
    rounding: Literal["defender"]
    below_lowest: Literal["no-effect"]
    above_highest: Literal["highest"]
    column: list[OddsColumn] = Field(min_length=1)


HitCell = int | Literal["-", "X"]


class HitEffectsRow(Sourced):
    class_: ArmorClass = Field(alias="class")
    values: list[HitCell]
    cell_sources: dict[str, Source] = Field(default_factory=dict)

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @field_validator("values")
    @classmethod
    def _cells(cls, values: list[HitCell]) -> list[HitCell]:
        for v in values:
            if isinstance(v, int) and not 2 <= v <= 11:
                raise ValueError(f"a Hit Effects number is 2..11 ('X' for certain), not {v}")
        return values


class HitEffectsTable(Sourced):
    columns: list[str] = Field(min_length=1)
    lowest_class: ArmorClass
    row: list[HitEffectsRow] = Field(min_length=1)

    @field_validator("columns")
    @classmethod
    def _columns(cls, columns: list[str]) -> list[str]:
        expect = 1
        for i, col in enumerate(columns):
            m = re.fullmatch(r"(\d+)-(\d+)|(\d+)\+", col)
            if not m:
                raise ValueError(f"column {col!r} is not 'lo-hi' or 'lo+'")
            lo = int(m.group(1) or m.group(3))
            if lo != expect:
                raise ValueError(f"column {col!r} should start at {expect}")
            if m.group(3) is not None:
                if i != len(columns) - 1:
                    raise ValueError(f"open column {col!r} must be last")
            else:
                expect = int(m.group(2)) + 1
        if "+" not in columns[-1]:
            raise ValueError("the last column must be open-ended ('45+')")
        return columns


MoveCost = int | Literal["prohibited"]


class TerrainEffect(Sourced):
    terrain: Terrain
    move_cost: dict[Kind, MoveCost]
    blocks_los: bool
    at_to_hit_drm: int
    defense_multiplier: int = Field(ge=1)
    armor_class_shift: int
    overrun_need: int | None = None

    @field_validator("move_cost")
    @classmethod
    def _every_kind(cls, cost: dict[Kind, MoveCost]) -> dict[Kind, MoveCost]:
        missing = [k.value for k in Kind if k not in cost]
        if missing:
            raise ValueError(f"move_cost lacks {', '.join(missing)}")
        for k, v in cost.items():
            if isinstance(v, int) and v < 1:
                raise ValueError(f"move_cost for {k.value} must be at least 1")
        return cost


class RoadEffect(Sourced):
    first_movement_multiplier: dict[Kind, float]
    rounding: Literal["down"]
    whole_phase_on_road: bool
    second_movement_bonus: bool


class BridgeEffect(Sourced):
    negates: Terrain
    counts_as_road: bool


class ScatterTable(Sourced):
    scatter_on: list[int]
    directions: dict[int, Direction]

    @field_validator("directions", mode="before")
    @classmethod
    def _named(cls, value: Any) -> Any:
        if isinstance(value, dict):
            out: dict[Any, Any] = {}
            for k, v in value.items():
                if isinstance(v, str) and v in Direction.__members__:
                    v = Direction[v]
                out[k] = v
            return out
        return value

    @model_validator(mode="after")
    def _faces(self) -> ScatterTable:
        if sorted(self.directions) != [1, 2, 3, 4, 5, 6]:
            raise ValueError("directions must give a direction for each die face 1-6")
        if sorted(self.directions.values()) != sorted(Direction):
            raise ValueError("directions must use each of N, NE, SE, S, SW, NW once")
        if not self.scatter_on or any(not 1 <= f <= 6 for f in self.scatter_on):
            raise ValueError("scatter_on lists die faces 1-6")
        return self


class BarrageTable(Sourced):
    light_need: int = Field(ge=2, le=12)
    heavy_need: int = Field(ge=2, le=12)
    pattern: Literal["target-and-adjacent"]


class Constant(Sourced):
    id: str
    value: int | float | str | bool
    text: str


class TablesFile(Record):
    to_hit: list[ToHitBand] = Field(min_length=1)
    drm: list[Drm]
    anti_personnel: AntiPersonnelTable
    hit_effects: HitEffectsTable
    terrain_effect: list[TerrainEffect]
    road: RoadEffect
    bridge: BridgeEffect
    scatter: ScatterTable
    barrage: BarrageTable
    constant: list[Constant] = Field(default_factory=list)


# -- scenarios.toml ----------------------------------------------------------------------------


class Rect(Record):
    cols: tuple[int, int]
    rows: tuple[int, int]


class Zone(Record):
    anywhere: bool = False
    rects: list[Rect] = Field(default_factory=list)
    hexes: list[HexName] = Field(default_factory=list)
    boundary: list[HexName] = Field(default_factory=list)
    min_edge_distance: dict[Edge, int] = Field(default_factory=dict)
    terrain: list[Terrain] = Field(default_factory=list)

    @model_validator(mode="after")
    def _something(self) -> Zone:
        if not self.anywhere and not self.rects and not self.hexes:
            raise ValueError("a zone is 'anywhere', or lists rects or hexes")
        return self


class ForceEntry(Sourced):
    side: Side
    unit: str
    count: int = Field(ge=1)
    group: str = ""
    printed: str | None = None


class SetupZone(Sourced):
    side: Side
    group: str = ""
    zone: Zone
    face_down: bool = False
    text: str


class UnitCount(Record):
    unit: str
    count: int = Field(ge=1)


class Hidden(Sourced):
    side: Side
    group: str = ""
    mode: Literal["hidden", "face-down"]
    unhidden: list[UnitCount] = Field(default_factory=list)
    terrain: list[Terrain] = Field(default_factory=list)
    reveal: str = "rulebook 20.0: when it moves, fires, or an enemy unit enters an adjacent hex"
    text: str


class Entry(Sourced):
    side: Side
    group: str = ""
    edges: list[Edge] = Field(min_length=1)
    turns: list[int] = Field(default_factory=list)
    hexes: list[HexName] = Field(default_factory=list)
    printed: str | None = None
    same_edge_and_turn: bool = False
    road_only_until_enemy_enters: bool = False
    text: str


class Artillery(Sourced):
    side: Side
    weight: Literal["light", "heavy"]
    per_turn: int | None = Field(default=None, ge=1)
    turns: list[int] = Field(default_factory=list)
    total: int | None = Field(default=None, ge=1)
    from_turn: int = Field(default=1, ge=1)
    advanced_only: bool = False
    text: str

    @model_validator(mode="after")
    def _allotment(self) -> Artillery:
        if (self.per_turn is None) == (self.total is None):
            raise ValueError("an artillery allotment is either per_turn or total")
        return self


class Mines(Sourced):
    side: Side
    count: int = Field(ge=1)
    in_setup_zone: bool = False
    text: str


class Special(Sourced):
    id: str
    text: str
    treat_as_clear: list[str] = Field(default_factory=list)


class Tally(Record):
    """The units a victory award or requirement counts: ``units_of``'s units that exited
    (across ``edge``, if given) or were destroyed, of ``kinds`` and ``units`` if given."""

    event: Literal["exit", "destroy"]
    units_of: Side
    edge: Edge | None = None
    kinds: list[Kind] = Field(default_factory=list)
    units: list[str] = Field(default_factory=list)


class Award(Tally):
    side: Side
    exclude_units: list[str] = Field(default_factory=list)
    loaded: bool = False
    points: int = Field(ge=1)


class Level(Record):
    min: int | None = None
    max: int | None = None
    winner: Side | None = None
    degree: Literal["decisive", "marginal", "victory", "draw"]

    @model_validator(mode="after")
    def _draw(self) -> Level:
        if (self.degree == "draw") != (self.winner is None):
            raise ValueError("a level names a winner unless it is a draw")
        return self


class Requirement(Tally):
    #: Exiting halftracks count only with a passenger of these kinds. The rules record
    #: whether a halftrack left with infantry aboard (25.7), so only infantry is supported.
    loaded_with: list[Kind] = Field(default_factory=list)
    at_least: int | None = Field(default=None, ge=1)
    all: bool = False

    @model_validator(mode="after")
    def _count(self) -> Requirement:
        if (self.at_least is None) == (not self.all):
            raise ValueError("a requirement is either at_least N or all")
        if self.loaded_with and self.loaded_with != ["infantry"]:
            raise ValueError('loaded_with supports only ["infantry"] (25.7)')
        return self


class Alternative(Record):
    label: str
    requires: list[Requirement] = Field(min_length=1)


class Victory(Sourced):
    kind: Literal["units-on-board", "points", "conditions", "hill-groups"]
    text: str
    tie: Side | Literal["draw"] | None = None
    score: Literal["soviet", "german", "soviet-minus-german"] | None = None
    award: list[Award] = Field(default_factory=list)
    level: list[Level] = Field(default_factory=list)
    alternative: list[Alternative] = Field(default_factory=list)
    winner: Side | None = None
    otherwise: Side | None = None

    @model_validator(mode="after")
    def _shape(self) -> Victory:
        if self.kind in ("units-on-board", "hill-groups") and self.tie is None:
            raise ValueError(f"a {self.kind} victory says who wins a tie ('draw' or a side)")
        if self.kind == "points":
            if self.score is None or not self.award or not self.level:
                raise ValueError("a points victory needs score, award and level entries")
            _check_levels(self.level)
        if self.kind == "conditions" and (
            not self.alternative or self.winner is None or self.otherwise is None
        ):
            raise ValueError("a conditions victory needs alternative, winner and otherwise")
        return self


def _check_levels(levels: list[Level]) -> None:
    """Levels must cover every score exactly once, from -infinity to +infinity."""
    ordered = sorted(levels, key=lambda lv: -10**9 if lv.min is None else lv.min)
    if ordered[0].min is not None:
        raise ValueError("the lowest victory level must have no min (it covers every low score)")
    if ordered[-1].max is not None:
        raise ValueError("the highest victory level must have no max")
    for low, high in pairwise(ordered):
        if low.max is None or high.min is None or high.min != low.max + 1:
            raise ValueError(
                f"victory levels leave a gap or overlap between {low.max} and {high.min}"
            )
    for lv in ordered:
        if lv.min is not None and lv.max is not None and lv.max < lv.min:
            raise ValueError(f"victory level {lv.min}..{lv.max} is empty")


class Scenario(Sourced):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    section: str = Field(pattern=r"^25\.\d+$")
    title: str
    level: Literal["basic", "advanced", "basic-or-advanced"]
    turns: int = Field(ge=1)
    first_player: Side
    description: str = ""
    force: list[ForceEntry] = Field(min_length=1)
    setup: list[SetupZone] = Field(default_factory=list)
    hidden: list[Hidden] = Field(default_factory=list)
    entry: list[Entry] = Field(default_factory=list)
    artillery: list[Artillery] = Field(default_factory=list)
    mines: list[Mines] = Field(default_factory=list)
    special: list[Special] = Field(default_factory=list)
    victory: Victory

    def forces(self, side: Side, group: str | None = None) -> list[ForceEntry]:
        return [
            f for f in self.force if f.side is side and (group is None or f.group == group)
        ]


class ScenariosFile(Record):
    scenario: list[Scenario] = Field(min_length=1)
