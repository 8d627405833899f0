"""One pack fingerprint everywhere: the data modules, the CLI and the games the service stores."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from adjudicator.kernel.packs import PackError, hash_pack_dir
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
    error = stalingrad_data.PackError(["areas.toml: Area 41: adjacent to 97"], Path("x"))
    assert isinstance(error, PackError)
    assert str(error).splitlines() == [
        "invalid Turning Point: Stalingrad data pack x: 1 problem",
        "  areas.toml: Area 41: adjacent to 97",
    ]
    assert "Stalin's Tanks" in str(tanks_data.PackError(["a", "b"]))
