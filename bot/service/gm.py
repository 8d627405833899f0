"""The GM's typed overrides (:mod:`bot.overrides`), and pausing and resuming play; each is
a logged action with its reason."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel

from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import PUBLIC, Event
from bot import deadlines
from bot.dice_reuse import POSITION, public_position
from bot.history import rolls_to_json
from bot.messages import events_to_json
from bot.overrides import AnswerDecision, ForceDice, Override, apply_override, parse_override
from bot.service.base import Loaded
from bot.service.commit import Plan
from bot.service.models import Actor, SubmitResult
from bot.service.submit import Submitting
from bot.store import NewAction


class GmTools(Submitting):
    # ---- GM override ---------------------------------------------------------------------

    def override(self, game_id: str, gm: Actor, op: Override | Mapping[str, Any],
                 reason: str, idempotency_key: str | None = None) -> SubmitResult:
        """Apply a typed GM operation (see :mod:`bot.overrides`), logged with its reason."""

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            denied = self._gm_refusal(ctx, gm, "override", reason,
                                      "an override needs a reason", rule="override")
            if denied is not None:
                return denied
            try:
                typed = parse_override(op)
            except RuleError as error:
                return self._refused(game_id, str(error), rule=error.rule)
            forced = json.loads(ctx.row["forced_dice"])
            next_roll = int(ctx.row["next_roll"])
            try:
                answer = self._answer_text(ctx, typed)
                position = cache(lambda: public_position(ctx.game, ctx.state))
                stream = (None if answer is None else
                          self._seen_stream(ctx, answer[0], answer[1],
                                            str(ctx.row["state_hash"]), position))
                dice = (self._dice(ctx, next_roll, forced) if stream is None
                        else self._dice(ctx, stream[1], forced, branch=stream[0]))
                done = apply_override(ctx.game, ctx.state, typed, reason, dice)
            except RuleError as error:
                return self._refused(game_id, str(error), rule=error.rule, legal=error.legal)
            forced = forced[dice.used:]
            if isinstance(typed, ForceDice):
                forced += [{"value": v, "reason": reason} for v in typed.values]
            payload: dict[str, Any] = {"op": typed.model_dump(mode="json"), "reason": reason}
            if stream is None:
                next_roll += len(done.rolls)
            elif done.rolls:  # the answer a rolled-back action gave: its dice again
                payload["dice"] = {"branch": stream[0], "from": stream[1]}
            if done.rolls:  # where given again after a rollback, it rolls these again
                payload[POSITION] = position()
            action = NewAction(
                seq=ctx.head + 1, branch=int(ctx.row["branch"]), actor=gm.label,
                kind="gm-override", side=done.side, text=None, payload=payload,
                rolls=rolls_to_json(done.rolls, dice.forced_positions),
                events=events_to_json(done.events), applied=done.applied,
                next_roll=next_roll, state_hash=done.state.state_hash(), created=self.clock())
            return Plan(actions=[action], states=[done.state], events=done.events,
                        fields={"next_roll": next_roll, "forced_dice": json.dumps(forced)},
                        side=done.side)

        request = op.model_dump(mode="json") if isinstance(op, BaseModel) else dict(op)
        return self._execute(game_id, plan, idempotency_key, gm.label,
                             ("override", request, reason),
                             {"the reason": reason, "the GM operation": request})

    @staticmethod
    def _answer_text(ctx: Loaded, op: Override) -> tuple[str, str] | None:
        """(side, canonical order) of a GM's answer to the pending decision (None for other
        overrides): an answer rolls the dice the same answer rolled from the same position
        before a rollback, as a player's would."""
        if not isinstance(op, AnswerDecision) or ctx.state.pending is None:
            return None
        return str(ctx.state.pending.side), ctx.game.format(ctx.game.parse(op.order))

    # ---- pause, resume --------------------------------------------------------------------

    def pause(self, game_id: str, gm: Actor, reason: str,
              idempotency_key: str | None = None) -> SubmitResult:
        """Stop play: orders and decisions are refused and deadlines frozen until resumed.

        Logged as a ``pause`` action with the reason and a public notice; the game's state
        does not change. GM tools (overrides, rollback) still work while paused.
        """

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            denied = self._gm_refusal(ctx, gm, "pause the game", reason,
                                      "a pause needs a reason", rule="pause")
            if denied is not None:
                return denied
            if ctx.row["status"] != "active":
                return self._refused(game_id, f"only a game in play can be paused; this one "
                                     f"is {ctx.row['status']}", rule="pause")
            now = self.clock()
            clock = (" The deadline clock is stopped." if ctx.row["deadline_at"] is not None
                     else "")
            notice = Event(kind="pause", audience=PUBLIC,
                           text=f"The GM paused the game — reason: {reason}. Orders and "
                                f"decisions wait until the GM resumes it.{clock}")
            return self._status_plan(ctx, gm.label, "pause", notice, {"reason": reason},
                                     {"status": "paused", "paused_at": now,
                                      "paused_by": gm.label, "pause_reason": reason})

        return self._execute(game_id, plan, idempotency_key, gm.label,
                             ("pause", reason), {"the reason": reason})

    def resume(self, game_id: str, gm: Actor, reason: str,
               idempotency_key: str | None = None) -> SubmitResult:
        """Restart play after :meth:`pause`; a running deadline is extended by the time the
        game stood paused (reminders already sent stay sent)."""

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            denied = self._gm_refusal(ctx, gm, "resume the game", reason,
                                      "say why play resumes", rule="pause")
            if denied is not None:
                return denied
            if ctx.row["status"] != "paused":
                return self._refused(game_id, f"the game is {ctx.row['status']}, not paused",
                                     rule="pause")
            now = self.clock()
            stopped = max(0.0, now - float(ctx.row["paused_at"] or now))
            fields: dict[str, Any] = {"status": "active", "paused_at": None,
                                      "paused_by": None, "pause_reason": None}
            text = f"The GM resumed the game — reason: {reason}."
            if ctx.row["deadline_at"] is not None:
                fields["deadline_at"] = float(ctx.row["deadline_at"]) + stopped
                if ctx.row["deadline_start"] is not None:
                    fields["deadline_start"] = float(ctx.row["deadline_start"]) + stopped
                text += (f" The deadline is extended by {deadlines.duration(stopped)} "
                         "(the time the game stood paused).")
            notice = Event(kind="resume", audience=PUBLIC, text=text)
            return self._status_plan(ctx, gm.label, "resume", notice,
                                     {"reason": reason, "extended": stopped}, fields)

        return self._execute(game_id, plan, idempotency_key, gm.label,
                             ("resume", reason), {"the reason": reason})

    def _status_plan(self, ctx: Loaded, actor: str, kind: str, notice: Event,
                     payload: dict[str, Any], fields: dict[str, Any]) -> Plan:
        """A logged action that changes the game's status, not its state."""
        action = NewAction(
            seq=ctx.head + 1, branch=int(ctx.row["branch"]), actor=actor, kind=kind,
            payload=payload, events=events_to_json([notice]),
            next_roll=int(ctx.row["next_roll"]), state_hash=ctx.state.state_hash(),
            created=self.clock())
        return Plan(actions=[action], states=[ctx.state], events=[notice], fields=fields)
