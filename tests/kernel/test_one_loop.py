"""The multi-line loop is written once (issue 22): the kernel's :func:`apply_lines`, which
``Game.submit_lines`` and the service's submissions both run."""

from __future__ import annotations

import inspect

import pytest

from adjudicator.kernel.dice import Dice, FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.game import Applied, Game, Refused, apply_lines
from adjudicator.kernel.orders import Order
from bot.service.submit import Submitting
from tests.kernel.test_contracts import GAME, started


def test_the_service_runs_the_kernels_one_loop() -> None:
    """The service neither walks the lines nor applies an order itself: it hands its lines
    to :func:`apply_lines` (the only multi-line loop; ``Game`` has none of its own)."""
    source = inspect.getsource(Submitting._lines_plan)
    assert "apply_lines(" in source
    assert ".apply(" not in source and "enumerate(lines" not in source
    assert not hasattr(Game, "submit_lines")


def test_a_defect_on_a_line_is_that_lines_refusal_when_the_caller_asks() -> None:
    """``internal`` turns any other exception into the line's refusal (the service's
    "internal error": nothing of the line is applied); without it the defect propagates."""
    def broken(order: Order) -> Dice:
        if order.verb == "pass":
            raise KeyError("defect")
        return FixedDice()

    def internal(error: Exception, number: int) -> RuleError:
        return RuleError("internal", f"line {number}: {type(error).__name__}")

    steps = list(apply_lines(GAME, started(), "red", ["move r1 2", "pass", "pass"], broken,
                             internal))
    assert [type(step) for step in steps] == [Applied, Refused]
    refused = steps[1]
    assert isinstance(refused, Refused) and refused.number == 2
    assert refused.error.rule == "internal" and "KeyError" in str(refused.error)
    with pytest.raises(KeyError):
        list(apply_lines(GAME, started(), "red", ["move r1 2", "pass"], broken))
