"""units.toml: the unit types (3.0) with their printed factors."""

from __future__ import annotations

from pydantic import Field, model_validator

from adjudicator.kernel.packs import Record, Sourced
from adjudicator.tanks.data_models.common import ArmorClass, Kind, Side


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
