"""Events: what happened, and who may be told.

Every event carries an ``audience``: ``"public"`` (everyone), a side name (that side and
the GM) or ``"gm"`` (the GM only). Frontends never choose an audience themselves; they
ask :func:`visible_to` which events a viewer may see.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

PUBLIC = "public"
GM = "gm"


class Event(BaseModel):
    """Something that happened, in words and in data (``data`` feeds tests and pictures)."""

    model_config = ConfigDict(frozen=True)

    kind: str
    text: str
    audience: str = PUBLIC
    rule: str = ""
    data: dict[str, Any] = Field(default_factory=dict)


def may_see(audience: str, viewer: str) -> bool:
    """Whether ``viewer`` (a side, "public" or "gm") may see an event for ``audience``."""
    if audience == PUBLIC or viewer == GM:
        return True
    return audience == viewer


def visible_to(events: Iterable[Event], viewer: str) -> list[Event]:
    return [event for event in events if may_see(event.audience, viewer)]
