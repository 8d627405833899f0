"""What every game's data pack shares: its fingerprint and its error.

A data pack is a folder of TOML files. Its hash covers those files' names and bytes, so a
pack copied elsewhere keeps its hash, and a GM's replacement pack is told apart from the
shipped one wherever the hash is shown or stored with a game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar


def pack_files(path: Path) -> list[Path]:
    """The pack's TOML files in name order."""
    return sorted((f for f in path.glob("*.toml") if f.is_file()), key=lambda f: f.name)


def hash_files(files: Mapping[str, bytes]) -> str:
    """sha256 over (name, length, bytes) of each file, in name order."""
    digest = hashlib.sha256()
    for name in sorted(files):
        data = files[name]
        digest.update(name.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0")
        digest.update(data)
    return digest.hexdigest()


def hash_pack_dir(path: Path) -> str:
    """The hash of the pack in ``path`` as it is on disk now."""
    return hash_files({file.name: file.read_bytes() for file in pack_files(path)})


class PackError(Exception):
    """A data pack that does not validate; ``problems`` lists "file: record: message"."""

    title: ClassVar[str] = "data pack"

    def __init__(self, problems: list[str], path: Path | None = None) -> None:
        self.problems = list(problems)
        self.path = path
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f" {self.path}" if self.path else ""
        count = len(self.problems)
        head = f"invalid {self.title}{where}: {count} problem{'s' * (count != 1)}"
        return "\n".join([head, *(f"  {problem}" for problem in self.problems)])
