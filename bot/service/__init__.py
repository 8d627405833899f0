"""GameService: seats, permissions, per-game serialisation, orders in, outcomes out.

The service knows nothing of Discord or email. Every frontend calls it with an
:class:`Actor` (a Discord user id and/or an email address) and text in the game's
notation, and gets back per-audience :class:`~bot.messages.Message` objects built from
Views only.

Conventions:

* Methods that may add to the action log (``submit``, ``override``, ``rollback``,
  ``roll_forward``, ``undo``) never raise for a user's mistake: they return a
  :class:`SubmitResult` whose ``status`` is ``"refused"`` with a clear ``error``.
* Administrative methods (create, seat, start, deadlines, previews) raise
  :class:`ServiceError` subclasses with a clear message.
* Orders for one game are serialised by a per-game lock, across processes by the store's
  game lock (PostgreSQL), and in the store by an expected-sequence check inside the
  append's transaction; different games run in parallel.

The service is composed of one class per concern, each in a module named for what it holds:

* :mod:`bot.service.models` — the public records and errors;
* :mod:`bot.service.base` — the store, rules, caches, locks, loading a game, permissions;
* :mod:`bot.service.commit` — load, plan, commit (retries, idempotency, snapshots);
* :mod:`bot.service.seats` — games, seats, seat secrets, entropy, start, status;
* :mod:`bot.service.reads` — views, legal orders, log, record, updates;
* :mod:`bot.service.prompts` — what a prompted side reads (the console);
* :mod:`bot.service.submit` — orders in;
* :mod:`bot.service.gm` — overrides, pause and resume;
* :mod:`bot.service.rollback` — rollback, roll-forward, undo;
* :mod:`bot.service.tick` — deadlines' reminders and expiry;
* :mod:`bot.service.operator` — the database operator's desk (``service.operator``);
* :mod:`bot.service.links` — the web page's secret links (issue, re-issue, revoke, resolve).
"""

from __future__ import annotations

from bot.service.base import TICK_LEASE_S, Loaded, default_dice
from bot.service.commit import MAX_ATTEMPTS, Plan
from bot.service.gm import GmTools
from bot.service.links import LinkHolder, Links, WebLink
from bot.service.models import (
    VIEW_FORMAT,
    Actor,
    Export,
    GameInfo,
    InvalidOperation,
    NotFound,
    PermissionDenied,
    Prompt,
    RollbackPreview,
    RollForwardReport,
    SeatInfo,
    ServiceError,
    SubmitResult,
)
from bot.service.operator import OperatorDesk
from bot.service.prompts import Prompts
from bot.service.reads import Reads
from bot.service.rollback import Rollbacks, state_diff, undo_refusal
from bot.service.seats import Seats
from bot.service.tick import DEADLINE_LEASE, SYSTEM_ACTOR, DeadlineTicks

__all__ = [
    "DEADLINE_LEASE", "MAX_ATTEMPTS", "SYSTEM_ACTOR", "TICK_LEASE_S", "VIEW_FORMAT", "Actor",
    "Export", "GameInfo", "GameService", "InvalidOperation", "LinkHolder", "Loaded",
    "NotFound", "OperatorDesk", "PermissionDenied", "Plan", "Prompt", "RollForwardReport",
    "RollbackPreview", "SeatInfo", "ServiceError", "SubmitResult", "WebLink", "default_dice",
    "state_diff", "undo_refusal",
]


class GameService(Seats, Links, Reads, Prompts, GmTools, Rollbacks, DeadlineTicks):
    """Seats, permissions, per-game serialisation, orders in, outcomes out (see the module
    notes); built from the classes above, over one store."""

    @property
    def operator(self) -> OperatorDesk:
        """The database operator's calls (:mod:`bot.service.operator`): for the ``umpire``
        command, never for a frontend serving players."""
        return OperatorDesk(self)
