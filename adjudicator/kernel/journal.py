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

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from adjudicator.kernel.events import PUBLIC, Event


class _Rolled(Protocol):
    @property
    def rolls(self) -> list[Any]: ...


@dataclass
class RollMarks:
    """While an order is applied: its dice, and for each event emitted how many rolls had
    been made before it, so the kernel shows each dice line just before the first event
    that came after it (after the action line it belongs to, before what it decided)."""

    dice: _Rolled
    at: dict[int, int] = field(default_factory=dict)

    def mark(self, event: Event) -> None:
        self.at[id(event)] = len(self.dice.rolls)

    def rolls_before(self, event: Event) -> int | None:
        return self.at.get(id(event))


#: The marks of the order being applied (set by :meth:`Game.apply`).
ROLL_MARKS: ContextVar[RollMarks | None] = ContextVar("roll_marks", default=None)


def retext(event: Event, text: str) -> Event:
    """``event`` with another text (and the same place among the dice lines)."""
    if text == event.text:
        return event
    copy = event.model_copy(update={"text": text})
    marks = ROLL_MARKS.get()
    if marks is not None and (before := marks.rolls_before(event)) is not None:
        marks.at[id(copy)] = before
    return copy


class Journal:
    """The events of one order, in the order the rules made them."""

    events: list[Event]

    def __init__(self) -> None:
        self.events = []

    def emit(self, kind: str, text: str, rule: str = "", audience: str = PUBLIC,
             **data: Any) -> Event:
        """Add an event (``data`` feeds tests, pictures and the last-action record)."""
        event = Event(kind=kind, text=text, audience=audience, rule=rule, data=data)
        marks = ROLL_MARKS.get()
        if marks is not None:
            marks.mark(event)
        self.events.append(event)
        return event
