"""Line of sight, 9.0, with the rulebook diagram's cases written out as coordinates.

The diagram is not reproduced in the transcription, only its captions: "B can see F; B can see
E; B to C is blocked (9.2); B to D is blocked (9.3); A can see C (9.3)". The layout below
realises each caption on our grid:

    woods W1 = 1009, W2 = 1110, W3 = 1211      B = 1010 (W1 is B's N neighbour, W2 its NE one)

    B -> C 1008: the line runs through the middle of W1                 blocked (9.2)
    B -> D 1207: the line runs along the hexside W1|W2 (both woods)      blocked (9.3)
    A 0910 -> C: the line runs along the hexside 0909|W1 (one woods)     clear   (9.3)
    B -> E 1211: E is itself woods; LOS enters it                        clear   (9.2)
    B -> F 1311: the line threads between W2 and W3 through clear hexes  clear
"""

from __future__ import annotations

import pytest

from adjudicator.tanks.hexgrid import Hex, hexes_in_line, hexsides_along, line_of_sight

H = Hex.parse
W1, W2, W3 = H("1009"), H("1110"), H("1211")
WOODS = frozenset({W1, W2, W3})
A, B, C, D, E, F = H("0910"), H("1010"), H("1008"), H("1207"), H("1211"), H("1311")


def test_diagram_b_to_c_blocked_by_a_woods_hex_on_the_line_9_2() -> None:
    assert W1 in hexes_in_line(B, C)[1:-1]
    assert not line_of_sight(B, C, WOODS)
    assert line_of_sight(B, C, WOODS - {W1})


def test_diagram_b_to_d_blocked_along_a_hexside_of_two_blocking_hexes_9_3() -> None:
    # No woods interior is crossed: the block comes from the hexside rule alone.
    assert not WOODS & set(hexes_in_line(B, D))
    assert (W1, W2) in [tuple(sorted(p)) for p in hexsides_along(B, D)]
    assert not line_of_sight(B, D, WOODS)
    assert line_of_sight(B, D, WOODS - {W2})
    assert line_of_sight(B, D, WOODS - {W1})


def test_diagram_a_sees_c_along_a_hexside_of_one_blocking_hex_9_3() -> None:
    assert not WOODS & set(hexes_in_line(A, C))
    assert (H("0909"), W1) in [tuple(sorted(p)) for p in hexsides_along(A, C)]
    assert line_of_sight(A, C, WOODS)
    assert not line_of_sight(A, C, WOODS | {H("0909")})


def test_diagram_b_sees_e_los_penetrates_into_a_blocking_hex_9_2() -> None:
    assert E in WOODS
    assert line_of_sight(B, E, WOODS)
    # ... but never beyond it: the hex behind E on the same line is hidden.
    beyond = H("1312")
    assert E in hexes_in_line(B, beyond)
    assert not line_of_sight(B, beyond, WOODS)


def test_diagram_b_sees_f_between_two_woods_hexes_9_1() -> None:
    line = hexes_in_line(B, F)
    assert not WOODS & set(line) and not hexsides_along(B, F)
    assert line_of_sight(B, F, WOODS)


def test_firer_in_blocking_hex_can_fire_out_9_2() -> None:
    assert line_of_sight(W1, H("1005"), WOODS)
    assert line_of_sight(H("1005"), W1, WOODS)


def test_touching_only_a_corner_of_a_blocking_hex_does_not_block_9_2() -> None:
    # 0101 -> 0205 passes exactly through two hex corners, grazing 0202 and 0104 at a point.
    a, b = H("0101"), H("0205")
    assert [str(h) for h in hexes_in_line(a, b)] == ["0101", "0102", "0103", "0203", "0204",
                                                     "0205"]
    assert line_of_sight(a, b, {H("0202"), H("0104")})
    assert not line_of_sight(a, b, {H("0203")})


def test_hills_and_buildings_block_like_woods_9_2() -> None:
    # Blocking terrain is whatever the caller passes: a predicate works as well as a set.
    hill = {W1}
    assert not line_of_sight(B, C, lambda h: h in hill)
    assert line_of_sight(B, H("1012"), lambda h: h in hill)


def test_adjacent_and_same_hex_always_visible_9_1() -> None:
    assert line_of_sight(B, B, WOODS)
    for h in (W1, W2):
        assert line_of_sight(B, h, WOODS)


@pytest.mark.parametrize(("a", "b"), [("0101", "0301"), ("0201", "0401")])
def test_line_along_the_map_edge_runs_along_hexsides_9_3(a: str, b: str) -> None:
    sides = hexsides_along(H(a), H(b))
    assert len(sides) == 1
    p, q = sides[0]
    assert abs(p.row - q.row) == 1 and p.col == q.col
    assert line_of_sight(H(a), H(b), {p})
    assert not line_of_sight(H(a), H(b), {p, q})
