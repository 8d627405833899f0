"""The Turning Point: Stalingrad map in the data pack agrees with every fact the rulebook states.

Each test names the rule it checks. Geometry is recomputed here from the polygons, not taken
from the loader's own checks.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence

import pytest

from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.data_models import Area, StalingradPack

Point = tuple[float, float]


@pytest.fixture(scope="module")
def pack() -> StalingradPack:
    return load_pack()


def edges(poly: Sequence[Point]) -> set[frozenset[Point]]:
    out = set()
    for i, a in enumerate(poly):
        b = poly[(i + 1) % len(poly)]
        if a != b:
            out.add(frozenset({(float(a[0]), float(a[1])), (float(b[0]), float(b[1]))}))
    return out


def inside(p: Point, poly: Sequence[Point]) -> bool:
    x, y = p
    hit = False
    for i, (x0, y0) in enumerate(poly):
        x1, y1 = poly[(i + 1) % len(poly)]
        if (y0 > y) != (y1 > y) and x0 + (y - y0) * (x1 - x0) / (y1 - y0) > x:
            hit = not hit
    return hit


def crosses(p1: Point, p2: Point, q1: Point, q2: Point) -> bool:
    def c(o: Point, a: Point, b: Point) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    return c(q1, q2, p1) * c(q1, q2, p2) < 0 and c(p1, p2, q1) * c(p1, p2, q2) < 0


# --------------------------------------------------------------------------- counts


def test_board_has_74_areas_and_8_zones_3_2_3_3(pack: StalingradPack) -> None:
    assert sorted(pack.areas) == list(range(1, 75))
    assert sorted(pack.zones) == list("ABCDEFGH")
    assert pack.space_keys()[:3] == ["1", "2", "3"] and pack.space_keys()[-1] == "H"


def test_every_space_has_key_tem_and_polygon_3_21_3_22(pack: StalingradPack) -> None:
    for space in pack.spaces():
        assert space.key in (str(getattr(space, "number", "")), getattr(space, "letter", ""))
        assert 1 <= space.tem <= 4
        assert len(space.polygon) >= 3
        assert space.source.startswith(("rulebook ", "reconstructed: "))


# ------------------------------------------------------------------- rulebook facts


def test_ferry_landings_glossary_18_3(pack: StalingradPack) -> None:
    assert set(pack.ferry_landings()) == {"31", "62", "63", "64", "67", "68", "70", "71", "H"}
    assert not pack.area(30).ferry_landing


def test_area_30_is_russian_supply_but_not_ferry_landing_12_1(pack: StalingradPack) -> None:
    assert pack.area(30).supply == "russian"
    assert pack.area(30).river_bank


def test_supply_sources_12_1(pack: StalingradPack) -> None:
    assert set(pack.supply_sources("german")) == set("CDEF")
    want_russian = set("ABGH") | {"31", "62", "63", "64", "67", "68", "70", "71", "30"}
    assert set(pack.supply_sources("russian")) == want_russian


def test_german_reinforcement_zones_c_to_f_6_2_18_2(pack: StalingradPack) -> None:
    for letter in "CDEF":
        zone = pack.zone(letter)
        assert zone.supply == "german"
        assert zone.initial_control == "german", "reinforcements are placed in friendly Zones"


def test_victory_points_total_28_19_1(pack: StalingradPack) -> None:
    assert pack.total_vp() == 28
    plain_banks = [a for a in pack.areas.values() if a.river_bank and not a.ferry_landing]
    assert len(plain_banks) == 7
    assert all(a.vp == 1 for a in plain_banks)
    assert all(pack.space(k).vp == 2 for k in pack.ferry_landings())
    assert pack.area(56).vp == 3
    others = [a for a in pack.areas.values() if not a.river_bank and a.number != 56]
    assert all(a.vp == 0 for a in others)


def test_zone_h_ferry_landing_initially_german_19_1(pack: StalingradPack) -> None:
    h = pack.zone("H")
    assert h.ferry_landing and h.vp == 2 and h.initial_control == "german"


def test_zone_b_arrow_to_area_3_8_2(pack: StalingradPack) -> None:
    assert 3 in pack.zone("B").arrows
    assert pack.adjacent("B", 3) and pack.adjacent(3, "B")


def test_initial_rubble_symbols_5_7(pack: StalingradPack) -> None:
    assert {a.number for a in pack.areas.values() if a.rubble_symbol} == {
        33, 59, 61, 62, 63, 64, 65, 66,
    }


def test_hills_have_triangular_ids_15_21(pack: StalingradPack) -> None:
    assert {a.number for a in pack.areas.values() if a.id_shape == "triangle"} == {23, 56}
    assert pack.area(23).name == "Hill 126.3"
    assert pack.area(56).name == "Mamayev Kurgan"
    assert "Hill 102" in pack.area(56).aliases


def test_hill_102_fires_three_areas_15_212(pack: StalingradPack) -> None:
    targets = pack.observation_targets(56)
    for n in (42, 53, 68):
        assert str(n) in targets
        distance = pack.distance(56, n)
        assert distance is not None and distance <= 3
    for n in (43, 52):
        assert str(n) not in targets
        distance = pack.distance(56, n)
        assert distance is not None and distance > 3


def test_hill_126_3_fires_two_areas_15_211(pack: StalingradPack) -> None:
    targets = pack.observation_targets(23)
    assert targets == pack.within(23, 2)
    assert all(pack.distance(23, t) in (1, 2) for t in targets)
    assert any(pack.distance(23, t) == 2 for t in targets)


def test_ordinary_observers_fire_adjacent_only_15_21(pack: StalingradPack) -> None:
    assert pack.observation_targets(35) == {k for k in pack.neighbours(35) if k.isdigit()}


def test_area_70_is_the_tractor_works_and_a_ferry_landing_13_2(pack: StalingradPack) -> None:
    area = pack.area(70)
    assert area.ferry_landing
    assert "Tractor Works" in (area.name or "")
    assert pack.tables.constants.armor_replacement_area == 70


def test_southern_quadrant_holds_the_sawmill_areas(pack: StalingradPack) -> None:
    south = set(pack.quadrant_areas("south"))
    assert {5, 33, 61, 62} <= south
    sawmill = pack.scenarios["sawmill"]
    assert set(sawmill.rubble_roll_areas) <= south  # scenario 1
    for placement in (*sawmill.german.placements, *sawmill.russian.placements):
        assert int(placement.area) in south  # scenario 2
    entry = sawmill.german.entry_zones or ()
    assert entry == ("B",)
    assert "south" in pack.zone("B").quadrants  # scenario 6: Zone B leads into the South
    assert sum(a.vp for a in pack.areas.values() if a.number in south) >= 4  # scenario 3


def test_quadrants_by_id_and_zone_arrows_15_31(pack: StalingradPack) -> None:
    by_key = {q.key: q for q in pack.quadrants}
    for area in pack.areas.values():
        assert inside(area.label, by_key[area.quadrant].polygon), area.number
    for zone in pack.zones.values():
        assert set(zone.quadrants) == {pack.area(a).quadrant for a in zone.arrows}
    for key in by_key:
        assert pack.quadrant_areas(key), f"the {key} Quadrant holds Areas"


def test_initial_control_by_id_shape_5_2(pack: StalingradPack) -> None:
    for area in pack.areas.values():
        assert area.initial_control == ("german" if area.id_shape == "square" else "russian")
    assert pack.area(56).initial_control == "russian"


# ---------------------------------------------------------- Players Notes examples

#: (a, b, adjacent?, where the rulebook says or implies it)
EXAMPLE_LINKS = [
    ("7", "6", True, "Example 1: infantry moves from Area 7 to 6"),
    ("7", "24", True, "Example 1: the Pioneer from Area 7 enters Area 24"),
    ("6", "24", True, "Example 1: the Fresh unit in 24 makes entering 6 cost two MF"),
    ("6", "25", True, "Example 1: 7 to 6 to 25; Example 3: may not enter 25 from 6"),
    ("24", "25", True, "Example 1: the Fresh unit in 24 makes entering 25 cost two MF"),
    ("25", "35", True, "Example 1: 25 to 35 for three MF; Examples 2, 3, 5"),
    ("24", "35", True, "Example 1: the infantry cannot go via Area 24 instead"),
    ("25", "34", True, "Example 1: a Fresh unit in 34 would make 25 cost two MF"),
    ("35", "36", True, "Example 2: Ranged Attack from 35 into 36; Example 3"),
    ("24", "36", True, "Example 3: the PAK enters Areas 24 and 36"),
    ("30", "31", True, "Example 4: the AA unit may retreat from 30 into 31"),
    ("6", "C", True, "Example 3: the FLAK withdraws from Area 6 via Zone C"),
    ("C", "D", True, "Example 3: Zones C, D, E, F to G"),
    ("D", "E", True, "Example 3"),
    ("E", "F", True, "Example 3"),
    ("F", "G", True, "Example 3"),
    ("B", "3", True, "8.2: Zone B to Area 3 by an arrow"),
    ("7", "25", False, "Example 1: the five-MF route 7-6-25-35 implies 7 does not touch 25"),
    ("7", "35", False, "Example 1: the infantry must pass through 6 and 25"),
    ("34", "6", False, "Example 1: a Fresh unit in 34 would raise only the cost of 25"),
]


@pytest.mark.parametrize(("a", "b", "linked", "where"), EXAMPLE_LINKS,
                         ids=[f"{a}-{b}" for a, b, *_ in EXAMPLE_LINKS])
def test_players_notes_adjacency(pack: StalingradPack, a: str, b: str, linked: bool,
                                 where: str) -> None:
    assert pack.adjacent(a, b) is linked, where
    assert pack.adjacent(b, a) is linked, f"{where} (symmetric)"


#: (Area, TEM, the arithmetic that fixes it)
EXAMPLE_TEMS = [
    (24, 2, "Example 1: Pioneer 4 + 1 = 5 vs 1-2-4: 2 + TEM = 4"),
    (35, 2, "Example 1: 3:3 vs a Spent 1; Example 5: 2 + 1 night + TEM = 5"),
    (36, 1, "Example 2: 1 + doubled TEM = 3"),
    (6, 2, "Example 3: 1 + TEM = 3"),
    (25, 2, "Example 3: 8:4 vs the 1-2-4, then 4:3 vs a Spent 1"),
    (30, 3, "Example 4: half of 6 + TEM + 1 Artillery = 7"),
    (62, 4, "17.3: Stuka 8 vs Spent Russian 3 + TEM = 7; 9 + 4 >= 13 creates Rubble"),
]


@pytest.mark.parametrize(("number", "tem", "where"), EXAMPLE_TEMS,
                         ids=[str(n) for n, *_ in EXAMPLE_TEMS])
def test_players_notes_tem_3_22(pack: StalingradPack, number: int, tem: int,
                                where: str) -> None:
    assert pack.area(number).tem == tem, where


def test_example_3_flak_walks_zones_c_d_e_f_g_11_1(pack: StalingradPack) -> None:
    path = ["6", "C", "D", "E", "F", "G"]
    for a, b in itertools.pairwise(path):
        assert pack.adjacent(a, b), f"{a}->{b}"


def test_example_1_infantry_route_costs_five_mf_8_23(pack: StalingradPack) -> None:
    # 7 -> 6 (1 MF) -> 25 (1 MF) -> 35 (3 MF, only Spent enemy) once 24's unit is Spent.
    costs = pack.tables.movement_costs
    route = ["7", "6", "25", "35"]
    assert all(pack.adjacent(a, b) for a, b in itertools.pairwise(route))
    assert costs.vacant + costs.vacant + costs.spent_enemy == 5


# ------------------------------------------------------------------------ geometry


def test_polygons_share_borders_exactly_where_areas_are_adjacent_3_2(
    pack: StalingradPack,
) -> None:
    owners: dict[frozenset[Point], set[str]] = defaultdict(set)
    for space in pack.spaces():
        for e in edges(space.polygon):
            owners[e].add(space.key)
    touching: dict[str, set[str]] = defaultdict(set)
    for keys in owners.values():
        for k in keys:
            touching[k] |= keys - {k}
    for area in pack.areas.values():
        assert touching[area.key] == {str(b) for b in area.borders}, area.number
    for zone in pack.zones.values():
        assert touching[zone.key] == set(zone.zones), zone.letter
    arrows = {(z.letter, a) for z in pack.zones.values() for a in z.arrows}
    assert arrows, "documented arrow links exist"
    for letter, number in arrows:
        assert str(number) not in touching[letter], "Zone-Area links are arrows (11.1)"


def test_polygons_are_simple_with_label_inside(pack: StalingradPack) -> None:
    for space in pack.spaces():
        poly = space.polygon
        n = len(poly)
        for i in range(n):
            for j in range(i + 2, n):
                if i == 0 and j == n - 1:
                    continue
                assert not crosses(poly[i], poly[(i + 1) % n], poly[j], poly[(j + 1) % n]), (
                    f"{space.key} edges {i} and {j} cross"
                )
        assert inside(space.label, poly), space.key


def test_areas_do_not_overlap(pack: StalingradPack) -> None:
    # Every label lies in exactly one Area polygon.
    for area in pack.areas.values():
        holders = [a.number for a in pack.areas.values() if inside(area.label, a.polygon)]
        assert holders == [area.number]


def test_graph_is_connected(pack: StalingradPack) -> None:
    seen = {"1"}
    todo = ["1"]
    while todo:
        for n in pack.neighbours(todo.pop()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    assert seen == set(pack.space_keys())


def test_adjacency_is_symmetric_8_2(pack: StalingradPack) -> None:
    for key in pack.space_keys():
        for n in pack.neighbours(key):
            assert key in pack.neighbours(n), f"{key} -> {n}"


def test_river_bank_areas_touch_the_volga_19_1(pack: StalingradPack) -> None:
    volga = edges(pack.volga.polygon)
    for area in pack.areas.values():
        assert bool(edges(area.polygon) & volga) == area.river_bank, area.number


def test_every_ferry_landing_is_a_river_bank_area_on_the_volga_glossary(
    pack: StalingradPack,
) -> None:
    volga = edges(pack.volga.polygon)
    for key in pack.ferry_landings():
        space = pack.space(key)
        if isinstance(space, Area):
            assert space.river_bank and edges(space.polygon) & volga, key


def test_no_area_touches_the_east_bank_18_3(pack: StalingradPack) -> None:
    east = edges(pack.east_bank.polygon)
    for area in pack.areas.values():
        assert not edges(area.polygon) & east, area.number
        xs = [p[0] for p in area.polygon]
        assert max(xs) < max(p[0] for p in pack.east_bank.polygon)


# ----------------------------------------------------------------------- geography


def test_city_strip_runs_north_south_along_the_volga_3_1(pack: StalingradPack) -> None:
    assert pack.board.height > 2 * pack.board.width  # the long axis runs north-south
    banks = [a for a in pack.areas.values() if a.river_bank]
    ys = sorted(a.label[1] for a in banks)
    assert ys[0] < pack.board.height * 0.1 and ys[-1] > pack.board.height * 0.9
    volga = pack.volga.polygon
    for area in pack.areas.values():
        x, y = area.label
        crossings = [
            x0 + (y - y0) * (x1 - x0) / (y1 - y0)
            for (x0, y0), (x1, y1) in zip(volga, [*volga[1:], volga[0]], strict=True)
            if (y0 > y) != (y1 > y)
        ]
        assert crossings and x < min(crossings), f"Area {area.number} lies west of the Volga"


def test_german_start_areas_lie_west_of_russian_ones_5_2(pack: StalingradPack) -> None:
    def mean_x(side: str) -> float:
        xs = [a.label[0] for a in pack.areas.values() if a.initial_control == side]
        return sum(xs) / len(xs)

    assert mean_x("german") + 2 < mean_x("russian")


def test_zones_ring_the_north_west_and_south_3_3(pack: StalingradPack) -> None:
    w, h = pack.board.width, pack.board.height
    for letter in "AB":
        assert pack.zone(letter).label[1] > h, f"Zone {letter} lies south"
    for letter in "CDEF":
        assert pack.zone(letter).label[0] < 0, f"Zone {letter} lies west"
    for letter in "GH":
        assert pack.zone(letter).label[1] < 0, f"Zone {letter} lies north"
    assert pack.zone("H").label[0] > w / 2, "Zone H reaches the Volga"
    for zone in pack.zones.values():
        assert all(not (0 <= x <= w and 0 <= y <= h) for x, y in zone.polygon)


def test_famous_places_are_named(pack: StalingradPack) -> None:
    names = {a.name for a in pack.areas.values()}
    for place in ("Mamayev Kurgan", "Grain Elevator", "Central Railway Station",
                  "Red Barricades", "Dzerzhinsky Tractor Works", "Kuibyshev Sawmill",
                  "Spartakovka", "Rynok", "Kuporosnoye", "Tennis Racket"):
        assert place in names


def test_names_and_aliases_identify_one_space(pack: StalingradPack) -> None:
    seen: dict[str, str] = {}
    for key, name, aliases in pack.name_entries():
        for text in (name, *aliases):
            if text:
                assert seen.setdefault(text.casefold(), key) == key, text


def test_space_lookup_by_number_or_letter(pack: StalingradPack) -> None:
    assert pack.space(56).key == "56" and pack.space("56").key == "56"
    assert pack.space("c").key == "C"
    assert pack.area("62").number == 62
    with pytest.raises(KeyError):
        pack.space(97)
    with pytest.raises(KeyError):
        pack.zone("Q")


def test_example_1_action_lies_in_the_south_central_quadrant_15_31(
    pack: StalingradPack,
) -> None:
    # "the Russian South-Central Artillery is Spent" matters only if 24 and 35 lie there.
    assert pack.area(24).quadrant == "south-central"
    assert pack.area(35).quadrant == "south-central"
    assert "south-central" in pack.zone("C").quadrants  # Zone C: arrow to Area 6 (Example 3)


def test_german_starts_with_zone_h_only_19_1(pack: StalingradPack) -> None:
    german_vp = sum(s.vp for s in pack.spaces() if s.initial_control == "german")
    assert german_vp == 2 and pack.zone("H").vp == 2
    # Zone H traces supply to a German supply Zone through German-controlled Zones (12.1).
    path = ["H", "G", "F"]
    assert all(pack.adjacent(a, b) for a, b in itertools.pairwise(path))
    assert all(pack.zone(z).initial_control == "german" for z in path)
    assert pack.zone("F").supply == "german"
