"""The gateway's health, kept in the store so that ``umpire mail --status`` reads it from
another process: the last poll of the mailbox, the last mail sent, how many mails wait, the
last error and since when the gateway has been failing, whom it told of that, and how
many mails it left unanswered because they failed their sender's authentication.

Kept in ``meta`` under ``mail:health`` as JSON, written by the gateway at each change that
matters (a poll, a send at most every few seconds, an error, a recovery).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from bot.store import Store

KEY = "mail:health"
#: A successful poll or send is written at most this often (an error at once).
WRITE_EVERY = 5.0


@dataclass
class Health:
    holder: str = ""
    started: float | None = None
    last_poll: float | None = None
    last_send: float | None = None
    #: Mails waiting in the mailbox at the last poll.
    queue: int = 0
    handled: int = 0
    sent: int = 0
    last_error: str | None = None
    last_error_at: float | None = None
    #: "receive" or "send": what failed last.
    failing: str | None = None
    #: When the current run of failures began (None: working).
    failing_since: float | None = None
    #: Games whose GM was told (by another channel) of the current failure.
    gm_told: list[str] = field(default_factory=list)
    #: Games whose GM could not be told: no other channel.
    gm_unreachable: list[str] = field(default_factory=list)
    #: Mails that failed their sender's authentication (SPF/DKIM/DMARC): not answered.
    unauthenticated: int = 0

    def as_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Health:
        data: dict[str, Any] = json.loads(text)
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


class HealthBook:
    """The gateway's :class:`Health`, written to the store when it changes."""

    def __init__(self, store: Store, holder: str,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self.health = Health(holder=holder, started=clock())
        self._written = float("-inf")
        self.save()

    def save(self, force: bool = True) -> None:
        now = self.clock()
        if force or now - self._written >= WRITE_EVERY:
            self.store.set_meta(KEY, self.health.as_json())
            self._written = now

    def polled(self, waiting: int) -> None:
        self.health.last_poll = self.clock()
        self.health.queue = waiting
        self.save(force=self.health.failing == "receive")

    def handled(self) -> None:
        self.health.handled += 1
        self.health.queue = max(0, self.health.queue - 1)
        self.save(force=False)

    def sent(self) -> None:
        self.health.last_send = self.clock()
        self.health.sent += 1
        self.save(force=self.health.failing == "send")

    def unauthenticated(self) -> None:
        self.health.unauthenticated += 1
        self.save()

    def failed(self, what: str, cause: str) -> float:
        """Record a failure; seconds since this run of failures began."""
        now = self.clock()
        health = self.health
        health.failing, health.last_error, health.last_error_at = what, cause, now
        if health.failing_since is None:
            health.failing_since = now
        self.save()
        return now - health.failing_since

    def recovered(self) -> float | None:
        """Working again: the seconds the failure lasted (None: it was not failing)."""
        health = self.health
        if health.failing_since is None:
            return None
        lasted = self.clock() - health.failing_since
        health.failing = health.failing_since = None
        health.gm_told, health.gm_unreachable = [], []
        self.save()
        return lasted


def read(store: Store) -> Health | None:
    """The health the last gateway on ``store`` wrote (None: no gateway ran on it)."""
    text = store.get_meta(KEY)
    return Health.from_json(text) if text else None


def describe(health: Health | None, now: float | None = None) -> list[str]:
    """Lines for ``umpire mail --status``."""
    if health is None:
        return ["no mail gateway has run on this database"]
    now = time.time() if now is None else now

    def ago(moment: float | None) -> str:
        if moment is None:
            return "never"
        stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(moment))
        return f"{stamp} ({max(0, now - moment):.0f} s ago)"

    state = ("working" if health.failing_since is None
             else f"FAILING to {health.failing} since {ago(health.failing_since)}")
    lines = [f"gateway:      {health.holder}, started {ago(health.started)}",
             f"state:        {state}",
             f"last poll:    {ago(health.last_poll)}",
             f"last send:    {ago(health.last_send)}",
             f"queue:        {health.queue} mail waiting at the last poll",
             f"handled:      {health.handled} mail, {health.sent} sent",
             "last error:   " + (f"{health.last_error} ({ago(health.last_error_at)})"
                                  if health.last_error else "none"),
             f"unanswered:   {health.unauthenticated} mail failed sender authentication"]
    if health.gm_told:
        lines.append(f"GMs told:     games {', '.join(health.gm_told)} (by Discord)")
    if health.gm_unreachable:
        lines.append(f"GMs not told: games {', '.join(health.gm_unreachable)} "
                     "(no other channel than mail)")
    return lines
