"""Deadlines at work: the tick that sends due reminders and, when a side's time runs out,
plays the rules' default order for it (or tells the GM there is none); after an outage,
deadlines are extended rather than executed in a burst."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from adjudicator.kernel.events import GM, PUBLIC
from bot import deadlines
from bot.service.base import Loaded
from bot.service.commit import Plan
from bot.service.models import SubmitResult
from bot.service.submit import Submitting
from bot.store import SequenceConflict

SYSTEM_ACTOR = "system"
#: The lease whose holder ticks deadlines.
DEADLINE_LEASE = "deadlines"


class DeadlineTicks(Submitting):
    # ---- deadlines -------------------------------------------------------------------------

    def tick(self, now: float | None = None) -> list[deadlines.Notice]:
        """Send due reminders and act on expired deadlines; call it every minute or so.

        After an outage (no tick for ``outage_after`` seconds), deadlines that expired while
        the service was down are extended instead of being executed in a burst. Of all the
        processes sharing the database, one ticks: the holder of the ``deadlines`` lease
        (renewed at each tick; another process takes it over once it lapses); the others
        get no notices.
        """
        if not self.store.lease(DEADLINE_LEASE, self.instance, self.tick_lease):
            return []
        now = self.clock() if now is None else now
        last = self.store.get_meta("last_tick")
        outage = last is not None and now - float(last) > self.outage_after
        notices: list[deadlines.Notice] = []
        for row in self.store.games_with_deadlines():
            gid = str(row["id"])
            if row["deadline_at"] <= now:
                if outage:
                    notices.append(self._extend_deadline(gid, now))
                else:
                    notices.extend(self._expire(gid, now))
            else:
                notices.extend(self._reminders(row, now))
        self.store.set_meta("last_tick", repr(now))
        return notices

    def _reminders(self, row: Mapping[str, Any], now: float) -> list[deadlines.Notice]:
        due, sent = deadlines.due_reminders(row, now)
        if due:
            try:
                self.store.update_game(str(row["id"]), {"reminders_sent": json.dumps(sent)},
                                       expected_seq=int(row["head_seq"]))
            except SequenceConflict:
                return []  # the game moved on meanwhile; its deadline was reset
        return due

    def _extend_deadline(self, game_id: str, now: float) -> deadlines.Notice:
        with self._lock(game_id), self.store.game_lock(game_id):
            row = self._row(game_id)
            fields, notice = deadlines.extend_after_outage(row, now)
            self.store.update_game(game_id, fields, expected_seq=int(row["head_seq"]))
            self._cache.pop(game_id)
            return notice

    def _expire(self, game_id: str, now: float) -> list[deadlines.Notice]:
        outcome: list[deadlines.Notice] = []

        def plan(ctx: Loaded) -> Plan | SubmitResult:
            side = ctx.row["deadline_side"]
            if side is None or ctx.game.acting_side(ctx.state) != side:
                return self._refused(game_id, "the deadline no longer applies", rule="deadline")
            text = deadlines.default_order(ctx.game, ctx.state, side)
            if text is None:
                fields = {"deadline_at": None}
                self.store.update_game(game_id, fields, expected_seq=ctx.head)
                outcome.append(deadlines.Notice(
                    game_id=game_id, audience=GM, kind="no-default",
                    text=f"{side}'s deadline passed and the rules give no default order; "
                         "the GM must act"))
                return self._refused(game_id, "no default order", rule="deadline")
            decision = ctx.state.pending is not None
            notices = deadlines.expiry_notices(ctx.game, ctx.state, str(side), text)
            return self._lines_plan(ctx, SYSTEM_ACTOR, str(side), [text], kind="system",
                                    payload={"deadline": True, "decision": decision},
                                    notice=notices)

        result = self._execute(game_id, plan, None, SYSTEM_ACTOR)
        if result.ok:
            outcome.append(deadlines.Notice(game_id=game_id, audience=PUBLIC, kind="expired",
                                            text=result.messages[PUBLIC].lines[0]
                                            if result.messages else "deadline expired"))
        return outcome
