"""Forgiving name lookup for the notation: numbers, names, aliases, unambiguous prefixes.

``NameIndex.resolve("mamaev")`` raises ``unknown area 'mamaev' — did you mean
Mamayev Kurgan (56)?``; ``resolve("mam")`` returns ``"56"`` when the prefix is unique.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from adjudicator.kernel.errors import NotationError

_PUNCT = re.compile(r"[^\w\s]")
_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Case-folded, punctuation dropped, spaces collapsed: "Hill 102" -> "hill 102"."""
    return _SPACE.sub(" ", _PUNCT.sub(" ", text.casefold())).strip()


@dataclass(frozen=True)
class Named:
    key: str
    name: str = ""
    aliases: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.name} ({self.key})" if self.name else self.key


@dataclass
class NameIndex:
    """Keys (exact, case-insensitive) win; then full names and aliases; then unique prefixes."""

    what: str
    entries: list[Named]
    _exact: dict[str, Named] = field(init=False, default_factory=dict)
    _names: dict[str, Named] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        for entry in self.entries:
            self._exact[normalise(entry.key)] = entry
        for entry in self.entries:
            for name in (entry.name, *entry.aliases):
                if name:
                    self._names.setdefault(normalise(name), entry)

    @classmethod
    def of(cls, what: str, entries: Iterable[Named]) -> NameIndex:
        return cls(what=what, entries=list(entries))

    def get(self, key: str) -> Named | None:
        return self._exact.get(normalise(key))

    def resolve(self, text: str) -> str:
        wanted = normalise(text)
        if not wanted:
            raise NotationError(f"missing {self.what}")
        if wanted in self._exact:
            return self._exact[wanted].key
        if wanted in self._names:
            return self._names[wanted].key
        matches = {
            entry.key: entry
            for name, entry in self._names.items()
            if name.startswith(wanted) or any(w.startswith(wanted) for w in name.split()[1:])
        }
        if len(matches) == 1:
            return next(iter(matches))
        if len(matches) > 1:
            labels = sorted(entry.label for entry in matches.values())
            raise NotationError(f"ambiguous {self.what} {text!r}: could be " + ", ".join(labels))
        raise NotationError(f"unknown {self.what} {text!r}{self._suggest(wanted)}")

    def _suggest(self, wanted: str) -> str:
        close = difflib.get_close_matches(wanted, list(self._names), n=3, cutoff=0.6)
        close += difflib.get_close_matches(wanted, list(self._exact), n=2, cutoff=0.75)
        labels: list[str] = []
        for name in close:
            entry = self._names.get(name) or self._exact[name]
            if entry.label not in labels:
                labels.append(entry.label)
        if not labels:
            return ""
        return " — did you mean " + " or ".join(labels) + "?"
