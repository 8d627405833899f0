"""The core every change goes through: load the game, plan the actions (a planner given by
the caller), then append them with their snapshots in one transaction — retried when
another writer got there first, refused when the store is busy past the budget; with
idempotency keys and the reopening of a finished game."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from adjudicator.kernel.dice import commitment
from adjudicator.kernel.events import PUBLIC, Event
from adjudicator.kernel.game import Game, Views
from adjudicator.kernel.orders import MAX_CHARS
from adjudicator.kernel.state import GameState
from bot import deadlines
from bot.messages import Message, audiences, build_messages, events_from_json, message_for
from bot.service.base import Loaded, ServiceBase, _Before, _Cached, _line, logger
from bot.service.models import ServiceError, SubmitResult
from bot.service.text import MAX_ID, BadText, check_text, shown
from bot.store import (
    Busy,
    Damaged,
    DuplicateKey,
    NewAction,
    Refused,
    SequenceConflict,
    Snapshot,
    StoreError,
    loads,
)
from bot.store.codec import COMPACT, compact_result

#: Retries when another process wrote to the same game between load and commit.
MAX_ATTEMPTS = 8


@dataclass
class Plan:
    actions: list[NewAction]
    states: list[GameState]
    events: list[Event]
    fields: dict[str, Any]
    side: str | None = None
    status: Literal["applied", "partial"] = "applied"
    error: str | None = None
    error_rule: str | None = None
    legal: list[str] = field(default_factory=list)
    stopped_at: int | None = None
    revert_after: int | None = None
    force_snapshot: bool = False
    #: canonical bytes of ``states`` (as far as the planner serialised them for hashing)
    encoded: list[bytes] = field(default_factory=list)
    #: CPU seconds the rules took for each action (what replaying it will cost)
    costs: list[float] = field(default_factory=list)
    #: CPU seconds a replay from the newest snapshot to the plan's end takes (set when its
    #: snapshots are chosen)
    replay_cost: float = 0.0
    #: The revealed seed a reopened game stops using (see ``GameService._reopen``).
    past_seed: dict[str, Any] | None = None



class Committing(ServiceBase):
    def _execute(self, game_id: str, make_plan: Callable[[Loaded], Plan | SubmitResult],
                 key: str | None, actor: str, request: Sequence[Any] = (),
                 texts: Mapping[str, Any] | None = None) -> SubmitResult:
        """Load, plan and append one action (see the module notes).

        ``key`` (an idempotency key) is scoped to ``actor``: the same actor sending the same
        request again with it gets the first result back; a different request with a used
        key is refused; another actor's key of the same text is another key.

        ``texts``: what the user typed, by name ("the reason": ...), checked at the door
        (:func:`bot.service.text.check_text`) with the game id, the actor, the key and the
        whole ``request``: text that cannot be taken is refused before anything is read.
        """
        try:  # at the door: text no digest, store or frontend can carry is refused
            check_text(game_id, "the game id", limit=MAX_ID)
            check_text(actor, "your name or address", limit=MAX_ID)
            check_text(key, "the idempotency key", limit=MAX_ID)
            for what, value in (texts or {}).items():
                check_text(value, what, limit=MAX_CHARS)
            check_text(request, "the request", limit=MAX_CHARS)
        except BadText as error:
            return self._refused(shown(game_id), str(error), rule=error.rule)
        fingerprint = _fingerprint(request)
        deadline = time.monotonic() + self.busy_budget
        pause = 0.02
        conflicts = 0
        try:
            with self._lock(game_id), self.store.game_lock(game_id):
                while conflicts < MAX_ATTEMPTS:
                    try:
                        result = self._attempt(game_id, make_plan, key, actor, fingerprint)
                    except Busy:  # another process held the file: wait a little, in budget
                        remaining = deadline - time.monotonic()
                        if remaining <= 0:
                            break
                        time.sleep(min(pause, remaining))  # the whole budget, not less
                        pause = min(2 * pause, 1.0)
                        continue
                    if result is not None:
                        return result
                    conflicts += 1
            return self._refused(game_id, "the game is busy (other orders are being stored); "
                                 "nothing was done: try again", rule="busy")
        except ServiceError as error:
            return self._refused(game_id, str(error), rule="service")
        except Refused as refusal:  # e.g. a NUL character: nothing was stored
            return self._refused(game_id, str(refusal), rule="input")
        except Damaged as error:  # a damaged file: the game said to be damaged, no traceback
            logger.error("game %s is damaged: %s", game_id, error)
            return self._refused(game_id, f"game {game_id} cannot be read: its stored data "
                                 f"is damaged ({_line(error)}); nothing was done, and the "
                                 "operator is told", rule="store")
        except StoreError as error:  # any other storage failure: a clear line
            logger.error("game %s: %s", game_id, error)
            return self._refused(game_id, f"the game's store cannot be read: {_line(error)}",
                                 rule="store")

    def _attempt(self, game_id: str, make_plan: Callable[[Loaded], Plan | SubmitResult],
                 key: str | None, actor: str, fingerprint: str) -> SubmitResult | None:
        """One try of :meth:`_execute`: None when another writer got there first."""
        if key is not None:
            first = self.store.idempotent_result(game_id, actor, key)
            if first is not None:
                return self._replayed(game_id, *first, fingerprint)
        ctx = self._load(game_id)
        planned = make_plan(ctx)
        if isinstance(planned, SubmitResult):
            return planned
        self._reopen(ctx, planned)
        views = ctx.game.views(planned.states[-1])
        result = self._result(ctx, planned, views)
        fields = self._fields(ctx, planned)
        snapshots = self._snapshots(ctx, planned)
        idem = ((key, actor, compact_result(result.model_dump(mode="json", exclude={
            "messages"}), planned.states[-1].result), fingerprint) if key is not None else None)
        try:
            self.store.append(
                game_id, ctx.head, planned.actions, fields, snapshots,
                revert_after=(None if planned.revert_after is None else
                              (planned.revert_after, planned.actions[0].seq)),
                idempotency=idem, past_seed=planned.past_seed)
        except SequenceConflict:
            self._cache.pop(game_id)
            self._before.pop(game_id)
            return None
        except DuplicateKey as duplicate:
            return self._replayed(game_id, duplicate.result, duplicate.request, fingerprint)
        last = snapshots[-1].seq if snapshots else ctx.last_snapshot
        final = planned.states[-1]
        size = len(planned.encoded[-1] if len(planned.encoded) == len(
            planned.states) else final.to_bytes())
        self._cache.put(game_id, _Cached(planned.actions[-1].seq, final, last,
                                         planned.replay_cost, views), size)
        if planned.revert_after is None:  # what an undo of the last action returns to
            before = ((planned.actions[-2].seq, planned.states[-2])
                      if len(planned.states) > 1 else (ctx.head, ctx.state))
            self._before.put(game_id, _Before(planned.actions[-1].seq, *before), size)
        else:
            self._before.pop(game_id)
        if any(e.kind == "seats-swapped" for e in planned.events):
            # the rules decided who plays which side (TP:S bids, 22.1)
            self.store.swap_sides(game_id, *ctx.game.sides[:2])
        return result

    def _replayed(self, game_id: str, stored: str, request: str | None,
                  fingerprint: str) -> SubmitResult:
        """The first result of an idempotency key used again: its outcome as stored, what
        was applied and what each audience was told read back from its actions (no Views:
        frontends do not publish a duplicate again)."""
        if request is not None and request != fingerprint:
            return self._refused(game_id, "this idempotency key was already used for another "
                                 "request; nothing was done", rule="idempotency")
        data = json.loads(stored)
        if data.pop("v", None) != COMPACT:  # a whole result, as older stores kept it
            return SubmitResult.model_validate(data).model_copy(update={"duplicate": True})
        over = data.pop("over", None)
        rows = [row for seq in data.get("seqs", [])
                if (row := self.store.action(game_id, int(seq))) is not None]
        events = [e for row in rows for e in events_from_json(loads(row["events"], []))]
        applied = [text for row in rows
                   for text in (loads(row["applied"], []) or [row["text"] or row["kind"]])]
        sides = self._rules_for(self._row(game_id)).sides
        messages = {viewer: message_for(viewer, events, to_act=data.get("to_act"),
                                        result=over, pending=None)
                    for viewer in audiences(sides)}
        return SubmitResult(game_id=game_id, applied=applied, messages=messages,
                            duplicate=True, **data)

    def _reopen(self, ctx: Loaded, plan: Plan) -> None:
        """A finished game reopened (a rollback past its end) goes on with a new secret
        seed: the old one was revealed at the end, and rolls from it could be predicted.
        The new seed's commitment is published with the action; the old seed is kept."""
        if ctx.row["status"] != "finished" or plan.states[-1].result is not None:
            return
        seed = self.seed_source(32)
        branch = int(plan.fields.get("branch", ctx.row["branch"]))
        plan.past_seed = {"from_branch": int(ctx.row["seed_from_branch"] or 0),
                          "seed": ctx.row["server_seed"], "commitment": ctx.row["commitment"]}
        plan.fields.update({"server_seed": seed, "commitment": commitment(seed),
                            "seed_from_branch": branch, "seed_revealed": 0})
        notice = Event(kind="dice-commitment", audience=PUBLIC,
                       text=f"The game goes on with new dice (the old seed was revealed at its "
                            f"end): commitment {commitment(seed)}",
                       data={"commitment": commitment(seed), "from_branch": branch})
        plan.events.append(notice)
        plan.actions[-1].events.append(notice.model_dump(mode="json"))

    def _result(self, ctx: Loaded, plan: Plan, views: Views[Any]) -> SubmitResult:
        """The result of ``plan``: its messages read ``views`` (the Views of its last
        state, each built when a frontend first reads it, and kept with the state)."""
        state = plan.states[-1]
        game = ctx.game
        return SubmitResult(
            status=plan.status, game_id=ctx.id, side=plan.side,
            seqs=[a.seq for a in plan.actions],
            applied=[text for a in plan.actions for text in (a.applied or [a.text or a.kind])],
            error=plan.error, error_rule=plan.error_rule, legal=plan.legal,
            stopped_at=plan.stopped_at, to_act=game.acting_side(state),
            pending_side=state.pending.side if state.pending else None,
            messages=_messages(game, state, plan.events, views))

    def _fields(self, ctx: Loaded, plan: Plan) -> dict[str, Any]:
        state = plan.states[-1]
        acting = ctx.game.acting_side(state)
        fields: dict[str, Any] = {**plan.fields, "state_hash": plan.actions[-1].state_hash,
                                  "to_act": acting, "result": state.result}
        if state.result is not None:
            fields.update({"status": "finished", "seed_revealed": 1, "deadline_at": None,
                           "paused_at": None, "paused_by": None, "pause_reason": None})
        elif ctx.row["status"] == "finished":
            fields["status"] = "active"  # a new seed was drawn (``_reopen``)
        seconds = ctx.row["deadline_seconds"]
        if seconds and state.result is None:
            before = (ctx.row["deadline_side"], ctx.state.pending is not None)
            if (acting, state.pending is not None) != before or plan.revert_after is not None:
                fields.update(deadlines.reset(acting, float(seconds), self.clock()))
        return fields

    def _snapshots(self, ctx: Loaded, plan: Plan) -> list[Snapshot]:
        """The snapshots to store with ``plan`` (see ``__init__``: spaced by replay cost)."""
        out: list[Snapshot] = []
        last = ctx.last_snapshot
        cost = ctx.replay_cost
        before = ctx.state
        for index, (action, state) in enumerate(zip(plan.actions, plan.states, strict=True)):
            cost += plan.costs[index] if index < len(plan.costs) else 0.0
            side_changed = (self.snapshot_on_side_change and
                            ctx.game.acting_side(before) != ctx.game.acting_side(state))
            if (plan.force_snapshot or side_changed or cost >= self.snapshot_replay
                    or action.seq - last >= self.snapshot_every):
                out.append(Snapshot(action.seq, state.to_json(), action.state_hash))
                last, cost = action.seq, 0.0
            before = state
        plan.replay_cost = cost
        return out


def _fingerprint(request: Sequence[Any]) -> str:
    """What an idempotency key was used for: a digest of the request."""
    return hashlib.sha256(json.dumps(list(request), sort_keys=True, default=str,
                                     ensure_ascii=False).encode()).hexdigest()



def _messages(game: Game[Any], state: GameState, events: Sequence[Event],
              views: Views[Any]) -> dict[str, Message]:
    """Every audience's message about ``events``, from ``state``'s ``views``; a view (and
    its board text) is built only if a frontend reads it, once per distinct view."""
    return build_messages(views, audiences(game.sides), events,
                          to_act=game.acting_side(state), result=state.result,
                          pending=state.pending, board=game.board_text)
