"""A GM's copy of a data pack to edit in a test, and the edit (both games' pack tests)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def copy_pack(source: Path, where: Path) -> Path:
    """A copy of the pack folder ``source`` in ``where`` (its generators left out)."""
    dest = where / "pack"
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("tools", "__pycache__"))
    return dest


def edit_text(file: Path, old: str, new: str, count: int = 1) -> None:
    """Replace ``old`` (which must be there) by ``new`` in ``file``."""
    text = file.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {file.name}"
    file.write_text(text.replace(old, new, count), encoding="utf-8")


def pack_copy_fixture(source: Path) -> Callable[[Path], Path]:
    """A ``copy`` fixture for a test module: a fresh copy of the pack ``source`` per test."""

    @pytest.fixture
    def copy(tmp_path: Path) -> Path:
        return copy_pack(source, tmp_path)

    return copy
