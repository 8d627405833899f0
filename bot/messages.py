"""Per-audience messages, built only from Views and ``visible_to``.

Nothing here receives a game state: the service hands over ``game.view(state, viewer)``
for each audience and the events of the action, and each audience's message is made
from its own view and the events it may see. A secret therefore cannot reach a public
channel through a message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from adjudicator.kernel.events import GM, PUBLIC, Event, visible_to
from adjudicator.kernel.views import View


class Message(BaseModel):
    """What one audience is told about one action (or batch of actions)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    audience: str
    lines: list[str]
    board: str = ""
    to_act: str | None = None
    prompt: str | None = None
    options: list[str] = Field(default_factory=list)
    result: str | None = None
    #: The View the message was made from (for a renderer); not kept for idempotent replays.
    view: View | None = Field(default=None, exclude=True)

    @property
    def text(self) -> str:
        parts = list(self.lines)
        if self.prompt:
            parts.append(self.prompt)
            parts.extend(f"  {option}" for option in self.options)
        if self.result:
            parts.append(f"Game over: {self.result}")
        elif self.to_act:
            parts.append(f"To act: {self.to_act}")
        return "\n".join(parts)


def audiences(sides: Sequence[str]) -> list[str]:
    return [PUBLIC, *sides, GM]


def message_for(view: View, events: Sequence[Event], board: str = "") -> Message:
    """One audience's message: its visible events and, if it owes a decision, the options."""
    seen = visible_to(events, view.viewer)
    prompt: str | None = None
    options: list[str] = []
    if view.pending is not None:
        if view.pending.options:
            prompt = f"{view.pending.side} decides ({view.pending.rule}): {view.pending.prompt}"
            options = [option.order + (f"   {option.label}" if option.label else "")
                       for option in view.pending.options]
        else:
            prompt = f"waiting for {view.pending.side}: {view.pending.prompt}"
    return Message(audience=view.viewer, lines=[event.text for event in seen], board=board,
                   to_act=view.to_act, prompt=prompt, options=options, result=view.result,
                   view=view)


def build_messages(views: dict[str, View], events: Sequence[Event],
                   boards: dict[str, str] | None = None) -> dict[str, Message]:
    """Messages for every audience that has a view (public, each side, GM)."""
    boards = boards or {}
    return {viewer: message_for(view, events, boards.get(viewer, ""))
            for viewer, view in views.items()}


def events_to_json(events: Sequence[Event]) -> list[dict[str, Any]]:
    return [event.model_dump(mode="json") for event in events]


def events_from_json(data: Sequence[dict[str, Any]]) -> list[Event]:
    return [Event.model_validate(item) for item in data]
