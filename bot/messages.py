"""Per-audience messages, built only from Views and ``visible_to``.

Nothing here receives a game state: the service hands over a source of views
(``game.views(state)``: each audience's View, built when first asked for), the events of
the action and the pending decision, and each audience's message is made from its own
view, the events it may see and the decision as :func:`pending_for` shows it to that
audience. A secret therefore cannot reach a public channel through a message.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from adjudicator.kernel.decisions import PendingDecision
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import GM, PUBLIC, Event, may_see, visible_to
from adjudicator.kernel.game import Game
from adjudicator.kernel.orders import Order
from adjudicator.kernel.views import View, pending_for
from bot.store import loads


class Message(BaseModel):
    """What one audience is told about one action (or batch of actions).

    ``view`` and ``board`` are built only when a frontend reads them (a picture, a DM with
    the board): most audiences of most actions need neither. Neither is kept for
    idempotent replays.
    """

    audience: str
    lines: list[str]
    to_act: str | None = None
    prompt: str | None = None
    options: list[str] = Field(default_factory=list)
    result: str | None = None
    _view_of: Callable[[], View] | None = PrivateAttr(default=None)
    _board_of: Callable[[View], str] | None = PrivateAttr(default=None)
    _board: str | None = PrivateAttr(default=None)

    @property
    def view(self) -> View | None:
        """This audience's View (for a renderer), built on first use."""
        return None if self._view_of is None else self._view_of()

    @property
    def board(self) -> str:
        """The board text of this audience's View, made on first use ("" without a view)."""
        if self._board is None:
            view = self.view
            self._board = "" if view is None or self._board_of is None else self._board_of(view)
        return self._board

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


def message_for(viewer: str, events: Sequence[Event], *, to_act: str | None,
                result: str | None, pending: PendingDecision | None,
                view: Callable[[], View] | None = None,
                board: Callable[[View], str] | None = None) -> Message:
    """One audience's message: its visible events and, if it owes a decision, the options.

    ``pending`` is the game's pending decision; the audience is shown only what
    :func:`pending_for` lets it see (the options go to the owing side and the GM only).
    ``view`` builds the audience's View when a frontend asks for it; ``board`` makes a
    board text from that View.
    """
    seen = visible_to(events, viewer)
    mine = pending_for(pending, viewer)
    prompt: str | None = None
    options: list[str] = []
    if mine is not None:
        if mine.options:
            prompt = f"{mine.side} decides ({mine.rule}): {mine.prompt}"
            options = [option.order + (f"   {option.label}" if option.label else "")
                       for option in mine.options]
        else:
            prompt = f"waiting for {mine.side}: {mine.prompt}"
    message = Message(audience=viewer, lines=[event.text for event in seen], to_act=to_act,
                      prompt=prompt, options=options, result=result)
    message._view_of = view
    message._board_of = board
    return message


def build_messages(views: Callable[[str], View], viewers: Sequence[str],
                   events: Sequence[Event], *, to_act: str | None, result: str | None,
                   pending: PendingDecision | None,
                   board: Callable[[View], str] | None = None) -> dict[str, Message]:
    """Messages for ``viewers`` (public, each side, GM); each one's View comes from
    ``views(viewer)`` only if a frontend asks for it."""
    return {viewer: message_for(viewer, events, to_act=to_act, result=result, pending=pending,
                                view=functools.partial(views, viewer), board=board)
            for viewer in viewers}


def events_to_json(events: Sequence[Event]) -> list[dict[str, Any]]:
    return [event.model_dump(mode="json") for event in events]


def events_from_json(data: Sequence[dict[str, Any]]) -> list[Event]:
    return [Event.model_validate(item) for item in data]


# ---- contacts: email addresses only for the GM and their holder ------------------------------

#: How an actor label that holds an email address reads to someone who may not see it.
WITHHELD = "email:(withheld)"


def contact_labels(seats: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Actor labels holding an email address -> what others read: ``email:(red)``."""
    return {f"email:{str(seat['email']).lower()}": f"email:({seat['side'] or 'gm'})"
            for seat in seats if seat.get("email")}


def redact_label(label: Any, labels: Mapping[str, str], keep: str | None = None) -> Any:
    """``label`` with its email address withheld, unless it is ``keep`` (the reader's own)."""
    if not isinstance(label, str) or not label.startswith("email:") or label == keep:
        return label
    return labels.get(label, WITHHELD)


# ---- the action log as one audience may read it ---------------------------------------------

def is_secret_order(game: Game[Any], order: Order) -> bool:
    """Whether an order's text belongs to the side that gave it (and the GM) only.

    The game decides (:meth:`Game.is_secret`): standing orders always are, and each game
    adds its secret placements (Stalin's Tanks ``hide`` and ``mine``, Duel's ``trap``).
    """
    return game.secrecy(order).hidden


class LogEntry(BaseModel):
    """One action of the log as one audience may read it."""

    seq: int
    kind: str
    side: str | None
    actor: str
    #: The order text, or for the GM an override's operation; None when there is none or
    #: this audience may not read it (then ``withheld`` is True).
    text: str | None
    withheld: bool = False
    lines: list[str]
    reverted_by: int | None = None
    created: float

    def summary(self) -> str:
        """One line: ``#12 order red: move r2 3 — r2 moves to Mill``."""
        head = f"#{self.seq} {self.kind}{' ' + self.side if self.side else ''}"
        said = self.text or ("(secret)" if self.withheld else "")
        body = "; ".join(self.lines)
        parts = [part for part in (said, body) if part]
        text = f"{head}: {' — '.join(parts) or '—'}"
        return text + (f" [reverted by #{self.reverted_by}]" if self.reverted_by else "")


def override_text(payload: Mapping[str, Any]) -> str:
    """A GM override as the GM reads it in the log: ``force-dice values=[6, 6] (reason)``."""
    op = dict(payload.get("op") or {})
    name = op.pop("op", "override")
    args = " ".join(f"{k}={json.dumps(v, sort_keys=True)}" for k, v in sorted(op.items()))
    reason = payload.get("reason")
    return f"{name} {args}".strip() + (f" ({reason})" if reason else "")


def text_visible(game: Game[Any], row: Mapping[str, Any], audience: str) -> bool:
    """Whether ``audience`` may read the order text of a stored action.

    The GM and the side that gave it always may. Anyone else may read an ``order`` (or a
    ``system`` order played for a side at its deadline) unless :func:`is_secret_order`
    says it is secret or it was given as private input (``payload.private``, see
    :meth:`Game.is_private`: a face-down set-up); never a ``decision`` answer (it is one
    of the decision's options, which the kernel shows only to the owing side and the GM),
    nor a deadline answer to a decision, nor an unreadable text.
    """
    if audience == GM or (row["side"] is not None and audience == row["side"]):
        return True
    if loads(row.get("payload"), {}).get("private"):
        return False
    kind = row["kind"]
    if kind == "system":
        if loads(row.get("payload"), {}).get("decision") is not False:
            return False
    elif kind != "order":
        return False
    try:
        order = game.parse(str(row["text"]))
    except (RuleError, ValueError):
        return False
    return not is_secret_order(game, order)


def order_text_for(game: Game[Any], row: Mapping[str, Any], audience: str) -> str:
    """A stored action's order as ``audience`` may read it: its text, or what it was
    without the secret (``a secret order``) — for notices, captions and log lines."""
    if row.get("text") and text_visible(game, row, audience):
        return str(row["text"])
    if row.get("text"):
        return "a decision" if row["kind"] == "decision" else "a secret order"
    return str(row["kind"])


def log_entry(game: Game[Any], row: Mapping[str, Any], audience: str) -> LogEntry:
    """One stored action rendered for ``audience`` from what it may see only."""
    events = events_from_json(loads(row.get("events"), []))
    lines = [event.text for event in visible_to(events, audience)]
    text: str | None = None
    withheld = False
    if row["kind"] == "gm-override":
        if audience == GM:
            text = override_text(loads(row.get("payload"), {}))
    elif row.get("text"):
        if text_visible(game, row, audience):
            text = str(row["text"])
        else:
            withheld = True
    return LogEntry(seq=int(row["seq"]), kind=str(row["kind"]), side=row["side"],
                    actor=str(row["actor"]), text=text, withheld=withheld, lines=lines,
                    reverted_by=row.get("reverted_by"), created=float(row["created"]))


#: Payload keys any audience may read, by action kind (the rest stays in the full record).
PUBLIC_PAYLOAD = {"rollback": ("to_seq", "reason", "undo", "reverted"),
                  "pause": ("reason",), "resume": ("reason", "extended")}


def view_record_line(game: Game[Any], row: Mapping[str, Any], audience: str) -> dict[str, Any]:
    """One action of a record redacted for ``audience`` (a player's export during play).

    No state hash (hashing a guessed position would confirm a hidden unit), no override
    details, no forced-dice marks, only the rolls and events the audience may see.
    """
    entry = log_entry(game, row, audience)
    rolls = [{k: v for k, v in roll.items() if k != "forced"}
             for roll in loads(row.get("rolls"), [])
             if may_see(str(roll.get("audience", PUBLIC)), audience)]
    events = [event.model_dump(mode="json")
              for event in visible_to(events_from_json(loads(row.get("events"), [])), audience)]
    payload = loads(row.get("payload"), {})
    keep = PUBLIC_PAYLOAD.get(entry.kind, ())
    return {"seq": entry.seq, "kind": entry.kind, "branch": row["branch"], "side": entry.side,
            "text": entry.text, "withheld": entry.withheld,
            "payload": {k: payload[k] for k in keep if k in payload} or None,
            "rolls": rolls, "events": events, "created": entry.created,
            "reverted_by": entry.reverted_by}
