"""The declarative order spec: one declaration gives parsing, formatting, usage and help."""

from __future__ import annotations

from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.kernel.errors import NotationError
from adjudicator.kernel.orders import Order
from adjudicator.kernel.spec import OrderSpec, Verb
from adjudicator.registry import load_game
from tests.kernel.duel import DuelGame


class March(Order):
    verb: Literal["march"] = "march"
    units: tuple[str, ...]
    to: str
    origin: str | None = None
    pace: Literal["slow", "fast"] | None = None
    quiet: bool = False


class Halt(Order):
    verb: Literal["halt"] = "halt"
    count: int | None = None


class Signal(Order):
    verb: Literal["signal"] = "signal"
    colour: Literal["red", "green"]


TOY = OrderSpec("toy", [
    Verb(March, ("march UNITS [{slow|fast}:pace] [from AREA:origin] to|into AREA:to "
                 "[quietly]:quiet",), "march somewhere", ("T1",), ("march a b to 3",)),
    Verb(Halt, ("halt", "halt NUMBER:count"), "stop", ("T2",), ("halt", "halt 2")),
    Verb(Signal, ("signal {red|green}:colour",), "signal", ("T3",), ("signal red",),
         secret=True),
])


def test_clauses_come_in_any_order_and_format_canonically() -> None:
    order = TOY.parse("MARCH a, b from 1 to 3")
    assert order == March(units=("a", "b"), origin="1", to="3")
    assert TOY.parse("march a b into 3 from 1") == order
    assert TOY.format(order) == "march a b from 1 to 3"
    assert TOY.format(TOY.parse("march a fast to 3 quietly")) == "march a fast to 3 quietly"


def test_forms_are_tried_in_order_and_the_first_that_fits_is_written() -> None:
    assert TOY.parse("halt") == Halt()
    assert TOY.parse("ha 2") == Halt(count=2)
    assert TOY.format(Halt(count=2)) == "halt 2" and TOY.format(Halt()) == "halt"
    with pytest.raises(NotationError, match="not a number"):
        TOY.parse("halt two")


def test_a_required_choice_may_be_abbreviated_an_optional_one_not() -> None:
    assert TOY.parse("sig gr") == Signal(colour="green")
    # 'fa' is not taken for 'fast': it may be the next unit of the list
    assert TOY.parse("march a fa to 3") == March(units=("a", "fa"), to="3")


def test_errors_name_what_is_missing_and_list_the_forms() -> None:
    with pytest.raises(NotationError) as error:
        TOY.parse("march a b 3")
    assert "missing 'to AREA'" in error.value.message
    assert error.value.legal == ["march UNITS [slow|fast] [from AREA] to AREA [quietly]"]
    with pytest.raises(NotationError, match="unknown verb 'run'") as unknown:
        TOY.parse("run")
    assert unknown.value.legal == ["march", "halt", "signal"]
    with pytest.raises(NotationError, match="empty order"):
        TOY.parse("  # only a comment")


def test_help_is_built_from_the_declaration() -> None:
    text = TOY.help("march")
    assert "march UNITS [slow|fast] [from AREA] to AREA [quietly]" in text
    assert "rules: T1" in text and "e.g. march a b to 3" in text
    assert "secret" in TOY.help("signal")
    assert [line.split()[0] for line in TOY.help().splitlines()] == ["march", "halt", "signal"]


def test_build_reads_option_values_into_the_form_that_takes_them() -> None:
    assert TOY.build("march", {"units": "a  b", "to": "3", "origin": None, "quiet": True}) \
        == "march a b to 3 quietly"
    assert TOY.build("halt", {"count": 4}) == "halt 4"
    assert TOY.build("halt", {}) == "halt"
    with pytest.raises(NotationError):
        TOY.build("march", {"units": "a"})


def test_read_gives_each_slots_words_for_autocomplete() -> None:
    found = TOY.read("march a b fast from 1 to 3")
    assert found is not None
    verb, slots = found
    assert verb.name == "march"
    assert slots == {"units": "a b", "pace": "fast", "origin": "1", "to": "3"}
    assert TOY.read("nonsense") is None


def test_secret_verbs_are_marked_once() -> None:
    assert TOY.declares_secret(Signal(colour="red")) and not TOY.declares_secret(Halt())
    assert TOY.secret_words() == ["signal"]


def test_a_broken_declaration_fails_when_it_is_made() -> None:
    with pytest.raises(ValueError, match="unknown kind 'PLACE'"):
        OrderSpec("bad", [Verb(Halt, ("halt PLACE",), "x")])
    with pytest.raises(ValueError, match="unbalanced"):
        OrderSpec("bad", [Verb(Halt, ("halt [NUMBER:count",), "x")])
    with pytest.raises(ValueError, match="begin with its verb"):
        OrderSpec("bad", [Verb(Halt, ("NUMBER:count",), "x")])


@pytest.mark.parametrize("game", ["stalingrad", "tanks", "duel"])
def test_every_example_of_every_verb_is_canonical(game: str) -> None:
    rules = DuelGame() if game == "duel" else load_game(game)
    spec = rules.order_spec
    assert spec is not None
    for verb in spec.verbs:
        assert verb.verb.examples, verb.name
        for example in verb.verb.examples:  # as a player types it (short names, 'into')
            order = rules.parse(example)
            assert isinstance(order, verb.verb.model), example
            canonical = rules.format(order)
            assert rules.format(rules.parse(canonical)) == canonical


def test_game_help_covers_each_verb_and_standing_orders() -> None:
    tanks = load_game("tanks")
    assert "move UNIT STEP..." in tanks.help("move") and "8.3" in tanks.help("mo")
    assert "standing KIND POLICY" in tanks.help()
    assert "standing KIND POLICY" in tanks.help("standing")
    with pytest.raises(NotationError):
        tanks.help("teleport")


@given(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=4, unique=True),
       st.sampled_from(["1", "2"]), st.sampled_from([None, "5"]),
       st.sampled_from([None, "slow", "fast"]), st.booleans())
def test_toy_round_trip(units: list[str], to: str, origin: str | None, pace: str | None,
                        quiet: bool) -> None:
    order = March(units=tuple(units), to=to, origin=origin, pace=pace,  # type: ignore[arg-type]
                  quiet=quiet)
    assert TOY.parse(TOY.format(order)) == order



@pytest.mark.parametrize("game", ["stalingrad", "tanks"])
def test_each_form_reads_its_fields_once_as_its_options_name_them(game: str) -> None:
    """Formatting asks every form which fields it names and requires (``fits``); the
    answer is kept per form and must be what its options say, for every verb of both games
    (a kept answer of another form, or a stale one, would write orders with the wrong
    form)."""
    spec = load_game(game).order_spec
    assert spec is not None
    for verb in spec.verbs:
        for form in verb.forms:
            options = form.options()
            assert form._fields == (frozenset(o.field for o in options),
                                    tuple(o.field for o in options if o.required))
