"""Hex numbering, neighbours, range, facing arcs and scatter geometry (2.0, 8.0, 10.4, 18, 22)."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator

import pytest

from adjudicator.tanks.hexgrid import (
    Arc,
    Direction,
    Hex,
    HexError,
    arc_of,
    barrage_hexes,
    direction_to,
    distance,
    front_zone,
    neighbour,
    neighbours,
    pixel_centre,
)


def test_hex_names_are_xxyy_column_then_row_25_3() -> None:
    h = Hex.parse("2413")
    assert (h.col, h.row) == (24, 13)
    assert str(h) == "2413"
    assert str(Hex(1, 1)) == "0101"
    assert Hex.parse(Hex(3, 4)) == Hex(3, 4)


@pytest.mark.parametrize("bad", ["241", "24135", "24a3", "", "2413 x", "٢٤١٣"])
def test_hex_name_must_be_four_digits(bad: str) -> None:
    with pytest.raises(HexError, match="four digits"):
        Hex.parse(bad)


def test_neighbour_rule_odd_and_even_columns_2_0() -> None:
    # Odd columns sit half a hex higher: 0101 is the north-west corner.
    assert neighbours(Hex.parse("0303")) == tuple(
        Hex.parse(n) for n in ("0302", "0402", "0403", "0304", "0203", "0202")
    )
    assert neighbours(Hex.parse("0404")) == tuple(
        Hex.parse(n) for n in ("0403", "0504", "0505", "0405", "0305", "0304")
    )


@pytest.mark.parametrize("name", ["0101", "0202", "1507", "2413", "3126", "3125"])
def test_neighbours_are_the_six_hexes_one_hex_width_away_2_0(name: str) -> None:
    # Independent of the cube arithmetic: adjacent centres are sqrt(3) apart on the drawing.
    h = Hex.parse(name)
    cx, cy = pixel_centre(h)
    near = {
        Hex(c, r)
        for c in range(h.col - 2, h.col + 3)
        for r in range(h.row - 2, h.row + 3)
        if math.isclose(math.dist((cx, cy), pixel_centre(Hex(c, r))), math.sqrt(3))
    }
    assert set(neighbours(h)) == near
    for d in Direction:
        assert direction_to(h, neighbour(h, d)) is d


def test_direction_order_is_clockwise_from_north_8_0() -> None:
    h = Hex.parse("1010")
    angles = []
    for d in Direction:
        x, y = pixel_centre(neighbour(h, d))
        cx, cy = pixel_centre(h)
        angles.append(math.degrees(math.atan2(x - cx, cy - y)) % 360)  # compass bearing
    assert angles == pytest.approx([0, 60, 120, 180, 240, 300])


def _bfs(a: Hex, b: Hex) -> int:
    seen, todo = {a: 0}, deque([a])
    while todo:
        h = todo.popleft()
        if h == b:
            return seen[h]
        for n in neighbours(h):
            if n not in seen and -3 <= n.col <= 40 and -3 <= n.row <= 40:
                seen[n] = seen[h] + 1
                todo.append(n)
    raise AssertionError("unreachable")


@pytest.mark.parametrize(
    ("a", "b"), [("0101", "3126"), ("1213", "2413"), ("1213", "1223"), ("2926", "3125"),
                 ("0505", "0606"), ("1010", "1010")]
)
def test_range_counts_target_hex_not_firer_hex_10_4(a: str, b: str) -> None:
    ha, hb = Hex.parse(a), Hex.parse(b)
    assert distance(ha, hb) == _bfs(ha, hb)
    for n in neighbours(ha):
        assert distance(ha, n) == 1  # adjacent: the target's hex is the one counted


def test_front_hexsides_are_the_three_a_tank_may_move_into_8_2() -> None:
    assert Direction.N.front_hexsides() == (Direction.NW, Direction.N, Direction.NE)
    assert Direction.S.rear_hexside() is Direction.N
    assert Direction.NW.turned(1) is Direction.N
    h = Hex.parse("1010")
    for facing in Direction:
        for d in Direction:
            attacker = neighbour(h, d)
            expected = (
                Arc.FRONT if d in facing.front_hexsides()
                else Arc.REAR if d is facing.rear_hexside()
                else Arc.FLANK
            )
            assert arc_of(h, facing, attacker) is expected, (facing, d)


def _bearing_off_facing(target: Hex, facing: Direction, attacker: Hex) -> float:
    tx, ty = pixel_centre(target)
    ax, ay = pixel_centre(attacker)
    bearing = math.degrees(math.atan2(ax - tx, ty - ay)) % 360
    off = abs(bearing - (facing.value - 1) * 60) % 360
    return min(off, 360 - off)


ARC_TARGET = Hex.parse("1513")


def _attackers_around_target() -> Iterator[tuple[Direction, Hex, float]]:
    """Each facing of ``ARC_TARGET`` with each attacker around it and its bearing off the
    facing, in degrees."""
    for facing in Direction:
        for c in range(5, 26):
            for r in range(3, 24):
                attacker = Hex(c, r)
                if attacker != ARC_TARGET:
                    yield facing, attacker, _bearing_off_facing(ARC_TARGET, facing, attacker)


def test_front_arc_is_120_degrees_centred_on_the_facing_8_5() -> None:
    for facing, attacker, off in _attackers_around_target():
        arc = arc_of(ARC_TARGET, facing, attacker)
        assert (arc is Arc.FRONT) == (off <= 60 + 1e-9), (facing, attacker, off)
        assert (arc is Arc.REAR) == (off > 120 + 1e-9), (facing, attacker, off)


def test_full_frontal_face_is_the_central_60_degrees_22_0() -> None:
    for facing, attacker, off in _attackers_around_target():
        zone = front_zone(ARC_TARGET, facing, attacker)
        if off > 60 + 1e-9:
            assert zone is None
        else:
            assert zone == ("centre" if off <= 30 + 1e-9 else "edge"), (facing, attacker)


def test_barrage_covers_target_and_six_adjacent_hexes_18_3() -> None:
    h = Hex.parse("1617")
    hexes = barrage_hexes(h)
    assert hexes[0] == h and len(set(hexes)) == 7
    assert all(distance(h, x) <= 1 for x in hexes)


def test_a_maps_edge_distances_are_the_range_to_the_nearest_edge_hex_10_4() -> None:
    """The set-up zones' least distances from an edge (the scenarios' rules), kept per map
    and worked out per edge at first use, are the range (10.4) to the edge's nearest hex:
    for every hex of the map, both map classes, every edge, and hexes off the map."""
    from adjudicator.tanks.data import load_pack
    from adjudicator.tanks.spec import rules_data

    pack_map = load_pack().map
    spec_map = rules_data().map
    for edge in "NESW":
        edge_hexes = pack_map.edge_hexes(edge)
        assert sorted(edge_hexes) == sorted(spec_map.edge_hexes(edge))
        for h in (*pack_map.hexes, Hex(0, 0), Hex(pack_map.columns + 3, 5)):
            nearest = min(distance(h, e) for e in edge_hexes)
            assert pack_map.edge_distance(h, edge) == nearest, (h, edge)
            assert spec_map.edge_distance(h, edge) == nearest, (h, edge)
