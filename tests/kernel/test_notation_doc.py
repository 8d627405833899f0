"""docs/notation.md is generated from the games' order specs and every example in it is a
test: the page is exactly what the specs give, each example is read as the canonical order
the page shows, and each counter, Area and hex it names exists."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from adjudicator.kernel.game import Game
from adjudicator.registry import load_game
from bot.notation import GAMES, page

PAGE = Path(__file__).resolve().parents[2] / "docs" / "notation.md"
EXAMPLE = re.compile(r"^- `(?P<typed>[^`]+)` → `(?P<read>[^`]+)`$")


def test_the_page_is_what_the_specs_give() -> None:
    assert PAGE.read_text(encoding="utf-8") == page(), \
        "docs/notation.md is stale: uv run python -m bot.notation docs"


def examples() -> list[tuple[str, str, str]]:
    """(game, typed, read as) of every example on the page, by game section."""
    out: list[tuple[str, str, str]] = []
    game = ""
    titles = {load_game(name).title: name for name in GAMES}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            game = titles.get(line[3:].strip(), "")
        found = EXAMPLE.match(line)
        if found and game:
            out.append((game, found["typed"], found["read"]))
    return out


def test_every_verb_has_an_example_on_the_page() -> None:
    found = examples()
    assert len(found) > 50
    for name in GAMES:
        game = load_game(name)
        assert game.order_spec is not None
        shown = {game.parse(read).verb for g, _, read in found if g == name}  # type: ignore[attr-defined]
        assert shown == {entry.name for entry in game.order_spec.verbs}, name


def _names(game: Game[Any], text: str) -> tuple[list[str], list[str]]:
    """The unit ids and places (Areas, Zones, hexes) an order names."""
    assert game.order_spec is not None
    order = game.parse(text)
    entry = game.order_spec.verb_of(order)
    units: list[str] = []
    places: list[str] = []
    for option in entry.options():
        if option.kind is None:
            continue
        value = getattr(order, option.field, None)
        values = [str(v) for v in value] if isinstance(value, tuple | list) else (
            [str(value)] if value is not None else [])
        if option.kind.name in ("unit", "units"):
            units += values
        elif option.kind.name in ("area", "path", "hex"):
            places += values
        elif option.kind.name == "steps":
            places += [v.split()[-1] for v in values if re.fullmatch(r"\d{4}", v.split()[-1])]
        elif option.kind.name == "strikes":  # (Area, Group, unit) each
            places += [str(strike[0]) for strike in value or ()]
            units += [str(strike[2]) for strike in value or ()]
    return units, places


@pytest.mark.parametrize(("name", "typed", "read"), examples())
def test_each_example_reads_as_the_page_says_and_names_real_things(name: str, typed: str,
                                                                   read: str) -> None:
    game = load_game(name)
    assert game.format(game.parse(typed)) == read
    assert game.format(game.parse(read)) == read  # the canonical form reads as itself
    units, places = _names(game, read)
    if name == "stalingrad":
        board = game.pack_board  # type: ignore[attr-defined]
        for unit in units:
            assert unit in board.units, (typed, unit)
        for place in places:
            assert place in board.areas, (typed, place)
    else:
        ids = {u.id for scenario in game.scenarios() for u in game.setup(scenario).units}  # type: ignore[attr-defined]
        ctx = game.ctx(game.setup(None))  # type: ignore[attr-defined]
        for unit in units:
            assert unit in ids, (typed, unit)
        for place in places:
            assert ctx.on_map(place), (typed, place)
