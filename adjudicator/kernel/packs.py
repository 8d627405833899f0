"""What every game's data pack shares: provenance, reading, messages, the cache, the hash.

A data pack is a folder of TOML files. Every game reads its pack through this module:

* **Provenance.** Every record is :class:`Sourced`: ``source`` is ``"rulebook <section>"`` or
  ``"reconstructed: <one-line reason>"``, and ``field_sources`` gives single fields a source
  of their own (a value the rulebook fixes inside a reconstructed record, or the reverse).
* **Reading.** :func:`read_pack` reads every TOML file of the folder once; its bytes are what
  the pack's hash covers, so the hash and the rules always come from the same bytes.
  A problem is one line, ``"file: record: field: message"``; :class:`PackError` lists them.
* **The cache.** :class:`PackCache` keeps loaded packs by folder with the stamp of their files
  (names, sizes, modification times): a pack edited on disk is loaded anew, never served stale.
* **The hash** covers the TOML files' names and bytes, so a pack copied elsewhere keeps its
  hash, and a GM's replacement pack is told apart from the shipped one wherever the hash is
  shown or stored with a game.
* **Errors and warnings.** A structural problem (a missing file, a wrong type, a reference to
  nothing, a table the rules cannot read) is an error: the pack is refused. A value that
  departs from what the rulebook prints is a :class:`PackWarning`: the contract is that a GM
  with the physical game may correct the pack, so it loads, and ``umpire data check`` shows
  the warning (an error only with ``--strict``, which the shipped packs' own tests use).
  :class:`Problems`, the list a pack's messages are gathered in, keeps the errors and files
  each warning added to it under ``warnings``.

>>> provenance("rulebook 8.23")
'rulebook'
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import threading
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, ValidationError, model_validator

# ---- provenance ------------------------------------------------------------------------------

SOURCE_FORM = re.compile(r"^(rulebook \S.*|reconstructed: \S.*)$")


def check_source(value: Any) -> str:
    """A source string as written (outer spaces dropped), or ValueError naming the form."""
    if not isinstance(value, str) or not SOURCE_FORM.match(value.strip()):
        raise ValueError("must be 'rulebook <section>' or 'reconstructed: <one-line reason>', "
                         f"not {value!r}")
    return value.strip()


Source = Annotated[str, PlainValidator(check_source)]


def provenance(source: str) -> Literal["rulebook", "reconstructed"]:
    """``"rulebook"`` or ``"reconstructed"`` for a source string."""
    return "rulebook" if source.startswith("rulebook") else "reconstructed"


class Record(BaseModel):
    """A table of a pack file: strict fields (a misspelt key is an error), frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Sourced(Record):
    """A record with its provenance: ``source`` for the record, ``field_sources`` for single
    fields whose source differs (``field_sources = { tem = "rulebook Players Notes
    Example 3" }`` in an otherwise reconstructed Area)."""

    source: Source
    field_sources: dict[str, Source] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _field_sources_name_fields(self) -> Sourced:
        unknown = sorted(set(self.field_sources) - set(type(self).model_fields))
        if unknown:
            raise ValueError(f"field_sources names unknown field(s) {', '.join(unknown)}")
        return self

    def source_of(self, name: str) -> str:
        """The source of one field's value."""
        return self.field_sources.get(name, self.source)

    @property
    def reconstructed(self) -> bool:
        """True when the record as a whole is a reconstruction (``field_sources`` aside)."""
        return provenance(self.source) == "reconstructed"

    def value_fields(self) -> list[str]:
        """The record's own values: every field but its provenance."""
        return [name for name in type(self).model_fields
                if name not in ("source", "field_sources")]


# ---- errors and warnings -----------------------------------------------------------------------


class PackWarning(str):
    """A message about a value that departs from a rulebook fact a GM's corrected pack may
    change on purpose (``"areas.toml: Area 69: vp is 2, 19.1 gives 1"``): reported, never a
    reason to refuse the pack."""

    __slots__ = ()


def warn(messages: Iterable[str]) -> list[str]:
    """``messages`` as :class:`PackWarning` lines (what a rulebook-fact check returns)."""
    return [PackWarning(message) for message in messages]


class Problems(list[str]):
    """A pack's error lines. A :class:`PackWarning` added to it (``+=``, ``append``,
    ``extend``) is filed under :attr:`warnings` instead, so ``if problems:`` refuses a pack for
    its errors alone, and every loader that gathers its checks' messages here gets the rule
    without knowing it.

    >>> found = Problems()
    >>> found += ["units.toml: missing", PackWarning("areas.toml: Area 69: vp is 2")]
    >>> list(found), found.warnings
    (['units.toml: missing'], ['areas.toml: Area 69: vp is 2'])
    """

    def __init__(self, messages: Iterable[str] = ()) -> None:
        super().__init__()
        self.warnings: list[str] = []
        self.extend(messages)

    def append(self, message: str) -> None:
        if isinstance(message, PackWarning):
            self.warnings.append(message)
        else:
            super().append(message)

    def extend(self, messages: Iterable[str]) -> None:
        for message in messages:
            self.append(message)

    def __iadd__(self, messages: Iterable[str]) -> Problems:  # type: ignore[override,misc]
        self.extend(messages)
        return self

    def every(self, *, strict: bool) -> list[str]:
        """The lines that refuse the pack: the errors, and with ``strict`` the warnings too."""
        return [*self, *self.warnings] if strict else list(self)


def warnings_of(messages: Sequence[str]) -> list[str]:
    """The warnings a check's result carries (none for a plain list of errors)."""
    return list(messages.warnings) if isinstance(messages, Problems) else []


# ---- files and the hash ------------------------------------------------------------------------


def _pack_entries(path: Path) -> list[os.DirEntry[str]]:
    """The pack's TOML files in name order, from one directory read (none if ``path`` is
    no readable folder); each entry's type comes with its name."""
    try:
        with os.scandir(path) as entries:
            return sorted((entry for entry in entries
                           if fnmatch.fnmatchcase(entry.name, "*.toml") and entry.is_file()),
                          key=lambda entry: entry.name)
    except OSError:
        return []


def pack_files(path: Path) -> list[Path]:
    """The pack's TOML files in name order."""
    return [path / entry.name for entry in _pack_entries(path)]


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


Stamp = tuple[tuple[str, int, int], ...]


def pack_stamp(path: Path) -> Stamp:
    """(name, size, modification time) of each TOML file: changes when a file is edited,
    added or removed (what :class:`PackCache` and the service's pack checks compare): the
    files :func:`pack_files` lists, from one directory read (each entry's size and time
    from one ``stat``; every picture's pack look-up pays it)."""
    try:
        return tuple((entry.name, st.st_size, st.st_mtime_ns)
                     for entry in _pack_entries(path) for st in [entry.stat()])
    except OSError:
        return ()


# ---- reading ------------------------------------------------------------------------------------

#: Keys whose value names a record in a message ("units.toml: kvia: mf: ...").
LABEL_KEYS = ("id", "key", "number", "letter", "class", "terrain", "condition", "name", "odds",
              "quadrant")


@dataclass
class PackFiles:
    """One pack folder read once: the bytes of every TOML file (what the hash covers) and
    every problem met reading, parsing or validating them."""

    path: Path
    data: dict[str, bytes] = field(default_factory=dict)
    #: errors, with the warnings filed aside (:class:`Problems`)
    problems: Problems = field(default_factory=Problems)
    #: where the pack's format is described, for "unknown field" messages
    docs: str = ""

    @property
    def hash(self) -> str:
        return hash_files(self.data)

    def toml(self, name: str) -> dict[str, Any] | None:
        """The parsed tables of one file; None (and a problem) when it is missing or broken."""
        data = self.data.get(name)
        if data is None:
            self.problems.append(f"{name}: missing")
            return None
        try:
            return tomllib.loads(data.decode("utf-8"))
        except UnicodeDecodeError:
            self.problems.append(f"{name}: not UTF-8 text")
        except tomllib.TOMLDecodeError as error:
            self.problems.append(f"{name}: TOML syntax error: {error}")
        return None

    def validate(self, model: type[M], raw: Any, where: str) -> M | None:
        """``raw`` as a ``model``; None (and a problem per error) when it does not validate.
        ``where`` names the file and, for a single record, the record ("areas.toml: Area 5")."""
        if not isinstance(raw, dict):
            self.problems.append(f"{where}: expected a table, got {type(raw).__name__}")
            return None
        try:
            return model.model_validate(raw)
        except ValidationError as error:
            self.problems.extend(validation_problems(where, raw, error, self.docs))
            return None


M = TypeVar("M", bound=BaseModel)


def read_pack(path: Path, *, docs: str = "") -> PackFiles:
    """Read every TOML file of the pack folder ``path`` (problems: a missing folder, a file
    that cannot be read)."""
    out = PackFiles(path=path, docs=docs)
    if not path.is_dir():
        out.problems.append(f"{path}: not a directory holding a data pack")
        return out
    for file in pack_files(path):
        try:
            out.data[file.name] = file.read_bytes()
        except OSError as error:
            out.problems.append(f"{file.name}: cannot be read: {error.strerror or error}")
    return out


def record_label(item: Any, index: int) -> str:
    """How a message names a record of an array of tables: its id, key, number... or #N."""
    if isinstance(item, dict):
        for key in LABEL_KEYS:
            value = item.get(key)
            if isinstance(value, str | int) and not isinstance(value, bool):
                return str(value)
    return f"#{index + 1}"


def validation_problems(where: str, raw: Any, error: ValidationError, docs: str = ""
                        ) -> list[str]:
    """One line per error: ``where``, the records the error lies in (by label), the field
    path and the message, e.g. ``units.toml: kvia: mf: Input should be a valid integer``."""
    return [_problem(where, raw, err, docs) for err in error.errors()]


def _problem(where: str, raw: Any, err: Mapping[str, Any], docs: str) -> str:
    loc: Sequence[Any] = err.get("loc", ())
    records: list[str] = []
    fields: list[str] = []
    node = raw
    for part in loc:
        if isinstance(part, int) and isinstance(node, list):
            item = node[part] if 0 <= part < len(node) else None
            if isinstance(item, dict):  # an array of tables: name the record
                key = fields.pop() if fields else "record"
                label = record_label(item, part)
                records.append(label if not records else f"{key} {label}")
                fields = []
            else:  # a value in a list: its position
                fields.append(f"{fields.pop() if fields else 'item'} {part + 1}")
            node = item
        else:
            fields.append(str(part))
            node = node.get(part) if isinstance(node, dict) else None
    message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    if err.get("type") == "extra_forbidden":
        message = "unknown field (not part of the pack schema" + (
            f"; see {docs})" if docs else ")")
    parts = [where, *([", ".join(records)] if records else []), *([".".join(fields)]
                                                                  if fields else []), message]
    return ": ".join(parts)


# ---- the cache and the error -------------------------------------------------------------------

P = TypeVar("P")


class PackCache(Generic[P]):
    """Loaded packs by folder, each kept with the :func:`pack_stamp` of its files: a pack
    edited, added to or trimmed on disk is loaded anew; the last ``size`` folders are kept."""

    def __init__(self, load: Callable[[Path], P], size: int = 8) -> None:
        self._load = load
        self._size = size
        self._packs: dict[Path, tuple[Stamp, P]] = {}
        self._lock = threading.Lock()

    def get(self, path: Path) -> P:
        resolved = path.resolve()
        stamp = pack_stamp(resolved)
        with self._lock:
            known = self._packs.get(resolved)
        if known is not None and known[0] == stamp:
            return known[1]
        pack = self._load(resolved)
        with self._lock:
            self._packs.pop(resolved, None)
            self._packs[resolved] = (stamp, pack)
            while len(self._packs) > self._size:
                del self._packs[next(iter(self._packs))]
        return pack

    def clear(self) -> None:
        with self._lock:
            self._packs.clear()


class PackError(Exception):
    """A data pack that does not validate; ``problems`` lists "file: record: message".

    >>> print(PackError(["areas.toml: Area 41: adjacent to 97"], Path("x"), "TP:S data pack"))
    invalid TP:S data pack x: 1 problem
      areas.toml: Area 41: adjacent to 97
    """

    def __init__(self, problems: Iterable[str], path: Path | None = None,
                 title: str = "data pack") -> None:
        self.problems = list(problems)
        self.path = path
        self.title = title
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f" {self.path}" if self.path else ""
        count = len(self.problems)
        head = f"invalid {self.title}{where}: {count} problem{'s' * (count != 1)}"
        return "\n".join([head, *(f"  {problem}" for problem in self.problems)])
