"""units.toml: the order of battle (4, 5.4-5.5) as Setup-card lines ("formations"), and the
counters (:class:`Unit`) each line stands for."""

from __future__ import annotations

import re
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from adjudicator.stalingrad.data_models.common import (
    IdShape,
    QuadrantKey,
    Side,
    Sourced,
    check_date_code,
    parse_date_code,
)
from adjudicator.stalingrad.data_models.map import Area

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


class Formation(Sourced):
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
            check_date_code(v)
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
    field_sources: dict[str, str]
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


def expand(formation: Formation, index: int, year: int) -> list[Unit]:
    """The counters of one Setup-card line; their date codes are days of ``year`` (the
    pack's calendar's)."""
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
            arrive=parse_date_code(formation.arrive, year) if formation.arrive else None,
            withdraw=parse_date_code(formation.withdraw, year) if formation.withdraw else None,
            source=formation.source,
            field_sources=formation.field_sources,
            formation=index,
        )
        for des, area in zip(formation.units, areas, strict=True)
    ]
