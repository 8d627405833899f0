"""One pack fingerprint everywhere: the data modules, the CLI and the games the service stores."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from adjudicator.kernel.packs import PackError, Sourced, hash_pack_dir, provenance
from adjudicator.stalingrad import data as stalingrad_data
from adjudicator.tanks import data as tanks_data


@pytest.mark.parametrize("module", [stalingrad_data, tanks_data])
def test_every_game_hashes_its_pack_the_same_way(module: object, tmp_path: Path) -> None:
    default = module.DEFAULT_PACK  # type: ignore[attr-defined]
    expected = hash_pack_dir(default)
    assert module.pack_hash(default) == expected  # type: ignore[attr-defined]
    assert module.pack_hash(module.load_pack()) == expected  # type: ignore[attr-defined]
    copy = tmp_path / "pack"
    shutil.copytree(default, copy)
    (copy / "notes.txt").write_text("a GM's notes are not part of the pack", encoding="utf-8")
    assert hash_pack_dir(copy) == expected
    first = sorted(copy.glob("*.toml"))[0]
    first.write_bytes(first.read_bytes() + b"\n# changed\n")
    assert hash_pack_dir(copy) != expected


def test_pack_errors_list_every_problem() -> None:
    assert stalingrad_data.PackError is PackError and tanks_data.PackError is PackError
    error = PackError(["areas.toml: Area 41: adjacent to 97"], Path("x"), stalingrad_data.TITLE)
    assert str(error).splitlines() == [
        "invalid Turning Point: Stalingrad data pack x: 1 problem",
        "  areas.toml: Area 41: adjacent to 97",
    ]
    assert "Stalin's Tanks" in str(PackError(["a", "b"], None, tanks_data.TITLE))


@pytest.mark.parametrize("module", [stalingrad_data, tanks_data])
def test_an_edited_pack_is_loaded_anew_not_served_from_the_cache(module: object,
                                                                 tmp_path: Path) -> None:
    copy = tmp_path / "pack"
    shutil.copytree(module.DEFAULT_PACK, copy,  # type: ignore[attr-defined]
                    ignore=shutil.ignore_patterns("tools"))
    first = module.load_pack(copy)  # type: ignore[attr-defined]
    assert module.load_pack(copy) is first  # type: ignore[attr-defined]
    manifest = copy / "pack.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace('version = "', 'version = "9', 1), encoding="utf-8")
    edited = module.load_pack(copy)  # type: ignore[attr-defined]
    assert edited is not first
    assert module.pack_hash(edited) == hash_pack_dir(copy)  # type: ignore[attr-defined]
    assert module.pack_hash(edited) != module.pack_hash(first)  # type: ignore[attr-defined]
    (copy / "pack.toml").unlink()
    with pytest.raises(PackError, match=r"pack\.toml: missing"):
        module.load_pack(copy)  # type: ignore[attr-defined]


def test_one_provenance_schema_in_both_games() -> None:
    stalingrad, tanks = stalingrad_data.load_pack(), tanks_data.load_pack()
    records: list[Sourced] = [*stalingrad.areas.values(), *stalingrad.formations,
                              *tanks.units.values(), *tanks.scenarios.values()]
    assert all(isinstance(record, Sourced) for record in records)
    cited = [r for r in records if r.field_sources]
    assert any(r in stalingrad.areas.values() for r in cited)
    assert any(r in tanks.units.values() for r in cited)
    for record in cited:
        for name in record.field_sources:
            assert provenance(record.source_of(name)) in ("rulebook", "reconstructed")


def test_an_older_stalingrad_rulebook_table_reads_as_field_sources() -> None:
    from adjudicator.stalingrad.data_models import Board

    board = Board.model_validate({
        "width": 30, "height": 20, "scale_metres_per_unit": 500,
        "source": "reconstructed: a test", "rulebook": {"scale_metres_per_unit": "3.1"}})
    assert board.field_sources == {"scale_metres_per_unit": "rulebook 3.1"}
    assert board.source_of("width") == "reconstructed: a test"
