"""A GM's replacement pack is validated with clear messages, never a traceback (25.0, data)."""

from __future__ import annotations

from pathlib import Path

import pytest

from adjudicator.kernel.packs import warnings_of
from adjudicator.tanks.data import DEFAULT_PACK, PackError, check_pack, load_pack, pack_hash
from adjudicator.tanks.hexgrid import Hex
from adjudicator.tanks.spec import from_pack
from tests.packs import edit_text, pack_copy_fixture

copy = pack_copy_fixture(DEFAULT_PACK)


def edit(pack: Path, name: str, old: str, new: str, count: int = 1) -> None:
    edit_text(pack / name, old, new, count)


def test_copy_of_shipped_pack_is_valid_and_hashes_alike_25_0(copy: Path) -> None:
    assert check_pack(copy) == []
    assert pack_hash(copy) == pack_hash(DEFAULT_PACK) == pack_hash(load_pack(copy))


def test_setup_hex_off_the_map_25_3(copy: Path) -> None:
    edit(copy, "scenarios.toml", 'boundary = ["2413"', 'boundary = ["4499"')
    assert "scenarios.toml: kursk-salient: set-up hex 4499 is off the map" in check_pack(copy)


def test_unknown_unit_type_in_a_force_25_1(copy: Path) -> None:
    edit(copy, "scenarios.toml", 'unit = "iiig"', 'unit = "iiix"')
    assert check_pack(copy) == [
        "scenarios.toml: first-encounter: force 2: unknown unit type 'iiix'"
    ]


def test_unit_listed_for_the_wrong_side_25_1(copy: Path) -> None:
    edit(copy, "scenarios.toml", 'unit = "bt-7"', 'unit = "iia"')
    problems = check_pack(copy)
    assert any("first-encounter: force 6: iia is a german unit, listed for soviet" in p
               for p in problems)


def test_wrong_type_names_file_record_and_field_3_0(copy: Path) -> None:
    edit(copy, "units.toml", 'id = "kvia"\nlabel = "KVIa"', 'id = "kvia"\nlabel = "KVIa"\nx = 1')
    edit(copy, "units.toml", "mf = 5\nsp = false\nturret = true\naliases = [\"KV1a\"]",
         'mf = "five"\nsp = false\nturret = true\naliases = ["KV1a"]')
    problems = check_pack(copy)
    assert any(p.startswith("units.toml: kvia: mf: ") and "integer" in p for p in problems)
    assert any(p.startswith("units.toml: kvia: x: ") for p in problems)


def test_inconsistent_counter_flags_8_7(copy: Path) -> None:
    edit(copy, "units.toml", 'kind = "sp_gun"\nap = 15\nat = 27', 'kind = "tank"\nap = 15\nat = 27')
    problems = check_pack(copy)
    assert any(p.startswith("units.toml: stug-g: ") and "sp is true exactly for kind sp_gun" in p
               for p in problems)


def test_bad_source_string_is_refused_25_0(copy: Path) -> None:
    edit(copy, "tables.toml", 'source = "rulebook 18.3"', 'source = "made up"')
    problems = check_pack(copy)
    assert any(p.startswith("tables.toml: barrage.source: must be 'rulebook <section>'")
               for p in problems)


def test_toml_syntax_error_is_reported_not_raised(copy: Path) -> None:
    (copy / "tables.toml").write_text("[[to_hit]\nmin_range = ", encoding="utf-8")
    problems = check_pack(copy)
    assert len(problems) == 1 and problems[0].startswith("tables.toml: TOML syntax error:")


def test_missing_file_and_missing_directory(copy: Path, tmp_path: Path) -> None:
    (copy / "units.toml").unlink()
    assert check_pack(copy) == ["units.toml: missing"]
    assert check_pack(tmp_path / "nowhere")[0].endswith("not a directory holding a data pack")


def test_binary_file_is_reported(copy: Path) -> None:
    (copy / "map.toml").write_bytes(b"\xff\xfe\x00garbage")
    assert check_pack(copy)[0].startswith("map.toml: not UTF-8 text")


def test_map_row_of_wrong_length_and_unknown_code_2_0(copy: Path) -> None:
    edit(copy, "map.toml", '"...............................",  # 01',
         '"..............................",  # 01')
    edit(copy, "map.toml", '"...............................",  # 02',
         '"..............................?",  # 02')
    problems = check_pack(copy)
    assert "map.toml: terrain: row 01 has 30 hexes, the map has 31 columns" in problems
    assert "map.toml: terrain: row 02 uses unknown codes '?'" in problems


def test_broken_road_and_bridge_7_7(copy: Path) -> None:
    """A road with a gap and a bridge on clear terrain are errors (7.7: the rules read a
    bridge as the stream it negates); its being off the road net is only a warning."""
    edit(copy, "map.toml", '"1606", "1607", "1708"', '"1606", "1708"')
    edit(copy, "map.toml", 'hex = "1616"', 'hex = "0101"')
    problems = check_pack(copy)
    assert "map.toml: road north-south road: 1606 and 1708 are not adjacent" in problems
    assert "map.toml: bridge 0101: the hex is clear, not stream" in problems
    assert "map.toml: bridge 0101: not on a road (7.7)" in warnings_of(problems)
    assert "map.toml: bridge 0101: not on a road (7.7)" not in problems


def test_a_bridge_off_the_road_net_loads_with_a_warning_7_7(copy: Path) -> None:
    """7.7: "the bridge hex is considered a road hex for all purposes" — the rules make it
    one themselves, so a GM's map with a bridge off the printed road still loads, warned."""
    with (copy / "map.toml").open("a", encoding="utf-8") as handle:
        handle.write('\n[[bridge]]\nhex = "0416"\n'
                     'source = "reconstructed: a GM\'s corrected map"\n')
    problems = check_pack(copy)
    assert problems == []
    assert warnings_of(problems) == ["map.toml: bridge 0416: not on a road (7.7)"]
    rules = from_pack(copy)
    assert rules.map.is_road(Hex.parse("0416")) and rules.map.terrain_of(Hex.parse("0416")) \
        == "clear"


def test_hit_effects_row_missing_or_out_of_order_10_5(copy: Path) -> None:
    edit(copy, "tables.toml", 'class = "D"', 'class = "C"')
    problems = check_pack(copy)
    assert any("tables.toml: hit_effects: rows must be A, B, C, D" in p for p in problems)


def test_hit_effects_value_that_breaks_the_armour_order_10_5(copy: Path) -> None:
    """10.5: a row whose values fall left to right departs from the printed table's shape,
    which a GM's corrected cell may do: a warning, and the rules read the cell as given."""
    edit(copy, "tables.toml", 'values = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]',
         'values = [2, 3, 4, 5, 6, 7, 8, 9, 10, 2]')
    problems = check_pack(copy)
    assert "tables.toml: hit_effects row E: a stronger AT factor never needs a lower roll; " \
           "values must not fall left to right (10.5)" in warnings_of(problems)
    assert not any("values must not fall" in p for p in problems)
    row = load_pack(copy).tables.hit_effects
    assert [r.values[-1] for r in row.row if r.class_ == "E"] == [2]


def test_entry_hex_not_on_its_edge_25_7(copy: Path) -> None:
    edit(copy, "scenarios.toml", 'hexes = ["2926", "3026", "3126"]',
         'hexes = ["2926", "3026", "3125"]')
    assert check_pack(copy) == [
        "scenarios.toml: gauntlet: entry 1: entry hex 3125 is not on the S edge"
    ]


def test_victory_levels_with_a_gap_25_7(copy: Path) -> None:
    edit(copy, "scenarios.toml", "min = 5\nmax = 6", "min = 5\nmax = 5")
    problems = check_pack(copy)
    assert any(p.startswith("scenarios.toml: gauntlet: victory: ") and "gap or overlap" in p
               for p in problems)


def test_missing_constant_the_engine_needs(copy: Path) -> None:
    edit(copy, "tables.toml", 'id = "mine_attack"', 'id = "mines_attack"')
    assert check_pack(copy) == [
        "tables.toml: constant mine_attack: missing (the rules engine needs it)"
    ]


def test_load_pack_refuses_an_invalid_pack_with_every_problem(copy: Path) -> None:
    edit(copy, "scenarios.toml", 'unit = "iiig"', 'unit = "iiix"')
    edit(copy, "pack.toml", 'game = "tanks"', 'game = "chess"')
    with pytest.raises(PackError) as info:
        load_pack(copy)
    assert len(info.value.problems) == 2
    text = str(info.value)
    assert "invalid Stalin's Tanks data pack" in text
    assert "pack.toml: game: Input should be 'tanks'" in text
    assert "unknown unit type 'iiix'" in text


def test_load_pack_sees_a_replaced_file(copy: Path) -> None:
    first = load_pack(copy)
    assert load_pack(copy) is first
    edit(copy, "pack.toml", 'version = "1.0.0"', 'version = "1.0.1-gm"')
    second = load_pack(copy)
    assert second.version == "1.0.1-gm"
    assert second.content_hash != first.content_hash == pack_hash(DEFAULT_PACK)


def test_exit_condition_loaded_with_only_infantry_25_7(copy: Path) -> None:
    """25.7 counts halftracks leaving with infantry aboard; other cargo is not recorded."""
    edit(copy, "scenarios.toml", 'loaded_with = ["infantry"]', 'loaded_with = ["at_gun"]')
    problems = check_pack(copy)
    assert any("loaded_with supports only" in p for p in problems), problems
