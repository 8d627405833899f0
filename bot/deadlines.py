"""Deadlines: optional per game, for whichever side must act (or owes a decision).

A game's deadline settings are ``deadline_seconds`` (e.g. 48 h) and reminder fractions
(e.g. 0.5 and 0.9 of the period). The clock restarts whenever the side that must act
changes, or a decision becomes pending or is answered. On expiry the service plays the
default order for that side:

1. a pending decision: the side's standing order for that kind if it gives an answer,
   otherwise the decision's ``default``;
2. the side's turn: the game's :meth:`Game.deadline_order` (by default ``pass`` when
   ``pass`` is legal); when it gives nothing, nothing is played and the GM is told.

Periods are bounded (:mod:`bot.durations`: at most 60 days): a longer or endless one is
refused when set, and one stored before the bound is read as the longest.

Outage guard: if the service has not ticked for a while, deadlines that expired during
the gap are extended (by a quarter of the period, at least an hour or the whole period
when shorter) with a public notice, instead of being executed in a burst.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import PUBLIC, Event
from adjudicator.kernel.game import Game
from adjudicator.kernel.state import GameState
from bot.durations import bounded, check


class Notice(BaseModel):
    """Something a frontend should post: a reminder, an expiry, an extension."""

    game_id: str
    audience: str
    kind: str
    text: str


def settings(seconds: float | None, reminders: Sequence[float]) -> dict[str, Any]:
    fractions = sorted({float(f) for f in reminders})
    if any(not 0 < f < 1 for f in fractions):
        raise ValueError("reminder fractions lie strictly between 0 and 1")
    if seconds is not None:
        seconds = check(seconds)  # DurationError (a ValueError): none, endless, > 60 days
    return {"deadline_seconds": seconds, "reminder_fractions": json.dumps(fractions)}


def reset(side: str | None, seconds: float | None, now: float) -> dict[str, Any]:
    """Game columns for a fresh deadline for ``side`` (none when no side or no deadline)."""
    if not seconds or side is None:
        return {"deadline_side": None, "deadline_start": None, "deadline_at": None,
                "reminders_sent": "[]"}
    return {"deadline_side": side, "deadline_start": now, "deadline_at": now + bounded(seconds),
            "reminders_sent": "[]"}


def due_reminders(row: Mapping[str, Any], now: float) -> tuple[list[Notice], list[float]]:
    """Reminders now due for the game ``row`` and the updated list of sent fractions."""
    sent = [float(f) for f in json.loads(row["reminders_sent"] or "[]")]
    start, period = float(row["deadline_start"]), bounded(float(row["deadline_seconds"]))
    notices = []
    for fraction in json.loads(row["reminder_fractions"] or "[]"):
        if fraction in sent or now < start + fraction * period:
            continue
        sent.append(float(fraction))
        left = float(row["deadline_at"]) - now
        notices.append(Notice(game_id=row["id"], audience=row["deadline_side"], kind="reminder",
                              text=f"{row['deadline_side']}: {duration(left)} left to act "
                                   f"in game {row['id']}"))
    return notices, sorted(sent)


def grace(period: float) -> float:
    period = bounded(period)
    return max(0.25 * period, min(period, 3600.0))


def extend_after_outage(row: Mapping[str, Any], now: float) -> tuple[dict[str, Any], Notice]:
    until = now + grace(float(row["deadline_seconds"]))
    notice = Notice(game_id=row["id"], audience=PUBLIC, kind="extended",
                    text=f"Umpire was unavailable; {row['deadline_side']}'s deadline is "
                         f"extended by {duration(until - now)}")
    return {"deadline_at": until}, notice


def default_order(game: Game[Any], state: GameState, side: str) -> str | None:
    state = state.copy_for_apply()  # the rules' queries must not touch the stored state
    pending = state.pending
    if pending is not None and pending.side == side:
        policy = state.standing.get(side, {}).get(pending.kind)
        if policy is not None:
            answer = game.standing_answer(state, pending, policy)
            if answer is not None:
                return answer
        return pending.default or None
    return game.deadline_order(state, side)


def expiry_notices(game: Game[Any], state: GameState, side: str, text: str) -> list[Event]:
    """What everyone, and ``side`` itself, is told when Umpire plays ``text`` for ``side``
    at its deadline.

    Public text depends on public state only: that a decision (its kind is public) was
    answered, not how (the answer is one of its options, and whether a standing order
    gave it is the side's secret); an order only if it is not private input. The side
    reads the order and whether its standing order or the default chose it.
    """
    try:
        private = game.is_private(state, side, game.parse(text))
    except RuleError:
        private = True
    pending = state.pending
    said = (f"Umpire answers {side}'s {pending.kind} decision" if pending is not None
            else f"Umpire plays an order for {side}" if private
            else f"Umpire plays {text}")
    standing = pending is not None and pending.kind in state.standing.get(side, {})
    how = "by its standing order" if standing else "by default"
    return [Event(kind="deadline", audience=PUBLIC, text=f"{side}'s deadline passed: {said}"),
            Event(kind="deadline", audience=side,
                  text=f"{side}'s deadline passed: Umpire plays {text} ({how})")]


def duration(seconds: float) -> str:
    """``2 h 05 min``, ``12 min`` or ``40 s`` (of at most the longest period)."""
    seconds = int(bounded(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes = rest // 60
    if hours:
        return f"{hours} h {minutes:02d} min"
    return f"{minutes} min" if minutes else f"{seconds} s"
