"""Decisions are objects (issue 22): each kind of decision is declared once, beside its rule,
with what answers it, how the answer applies and the standing policies that answer it; the
kernel's registry routes a pending decision's answer and standing orders through them."""

from __future__ import annotations

from typing import Any

import pytest

from adjudicator.kernel.decisions import Decision, Decisions, Option, PendingDecision
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.orders import Order
from adjudicator.stalingrad.game import DECISIONS as STALINGRAD
from adjudicator.stalingrad.orders import SPEC as STALINGRAD_SPEC
from adjudicator.stalingrad.orders import Casualties, Tie
from adjudicator.tanks.game import DECISIONS as TANKS


def _pending(kind: str = "tie", rule: str = "8.354") -> PendingDecision:
    return PendingDecision(kind=kind, side="german", prompt="pick the first loss", rule=rule,
                           options=(Option(order="decide tie 1rb115"),),
                           default="decide tie 1rb115")


def test_8_354_an_answer_of_another_kind_is_refused_with_the_pending_prompt() -> None:
    applied: list[Order] = []
    tie: Decision[Any] = Decision(kind="tie", verb="decide tie", rule="8.354", answers=(Tie,),
                                  apply=lambda ctx, side, order, dice: applied.append(order))
    registry: Decisions[Any] = Decisions(tie)
    with pytest.raises(RuleError) as refused:
        registry.answer(None, _pending(), "german", Casualties(), None)  # type: ignore[arg-type]
    assert refused.value.rule == "8.354" and "pick the first loss" in str(refused.value)
    assert refused.value.legal == ["decide tie 1rb115"] and applied == []
    registry.answer(None, _pending(), "german", Tie(unit="1rb115"), None)  # type: ignore[arg-type]
    assert applied == [Tie(unit="1rb115")]


def test_an_undeclared_kind_is_refused_and_a_kind_is_declared_once() -> None:
    with pytest.raises(RuleError):
        Decisions[Any]().answer(None, _pending("mystery"), "german", Tie(unit="x"),
                                None)  # type: ignore[arg-type]
    tie: Decision[Any] = Decision(kind="tie", verb="decide tie", rule="8.354")
    with pytest.raises(ValueError, match="twice"):
        Decisions(tie, tie)


def test_ask_is_never_answered_by_a_standing_order() -> None:
    always: Decision[Any] = Decision(kind="tie", verb="decide tie", rule="8.354",
                                     policies=(("first", ""), ("ask", "")),
                                     standing=lambda ctx, pending, policy: pending.default)
    registry: Decisions[Any] = Decisions(always)
    assert registry.standing_answer(None, _pending(), "first") == "decide tie 1rb115"
    assert registry.standing_answer(None, _pending(), "ask") is None


@pytest.mark.parametrize("registry", [STALINGRAD, TANKS], ids=["stalingrad", "tanks"])
def test_every_decision_names_its_rule_and_policies_and_answers_what_it_applies(
        registry: Decisions[Any]) -> None:
    kinds = [decision.kind for decision in registry]
    assert len(kinds) == len(set(kinds))
    for decision in registry:
        assert decision.rule and decision.verb and decision.policies, decision.kind
        assert (decision.apply is None) == (not decision.answers), decision.kind
        automatic = [p.policy for p in decision.standing_policies() if p.default]
        assert automatic == ([decision.automatic] if decision.automatic else [])


def test_stalingrad_decision_verbs_are_the_order_specs_verbs() -> None:
    """Each TP:S decision answered by a ``decide`` order names the verb its order's spec
    declares (8.354, 8.3551, 8.3553, 9, 15.3, 22.22, 6.2)."""
    for decision in STALINGRAD:
        for model in decision.answers:
            forms = next(v.verb.forms for v in STALINGRAD_SPEC.verbs if v.verb.model is model)
            assert all(form.startswith(decision.verb) for form in forms), decision.kind
