"""Orders in: a player's lines checked, applied one by one against the rules with the game's
committed dice, and planned as actions (stopping at the first refused line, or where the
other side must decide first)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.kernel.dice import effective_seed
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import Event
from adjudicator.kernel.game import order_lines
from adjudicator.kernel.orders import SetStanding, check_size
from adjudicator.kernel.state import GameState
from bot.history import ForcingDice, rolls_to_json
from bot.messages import events_to_json
from bot.service.base import Loaded, logger
from bot.service.commit import Committing, Plan
from bot.service.models import Actor, SubmitResult
from bot.service.text import shown
from bot.store import NewAction


class Submitting(Committing):
    # ---- orders -------------------------------------------------------------------------

    def submit(self, game_id: str, actor: Actor, text: str,
               idempotency_key: str | None = None, side: str | None = None) -> SubmitResult:
        """Apply the order lines in ``text`` for the actor's side (see the module notes)."""

        try:
            check_size(text)
        except RuleError as error:
            return self._refused(shown(game_id), str(error), rule=error.rule)

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            acting = self._side_for(ctx, actor, side)
            if isinstance(acting, SubmitResult):
                return acting
            lines = order_lines(text)
            if not lines:
                return self._refused(game_id, "no order given", rule="notation", side=acting)
            return self._lines_plan(ctx, actor.label, acting, lines)

        return self._execute(game_id, plan, idempotency_key, actor.label,
                             ("submit", side, text), {"the order text": text, "the side": side})

    async def submit_async(self, game_id: str, actor: Actor, text: str,
                           idempotency_key: str | None = None,
                           side: str | None = None) -> SubmitResult:
        return await asyncio.to_thread(self.submit, game_id, actor, text, idempotency_key, side)

    def _lines_plan(self, ctx: Loaded, actor: str, side: str, lines: Sequence[str],
                    kind: str | None = None, payload: Mapping[str, Any] | None = None,
                    notice: Sequence[Event] = ()) -> Plan | SubmitResult:
        state = ctx.state
        next_roll = int(ctx.row["next_roll"])
        forced = json.loads(ctx.row["forced_dice"])
        actions: list[NewAction] = []
        states: list[GameState] = []
        events: list[Event] = list(notice)
        now = self.clock()
        plan = Plan(actions=actions, states=states, events=events, fields={}, side=side)
        for number, line in enumerate(lines, start=1):
            before = state.pending
            try:
                dice = self._dice(ctx, next_roll, forced)
                started = time.thread_time()
                order = ctx.game.parse(line)
                private = ctx.game.is_private(state, side, order)
                outcome = ctx.game.apply(state, side, order, dice)
                plan.costs.append(time.thread_time() - started)
            except Exception as caught:  # every input gets a refusal, never an exception
                error = caught if isinstance(caught, RuleError) else _internal(caught, number)
                if not actions:
                    return self._refused(ctx.id, str(error), rule=error.rule, legal=error.legal,
                                         side=side, stopped_at=number)
                plan.status, plan.stopped_at = "partial", number
                plan.error, plan.error_rule, plan.legal = str(error), error.rule, error.legal
                break
            forced = forced[dice.used:]
            next_roll += len(outcome.rolls)
            answered = (before is not None and before.side == side
                        and not isinstance(order, SetStanding))
            data, state_hash = outcome.state.encoded()
            plan.encoded.append(data)
            row_events = [*(notice if number == 1 else ()), *outcome.events]
            actions.append(NewAction(
                seq=ctx.head + number, branch=int(ctx.row["branch"]), actor=actor,
                kind=kind or ("decision" if answered else "order"), side=side,
                text=ctx.game.format(order), order_json=order.model_dump(mode="json"),
                payload=({**(payload or {}), "private": True} if private
                         else dict(payload) if payload else None),
                rolls=rolls_to_json(outcome.rolls, dice.forced_positions),
                events=events_to_json(row_events), applied=outcome.applied,
                next_roll=next_roll, state_hash=state_hash, created=now))
            states.append(outcome.state)
            events.extend(outcome.events)
            state = outcome.state
            if state.pending is not None and number < len(lines):
                plan.status, plan.stopped_at = "partial", number + 1
                plan.error = (f"stopped before line {number + 1}: "
                              f"{state.pending.side} must decide first")
                break
        plan.fields = {"next_roll": next_roll, "forced_dice": json.dumps(forced)}
        return plan

    def _dice(self, ctx: Loaded, start: int, forced: Sequence[Mapping[str, Any]]) -> ForcingDice:
        if ctx.row["server_seed"] is None:
            raise RuleError("dice", "this game holds no dice seed (an archived import)")
        entropy = [e["text"] for e in self.store.entropy(ctx.id)]
        seed = effective_seed(bytes(ctx.row["server_seed"]), entropy)
        inner = self.dice_factory(seed, str(ctx.row["dice_id"]), int(ctx.row["branch"]), start)
        return ForcingDice(inner, forced)


def _internal(error: Exception, line: int) -> RuleError:
    """A defect met while applying an order: refused (nothing changes), logged for the
    operator. The refusal names no detail: an exception's text may hold a secret."""
    logger.error("internal error applying line %d: %r", line, error, exc_info=error)
    return RuleError("internal", f"Umpire could not apply line {line} (an internal error, "
                     "logged for the operator); nothing was changed")
