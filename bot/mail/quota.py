"""The sending budget (``[quota]`` in ``mail.toml``): mails per hour and per day, and the
digest mode (at most one notice per game and recipient every ``digest_minutes``).

What the budget holds back is a *notice* to a player or an observer: its recipient's
cursor does not move, so the next notice (after the digest interval, or once the budget
has room again) tells everything since, with the latest picture only. Replies to a mail a
person sent, and every mail to a GM, are never held — they count, but they are few (one
per mail received, bounded by the per-sender limit) and the GM must hear of the budget
itself. When the budget is reached, the log says so once per window, and each GM of a
game whose notices wait is told by mail.

Counts are kept in the store (``meta``: ``mail:quota`` and ``mail:digest:GAME:ADDRESS``),
so a restart or a second gateway shares them (two gateways counting at the same moment
may overshoot by a mail or two).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from bot.mail.config import QuotaConfig
from bot.store import Store

KEY = "mail:quota"
DIGEST = "mail:digest:"
HOUR, DAY = 3600.0, 86400.0


class Quota:
    def __init__(self, store: Store, config: QuotaConfig,
                 clock: Callable[[], float] = time.time) -> None:
        self.store, self.config, self.clock = store, config, clock

    def _counts(self) -> dict[str, Any]:
        text = self.store.get_meta(KEY)
        counts: dict[str, Any] = json.loads(text) if text else {}
        now = self.clock()
        for window, span in (("hour", HOUR), ("day", DAY)):
            start = now - now % span
            if counts.get(window) != start:
                counts[window], counts[f"{window}_sent"] = start, 0
                counts[f"{window}_warned"] = False
        return counts

    def count(self) -> None:
        """One more mail sent (counted only when there is a budget: no write otherwise)."""
        if self.config.per_hour is None and self.config.per_day is None:
            return
        counts = self._counts()
        counts["hour_sent"] += 1
        counts["day_sent"] += 1
        self.store.set_meta(KEY, json.dumps(counts))

    def reached(self) -> str | None:
        """Which budget is spent ("… per hour"/"… per day"), or None."""
        config = self.config
        if config.per_hour is None and config.per_day is None:
            return None
        counts = self._counts()
        if config.per_hour is not None and counts["hour_sent"] >= config.per_hour:
            return f"{config.per_hour} mails per hour"
        if config.per_day is not None and counts["day_sent"] >= config.per_day:
            return f"{config.per_day} mails per day"
        return None

    def first_time(self, budget: str) -> bool:
        """Whether this is the first time ``budget`` is met in its window (then marked)."""
        counts = self._counts()
        window = "hour" if budget.endswith("hour") else "day"
        if counts[f"{window}_warned"]:
            return False
        counts[f"{window}_warned"] = True
        self.store.set_meta(KEY, json.dumps(counts))
        return True

    def until(self, budget: str) -> float:
        """When ``budget``'s window ends."""
        span = HOUR if budget.endswith("hour") else DAY
        now = self.clock()
        return now - now % span + span

    def digest_due(self, game_id: str, address: str) -> bool:
        """Whether a notice to ``address`` about ``game_id`` may go now (digest mode)."""
        minutes = self.config.digest_minutes
        if minutes is None:
            return True
        last = self.store.get_meta(f"{DIGEST}{game_id}:{address.lower()}")
        return last is None or self.clock() - float(last) >= minutes * 60

    def noticed(self, game_id: str, address: str) -> None:
        if self.config.digest_minutes is not None:
            self.store.set_meta(f"{DIGEST}{game_id}:{address.lower()}", repr(self.clock()))
