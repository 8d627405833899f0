"""Autocomplete from the game's legal orders, forgiving of partial names.

A per-verb command (``/move unit: to:``) is an order template such as
``"move {unit} {to}"``. To suggest values for one option, the legal orders of the acting
side are matched against the template: literal words must agree, options already typed
must agree (case-insensitively, by prefix), and the word at the option's position is
offered. The last option of a template takes the rest of the order, so multi-word tails
("to 12 facing 3") complete as one value.

Everything here is pure and fast: one pass over the legal orders.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

#: Discord shows at most 25 choices, each at most 100 characters.
MAX_CHOICES = 25
MAX_CHOICE_LENGTH = 100

_PLACEHOLDER = re.compile(r"^\{(\w+)\}$")


@dataclass(frozen=True)
class Template:
    """An order template: literal words and ``{option}`` placeholders.

    A placeholder may take several words ("24pz 71inf"); literal words between
    placeholders ("with", "to", "at") anchor them. Optional placeholders drop out, with the
    literal words just before them, when they have no value.
    """

    words: tuple[str, ...]
    optional: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, text: str, optional: Iterable[str] = ()) -> Template:
        return cls(tuple(text.split()), frozenset(optional))

    @property
    def options(self) -> list[str]:
        return [m.group(1) for word in self.words if (m := _PLACEHOLDER.match(word))]

    def position(self, option: str) -> int:
        return self.words.index("{" + option + "}")

    def build(self, values: Mapping[str, str | None]) -> str:
        """The order text. A missing value drops itself and the literal words just before
        it ("with {units}"); the words before the first option (the verb) and after the
        last are always kept."""
        out: list[str] = []
        literals: list[str] = []
        first = True
        for word in self.words:
            match = _PLACEHOLDER.match(word)
            if match is None:
                literals.append(word)
                continue
            value = " ".join((values.get(match.group(1)) or "").split())
            if first or value:
                out.extend(literals)
            if value:
                out.append(value)
            literals, first = [], False
        out.extend(literals)
        return " ".join(out)

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """Matches an order of this shape, capturing each option's words."""
        parts: list[str] = []
        literals: list[str] = []
        first = True
        for word in self.words:
            match = _PLACEHOLDER.match(word)
            if match is None:
                literals.append(re.escape(word))
                continue
            name = match.group(1)
            segment = r"\s+".join([*literals, f"(?P<{name}>.+?)"])
            if not first:
                segment = r"\s+" + segment
            if name in self.optional:
                segment = f"(?:{segment})?"
            parts.append(segment)
            literals, first = [], False
        if literals:
            parts.append((r"\s+" if parts else "") + r"\s+".join(literals))
        return re.compile("^" + "".join(parts) + "$", re.IGNORECASE)

    def read(self, order: str) -> dict[str, str] | None:
        """The option values of ``order``, or None if it does not have this shape."""
        match = self.regex.match(" ".join(order.split()))
        if match is None:
            return None
        return {k: v for k, v in match.groupdict().items() if v is not None}


def _key(text: str) -> str:
    return text.casefold()


_SPLIT = re.compile(r"[\s,;:/()\-]+")


def matches(candidate: str, typed: str) -> int | None:
    """How well ``typed`` matches ``candidate``, case-insensitively: 0 prefix, 1 prefix of
    a word, 2 each typed word a prefix of successive words ("att 14" -> "attack 14 with"),
    3 substring, 4 letters in order; None for no match."""
    c, t = _key(candidate), _key(typed.strip())
    if not t or c.startswith(t):
        return 0
    words = [w for w in _SPLIT.split(c) if w]
    if any(word.startswith(t) for word in words):
        return 1
    wanted = [w for w in _SPLIT.split(t) if w]
    position = 0
    for part in wanted:
        while position < len(words) and not words[position].startswith(part):
            position += 1
        if position == len(words):
            break
        position += 1
    else:
        return 2
    if t in c:
        return 3
    position = 0
    for char in t:
        position = c.find(char, position)
        if position < 0:
            return None
        position += 1
    return 4


def rank(candidates: Iterable[str], typed: str, limit: int = MAX_CHOICES) -> list[str]:
    """Distinct candidates matching ``typed``, best matches first, original order kept."""
    scored: dict[str, tuple[int, int]] = {}
    for index, candidate in enumerate(candidates):
        if candidate in scored or not candidate or len(candidate) > MAX_CHOICE_LENGTH:
            continue
        score = matches(candidate, typed)
        if score is not None:
            scored[candidate] = (score, index)
    return sorted(scored, key=lambda c: scored[c])[:limit]


def _agrees(value: str, given: str) -> bool:
    """Whether an option value in a legal order fits what the user already typed."""
    wanted = _key(" ".join(given.split()))
    score = matches(value, wanted)
    return not wanted or (score is not None and score <= 3)


def option_candidates(legal: Sequence[str], template: Template, option: str,
                      filled: Mapping[str, str | None]) -> list[str]:
    """Values of ``option`` that occur in legal orders consistent with ``filled``."""
    out: list[str] = []
    for order in legal:
        values = template.read(order)
        if values is None or option not in values:
            continue
        if all(_agrees(values.get(name, ""), given) for name, given in filled.items()
               if given and name != option):
            out.append(values[option])
    return out


def suggest(legal: Sequence[str], template: Template, option: str,
            filled: Mapping[str, str | None], typed: str,
            canonical: Callable[[str], str | None] | None = None) -> list[str]:
    """Ranked choices for ``option`` while the user has typed ``typed``.

    ``canonical`` (the game's parse-then-format) reads names the way the notation does:
    typing "mill" or "mi" finds the cell whose key is "3" when the name resolves.
    """
    others = {k: v for k, v in filled.items() if k != option}
    candidates = option_candidates(legal, template, option, others)
    ranked = rank(candidates, typed)
    if canonical is not None and typed.strip():
        text = canonical(template.build({**others, option: typed}))
        values = template.read(text) if text is not None else None
        value = values.get(option) if values else None
        if value is not None and value in candidates:
            ranked = [value, *(c for c in ranked if c != value)][:MAX_CHOICES]
    return ranked


def suggest_orders(legal: Sequence[str], typed: str) -> list[str]:
    """Whole legal orders for ``/order``: the last line being typed is what is completed."""
    lines = typed.split("\n")
    head, current = lines[:-1], lines[-1]
    ranked = rank(legal, current)
    if not head:
        return ranked
    prefix = "\n".join(head) + "\n"
    return [prefix + order for order in ranked if len(prefix + order) <= MAX_CHOICE_LENGTH]
