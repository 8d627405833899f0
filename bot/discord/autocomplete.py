"""Autocomplete from the game's legal orders, forgiving of partial names.

A verb command (``/stalingrad move units: to:``) asks for the slots of one verb of the
game's order spec. To suggest values for one slot, the legal orders of the acting side
are read with the spec (each slot's words, as the canonical text writes them); orders of
another verb, or whose other slots disagree with what the user already typed
(case-insensitively, by prefix), are skipped, and the focused slot's values are offered.

Everything here is pure and fast: one pass over the legal orders, each order read once.
What the user typed is cut at Discord's 100 characters (an option value's limit, and every
choice's) before anything is compared: a 6,000-character value must not cost a keystroke
more than a 100-character one (security round 3, issue 27.12). So one call compares at most
(number of candidates) x 200 characters.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache

from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.spec import CompiledVerb, OrderSpec

#: Discord shows at most 25 choices, each name and value at most 100 characters.
MAX_CHOICES = 25
MAX_CHOICE_LENGTH = 100
#: Seconds an autocomplete waits for the legal orders being listed: Discord drops an answer
#: that comes later than 3 s after the keystroke; past this, nothing is offered, and the
#: listing goes on for the next keystroke (``ServicePort.legal_orders``).
LISTING_WAIT = 2.0


@lru_cache(maxsize=50_000)
def read_order(spec: OrderSpec, text: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """The verb name of a (canonical) order text and its slots' words, cached."""
    found = spec.read(text)
    if found is None:
        return None
    verb, slots = found
    return verb.name, tuple(slots.items())


def typed_value(text: str) -> str:
    """What the user typed, cut at Discord's 100 characters: no choice is longer, so nothing
    past them can match, and the match work per candidate stays bounded."""
    return text[:MAX_CHOICE_LENGTH]


def _key(text: str) -> str:
    return text.casefold()


_SPLIT = re.compile(r"[\s,;:/()\-]+")
#: Words as a player names a unit: its short name after a formation prefix ("i/267").
_NAMES = re.compile(r"[\s,;:()]+")


def matches(candidate: str, typed: str) -> int | None:
    """How well ``typed`` matches ``candidate``, case-insensitively: 0 prefix, 1 prefix of
    a word (or of a unit's short name: "i/2" finds "g94:i/267"), 2 each typed word a
    prefix of successive words ("att 14" -> "attack 14 with"),
    3 substring, 4 letters in order; None for no match."""
    c, t = _key(candidate), _key(typed_value(typed).strip())
    if not t or c.startswith(t):
        return 0
    words = [w for w in _SPLIT.split(c) if w]
    if any(word.startswith(t) for word in (*words, *_NAMES.split(c))):
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
    """Distinct candidates matching ``typed``, best matches first, original order kept.
    Once ``limit`` candidates match as a prefix (the best score), no later one can rank
    before them: the rest are not read (a short prefix of a long listing, on the loop)."""
    typed = typed_value(typed)
    scored: dict[str, tuple[int, int]] = {}
    best = 0
    for index, candidate in enumerate(candidates):
        if candidate in scored or not candidate or len(candidate) > MAX_CHOICE_LENGTH:
            continue
        score = matches(candidate, typed)
        if score is not None:
            scored[candidate] = (score, index)
            best += score == 0
            if best >= limit:
                break
    return sorted(scored, key=lambda c: scored[c])[:limit]


def _agrees(value: str, given: str) -> bool:
    """Whether a slot value in a legal order fits what the user already typed."""
    wanted = _key(" ".join(typed_value(given).split()))
    score = matches(value, wanted)
    return not wanted or (score is not None and score <= 3)


def _stack_words(value: str) -> list[str]:
    return [w for w in value.split() if w]


def _stack_slots(verb: CompiledVerb) -> frozenset[str]:
    """The slots of ``verb`` that take several units (a stack: ``UNITS``)."""
    return frozenset(o.field for o in verb.options()
                     if o.kind is not None and o.kind.name == "units")


def _orders_of(spec: OrderSpec, verb: CompiledVerb, legal: Sequence[str]
               ) -> Iterable[dict[str, str]]:
    """The slot values of each legal order of ``verb``."""
    first = verb.path[0] if verb.path else verb.name
    for order in legal:
        if not order.startswith(first):
            continue
        found = read_order(spec, order)
        if found is not None and found[0] == verb.name:
            yield dict(found[1])


def slot_candidates(spec: OrderSpec, verb: CompiledVerb, legal: Sequence[str], option: str,
                    filled: Mapping[str, str | None]) -> list[str]:
    """Values of ``option`` in legal orders of ``verb`` consistent with ``filled``.

    A stack typed in a units slot (``i/267 ii/267``) is consistent with a value when, for
    each unit typed, some legal order with that value holds it: a destination is offered
    for the units typed together (each order may name them one by one)."""
    stacks = _stack_slots(verb)
    typed_stacks = {name: _stack_words(typed_value(given)) for name, given in filled.items()
                    if given and name != option and name in stacks
                    and len(_stack_words(given)) > 1}
    covered: dict[str, set[tuple[str, int]]] = {}
    out: list[str] = []
    for values in _orders_of(spec, verb, legal):
        if option not in values:
            continue
        if not all(_agrees(values.get(name, ""), given) for name, given in filled.items()
                   if given and name != option and name not in typed_stacks):
            continue
        value = values[option]
        if not typed_stacks:
            out.append(value)
            continue
        have = covered.setdefault(value, set())
        for name, words in typed_stacks.items():
            units = _stack_words(values.get(name, ""))
            have.update((name, index) for index, word in enumerate(words)
                        if any(_agrees(unit, word) for unit in units))
    if typed_stacks:
        wanted = {(name, index) for name, words in typed_stacks.items()
                  for index in range(len(words))}
        out = [value for value, have in covered.items() if have >= wanted]
    return out


def stack_suggestions(spec: OrderSpec, verb: CompiledVerb, legal: Sequence[str],
                      option: str, others: Mapping[str, str], typed: str) -> list[str]:
    """Choices for a units slot while a stack is typed: the units typed so far (read as
    the legal orders write them) followed by each unit that may join them — one named in
    a legal order that agrees with the other slots and shares one of their other slot
    values (the same destination, the same attack) — ranked by the word being typed."""
    signatures: dict[str, set[tuple[tuple[str, str], ...]]] = {}
    for values in _orders_of(spec, verb, legal):
        if option not in values or not all(_agrees(values.get(name, ""), given)
                                           for name, given in others.items()):
            continue
        signature = tuple(sorted((k, v) for k, v in values.items() if k != option))
        for unit in _stack_words(values[option]):
            signatures.setdefault(unit, set()).add(signature)
    words = _stack_words(typed)
    done, current = (words, "") if not words or typed.endswith(" ") else (words[:-1],
                                                                           words[-1])
    chosen: list[str] = []
    common: set[tuple[tuple[str, str], ...]] | None = None
    for word in done:
        best = rank((u for u in signatures if u not in chosen), word, 1)
        named = word if word in signatures else (best[0] if best else None)
        if named is None:
            return []  # a word that names no unit able to act: nothing fits
        chosen.append(named)
        common = signatures[named] if common is None else common & signatures[named]
    shared = {u: len(signatures[u] & common) if common is not None else 0
              for u in signatures if u not in chosen}
    # units that share most with the stack first (those in its Area, for a move)
    joining = sorted((u for u, count in shared.items() if common is None or count),
                     key=lambda u: -shared[u])
    head = " ".join(chosen)
    return [f"{head} {unit}".strip() for unit in rank(joining, current, len(joining))
            ][:MAX_CHOICES]


def unlisted_slots(spec: OrderSpec, verb: CompiledVerb, legal: Sequence[str], option: str,
                   filled: Mapping[str, str | None]) -> frozenset[str]:
    """The slots the user filled (other than ``option``) that no legal order of ``verb``
    spells out — an optional part the legal list leaves to its default, like a Stalin's
    Tanks move's final facing (``move pz to 1012`` is listed, ``… face N`` is not). They
    cannot filter the legal list: the caller asks the rules about each order instead."""
    seen: set[str] = set()
    for values in _orders_of(spec, verb, legal):
        seen.update(values)
    return frozenset(k for k, v in filled.items() if v and k != option and k not in seen)


def suggest(spec: OrderSpec, verb: CompiledVerb, legal: Sequence[str], option: str,
            filled: Mapping[str, str | None], typed: str,
            canonical: Callable[[str], str | None] | None = None,
            limit: int = MAX_CHOICES, names: Mapping[str, str] | None = None) -> list[str]:
    """Ranked choices for ``option`` while the user has typed ``typed``.

    ``canonical`` (the game's parse-then-format) reads names the way the notation does:
    typing "mill" or "mi" finds the cell whose key is "3" when the name resolves;
    ``names`` (a place's key -> printed name) lets what is typed match the names too. In a
    units slot, several units may be typed: the choices keep them and add one more.
    """
    typed = typed_value(typed)
    others = {k: typed_value(v) for k, v in filled.items() if k != option and v}
    if option in _stack_slots(verb) and (len(_stack_words(typed)) > 1
                                         or typed.endswith(" ")):
        return stack_suggestions(spec, verb, legal, option, others, typed)
    candidates = slot_candidates(spec, verb, legal, option, others)
    if option in _stack_slots(verb):  # one unit before the stacks it may lead
        candidates.sort(key=lambda c: len(_stack_words(c)))
    if names:  # a place's key or its printed name ("yel" finds "3 Yellow House")
        shown = {labelled(c, names): c for c in candidates}
        ranked = [shown[label] for label in rank(shown, typed, limit)]
    else:
        ranked = rank(candidates, typed, limit)
    if canonical is not None and typed.strip():
        try:
            text = canonical(spec.build(verb.name, {**others, option: typed}))
        except RuleError:
            text = None
        found = read_order(spec, text) if text is not None else None
        value = dict(found[1]).get(option) if found else None
        if value is not None and value in candidates:
            ranked = [value, *(c for c in ranked if c != value)][:limit]
    return ranked


def labelled(value: str, names: Mapping[str, str]) -> str:
    """A choice's shown text: a place's key with its printed name ("3 Yellow House")."""
    name = names.get(value)
    return f"{value} {name}"[:MAX_CHOICE_LENGTH] if name else value


def suggest_orders(legal: Sequence[str], typed: str) -> list[str]:
    """Whole legal orders for ``/order``: the last line being typed is what is completed."""
    typed = typed_value(typed)
    lines = typed.split("\n")
    head, current = lines[:-1], lines[-1]
    ranked = rank(legal, current)
    if not head:
        return ranked
    prefix = "\n".join(head) + "\n"
    return [prefix + order for order in ranked if len(prefix + order) <= MAX_CHOICE_LENGTH]


KEY_PREFIX = "#"


def choice_key(text: str) -> str:
    """A short stable key for a choice whose text may be longer than Discord's 100
    characters: the command reads it back with :func:`expand_key`."""
    return KEY_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:16]


def expand_key(value: str, candidates: Iterable[str]) -> str | None:
    """The candidate whose :func:`choice_key` is ``value`` (None: no longer offered)."""
    for candidate in candidates:
        if choice_key(candidate) == value:
            return candidate
    return None


def is_key(value: str) -> bool:
    return re.fullmatch(re.escape(KEY_PREFIX) + r"[0-9a-f]{16}", value.strip()) is not None
