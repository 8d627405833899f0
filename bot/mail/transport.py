"""The network: the mailbox read over IMAP (imap-tools), mail sent over SMTP (smtplib), and
an optional SMTP listener (aiosmtpd) for operators who route mail to Umpire directly.

Mail is read with ``BODY.PEEK`` (it stays unread) and moved to the handled folder (or
flagged) only when the gateway says it is handled, so a crash in between reads it again.
A mail larger than the limit is not downloaded: its headers are enough to refuse it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import smtplib
import socket
import ssl
import time
from collections.abc import Callable, Sequence
from email.message import EmailMessage
from typing import Any

from imap_tools import BaseMailBox, MailBox, MailBoxStartTls, MailBoxUnencrypted
from imap_tools.errors import MailboxFolderCreateError

from bot.mail.config import ImapConfig, ListenConfig, Secret, SmtpConfig
from bot.mail.inbound import MAX_HEADER_BYTES
from bot.mail.oauth import TokenSource, sasl

log = logging.getLogger("umpire.mail")

SIZE = re.compile(rb"RFC822\.SIZE (\d+)")
UID = re.compile(rb"UID (\d+)")
#: The keyword that marks handled mail when no handled folder is configured.
HANDLED_FLAG = "UmpireHandled"


class Inbox:
    """One IMAP mailbox: list what waits, fetch it, mark it handled, wait for more."""

    def __init__(self, config: ImapConfig, password: Secret | None,
                 tokens: TokenSource | None = None) -> None:
        self.config = config
        self.password = password
        #: OAuth2 access tokens (``auth`` = xoauth2 or oauthbearer) instead of the password.
        self.tokens = tokens
        self.box: BaseMailBox | None = None
        self.idle = False

    def connect(self) -> None:
        self.close()
        config = self.config
        box: BaseMailBox
        if config.tls == "implicit":
            box = MailBox(config.host, config.port, timeout=config.timeout,
                          ssl_context=config.ssl_context())
        elif config.tls == "starttls":
            box = MailBoxStartTls(config.host, config.port, timeout=config.timeout,
                                  ssl_context=config.ssl_context())
        else:
            box = MailBoxUnencrypted(config.host, config.port, timeout=config.timeout)
        if self.tokens is not None:
            self._oauth(box)
        else:
            box.login(config.user or "", self.password.reveal() if self.password else "",
                      initial_folder=config.folder)
        # Servers list more after login (MOVE, for one atomic move of a handled mail).
        status, data = box.client.capability()
        if status == "OK" and data and isinstance(data[0], bytes):
            box.client.capabilities = tuple(data[0].decode().upper().split())
        if config.handled_folder and not box.folder.exists(config.handled_folder):
            with contextlib.suppress(MailboxFolderCreateError):  # made meanwhile elsewhere
                box.folder.create(config.handled_folder)
        self.idle = config.idle and "IDLE" in box.client.capabilities
        self.box = box
        log.info("IMAP %s:%s connected (%s)", config.host, config.port,
                 "IDLE" if self.idle else f"polling every {config.poll_seconds:g} s")

    def _oauth(self, box: BaseMailBox) -> None:
        """Log in with an OAuth2 access token (AUTHENTICATE XOAUTH2 or OAUTHBEARER)."""
        assert self.tokens is not None
        config = self.config
        initial = sasl(config.auth, config.user or "", self.tokens.token(), config.host,
                       config.port).encode()

        def answer(challenge: bytes) -> bytes:
            # The first challenge is empty; a second one is the server's error (RFC 7628:
            # answered with %x01, XOAUTH2: with nothing), then the server says NO.
            if not challenge:
                return initial
            return b"\x01" if config.auth == "oauthbearer" else b""

        try:
            box.client.authenticate(config.auth.upper(), answer)
        except Exception:
            self.tokens.forget()  # expired or revoked: the next try fetches a new one
            raise
        box.folder.set(config.folder)

    def close(self) -> None:
        if self.box is not None:
            with contextlib.suppress(Exception):
                self.box.logout()
            self.box = None

    def abort(self) -> None:
        """Cut the connection under a call that waits on the server (from another thread
        or a signal handler): the call fails at once instead of at its timeout."""
        if self.box is not None:
            _shut(getattr(self.box.client, "sock", None))

    @property
    def _box(self) -> BaseMailBox:
        if self.box is None:
            self.connect()
        assert self.box is not None
        return self.box

    def waiting(self) -> list[str]:
        """UIDs of mail not handled yet, oldest first."""
        criteria = "ALL" if self.config.handled_folder else f"UNKEYWORD {HANDLED_FLAG}"
        box = self._box
        box.client.noop()  # a server tells of new mail at NOOP (not always at a search)
        return sorted(box.uids(criteria), key=int)

    def fetch(self, uids: Sequence[str], max_bytes: int) -> dict[str, tuple[bytes, int]]:
        """(raw mail, its size) of each of ``uids`` still in the mailbox, by uid — only
        the headers of a mail over ``max_bytes`` (their first ``MAX_HEADER_BYTES`` + 1: a
        longer header is refused anyway). Two round trips for them all: the sizes, then
        the bodies (a third for the headers of mails too large). The bytes are handed
        over as the server keeps them (nothing parses them here)."""
        if not uids:
            return {}
        client = self._box.client
        status, data = client.uid("fetch", ",".join(uids), "(UID RFC822.SIZE)")
        sizes: dict[str, int] = {}
        for item in data or []:
            line = item if status == "OK" and isinstance(item, bytes) else b""
            named, size = UID.search(line), SIZE.search(line)
            if named is not None and size is not None:
                sizes[named.group(1).decode()] = int(size.group(1))
        small = [uid for uid in uids if uid in sizes and sizes[uid] <= max_bytes]
        large = [uid for uid in uids if uid in sizes and sizes[uid] > max_bytes]
        found: dict[str, tuple[bytes, int]] = {}
        # Over the limit: the header alone, and no more of it than the gateway reads.
        for group, part in ((small, "BODY.PEEK[]"),
                            (large, f"BODY.PEEK[HEADER]<0.{MAX_HEADER_BYTES + 1}>")):
            if not group:
                continue
            status, data = client.uid("fetch", ",".join(group), f"(UID {part})")
            if status != "OK":
                continue
            for key, raw in _literals(data or []):
                if key in sizes:
                    found[key] = (raw, sizes[key])
        return found

    def done(self, uids: Sequence[str]) -> None:
        """Move the handled mails out (or flag them): one command for them all."""
        box = self._box
        if self.config.handled_folder:
            box.move(list(uids), self.config.handled_folder)
        else:
            box.flag(list(uids), ["\\Seen", HANDLED_FLAG], True)

    def wait(self, seconds: float) -> None:
        """Until new mail may have come (IDLE) or ``seconds`` have passed."""
        box = self._box
        if not self.idle:
            time.sleep(seconds)
            return
        box.idle.wait(timeout=max(1.0, min(seconds, 29 * 60)))


class Outbox:
    """The SMTP server Umpire sends through (one connection, opened again when dropped)."""

    def __init__(self, config: SmtpConfig, password: Secret | None, sender: str,
                 tokens: TokenSource | None = None) -> None:
        self.config = config
        self.password = password
        self.sender = sender
        #: OAuth2 access tokens (``auth`` = xoauth2 or oauthbearer) instead of the password.
        self.tokens = tokens
        self.smtp: smtplib.SMTP | None = None
        #: The connection being opened (greeting, STARTTLS, login), for :meth:`abort`.
        self._opening: smtplib.SMTP | None = None

    def _connect(self) -> smtplib.SMTP:
        """Connect, greet, STARTTLS and log in; every step bounded by ``timeout``."""
        config = self.config
        smtp: smtplib.SMTP
        if config.tls == "implicit":
            smtp = _SmtpTls(timeout=config.timeout, context=config.ssl_context())
        else:
            smtp = smtplib.SMTP(timeout=config.timeout)
        smtp._host = config.host  # type: ignore[attr-defined]  # STARTTLS checks it
        self._opening = smtp
        try:
            smtp.connect(config.host, config.port)
            if config.tls == "starttls":
                smtp.starttls(context=config.ssl_context())
            self._log_in(smtp)
        except BaseException:
            smtp.close()
            raise
        finally:
            self._opening = None
        return smtp

    def _log_in(self, smtp: smtplib.SMTP) -> None:
        config = self.config
        if self.tokens is not None:
            initial = sasl(config.auth, config.user or "", self.tokens.token(), config.host,
                           config.port)

            def answer(challenge: bytes | None = None) -> str:
                if challenge is None:
                    return initial
                return "\x01" if config.auth == "oauthbearer" else ""  # after an error

            try:
                smtp.ehlo_or_helo_if_needed()
                smtp.auth(config.auth.upper(), answer, initial_response_ok=True)
            except smtplib.SMTPException:
                self.tokens.forget()
                raise
        elif config.user and self.password is not None:
            smtp.login(config.user, self.password.reveal())

    def send(self, message: EmailMessage, to: str) -> None:
        """Send one mail over the connection kept open; raise (the caller retries later)
        when the server refuses it. A server that closed the session — dropped the
        connection, or answered 421 as one does after so many mails or at its idle
        timeout — did not take the mail: it is sent again over a new connection, once."""
        for attempt in (1, 2):
            if self.smtp is None:
                self.smtp = self._connect()
            try:
                self.smtp.send_message(message, from_addr=self.sender, to_addrs=[to])
                return
            except Exception as error:
                if not _closed(error):
                    raise
                self.close()
                if attempt == 2:
                    raise

    def close(self) -> None:
        if self.smtp is not None:
            with contextlib.suppress(Exception):
                self.smtp.quit()
            self.smtp = None

    def abort(self) -> None:
        """Cut the connection under a call that waits on the server (see
        :meth:`Inbox.abort`), also while it is being opened."""
        for smtp in (self._opening, self.smtp):
            _shut(getattr(smtp, "raw_sock", None) or getattr(smtp, "sock", None))


def _closed(error: Exception) -> bool:
    """Whether an SMTP failure is the session's end rather than a refusal of the mail:
    the connection dropped, or the server said 421 (closing, RFC 5321 §3.8)."""
    if isinstance(error, smtplib.SMTPResponseException):
        return error.smtp_code == 421
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return bool(error.recipients) and all(
            code == 421 for code, _ in error.recipients.values())
    return isinstance(error, (smtplib.SMTPServerDisconnected, ConnectionError, ssl.SSLError))


class _SmtpTls(smtplib.SMTP_SSL):
    """SMTP over implicit TLS whose socket can be cut during the TLS handshake."""

    raw_sock: socket.socket | None = None

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        raw = socket.create_connection((host, port), timeout, self.source_address)
        tls = self.context.wrap_socket(raw, server_hostname=host,
                                       do_handshake_on_connect=False)
        self.raw_sock = tls  # seen by abort() during the handshake
        tls.do_handshake()
        return tls


def _literals(data: list[Any]) -> list[tuple[str, bytes]]:
    """(uid, bytes) of each message in a UID FETCH answer, as imaplib hands it over: a
    ``(head, literal)`` tuple per message, its UID in the head (or, from a server that
    names it after the literal, in the bytes that follow)."""
    out: list[tuple[str, bytes]] = []
    waiting: bytes | None = None
    for item in data:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], bytes):
            head = item[0] if isinstance(item[0], bytes) else b""
            uid = UID.search(head)
            waiting = None if uid is not None else item[1]
            if uid is not None:
                out.append((uid.group(1).decode(), item[1]))
        elif isinstance(item, bytes) and waiting is not None:
            uid = UID.search(item)
            if uid is not None:
                out.append((uid.group(1).decode(), waiting))
            waiting = None
    return out


def _shut(sock: object) -> None:
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


class Listener:
    """An SMTP server (aiosmtpd) that hands each received mail to ``receive``.

    The mail is accepted (250) only once ``receive`` has returned — the action it asked
    for stored and the replies sent; if ``receive`` fails the sender is told to try again
    later (451), so a mail is never acknowledged and lost.
    """

    def __init__(self, config: ListenConfig, receive: Callable[[bytes], Any],
                 max_bytes: int) -> None:
        from aiosmtpd.controller import Controller

        self.controller = Controller(_Handler(receive), hostname=config.host,
                                     port=config.port, data_size_limit=max_bytes)

    def start(self) -> None:
        self.controller.start()

    def stop(self) -> None:
        self.controller.stop()


class _Handler:
    def __init__(self, receive: Callable[[bytes], Any]) -> None:
        self.receive = receive

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or envelope.content
        data = raw if isinstance(raw, bytes) else str(raw).encode()
        try:
            await asyncio.get_running_loop().run_in_executor(None, self.receive, data)
        except Exception:
            log.exception("a mail received over SMTP could not be handled")
            return "451 Requested action aborted: local error in processing"
        return "250 Message accepted for delivery"
