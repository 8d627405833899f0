"""The reconstructed map (2.0) against every scenario (25.1-25.7)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from adjudicator.tanks.data import TanksPack, load_pack
from adjudicator.tanks.data_models import Edge, Kind, Side, Terrain
from adjudicator.tanks.hexgrid import Hex, distance, hexes_in_line, hexsides_along

H = Hex.parse


@pytest.fixture(scope="module")
def pack() -> TanksPack:
    return load_pack()


def test_map_holds_every_hex_the_scenarios_name_25_3_25_7(pack: TanksPack) -> None:
    m = pack.map
    assert m.columns >= 31 and m.rows >= 26
    for name in ("2413", "1213", "1223", "2926", "3125"):
        assert H(name) in m


def test_map_has_the_features_of_2_0(pack: TanksPack) -> None:
    m = pack.map
    for t in Terrain:
        assert m.hexes_of(t), t
    assert len(m.bridges) == 1
    (bridge,) = m.bridges
    assert m.terrain[bridge] is Terrain.STREAM and bridge in m.road_hexes  # 7.7
    # A stream other than at the bridge never carries the road.
    assert all(m.terrain[h] is not Terrain.STREAM for h in m.road_hexes - m.bridges)


def test_road_runs_north_to_south_edge_2_0_25_1(pack: TanksPack) -> None:
    m = pack.map
    (road,) = m.roads
    assert Edge.N in m.edges_of(road[0]) and Edge.S in m.edges_of(road[-1])
    assert all(distance(a, b) == 1 for a, b in pairwise(road))
    assert all(m.terrain[h] in (Terrain.CLEAR, Terrain.STREAM) for h in road)


def test_stream_crosses_the_map_west_to_east_2_0(pack: TanksPack) -> None:
    m = pack.map
    stream = m.hexes_of(Terrain.STREAM)
    start = [h for h in stream if Edge.W in m.edges_of(h)]
    seen, todo = set(start), list(start)
    while todo:
        for n in m.neighbours(todo.pop()):
            if n in stream and n not in seen:
                seen.add(n)
                todo.append(n)
    assert any(Edge.E in m.edges_of(h) for h in seen)


def test_village_buildings_stand_by_the_road_2_0(pack: TanksPack) -> None:
    m = pack.map
    buildings = m.hexes_of(Terrain.BUILDING)
    assert len(buildings) >= 4
    assert all(any(n in m.road_hexes for n in m.neighbours(b)) for b in buildings)


def test_high_ground_has_several_hill_groups_25_6(pack: TanksPack) -> None:
    groups = pack.map.hill_groups
    assert len(groups) >= 3 and len(groups) % 2 == 1  # an odd count makes ties rarer
    assert any(len(g) == 1 for g in groups)  # "either one hill hex ..."
    hills = pack.map.hexes_of(Terrain.HILL)
    assert set().union(*groups) == hills
    for g in groups:  # groups are maximal: no hill hex outside touches one inside
        assert not any(n in hills - g for h in g for n in pack.map.neighbours(h))
    north = [g for g in groups if min(h.row for h in g) <= 13]
    south = [g for g in groups if min(h.row for h in g) > 13]
    assert north and south


def test_kursk_soviet_zone_lies_on_or_south_of_the_named_line_25_3(pack: TanksPack) -> None:
    s = pack.scenario("kursk-salient")
    (setup,) = s.setup
    zone = pack.map.zone_hexes(setup.zone)
    for name in ("2413", "1213", "1223"):
        assert H(name) in zone
    assert all(h.row >= 13 and h.col >= 12 for h in zone)
    assert H("2412") not in zone and H("1113") not in zone
    assert s.mines[0].count == 6 and s.mines[0].in_setup_zone


def test_gauntlet_entry_and_setup_25_7(pack: TanksPack) -> None:
    s = pack.scenario("gauntlet")
    force1 = next(e for e in s.entry if e.group == "force-1")
    assert [str(h) for h in force1.hexes] == ["2926", "3026", "3126"]
    for h in force1.hexes:
        assert Edge.S in pack.map.edges_of(h)
        assert pack.terrain_effect(pack.map.terrain[h]).move_cost[Kind.TANK] != "prohibited"
    (setup,) = s.setup
    zone = pack.map.zone_hexes(setup.zone)
    assert setup.face_down
    assert max(h.row for h in zone) == pack.map.rows - 2  # two hexes from the south edge
    assert all(pack.map.edge_distance(h, "S") >= 2 for h in zone)
    assert sum(f.count for f in s.forces(Side.SOVIET, "force-2")) == 3


def test_first_encounter_germans_enter_on_the_road_25_1(pack: TanksPack) -> None:
    s = pack.scenario("25.1")
    german = next(e for e in s.entry if e.side is Side.GERMAN)
    assert german.road_only_until_enemy_enters and german.edges == [Edge.N]
    assert any(Edge.N in pack.map.edges_of(h) for h in pack.map.road_hexes)
    soviet = next(e for e in s.entry if e.side is Side.SOVIET)
    assert soviet.same_edge_and_turn and soviet.turns == [1, 2, 3]


@pytest.mark.parametrize(
    ("scenario", "german", "soviet"),
    [("25.1", 16, 11), ("25.2", 15, 20), ("25.3", 33, 17), ("25.4", 22, 30),
     ("25.5", 23, 20), ("25.6", 15, 20), ("25.7", 8, 20)],
)
def test_force_totals_match_the_scenario_lists_25(pack: TanksPack, scenario: str, german: int,
                                                  soviet: int) -> None:
    s = pack.scenario(scenario)
    assert sum(f.count for f in s.forces(Side.GERMAN)) == german
    assert sum(f.count for f in s.forces(Side.SOVIET)) == soviet


def test_doubtful_names_are_resolved_and_recorded_25_3_25_7(pack: TanksPack) -> None:
    kursk = pack.scenario("kursk-salient")
    iid = next(f for f in kursk.force if f.printed == "4(IId)")
    assert iid.unit == "iia" and iid.source.startswith("reconstructed: ")
    gauntlet = pack.scenario("gauntlet")
    jus = next(f for f in gauntlet.force if f.printed == "2(JUS122)")
    assert jus.unit == "jsu122"
    assert pack.unit("JUS122").id == "jsu122"


def test_victory_levels_cover_every_score_25_2_25_5_25_7(pack: TanksPack) -> None:
    def result(scenario: str, score: int) -> tuple[str | None, str]:
        v = pack.scenario(scenario).victory
        (lv,) = [lv for lv in v.level
                 if (lv.min is None or lv.min <= score) and (lv.max is None or score <= lv.max)]
        return (lv.winner.value if lv.winner else None, lv.degree)

    assert result("pakfront", 18) == ("soviet", "decisive")
    assert result("pakfront", 17) == ("soviet", "marginal")
    assert result("pakfront", 10) == ("german", "marginal")
    assert result("pakfront", 9) == ("german", "decisive")
    assert result("close-to-the-end", 25) == ("soviet", "victory")
    assert result("close-to-the-end", 10) == (None, "draw")
    assert result("close-to-the-end", -40) == ("german", "victory")
    assert result("gauntlet", 0) == ("german", "decisive")
    assert result("gauntlet", 6) == (None, "draw")
    assert result("gauntlet", 7) == ("soviet", "marginal")


def test_kursk_counterattack_artillery_is_advanced_only_25_4(pack: TanksPack) -> None:
    s = pack.scenario("kursk-counterattack")
    assert s.level == "basic-or-advanced"
    assert {a.side for a in s.artillery} == {Side.GERMAN, Side.SOVIET}
    assert all(a.advanced_only and a.weight == "light" and a.per_turn == 1 for a in s.artillery)


def test_every_scenario_force_can_reach_the_map_25(pack: TanksPack) -> None:
    for s in pack.scenarios.values():
        for f in s.force:
            placed = [z for z in s.setup if z.side is f.side and z.group in ("", f.group)]
            enters = [e for e in s.entry if e.side is f.side and e.group in ("", f.group)]
            assert placed or enters, (s.id, f.unit)


def test_shipped_map_blocks_sight_through_woods_buildings_and_hills_9_2(pack: TanksPack) -> None:
    m = pack.map
    assert m.blocking == m.hexes_of("woods") | m.hexes_of("building") | m.hexes_of("hill")
    for a in (H("1708"), H("0101"), H("2214"), H("2926")):
        seen = m.visible_from(a)
        assert a in seen and len(seen) < len(m.hexes)
        for h in m.hexes:
            crossed = set(hexes_in_line(a, h)[1:-1])
            walls = [p for p in hexsides_along(a, h) if set(p) <= m.blocking]
            assert (h in seen) == (not crossed & m.blocking and not walls), (a, h)
