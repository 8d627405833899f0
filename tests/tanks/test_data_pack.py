"""The shipped data pack: rulebook values, reconstructed tables and the worked examples."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from adjudicator.tanks.data import (
    DEFAULT_PACK,
    TanksPack,
    check_pack,
    load_pack,
    pack_hash,
    shift_armor_class,
    summary,
)
from adjudicator.tanks.data_models import ARMOR_CLASSES, Kind, Side, Terrain, provenance
from adjudicator.tanks.hexgrid import Hex, neighbours, scatter


@pytest.fixture(scope="module")
def pack() -> TanksPack:
    return load_pack()


def test_shipped_pack_is_valid_and_cached_25_0() -> None:
    assert check_pack(DEFAULT_PACK) == []
    assert load_pack() is load_pack(DEFAULT_PACK)
    assert load_pack().manifest.game == "tanks"


# -- 3.0 counters ----------------------------------------------------------------------------

UNIT_TYPES_3_0 = {
    Side.GERMAN: ["IIa", "IIIg", "IIIj", "IVd", "IVfz", "IVh", "Panth.", "Tig 1", "Tig 2",
                  "Stug b", "Stug g", "Nash", "Hetzer", "PzJg V", "PzJg VI", "El", "75",
                  "88 Flak", "88 Pak", "Inf", "HT"],
    Side.SOVIET: ["BT-7", "T34a", "T34b", "T34c", "KVIa", "KVIc", "T34/85", "KV85", "JSII",
                  "SU76", "SU85", "SU100", "SU122", "SU152", "JSU122", "JSU152", "57", "76",
                  "Inf"],
}


def test_every_unit_type_of_3_0_is_in_the_pack_3_0(pack: TanksPack) -> None:
    for side, labels in UNIT_TYPES_3_0.items():
        have = sorted(u.label for u in pack.units.values() if u.side is side)
        assert have == sorted(labels)


@pytest.mark.parametrize(
    ("unit", "ap", "at", "circled", "armor", "mf"),
    [
        ("panther", 15, 40, True, "C", 6),   # 3.0 sample counter
        ("stug-g", 15, 27, False, "E", 5),   # 3.0 sample counter
        ("inf-de", 6, 4, False, 6, 2),       # 3.0 sample counter
        ("flak-88", 20, 30, False, 6, 2),    # 3.0 sample counter
        ("ht", 0, 0, False, "J", 6),         # 3.0 sample counter
    ],
)
def test_sample_counters_3_0(pack: TanksPack, unit: str, ap: int, at: int, circled: bool,
                             armor: str | int, mf: int) -> None:
    u = pack.units[unit]
    assert (u.ap, u.at, u.at_circled, u.mf) == (ap, at, circled, mf)
    assert (u.armor_class if u.armored else u.defense) == armor
    assert provenance(u.source) == "rulebook"


def test_values_given_in_rule_text_3_0(pack: TanksPack) -> None:
    assert pack.units["ivh"].at == 27  # 10.5
    assert pack.units["t34a"].at == 18  # 21.0
    assert pack.units["t34a"].mf == 6  # 8.3: "five hexes, not six"
    assert pack.units["kvia"].mf == 5  # 6.4
    assert pack.units["tiger-2"].armor_class == "B"  # 10.7
    assert pack.units["inf-su"].defense == 5  # 12.1, 13.3
    assert pack.units["inf-su"].at == 4  # 15.3: "the infantry's Anti-Tank Factor (four)"
    for uid, field in [("ivh", "at"), ("t34a", "at"), ("kvia", "mf"), ("tiger-2", "armor_class"),
                       ("inf-su", "defense")]:
        assert provenance(pack.units[uid].source_of(field)) == "rulebook", (uid, field)


def test_unit_flags_follow_kind_3_0_8_6_8_7(pack: TanksPack) -> None:
    for u in pack.units.values():
        assert u.sp == (u.kind is Kind.SP_GUN)
        assert u.turret == (u.kind is Kind.TANK)
        assert u.armored == (u.kind in (Kind.TANK, Kind.SP_GUN, Kind.HALFTRACK))
        assert u.has_facing == (u.kind in (Kind.TANK, Kind.SP_GUN))  # 8.1
        if u.at_circled:
            assert u.side is Side.GERMAN  # 11.2


def test_unit_lookup_by_label_and_alias_3_0(pack: TanksPack) -> None:
    assert pack.unit("Panth.").id == "panther"
    assert pack.unit("88Pak").id == "pak-88"
    assert pack.unit("Inf", side="soviet").id == "inf-su"
    with pytest.raises(KeyError, match="ambiguous"):
        pack.unit("Inf")


# -- 10.0-14.0 tables and the worked examples -------------------------------------------------


def test_to_hit_table_and_range_six_example_10_4(pack: TanksPack) -> None:
    assert pack.to_hit_need(6) == 8  # "The range is six hexes ... eight or less"
    assert pack.to_hit_need(1) is None  # adjacent: automatic
    assert pack.to_hit_need(1, mobile=True) == 9
    assert [pack.to_hit_need(r) for r in (2, 5, 12, 13, 19, 20, 60)] == [9, 9, 8, 7, 7, 6, 6]


def test_hit_effects_rows_a_and_b_as_printed_10_5(pack: TanksPack) -> None:
    rows = {r.class_: r.values for r in pack.tables.hit_effects.row}
    assert rows["A"] == ["-", "-", "-", "-", 2, 3, 4, 5, 6, 7]
    assert rows["B"][:9] == ["-", "-", "-", 2, 3, 4, 5, 6, 7]


def test_panzer_ivh_at_27_against_class_e_needs_7_10_5(pack: TanksPack) -> None:
    assert pack.hit_effect(pack.units["ivh"].at, "E") == 7
    assert pack.hit_effect(25, "E") == pack.hit_effect(29, "E") == 7


def test_hit_effects_rows_c_to_j_follow_the_pattern_of_a_and_b_10_5(pack: TanksPack) -> None:
    he = pack.tables.hit_effects
    rows = {r.class_: r.values for r in he.row}
    assert list(rows) == list(ARMOR_CLASSES)

    def rank(v: int | str) -> int:
        return 1 if v == "-" else 12 if v == "X" else int(v)

    # Each class down is one column easier: the row is row A shifted left, "-" below 2 and "X"
    # once the roll would be 12 or more (two dice can roll no higher).
    for k, cls in enumerate(ARMOR_CLASSES):
        for c, value in enumerate(rows[cls]):
            n = rank(rows["A"][c]) + k if rows["A"][c] != "-" else 2 + c + k - 4
            expected = "-" if n < 2 else "X" if n >= 12 else n
            assert value == expected, (cls, he.columns[c])
    assert "X" in rows["J"] and "X" not in rows["E"]
    assert pack.hit_effect(0, "J") == "-"  # AT factor 0 (the HT) has no effect


def test_hit_effects_provenance_marks_reconstructed_cells_10_5(pack: TanksPack) -> None:
    he = pack.tables.hit_effects
    for row in he.row:
        for col in he.columns:
            kind = provenance(row.cell_sources.get(col, row.source))
            printed = row.class_ == "A" or (row.class_ == "B" and col != "45+") or (
                row.class_ == "E" and col == "25-29")
            assert kind == ("rulebook" if printed else "reconstructed"), (row.class_, col)


def test_panther_moved_firing_at_hill_target_drm_plus_4_11_4(pack: TanksPack) -> None:
    drm = {d.condition: d.value for d in pack.tables.drm if d.table == "anti-tank"}
    assert pack.units["panther"].at_circled
    assert drm["accuracy"] + drm["mobile-fire"] + drm["target-hill"] == 4
    assert pack.terrain_effect("hill").at_to_hit_drm == drm["target-hill"]
    assert pack.terrain_effect("woods").at_to_hit_drm == drm["target-woods"] == 2


def test_tiger_2_on_a_hill_is_class_a_and_c_from_the_flank_10_7(pack: TanksPack) -> None:
    t2 = pack.units["tiger-2"]
    assert t2.armor_class is not None and not t2.armor_circled
    hill = pack.terrain_effect("hill").armor_class_shift
    flank = int(pack.constant("flank_shift_plain"))
    assert shift_armor_class(t2.armor_class, hill) == "A"
    assert shift_armor_class(t2.armor_class, hill - flank) == "C"


def test_flank_shot_lowers_class_two_or_one_if_circled_8_5(pack: TanksPack) -> None:
    p = pack.units["panther"]
    assert p.armor_class is not None
    assert shift_armor_class(p.armor_class, -int(pack.constant("flank_shift_plain"))) == "E"
    assert shift_armor_class("E", -int(pack.constant("flank_shift_circled"))) == "F"
    assert shift_armor_class("A", 1) == "A"  # 22.0: never above A
    assert shift_armor_class("I", -2) == "J"  # ruling: past J reads row J


def test_anti_personnel_odds_rounded_for_the_defender_13_3(pack: TanksPack) -> None:
    ap = pack.units["panther"].ap
    assert pack.anti_personnel_need(ap, pack.units["inf-su"].defense or 0) == ("3-1", 8)
    doubled = (pack.units["inf-su"].defense or 0) * pack.terrain_effect("woods").defense_multiplier
    assert doubled == 10  # 12.1
    # 13.3/13.4: 15-10 is 1-1; the table says 6 (the example's "seven" is overruled).
    assert pack.anti_personnel_need(15, doubled) == ("1-1", 6)
    assert pack.anti_personnel_need(1, 5) is None
    assert pack.anti_personnel_need(99, 1) == ("6-1", 11)


def test_panzer_iv_needs_7_to_hit_infantry_at_range_4_13_3(pack: TanksPack) -> None:
    ap_drm = sum(d.value for d in pack.tables.drm
                 if d.table == "anti-personnel" and d.condition == "all")
    assert (pack.to_hit_need(4) or 0) - ap_drm == 7


def test_movement_examples_6_4_7_2_7_3(pack: TanksPack) -> None:
    half = float(pack.constant("second_movement_fraction"))
    road = pack.tables.road.first_movement_multiplier
    assert math.floor(pack.units["kvia"].mf * half) == 2  # 6.4
    assert math.floor(pack.units["panther"].mf * road[Kind.TANK]) == 9  # 7.2
    assert math.floor(pack.units["kvia"].mf * road[Kind.TANK]) == 7  # 7.2
    assert pack.units["kvia"].mf - 3 == pack.terrain_effect("hill").move_cost[Kind.TANK]  # 7.3
    assert pack.units["t34a"].mf - int(pack.constant("facing_change_cost")) == 5  # 8.3


def test_terrain_effects_chart_7_0_9_2_12_0(pack: TanksPack) -> None:
    te = {t: pack.terrain_effect(t) for t in Terrain}
    assert {t for t, e in te.items() if e.blocks_los} == {Terrain.HILL, Terrain.WOODS,
                                                           Terrain.BUILDING}
    assert te[Terrain.WOODS].move_cost[Kind.INFANTRY] == 1
    assert te[Terrain.SWAMP].move_cost[Kind.HALFTRACK] == "prohibited"
    assert te[Terrain.STREAM].move_cost[Kind.TANK] == 3
    assert te[Terrain.BUILDING].move_cost[Kind.TANK] == "prohibited"
    assert te[Terrain.BUILDING].move_cost[Kind.AT_GUN] == 2
    assert te[Terrain.BUILDING].defense_multiplier == 3


def test_scatter_diagram_gives_six_distinct_directions_18_2(pack: TanksPack) -> None:
    sc = pack.tables.scatter
    assert sc.scatter_on == [1, 2]
    assert sorted(sc.directions) == [1, 2, 3, 4, 5, 6]
    assert len(set(sc.directions.values())) == 6
    assert pack.tables.barrage.light_need == 6 and pack.tables.barrage.heavy_need == 7
    target = Hex.parse("1616")
    landed = {scatter(target, face, sc.directions) for face in range(1, 7)}
    assert landed == set(neighbours(target))  # one hex, a different one per face
    with pytest.raises(ValueError, match="no face 7"):
        scatter(target, 7, sc.directions)


def test_every_record_names_its_source_25_0(pack: TanksPack) -> None:
    s = summary(pack)
    assert s["values.rulebook"] and s["values.reconstructed"]
    assert int(s["hexes"]) == sum(int(s[f"hexes.{t.value}"]) for t in Terrain)
    assert s["units.german"] == 21 and s["units.soviet"] == 19
    assert s["scenarios"] == 7
    assert s["hash"] == pack_hash(pack)[:16] == pack_hash(DEFAULT_PACK)[:16]
    by_side = Counter(u.side for u in pack.units.values())
    assert by_side[Side.GERMAN] == len(UNIT_TYPES_3_0[Side.GERMAN])
