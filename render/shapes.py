"""The shapes of a map picture (:mod:`render.geometry`): a space's outline, a counter, a
picture's whole geometry, each in the full picture's pixels and readable as JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Point = tuple[float, float]


@dataclass(frozen=True)
class Shape:
    """One space: its key as orders name it, its kind ("area", "zone", "hex"), its outline
    (a polygon, pixels of the full picture), its centre and where its label is drawn."""

    key: str
    kind: str
    points: tuple[Point, ...]
    centre: Point
    label: Point

    def as_json(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind,
                "points": [[round(x, 1), round(y, 1)] for x, y in self.points],
                "centre": [round(self.centre[0], 1), round(self.centre[1], 1)],
                "label": [round(self.label[0], 1), round(self.label[1], 1)]}


@dataclass(frozen=True)
class Counter:
    """A unit's counter as the picture draws it: its id, the space it is in, its centre and
    size in pixels."""

    unit: str
    space: str
    centre: Point
    size: float

    def as_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "space": self.space,
                "centre": [round(self.centre[0], 1), round(self.centre[1], 1)],
                "size": round(self.size, 1)}


@dataclass(frozen=True)
class Geometry:
    """The shapes of one picture (its size in pixels), the set-up zones the View names
    (side -> space keys) and the counters it draws where they can be told apart."""

    game: str
    size: tuple[int, int]
    shapes: tuple[Shape, ...]
    zones: dict[str, list[str]] = field(default_factory=dict)
    counters: tuple[Counter, ...] = ()

    def shape(self, key: str) -> Shape:
        for s in self.shapes:
            if s.key == key:
                return s
        raise KeyError(key)

    def as_json(self) -> dict[str, Any]:
        return {"game": self.game, "size": list(self.size),
                "shapes": [s.as_json() for s in self.shapes],
                "zones": {side: list(keys) for side, keys in self.zones.items()},
                "counters": [c.as_json() for c in self.counters]}
