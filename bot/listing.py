"""Legal orders as a person reads them: filtered, grouped, counted, a page at a time.

``legal`` at the console, by email (and any frontend that lists orders as text) reads the
game's complete listing with its labels (``Game.legal_options(complete=True)``: a move's
cost, a shot's odds; a family of orders as one entry, "attack 20 fresh with any of i/8
ii/8 pi3", its units and places all matched by a filter),
learns from the game's own order spec which words of each order are units and which are
places (Areas, Zones, hexes), and shows each unit by its short name (``i/103``). Filters
are words a player would type: a verb (``move``, ``cross``), a unit (``i/103``, ``pan-1``),
a place (``14``, ``mamayev``, ``2413``); several filters must all match. Orders are grouped
by verb or by unit, one per line; fire orders by firer, the best odds first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.game import Game
from adjudicator.kernel.listed import Listed

#: Lines shown per page.
PAGE = 20
#: Orders an overview shows of each group (the best first); the rest are counted.
BEST = 3
_HEX = re.compile(r"^\d{4}$")
_PERCENT = re.compile(r"(\d+)%")


@dataclass(frozen=True)
class Entry:
    """One legal order: its canonical text, label, the text shown (short unit names), its
    verb, the units it moves or uses, the places it names."""

    order: str
    label: str
    shown: str
    verb: str
    units: tuple[str, ...]
    places: tuple[str, ...]
    names: tuple[str, ...] = ()  # the units' short names, as shown
    family: str = ""  # a family of orders, as listed ("move any of i/269 ii/269 to 45")

    @property
    def line(self) -> str:
        text = self.family or self.shown
        return f"{text}  ({self.label})" if self.label else text

    def variants(self) -> list[str]:
        """The texts a player may type from this entry (completion): its order and, when
        it names one unit (one place) of a family of several, the same order by each of
        the others (to each of the others)."""
        out = [self.shown]
        for name in self.names or ("",):
            for place in self.places or ("",):
                text = self.by(name, place)
                if text and text not in out:
                    out.append(text)
        return out

    def by(self, name: str, place: str = "") -> str:
        """This entry's order given by the unit ``name`` (short) of its family instead of
        the one it names, and to ``place`` instead of its first, when it names one of
        each; else ''. An order its units give together (an attack by a Group, a
        fortification by three) names them all: no unit is swapped there, or the order
        would name one twice."""
        words = self.shown.split()
        if not self.family:
            return ""
        swaps = {}
        alone = sum(unit in words for unit in self.names) == 1
        if name and alone and self.names[0] in words:
            swaps[self.names[0]] = name
        if place and self.places and self.places[0] in words:
            swaps[self.places[0]] = place
        return " ".join(swaps.get(w, w) for w in words) if swaps else ""

    @property
    def odds(self) -> float:
        """A shot's chance in its label ("72% to destroy"), for ordering fire."""
        found = _PERCENT.search(self.label)
        return int(found.group(1)) / 100 if found else 0.0


def _values(value: Any) -> list[str]:
    if value is None or value is False or value is True:
        return []
    if isinstance(value, tuple | list):
        return [str(v) for v in value]
    return [str(value)]


def entries(game: Game[Any], state: Any, side: str) -> list[Entry]:
    """The legal orders of ``side`` now, read into :class:`Entry` records."""
    spec = game.order_spec
    out: list[Entry] = []
    short: dict[str, str] = {}

    def shorten(uid: str) -> str:
        if uid not in short:
            short[uid] = game.short_unit(state, uid)
        return short[uid]

    for option in game.legal_options(state, side, complete=True):
        text = option.order
        verb = text.split()[0] if text.split() else ""
        units: list[str] = []
        places: list[str] = []
        free = option.free if isinstance(option, Listed) else {}
        if verb != "standing":
            try:
                order = game.parse(text)
                entry = spec.verb_of(order)
                verb = entry.forms[0].head[0].text
                for opt in entry.options():
                    if opt.kind is None:
                        continue
                    values = _values(getattr(order, opt.field, None))
                    values += [v for v in free.get(opt.field) or () if v not in values]
                    if opt.kind.name in ("unit", "units"):
                        units += values
                    elif opt.kind.name in ("area", "path", "hex"):
                        places += values
                    elif opt.kind.name == "steps":
                        places += [v.split()[-1] for v in values
                                   if _HEX.match(v.split()[-1])]
            except (RuleError, TypeError):
                pass
        shown = _shortened(text, set(units), shorten)
        family = _shortened(option.shown, set(units), shorten) if isinstance(
            option, Listed) and option.shown else ""
        out.append(Entry(text, option.label, shown, verb, tuple(units), tuple(places),
                         tuple(shorten(u) for u in units), family))
    return out


#: What a complete listing of legal orders is made as: every legal order's text
#: (``Game.complete_orders``, what autocomplete searches), or every legal order read for a
#: person (:func:`entries`, what the web page clicks and ``legal`` shows).
Made = Literal["orders", "entries"]


def made(what: Made, game: Game[Any], state: Any, side: str) -> list[Any]:
    """``side``'s complete listing now, made as ``what`` (the service's, or its listing
    worker's from the state's JSON: ``bot.offload``)."""
    if what == "entries":
        return entries(game, state, side)
    return game.complete_orders(state, side)


def _shortened(text: str, units: set[str], shorten: Callable[[str], str]) -> str:
    """``text`` with each of ``units`` written by its short name."""
    def word(match: re.Match[str]) -> str:
        return shorten(match.group(0)) if match.group(0) in units else match.group(0)
    return re.sub(r"[^\s,+]+", word, text)


#: A word that may be a unit id with a formation prefix ("g14pz:i/103").
UNIT_ID = re.compile(r"(?<![\w:])[a-z][a-z0-9]*:[a-z0-9/]+(?![\w:/])")


def short_text(game: Game[Any], state: Any, text: str) -> str:
    """``text`` with unit ids written by their short names (``g14pz:i/103`` -> ``i/103``),
    as a player types them."""
    return UNIT_ID.sub(lambda m: game.short_unit(state, m.group(0)), text)


@dataclass
class Filter:
    """What a ``legal`` line asks for: filters (kind, key, as typed), a grouping."""

    verbs: list[str] = field(default_factory=list)
    units: list[str] = field(default_factory=list)
    places: list[str] = field(default_factory=list)
    group: str | None = None  # "unit" | "verb" | None: by verb
    words: list[str] = field(default_factory=list)

    def matches(self, entry: Entry) -> bool:
        return (all(v == entry.verb for v in self.verbs)
                and all(u in entry.units for u in self.units)
                and all(p in entry.places for p in self.places))

    def describe(self) -> str:
        return " ".join(self.words)


def read_filter(words: Sequence[str], verbs: Iterable[str],
                resolvers: dict[str, Callable[[str], str]]) -> Filter:
    """Read ``legal`` arguments: ``by unit``/``by verb``, verbs, units, places. A word that
    is none of them raises :class:`RuleError` with the game's own "did you mean"."""
    wanted = Filter(words=list(words))
    known = list(verbs)
    rest = list(words)
    while rest:
        word = rest.pop(0)
        low = word.lower()
        if low == "by" and rest:
            kind = rest.pop(0).lower()
            if kind not in ("unit", "units", "verb", "verbs"):
                raise RuleError("legal", f"group by unit or by verb, not {kind!r}",
                                ["legal by unit", "legal by verb"])
            wanted.group = "unit" if kind.startswith("unit") else "verb"
            continue
        exact = [v for v in known if v == low]
        prefixed = exact or [v for v in known if v.startswith(low)]
        if len(prefixed) == 1:
            wanted.verbs.append(prefixed[0])
            continue
        problems: list[RuleError] = []
        for kind, target in (("unit", wanted.units), ("place", wanted.places)):
            resolve = resolvers.get(kind)
            if resolve is None:
                continue
            try:
                target.append(resolve(word))
                break
            except RuleError as error:
                problems.append(error)
        else:
            ambiguous = [p for p in problems if "ambiguous" in p.message]
            close = [p for p in problems if "did you mean" in p.message]
            hints = ambiguous or close or problems
            raise RuleError("legal", f"{word!r} is no verb, unit or place here"
                            + (f" ({hints[0].message})" if hints else "")
                            + "; verbs: " + ", ".join(known))
    return wanted


@dataclass
class Listing:
    """A grouped, paged listing: ``lines`` to show, ``title`` (the count)."""

    title: str
    lines: list[str]
    shown: int = 0

    def page(self, size: int = PAGE) -> tuple[list[str], int]:
        """The next page of lines and how many remain after it."""
        chunk = self.lines[self.shown:self.shown + size]
        self.shown += len(chunk)
        return chunk, len(self.lines) - self.shown


def _line(entry: Entry, wanted: Filter) -> str:
    """An entry's line; a family asked for by one of its units shown as that unit's order
    ("legal i/269": ``move i/269 to 45``, not the family of every unit that may go)."""
    for uid in wanted.units:
        if uid not in entry.units:
            continue
        name = entry.names[entry.units.index(uid)]
        ordered = [entry.names[entry.units.index(u)] for u in sorted(entry.units)]
        everyone = "any of " + " ".join(ordered)
        text = entry.family.replace(everyone, name) if everyone in entry.family else ""
        text = text if len(entry.places) > 1 else entry.by(name) or text
        if text:
            return f"{text}  ({entry.label})" if entry.label else text
    return entry.line


def _best(members: list[Entry]) -> list[Entry]:
    """A group's entries, the best first: shots by their odds; attacks by how many units
    may join (the strongest first); moves by their cost (the cheapest first); otherwise
    as the game lists them."""
    def score(entry: Entry) -> tuple[float, ...]:
        if entry.verb in ("fire", "assault"):
            return (-entry.odds,)
        if entry.verb == "attack":
            return (-len(entry.units),)
        if entry.verb == "move":
            found = _COST.match(entry.label)
            return (int(found.group(1)) if found else 99,)
        return ()
    return sorted(members, key=score)


_COST = re.compile(r"(\d+)(?:-\d+)? MF")


def listing(found: list[Entry], wanted: Filter, side: str, total: int,
            brief: bool = True) -> Listing:
    """The matching entries grouped (by verb, or by unit; fire by firer), the best first
    in each group, one per line under a heading per group with its count.

    ``brief`` (issue 23: short answers): when nothing narrows the listing and it is
    longer than a page, each group shows its :data:`BEST` best orders and counts the
    rest with the filter that lists them (``... 74 more: legal attack``)."""
    chosen = [e for e in found if wanted.matches(e)]
    groups: dict[str, list[Entry]] = {}
    asks: dict[str, str] = {}  # a group -> the filter that lists it whole
    by_unit = wanted.group == "unit"
    for entry in chosen:
        if entry.verb in ("fire", "assault") and entry.names:
            key = f"{entry.verb} by {entry.names[0]}"
            ask = f"{entry.verb} {entry.names[0]}"
        elif by_unit:
            key = ask = entry.names[0] if entry.names else entry.verb
        else:
            key = ask = entry.verb
        groups.setdefault(key, []).append(entry)
        asks.setdefault(key, ask)
    short = brief and not wanted.verbs and not wanted.units and not wanted.places and sum(
        len(members) + 1 for members in groups.values()) > PAGE
    lines: list[str] = []
    for key, members in groups.items():
        members = _best(members)
        lines.append(f"{key} ({len(members)}):")
        shown = members[:BEST] if short else members
        lines += [f"  {_line(m, wanted)}" for m in shown]
        if len(members) > len(shown):
            lines.append(f"  ... {len(members) - len(shown)} more: legal {asks[key]}")
    what = f" matching '{wanted.describe()}'" if wanted.describe() else ""
    title = (f"{len(chosen)} legal order(s) for {side}{what}"
             + (f" (of {total})" if what else "")
             + (f" in {len(groups)} group(s)" if len(groups) > 1 else "")
             + (", the best of each" if short else ""))
    return Listing(title, lines)


def order_verbs(game: Game[Any], orders: Iterable[str], *, secret: bool = False) -> list[str]:
    """The names of the order spec's verbs among ``orders`` (legal orders, canonical), in
    the order they first appear; ``secret``: only the orders that must be given privately
    (:meth:`Game.secrecy`, the one answer: what a frontend tells a side to send in a DM).
    An order led by the head word of no secret verb is not read for ``secret`` (reading
    every legal order took tens of ms after every action: issue 26)."""
    spec = game.order_spec
    public_heads: set[str] = set()
    if secret:
        secret_heads = game.secret_heads()
        if not secret_heads:
            return []
        public_heads = {word.lower() for word in spec.first_words()} - secret_heads
    found: list[str] = []
    for order in orders:
        head = order.split(None, 1)[:1]
        if head and head[0].lower() in public_heads:
            continue
        read = spec.read(order)
        if read is not None and (not secret or game.secrecy(order).private_only) \
                and read[0].name not in found:
            found.append(read[0].name)
    return found


def canonical_order(game: Game[Any], text: str) -> str | None:
    """The canonical text of an order (what the legal list holds), or None when the game
    cannot read it: how autocomplete matches a candidate it built against the rules."""
    try:
        return game.format(game.parse(text))
    except (RuleError, ValueError):
        return None
