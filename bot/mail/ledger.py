"""The gateway's bookkeeping in the game database (tables of schema 3, see bot.store).

Everything here is about mail, not about games: which mails were handled (and which
gateway is handling one now), what each
address was last told, who observes a game, how many mails an address sent lately, the
rollbacks waiting for a GM's confirmation and the reminders already sent.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from bot.store import Store

RATE_WINDOW = 3600.0
ROLLBACK_TTL = 24 * 3600.0
#: A mailed code's token among the held rollbacks (a Discord button's token has no colon).
MAIL_TOKEN = "mail:"
#: Leases: a mail being handled (+ its key), and the gateway that sends the notices.
CLAIM, LEADER = "mail:", "mail:leader"
CLAIM_S = 600.0
#: The flood limit's table also counts each sender's mails without a valid command.
IDLE = "idle:"


@dataclass(frozen=True)
class PendingRollback:
    code: str
    game_id: str
    gm: str
    to_seq: int
    reason: str
    head_seq: int


class Ledger:
    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock

    # ---- mails handled ------------------------------------------------------------------------

    def handled(self, key: str) -> str | None:
        """The outcome recorded for a mail already handled (None: not handled yet)."""
        rows = self.store.query(
            "SELECT outcome FROM mail_inbox WHERE message_key = ?", [key])
        return str(rows[0]["outcome"]) if rows else None

    def mark_handled(self, key: str, sender: str | None, game_id: str | None,
                     outcome: str) -> None:
        with self.store.write() as db:
            db.table("mail_inbox").upsert(
                {"message_key": key, "sender": sender, "game_id": game_id,
                 "received": self.clock(), "outcome": outcome}, pk="message_key")

    # ---- several gateways on one database -----------------------------------------------------

    def claim(self, key: str, holder: str, seconds: float = CLAIM_S) -> bool:
        """Take a mail for ``holder`` (a gateway process) while it handles it: of several
        gateways reading one mailbox, one handles each mail (the claim lapses after
        ``seconds`` if its holder died, so the mail is handled then by another)."""
        return self.store.lease(CLAIM + key, holder, seconds)

    def unclaim(self, key: str, holder: str) -> None:
        self.store.release(CLAIM + key, holder)

    def lead(self, holder: str, seconds: float) -> bool:
        """Whether ``holder`` is (or now becomes) the gateway that keeps everyone told —
        deadlines, reminders, notices of actions — renewed at each call."""
        return self.store.lease(LEADER, holder, seconds)

    # ---- what each address was told -------------------------------------------------------------

    def cursor(self, game_id: str, address: str) -> int | None:
        rows = self.store.query(
            "SELECT seq FROM mail_cursors WHERE game_id = ? AND address = ?",
            [game_id, address])
        return int(rows[0]["seq"]) if rows else None

    def set_cursor(self, game_id: str, address: str, seq: int) -> None:
        with self.store.write() as db:
            db.execute("INSERT INTO mail_cursors (game_id, address, seq) VALUES (?, ?, ?) "
                       "ON CONFLICT (game_id, address) DO UPDATE SET seq = excluded.seq "
                       "WHERE excluded.seq > mail_cursors.seq",
                       [game_id, address, seq])

    # ---- observers -----------------------------------------------------------------------------

    def observers(self, game_id: str) -> list[str]:
        return [str(r["address"]) for r in self.store.query(
            "SELECT address FROM mail_observers WHERE game_id = ? ORDER BY since", [game_id])]

    def observe(self, game_id: str, address: str, on: bool) -> bool:
        """Start or stop observing; whether anything changed."""
        before = address in self.observers(game_id)
        with self.store.write() as db:
            if on:
                db.execute("INSERT INTO mail_observers (game_id, address, since) "
                           "VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                           [game_id, address, self.clock()])
            else:
                db.execute("DELETE FROM mail_observers WHERE game_id = ? AND address = ?",
                           [game_id, address])
        return before != on

    def games_followed(self) -> list[str]:
        """Games with an observer or a cursor (someone by email to keep up to date)."""
        return [str(r["game_id"]) for r in self.store.query(
            "SELECT game_id FROM mail_observers UNION SELECT game_id FROM mail_cursors "
            "UNION SELECT game_id FROM seats WHERE email IS NOT NULL AND removed IS NULL")]

    # ---- flood limit ---------------------------------------------------------------------------

    def count_mail(self, address: str, per_hour: int) -> Literal["ok", "warn", "drop"]:
        """Count one more mail from ``address``: ``ok``; ``warn`` for the first one over the
        limit (told once); ``drop`` for the rest of the window."""
        with self.store.write() as db:
            row = self._window(db, address)
            row["count"] = int(row["count"]) + 1
            verdict: Literal["ok", "warn", "drop"] = "ok"
            if row["count"] > per_hour:
                verdict = "drop" if row["warned"] else "warn"
                row["warned"] = 1
            db.table("mail_rate").upsert(row, pk="address")
        return verdict

    def idle(self, address: str) -> int:
        """How many mails without a valid command ``address`` sent in this hour's window
        (kept in the flood limit's table under ``idle:ADDRESS``)."""
        rows = self.store.query("SELECT * FROM mail_rate WHERE address = ?", [IDLE + address])
        if not rows or self.clock() - float(rows[0]["window_start"]) >= RATE_WINDOW:
            return 0
        return int(rows[0]["count"])

    def count_idle(self, address: str) -> int:
        """Count one more mail without a valid command from ``address``; the count now."""
        with self.store.write() as db:
            row = self._window(db, IDLE + address)
            row["count"] = int(row["count"]) + 1
            db.table("mail_rate").upsert(row, pk="address")
        return int(row["count"])

    def _window(self, db: Any, key: str) -> dict[str, Any]:
        """The counter row of ``key``, a fresh one when its hour is over."""
        rows = list(db.query("SELECT * FROM mail_rate WHERE address = ?", [key]))
        row: dict[str, Any] | None = dict(rows[0]) if rows else None
        if row is None or self.clock() - float(row["window_start"]) >= RATE_WINDOW:
            row = {"address": key, "window_start": self.clock(), "count": 0, "warned": 0}
        return row

    # ---- rollbacks waiting for confirmation ---------------------------------------------------

    def hold_rollback(self, game_id: str, gm: str, to_seq: int, reason: str,
                      head_seq: int) -> str:
        """Hold a previewed rollback in the store's one table of held rollbacks
        (``held_rollbacks``, Discord's too) for a day; the code the GM mails back."""
        code = secrets.token_hex(4)
        self.store.hold_rollback(MAIL_TOKEN + code, game_id, gm, to_seq, reason, head_seq,
                                 expires=self.clock() + ROLLBACK_TTL)
        return code

    def take_rollback(self, code: str, game_id: str, gm: str) -> PendingRollback | None:
        """The held rollback with ``code`` for this game and GM (removed), if any."""
        row = self.store.take_rollback(MAIL_TOKEN + code.lower(), now=self.clock(),
                                       game_id=game_id, gm=gm)
        if row is None:
            return None
        return PendingRollback(code.lower(), game_id, gm, int(row["to_seq"]),
                               str(row["reason"]), int(row["head_seq"]))

    # ---- reminders -------------------------------------------------------------------------------

    def reminders_sent(self, game_id: str, deadline_start: float) -> list[float]:
        return [float(r["fraction"]) for r in self.store.query(
            "SELECT fraction FROM mail_reminders WHERE game_id = ? AND deadline_start = ?",
            [game_id, deadline_start])]

    def mark_reminder(self, game_id: str, deadline_start: float, fraction: float) -> None:
        with self.store.write() as db:
            db.execute("INSERT INTO mail_reminders VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                       [game_id, deadline_start, fraction])
