"""tables.toml: the To Hit, Anti-Personnel and Hit Effects tables, die roll modifiers, terrain
and road effects, scatter, barrage and the rules' constants; and the look-ups the rules make
in them."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from adjudicator.kernel.packs import Record, Source, Sourced
from adjudicator.tanks.data_models.common import ARMOR_CLASSES, ArmorClass, Kind, Terrain
from adjudicator.tanks.hexgrid import Direction


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


# -- look-ups ------------------------------------------------------------------------------------


def shift_armor_class(cls: str, levels: int, best: str = "A", lowest: str = "J") -> ArmorClass:
    """Raise (positive ``levels``) or lower an Armor Class, kept within ``best``..``lowest``.

    10.7: +1 on a hill; 8.5: -2 (-1 if circled) for a side or rear shot; 22.0: never above A.
    A class lowered past the table's last row is read on that row (docs/rulings.md).
    """
    i = ARMOR_CLASSES.index(cls) - levels
    i = max(ARMOR_CLASSES.index(best), min(ARMOR_CLASSES.index(lowest), i))
    out: ArmorClass = ARMOR_CLASSES[i]  # type: ignore[assignment]
    return out


def to_hit_need(tables: TablesFile, range_: int, mobile: bool = False) -> int | None:
    """The modified roll needed to hit at ``range_`` (None: automatic hit), To Hit Table."""
    for band in tables.to_hit:
        if band.min_range <= range_ and (band.max_range is None or range_ <= band.max_range):
            if band.automatic:
                return band.mobile_need if mobile else None
            return band.need
    raise ValueError(f"no To Hit band covers range {range_}")


def hit_effect(tables: TablesFile, at: int, armor_class: str) -> HitCell:
    """Hit Effects Table cell for an AT factor against an Armor Class ("-", "X" or a number)."""
    if at <= 0:
        return "-"
    he = tables.hit_effects
    cls = shift_armor_class(armor_class, 0, lowest=he.lowest_class)
    row = next(r for r in he.row if r.class_ == cls)
    for i, col in enumerate(he.columns):
        if col.endswith("+"):
            return row.values[i]
        lo, hi = (int(x) for x in col.split("-"))
        if lo <= at <= hi:
            return row.values[i]
    raise AssertionError("unreachable: the last column is open")  # pragma: no cover


def anti_personnel_need(tables: TablesFile, ap: int, defense: int) -> tuple[str, int] | None:
    """13.3: the odds column (rounded in the defender's favour) and the roll needed.

    None when the odds are below the table's first column (no effect).
    """
    best: tuple[str, int] | None = None
    for col in tables.anti_personnel.column:
        a, d = col.ratio
        if ap * d >= a * defense:
            best = (col.odds, col.need)
    return best
