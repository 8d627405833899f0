"""Orders in: a player's lines checked, applied one by one against the rules with the game's
committed dice, and planned as actions (stopping at the first refused line, or where the
other side must decide first)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from adjudicator.kernel.dice import effective_seed
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import PUBLIC, Event
from adjudicator.kernel.game import Refused, apply_lines, order_lines
from adjudicator.kernel.orders import Order, SetStanding, check_size
from adjudicator.kernel.state import GameState
from bot.dice_reuse import POSITION, public_position, same_position
from bot.history import ForcingDice, rolls_to_json
from bot.messages import events_to_json
from bot.records import dice_stream, order_of
from bot.service.base import Loaded, logger
from bot.service.commit import Committing, Plan
from bot.service.models import (
    CONFIRM_RULE,
    COPIED_CHANNEL,
    PRIVATE_CHANNEL,
    SECRET_RULE,
    SHARED_CHANNEL,
    Actor,
    Channel,
    SubmitResult,
)
from bot.service.text import shown
from bot.store import NewAction, loads


class Submitting(Committing):
    # ---- orders -------------------------------------------------------------------------

    def submit(self, game_id: str, actor: Actor, text: str,
               idempotency_key: str | None = None, side: str | None = None,
               channel: Channel = PRIVATE_CHANNEL, *, confirmed: bool = True
               ) -> SubmitResult:
        """The one door for orders, from every frontend: the lines of ``text`` for the
        actor's side, read once, checked for secrecy against the ``channel`` they were typed
        in (:data:`~bot.service.models.Channel`: a secret line given where others read it is
        refused, rule :data:`SECRET_RULE`, before anything is applied), a set-up's
        forfeiting ``done`` asked once (``confirmed`` False: refused with rule
        :data:`CONFIRM_RULE` the first time at this point of the game, taken when sent
        again; a frontend that asks in its own dialogue sends it ``confirmed``), then the
        multi-line loop (see the module notes). The result carries every audience's
        message, who owes a decision and who acts next."""

        try:
            check_size(text)
        except RuleError as error:  # too long to read: no lines either
            return self._refused(shown(game_id), str(error), rule=error.rule)

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            acting = self._side_for(ctx, actor, side)
            if isinstance(acting, SubmitResult):
                return acting
            lines = read[:] = order_lines(text)  # the text passed the door: lines to report
            if not lines:
                return self._refused(game_id, "no order given", rule="notation", side=acting)
            if channel == SHARED_CHANNEL:
                shared[:] = [number for number, line in enumerate(lines, start=1)
                             if ctx.game.secrecy(line, ctx.state, acting).private_only]
            refusal = (self._secret_refusal(ctx, acting, lines, channel)
                       or (None if confirmed else self._confirm_refusal(ctx, actor, acting,
                                                                        lines)))
            if refusal is not None:
                return refusal
            return self._lines_plan(ctx, actor.label, acting, lines)

        shared: list[int] = []
        read: list[str] = []
        result = self._execute(game_id, plan, idempotency_key, actor.label,
                               ("submit", side, text),
                               {"the order text": text, "the side": side})
        return result.model_copy(update={"lines": read, "secret_lines": shared})

    async def submit_async(self, game_id: str, actor: Actor, text: str,
                           idempotency_key: str | None = None,
                           side: str | None = None, channel: Channel = PRIVATE_CHANNEL, *,
                           confirmed: bool = True) -> SubmitResult:
        return await asyncio.to_thread(partial(self.submit, confirmed=confirmed), game_id,
                                       actor, text, idempotency_key, side, channel)

    def _secret_refusal(self, ctx: Loaded, side: str, lines: Sequence[str],
                        channel: Channel) -> SubmitResult | None:
        """The refusal of the first line too secret for ``channel``: in public a secret
        order (:attr:`Secrecy.private_only`, with the position: a face-down placement is
        one, 25.7), in a copied mail any hidden line (standing orders too)."""
        if channel in (PRIVATE_CHANNEL, SHARED_CHANNEL):
            return None
        for number, line in enumerate(lines, start=1):
            secrecy = ctx.game.secrecy(line, ctx.state, side)
            if secrecy.private_only or (channel == COPIED_CHANNEL and secrecy.hidden):
                return self._refused(
                    ctx.id, f"line {number} is a secret order, given where others read it: "
                    "secret orders are taken only privately; nothing was applied",
                    rule=SECRET_RULE, side=side, stopped_at=number)
        return None

    def _confirm_refusal(self, ctx: Loaded, actor: Actor, side: str,
                         lines: Sequence[str]) -> SubmitResult | None:
        """A set-up's ``done`` that gives something up (:attr:`SetupGuide.forfeit`: mines
        not written down) is asked once at this point of the game; the same ``done``
        again is taken."""
        if [" ".join(line.split()).lower() for line in lines] != ["done"] \
                or ctx.game.private_input(ctx.state) != side:
            return None
        guide = ctx.game.setup_guide(ctx.state, side)
        if guide is None or not guide.forfeit or guide.blocked:
            return None
        asked = (ctx.id, actor.label, ctx.head)
        if asked in self._asked_done:
            return None
        self._asked_done.add(asked)
        return self._refused(ctx.id, "Done now gives up: " + "; ".join(guide.forfeit)
                             + ". Send done again to confirm, or go on placing.",
                             rule=CONFIRM_RULE, side=side)

    def _lines_plan(self, ctx: Loaded, actor: str, side: str, lines: Sequence[str],
                    kind: str | None = None, payload: Mapping[str, Any] | None = None,
                    notice: Sequence[Event] = (), *, fresh: bool = False
                    ) -> Plan | SubmitResult:
        """The actions of ``lines``, each applied with the game's dice: an order given again
        from the position where an action the GM rolled back gave it rolls the dice that
        action rolled (:meth:`_seen_stream`; a rollback is no re-roll), new dice otherwise;
        ``fresh``: new dice always (the GM's logged re-roll)."""
        state = ctx.state
        before_hash = str(ctx.row["state_hash"])
        next_roll = int(ctx.row["next_roll"])
        forced = json.loads(ctx.row["forced_dice"])
        actions: list[NewAction] = []
        states: list[GameState] = []
        events: list[Event] = list(notice)
        now = self.clock()
        plan = Plan(actions=actions, states=states, events=events, fields={}, side=side)
        streams: list[tuple[int, int] | None] = []
        texts: list[str] = []  # each order's canonical text (``dice_for``)
        positions: dict[int, str] = {}  # id(state) -> its public position, once computed

        def position_of(before: GameState) -> str:
            if id(before) not in positions:
                positions.clear()  # one state at a time: ids are not reused meanwhile
                # the game's state as loaded: its public View, if a frontend built it
                views = ctx.views if before is ctx.state else None
                positions[id(before)] = public_position(
                    ctx.game, before, None if views is None else views(PUBLIC))
            return positions[id(before)]

        def dice_for(order: Order) -> ForcingDice:
            before = state if not states else states[-1]
            texts.append(ctx.game.format(order))  # canonical, once: the action's text too
            stream = None if fresh else self._seen_stream(
                ctx, side, texts[-1], before_hash, lambda: position_of(before))
            streams.append(stream)
            return (self._dice(ctx, next_roll, forced) if stream is None
                    else self._dice(ctx, stream[1], forced, branch=stream[0]))

        started = time.thread_time()
        # the kernel's one multi-line loop; every input gets a refusal, never an exception
        for step in apply_lines(ctx.game, state, side, lines, dice_for, _internal):
            if isinstance(step, Refused):
                number, error = step.number, step.error
                if not actions:
                    return self._refused(ctx.id, str(error), rule=error.rule, legal=error.legal,
                                         side=side, stopped_at=number)
                plan.status, plan.stopped_at = "partial", number
                plan.error, plan.error_rule, plan.legal = str(error), error.rule, error.legal
                break
            plan.costs.append(time.thread_time() - started)
            number, order, outcome, stream = step.number, step.order, step.outcome, streams[-1]
            dice = step.dice
            assert isinstance(dice, ForcingDice)
            before = step.before.pending
            private = ctx.game.is_private(step.before, side, order)
            forced = forced[dice.used:]
            extra: dict[str, Any] = {}
            if stream is None:
                next_roll += len(outcome.rolls)
            elif outcome.rolls:  # rolled again on the stream it had: this branch's unused
                extra["dice"] = {"branch": stream[0], "from": stream[1]}
            if outcome.rolls:  # where given again after a rollback, it rolls these again
                extra[POSITION] = position_of(step.before)
            answered = (before is not None and before.side == side
                        and not isinstance(order, SetStanding))
            data, state_hash = outcome.state.encoded()
            plan.encoded.append(data)
            row_events = [*(notice if number == 1 else ()), *outcome.events]
            actions.append(NewAction(
                seq=ctx.head + number, branch=int(ctx.row["branch"]), actor=actor,
                kind=kind or ("decision" if answered else "order"), side=side,
                text=texts[-1], order_json=order.model_dump(mode="json"),
                payload=({**(payload or {}), **extra, "private": True} if private
                         else {**(payload or {}), **extra} if payload or extra else None),
                rolls=rolls_to_json(outcome.rolls, dice.forced_positions),
                events=events_to_json(row_events), applied=outcome.applied,
                next_roll=next_roll, state_hash=state_hash, created=now))
            states.append(outcome.state)
            events.extend(outcome.events)
            before_hash = state_hash
            if step.waits:
                assert outcome.state.pending is not None
                plan.status, plan.stopped_at = "partial", number + 1
                plan.error = (f"stopped before line {number + 1}: "
                              f"{outcome.state.pending.side} must decide first")
                break
            started = time.thread_time()
        plan.fields = {"next_roll": next_roll, "forced_dice": json.dumps(forced)}
        return plan

    def _dice(self, ctx: Loaded, start: int, forced: Sequence[Mapping[str, Any]],
              branch: int | None = None) -> ForcingDice:
        """The game's dice from roll ``start`` of ``branch`` (default: the current branch),
        the GM's forced values first."""
        if ctx.row["server_seed"] is None:
            raise RuleError("dice", "this game holds no dice seed (an archived import)")
        entropy = [e["text"] for e in self.store.entropy(ctx.id)]
        seed = effective_seed(bytes(ctx.row["server_seed"]), entropy)
        inner = self.dice_factory(seed, str(ctx.row["dice_id"]),
                                  int(ctx.row["branch"]) if branch is None else branch, start)
        return ForcingDice(inner, forced)

    def _seen_stream(self, ctx: Loaded, side: str, text: str, before_hash: str,
                     position: Callable[[], str]) -> tuple[int, int] | None:
        """(branch, first roll) of the dice the newest rolled-back action rolled for the
        same order (``text``, canonical) of ``side`` from the same public position
        (``position()``, :mod:`bot.dice_reuse`; for an action stored before positions
        were kept, the same state: ``before_hash``), if it rolled any with the game's
        current seed: given again, the order rolls them again, so rolling back and forward
        (or giving the order again) re-rolls nothing, and no secret decides which dice
        are rolled. None: new dice (never rolled back, another order, another position,
        or a seed revealed since)."""
        if int(ctx.row["branch"]) == 0:
            return None  # nothing was ever rolled back
        for row in self.store.rolled_before(ctx.id, side, text):
            if order_of(ctx.game, row) != text or not same_position(
                    loads(row["payload"], None), str(row["before_hash"]), position,
                    before_hash):
                continue
            stream = dice_stream(row)
            if stream is None or stream[0] < int(ctx.row["seed_from_branch"] or 0):
                return None
            return stream
        return None


def _internal(error: Exception, line: int) -> RuleError:
    """A defect met while applying an order: refused (nothing changes), logged for the
    operator. The refusal names no detail: an exception's text may hold a secret."""
    logger.error("internal error applying line %d: %r", line, error, exc_info=error)
    return RuleError("internal", f"Umpire could not apply line {line} (an internal error, "
                     "logged for the operator); nothing was changed")
