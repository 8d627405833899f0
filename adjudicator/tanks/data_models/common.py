"""What the Stalin's Tanks pack files share: hexes as text, sides, kinds, terrain, edges.

Every record carries its provenance (:class:`adjudicator.kernel.packs.Sourced`): ``source``
is ``"rulebook <section>"`` or ``"reconstructed: <reason>"``; ``field_sources`` (``cell_sources``
for the Hit Effects rows) overrides it for single values.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import PlainSerializer, PlainValidator

from adjudicator.tanks.hexgrid import Hex, HexError
from adjudicator.tanks.sides import Side

__all__ = ["ARMOR_CLASSES", "ArmorClass", "Edge", "HexName", "Kind", "Side", "Terrain"]


def _parse_hex(value: Any) -> Hex:
    if isinstance(value, Hex):
        return value
    if not isinstance(value, str):
        raise ValueError(f"a hex is written as a four-digit string like \"2413\", not {value!r}")
    try:
        return Hex.parse(value)
    except HexError as error:
        raise ValueError(str(error)) from error


HexName = Annotated[Hex, PlainValidator(_parse_hex), PlainSerializer(str, return_type=str)]


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
