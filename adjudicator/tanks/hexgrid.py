"""Hex geometry for Stalin's Tanks: coordinates, neighbours, range, line of sight, facing arcs.

Orientation (see ``docs/data-tanks.md``): flat-topped hexes stand in vertical columns. A hex is
named ``XXYY`` — ``XX`` the column counted from the west edge (01, 02, ...), ``YY`` the row
counted from the north edge inside that column. Odd columns sit half a hex higher than even
columns, so hex 0101 is the north-west corner and 0201 lies half a hex lower than 0101 and 0301.

Neighbours of column ``c``, row ``r``::

    N  (c, r-1)            S  (c, r+1)
    odd c:  NE (c+1, r-1)  SE (c+1, r)    SW (c-1, r)    NW (c-1, r-1)
    even c: NE (c+1, r)    SE (c+1, r+1)  SW (c-1, r+1)  NW (c-1, r)

Internally positions are converted to cube coordinates ``(x, y, z)`` with ``x + y + z == 0``;
``x`` grows eastwards and ``z`` southwards. A hex's cell in cube space is exactly
``|dx - dy| <= 1, |dy - dz| <= 1, |dz - dx| <= 1`` around its centre, which lets the line of
sight code decide with integer/rational arithmetic whether the centre-to-centre line passes
through a hex's interior or only runs along one of its hexsides (9.2, 9.3).

Nothing here knows about terrain: ``line_of_sight`` takes the set of blocking hexes (or a
predicate) from the caller, who builds it from the data pack.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from enum import IntEnum, StrEnum
from functools import cache, lru_cache
from itertools import permutations
from typing import NamedTuple

__all__ = [
    "Arc",
    "Blocking",
    "Direction",
    "Hex",
    "HexError",
    "LineProfile",
    "arc_of",
    "barrage_hexes",
    "direction_to",
    "distance",
    "front_zone",
    "hexes_in_line",
    "hexsides_along",
    "line_of_sight",
    "line_profile",
    "neighbour",
    "neighbours",
    "pixel_centre",
    "prepare_lines",
    "scatter",
    "visible_hexes",
]

Cube = tuple[int, int, int]


class HexError(ValueError):
    """A hex name that is not four digits ``XXYY``."""


class Hex(NamedTuple):
    """One hex, named by the rulebook's ``XXYY`` (column, row) number.

    A ``Hex`` is a plain ``(col, row)`` tuple underneath, so it hashes and compares like one;
    ``str(hex)`` gives the rulebook name (``"2413"``), ``Hex.parse("2413")`` reads it back.
    Columns or rows outside 1..99 are allowed (a scatter may leave the map); they format with
    a sign and are never on a map.
    """

    col: int
    row: int

    @classmethod
    def parse(cls, text: str | int | Hex) -> Hex:
        """``"2413"`` -> ``Hex(24, 13)``. Also accepts an existing Hex or a 4-digit int."""
        if isinstance(text, Hex):
            return text
        if isinstance(text, int) and not isinstance(text, bool):
            text = f"{text:04d}"
        if not isinstance(text, str):
            raise HexError(f"a hex is four digits XXYY, not {text!r}")
        s = text.strip()
        if len(s) != 4 or not s.isdigit() or not s.isascii():
            raise HexError(f"a hex is four digits XXYY (column, row), not {text!r}")
        return cls(int(s[:2]), int(s[2:]))

    def __str__(self) -> str:
        if 0 <= self.col <= 99 and 0 <= self.row <= 99:
            return f"{self.col:02d}{self.row:02d}"
        return f"({self.col},{self.row})"

    @property
    def name(self) -> str:
        return str(self)

    def cube(self) -> Cube:
        return _to_cube(self.col, self.row)

    @classmethod
    def from_cube(cls, cube: Cube) -> Hex:
        col, row = _from_cube(cube)
        return cls(col, row)


class Direction(IntEnum):
    """Hexside directions, clockwise from north; also the six facings of 8.0 (1-6)."""

    N = 1
    NE = 2
    SE = 3
    S = 4
    SW = 5
    NW = 6

    def turned(self, steps: int) -> Direction:
        """The direction ``steps`` hexsides clockwise (negative: anticlockwise)."""
        return Direction((self.value - 1 + steps) % 6 + 1)

    @property
    def opposite(self) -> Direction:
        return self.turned(3)

    @property
    def vector(self) -> Cube:
        return _DIR_CUBE[self]

    def front_hexsides(self) -> tuple[Direction, Direction, Direction]:
        """8.0: the facing hexside and the two beside it (also the legal forward moves, 8.2)."""
        return (self.turned(-1), self, self.turned(1))

    def flank_hexsides(self) -> tuple[Direction, Direction]:
        return (self.turned(-2), self.turned(2))

    def rear_hexside(self) -> Direction:
        return self.opposite


class Arc(StrEnum):
    """Where an attacker stands relative to a target's facing (8.5, 8.7)."""

    FRONT = "front"
    FLANK = "flank"
    REAR = "rear"


_DIR_CUBE: dict[Direction, Cube] = {
    Direction.N: (0, 1, -1),
    Direction.NE: (1, 0, -1),
    Direction.SE: (1, -1, 0),
    Direction.S: (0, -1, 1),
    Direction.SW: (-1, 0, 1),
    Direction.NW: (-1, 1, 0),
}
_CUBE_DIR: dict[Cube, Direction] = {v: k for k, v in _DIR_CUBE.items()}


# -- coordinates ---------------------------------------------------------------------------


def _to_cube(col: int, row: int) -> Cube:
    q = col - 1
    x = q
    z = (row - 1) - (q - (q & 1)) // 2
    return (x, -x - z, z)


def _from_cube(cube: Cube) -> tuple[int, int]:
    x, _, z = cube
    row0 = z + (x - (x & 1)) // 2
    return (x + 1, row0 + 1)


def pixel_centre(h: Hex, size: float = 1.0) -> tuple[float, float]:
    """Centre of ``h`` in map units (x east, y south) for hexes of circumradius ``size``."""
    q = h.col - 1
    return (1.5 * size * q, (3.0**0.5) * size * ((h.row - 1) + 0.5 * (q & 1)))


def neighbour(h: Hex, direction: Direction | int) -> Hex:
    """The hex across hexside ``direction`` (it may be off the map)."""
    dx, dy, dz = _DIR_CUBE[Direction(direction)]
    x, y, z = _to_cube(h.col, h.row)
    return Hex.from_cube((x + dx, y + dy, z + dz))


def neighbours(h: Hex) -> tuple[Hex, ...]:
    """The six adjacent hexes in direction order N, NE, SE, S, SW, NW (some may be off-map)."""
    return _neighbours(h.col & 1, h.col, h.row)


@lru_cache(maxsize=4096)
def _neighbours(_parity: int, col: int, row: int) -> tuple[Hex, ...]:
    x, y, z = _to_cube(col, row)
    return tuple(
        Hex.from_cube((x + dx, y + dy, z + dz)) for dx, dy, dz in _DIR_CUBE.values()
    )


def direction_to(a: Hex, b: Hex) -> Direction | None:
    """The hexside of ``a`` that faces ``b`` if they are adjacent, else None."""
    ax, ay, az = a.cube()
    bx, by, bz = b.cube()
    return _CUBE_DIR.get((bx - ax, by - ay, bz - az))


def distance(a: Hex, b: Hex) -> int:
    """Range (10.4): hexes on the shortest path, counting the target's hex but not the firer's."""
    ax, ay, az = _to_cube(a.col, a.row)
    bx, by, bz = _to_cube(b.col, b.row)
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))


class EdgeDistances:
    """Each hex's distance to the nearest hex of a map edge, counted like range (10.4): the
    set-up zones' least distances from an edge (the scenarios' rules). A map keeps one; an
    edge's table of every hex is worked out at its first use (a set-up zone asks it of
    every hex of the map: one by one, 30-160 ms a zone)."""

    def __init__(self, hexes: Iterable[Hex], edge_hexes: Callable[[str], Iterable[Hex]]
                 ) -> None:
        self._hexes = tuple(hexes)
        self._edge_hexes = edge_hexes
        self._tables: dict[str, dict[Hex, int]] = {}

    def __call__(self, h: Hex, edge: str) -> int:
        table = self._tables.get(edge)
        if table is None:
            edge_cubes = [_to_cube(e.col, e.row) for e in self._edge_hexes(edge)]
            table = {}
            for one in self._hexes:
                x, y, z = _to_cube(one.col, one.row)
                table[one] = min(max(abs(x - a), abs(y - b), abs(z - c))
                                 for a, b, c in edge_cubes)
            self._tables[edge] = table
        found = table.get(h)
        if found is None:  # off the map
            return min(distance(h, e) for e in self._edge_hexes(edge))
        return found


def scatter(target: Hex, die: int, directions: Mapping[int, Direction]) -> Hex:
    """18.2: the hex a scattered barrage marker moves to for a direction roll ``die``.

    ``directions`` is the scatter diagram (die face -> direction) from the data pack's
    ``tables.scatter.directions``. The result may be off the map.
    """
    if die not in directions:
        raise ValueError(f"the scatter diagram has no face {die}")
    return neighbour(target, directions[die])


def barrage_hexes(target: Hex) -> tuple[Hex, ...]:
    """18.3: the impact hex and the six adjacent hexes (the caller drops off-map ones)."""
    return (target, *neighbours(target))


# -- facing arcs (8.5, 8.7, 22.0) ------------------------------------------------------------


def _rotate_to_north(v: Cube, facing: Direction) -> Cube:
    """Rotate ``v`` anticlockwise so that ``facing`` becomes north."""
    x, y, z = v
    for _ in range(facing.value - 1):
        # one step anticlockwise: (x, y, z) -> (-y, -z, -x)
        x, y, z = -y, -z, -x
    return (x, y, z)


def arc_of(target: Hex, facing: Direction | int, attacker: Hex) -> Arc:
    """Which arc of a unit in ``target`` facing ``facing`` the ``attacker`` is in.

    FRONT is the 120-degree field bounded by the hex rows through the two hexsides beside
    the facing hexside; hexes on those rows count as front (they are the hexes a tank may
    move into, 8.2). REAR is the mirrored field behind, open at its boundary rows. Everything
    else is FLANK. 8.5 treats flank and rear alike; the split exists for reports only.
    """
    ax, ay, az = attacker.cube()
    tx, ty, tz = target.cube()
    x, y, z = _rotate_to_north((ax - tx, ay - ty, az - tz), Direction(facing))
    del x
    if y >= 0 and z <= 0:
        return Arc.FRONT
    if y < 0 and z > 0:
        return Arc.REAR
    return Arc.FLANK


def front_zone(target: Hex, facing: Direction | int, attacker: Hex) -> str | None:
    """22.0 (60 degrees full frontal face): "centre" or "edge" for a front-arc attacker.

    "centre" is the 60-degree wedge bounded by the hexspines through the two vertices of the
    facing hexside (hexes the spine cuts through count as centre); "edge" is the rest of the
    front arc. None when the attacker is not in the front arc (or shares the hex).
    """
    if attacker == target or arc_of(target, facing, attacker) is not Arc.FRONT:
        return None
    ax, ay, az = attacker.cube()
    tx, ty, tz = target.cube()
    x, y, z = _rotate_to_north((ax - tx, ay - ty, az - tz), Direction(facing))
    return "centre" if y >= x >= z else "edge"


# -- line of sight (9.0) ------------------------------------------------------------------------


class LineProfile(NamedTuple):
    """What the centre-to-centre line from a hex crosses, as column/row offsets.

    ``crossed``: hexes (other than both ends) whose interior the line passes through, in
    order from the firer. ``hexsides``: pairs of hexes whose common hexside the line runs
    along (9.3), in order.
    """

    crossed: tuple[tuple[int, int], ...]
    hexsides: tuple[tuple[tuple[int, int], tuple[int, int]], ...]


Blocking = AbstractSet[Hex] | AbstractSet[tuple[int, int]] | Callable[[Hex], bool]


# Interval bounds are rationals (k / d) with |d| <= 2 * range; two different ones differ by
# more than 1 / (2 * 99)^2 on any map we can name, so comparing floats with this tolerance
# decides equality exactly while staying fast. tests/tanks check it against Fractions.
_EPS = 1e-9


def _clip(e: Cube, d: Cube, strict: bool) -> tuple[float, float] | None:
    """Sub-range of t in [0, 1] where ``e + t*d`` lies inside (strict) or on a hex cell."""
    lo, hi = 0.0, 1.0
    ex, ey, ez = e
    dx, dy, dz = d
    for ee, dd in ((ex - ey, dx - dy), (ey - ez, dy - dz), (ez - ex, dz - dx)):
        if dd == 0:
            if (abs(ee) >= 1) if strict else (abs(ee) > 1):
                return None
            continue
        a = (-1 - ee) / dd
        b = (1 - ee) / dd
        if dd < 0:
            a, b = b, a
        lo = max(lo, a)
        hi = min(hi, b)
    return (lo, hi)


_SYMMETRIES: tuple[tuple[tuple[int, int, int], int], ...] = tuple(
    ((perm[0], perm[1], perm[2]), sign)
    for perm in permutations(range(3))
    for sign in (1, -1)
)


def _canonical(d: Cube) -> tuple[Cube, tuple[int, int, int], int]:
    """The least image of ``d`` under the 12 lattice symmetries, with the symmetry used.

    Permuting the three cube axes and negating all three map hexes onto hexes (the cell
    inequalities are symmetric), so one computed line serves twelve directions.
    """
    best: tuple[Cube, tuple[int, int, int], int] | None = None
    for perm, sign in _SYMMETRIES:
        image = (sign * d[perm[0]], sign * d[perm[1]], sign * d[perm[2]])
        if best is None or image < best[0]:
            best = (image, perm, sign)
    assert best is not None
    return best


@cache
def _canonical_profile(
    d: Cube,
) -> tuple[tuple[Cube, ...], tuple[tuple[Cube, Cube], ...]]:
    """Exact crossing profile of the segment from cube (0,0,0) to ``d``."""
    dx, dy, dz = d
    n = max(abs(dx), abs(dy), abs(dz))
    if n == 0:
        return ((), ())
    # Candidates: every hex within one step of a coarse sampling of the line.
    candidates: set[Cube] = set()
    for i in range(n + 1):
        fx, fy, fz = dx * i / n, dy * i / n, dz * i / n
        for nudge in (1e-6, -1e-6):
            rx, ry, rz = _cube_round(fx + nudge, fy + 2 * nudge, fz - 3 * nudge)
            candidates.add((rx, ry, rz))
            for vx, vy, vz in _DIR_CUBE.values():
                candidates.add((rx + vx, ry + vy, rz + vz))
    crossed: list[tuple[float, Cube]] = []
    grazed: dict[tuple[int, int], list[Cube]] = {}
    for c in candidates:
        if c == (0, 0, 0) or c == d:
            continue
        e = (-c[0], -c[1], -c[2])
        inner = _clip(e, d, strict=True)
        if inner is not None and inner[0] < inner[1] - _EPS:
            crossed.append(((inner[0] + inner[1]) / 2, c))
            continue
        closed = _clip(e, d, strict=False)
        if closed is not None and closed[0] < closed[1] - _EPS:
            key = (round(closed[0] * 1e7), round(closed[1] * 1e7))
            grazed.setdefault(key, []).append(c)
    crossed.sort()
    pairs: list[tuple[Cube, Cube]] = []
    for span in sorted(grazed):
        hexes = sorted(grazed[span])
        if len(hexes) != 2:  # pragma: no cover - geometry guarantees pairs
            raise AssertionError(f"hexside run {span} touches {hexes}")
        pairs.append((hexes[0], hexes[1]))
    return (tuple(c for _, c in crossed), tuple(pairs))


def _cube_round(fx: float, fy: float, fz: float) -> Cube:
    rx, ry, rz = round(fx), round(fy), round(fz)
    ddx, ddy, ddz = abs(rx - fx), abs(ry - fy), abs(rz - fz)
    if ddx > ddy and ddx > ddz:
        rx = -ry - rz
    elif ddy > ddz:
        ry = -rx - rz
    else:
        rz = -rx - ry
    return (int(rx), int(ry), int(rz))


@cache
def _offset_profile(parity: int, dcol: int, drow: int) -> LineProfile:
    # Offsets depend only on the firer's column parity: measure from 0101 or 0201.
    base_col = 1 if parity == 1 else 2
    bx, _, bz = _to_cube(base_col, 1)
    tx, ty, tz = _to_cube(base_col + dcol, 1 + drow)
    canon, perm, sign = _canonical((tx - bx, ty + bx + bz, tz - bz))
    crossed, pairs = _canonical_profile(canon)
    # Undo the symmetry (original[perm[i]] = sign * canonical[i]) and convert to offsets.
    ix, iz = perm.index(0), perm.index(2)

    def off(c: Cube) -> tuple[int, int]:
        x = bx + sign * c[ix]
        z = bz + sign * c[iz]
        return (x + 1 - base_col, z + (x - (x & 1)) // 2)

    return LineProfile(
        tuple(off(c) for c in crossed),
        tuple((off(p), off(q)) for p, q in pairs),
    )


@cache
def prepare_lines(columns: int, rows: int) -> int:
    """Compute every line profile a ``columns`` x ``rows`` map can ask for; returns the count.

    Optional: a profile is otherwise computed on first use (about 0.2 ms) and cached. Calling
    this once (about 0.2 s for 31 x 26; later calls are free) turns every ``line_of_sight``
    on that map into a look-up of a few microseconds.
    """
    count = 0
    for parity in (0, 1):
        for dcol in range(-(columns - 1), columns):
            for drow in range(-rows, rows + 1):
                _offset_profile(parity, dcol, drow)
                count += 1
    return count


def line_profile(a: Hex, b: Hex) -> LineProfile:
    """The crossing profile of the line from ``a`` to ``b`` as offsets from ``a`` (cached)."""
    return _offset_profile(a.col & 1, b.col - a.col, b.row - a.row)


def hexes_in_line(a: Hex, b: Hex) -> list[Hex]:
    """Every hex whose interior the centre-to-centre line passes through, ``a`` to ``b``.

    Both ends are included. Hexes the line only runs alongside (9.3) are not; see
    ``hexsides_along``. Hexes off the map edge may appear when the line hugs an edge.
    """
    if a == b:
        return [a]
    prof = line_profile(a, b)
    return [a, *(Hex(a.col + dc, a.row + dr) for dc, dr in prof.crossed), b]


def hexsides_along(a: Hex, b: Hex) -> list[tuple[Hex, Hex]]:
    """The hexsides the line from ``a`` to ``b`` runs along, as the pair of hexes sharing each."""
    prof = line_profile(a, b)
    return [
        (Hex(a.col + p[0], a.row + p[1]), Hex(a.col + q[0], a.row + q[1]))
        for p, q in prof.hexsides
    ]


def line_of_sight(a: Hex, b: Hex, blocking: Blocking) -> bool:
    """9.0: True if a unit in ``a`` can see ``b``.

    The line runs from centre to centre (9.1). It is blocked if it passes through any part
    of the interior of a blocking hex other than the two end hexes — LOS enters a blocking
    hex but never passes beyond it (9.2). Running along a hexside is not passing through
    either hex: it is blocked only when both hexes sharing that hexside are blocking (9.3).
    Touching a single vertex never blocks.

    ``blocking`` is a set of hexes (``Hex`` or plain ``(col, row)`` tuples) or a predicate.
    """
    ac, ar = a
    prof = _offset_profile(ac & 1, b[0] - ac, b[1] - ar)
    if isinstance(blocking, AbstractSet):
        for dc, dr in prof.crossed:
            if (ac + dc, ar + dr) in blocking:
                return False
        for (pc, pr), (qc, qr) in prof.hexsides:
            if (ac + pc, ar + pr) in blocking and (ac + qc, ar + qr) in blocking:
                return False
        return True
    for dc, dr in prof.crossed:
        if blocking(Hex(ac + dc, ar + dr)):
            return False
    for (pc, pr), (qc, qr) in prof.hexsides:
        if blocking(Hex(ac + pc, ar + pr)) and blocking(Hex(ac + qc, ar + qr)):
            return False
    return True


def visible_hexes(
    a: Hex, hexes: Iterable[Hex], blocking: Blocking
) -> Iterator[Hex]:
    """The hexes of ``hexes`` that a unit in ``a`` can see."""
    for h in hexes:
        if line_of_sight(a, h, blocking):
            yield h


def connected_groups(hexes: Iterable[Hex]) -> tuple[frozenset[Hex], ...]:
    """The hexes split into groups of mutually continuous hexes (25.6's hill groups),
    ordered by each group's lowest hex."""
    remaining = set(hexes)
    groups: list[frozenset[Hex]] = []
    while remaining:
        start = min(remaining)
        todo, group = [start], {start}
        remaining.discard(start)
        while todo:
            for near in neighbours(todo.pop()):
                if near in remaining:
                    remaining.discard(near)
                    group.add(near)
                    todo.append(near)
        groups.append(frozenset(group))
    return tuple(sorted(groups, key=min))
