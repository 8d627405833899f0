"""Property tests of the hex geometry (9.0, 10.4) against independent constructions."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.tanks.hexgrid import (
    Hex,
    distance,
    hexes_in_line,
    hexsides_along,
    line_of_sight,
    neighbours,
)
from tests.hypothesis_profiles import examples

COLS, ROWS = 14, 12
hexes = st.builds(Hex, st.integers(1, COLS), st.integers(1, ROWS))
blocking_sets = st.frozensets(hexes, max_size=40)


# -- an independent oracle: exact polygon clipping in drawing coordinates --------------------
# Scale the drawing by 1/sqrt(3) vertically: a flat-topped hex of circumradius 1 then has the
# rational corners (+-1, 0), (+-1/2, +-1/2) and every centre is rational.

CORNERS = [(Fraction(1), Fraction(0)), (Fraction(1, 2), Fraction(1, 2)),
           (Fraction(-1, 2), Fraction(1, 2)), (Fraction(-1), Fraction(0)),
           (Fraction(-1, 2), Fraction(-1, 2)), (Fraction(1, 2), Fraction(-1, 2))]


def centre(h: Hex) -> tuple[Fraction, Fraction]:
    q = h.col - 1
    return (Fraction(3, 2) * q, Fraction(h.row - 1) + Fraction(q % 2, 2))


def clip(h: Hex, p0: tuple[Fraction, Fraction], p1: tuple[Fraction, Fraction],
         strict: bool) -> tuple[Fraction, Fraction, list[int]] | None:
    """Cyrus-Beck: t-range of the segment inside hex h; edges the segment lies on."""
    cx, cy = centre(h)
    lo, hi, on_edges = Fraction(0), Fraction(1), []
    for i in range(6):
        ax, ay = CORNERS[i]
        bx, by = CORNERS[(i + 1) % 6]
        ax, ay, bx, by = ax + cx, ay + cy, bx + cx, by + cy
        nx, ny = -(by - ay), bx - ax  # corners run anticlockwise: inward normal
        f0 = nx * (p0[0] - ax) + ny * (p0[1] - ay)
        fd = nx * (p1[0] - p0[0]) + ny * (p1[1] - p0[1])
        if fd == 0:
            if f0 < 0 or (strict and f0 == 0):
                return None
            if f0 == 0:
                on_edges.append(i)
            continue
        t = -f0 / fd
        if fd > 0:
            lo = max(lo, t)
        else:
            hi = min(hi, t)
    return (lo, hi, on_edges) if lo < hi else None


def around(a: Hex, b: Hex) -> list[Hex]:
    """Every hex the segment a-b could touch: its bounding box grown by one hex."""
    return [Hex(c, r)
            for c in range(min(a.col, b.col) - 1, max(a.col, b.col) + 2)
            for r in range(min(a.row, b.row) - 1, max(a.row, b.row) + 2)]


def oracle_los(a: Hex, b: Hex, blocking: frozenset[Hex]) -> bool:
    p0, p1 = centre(a), centre(b)
    region = around(a, b)
    runs: dict[tuple[Fraction, Fraction], list[Hex]] = {}
    for h in region:
        if h in (a, b):
            continue
        if clip(h, p0, p1, strict=True) is not None:
            if h in blocking:
                return False
            continue
        touched = clip(h, p0, p1, strict=False)
        if touched is not None:
            runs.setdefault((touched[0], touched[1]), []).append(h)
    for pair in runs.values():
        assert len(pair) == 2
        if all(h in blocking for h in pair):
            return False
    return True


@settings(max_examples=examples(300), deadline=None)
@given(hexes, hexes, blocking_sets)
def test_los_matches_exact_polygon_oracle_9_2_9_3(a: Hex, b: Hex, block: frozenset[Hex]) -> None:
    assert line_of_sight(a, b, block) == oracle_los(a, b, block)


@settings(max_examples=examples(200), deadline=None)
@given(hexes, hexes)
def test_crossed_hexes_match_polygon_oracle_9_2(a: Hex, b: Hex) -> None:
    p0, p1 = centre(a), centre(b)
    region = around(a, b)
    crossed = {h for h in region if clip(h, p0, p1, strict=True) is not None}
    assert set(hexes_in_line(a, b)) == crossed | {a, b}
    sides = {frozenset(p) for p in hexsides_along(a, b)}
    for pair in sides:
        assert not pair & crossed
        x, y = tuple(pair)
        assert distance(x, y) == 1


@settings(max_examples=examples(300), deadline=None)
@given(hexes, hexes, blocking_sets)
def test_los_is_symmetric_9_1(a: Hex, b: Hex, block: frozenset[Hex]) -> None:
    assert line_of_sight(a, b, block) == line_of_sight(b, a, block)


@settings(max_examples=examples(200), deadline=None)
@given(hexes, hexes, blocking_sets)
def test_blocking_end_hexes_never_matter_9_2(a: Hex, b: Hex, block: frozenset[Hex]) -> None:
    assert line_of_sight(a, b, block) == line_of_sight(a, b, block | {a, b})


@settings(max_examples=examples(300), deadline=None)
@given(hexes, hexes, hexes)
def test_range_is_a_metric_10_4(a: Hex, b: Hex, c: Hex) -> None:
    assert distance(a, b) == distance(b, a)
    assert (distance(a, b) == 0) == (a == b)
    assert distance(a, c) <= distance(a, b) + distance(b, c)


@settings(max_examples=examples(200), deadline=None)
@given(hexes, hexes)
def test_range_steps_down_by_one_towards_the_target_10_4(a: Hex, b: Hex) -> None:
    d = distance(a, b)
    if d:
        assert min(distance(n, b) for n in neighbours(a)) == d - 1
    assert all(abs(distance(n, b) - d) <= 1 for n in neighbours(a))


@given(st.integers(0, 99), st.integers(0, 99))
def test_hex_name_round_trips_2_0(col: int, row: int) -> None:
    h = Hex(col, row)
    assert Hex.parse(str(h)) == h


@given(hexes)
def test_adjacency_is_mutual_2_0(h: Hex) -> None:
    for n in neighbours(h):
        assert h in neighbours(n)
    assert len(set(neighbours(h))) == 6
