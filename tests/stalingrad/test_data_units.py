"""The order of battle keeps every counter value the rulebook gives and obeys the setup rules."""

from __future__ import annotations

from collections import Counter
from datetime import date

import pytest

from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.data_models import (
    StalingradPack,
    check_date_code,
    date_code,
    parse_date_code,
)


@pytest.fixture(scope="module")
def pack() -> StalingradPack:
    return load_pack()


def test_about_four_hundred_counters_4_1(pack: StalingradPack) -> None:
    german, russian = len(pack.units_of("german")), len(pack.units_of("russian"))
    assert 300 <= german + russian <= 450
    assert german > 100 and russian > 150
    assert len({u.id for u in pack.units.values()}) == german + russian


def test_284th_rifle_division_iii_1045_glossary(pack: StalingradPack) -> None:
    u = pack.unit("R284:III/1045")
    assert (u.attack, u.defense, u.movement) == (4, 5, 4)
    assert u.factors == "4-5-4"
    assert u.parent == "284" and u.regiment == "1045" and u.side == "russian"
    assert pack.regiment_size(u) == 3, "Regimental Integrity needs three battalions"


def test_10th_rifle_brigade_390th_regiment_4_32(pack: StalingradPack) -> None:
    u = pack.unit("R10RB:390")
    assert u.factors == "1-3-4" and u.size == "III" and u.parent == "10RB"
    assert "10th Rifle Brigade" in (u.parent_name or "")


def test_stahel_pak_arrives_sept_15_5_4(pack: StalingradPack) -> None:
    u = pack.unit("G:Stahel")
    assert u.type == "pak" and u.category == "at" and u.arrive == date(1942, 9, 15)
    assert u.independent
    assert u in pack.reinforcements("german", date(1942, 9, 15))


def test_670_pak_of_24th_panzer_withdrawn_sept_27_5_5_21_3(pack: StalingradPack) -> None:
    u = pack.unit("G24Pz:670")
    assert u.type == "pak" and u.parent == "24Pz"
    assert u.withdraw == date(1942, 9, 27) and u.withdrawal_dot
    assert u in pack.withdrawals(date(1942, 9, 27))


def test_only_german_units_are_withdrawn_21_3(pack: StalingradPack) -> None:
    withdrawn = [u for u in pack.units.values() if u.withdraw]
    assert withdrawn and all(u.side == "german" for u in withdrawn)


def test_10th_nkvd_272nd_regiment_three_orange_battalions_sawmill(
    pack: StalingradPack,
) -> None:
    regiment = [u for u in pack.units.values()
                if u.parent == "10NKVD" and u.regiment == "272"]
    assert len(regiment) == 3
    assert all(str(s) == "orange circle" for u in regiment for s in u.setup)
    assert pack.regiment_size(regiment[0]) == 3


def test_german_artillery_6_x_5_and_6_4_4_25(pack: StalingradPack) -> None:
    u = pack.unit("G71:Arko71")
    assert u.factors == "6-X-5" and u.night_attack == 4
    assert u.category == "artillery" and not u.combat
    artillery = [u for u in pack.units.values() if u.type == "artillery"]
    assert len(artillery) >= 10
    assert all(u.side == "german" and u.defense is None and u.night_attack is not None
               and u.night_attack < (u.attack or 0) for u in artillery)


def test_one_luftwaffe_unit_4_26(pack: StalingradPack) -> None:
    air = [u for u in pack.units.values() if u.type == "luftwaffe"]
    assert len(air) == 1 and air[0].side == "german" and air[0].in_box
    assert air[0].defense is None and air[0].movement is None


def test_four_russian_fag_units_one_per_quadrant_15_31(pack: StalingradPack) -> None:
    fags = [u for u in pack.units.values() if u.type == "fag"]
    assert sorted(u.quadrant or "" for u in fags) == sorted(
        ["north", "north-central", "south-central", "south"]
    )
    assert all(u.side == "russian" and u.in_box and not u.combat for u in fags)


#: Counter profiles the Players Notes examples use: (side, type, factors, where).
EXAMPLE_PROFILES = [
    ("russian", "infantry", "1-2-4", "Examples 1, 3, 5: the Russian 1-2-4"),
    ("german", "pioneer", "4-2-5", "Examples 2, 5: the 4-2-5 Pioneer"),
    ("german", "pioneer", "5-2-5", "Example 4: the 5-2-5 Pioneer"),
    ("german", "tank", "6-6-6", "Example 2: the 6-6-6 armor unit"),
    ("german", "tank", "6-6-8", "Example 4: the 6-6-8 armor unit"),
    ("german", "armored_recon", "3-2-7", "4.2 and Example 3: armor with 3 attack, 7 MF"),
]


@pytest.mark.parametrize(("side", "type_", "factors", "where"), EXAMPLE_PROFILES,
                         ids=[p[2] + p[1] for p in EXAMPLE_PROFILES])
def test_players_notes_counter_profiles(pack: StalingradPack, side: str, type_: str,
                                        factors: str, where: str) -> None:
    assert any(u.side == side and u.type == type_ and u.factors == factors
               for u in pack.units.values()), where


def test_example_4_russian_aa_units_in_area_30(pack: StalingradPack) -> None:
    aa = [u for u in pack.units.values() if u.historical == "30" and u.type == "aa"]
    assert sorted(u.defense or 0 for u in aa) == [3, 6]
    others = [u for u in pack.units.values() if u.historical == "30" and u.category == "infantry"]
    assert others, "the infantry unit of the other Group"


def test_german_flak_is_mechanized_example_3(pack: StalingradPack) -> None:
    flak = [u for u in pack.units.values() if u.type == "flak"]
    assert flak and all(u.mechanized and u.category == "aa" for u in flak)


def test_unit_categories_4_2(pack: StalingradPack) -> None:
    for u in pack.units.values():
        if u.category == "armor":
            assert u.mechanized, f"{u.id}: Armor has an underscored MF (4.21)"
        if u.category in ("at", "aa"):
            assert u.attack is None, f"{u.id}: AT/AA have a '*' Attack Factor (8.351)"
        if u.combat:
            assert u.defense is not None and u.movement is not None
            assert u.spent_defense is not None and u.spent_defense <= u.defense
        assert not (u.mechanized and u.motorized), u.id
    assert {u.type for u in pack.units.values() if u.engineer} == {"pioneer", "engineer"}


def test_historical_setup_obeys_5_6_and_21_2(pack: StalingradPack) -> None:
    per_area: Counter[int] = Counter()
    for u in pack.units.values():
        if u.historical is None:
            assert not u.setup
            continue
        area = pack.area(u.historical)
        assert any(s.matches(area) for s in u.setup), u.id
        assert not area.white, f"{u.id}: white IDs hold no units at start (3.23)"
        shape = "square" if u.side == "german" else ("circle", "triangle")
        assert area.id_shape in shape, f"{u.id}: German squares, Russian circles (5.4)"
        if u.combat:
            per_area[area.number] += 1
    assert max(per_area.values()) <= pack.tables.constants.stacking_limit
    for area in pack.areas.values():
        if not area.white:
            assert per_area[area.number] >= 1, f"Area {area.number} needs a unit (5.6)"


def test_free_setup_symbols_match_some_area_5_4(pack: StalingradPack) -> None:
    symbols = {(a.setup_colour, a.id_shape) for a in pack.areas.values() if not a.white}
    for u in pack.units.values():
        for s in u.setup:
            assert (s.colour, s.shape) in symbols, u.id


def test_reinforcements_arrive_on_the_track_18_1(pack: StalingradPack) -> None:
    dates = set(pack.calendar.dates())
    arrivals = [u for u in pack.units.values() if u.arrive]
    assert arrivals
    for u in arrivals:
        assert u.arrive in dates and u.arrive > pack.calendar.first and not u.setup
    for side in ("german", "russian"):
        assert any(u.side == side for u in arrivals)


def test_extension_counters_arrive_after_the_third_week_21_1(pack: StalingradPack) -> None:
    limit = pack.calendar.base_counters_until
    assert limit == date(1942, 10, 3)
    late = [u for u in pack.units.values() if pack.extension_unit(u)]
    assert late and all(u.arrive is not None and u.arrive > limit for u in late)
    day = min(u.arrive for u in late if u.arrive is not None)
    assert pack.reinforcements(late[0].side, day, extension=False) == [] or all(
        not pack.extension_unit(u) for u in pack.reinforcements(late[0].side, day,
                                                                 extension=False))


def test_sawmill_units_stand_in_the_south_quadrant(pack: StalingradPack) -> None:
    south = set(pack.quadrant_areas("south"))
    sawmill = pack.scenarios["sawmill"]
    for side in ("german", "russian"):
        colours = set(sawmill.side(side).colours or ())
        chosen = [u for u in pack.starting_units(side)
                  if any(s.colour in colours for s in u.setup)]
        assert chosen
        for u in chosen:
            assert u.historical is not None and int(u.historical) in south, u.id
    yellow = [u for u in pack.starting_units("german")
              if any(s.colour == "yellow" for s in u.setup)]
    assert len(yellow) == 3  # "the three yellow-coded units which begin play in Area 5"
    placed = sawmill.german.placements[0]
    assert set(placed.units) == {u.id for u in yellow} and placed.area == "5"


def test_regimental_integrity_regiments_have_battalions_glossary(pack: StalingradPack) -> None:
    sizes = [pack.regiment_size(u) for u in pack.units.values() if u.regiment]
    assert sizes and max(sizes) >= 3
    assert pack.regiment_size(pack.unit("G:Stahel")) == 0


def test_date_codes_5_4() -> None:
    """5.4: a date code is a day of the year the pack's calendar gives (5.1)."""
    assert parse_date_code("S15", 1942) == date(1942, 9, 15)
    assert parse_date_code("O4", 1943) == date(1943, 10, 4)
    assert date_code(date(1942, 11, 9)) == "N9"
    with pytest.raises(ValueError):
        parse_date_code("X15", 1942)
    with pytest.raises(ValueError):
        check_date_code("S31")


def test_every_unit_carries_provenance(pack: StalingradPack) -> None:
    for u in pack.units.values():
        assert u.source.startswith(("rulebook ", "reconstructed: ")), u.id
    cited = [u for u in pack.units.values() if u.field_sources]
    assert cited, "rulebook values are cited field by field"
