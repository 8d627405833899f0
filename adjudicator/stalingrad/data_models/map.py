"""map.toml, areas.toml and zones.toml: the board's frame, Quadrants, the Volga, FAG boxes,
the 74 Areas (3.2) and the Zones A-H (3.3, 11)."""

from __future__ import annotations

from abc import abstractmethod
from typing import Literal

from pydantic import Field

from adjudicator.stalingrad.data_models.common import (
    Colour,
    IdShape,
    Point,
    QuadrantKey,
    Side,
    Sourced,
    Supply,
)


class Board(Sourced):
    """The frame of the board in map units (inches, 3.1: 1 inch = 500 m; x east, y south)."""

    width: float = Field(gt=0)
    height: float = Field(gt=0)
    unit: str = "inch"
    scale_metres_per_unit: float = Field(gt=0)


class Quadrant(Sourced):
    """One of the four Quadrants (15.31, Glossary) as a region of the board."""

    key: QuadrantKey
    name: str
    polygon: tuple[Point, ...] = Field(min_length=3)


class Region(Sourced):
    """A drawn region that is not a space: the Volga, the east bank."""

    name: str
    polygon: tuple[Point, ...] = Field(min_length=3)


class FagBox(Sourced):
    """A Front Artillery Group box on the east side of the board (5.3, 15.31)."""

    quadrant: QuadrantKey
    name: str
    label: Point


class Space(Sourced):
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
