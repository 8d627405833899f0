"""Loading, caching, hashing and validating data packs, including deliberately broken ones.

A GM replaces the pack (issue: "GM replacement"); a broken replacement must produce clear
"file: record: message" lines, never a traceback.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adjudicator.stalingrad.data import (
    DEFAULT_PACK,
    PackError,
    check_pack,
    load_pack,
    pack_hash,
    summary,
)
from tests.packs import edit_text, pack_copy_fixture

copy = pack_copy_fixture(DEFAULT_PACK)


edit = edit_text


def edit_record(path: Path, header: str, field: str, value: str) -> None:
    """Set ``field = value`` in the record whose block contains the line ``header``."""
    text = path.read_text(encoding="utf-8")
    blocks = re.split(r"(?m)^(?=\[\[)", text)
    hits = [i for i, b in enumerate(blocks) if re.search(rf"(?m)^{re.escape(header)}$", b)]
    assert len(hits) == 1, header
    block = blocks[hits[0]]
    new, n = re.subn(rf"(?m)^{re.escape(field)} = .*$", f"{field} = {value}", block)
    assert n == 1, f"{field} in {header}"
    blocks[hits[0]] = new
    path.write_text("".join(blocks), encoding="utf-8")


# ------------------------------------------------------------------- the real pack


def test_default_pack_is_valid_strictly() -> None:
    """The shipped pack has no error and no warning: every rulebook fact holds (strict)."""
    problems = check_pack(DEFAULT_PACK)
    assert problems == [] and problems.warnings == []
    assert problems.every(strict=True) == []


def test_default_pack_path_is_the_repository_data_directory() -> None:
    assert Path(__file__).resolve().parents[2] / "data" / "stalingrad" == DEFAULT_PACK
    assert (DEFAULT_PACK / "pack.toml").is_file()


def test_load_pack_is_cached() -> None:
    assert load_pack() is load_pack()
    assert load_pack(DEFAULT_PACK) is load_pack()
    assert load_pack(str(DEFAULT_PACK)) is load_pack()


def test_manifest_names_the_game() -> None:
    m = load_pack().manifest
    assert m.game == "stalingrad" and m.name and m.version


def test_pack_hash_is_stable_and_tracks_bytes(copy: Path) -> None:
    h = pack_hash(DEFAULT_PACK)
    assert len(h) == 64 and h == pack_hash(DEFAULT_PACK) == pack_hash(load_pack())
    assert pack_hash(copy) == h, "the hash covers the TOML files, not the directory"
    edit(copy / "pack.toml", 'version = "', 'version = "9')
    assert pack_hash(copy) != h


def test_summary_counts() -> None:
    pack = load_pack()
    s = summary(pack)
    assert s["areas"] == 74 and s["zones"] == 8
    borders = {frozenset((a.number, b)) for a in pack.areas.values() for b in a.borders}
    zone_links = {frozenset((z.letter, y)) for z in pack.zones.values() for y in z.zones}
    arrows = sum(len(z.arrows) for z in pack.zones.values())
    assert s["links"] == len(borders) + len(zone_links) + arrows
    assert s["zone_links"] == 7  # the chain A-B-C-D-E-F-G-H
    assert s["units_german"] == len(pack.units_of("german"))
    assert s["units_russian"] == len(pack.units_of("russian"))
    assert isinstance(s["values_rulebook"], int) and s["values_rulebook"] > 100
    assert isinstance(s["values_reconstructed"], int)
    assert s["values_reconstructed"] > s["values_rulebook"]
    assert s["hash"] == pack.hash


def test_a_gm_copy_loads_as_its_own_pack(copy: Path) -> None:
    edit(copy / "areas.toml", 'name = "Rynok"', 'name = "Rynok Village"')
    pack = load_pack(copy)
    assert pack is not load_pack()
    assert pack.area(73).name == "Rynok Village"
    assert pack.hash != load_pack().hash


# ------------------------------------------------------------------- broken packs


def warnings_of(path: Path) -> list[str]:
    """A GM's corrected pack: no error, the pack loads, and the departures are warnings."""
    problems = check_pack(path)
    assert problems == [], "a rulebook departure alone must not refuse the pack"
    assert problems.warnings, "the departure from the rulebook must be reported"
    assert load_pack(path).hash == pack_hash(path)
    return problems.warnings


def problems_of(path: Path) -> list[str]:
    problems = check_pack(path)
    assert problems, "the broken pack must not validate"
    with pytest.raises(PackError) as err:
        load_pack(path)
    assert err.value.problems == problems or set(problems) >= set(err.value.problems)
    return problems


def test_dangling_adjacency_3_2(copy: Path) -> None:
    edit_record(copy / "areas.toml", "number = 41", "borders", "[31, 32, 43, 61, 97]")
    assert "areas.toml: Area 41: adjacent to 97, which does not exist" in problems_of(copy)


def test_one_way_adjacency_8_2(copy: Path) -> None:
    edit_record(copy / "areas.toml", "number = 46", "borders", "[35, 36, 45, 47, 59]")
    problems = problems_of(copy)
    assert "areas.toml: Area 42: borders 46, but Area 46 does not border 42" in problems
    assert ("areas.toml: Area 46: polygon shares an edge with Area 42, which is not in "
            "borders") in problems


def test_polygon_disagrees_with_adjacency_3_2(copy: Path) -> None:
    text = (copy / "areas.toml").read_text(encoding="utf-8")
    block = text[text.index("number = 16\n"):]
    poly = re.search(r"(?m)^polygon = (.*)$", block)
    assert poly is not None
    edit_record(copy / "areas.toml", "number = 16", "polygon",
                "[[0, 0], [1, 0], [1, 1], [0, 1]]")
    edit_record(copy / "areas.toml", "number = 16", "label", "[0.5, 0.5]")
    problems = problems_of(copy)
    assert any(p.startswith("areas.toml: Area 16: borders 15, but their polygons share no "
                            "edge") for p in problems)


def test_toml_syntax_error_is_reported_not_raised(copy: Path) -> None:
    edit(copy / "units.toml", "\n[[formation]]\n", "\n[[formation]\n", 1)
    problems = problems_of(copy)
    assert any(p.startswith("units.toml: TOML syntax error") for p in problems)


def test_missing_file(copy: Path) -> None:
    (copy / "tables.toml").unlink()
    assert "tables.toml: missing" in problems_of(copy)


def test_wrong_type_names_file_record_and_field_3_22(copy: Path) -> None:
    edit_record(copy / "areas.toml", "number = 56", "tem", '"high"')
    problems = problems_of(copy)
    assert any(p.startswith("areas.toml: Area 56: tem: ") for p in problems), problems


def test_tem_out_of_range_3_22(copy: Path) -> None:
    edit_record(copy / "areas.toml", "number = 12", "tem", "7")
    problems = problems_of(copy)
    assert any(p.startswith("areas.toml: Area 12: tem: Input should be less than or equal to 4")
               for p in problems), problems


def test_victory_points_must_total_28_19_1(copy: Path) -> None:
    edit_record(copy / "areas.toml", "number = 69", "vp", "2")
    problems = warnings_of(copy)
    assert "areas.toml: Area 69: vp is 2, 19.1 gives 1" in problems
    assert "areas.toml: map: Victory Points total 29, 19.1 says 28" in problems


def test_ferry_landing_removed_glossary(copy: Path) -> None:
    edit_record(copy / "areas.toml", "number = 62", "ferry_landing", "false")
    problems = warnings_of(copy)
    assert ("areas.toml: Area 62: ferry_landing is false, but the Glossary and 18.3 name it "
            "a Ferry Landing") in problems


def test_river_bank_flag_checked_against_the_volga_19_1(copy: Path) -> None:
    edit_record(copy / "areas.toml", "number = 60", "river_bank", "true")
    problems = problems_of(copy)
    assert ("areas.toml: Area 60: river_bank is true but the polygon does not touch the "
            "Volga") in problems


def test_stated_example_adjacency_checked(copy: Path) -> None:
    edit_record(copy / "zones.toml", 'letter = "B"', "arrows", "[1]")
    problems = warnings_of(copy)
    assert "zones.toml: Zone B: must connect to Area 3 (8.2)" in problems


def test_stated_tem_checked(copy: Path) -> None:
    edit_record(copy / "areas.toml", "number = 36", "tem", "2")
    problems = warnings_of(copy)
    assert any(p.startswith("areas.toml: Area 36: tem 2, but Players Notes Example 2")
               for p in problems)


def test_unit_historical_area_must_exist_21_2(copy: Path) -> None:
    edit(copy / "units.toml", 'historical = "30"', 'historical = "99"')
    problems = problems_of(copy)
    assert "units.toml: unit R35G:I/101: historical Area 99 does not exist" in problems


def test_duplicate_unit_ids(copy: Path) -> None:
    edit(copy / "units.toml", 'units = ["Pi45", "Pi50"', 'units = ["Pi45", "Pi45"')
    assert "units.toml: unit G:Pi45: id used by 2 counters" in problems_of(copy)


def test_bad_factors_named_by_formation_4_2(copy: Path) -> None:
    edit(copy / "units.toml", 'factors = "4-5-4"', 'factors = "four-5-4"')
    problems = problems_of(copy)
    assert any(re.match(r"units\.toml: formation \d+ \(284th Rifle Division\): factors: ", p)
               for p in problems), problems


def test_overstacked_historical_setup_5_6(copy: Path) -> None:
    text = (copy / "units.toml").read_text(encoding="utf-8")
    text = text.replace('historical = "28"', 'historical = "2"')
    (copy / "units.toml").write_text(text, encoding="utf-8")
    problems = problems_of(copy)
    assert any(p.startswith("units.toml: historical setup: Area 2: ") and "(5.6)" in p
               for p in problems), problems


def test_calendar_fact_checked_17_23(copy: Path) -> None:
    edit(copy / "calendar.toml", "start = 1942-10-14\nvalue = 9", "start = 1942-10-15\nvalue = 9")
    problems = warnings_of(copy)
    assert "calendar.toml: luftwaffe: 1942-10-14 strength 5, 17.23 says 9" in problems


def test_crossing_table_checked_18_5(copy: Path) -> None:
    edit(copy / "tables.toml", "{ min_dr = 16, max_dr = 16, landed = false, duration = 3",
         "{ min_dr = 16, max_dr = 16, landed = false, duration = 2")
    assert "tables.toml: crossing: DR 16 gives Duration 2, 18.5 says 3" in warnings_of(copy)


def test_scenario_names_a_missing_unit(copy: Path) -> None:
    edit(copy / "scenarios.toml", '"G71:I/194"', '"G71:IX/194"')
    problems = problems_of(copy)
    assert ("scenarios.toml: scenario sawmill: german placement names unit G71:IX/194, which "
            "does not exist") in problems


def test_source_must_state_provenance(copy: Path) -> None:
    edit_record(copy / "areas.toml", "number = 56", "source", '"guess"')
    problems = problems_of(copy)
    assert any(p.startswith("areas.toml: Area 56: source: must be") for p in problems)


def test_wrong_game_in_manifest(copy: Path) -> None:
    edit(copy / "pack.toml", 'game = "stalingrad"', 'game = "tanks"')
    assert 'pack.toml: game is "tanks", expected "stalingrad"' in problems_of(copy)


def test_not_a_directory_and_empty_directory(tmp_path: Path) -> None:
    nowhere = tmp_path / "nowhere"
    assert check_pack(nowhere) == [f"{nowhere}: not a directory holding a data pack"]
    empty = tmp_path / "empty"
    empty.mkdir()
    problems = check_pack(empty)
    assert "pack.toml: missing" in problems and "areas.toml: missing" in problems


def test_garbage_bytes_do_not_raise(copy: Path) -> None:
    (copy / "zones.toml").write_bytes(b"\xff\xfe\x00garbage")
    assert "zones.toml: not UTF-8 text" in problems_of(copy)


def test_records_of_the_wrong_shape_do_not_raise(copy: Path) -> None:
    (copy / "areas.toml").write_text('area = "none"\n', encoding="utf-8")
    problems = problems_of(copy)
    assert "areas.toml: area must be an array of tables ([[area]])" in problems


def test_pack_error_reads_well(copy: Path) -> None:
    edit_record(copy / "areas.toml", "number = 41", "borders", "[31, 32, 43, 61, 97]")
    with pytest.raises(PackError) as err:
        load_pack(copy)
    text = str(err.value)
    assert text.splitlines()[0].startswith("invalid Turning Point: Stalingrad data pack")
    assert "  areas.toml: Area 41: adjacent to 97, which does not exist" in text.splitlines()
