"""A pending decision's options as a console shows them: short, best first, grouped.

The stored options stay as the rules wrote them (full unit ids, notation order); these
functions only format them for display. A long list (Stalin's Tanks' Defensive Fire: every
unit, target and ammunition, 5.1) is grouped by the order's first words (``fire flak88-2``;
``decide artillery r:fag-s``), each group shown by its best option (the highest "N%" in its
label) with a count of the others and the ``legal`` filter that lists them, best group
first, one page at a time; after a shot the same decision is summed up in one line
(:func:`options_left`), not reprinted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: How many options (or groups) a decision shows before it points to ``legal``.
PAGE = 8

_PERCENT = re.compile(r"(\d+(?:\.\d+)?)%")

#: An option as shown: (order, label).
Shown = tuple[str, str]


def odds(label: str) -> float:
    """The chance a label states ("84% to destroy" -> 84.0); -1 when it states none."""
    found = _PERCENT.search(label)
    return float(found.group(1)) if found else -1.0


def _group_key(order: str) -> str:
    words = order.split()
    return " ".join(words[:3] if words[:1] == ["decide"] else words[:2])


def _best_first(options: Sequence[Shown]) -> list[Shown]:
    """Stable: options without odds keep their place after those with odds."""
    return sorted(options, key=lambda option: -odds(option[1]))


def _verb(options: Sequence[Shown]) -> str:
    verbs = [order.split()[0] for order, _ in options if order.split()]
    return max(dict.fromkeys(verbs), key=verbs.count) if verbs else ""


def option_lines(options: Sequence[Shown], page: int = PAGE) -> list[str]:
    """The lines listing ``options``: all of them, best first, when they fit a page; else one
    line per group (its best option and how many more it holds), best group first, a page
    of them, and what lists the rest."""
    if len(options) <= page:
        return [f"{order}   {label}".rstrip() for order, label in _best_first(options)]
    groups: dict[str, list[Shown]] = {}
    for option in options:
        groups.setdefault(_group_key(option[0]), []).append(option)
    ranked = _best_first([_best_first(members)[0] for members in groups.values()])
    sizes = {_group_key(order): len(groups[_group_key(order)]) for order, _ in ranked}
    lines = [f"{len(options)} options in {len(groups)} groups, best first "
             f"('legal {_verb(options)}' lists every one):"]
    for order, label in ranked[:page]:
        more = sizes[_group_key(order)] - 1
        key = _group_key(order).split()
        word = key[1] if len(key) == 2 else key[0]  # the firer ('legal flak88-2'), or 'decide'
        extra = f"   (+{more} more: 'legal {word}')" if more else ""
        lines.append(f"{order}   {label}{extra}".rstrip())
    if len(ranked) > page:
        lines.append(f"... {len(ranked) - page} more group(s): 'legal' lists them all")
    return lines


def options_left(options: Sequence[Shown], default: str) -> str:
    """One line for a decision asked again after an answer that left it open (a shot in
    the Defensive Fire Phase): how many options are left, the best, and what lists them."""
    rest = [option for option in options if option[0] != default]
    if not rest:
        return f"only '{default}' is left"
    order, label = _best_first(rest)[0]
    verb = _verb(rest)
    best = f"{order}, {label}" if label else order
    return (f"{len(rest)} more {verb} option(s) possible (best: {best}), or "
            f"'{default}': 'legal {verb}' lists them")
