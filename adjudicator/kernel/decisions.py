"""Decisions are states, not callbacks.

When the rules hand a choice to a player, the state carries a :class:`PendingDecision`:
who decides, the legal answers (each an order in the game's notation, so a button, an
email line and a console line all submit the same text), and a legal default. The game
waits until that side answers, unless the side's standing order for that kind of
decision answers at once.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


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
