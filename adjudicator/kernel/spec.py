"""Each game's order notation, declared once: the :class:`OrderSpec`.

A game lists its orders as :class:`Verb` entries. Each entry names the order model, the
forms it is written in, the rules it implements, a one-line help text and examples, and
whether its text is a secret of the side that gives it. Everything else is derived from
that one declaration: parsing (forgiving), formatting (canonical; ``parse(format(o)) ==
o``), the usage lines shown in errors and ``help VERB``, and the frontends' commands,
options and autocomplete.

A form is written the way a player reads it in a rulebook::

    move UNITS [from AREA:origin] [via PATH:via] to|into AREA:to

* ``move``, ``to|into`` — literal words; ``a|b`` gives other spellings (the first one is
  canonical). A literal in brackets, ``[at]``, may be left out and is always written.
* ``UNITS``, ``AREA:origin`` — a slot: the kind of words it takes (a :class:`Kind` of the
  spec: ``UNIT``, ``UNITS``, ``AREA``, ``PATH``, ``HEX``, ``NUMBER``…) and the model field
  it fills (default: the kind's name in lower case).
* ``{fresh|spent|rubble}:group`` — one word among fixed values (a keyword slot).
* ``[suicide]:suicide`` — a flag: the word sets a boolean field.
* ``[ ... ]`` — an optional part, written when one of its slots has a value.

Literal words that begin a form are its *head* (``decide casualties``); after the first
word a player may abbreviate the head's words when every form of that verb has a word
there (``decide cas``). A literal followed by slots after the head starts a *clause*
(``from AREA``, ``with UNITS``): clauses may be typed in any order. A verb takes several
forms when one model is written in several shapes; parsing tries them in order, and
formatting writes the first one that fits the order's values.

Input is forgiving: any case, extra spaces, commas between words, a trailing ``#``
comment, verb prefixes (``mo`` for ``move``). Names are resolved by the game's resolvers
(``names``), so ``mamayev`` reads as Area ``56``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import Any, TypeAlias

from pydantic import ValidationError

from adjudicator.kernel.errors import NotationError
from adjudicator.kernel.orders import COMMA, Order, tokens

#: A game's name resolvers, by what they resolve ("unit", "area", "cell"…).
Names: TypeAlias = Mapping[str, Callable[[str], str]]
Reader: TypeAlias = Callable[[list[str], Names], Any]
Writer: TypeAlias = Callable[[Any], str]

def plain(words: Sequence[str]) -> list[str]:
    """The words without commas."""
    return [word for word in words if word != COMMA]


def _is_empty(value: Any) -> bool:
    return value is None or value is False or (isinstance(value, str | tuple | list)
                                               and len(value) == 0)


# ---- kinds of slots -------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """What a slot takes: one word or several, how they are read and written.

    ``read(words, names)`` turns the slot's words (commas included) into the model field's
    value, resolving names with the game's resolvers; it raises :class:`NotationError`
    for words that are not of this kind. ``write`` is its canonical text.
    """

    name: str
    label: str
    description: str
    many: bool = False
    read: Reader = field(default=lambda words, names: " ".join(plain(words)))
    write: Writer = field(default=str)


def resolver(names: Names, what: str, default: Callable[[str], str]) -> Callable[[str], str]:
    """The game's resolver for ``what``, or ``default`` when the game has none."""
    return names.get(what, default)


def _one_unit(words: list[str], names: Names) -> str:
    return resolver(names, "unit", lambda t: t.strip().lower())(" ".join(plain(words)))


def _many_units(words: list[str], names: Names) -> tuple[str, ...]:
    resolve = resolver(names, "unit", lambda t: t.strip().lower())
    units = tuple(resolve(word) for word in plain(words))
    if not units:
        raise NotationError("no units given")
    return units


def _area(words: list[str], names: Names) -> str:
    text = " ".join(plain(words))
    if not text:
        raise NotationError("missing Area")
    return resolver(names, "area", str.strip)(text)


def _path(words: list[str], names: Names) -> tuple[str, ...]:
    """Areas one after another: separated by commas (names of several words) or spaces."""
    resolve = resolver(names, "area", str.strip)
    if COMMA in words:
        parts = " ".join(words).split(COMMA)
        return tuple(resolve(part.strip()) for part in parts if part.strip())
    return tuple(resolve(word) for word in words)


#: The most digits a number may have: every count, option, die and action number fits.
NUMBER_DIGITS = 9
_NUMBER = re.compile(rf"-?[0-9]{{1,{NUMBER_DIGITS}}}")


def read_number(text: str) -> int:
    """A whole number as typed (``12``, ``-1``): the one parser of every number a player or
    GM types, in orders and in the frontends' commands alike. Only the digits 0-9 count
    (``¹`` or ``٣`` are refused, never half-read), and at most :data:`NUMBER_DIGITS` of
    them; anything else raises :class:`NotationError` saying what a number is."""
    text = text.strip()
    if not _NUMBER.fullmatch(text):
        shown = text if len(text) <= 20 else text[:20] + "…"
        raise NotationError(f"{shown!r} is not a number: write it with the digits 0-9 "
                            f"(at most {NUMBER_DIGITS})")
    return int(text)


def _number(words: list[str], names: Names) -> int:
    return read_number(" ".join(plain(words)))


def _spaced(value: Any) -> str:
    return " ".join(value) if isinstance(value, tuple | list) else str(value)


UNIT = Kind("unit", "UNIT", "a unit", read=_one_unit)
UNITS = Kind("units", "UNITS", "one or more units (ids or short names)", many=True,
             read=_many_units,
             write=_spaced)
AREA = Kind("area", "AREA", "an Area: number, letter or name", many=True, read=_area)
PATH = Kind("path", "AREAS", "Areas passed through, in order", many=True, read=_path,
            write=_spaced)
NUMBER = Kind("number", "N", "a number", read=_number)

#: The kinds every spec knows; a game adds its own or replaces these (``kinds=``).
KINDS: dict[str, Kind] = {"UNIT": UNIT, "UNITS": UNITS, "AREA": AREA, "PATH": PATH,
                          "NUMBER": NUMBER}


# ---- the parts of a form --------------------------------------------------------------------


@dataclass(frozen=True)
class Word:
    """A literal word and its other spellings; ``optional``: may be left out when typing."""

    spellings: tuple[str, ...]
    optional: bool = False

    @property
    def text(self) -> str:
        return self.spellings[0]

    def accepts(self, token: str) -> bool:
        return token.lower() in self.spellings


@dataclass(frozen=True)
class Slot:
    field: str
    kind: Kind


@dataclass(frozen=True)
class Choice:
    """One word among ``values``; a required choice may be abbreviated (``adv pro``)."""

    field: str
    values: tuple[str, ...]
    abbreviate: bool = False

    def pick(self, token: str) -> str | None:
        low = token.lower()
        if low in self.values:
            return low
        if self.abbreviate:
            found = [value for value in self.values if value.startswith(low)]
            if len(found) == 1:
                return found[0]
        return None


@dataclass(frozen=True)
class Flag:
    field: str
    word: str


@dataclass(frozen=True)
class Group:
    """An optional part: all of it, or nothing."""

    items: tuple[Element, ...]


Element: TypeAlias = Word | Slot | Choice | Flag | Group


@dataclass(frozen=True)
class Clause:
    keyword: Word
    items: tuple[Element, ...]
    optional: bool


def _fields_of(items: Iterable[Element]) -> Iterator[Slot | Choice | Flag]:
    """Slots, choices and flags among ``items``, nested groups included."""
    for item in items:
        if isinstance(item, Group):
            yield from _fields_of(item.items)
        elif not isinstance(item, Word):
            yield item


@dataclass(frozen=True)
class Option:
    """A value a form asks for — what a frontend offers as a command option."""

    field: str
    kind: Kind | None  # None: a choice or a flag
    required: bool
    choices: tuple[str, ...] = ()
    flag: bool = False


_PATTERN = re.compile(r"\[|\]:\w+|\]|\{[^}]*\}(?::\w+)?|[^\s\[\]{}]+")


@dataclass(frozen=True)
class Form:
    """One way of writing an order (compiled from its pattern)."""

    pattern: str
    head: tuple[Word, ...]
    lead: tuple[Element, ...]
    clauses: tuple[Clause, ...]

    @classmethod
    def compile(cls, pattern: str, kinds: Mapping[str, Kind]) -> Form:
        items = _compile_items(_PATTERN.findall(pattern), kinds, pattern)
        position = 0
        while position < len(items) and isinstance(items[position], Word) \
                and not items[position].optional:  # type: ignore[union-attr]
            position += 1
        head = tuple(item for item in items[:position] if isinstance(item, Word))
        if not head:
            raise ValueError(f"form {pattern!r} must begin with its verb")
        lead: list[Element] = []
        clauses: list[Clause] = []
        for index in range(position, len(items)):
            item = items[index]
            following = items[index + 1] if index + 1 < len(items) else None
            if isinstance(item, Word) and not item.optional and following is not None \
                    and not isinstance(following, Word):
                clauses.append(Clause(item, (), optional=False))
            elif isinstance(item, Group) and len(item.items) > 1 \
                    and isinstance(item.items[0], Word) and not item.items[0].optional:
                clauses.append(Clause(item.items[0], item.items[1:], optional=True))
            elif clauses:
                last = clauses[-1]
                clauses[-1] = replace(last, items=(*last.items, item))
            else:
                lead.append(item)
        return cls(pattern, head, tuple(lead), tuple(clauses))

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(word.text for word in self.head)

    def options(self) -> list[Option]:
        out: list[Option] = []
        parts: list[tuple[tuple[Element, ...], bool]] = [(self.lead, True)]
        parts += [(clause.items, not clause.optional) for clause in self.clauses]
        for items, required in parts:
            for item in items:
                out.extend(_options_of(item, required))
        return out

    def usage(self) -> str:
        words = [word.text for word in self.head]
        words += [_usage(item) for item in self.lead]
        for clause in self.clauses:
            text = " ".join([clause.keyword.text, *(_usage(item) for item in clause.items)])
            words.append(f"[{text}]" if clause.optional else text)
        return " ".join(words)

    # ---- reading ----------------------------------------------------------------------

    def matches(self, words: list[str], start: int) -> Iterator[list[tuple[Element, list[str]]]]:
        """Every way ``words[start:]`` fits this form, as (slot, its words) bindings."""
        rest = words[start:]
        if not self.clauses:
            yield from _full(self.lead, rest)
            return
        segments: dict[int, list[str]] = {-1: []}
        current = -1
        for word in rest:
            found = next((i for i, clause in enumerate(self.clauses)
                          if i not in segments and clause.keyword.accepts(word)), None)
            if found is None:
                segments[current].append(word)
            else:
                current = found
                segments[current] = []
        if any(not clause.optional and i not in segments
               for i, clause in enumerate(self.clauses)):
            return
        parts: list[tuple[Sequence[Element], list[str]]] = [(self.lead, segments[-1])]
        parts += [(clause.items, segments[i]) for i, clause in enumerate(self.clauses)
                  if i in segments]
        yield from _product(parts)

    def missing(self, words: list[str]) -> str:
        """Why ``words`` cannot be this form when a required clause is missing."""
        for clause in self.clauses:
            if not clause.optional and not any(clause.keyword.accepts(w) for w in words):
                needed = [_usage(item) for item in clause.items
                          if isinstance(item, Slot | Choice)
                          or (isinstance(item, Word) and not item.optional)]
                usage = " ".join([clause.keyword.text, *needed])
                return f": missing '{usage}'"
        return ""

    # ---- writing ----------------------------------------------------------------------

    @cached_property
    def _fields(self) -> tuple[frozenset[str], tuple[str, ...]]:
        """The fields this form names, and those it requires (what :meth:`fits` asks of
        every order written: read once per form)."""
        options = self.options()
        return (frozenset(option.field for option in options),
                tuple(option.field for option in options if option.required))

    def fits(self, values: Mapping[str, Any], defaults: Mapping[str, Any]) -> bool:
        """Whether this form can write an order with these field values."""
        named, required = self._fields
        for name, value in values.items():
            if name not in named and value != defaults.get(name):
                return False
        return all(not _is_empty(values.get(name)) for name in required)

    def write(self, values: Mapping[str, Any], joiner: str = " ",
              show: Callable[[Slot, Any], str] | None = None) -> str:
        show = show or (lambda slot, value: slot.kind.write(value))
        words = [word.text for word in self.head]
        words += [text for item in self.lead if (text := _write(item, values, show))]
        clauses = []
        for clause in self.clauses:
            body = [text for item in clause.items if (text := _write(item, values, show))]
            if clause.optional and not body:
                continue
            clauses.append(" ".join([clause.keyword.text, *body]))
        if clauses:
            words.append(joiner.join(clauses))
        return " ".join(words)


def _compile_items(parts: list[str], kinds: Mapping[str, Kind], pattern: str) -> list[Element]:
    stack: list[list[Element]] = [[]]
    for part in parts:
        if part == "[":
            stack.append([])
        elif part.startswith("]"):
            if len(stack) < 2:
                raise ValueError(f"unbalanced ']' in form {pattern!r}")
            inner = stack.pop()
            flag = part[2:] if part.startswith("]:") else None
            if flag is not None:
                if len(inner) != 1 or not isinstance(inner[0], Word):
                    raise ValueError(f"a flag is one word in brackets: {pattern!r}")
                stack[-1].append(Flag(flag, inner[0].text))
            elif len(inner) == 1 and isinstance(inner[0], Word):
                stack[-1].append(replace(inner[0], optional=True))
            else:
                stack[-1].append(Group(tuple(inner)))
        elif part.startswith("{"):
            body, _, name = part[1:].partition("}")
            name = name.removeprefix(":")
            if not name:
                raise ValueError(f"a choice needs a field name ({{a|b}}:field): {pattern!r}")
            stack[-1].append(Choice(name, tuple(v.lower() for v in body.split("|")),
                                    abbreviate=len(stack) == 1))
        elif part[0].isupper():
            label, _, name = part.partition(":")
            if label not in kinds:
                raise ValueError(f"unknown kind {label!r} in form {pattern!r}; "
                                 f"known: {', '.join(sorted(kinds))}")
            stack[-1].append(Slot(name or label.lower(), kinds[label]))
        else:
            stack[-1].append(Word(tuple(part.lower().split("|"))))
    if len(stack) != 1:
        raise ValueError(f"unbalanced '[' in form {pattern!r}")
    return stack[0]


def _options_of(item: Element, required: bool) -> Iterator[Option]:
    if isinstance(item, Slot):
        yield Option(item.field, item.kind, required)
    elif isinstance(item, Choice):
        yield Option(item.field, None, required, choices=item.values)
    elif isinstance(item, Flag):
        yield Option(item.field, None, False, flag=True)
    elif isinstance(item, Group):
        for inner in item.items:
            yield from _options_of(inner, False)


def _usage(item: Element) -> str:
    if isinstance(item, Word):
        return f"[{item.text}]" if item.optional else item.text
    if isinstance(item, Slot):
        return item.kind.label
    if isinstance(item, Choice):
        return "|".join(item.values)
    if isinstance(item, Flag):
        return f"[{item.word}]"
    return "[" + " ".join(_usage(inner) for inner in item.items) + "]"


def _write(item: Element, values: Mapping[str, Any],
           show: Callable[[Slot, Any], str]) -> str:
    if isinstance(item, Word):
        return item.text
    if isinstance(item, Slot):
        value = values.get(item.field)
        return "" if _is_empty(value) else show(item, value)
    if isinstance(item, Choice):
        value = values.get(item.field)
        return "" if _is_empty(value) else str(value)
    if isinstance(item, Flag):
        return item.word if values.get(item.field) else ""
    if not any(not _is_empty(values.get(inner.field)) for inner in _fields_of(item.items)):
        return ""
    return " ".join(text for inner in item.items if (text := _write(inner, values, show)))


Binding: TypeAlias = tuple[Element, list[str]]


def _skip(words: list[str], index: int) -> int:
    while index < len(words) and words[index] == COMMA:
        index += 1
    return index


def _match(items: Sequence[Element], words: list[str], index: int,
           bound: tuple[Binding, ...]) -> Iterator[tuple[tuple[Binding, ...], int]]:
    """Ways ``items`` match words from ``index``: shortest spans first, optional parts
    present before absent."""
    if not items:
        yield bound, index
        return
    item, rest = items[0], items[1:]
    at = _skip(words, index)
    if isinstance(item, Word):
        if at < len(words) and item.accepts(words[at]):
            yield from _match(rest, words, at + 1, bound)
        if item.optional:
            yield from _match(rest, words, index, bound)
    elif isinstance(item, Slot):
        if at >= len(words):
            return
        ends = range(at + 1, len(words) + 1) if item.kind.many else (at + 1,)
        for end in ends:
            yield from _match(rest, words, end, (*bound, (item, words[at:end])))
    elif isinstance(item, Choice):
        if at < len(words) and item.pick(words[at]) is not None:
            yield from _match(rest, words, at + 1, (*bound, (item, [words[at]])))
    elif isinstance(item, Flag):
        if at < len(words) and words[at].lower() == item.word:
            yield from _match(rest, words, at + 1, (*bound, (item, [words[at]])))
        yield from _match(rest, words, index, bound)
    else:
        for inner, end in _match(item.items, words, index, bound):
            yield from _match(rest, words, end, inner)
        yield from _match(rest, words, index, bound)


def _full(items: Sequence[Element], words: list[str]) -> Iterator[list[Binding]]:
    for bound, end in _match(items, words, 0, ()):
        if _skip(words, end) == len(words):
            yield list(bound)


def _product(parts: list[tuple[Sequence[Element], list[str]]]) -> Iterator[list[Binding]]:
    if not parts:
        yield []
        return
    (items, words), rest = parts[0], parts[1:]
    for first in _full(items, words):
        for others in _product(rest):
            yield first + others


# ---- verbs and the spec ---------------------------------------------------------------------


@dataclass(frozen=True)
class Verb:
    """One kind of order: its model, the forms it is written in, and what players read.

    ``forms`` are patterns (see the module docstring), tried in order when parsing;
    formatting writes the first that fits. ``rules`` are rulebook section numbers;
    ``describe`` gives a slot's field a description of its own (default: its kind's);
    ``joiner`` separates clauses when formatting (``", "`` for a list of clauses).
    """

    model: type[Order]
    forms: tuple[str, ...]
    help: str
    rules: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    secret: bool = False
    describe: Mapping[str, str] = field(default_factory=dict)
    joiner: str = " "

    @property
    def name(self) -> str:
        """The order's name: its model's ``verb`` (``casualties``, ``setup-done``)."""
        default = self.model.model_fields["verb"].default
        assert isinstance(default, str), f"{self.model.__name__}.verb needs a default"
        return default


@dataclass(frozen=True)
class CompiledVerb:
    verb: Verb
    forms: tuple[Form, ...]

    @property
    def name(self) -> str:
        return self.verb.name

    @property
    def path(self) -> tuple[str, ...]:
        """The head words every form of this verb begins with (``decide casualties``)."""
        common = list(self.forms[0].path)
        for form in self.forms[1:]:
            size = 0
            while size < min(len(common), len(form.path)) and common[size] == form.path[size]:
                size += 1
            common = common[:size]
        return tuple(common)

    def options(self) -> list[Option]:
        """The values this order asks for, across its forms: required when every form
        requires them, in the order they first appear."""
        seen: dict[str, Option] = {}
        per_form = [{o.field: o for o in form.options()} for form in self.forms]
        for options in per_form:
            for name, option in options.items():
                if name not in seen:
                    required = all(name in other and other[name].required for other in per_form)
                    seen[name] = replace(option, required=required)
        return list(seen.values())

    def description(self, option: Option) -> str:
        if option.field in self.verb.describe:
            return self.verb.describe[option.field]
        if option.kind is not None:
            return option.kind.description
        if option.flag:
            return f"{option.field}?"
        return " | ".join(option.choices)

    def usage(self) -> list[str]:
        return [form.usage() for form in self.forms]

    def summary(self) -> str:
        """The usage of the form that asks for the most (one line for an overview)."""
        return max(self.forms, key=lambda form: len(form.options())).usage()


class OrderSpec:
    """A game's whole order notation."""

    def __init__(self, game: str, verbs: Sequence[Verb],
                 kinds: Mapping[str, Kind] | None = None) -> None:
        self.game = game
        self.kinds = {**KINDS, **(kinds or {})}
        self.verbs: tuple[CompiledVerb, ...] = tuple(
            CompiledVerb(verb, tuple(Form.compile(p, self.kinds) for p in verb.forms))
            for verb in verbs)
        self._by_model = {entry.verb.model: entry for entry in self.verbs}
        self._by_name = {entry.name: entry for entry in self.verbs}
        if len(self._by_name) != len(self.verbs):
            raise ValueError(f"{game}: two verbs share a name")
        self._words: dict[str, str] = {}  # every spelling of a first word -> its canonical
        for entry in self.verbs:
            for form in entry.forms:
                for spelling in form.head[0].spellings:
                    self._words.setdefault(spelling, form.head[0].text)

    def extend(self, *verbs: Verb, kinds: Mapping[str, Kind] | None = None) -> OrderSpec:
        """This spec with more verbs (and kinds): a variant of a game adds its orders."""
        return OrderSpec(self.game, [*(entry.verb for entry in self.verbs), *verbs],
                         {**self.kinds, **(kinds or {})})

    # ---- lookup -------------------------------------------------------------------------

    def verb(self, name: str) -> CompiledVerb:
        return self._by_name[name]

    def verb_of(self, order: Order) -> CompiledVerb:
        entry = self._by_model.get(type(order))
        if entry is None:
            raise TypeError(f"not a {self.game} order: {order!r}")
        return entry

    def declares_secret(self, order: Order) -> bool:
        """Whether the order's verb is declared secret (``Game.is_secret`` is the one
        question frontends ask: it adds standing orders)."""
        entry = self._by_model.get(type(order))
        return entry is not None and entry.verb.secret

    def first_words(self) -> list[str]:
        """The verbs a line may begin with (canonical spellings), in declaration order."""
        return list(dict.fromkeys(self._words.values()))

    def secret_words(self) -> list[str]:
        """First words of the secret verbs (a mistyped secret is still kept private)."""
        return list(dict.fromkeys(entry.forms[0].head[0].text for entry in self.verbs
                                  if entry.verb.secret))

    def usage(self, verb: str | None = None) -> list[str]:
        """Usage lines of every form (or of the verbs whose first word is ``verb``)."""
        return [line for entry in self.verbs
                if verb is None or entry.forms[0].head[0].text == verb
                for line in entry.usage()]

    def help(self, verb: str | None = None) -> str:
        """Help text: every verb in one line each, or ``verb`` in full."""
        if verb is None:
            return "\n".join(f"{entry.summary():<44} {entry.verb.help}"
                             for entry in self.verbs)
        word = self._head_word(verb.lower())
        entries = [entry for entry in self.verbs if entry.forms[0].head[0].text == word]
        if not entries:
            raise NotationError(f"no verb {verb!r}", self.first_words())
        blocks = []
        for entry in entries:
            lines = [*entry.usage(), f"  {entry.verb.help}"]
            if entry.verb.rules:
                lines.append("  rules: " + ", ".join(entry.verb.rules))
            if entry.verb.secret:
                lines.append("  secret: give it privately (a DM, or 'secret' at the console)")
            lines += [f"  e.g. {example}" for example in entry.verb.examples]
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks)

    # ---- parsing ------------------------------------------------------------------------

    def _head_word(self, word: str) -> str:
        low = word.lower()
        if low in self._words:
            return self._words[low]
        found = {canonical for spelling, canonical in self._words.items()
                 if spelling.startswith(low)}
        if len(found) != 1:
            raise NotationError(f"unknown verb {word!r}", self.first_words())
        return found.pop()

    def _candidates(self, words: list[str]) -> list[tuple[CompiledVerb, Form]]:
        """The forms ``words`` may be; abbreviated head words are replaced in ``words``
        by their full spelling."""
        first = self._head_word(words[0])
        words[0] = first
        forms = [(entry, form) for entry in self.verbs for form in entry.forms
                 if form.head[0].text == first]
        position = 1
        while forms and all(len(form.head) > position for _, form in forms):
            at = _skip(words, position)
            if at >= len(words):
                break
            known = {spelling: form.head[position].text for _, form in forms
                     for spelling in form.head[position].spellings}
            low = words[at].lower()
            found = {known[low]} if low in known else {
                canonical for spelling, canonical in known.items() if spelling.startswith(low)}
            if len(found) != 1:
                choices = sorted(set(known.values()))
                raise NotationError(f"unknown {first} {words[at]!r}", choices)
            words[at] = found.pop()
            forms = [(e, f) for e, f in forms if f.head[position].text == words[at]]
            position = at + 1
        return forms

    def read(self, text: str) -> tuple[CompiledVerb, dict[str, str]] | None:
        """The verb of ``text`` and each slot's words, unresolved (for autocomplete)."""
        words = tokens(text)
        if not words:
            return None
        try:
            forms = self._candidates(words)
        except NotationError:
            return None
        for entry, form in forms:
            start = _head_end(form, words)
            if start is None:
                continue
            for bindings in form.matches(words, start):
                return entry, {item.field: " ".join(plain(span))  # type: ignore[union-attr]
                               for item, span in bindings}
        return None

    def parse(self, text: str, names: Names | None = None) -> Order:
        names = names or {}
        words = tokens(text)
        if not plain(words):
            raise NotationError("empty order", self.usage())
        forms = self._candidates(words)
        error: NotationError | None = None
        for entry, form in forms:
            start = _head_end(form, words)
            if start is None:
                continue
            for bindings in form.matches(words, start):
                try:
                    return _build(entry, bindings, names)
                except NotationError as problem:
                    error = error or problem
        usage = list(dict.fromkeys(form.usage() for _, form in forms))
        if error is not None:
            raise NotationError(f"cannot read {text.strip()!r}: {error.message}",
                                error.legal or usage)
        missing = [form.missing(words) for _, form in forms]
        reason = missing[0] if len(set(missing)) == 1 and missing[0] else ""
        raise NotationError(f"cannot read {text.strip()!r}{reason}", usage)

    # ---- writing ------------------------------------------------------------------------

    def format(self, order: Order) -> str:
        entry = self.verb_of(order)
        values = {name: getattr(order, name) for name in type(order).model_fields
                  if name != "verb"}
        defaults = _defaults(type(order))
        for form in entry.forms:
            if form.fits(values, defaults):
                text = form.write(values, entry.verb.joiner)
                kept = _FORMATTED.get()
                if kept is not None:
                    kept.setdefault(text, order)
                return text
        raise TypeError(f"no form of {entry.name!r} writes {order!r}")

    def build(self, name: str, values: Mapping[str, Any]) -> str:
        """The order text for ``name`` from a frontend's option values (strings as typed,
        booleans for flags); the game's parser then reads it as it reads any line."""
        entry = self.verb(name)
        given = {key: value if isinstance(value, bool) else " ".join(str(value).split())
                 for key, value in values.items() if not _is_empty(value)}
        for form in entry.forms:
            named = {option.field for option in form.options()}
            if set(given) <= named and form.fits(given, {}):
                return form.write(given, entry.verb.joiner, lambda slot, value: str(value))
        raise NotationError(f"{name}: these values do not make an order ("
                            + ", ".join(sorted(given)) + ")", entry.usage())


#: While :func:`formats_kept` is open: each order formatted, by the text written for it.
_FORMATTED: ContextVar[dict[str, Order] | None] = ContextVar("formatted", default=None)


@contextmanager
def formats_kept() -> Iterator[dict[str, Order]]:
    """The orders formatted (by :meth:`OrderSpec.format`, in this thread) while the block
    runs, by their text: a listing that writes its orders as text and reads them back
    (``Game.complete_orders``) takes the order it wrote instead of parsing its own text
    again. Orders are immutable; the first order written as a text is kept."""
    kept: dict[str, Order] = {}
    token = _FORMATTED.set(kept)
    try:
        yield kept
    finally:
        _FORMATTED.reset(token)


def _head_end(form: Form, words: list[str]) -> int | None:
    """The index after ``form``'s head words in ``words``, or None if they differ."""
    index = 0
    for word in form.head:
        index = _skip(words, index)
        if index >= len(words) or not word.accepts(words[index]):
            return None
        index += 1
    return index


@cache
def _defaults(model: type[Order]) -> Mapping[str, Any]:
    """The default of each of ``model``'s optional fields (read once per order type; the
    values are compared, never changed)."""
    out: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        if not info.is_required():
            out[name] = info.get_default(call_default_factory=True)
    return out


def _build(entry: CompiledVerb, bindings: list[Binding], names: Names) -> Order:
    values: dict[str, Any] = {}
    for item, span in bindings:
        if isinstance(item, Slot):
            values[item.field] = item.kind.read(span, names)
        elif isinstance(item, Choice):
            values[item.field] = item.pick(span[0])
        elif isinstance(item, Flag):
            values[item.field] = True
    try:
        return entry.verb.model(**values)
    except ValidationError as error:
        problems = "; ".join(str(e["msg"]) for e in error.errors())
        raise NotationError(problems, entry.usage()) from None
