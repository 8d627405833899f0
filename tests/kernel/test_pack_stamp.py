"""A pack folder's stamp (:func:`pack_stamp`), made from one directory read (issue 26: every
picture's pack look-up pays for it), is the stamp of the files :func:`pack_files` lists —
hidden files, other cases, folders and links included — and changes when a file is edited,
added or removed."""

from __future__ import annotations

import os
from pathlib import Path

from adjudicator.kernel.packs import pack_files, pack_stamp
from adjudicator.stalingrad.data import DEFAULT_PACK


def listed_stamp(path: Path) -> tuple[tuple[str, int, int], ...]:
    """The stamp as the listed files' own ``stat`` makes it."""
    return tuple((f.name, st.st_size, st.st_mtime_ns) for f in pack_files(path)
                 for st in [f.stat()])


def test_the_stamp_is_the_listed_files_stamp(tmp_path: Path) -> None:
    (tmp_path / "units.toml").write_text("a = 1\n")
    (tmp_path / ".hidden.toml").write_text("b = 2\n")
    (tmp_path / "Upper.TOML").write_text("c = 3\n")
    (tmp_path / "notes.toml.bak").write_text("d\n")
    (tmp_path / "folder.toml").mkdir()
    (tmp_path / "link.toml").symlink_to(tmp_path / "units.toml")
    (tmp_path / "broken.toml").symlink_to(tmp_path / "nowhere.toml")
    assert pack_stamp(tmp_path) == listed_stamp(tmp_path)
    assert [name for name, _, _ in pack_stamp(tmp_path)] == [
        ".hidden.toml", "link.toml", "units.toml"]
    assert pack_stamp(DEFAULT_PACK) == listed_stamp(DEFAULT_PACK) and pack_stamp(DEFAULT_PACK)
    assert pack_stamp(tmp_path / "missing") == ()


def test_the_stamp_changes_when_a_file_changes(tmp_path: Path) -> None:
    (tmp_path / "units.toml").write_text("a = 1\n")
    first = pack_stamp(tmp_path)
    (tmp_path / "units.toml").write_text("a = 12\n")  # resized
    resized = pack_stamp(tmp_path)
    assert resized != first
    os.utime(tmp_path / "units.toml", ns=(1, 1))  # touched
    assert pack_stamp(tmp_path) != resized
    (tmp_path / "areas.toml").write_text("")  # added
    assert len(pack_stamp(tmp_path)) == 2
    (tmp_path / "areas.toml").unlink()  # removed
    assert len(pack_stamp(tmp_path)) == 1
