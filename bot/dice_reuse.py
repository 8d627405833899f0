"""A rollback is no re-roll (issue 27.6): where an order given again rolls the dice a
rolled-back action rolled.

The same order (side and canonical text) given again from the same position as a
rolled-back action rolls on that action's dice stream (``bot.records.dice_stream``). The
position is the **public** one: a digest of the public View of the state the order was
given in (:func:`public_position`), never of the whole state. The whole state holds the
sides' secrets (standing orders, hidden units, mines, face-down types): keyed on it, two
games differing only in a secret rolled different dice for the same public order after a
rollback — the public dice told a secret (the red team's deadline differential found it).
Keyed on the public View, what is public decides which dice are rolled, and a side
changing a secret after a rollback earns no re-roll either.

Every action that rolls dice keeps the public position it was given from in its payload
(:data:`POSITION`; players' exports never show payloads). Actions stored before this rule
have none: for them the rule they were played under holds (the whole state's hash), so
old records still verify (:func:`same_position`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from adjudicator.kernel.events import PUBLIC
from adjudicator.kernel.game import Game
from adjudicator.kernel.state import GameState, canonical_json
from adjudicator.kernel.views import View

#: The payload key of an action that rolled dice: the public position it was given from.
POSITION = "position"
#: Parts of a public View its position leaves out: the commitments to a side's secret
#: set-up and their salts differ with the secret by design (they are hashes of it), and
#: stay the same all game long, so they tell no position from another.
COMMITTED = ("commitments", "salts")


def public_position(game: Game[Any], state: GameState, view: View | None = None) -> str:
    """The digest of what everyone may know of ``state``: its public View (without the
    commitments to secrets, :data:`COMMITTED`), canonical JSON, SHA-256. ``view``: that
    View, already built (``game.views(state)(PUBLIC)``), else it is built here."""
    data = (game.view(state, PUBLIC) if view is None else view).model_dump(mode="json")
    for key in COMMITTED:
        data.pop(key, None)
    return hashlib.sha256(canonical_json(data)).hexdigest()


def same_position(payload: Mapping[str, Any] | None, before_hash: str,
                  position: Callable[[], str], state_hash: str) -> bool:
    """Whether a rolled-back action (its ``payload``; ``before_hash``: the hash of the
    whole state it was given in) was given from the position an order is given in now
    (``position()``: its public position; ``state_hash``: its whole state's hash). An
    action that recorded its public position is compared on it; an older one, on the
    whole state's hash (the rule it was played under)."""
    recorded = (payload or {}).get(POSITION)
    if recorded is None:
        return before_hash == state_hash
    return bool(recorded == position())
