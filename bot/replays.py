"""A stored game's replay as one viewer may see it: the frames of ``umpire export-gif``.

Each frame is the viewer's View after an action, its caption (an order quoted only when the
viewer may read it, as in the log), and the events of the action.
"""

from __future__ import annotations

from typing import Any

from bot.history import replay_row
from bot.messages import order_text_for
from bot.store import Store
from render.replay import Frame


class NotStarted(ValueError):
    pass


def caption_for(rules: Any, row: dict[str, Any], viewer: str) -> str:
    """An action as a replay caption for ``viewer``: ``german: move …`` or ``german: a
    secret order``, or its kind (a rollback, an override)."""
    if not row.get("text"):
        return str(row["kind"])
    return f"{row['side']}: {order_text_for(rules, row, viewer)}"


def replay_frames(rules: Any, store: Store, game_id: str, viewer: str) -> list[Frame]:
    """One frame per active action (after the set-up's), for ``viewer``."""
    snapshot = store.latest_snapshot(game_id, upto=0)
    if snapshot is None:
        raise NotStarted(f"game {game_id} has not started")
    state = rules.load_state(snapshot.state)
    items = [Frame(rules.view(state, viewer), "set-up")]
    for row in store.actions(game_id, active_only=True):
        state = replay_row(rules, state, row)
        items.append(Frame(rules.view(state, viewer), caption_for(rules, row, viewer)))
    return items
