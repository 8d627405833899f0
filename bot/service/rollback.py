"""Going back: the GM's rollback (previewed first) and roll-forward of what it reverted, and
a player's undo of an order that revealed nothing. History is kept: a rollback is itself an
action that marks the actions it reverts."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.kernel.events import PUBLIC, Event
from adjudicator.kernel.game import Game
from adjudicator.kernel.state import GameState
from bot.history import forced_before, forced_queue
from bot.messages import events_from_json, events_to_json, order_text_for
from bot.service.base import Loaded
from bot.service.commit import Plan
from bot.service.models import (
    Actor,
    InvalidOperation,
    RollbackPreview,
    RollForwardReport,
    ServiceError,
    SubmitResult,
)
from bot.service.submit import Submitting
from bot.service.text import check_text
from bot.store import NewAction, loads


class Rollbacks(Submitting):
    # ---- rollback, roll-forward, undo ----------------------------------------------------

    def rollback_preview(self, game_id: str, gm: Actor, to_seq: int) -> RollbackPreview:
        ctx = self._load(game_id)
        self._require_gm(ctx.seats, gm, "roll back")
        target, reverted = self._rollback_target(ctx, to_seq)
        rolls = sum(len(json.loads(r["rolls"])) for r in reverted)
        return RollbackPreview(
            to_seq=to_seq,
            reverted=[f"{r['seq']} {r['kind']} {r['side'] or ''} {r['text'] or ''}".strip()
                      for r in reverted],
            changes=state_diff(ctx.state.model_dump(mode="json"),
                               target.model_dump(mode="json")),
            rolls_discarded=rolls)

    def rollback(self, game_id: str, gm: Actor, to_seq: int, reason: str) -> SubmitResult:
        """Return the game to its state after action ``to_seq`` (0: the start)."""

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            denied = self._gm_refusal(ctx, gm, "roll back", reason,
                                      "a rollback needs a reason", rule="rollback")
            if denied is not None:
                return denied
            try:
                target, reverted = self._rollback_target(ctx, to_seq)
            except ServiceError as error:
                return self._refused(game_id, str(error), rule="rollback")
            notice = Event(kind="rollback", audience=PUBLIC,
                           text=f"The GM rolled the game back to action {to_seq} "
                                f"({len(reverted)} action(s) reverted) — reason: {reason}")
            return self._rollback_plan(ctx, gm.label, to_seq, target, reverted, notice,
                                       {"to_seq": to_seq, "reason": reason, "undo": False})

        return self._execute(game_id, plan, None, gm.label, ("rollback", to_seq, reason),
                             {"the reason": reason})

    def _rollback_target(self, ctx: Loaded, to_seq: int
                         ) -> tuple[GameState, list[dict[str, Any]]]:
        if to_seq < 0 or to_seq >= ctx.head:
            raise InvalidOperation(f"roll back to an action between 0 and {ctx.head - 1}")
        if to_seq > 0:
            row = self.store.action(ctx.id, to_seq)
            if row is None or row["reverted_by"] is not None:
                raise InvalidOperation(f"action {to_seq} is not part of the current game")
        reverted = self.store.actions(ctx.id, active_only=True, after=to_seq)
        if not reverted:
            raise InvalidOperation("nothing to roll back")
        return self._state_at(ctx, to_seq), reverted

    def _state_at(self, ctx: Loaded, seq: int) -> GameState:
        kept = self._before.get(ctx.id)
        if kept is not None and kept.head == ctx.head and kept.seq == seq:
            return kept.state  # the state before the last action, as it was planned on
        return self._rebuild(ctx.id, ctx.row, ctx.game, seq)[0]

    def _rollback_plan(self, ctx: Loaded, actor: str, to_seq: int, target: GameState,
                       reverted: Sequence[Mapping[str, Any]], notice: Event | list[Event],
                       payload: dict[str, Any]) -> Plan:
        notices = notice if isinstance(notice, list) else [notice]
        anchor = self.store.action(ctx.id, to_seq) if to_seq else None
        next_roll = int(anchor["next_roll"]) if anchor else 0
        # The forced dice waiting at ``to_seq``: told from those waiting now and the
        # reverted actions, unless dice were forced among them (then from the log).
        forced = forced_before(json.loads(ctx.row["forced_dice"]), reverted)
        if forced is None:
            forced = forced_queue(self.store.actions(ctx.id, active_only=True, upto=to_seq))
        branch = int(ctx.row["branch"]) + 1
        action = NewAction(
            seq=ctx.head + 1, branch=branch, actor=actor, kind="rollback",
            payload={**payload, "reverted": [int(r["seq"]) for r in reverted]},
            events=events_to_json(notices), next_roll=next_roll,
            state_hash=target.state_hash(), created=self.clock())
        return Plan(actions=[action], states=[target], events=notices,
                    fields={"branch": branch, "next_roll": next_roll,
                            "forced_dice": json.dumps(forced)},
                    revert_after=to_seq, force_snapshot=True)

    def roll_forward(self, game_id: str, gm: Actor, rollback_seq: int | None = None, *,
                     reroll: Mapping[int, str] | None = None) -> RollForwardReport:
        """Re-apply, one by one, the orders a rollback reverted, while they stay legal, each
        with the dice it rolled (a roll-forward re-rolls nothing: see
        :meth:`~bot.service.submit.Submitting._seen_stream`).

        ``reroll``: the reverted actions (by number) whose dice the GM rolls again, each
        with the reason: a distinct, public, logged act ("GM re-rolled the attack DR on 20:
        7 → 11 — reason: …") that ``umpire verify`` lists."""
        ctx = self._load(game_id)
        self._require_gm(ctx.seats, gm, "roll forward")
        reroll = dict(reroll or {})
        check_text(list(reroll.values()), "the reason")
        if any(not reason.strip() for reason in reroll.values()):
            raise InvalidOperation("a re-roll needs a reason (it is told to everyone)")
        if rollback_seq is None:
            rows = [r for r in self.store.actions(game_id, active_only=True)
                    if r["kind"] == "rollback" and not json.loads(r["payload"]).get("undo")]
            if not rows:
                raise InvalidOperation("no rollback to roll forward from")
            rollback_seq = int(rows[-1]["seq"])
        anchor = self.store.action(game_id, rollback_seq)
        if anchor is None or anchor["kind"] != "rollback":
            raise InvalidOperation(f"action {rollback_seq} is not a rollback")
        undone = [r for r in self.store.actions(game_id, after=0, upto=rollback_seq)
                  if r["reverted_by"] == rollback_seq]
        for seq in reroll:
            row = next((r for r in undone if int(r["seq"]) == seq), None)
            if row is None or not loads(row["rolls"], []):
                raise InvalidOperation(f"action {seq} is no action of rollback {rollback_seq} "
                                       "that rolled dice: nothing to re-roll")
        report = RollForwardReport(rollback_seq=rollback_seq, reapplied=[], skipped=[])
        for row in undone:
            label = f"{row['seq']} {row['kind']} {row['side'] or ''} {row['text'] or ''}".strip()
            if row["kind"] not in ("order", "decision", "system") or not row["text"]:
                report.skipped.append(label)
                continue
            result = self._reapply(game_id, row, gm, reroll.get(int(row["seq"])))
            report.results.append(result)
            if not result.ok:
                report.stopped_at, report.error = int(row["seq"]), result.error
                break
            report.reapplied.append(label)
        return report

    def _reapply(self, game_id: str, row: Mapping[str, Any], gm: Actor,
                 reroll: str | None = None) -> SubmitResult:
        """Re-apply one reverted action with its dice; ``reroll``: with new dice, the GM's
        reason for it (:func:`reroll_notice`)."""

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            payload: dict[str, Any] = {"reapplied": int(row["seq"]), "by": gm.label}
            if reroll is not None:
                payload["reroll"] = {"of": int(row["seq"]), "reason": reroll}
            planned = self._lines_plan(ctx, str(row["actor"]), str(row["side"]),
                                       [str(row["text"])], kind=str(row["kind"]),
                                       payload=payload, fresh=reroll is not None)
            if reroll is None or isinstance(planned, SubmitResult):
                return planned
            action = planned.actions[0]
            notices = reroll_notice(int(row["seq"]), loads(row["rolls"], []), action.rolls,
                                    reroll)
            action.events[:0] = events_to_json(notices)
            planned.events[:0] = notices
            return planned

        return self._execute(game_id, plan, None, gm.label,
                             ("roll-forward", int(row["seq"]), reroll),
                             {"the reason": reroll})

    def undo(self, game_id: str, actor: Actor) -> SubmitResult:
        """Take back one's own last order, if it revealed nothing (see ``undo_refusal``)."""

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            stopped = self._not_in_play(ctx)
            if stopped is not None:
                return stopped
            mine = {s["side"] for s in ctx.seats if actor.holds(s) and s["role"] == "player"}
            if not mine:
                return self._refused(game_id, f"you play no side in game {game_id}",
                                     rule="permission")
            active = self.store.last_actions(game_id, 2)
            if not active:
                return self._refused(game_id, "there is nothing to undo", rule="undo")
            last = active[-1]
            problem = undo_refusal(ctx.game, last, mine, ctx.state)
            if problem is not None:
                return self._refused(game_id, f"cannot undo: {problem}", rule="undo")
            to_seq = int(active[-2]["seq"]) if len(active) > 1 else 0
            target = self._state_at(ctx, to_seq)
            # The order is quoted only to whom it was visible (never a secret one publicly).
            said = order_text_for(ctx.game, last, PUBLIC)
            notice = [Event(kind="undo", audience=PUBLIC,
                            text=f"{last['side']} takes back: {said}")]
            if said != last["text"]:
                notice.append(Event(kind="undo", audience=str(last["side"]),
                                    text=f"{last['side']} takes back: {last['text']}"))
            return self._rollback_plan(ctx, actor.label, to_seq, target, [last], notice,
                                       {"to_seq": to_seq, "reason": "undone by its player",
                                        "undo": True})

        return self._execute(game_id, plan, None, actor.label)


def undo_refusal(game: Game[Any], last: Mapping[str, Any], sides: set[str],
                 state: GameState) -> str | None:
    """Why the player may not take back ``last`` (the game's last active action), or None.

    An order may be taken back only when all of these hold:

    1. it is an order (not a decision answer, override, rollback or system action), given
       for a side the player holds, and it is the last action of the game — so the other
       side has not acted since;
    2. it rolled no dice;
    3. nobody else answered anything: no standing order fired and no decision is now
       owed by another side;
    4. it told nobody anything private: every event is public or for the player's own
       side (nothing for the other side, nothing GM-only);
    5. the game's ``undo_reveals(events)`` finds nothing in the public events that
       discloses hidden information (a spotted unit, a mine).
    """
    if last["kind"] != "order" or last["side"] not in sides:
        return "your last order is not the game's last action"
    if json.loads(last["rolls"]):
        return "dice were rolled"
    if len(json.loads(last["applied"])) > 1:
        return "a standing order answered it"
    if state.pending is not None and state.pending.side not in sides:
        return "the other side now owes a decision"
    events = events_from_json(json.loads(last["events"]))
    if any(e.audience not in (PUBLIC, last["side"]) for e in events):
        return "it revealed information"
    reasons = game.undo_reveals([e for e in events if e.audience == PUBLIC])
    if reasons:
        return "it revealed " + "; ".join(reasons)
    return None


def reroll_notice(seq: int, was: Sequence[Mapping[str, Any]], now: Sequence[Mapping[str, Any]],
                  reason: str) -> list[Event]:
    """What everyone is told of a GM's re-roll of action ``seq`` (its rolls ``was``, the new
    ones ``now``): each public roll's label and totals ("the attack DR on 20: 7 → 11"); a
    roll only a side sees is named, its values told to that side (and the GM) alone."""
    shown: list[str] = []
    private: list[Event] = []
    for index in range(max(len(was), len(now))):
        old = was[index] if index < len(was) else None
        new = now[index] if index < len(now) else None
        roll = new or old
        assert roll is not None
        label, audience = str(roll["label"]), str(roll.get("audience", PUBLIC))
        change = f"{_total(old)} → {_total(new)}"
        if audience == PUBLIC:
            shown.append(f"the {label} on {seq}: {change}")
        else:
            shown.append(f"a roll of {seq} that only {audience} sees")
            private.append(Event(kind="reroll-detail", audience=audience,
                                 text=f"GM re-rolled the {label} on {seq}: {change}"))
    public = Event(kind="reroll", audience=PUBLIC,
                   text=f"GM re-rolled {'; '.join(shown)} — reason: {reason}",
                   data={"of": seq, "reason": reason})
    return [public, *private]


def _total(roll: Mapping[str, Any] | None) -> str:
    if roll is None:
        return "none"
    values = [int(v) for v in roll["values"]]
    return str(sum(values)) if len(values) > 1 else str(values[0])


def state_diff(before: Any, after: Any, path: str = "", limit: int = 40) -> list[str]:
    """A short human summary of how ``after`` differs from ``before`` (JSON data)."""
    out: list[str] = []

    def walk(a: Any, b: Any, where: str) -> None:
        if len(out) >= limit or a == b:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b), key=str):
                walk(a.get(key), b.get(key), f"{where}.{key}" if where else str(key))
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for index, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, f"{where}[{index}]")
        else:
            out.append(f"{where or 'state'}: {_short_json(a)} -> {_short_json(b)}")

    walk(before, after, path)
    if len(out) >= limit:
        out.append("…")
    return out


def _short_json(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."
