"""Legal orders listed compactly: one entry stands for a family of orders.

A position often allows thousands of orders that differ only in which of some units take
part (an attack by any of six units, a move of any of a stack's units to one Area, the
casualties of a combat paid by any of the Group). :class:`Listed` is one entry of a
game's complete listing (``Game.legal_options(state, side, complete=True)``): an
:class:`Option` whose ``order`` the rules accept as it stands (Tab completion, Discord
autocomplete and the mail ``legal`` submit it whole), plus ``free``, the fields in which
other orders of the family may differ:

* a unit-list field names the units that may take part: an order matches with any of them
  (a subset; the rules may still want a minimum, e.g. three Infantry to fortify);
* a single-valued field names the values it may take, or its default (e.g. ``to``);
* ``None``: any value (a path given with ``via``: the rules judge it, the listing names
  the destination).

:func:`covers` is the one test of "is this order one of the listed": the completeness
property (``tests/kernel/test_legal_complete.py``) and every frontend's ``legal`` filter
read entries the same way; an order of a stack is listed when each of its units' is.
:class:`ProbeDice` lets a listing ask a rule whether it accepts
an order without resolving it: the rule checks everything before its first roll, and the
probe stops it there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import ConfigDict, Field

from adjudicator.kernel.decisions import Option
from adjudicator.kernel.dice import Roll
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.orders import Order

#: The values a field of a family's orders may take: a tuple, or None (any).
Allowed = tuple[str, ...] | None


class Listed(Option):
    """One entry of a complete listing: ``order`` (accepted as it stands), its ``label``,
    the fields its family may vary (``free``) and how a listing shows it (``shown``, e.g.
    "attack 20 with any of i/8 ii/8 pi3"; empty: the order itself)."""

    model_config = ConfigDict(frozen=True)

    free: dict[str, Allowed] = Field(default_factory=dict)
    shown: str = ""

    @property
    def text(self) -> str:
        return self.shown or self.order

    def values(self) -> list[str]:
        """Every value the family's free fields name (units and places a filter may ask
        for)."""
        return [v for allowed in self.free.values() if allowed for v in allowed]


def listed(order: str, label: str = "", shown: str = "",
           **free: Iterable[str] | None) -> Listed:
    """A :class:`Listed` entry; each keyword is a free field with its allowed values."""
    return Listed(order=order, label=label, shown=shown,
                  free={k: None if v is None else tuple(v) for k, v in free.items()})


def any_of(units: Iterable[str]) -> str:
    """How a listing writes the units a family may use."""
    found = list(units)
    return found[0] if len(found) == 1 else "any of " + " ".join(found)


def _same(value: Any, allowed: Allowed, default: Any) -> bool:
    if allowed is None:
        return True
    if isinstance(value, tuple | list):
        return all(str(v) in allowed for v in value)
    return value == default or str(value) in allowed


def covers(entry: Option, model: Order, order: Order) -> bool:
    """Whether ``order`` is one of the family ``entry`` lists (``model``: its order,
    parsed). A plain :class:`Option` covers its own order only."""
    if type(order) is not type(model):
        return False
    free: Mapping[str, Allowed] = entry.free if isinstance(entry, Listed) else {}
    for name, info in type(order).model_fields.items():
        value = getattr(order, name)
        if name in free:
            if not _same(value, free[name], info.default):
                return False
        elif value != getattr(model, name):
            return False
    return True


class Families:
    """A complete listing read once for many questions "is this order one of the
    listed?" (:meth:`find`): each entry's order parsed and written by ``form`` (how the
    game writes an order for comparing, ``Game.listing_form``)."""

    def __init__(self, entries: Iterable[Option], parse: Callable[[str], Order],
                 form: Callable[[Order], Order] = lambda order: order) -> None:
        self.form = form
        self.models: list[tuple[Option, Order]] = []
        for entry in entries:
            try:
                self.models.append((entry, form(parse(entry.order))))
            except RuleError:
                continue

    def _first(self, order: Order) -> Option | None:
        return next((e for e, model in self.models if covers(e, model, order)), None)

    def find(self, order: Order) -> Option | None:
        """The first entry whose family holds ``order``; None when none does."""
        wanted = self.form(order)
        found = self._first(wanted)
        units = getattr(wanted, "units", None)
        if found is None and isinstance(units, tuple) and len(units) > 1:
            # A stack: each of its units may give the order (each in some family; a mixed
            # stack of units that reach the same Area by different means).
            each = [self._first(wanted.model_copy(update={"units": (u,)})) for u in units]
            found = each[0] if all(each) else None
        return found


def covered(entries: Iterable[Option], parse: Callable[[str], Order], order: Order,
            form: Callable[[Order], Order] = lambda order: order) -> Option | None:
    """The first of ``entries`` whose family holds ``order``; None when none does
    (:class:`Families` for one question; read a listing once for many)."""
    return Families(entries, parse, form).find(order)


def members(entry: Option, parse: Callable[[str], Order],
            write: Callable[[Order], str]) -> list[str]:
    """The orders a frontend offers for ``entry`` when it completes what is typed
    (autocomplete), never the family's every subset: its own order; for each list field
    it names, the order with each value alone and, for ``units``, with every unit that
    may take part (the whole stack); for each single-valued field it names, the order
    with each value allowed. One field varies at a time; a field free to any value (``None``) keeps
    the entry's own."""
    out = [entry.order]
    if not isinstance(entry, Listed) or not any(entry.free.values()):
        return out
    try:
        model = parse(entry.order)
    except RuleError:
        return out
    for name, allowed in entry.free.items():
        value = getattr(model, name, None)
        if not allowed or value is None or value == ():
            continue
        words = entry.order.split()
        # the whole stack of units first, then each value alone
        changes: list[Any] = [tuple(allowed)] if name == "units" \
            and isinstance(value, tuple) else []
        one_word = value[0] if isinstance(value, tuple) and len(value) == 1 else value
        if isinstance(one_word, str) and words.count(one_word) == 1:
            _written(out, model, name, changes, write)
            _each_in_place(out, words, one_word, allowed)
            continue
        if isinstance(value, tuple):
            changes += [(one,) for one in allowed]
        else:
            changes = [type(value)(one) if isinstance(value, str | int) else one
                       for one in allowed]
        _written(out, model, name, changes, write)
    return out


def _each_in_place(out: list[str], words: list[str], value: str, allowed: Iterable[str]
                   ) -> None:
    """``value``, one word of the order's text (``words``), replaced by each of
    ``allowed`` in its place — as the order's format writes a plain value or a unit list
    of one — without building each model; each new text added to ``out``."""
    at = words.index(value)
    for one in allowed:
        text = " ".join([*words[:at], one, *words[at + 1:]])
        if text not in out:
            out.append(text)


def _written(out: list[str], model: Order, name: str, changes: Iterable[Any],
             write: Callable[[Order], str]) -> None:
    """``model`` with its field ``name`` set to each of ``changes``, written; each new
    text added to ``out`` (a change the model refuses is skipped)."""
    for change in changes:
        try:
            text = write(type(model).model_validate({**model.model_dump(), name: change}))
        except (ValueError, TypeError, RuleError):
            continue
        if text not in out:
            out.append(text)


def complete_orders(entries: Iterable[Option], parse: Callable[[str], Order],
                    write: Callable[[Order], str]) -> list[str]:
    """Every entry's :func:`members`, in listing order, each once: what autocomplete
    searches (issue 29: every legal order reachable, field by field)."""
    seen: dict[str, None] = {}
    for entry in entries:
        for text in members(entry, parse, write):
            seen.setdefault(text, None)
    return list(seen)


class Probed(Exception):
    """A probed rule reached its first roll: everything before it accepted the order."""


class ProbeDice:
    """Dice that stop a rule at its first roll (:class:`Probed`), so a listing can ask
    whether the rule's checks accept an order without resolving it."""

    def __init__(self) -> None:
        self.rolls: list[Roll] = []

    def roll(self, label: str, count: int = 2, sides: int = 6,
             audience: str = "public") -> Roll:
        raise Probed(label)
