"""``umpire mail``: the loop that reads the mailbox, answers, and keeps everyone told.

Every mail waiting when the gateway wakes is fetched at once (a few round trips for up to
:data:`FETCH_BATCH` mails: their sizes, then the bodies — only the headers of one too
large), then each, oldest first, is

1. read (never raises), and skipped if its Message-ID was handled before (duplicate
   delivery: a log line);
2. acted on by the desk — every action is stored, with the mail's Message-ID as its
   idempotency key, before anything is sent;
3. answered: its replies are sent;
4. recorded as handled.

The batch's handled mails are then moved to the handled folder (one command), and the
mailbox is asked again before the gateway waits: mail that came meanwhile is handled at
once, not after another IDLE. Once no new mail waits, the other followers of the games the
batch touched get their notices (``Desk.catch_up``: one per follower and game, however many
of the batch's mails it covers) — replies first, so a burst's last sender does not wait for
every notice of the mails before theirs. A crash before step 4 reads the mail again: its
actions are found stored under the same key and not applied twice; at worst a reply goes
out twice. A notice lost to a crash after step 4 is not lost: notices are worked out from
each follower's cursor (what they were last told), so the next ``catch_up`` (the tick's,
over every followed game) sends it. Replies and notices share one SMTP connection, kept
open between mails and opened again when the server closed it (``Outbox``). While the
batch is answered, the seats' secrets of the mails behind are hashed ahead in worker
threads (:mod:`bot.mail.ahead`); the mails themselves are answered one at a time, in order.

Several gateways may read one mailbox against one database: a gateway claims a mail (a lease
in the database) before anything else, so each mail is handled by one of them — another that
sees it meanwhile leaves it alone — and one gateway, the holder of the ``mail:leader``
lease, sends the notices, reminders and deadline news. A mail that makes the desk fail (a
bug), or whose reply cannot be written, is tried three times, then set aside with a log line
so it cannot block the mail behind it, and its sender is told. Between mails the gateway
waits with IMAP IDLE (or polls), and every ``tick_seconds`` runs deadlines and reminders.

A failure to receive (IMAP) or to send (SMTP) is logged with its cause and tried again
after 1 s, 2 s, 4 s, … up to ``retry_max_seconds``; one that lasts ``report_after_minutes``
is reported to the GMs of the games it holds up by Discord where the game has a Discord GM
(:mod:`bot.gm_notices`), else the log and the status say that nobody could be told. The
gateway's health (:mod:`bot.mail.health`) is kept in the store for ``umpire mail --status``.
"""

from __future__ import annotations

import imaplib
import logging
import smtplib
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from email.message import EmailMessage
from typing import Protocol

from adjudicator.kernel.events import GM
from bot import gm_notices
from bot.mail.ahead import SecretsAhead
from bot.mail.authresults import failure
from bot.mail.config import MailConfig
from bot.mail.desk import Desk
from bot.mail.health import HealthBook
from bot.mail.inbound import Inbound, read_mail
from bot.mail.oauth import TokenError
from bot.mail.outbound import PRIVATE, Outgoing, compose
from bot.mail.quota import Quota
from bot.mail.threads import Threads
from bot.store import holder_name

log = logging.getLogger("umpire.mail")

#: Attempts at a mail that makes the desk fail before it is set aside.
MAX_FAILURES = 3
#: :meth:`Gateway.receive`'s outcome for a mail another gateway is handling.
ELSEWHERE = "elsewhere"
#: Mails fetched in one round trip (their bodies are held in memory together: at most this
#: many times ``limits.max_bytes``).
FETCH_BATCH = 25


class SendFailed(Exception):
    """The SMTP server did not take a mail (the cause is ``__cause__``)."""

    def __init__(self, game_id: str | None) -> None:
        super().__init__("a mail could not be sent")
        self.game_id = game_id


def cause_of(error: BaseException) -> str:
    """A failure's cause in one line, for the log and the status (never a password: the
    servers' answers and the exceptions of the mail libraries carry none)."""
    if isinstance(error, SendFailed) and error.__cause__ is not None:
        error = error.__cause__
    if isinstance(error, smtplib.SMTPResponseException):
        text = error.smtp_error.decode("utf-8", "replace") \
            if isinstance(error.smtp_error, bytes) else str(error.smtp_error)
        what = "login refused" if isinstance(error, smtplib.SMTPAuthenticationError) \
            else "refused"
        return f"SMTP {what}: {error.smtp_code} {' '.join(text.split())}"
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return "SMTP refused the recipient: " + "; ".join(
            f"{to}: {code}" for to, (code, _) in error.recipients.items())
    return f"{type(error).__name__}: {' '.join(str(error).split()) or 'no detail'}"


def _expected(error: BaseException) -> bool:
    """A failure of the network or of a server (logged without a traceback)."""
    if isinstance(error, SendFailed) and error.__cause__ is not None:
        error = error.__cause__
    return isinstance(error, (OSError, smtplib.SMTPException, imaplib.IMAP4.error,
                              TokenError)) \
        or type(error).__module__.startswith("imap_tools")


class Sender(Protocol):
    """What sends a message to one address (:class:`~bot.mail.transport.Outbox`)."""

    def send(self, message: EmailMessage, to: str) -> None: ...


class Source(Protocol):
    """A mailbox (:class:`~bot.mail.transport.Inbox`)."""

    def waiting(self) -> list[str]: ...

    def fetch(self, uids: Sequence[str], max_bytes: int) -> dict[str, tuple[bytes, int]]:
        """(raw mail, size) of each of ``uids`` still there, by uid."""
        ...

    def done(self, uids: Sequence[str]) -> None: ...

    def wait(self, seconds: float) -> None: ...


class Gateway:
    def __init__(self, desk: Desk, config: MailConfig, outbox: Sender,
                 inbox: Source | None = None, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.desk = desk
        self.config = config
        self.outbox = outbox
        self.inbox = inbox
        self.clock = clock
        self.lock = threading.Lock()
        self.failures: Counter[str] = Counter()
        self._last_tick = float("-inf")
        #: This gateway's name among the gateways sharing the database (leases).
        self.holder = holder_name()
        self.health = HealthBook(desk.service.store, self.holder)
        store = desk.service.store
        self.threads = Threads(store.get_meta, store.set_meta, config.domain, self._title)
        self.quota = Quota(store, config.quota)
        #: Games whose mail could not be sent during the current failure.
        self._failing_games: set[str] = set()
        #: For the log line of the mail being handled: its game, whether the desk read it.
        self._game_of: dict[str, str] = {}
        self._handled_now = False
        #: Games whose followers may not have been told the latest actions yet (their
        #: notices go out once the mail waiting now is answered: :meth:`notify`).
        self._to_notify: set[str] = set()

    # ---- one mail ----------------------------------------------------------------------------

    def receive(self, raw: bytes, size: int | None = None) -> str:
        """Handle one received mail completely (see the module notes), the notices to the
        other followers included; its outcome. Notices that cannot be sent now stay due
        (the next :meth:`notify`): the mail itself is answered and recorded."""
        outcome = self._answer(read_mail(raw, self.config.address,
                                         self.config.limits.max_bytes, size=size))
        try:
            self.notify()
        except SendFailed as error:
            log.warning("mail gateway: notices not sent now (%s); they go with the next "
                        "mail or tick", cause_of(error))
        return outcome

    def _answer(self, inbound: Inbound) -> str:
        """Handle one received mail but for the notices to other followers (see the module
        notes); its outcome."""
        with self.lock:
            ledger = self.desk.ledger
            if not ledger.claim(inbound.key, self.holder):
                log.info("mail %s from %s is being handled by another gateway",
                         inbound.key, inbound.sender)
                return ELSEWHERE
            started = time.perf_counter()
            outcome = "error"
            try:
                outcome = self._receive(inbound)
                return outcome
            finally:
                ledger.unclaim(inbound.key, self.holder)
                self._log_mail(inbound, outcome, time.perf_counter() - started)

    def _log_mail(self, inbound: Inbound, outcome: str, seconds: float) -> None:
        """One line per handled mail: game, actor, verbs, outcome, milliseconds."""
        fields = {"event": "mail", "game": self._game_of.get(inbound.key),
                  "actor": f"email:{inbound.sender}" if inbound.sender else None,
                  "verb": ",".join(self.desk.verbs if self._handled_now else []) or None,
                  "outcome": outcome, "ms": round(seconds * 1000)}
        self._game_of.pop(inbound.key, None)
        log.info("mail %s: game %s, actor %s, verb %s, outcome %s, %d ms", inbound.key,
                 fields["game"] or "-", fields["actor"] or "-", fields["verb"] or "-",
                 outcome, fields["ms"], extra={"fields": fields})

    def accept(self, raw: bytes) -> str:
        """:meth:`receive` for the SMTP listener: a mail another gateway is handling is
        refused for now (451, the sender's server tries again), never acknowledged unseen."""
        outcome = self.receive(raw)
        if outcome == ELSEWHERE:
            raise RuntimeError("another gateway is handling this mail: try again later")
        return outcome

    def _receive(self, inbound: Inbound) -> str:
        """:meth:`receive`, the mail claimed."""
        ledger = self.desk.ledger
        self._handled_now = False
        if ledger.handled(inbound.key) is not None:
            log.info("mail %s from %s was handled before: not answered again",
                     inbound.key, inbound.sender)
            return "duplicate"
        forged = failure(inbound.auth_results, self.config.trusted_authserv_ids or [])
        if forged is not None:  # its From may be someone else's: no reply (backscatter)
            log.warning("mail %s from %s failed its sender's authentication: %s; not read, "
                        "not answered", inbound.key, inbound.sender, forged)
            self.health.unauthenticated()
            ledger.mark_handled(inbound.key, inbound.sender, None, "unauthenticated")
            return "unauthenticated"
        self._handled_now = True
        try:
            out = self.desk.handle(inbound)
            game = next((m.game_id for m in out if m.game_id), None)
            if game is not None:
                self._game_of[inbound.key] = game
            composed = [(mail, self._compose(mail)) for mail in out]
        except Exception:
            self.failures[inbound.key] += 1
            log.exception("mail %s from %s could not be handled (attempt %d)",
                          inbound.key, inbound.sender, self.failures[inbound.key])
            if self.failures[inbound.key] < MAX_FAILURES:
                raise
            self._set_aside(inbound)
            return "failed"
        for mail, message in composed:
            self._deliver(message, mail)
        self._to_notify.update(m.game_id for m in out if m.game_id)
        outcome = "silent" if inbound.silent else f"answered ({len(out)} mail)"
        ledger.mark_handled(inbound.key, inbound.sender,
                            next((m.game_id for m in out if m.game_id), None), outcome)
        return outcome

    def _compose(self, mail: Outgoing) -> EmailMessage:
        message = compose(mail, self.config.address, self.config.name)
        self.threads.place(message, mail)
        return message

    def _title(self, game_id: str) -> str:
        """A game's title for its threads' subject."""
        try:
            return str(self.desk.service.rules(game_id).title)
        except Exception:  # a game whose rules cannot be loaded: its id says enough
            log.warning("game %s: no title for its mail thread", game_id, exc_info=True)
            return "game"

    def _send(self, mails: Sequence[Outgoing]) -> None:
        """Send notices, but for those the budget or the digest mode holds back (their
        recipients are told at the next notice, bot.mail.quota)."""
        waiting: set[str] = set()
        for mail in mails:
            if mail.kind == "notice" and mail.audience != GM and mail.game_id is not None:
                if not self.quota.digest_due(mail.game_id, mail.to):
                    continue
                if self.quota.reached() is not None:
                    waiting.add(mail.game_id)
                    continue
            self._deliver(self._compose(mail), mail)
            if mail.kind == "notice" and mail.game_id is not None:
                self.quota.noticed(mail.game_id, mail.to)
        budget = self.quota.reached()
        if waiting and budget is not None and self.quota.first_time(budget):
            self._budget_reached(budget, sorted(waiting))

    def _budget_reached(self, budget: str, games: list[str]) -> None:
        """The log line, and a mail to each GM by email of the games whose notices wait."""
        until = time.strftime("%H:%M UTC", time.gmtime(self.quota.until(budget)))
        log.warning("mail budget of %s reached: notices to players of games %s wait until "
                    "%s; replies and mail to GMs still go", budget, ", ".join(games), until)
        store = self.desk.service.store
        for game_id in games:
            for seat in store.seats(game_id):
                if seat["role"] != "gm" or not seat["email"]:
                    continue
                notice = Outgoing(
                    to=str(seat["email"]), audience=GM, game_id=game_id, kind="notice",
                    subject="mail budget reached",
                    body=(f"Umpire's mail budget of {budget} is spent: notices to the "
                          f"players of game {game_id} wait until {until}, then each player "
                          "gets one mail with everything since and the latest picture. "
                          "Replies to their own mail, and mail to you, still go."))
                self._deliver(self._compose(notice), notice)

    def _deliver(self, message: EmailMessage, mail: Outgoing) -> None:
        """Send one mail and record it sent; :class:`SendFailed` when the server refuses."""
        try:
            self.outbox.send(message, mail.to)
        except Exception as error:
            raise SendFailed(mail.game_id) from error
        self.threads.sent(message, mail)
        self.quota.count()
        self.health.sent()
        self.desk.sent(mail)

    def _set_aside(self, inbound: Inbound) -> None:
        """A mail that failed :data:`MAX_FAILURES` times: recorded as failed, never tried
        again, and its sender told so (unless it must stay unanswered) in words that hold
        whatever the desk had stored before it failed."""
        self.desk.ledger.mark_handled(inbound.key, inbound.sender, None, "failed")
        if inbound.silent is not None or inbound.sender is None:
            return
        notice = Outgoing(
            to=inbound.sender, audience=PRIVATE, kind="reply", subject="Re: your mail",
            body=("Umpire could not answer your mail"
                  + (f" {inbound.message_id}" if inbound.message_id else "")
                  + f" after {MAX_FAILURES} attempts: it was set aside, and the error is in "
                  "Umpire's log for its operator. Orders it held may have been applied "
                  "before the error: 'status' and 'log' show each game as it is now."),
            in_reply_to=inbound.message_id)
        try:
            self.outbox.send(self._compose(notice), inbound.sender)
        except Exception:
            log.exception("mail %s from %s was set aside and its sender could not be told",
                          inbound.key, inbound.sender)

    # ---- the mailbox ---------------------------------------------------------------------------

    def poll(self) -> int:
        """Handle every mail waiting in the mailbox, and what comes while they are handled,
        then send the notices they cause (see the module notes); how many were handled."""
        inbox = self.inbox
        if inbox is None:
            return 0
        handled = 0
        seen: set[str] = set()  # a mail that fails stays waiting: tried at the next poll
        while True:
            waiting = inbox.waiting()
            fresh = [uid for uid in waiting if uid not in seen]
            if fresh or not seen:
                self.health.polled(len(waiting))
            if not fresh:
                break
            seen.update(fresh)
            for start in range(0, len(fresh), FETCH_BATCH):
                handled += self._batch(inbox, fresh[start:start + FETCH_BATCH])
        self.notify()
        return handled

    def _batch(self, inbox: Source, uids: list[str]) -> int:
        """Fetch ``uids`` in one go, answer each in turn, move those handled; how many."""
        limits = self.config.limits
        mails = {uid: read_mail(raw, self.config.address, limits.max_bytes, size=size)
                 for uid, (raw, size) in inbox.fetch(uids, limits.max_bytes).items()}
        ahead = SecretsAhead(self.desk.service, limits.max_commands, self._readable)
        ahead.start(mails)
        done: list[str] = []
        try:
            for uid in uids:
                if uid not in mails:
                    continue  # gone meanwhile (another gateway moved it)
                ahead.wait(uid)
                try:
                    outcome = self._answer(mails[uid])
                except SendFailed:
                    raise  # the server refuses: the gateway waits, then tries this mail again
                except Exception:
                    continue  # logged by _answer; tried again on the next poll (until set aside)
                if outcome == ELSEWHERE:
                    continue  # its gateway moves it
                done.append(uid)
                self.health.handled()
        finally:
            ahead.close()
            if done:
                inbox.done(done)
        return len(done)

    def _readable(self, inbound: Inbound) -> bool:
        """Whether the desk reads ``inbound``'s commands (not automatic, not refused unread,
        not failing its sender's authentication)."""
        return inbound.silent is None and inbound.problem is None and failure(
            inbound.auth_results, self.config.trusted_authserv_ids or []) is None

    def notify(self) -> None:
        """The notices to the followers of the games whose mail was answered since the last
        call (by the gateway that keeps everyone told; :meth:`tick` catches up the rest)."""
        with self.lock:
            if not self._to_notify:
                return
            games = set(self._to_notify)
            if self._leading():
                self._send(self.desk.catch_up(games))
            self._to_notify -= games

    def tick(self, force: bool = False) -> None:
        """Deadlines, reminders and news from other frontends, every ``tick_seconds``."""
        now = self.clock()
        if not force and now - self._last_tick < self.config.tick_seconds:
            return
        self._last_tick = now
        with self.lock:
            if not self._leading():
                return
            started = time.perf_counter()
            mails = self.desk.tick()
            self._send(mails)
            ms = round((time.perf_counter() - started) * 1000)
            games = sorted({m.game_id for m in mails if m.game_id})
            # A line when the tick did something (deadlines, reminders, news); else debug.
            log.log(logging.INFO if mails else logging.DEBUG,
                    "deadline tick: %d mail for games %s, %d ms", len(mails),
                    ", ".join(games) or "-", ms,
                    extra={"fields": {"event": "tick", "games": games, "mails": len(mails),
                                      "ms": ms}})

    def _leading(self) -> bool:
        return self.desk.ledger.lead(self.holder, max(120.0, 4 * self.config.tick_seconds))

    # ---- failures ------------------------------------------------------------------------------

    def failed(self, error: BaseException, retry_in: float) -> None:
        """Log a failure to receive or send with its cause, record it, and report it to the
        GMs once it has lasted ``report_after_minutes``."""
        what = "send" if isinstance(error, SendFailed) else "receive"
        if isinstance(error, SendFailed) and error.game_id:
            self._failing_games.add(error.game_id)
        cause = cause_of(error)
        lasted = self.health.failed(what, cause)
        log.error("mail gateway: cannot %s mail: %s; trying again in %.0f s "
                  "(failing for %.0f s)", what, cause, retry_in, lasted,
                  exc_info=None if _expected(error) else error)
        if lasted >= self.config.report_after_minutes * 60:
            self._tell_gms(what, cause)

    def recovered(self) -> None:
        lasted = self.health.recovered()
        if lasted is not None:
            log.info("mail gateway: working again after %.0f s of failures", lasted)
            self._failing_games.clear()

    def _tell_gms(self, what: str, cause: str) -> None:
        """Tell the GMs of the games the failure holds up, by Discord where they have it;
        each game once per failure."""
        health = self.health.health
        store = self.desk.service.store
        games = sorted(self._failing_games) or self.desk.ledger.games_followed()
        since = time.strftime("%H:%M UTC", time.gmtime(health.failing_since or time.time()))
        for game_id in games:
            if game_id in health.gm_told or game_id in health.gm_unreachable:
                continue
            gms = [s for s in store.seats(game_id)
                   if s["role"] == "gm" and s["discord_id"]]
            if gms:
                gm_notices.leave(store, gm_notices.DISCORD, game_id, (
                    f"Umpire's mail gateway cannot {what} mail since {since}: {cause}. "
                    f"Players of game {game_id} who play by email get no answers until "
                    "it works again; its operator should look at its log and "
                    "`umpire mail --status`."))
                health.gm_told.append(game_id)
                log.warning("mail gateway: the GM of game %s is told of the failure by "
                            "Discord", game_id)
            else:
                health.gm_unreachable.append(game_id)
                log.warning("mail gateway: the GM of game %s cannot be told of the failure: "
                            "the game has no other channel than mail", game_id)
        self.health.save()

    def interrupt(self) -> None:
        """Cut the mail connections under a call waiting on a server (a stop)."""
        for end in (self.inbox, self.outbox):
            abort = getattr(end, "abort", None)
            if callable(abort):
                abort()

    def run(self, stop: threading.Event) -> None:
        """Until ``stop`` is set: poll, tick, wait (IDLE or sleep); after a failure, log it
        and wait 1 s, 2 s, 4 s, … up to ``retry_max_seconds`` (reconnecting)."""
        backoff = 1.0
        while not stop.is_set():
            try:
                self.poll()
                self.tick()
                self.recovered()
                backoff = 1.0
                if self.inbox is None:
                    stop.wait(min(self.config.tick_seconds, 5.0))
                else:
                    wait = min(self.config.tick_seconds,
                               self.config.imap.poll_seconds if self.config.imap else 30.0)
                    self.inbox.wait(wait)
            except Exception as error:
                if stop.is_set():
                    log.info("mail gateway: stopped (%s)", cause_of(error))
                    break
                self.failed(error, backoff)
                close = getattr(self.inbox, "close", None)
                if callable(close):
                    close()
                close_out = getattr(self.outbox, "close", None)
                if callable(close_out):
                    close_out()
                stop.wait(backoff)
                backoff = min(backoff * 2, self.config.retry_max_seconds)
