"""map.toml: the map's size and orientation, its terrain grid, roads and bridges; and the
:class:`TanksMap` built from them (terrain per hex, edges, blocking hexes, line of sight)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from pydantic import Field, field_validator

from adjudicator.kernel.packs import Record, Sourced
from adjudicator.tanks.data_models.common import Edge, HexName, Terrain
from adjudicator.tanks.data_models.scenarios import Zone
from adjudicator.tanks.hexgrid import (
    Blocking,
    EdgeDistances,
    Hex,
    connected_groups,
    line_of_sight,
    neighbours,
    prepare_lines,
)

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


@dataclass(frozen=True)
class TanksMap:
    """The battlefield: terrain per hex, road and bridge features, edges, blocking hexes."""

    columns: int
    rows: int
    terrain: Mapping[Hex, Terrain]
    roads: tuple[tuple[Hex, ...], ...]
    bridges: frozenset[Hex]
    blocking: frozenset[Hex]
    hex_metres: int = 50

    @cached_property
    def hexes(self) -> tuple[Hex, ...]:
        return tuple(sorted(self.terrain))

    @cached_property
    def road_hexes(self) -> frozenset[Hex]:
        return frozenset(h for road in self.roads for h in road)

    def __contains__(self, h: object) -> bool:
        return h in self.terrain

    def on_map(self, h: Hex) -> bool:
        return h in self.terrain

    def neighbours(self, h: Hex) -> tuple[Hex, ...]:
        """Adjacent hexes that are on the map."""
        return tuple(n for n in neighbours(h) if n in self.terrain)

    def edge_hexes(self, edge: Edge | str) -> tuple[Hex, ...]:
        """Hexes along an edge: N row 1, S the last row, W column 1, E the last column."""
        e = Edge(edge)
        if e is Edge.N:
            return tuple(Hex(c, 1) for c in range(1, self.columns + 1))
        if e is Edge.S:
            return tuple(Hex(c, self.rows) for c in range(1, self.columns + 1))
        if e is Edge.W:
            return tuple(Hex(1, r) for r in range(1, self.rows + 1))
        return tuple(Hex(self.columns, r) for r in range(1, self.rows + 1))

    def edges_of(self, h: Hex) -> frozenset[Edge]:
        out = set()
        if h.row == 1:
            out.add(Edge.N)
        if h.row == self.rows:
            out.add(Edge.S)
        if h.col == 1:
            out.add(Edge.W)
        if h.col == self.columns:
            out.add(Edge.E)
        return frozenset(out) if h in self.terrain else frozenset()

    def edge_distance(self, h: Hex, edge: Edge | str) -> int:
        """Hexes from ``h`` to the nearest hex of ``edge``, counted like range (10.4)."""
        return self._edge_distances(h, Edge(edge).value)

    @cached_property
    def _edge_distances(self) -> EdgeDistances:
        return EdgeDistances(self.hexes, self.edge_hexes)

    def hexes_of(self, terrain: Terrain | str) -> frozenset[Hex]:
        t = Terrain(terrain)
        return frozenset(h for h, v in self.terrain.items() if v is t)

    @cached_property
    def hill_groups(self) -> tuple[frozenset[Hex], ...]:
        """25.6: each hill hex alone or with every hill hex continuous with it."""
        return connected_groups(self.hexes_of(Terrain.HILL))

    def prepare_lines(self) -> None:
        """Precompute every line of sight profile of this map's size (once per process)."""
        prepare_lines(self.columns, self.rows)

    def line_of_sight(self, a: Hex, b: Hex, blocking: Blocking | None = None) -> bool:
        """9.0 on this map (``blocking`` defaults to the map's woods, buildings and hills)."""
        prepare_lines(self.columns, self.rows)
        return line_of_sight(a, b, self.blocking if blocking is None else blocking)

    def visible_from(self, a: Hex, blocking: Blocking | None = None) -> frozenset[Hex]:
        """Every hex of the map a unit in ``a`` can see (9.0)."""
        prepare_lines(self.columns, self.rows)
        block = self.blocking if blocking is None else blocking
        return frozenset(h for h in self.hexes if line_of_sight(a, h, block))

    def zone_hexes(self, zone: Zone) -> frozenset[Hex]:
        """The map hexes a scenario zone allows."""
        if zone.anywhere:
            hexes = set(self.terrain)
        else:
            hexes = {h for h in zone.hexes if h in self.terrain}
            for rect in zone.rects:
                (c0, c1), (r0, r1) = rect.cols, rect.rows
                hexes |= {
                    h for h in self.terrain if c0 <= h.col <= c1 and r0 <= h.row <= r1
                }
        for edge, least in zone.min_edge_distance.items():
            hexes = {h for h in hexes if self.edge_distance(h, edge) >= least}
        if zone.terrain:
            allowed = set(zone.terrain)
            hexes = {h for h in hexes if self.terrain[h] in allowed}
        return frozenset(hexes)


def build_map(mf: MapFile, blocking_terrain: Iterable[Terrain]) -> TanksMap:
    codes = mf.terrain.codes
    terrain: dict[Hex, Terrain] = {}
    for r, line in enumerate(mf.terrain.rows, start=1):
        for c, ch in enumerate(line, start=1):
            terrain[Hex(c, r)] = codes[ch]
    blockers = set(blocking_terrain)
    return TanksMap(
        columns=mf.map.columns,
        rows=mf.map.rows,
        terrain=terrain,
        roads=tuple(tuple(road.hexes) for road in mf.road),
        bridges=frozenset(b.hex for b in mf.bridge),
        blocking=frozenset(h for h, t in terrain.items() if t in blockers),
        hex_metres=mf.map.hex_metres,
    )
