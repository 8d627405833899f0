"""The Defensive Fire decision (5.1): the non-phasing player's turn to fire, as one object.

During the phasing player's Defensive Fire Phase the other player is asked: fire, close
assault, or ``done``. The phase's own orders answer it (no ``decide`` verb), so the
decision carries no ``apply``; its standing policies pick the shot most likely to destroy
(``best-shot``), the same without unmasking hidden units, or never fire (``hold``).
"""

from __future__ import annotations

from adjudicator.kernel.decisions import Decision, Option, PendingDecision
from adjudicator.tanks import legal
from adjudicator.tanks.context import Ctx
from adjudicator.tanks.sides import other

#: The decision's kind (``standing defensive-fire POLICY``).
DEFENSIVE = "defensive-fire"


def decision(ctx: Ctx) -> PendingDecision:
    """5.1: the non-phasing side's Defensive Fire: each legal shot or assault, or done."""
    state = ctx.state
    side = other(state.phasing)
    options = [Option(order=o, label=label)
               for o, _, label in legal.fire_options(ctx, side)]
    options.append(Option(order="done", label="end the Defensive Fire Phase"))
    return PendingDecision(
        kind=DEFENSIVE, side=side, rule="5.1",
        prompt=f"{side}: Defensive Fire Phase, turn {state.turn} — fire, close assault, "
               "or done", options=tuple(options), default="done")


def best_shot(options: list[tuple[str, float, str]]) -> str:
    """The ``best-shot`` standing policy's pick among the legal shots and assaults: the one
    most likely to destroy its target; on a tie, the one using fewer units (so a combined
    fire, 15.2, takes no more infantry than it needs), then the first in notation order."""
    useful = [(p, o) for o, p, _ in options if p > 0]
    if not useful:
        return "done"
    return min(useful, key=lambda item: (-item[0], _firers(item[1]), item[1]))[1]


def _firers(order: str) -> int:
    parts = order.split()
    return parts[1].count("+") + 1 if parts[0] == "fire" else 1


def _standing(ctx: Ctx, pending: PendingDecision, policy: str) -> str | None:
    if policy == "hold":
        return "done"
    return best_shot(legal.fire_options(ctx, pending.side,
                                        include_hidden=policy == "best-shot"))


DEFENSIVE_FIRE: Decision[Ctx] = Decision(
    kind=DEFENSIVE, verb="fire|assault|done", rule="5.1",
    policies=(
        ("best-shot", "each shot the one most likely to destroy: single shots, combined "
                      "infantry fire (with no more squads than it needs), close or suicide "
                      "assaults when likelier; hidden units fire too"),
        ("best-shot-stay-hidden", "as best-shot, but hidden units hold their fire"),
        ("hold", "never fire"),
    ), standing=_standing)
