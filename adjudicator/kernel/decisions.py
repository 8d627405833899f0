"""Decisions are states, not callbacks.

When the rules hand a choice to a player, the state carries a :class:`PendingDecision`:
who decides, the legal answers (each an order in the game's notation, so a button, an
email line and a console line all submit the same text), and a legal default. The game
waits until that side answers, unless the side's standing order for that kind of
decision answers at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.orders import Order


class Option(BaseModel):
    """One legal answer: the order text that gives it, and a short human label."""

    model_config = ConfigDict(frozen=True)

    order: str
    label: str = ""


class PendingDecision(BaseModel):
    """A choice the rules give ``side``; the game waits for one of ``options``."""

    model_config = ConfigDict(frozen=True)

    kind: str
    side: str
    prompt: str
    rule: str = ""
    options: tuple[Option, ...]
    default: str
    data: dict[str, Any] = Field(default_factory=dict)

    def option_orders(self) -> list[str]:
        return [option.order for option in self.options]


class StandingPolicy(BaseModel):
    """A policy a side may set for one kind of decision, described for players.

    ``default``: the policy answers this kind of decision for a side that has set none, so
    the side is not asked about choices that rarely matter (the Advantage it would not use,
    a voluntary retreat it would not make); ``standing KIND ask`` (or any other policy)
    overrides it."""

    model_config = ConfigDict(frozen=True)

    kind: str
    policy: str
    description: str
    default: bool = False


class SetupGuide(BaseModel):
    """What a side entering a secret set-up has left to do, for frontends to show.

    ``left``: what is still to place ("units: pak75-1, pak75-2 (hide or place)",
    "mines: 3 of 5"); ``where``: where it may go (the set-up zone as hexes); ``forfeit``:
    what a ``done`` now gives up (mines not written down); ``blocked``: why ``done`` is
    refused now (units still to set up), if it is; ``placed``: what the side has set up so
    far, one line each (its own secrets: for its players only)."""

    model_config = ConfigDict(frozen=True)

    left: list[str] = Field(default_factory=list)
    where: list[str] = Field(default_factory=list)
    forfeit: list[str] = Field(default_factory=list)
    blocked: str | None = None
    placed: list[str] = Field(default_factory=list)


# ---- decisions as objects: what a kind of decision is, beside the rule that raises it ------

#: The rules' context a game's decisions read and change (each game's ``Ctx``).
C = TypeVar("C")

#: How an answer applies: ``apply(ctx, side, order, dice)`` changes the state (or refuses).
Apply = Callable[[C, str, Order, Dice], None]
#: The order text a standing policy gives: ``standing(ctx, decision, policy)``; None: ask.
Standing = Callable[[C, PendingDecision, str], "str | None"]

#: The policy name that always means "ask me" (no answer by standing order).
ASK = "ask"


@dataclass(frozen=True)
class Decision(Generic[C]):
    """One kind of decision the rules give a side, declared beside the rule that raises it.

    ``kind`` names it (``standing KIND POLICY``); ``verb`` is the order that answers it
    (``decide casualties``); ``rule`` the rule number. ``answers``: the order types that
    answer it and ``apply``: how such an answer changes the state (None when the phase's
    own orders answer it, as Stalin's Tanks' Defensive Fire). ``policies``: the standing
    policies a side may set for it, ``(policy, description)`` in the order players read
    them (the first is what the default answer does); ``automatic``: the policy that
    answers for a side that has set none, if any; ``standing``: the order text a policy
    gives (None: ask). The prompt and options of a pending decision are built where the
    rule raises it, in the same module.

    >>> Decision(kind="tie", verb="decide tie", rule="10.4",
    ...          policies=(("strongest", "the strongest loses first"),)).policy_names()
    ['strongest']
    """

    kind: str
    verb: str
    rule: str
    answers: tuple[type[Order], ...] = ()
    apply: Apply[C] | None = None
    policies: tuple[tuple[str, str], ...] = ()
    automatic: str | None = None
    standing: Standing[C] | None = None

    def policy_names(self) -> list[str]:
        return [name for name, _ in self.policies]

    def standing_policies(self) -> list[StandingPolicy]:
        return [StandingPolicy(kind=self.kind, policy=name, description=description,
                               default=name == self.automatic)
                for name, description in self.policies]

    def takes(self, order: Order) -> bool:
        """Whether ``order`` answers this kind of decision."""
        return self.apply is not None and isinstance(order, self.answers)


class Decisions(Generic[C]):
    """A game's kinds of decision, written once for both games: the registry the game's
    ``resolve`` routes a pending decision's answer through, and standing orders read.

    >>> tie = Decision(kind="tie", verb="decide tie", rule="10.4")
    >>> Decisions(tie).get("tie") is tie
    True
    """

    def __init__(self, *decisions: Decision[C]) -> None:
        self._kinds: dict[str, Decision[C]] = {}
        for decision in decisions:
            if decision.kind in self._kinds:
                raise ValueError(f"decision kind {decision.kind!r} declared twice")
            self._kinds[decision.kind] = decision

    def __iter__(self) -> Iterator[Decision[C]]:
        return iter(self._kinds.values())

    def get(self, kind: str) -> Decision[C] | None:
        return self._kinds.get(kind)

    def policies(self) -> list[StandingPolicy]:
        """Every kind's standing policies, kind by kind in declaration order."""
        return [policy for decision in self for policy in decision.standing_policies()]

    def answer(self, ctx: C, pending: PendingDecision, side: str, order: Order,
               dice: Dice) -> None:
        """Apply ``order`` as the answer to ``pending``; refused (the pending prompt and
        its options) when it does not answer that kind of decision."""
        decision = self._kinds.get(pending.kind)
        if decision is None or decision.apply is None or not decision.takes(order):
            raise RuleError(pending.rule or "decision",
                            f"answer the pending decision first: {pending.prompt}",
                            pending.option_orders())
        decision.apply(ctx, side, order, dice)

    def standing_answer(self, ctx: C, pending: PendingDecision, policy: str) -> str | None:
        """The order text ``policy`` gives for ``pending``; None to ask the side."""
        decision = self._kinds.get(pending.kind)
        if decision is None or decision.standing is None or policy == ASK:
            return None
        return decision.standing(ctx, pending, policy)
