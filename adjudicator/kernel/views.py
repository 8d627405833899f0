"""Views are the only way out of the rules.

``game.view(state, viewer)`` returns a :class:`View` holding only what ``viewer`` may
know: a side, ``"public"`` or ``"gm"``. Renderers and message formatters receive a View,
never a state.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from adjudicator.kernel.decisions import PendingDecision
from adjudicator.kernel.events import GM, PUBLIC


class View(BaseModel):
    """Fields every game's view has; games subclass it."""

    model_config = ConfigDict(extra="forbid")

    game: str
    viewer: str
    to_act: str | None = None
    pending: PendingDecision | None = None
    standing: dict[str, str] = {}
    result: str | None = None


def check_viewer(viewer: str, sides: tuple[str, ...]) -> None:
    if viewer not in (*sides, PUBLIC, GM):
        raise ValueError(f"unknown viewer {viewer!r}; expected one of {[*sides, PUBLIC, GM]}")


def pending_for(pending: PendingDecision | None, viewer: str) -> PendingDecision | None:
    """The owing side and the GM see the options; everyone else sees who is deciding what.

    The options of a decision can reveal secrets (which units may take losses), so other
    viewers get the kind, side and prompt only.
    """
    if pending is None or viewer in (pending.side, GM):
        return pending
    return PendingDecision(
        kind=pending.kind, side=pending.side, prompt=pending.prompt, rule=pending.rule,
        options=(), default="",
    )
