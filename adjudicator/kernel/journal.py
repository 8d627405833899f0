"""One order's journal: what the rules say happened, each line with its audience.

Every game's working context (``Ctx``) is a :class:`Journal`: a rule writes
``ctx.emit("move", "t34-1 moves to 1203", "6.0", unit="t34-1")`` and the kernel hands the
events, in order, to the outcome of the order. ``audience`` is ``"public"`` (the default),
a side or ``"gm"`` (:mod:`adjudicator.kernel.events`).

>>> journal = Journal()
>>> journal.emit("note", "nothing to do", "8.3", audience="german", unit="g1").audience
'german'
"""

from __future__ import annotations

from typing import Any

from adjudicator.kernel.events import PUBLIC, Event


class Journal:
    """The events of one order, in the order the rules made them."""

    events: list[Event]

    def __init__(self) -> None:
        self.events = []

    def emit(self, kind: str, text: str, rule: str = "", audience: str = PUBLIC,
             **data: Any) -> Event:
        """Add an event (``data`` feeds tests, pictures and the last-action record)."""
        event = Event(kind=kind, text=text, audience=audience, rule=rule, data=data)
        self.events.append(event)
        return event
