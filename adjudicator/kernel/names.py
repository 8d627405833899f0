"""Forgiving name lookup for the notation: keys, names, aliases, unambiguous prefixes.

``NameIndex.resolve("mamaev")`` raises ``unknown area 'mamaev' — did you mean
Mamayev Kurgan (56)?``; ``resolve("mam")`` returns ``"56"`` when the prefix is unique.

Units are found the same way (:func:`unit_index`): by their id (``g14pz:i/103``), their
short name — the id without its formation prefix, the counter's printed designation
(``i/103``) — or any name a game gives them, a number only one unit carries (``103`` when
no other unit has it), or a unique prefix. A name several units share is refused with the
candidates (``ambiguous unit '103': could be I/103 (g14pz:i/103), II/103 (g14pz:ii/103)``);
an unknown one with the closest names ("did you mean").
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from adjudicator.kernel.errors import NotationError

_PUNCT = re.compile(r"[^\w\s]")
_SPACE = re.compile(r"\s+")
#: At most this many candidates are listed for an ambiguous name.
MAX_CANDIDATES = 8


def normalise(text: str) -> str:
    """Case-folded, punctuation dropped, spaces collapsed: "Hill 102" -> "hill 102"."""
    return _SPACE.sub(" ", _PUNCT.sub(" ", text.casefold())).strip()


def literal(text: str) -> str:
    """Case-folded and trimmed, punctuation kept: how a key's prefix is compared."""
    return _SPACE.sub(" ", text.casefold()).strip()


@dataclass(frozen=True)
class Named:
    key: str
    name: str = ""
    aliases: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.name} ({self.key})" if self.name and self.name != self.key else self.key


@dataclass
class NameIndex:
    """Keys (exact, case-insensitive) win; then full names and aliases (a name several
    entries share is ambiguous); then unique prefixes of a name or of one of its words,
    or of a key as typed (its punctuation must match: ``r-s`` is not ``r:stzmil``)."""

    what: str
    entries: list[Named]
    _exact: dict[str, Named] = field(init=False, default_factory=dict)
    _names: dict[str, list[Named]] = field(init=False, default_factory=dict)
    _literal: dict[str, Named] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        for entry in self.entries:
            self._exact[normalise(entry.key)] = entry
            self._literal[literal(entry.key)] = entry
        for entry in self.entries:
            for name in (entry.name, *entry.aliases):
                if name:
                    holders = self._names.setdefault(normalise(name), [])
                    if entry not in holders:
                        holders.append(entry)

    @classmethod
    def of(cls, what: str, entries: Iterable[Named]) -> NameIndex:
        return cls(what=what, entries=list(entries))

    def get(self, key: str) -> Named | None:
        return self._exact.get(normalise(key))

    def candidates(self, text: str) -> list[Named]:
        """Every entry ``text`` may mean: the exact key, else the entries of an exact name,
        else those with a name (or a word of it after the first) beginning with it."""
        wanted = normalise(text)
        if not wanted:
            return []
        if wanted in self._exact:
            return [self._exact[wanted]]
        if wanted in self._names:
            return list(self._names[wanted])
        found: dict[str, Named] = {}
        for name, holders in self._names.items():
            if name.startswith(wanted) or any(w.startswith(wanted) for w in name.split()[1:]):
                for entry in holders:
                    found.setdefault(entry.key, entry)
        # A key's prefix is read as typed, punctuation and all: ``r-s`` (a case's own unit)
        # is no prefix of ``r:stzmil``, though both read "r s" once punctuation is dropped.
        typed = literal(text)
        for key, entry in self._literal.items():
            if key.startswith(typed):
                found.setdefault(entry.key, entry)
        return list(found.values())

    def resolve(self, text: str) -> str:
        wanted = normalise(text)
        if not wanted:
            raise NotationError(f"missing {self.what}")
        matches = self.candidates(text)
        if len(matches) == 1:
            return matches[0].key
        if matches:
            labels = sorted(entry.label for entry in matches)
            shown = ", ".join(labels[:MAX_CANDIDATES])
            more = f" and {len(labels) - MAX_CANDIDATES} more" if len(labels) > \
                MAX_CANDIDATES else ""
            raise NotationError(f"ambiguous {self.what} {text!r}: could be {shown}{more}")
        raise NotationError(f"unknown {self.what} {text!r}{self._suggest(wanted)}")

    def _suggest(self, wanted: str) -> str:
        close = difflib.get_close_matches(wanted, list(self._names), n=3, cutoff=0.6)
        close += difflib.get_close_matches(wanted, list(self._exact), n=2, cutoff=0.75)
        labels: list[str] = []
        for name in close:
            entries = self._names.get(name) or [self._exact[name]]
            for entry in entries:
                if entry.label not in labels:
                    labels.append(entry.label)
        if not labels:
            return ""
        return " — did you mean " + " or ".join(labels[:4]) + "?"


#: A word that may be a unit id with a formation prefix ("g14pz:i/103", "r:fag-s").
UNIT_ID = re.compile(r"(?<![\w:])[a-z][a-z0-9]*:[a-z0-9/-]+(?![\w:/])")


def short_ids(text: str, short: Callable[[str], str]) -> str:
    """``text`` with each unit id written by ``short`` (its short name, as players type
    it): one form for unit names in what the rules say. ``short`` returns a word that is
    no unit's id unchanged."""
    return UNIT_ID.sub(lambda match: short(match.group(0)), text)


def short_unit_name(uid: str) -> str:
    """A unit id without its formation prefix: ``g14pz:i/103`` -> ``i/103``."""
    return uid.split(":", 1)[-1]


@dataclass
class UnitNames:
    """The units of a game by every name a player may type (see the module docstring), and
    each unit's shortest unique name for listings (:meth:`short`)."""

    index: NameIndex
    _short: dict[str, str] = field(init=False, default_factory=dict)

    def resolve(self, text: str) -> str:
        return self.index.resolve(text)

    def short(self, uid: str) -> str:
        """The short name (the id without its formation prefix, else a one-word alias)
        when it means only this unit; else the id."""
        found = self._short.get(uid)
        if found is None:
            entry = self.index.get(uid)
            options = [short_unit_name(uid)]
            if entry is not None:
                options += [a for a in entry.aliases if " " not in a.strip()]
            found = next((name.lower() for name in options
                          if [e.key for e in self.index.candidates(name)] == [uid]), uid)
            self._short[uid] = found
        return found


def unit_index(units: Iterable[tuple[str, Iterable[str]]]) -> UnitNames:
    """A :class:`UnitNames` from (id, other names) pairs: the short name (the id without
    its formation prefix) and each number in it are always among its names."""
    entries = []
    for uid, names in units:
        short = short_unit_name(uid)
        numbers = re.findall(r"\d+", short)  # "pi13" is also "13" (when no other unit is)
        aliases = tuple(dict.fromkeys(n for n in (*names, *numbers)
                                      if n and normalise(n) != normalise(short)))
        entries.append(Named(uid, short if short != uid else "", aliases))
    return UnitNames(NameIndex.of("unit", entries))
