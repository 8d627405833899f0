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

#: Discord shows at most 25 choices, each at most 100 characters.
MAX_CHOICES = 25
MAX_CHOICE_LENGTH = 100

_PLACEHOLDER = re.compile(r"^\{(\w+)\}$")


@dataclass(frozen=True)
class Template:
    """An order template: literal words and ``{option}`` placeholders."""

    words: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Template:
        return cls(tuple(text.split()))

    @property
    def options(self) -> list[str]:
        return [m.group(1) for word in self.words if (m := _PLACEHOLDER.match(word))]

    def position(self, option: str) -> int:
        return self.words.index("{" + option + "}")

    def build(self, values: Mapping[str, str | None]) -> str:
        """The order text. A missing (optional) value drops itself and the literal words
        just before it ("with {units}"); the words before the first option (the verb) and
        after the last are always kept."""
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


def _key(text: str) -> str:
    return text.casefold()


def matches(candidate: str, typed: str) -> int | None:
    """How well ``typed`` matches ``candidate``: 0 prefix, 1 word prefix, 2 substring,
    3 letters in order; None for no match. Case-insensitive."""
    c, t = _key(candidate), _key(typed.strip())
    if not t:
        return 0
    if c.startswith(t):
        return 0
    if any(word.startswith(t) for word in re.split(r"[\s,;:/()\-]+", c)):
        return 1
    if t in c:
        return 2
    position = 0
    for char in t:
        position = c.find(char, position)
        if position < 0:
            return None
        position += 1
    return 3


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


def _agrees(token: str, given: str) -> bool:
    given = _key(given.strip())
    return not given or _key(token).startswith(given) or _key(token) == given


def option_candidates(legal: Sequence[str], template: Template, option: str,
                      filled: Mapping[str, str | None]) -> list[str]:
    """Values of ``option`` that occur in legal orders consistent with ``filled``."""
    words = template.words
    target = template.position(option)
    last_placeholder = max(i for i, w in enumerate(words) if _PLACEHOLDER.match(w))
    out: list[str] = []
    for order in legal:
        tokens = order.split()
        if len(tokens) <= target:
            continue
        ok = True
        for index, word in enumerate(words):
            if index >= len(tokens) or index > last_placeholder:
                break
            placeholder = _PLACEHOLDER.match(word)
            if placeholder is None:
                if _key(tokens[index]) != _key(word):
                    ok = False
                    break
            elif index != target:
                given = filled.get(placeholder.group(1))
                if given and not _agrees(tokens[index] if index < last_placeholder
                                         else " ".join(tokens[index:]), given):
                    ok = False
                    break
        if not ok:
            continue
        value = " ".join(tokens[target:]) if target == last_placeholder else tokens[target]
        out.append(value)
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
        if text is not None:
            words = text.split()
            target = template.position(option)
            last = max(i for i, w in enumerate(template.words) if _PLACEHOLDER.match(w))
            if len(words) > target:
                value = " ".join(words[target:]) if target == last else words[target]
                if value in candidates:
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
