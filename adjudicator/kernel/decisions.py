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
