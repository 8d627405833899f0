"""docs/notation.md: every order of each game, its forms, slots, rules and examples —
generated from the games' own order specs, so the page cannot drift from what the games
read (a test compares it). Regenerate with ``uv run python -m bot.notation docs``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from adjudicator.kernel.game import Game
from adjudicator.kernel.shared_orders import SHARED_SPEC
from adjudicator.registry import load_game

GAMES = ("stalingrad", "tanks")

INTRO = """\
# Orders: the notation of each game

Generated from each game's order specification (`adjudicator/*/orders.py`) by
`uv run python -m bot.notation docs` — do not edit by hand: a test checks that this page is
what the games read, and every example below is a test (it is read as the order shown after
the arrow, and every counter and Area it names exists).

The same words work at the console (`umpire play`, where `help VERB` prints a verb's part of
this page), in Discord (each verb is a command; `/order` takes the text) and by email.

**Forgiving input.** Any case; extra spaces and commas; a verb may be shortened to a unique
prefix (`mo` for `move`, `decide cas` for `decide casualties`); clauses (`from`, `via`,
`to`, `with`) may come in any order; a `#` starts a comment. At the console several orders
go on one line separated by `;`.

**Names.** A unit by its id (`g14pz:i/103`), its short name — the counter's designation,
`i/103` — a number only it has (`103` if no other unit had it), or a unique prefix; a name
several units share is refused with the candidates. An Area by number (`56`), name
(`Mamayev Kurgan`, `mamayev`) or unique prefix; a Zone by letter (`C`). Stalin's Tanks hexes
are column then row (`2413`, also `24.13`); facings are `N NE SE S SW NW` (or 1-6).

**By destination.** `move UNIT to AREA` (Turning Point: Stalingrad) and `move UNIT to HEX
[face D]` (Stalin's Tanks) take the cheapest legal path and say which; the legal lists offer
each destination once with its cost (docs/rulings.md, "Move by destination").

**What `legal` lists.** Every order the rules accept now, compactly: an entry may stand for
a family of orders — `attack 20 fresh with any of i/8 ii/8 iii/8 pi3` (any of them may
join), `move any of i/269 ii/269 to 45` (the units of an Area that reach it, by any path,
`via` or not), `fortify 69 with an Engineer (1057eng)`, the casualties of a combat paid by
any units of the Group and retreating to any legal Area; a Stalin's Tanks move to a hex by
any path and with any facing at the end (a move out and back to its own hex too),
`enter all at 0101-0110` on any range of map edge hexes with any facing, combined fire by any of the
infantry that may fire at the target. Plain `legal` answers one page: each group (by verb,
or `legal by unit`) with its count and its best orders first — the strongest attack, the
cheapest move, the best odds — and the rest counted with the filter that lists them
(`... 921 more: legal move`); `legal all` lists everything. Filters are words a player
types — a verb (`fortify`), a unit by id or short name (`1mrb2`), a place (`45`,
`mamayev`, `2413`); an entry matches when a unit or place of its family does. The console
and email share the listing and the filter; Discord's autocomplete searches every family
by its whole stack and each of its units alone (typing `i/2` finds `g94:i/267`, `yel` an
Area by its name). A test draws orders of every verb from the spec (not from `legal`) over
random positions of both games and checks that each accepted one is listed and each listed
one accepted (tests/kernel/test_legal_complete.py: it prints positions × orders tried).

**Secret orders** (hidden units, mines) are typed privately: in a direct message with the
bot, or after `secret` at the console. **Standing orders** (`standing KIND POLICY`) answer a
kind of decision at once; they may be given anywhere and stay private.
"""


def _code(text: str) -> str:
    return f"`{text}`"


def _cell(text: str) -> str:
    """Text for a Markdown table cell (a '|' would end the cell)."""
    return text.replace("|", "\\|")


def game_page(game: Game[Any]) -> str:
    """One game's section: a summary table, then each verb in full."""
    spec = game.order_spec
    assert spec is not None, f"{game.name} declares no order spec"
    lines = [f"## {game.title}", "", "| order | what | rules |", "|---|---|---|"]
    for entry in spec.verbs:
        lines.append(f"| {_cell(_code(entry.summary()))} | {_cell(entry.verb.help)} | "
                     f"{', '.join(entry.verb.rules)} |")
    lines.append("")
    for entry in spec.verbs:
        lines += [f"### {' '.join(entry.path) or entry.name}", ""]
        lines += [f"    {usage}" for usage in entry.usage()]
        lines += ["", entry.verb.help[:1].upper() + entry.verb.help[1:] + "."]
        if entry.verb.rules:
            lines.append(f"Rules: {', '.join(entry.verb.rules)}.")
        if entry.verb.secret:
            lines.append("**Secret**: give it privately (a DM, or `secret` at the console).")
        options = entry.options()
        if options:
            lines += ["", "| slot | takes | required |", "|---|---|---|"]
            for option in options:
                name = option.kind.label if option.kind is not None else (
                    option.field if option.flag else "|".join(option.choices))
                lines.append(f"| {option.field} ({_cell(name)}) | "
                             f"{_cell(entry.description(option))} | "
                             f"{'yes' if option.required else 'no'} |")
        if entry.verb.examples:
            lines += ["", "Examples (typed → read as):", ""]
            for example in entry.verb.examples:
                lines.append(f"- {_code(example)} → {_code(game.format(game.parse(example)))}")
        lines.append("")
    lines += [f"### standing ({game.title})", "",
              *(f"    {usage}" for usage in SHARED_SPEC.verb("standing").usage()), "",
              "A standing order answers a kind of decision at once. A policy marked *default* "
              "answers for a side that set none (it is not asked); `standing KIND ask`, where "
              "offered, asks again.", "", "| kind | policy | what it does |", "|---|---|---|"]
    for policy in game.standing_policies():
        mark = " *(default)*" if policy.default else ""
        lines.append(f"| {policy.kind} | {policy.policy}{mark} | {_cell(policy.description)} |")
    lines.append("")
    return "\n".join(lines)


def page(games: tuple[str, ...] = GAMES) -> str:
    """The whole page: the introduction, then one section per game."""
    return "\n".join([INTRO, *(game_page(load_game(name)) for name in games)]).rstrip() + "\n"


def main(argv: list[str]) -> None:
    folder = Path(argv[0] if argv else "docs")
    target = folder / "notation.md"
    target.write_text(page(), encoding="utf-8")
    print(f"{target}: {len(page().splitlines())} lines")


if __name__ == "__main__":
    main(sys.argv[1:])
