"""Order commands and autocomplete, without Discord: both games' notations, forgiving
matching, and suggestions on a full Stalingrad position (its speed: ``umpire bench
autocomplete``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.spec import OrderSpec
from adjudicator.registry import load_game
from bot.discord import autocomplete
from bot.discord.autocomplete import MAX_CHOICE_LENGTH, rank, suggest, suggest_orders
from bot.discord.verbs import secret_commands, verb_commands
from tests.kernel.duel import DuelGame

TPS = ["move 24pz 71inf to 12", "move 24pz via 11 to 13", "attack 12 fresh with 24pz 71inf",
       "attack 14 with 389inf", "pass", "end"]


def spec_of(name: str) -> OrderSpec:
    spec = load_game(name).order_spec
    assert spec is not None
    return spec


def test_commands_build_each_games_canonical_text_from_its_spec() -> None:
    stalingrad, tanks, duel = spec_of("stalingrad"), spec_of("tanks"), DuelGame.order_spec
    assert duel is not None
    assert stalingrad.build("move", {"units": "24pz 71inf", "to": "12"}) == \
        "move 24pz 71inf to 12"
    assert stalingrad.build("move", {"units": "a", "via": "11", "to": "13", "origin": None}) \
        == "move a via 11 to 13"
    assert stalingrad.build("attack", {"units": "24pz", "area": "12"}) == "attack 12 with 24pz"
    assert stalingrad.build("reinforcements", {"units": "g1", "zone": "C"}) == \
        "decide reinforcements g1 in C"
    assert stalingrad.build("reinforcements", {}) == "decide reinforcements delay"
    assert tanks.build("move", {"unit": "t34a-1", "steps": "0101 0201 face NE"}) == \
        "move t34a-1 0101 0201 face NE"
    assert tanks.build("fire", {"units": "t34a-1", "target": "pak75-1", "mode": None}) == \
        "fire t34a-1 at pak75-1"
    assert tanks.build("assault", {"unit": "a", "target": "b", "suicide": True}) == \
        "assault a at b suicide"
    assert tanks.build("place", {"unit": "a", "hex": "0101", "facing": "NE"}) == \
        "place a 0101 face NE"
    assert duel.build("move", {"unit": "r1", "cell": "2"}) == "move r1 2"
    assert duel.build("pass", {}) == "pass"


def test_each_verb_is_one_subcommand_and_decisions_share_a_group() -> None:
    paths = {c.verb.name: c.path for c in verb_commands("stalingrad", spec_of("stalingrad"))}
    assert paths["move"] == ("move",) and paths["casualties"] == ("decide", "casualties")
    assert paths["setup-done"] == ("setup-done",) and paths["setup"] == ("setup",)
    move = next(c for c in verb_commands("stalingrad", spec_of("stalingrad"))
                if c.verb.name == "move")
    options = move.options()
    assert [o.field for o in options] == ["units", "to", "origin", "via"]  # required first
    assert [o.required for o in options] == [True, True, False, False]


def test_multi_word_options_are_read_from_legal_orders() -> None:
    spec = spec_of("stalingrad")
    move, attack = spec.verb("move"), spec.verb("attack")
    assert suggest(spec, move, TPS, "to", {"units": "24pz"}, "") == ["12", "13"]
    assert suggest(spec, attack, TPS, "area", {}, "") == ["12", "14"]
    assert suggest(spec, attack, TPS, "group", {"area": "12"}, "") == ["fresh"]
    assert suggest(spec, attack, TPS, "units", {"area": "14"}, "") == ["389inf"]
    assert suggest(spec, attack, TPS, "units", {}, "71") == ["24pz 71inf"]


def test_forgiving_matching_and_order_completion() -> None:
    assert rank(["Mamayev Kurgan", "Tractor Factory", "Red October"], "oct")[0] == "Red October"
    assert rank(["Mamayev Kurgan", "Red October"], "mam") == ["Mamayev Kurgan"]
    assert rank(["alpha", "beta"], "") == ["alpha", "beta"]
    assert rank(["r10nkvd:i/269", "r10nkvd:ii/270"], "270") == ["r10nkvd:ii/270"]
    assert suggest_orders(TPS, "att 14")[0] == "attack 14 with 389inf"
    assert suggest_orders(TPS, "pass\nen")[0] == "pass\nend"


def test_ranking_stops_reading_once_enough_prefixes_match_and_ranks_as_a_full_read() -> None:
    """``/order``'s autocomplete ranks on the bot's event loop: once ``limit`` candidates
    match as a prefix, no later one can rank before them, so they are not read; what it
    offers is what reading every candidate offers (issue 26)."""
    listing = ([f"attack {n} with r{n}" for n in range(40)]
               + [f"move r{n} to {n + 1}" for n in range(3000)] + ["move dup", "move dup"])
    read: list[str] = []

    def counted() -> Iterator[str]:
        for candidate in listing:
            read.append(candidate)
            yield candidate

    def full(typed: str) -> list[str]:  # every candidate scored, then the best first
        scored = {c: (score, i) for i, c in reversed(list(enumerate(listing)))
                  if (score := autocomplete.matches(c, typed)) is not None}
        return sorted(scored, key=lambda c: scored[c])[:autocomplete.MAX_CHOICES]

    assert rank(counted(), "mo") == full("mo")
    assert len(read) == 40 + autocomplete.MAX_CHOICES  # the rest of the moves unread
    for typed in ("", "r1", "to 2", "move r29", "attack", "dup", "zz"):
        assert rank(listing, typed) == full(typed), typed


def test_secret_commands_name_the_secret_verbs_among_legal_orders() -> None:
    """The DM prompt's commands (whether a typed order is refused in a thread is the
    service's: tests/bot/test_one_door.py)."""
    tanks = load_game("tanks")
    duel = DuelGame()
    assert secret_commands(tanks, ["place pak75-1 0101", "hide pak75-1 0102",
                                   "hide pak75-2 0103", "mine 0505", "done"]) == \
        ["/tanks hide", "/tanks mine"]
    assert secret_commands(duel, ["trap 3", "move r1 2"]) == ["/duel trap"]


def _first_impulse() -> list[str]:
    """The legal orders of the Stalingrad historical scenario's first impulse (its initial
    Rubble rolled, 5.7, any Advantage question answered)."""
    game = load_game("stalingrad")
    state = game.setup("historical")
    dice = CommittedDice(b"autocomplete", "test")
    for _ in range(40):
        side = game.acting_side(state)
        assert side is not None
        legal = game.legal_orders(state, side)
        if any(order.startswith("move ") for order in legal):
            return legal
        state = game.apply_text(state, side, legal[0], dice).state
    raise AssertionError("no impulse with moves within 40 orders")


def test_autocomplete_on_a_full_stalingrad_position_offers_legal_values() -> None:
    legal = _first_impulse()
    spec = spec_of("stalingrad")
    moves = [order for order in legal if order.startswith("move ")]
    assert moves
    units = suggest(spec, spec.verb("move"), legal, "units", {}, "")
    assert units and all(any(order.startswith(f"move {u} ") for order in moves) for u in units)
    destinations = suggest(spec, spec.verb("move"), legal, "to", {"units": units[0]}, "")
    assert destinations
    for to in destinations:
        assert any(order.startswith(f"move {units[0]} ") and order.endswith(f" to {to}")
                   for order in moves), to


def test_27_12_a_long_typed_value_costs_what_discords_100_characters_cost(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27.12: a 6,000-character typed value against the legal orders of a full
    Stalingrad position is cut at Discord's 100 characters (an option value's limit) before
    anything is compared: every match compares at most 100 typed characters, so one call
    compares at most (legal orders) x 200 characters; the game's parser reads no more."""
    legal = _first_impulse()
    spec = spec_of("stalingrad")
    move = spec.verb("move")
    game = load_game("stalingrad")
    compared = [0]
    longest = [0]
    parsed = [0]  # the longest text the game's parser read
    real = autocomplete.matches

    def counting(candidate: str, typed: str) -> int | None:
        compared[0] += len(candidate) + len(typed)
        longest[0] = max(longest[0], len(typed))
        return real(candidate, typed)

    def canonical(text: str) -> str | None:
        parsed[0] = max(parsed[0], len(text))
        try:
            return game.format(game.parse(text))
        except (RuleError, ValueError):
            return None

    monkeypatch.setattr(autocomplete, "matches", counting)
    long = "move 24pz " + "7" * 5990
    calls: dict[str, Callable[[], object]] = {
        "units": lambda: suggest(spec, move, legal, "units", {}, long, canonical),
        "to": lambda: suggest(spec, move, legal, "to", {"units": long}, long, canonical),
        "order": lambda: suggest_orders(legal, long),
        "rank": lambda: rank(legal, long),
    }
    for name, call in calls.items():
        compared[0] = longest[0] = parsed[0] = 0
        call()
        assert longest[0] <= MAX_CHOICE_LENGTH, (name, longest[0])
        assert parsed[0] <= 3 * MAX_CHOICE_LENGTH, (name, parsed[0])  # two slots' values
        assert 0 < compared[0] <= len(legal) * 2 * MAX_CHOICE_LENGTH, (name, compared[0])
    # What fits in 100 characters still matches as before.
    assert rank(["move 24pz to 12"], "move 24pz" + " " * 200) == ["move 24pz to 12"]


def test_29_an_area_is_found_by_its_printed_name_3_2() -> None:
    """3.2, issue 29: with the game's place names, "yel" finds the Yelshanka Areas (by
    their keys: the value submitted stays the key) and the key still finds its Area."""
    names = load_game("stalingrad").place_names()
    yelshanka = sorted(k for k, name in names.items() if name.lower().startswith("yel"))
    assert yelshanka
    spec = spec_of("stalingrad")
    legal = [f"move 24pz to {key}" for key in ["1", "3", *yelshanka]]
    found = suggest(spec, spec.verb("move"), legal, "to", {"units": "24pz"}, "yel",
                    names=names)
    assert sorted(found) == yelshanka
    assert suggest(spec, spec.verb("move"), legal, "to", {"units": "24pz"}, "yel") == []
    assert suggest(spec, spec.verb("move"), legal, "to", {}, "3", names=names)[0] == "3"
    assert autocomplete.labelled("3", names) == f"3 {names['3']}"
