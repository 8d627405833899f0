"""An order model names its verb once, in its class line; the kernel's ``Order`` makes it the
model's first field (a ``Literal`` with that default), as every game's notation reads it."""

from __future__ import annotations

import inspect
from typing import Literal

import pytest
from pydantic import ValidationError

import adjudicator.stalingrad.orders as stalingrad_orders
import adjudicator.tanks.orders as tanks_orders
from adjudicator.kernel.orders import Order, Resign, SetStanding


class March(Order, verb="march"):
    """A test order with fields."""

    to: str


class Halt(Order, verb="halt"):
    """A test order that is its verb alone."""


class Common(Order):
    """A base of orders that is no order itself: no verb."""

    unit: str


class Dig(Common, verb="dig"):
    """A test order with its base's fields."""


def test_the_verb_is_the_first_field_a_literal_with_its_default() -> None:
    assert list(March.model_fields) == ["verb", "to"]
    assert March.model_fields["verb"].annotation == Literal["march"]
    assert March(to="x").model_dump() == {"verb": "march", "to": "x"}
    assert Halt().model_dump() == {"verb": "halt"}
    assert Dig(unit="u").model_dump() == {"unit": "u", "verb": "dig"}
    assert "verb" not in Common.model_fields


def test_another_verb_is_refused_and_the_verb_is_named_once() -> None:
    with pytest.raises(ValidationError):
        March(verb="halt", to="x")  # type: ignore[call-arg]
    assert March.model_validate({"verb": "march", "to": "x"}) == March(to="x")
    with pytest.raises(TypeError, match="named once"):
        class Twice(Order, verb="twice"):
            verb: Literal["twice"] = "twice"


@pytest.mark.parametrize("module", [stalingrad_orders, tanks_orders],
                         ids=["stalingrad", "tanks"])
def test_every_order_of_both_games_and_the_kernel_has_its_verb(module: object) -> None:
    models: list[type[Order]] = [
        obj for _, obj in inspect.getmembers(module, inspect.isclass)
        if issubclass(obj, Order) and obj.__module__ == getattr(module, "__name__", "")
        and "verb" in obj.model_fields]
    assert len(models) >= 10
    for model in [*models, SetStanding, Resign]:
        default = model.model_fields["verb"].default
        assert isinstance(default, str) and model.model_fields["verb"].annotation == \
            Literal[default], model
