"""scenarios.toml: the scenarios of 25 — forces, set-up zones, hidden units, entries,
artillery, mines, special rules and victory conditions."""

from __future__ import annotations

from itertools import pairwise
from typing import Literal

from pydantic import Field, model_validator

from adjudicator.kernel.packs import Record, Sourced
from adjudicator.tanks.data_models.common import Edge, HexName, Kind, Side, Terrain


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
