"""Reading one received mail: who sent it, what it answers, its own text — never raising.

Anything a mail may be is handled here: malformed MIME and headers, HTML-only mail (turned
into text, quoted parts left out), attachments (counted, never read), unknown or wrong
charsets (decoded with replacement characters), text that is no text (lone surrogates:
replaced in headers, the mail refused when its body holds one), huge mail (refused unread),
and the mail that must never be answered — auto-replies, bounces, mailing lists and our own
mail coming back (:attr:`Inbound.silent` says why; answering them could start a mail loop).
"""

from __future__ import annotations

import email
import hashlib
import re
from dataclasses import dataclass, field
from email import policy
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.utils import getaddresses
from typing import Any

from bot.mail.htmltext import html_to_text

#: Local parts that belong to machines: never answered.
MACHINE_SENDERS = ("mailer-daemon", "postmaster", "noreply", "no-reply", "donotreply",
                   "do-not-reply", "bounce", "bounces")
#: Precedence values of bulk and automatic mail (RFC 2076, RFC 3834 §2).
SILENT_PRECEDENCE = ("bulk", "junk", "list", "auto_reply")
MESSAGE_ID = re.compile(r"<[^<>\s]+>")
#: Lone UTF-16 surrogates (U+D800-DFFF): no text (``charset=utf-7`` can carry them, e.g.
#: ``+2AA-``); no reply quoting them could be encoded, and the service refuses them.
SURROGATES = re.compile("[\ud800-\udfff]")
NOT_TEXT = ("your mail holds characters that are not text (lone surrogates, U+D800-DFFF, "
            "as a mail in charset=utf-7 can carry), so Umpire read none of it. Send it again "
            "as plain text in UTF-8 (any mail program's default).")


@dataclass
class Inbound:
    """One received mail, as the gateway needs it."""

    #: What identifies the mail for idempotency: its sender and Message-ID (a stranger's
    #: mail with the same Message-ID is another mail), else a hash of its bytes.
    key: str
    message_id: str | None
    sender: str | None
    subject: str
    references: list[str] = field(default_factory=list)
    #: Every To and Cc address (to tell a private mail from one copied to others).
    recipients: list[str] = field(default_factory=list)
    text: str = ""
    size: int = 0
    attachments: int = 0
    html: bool = False
    #: Why this mail must never be answered (an auto-reply, a bounce, a loop), or None.
    silent: str | None = None
    #: Why its text could not be read (too large, no text part), or None.
    problem: str | None = None


def read_mail(raw: bytes, own_address: str, max_bytes: int, *, size: int | None = None
              ) -> Inbound:
    """The mail in ``raw``. With ``size`` larger than ``max_bytes`` only the headers were
    fetched: the mail is refused unread (its sender is told, unless it must stay silent)."""
    size = len(raw) if size is None else size
    key_hash = "sha256:" + hashlib.sha256(raw).hexdigest()
    try:
        modern = email.message_from_bytes(raw, policy=policy.default)
        legacy = email.message_from_bytes(raw, policy=policy.compat32)
    except Exception:  # the parser is lenient; this is a last resort
        return Inbound(key=key_hash, message_id=None, sender=None, subject="", size=size,
                       silent="unreadable mail (no headers)")
    message_id = _first_id(_header(modern, legacy, "Message-ID"))
    sender = _address(_header(modern, legacy, "From"))
    inbound = Inbound(
        key=f"mid:{sender}:{message_id}" if message_id else key_hash,
        message_id=message_id, sender=sender,
        subject=_one_line(_header(modern, legacy, "Subject"))[:300],
        references=_ids(_header(modern, legacy, "References"))
        + _ids(_header(modern, legacy, "In-Reply-To")),
        recipients=[a for name in ("To", "Cc")
                    for a in _addresses(_header(modern, legacy, name))],
        size=size)
    inbound.silent = _silent_reason(modern, legacy, sender, own_address)
    if size > max_bytes:
        inbound.problem = (f"your mail is {size // 1024} KB; Umpire reads mails of up to "
                           f"{max_bytes // 1024} KB. Send your orders as plain text, without "
                           "attachments or quoted pictures.")
        return inbound
    try:
        text, html, attachments = _body(modern)
    except Exception:
        text, html, attachments = _fallback_body(legacy)
    inbound.text, inbound.html, inbound.attachments = _clean(text), html, attachments
    if SURROGATES.search(text):
        inbound.problem = NOT_TEXT
    if not inbound.text.strip() and inbound.problem is None:
        inbound.problem = ("your mail has no text Umpire can read; write your orders in the "
                           "body of the mail, one per line")
    return inbound


# ---- headers ---------------------------------------------------------------------------------

def _header(modern: Message, legacy: Message, name: str) -> str:
    """A header as text, lone surrogates replaced (:func:`_text`)."""
    return _text(_raw_header(modern, legacy, name))


def _raw_header(modern: Message, legacy: Message, name: str) -> str:
    """A header as decoded; a header the strict parser chokes on is read leniently."""
    try:
        values = modern.get_all(name) or []
        return " ".join(str(v) for v in values)
    except Exception:
        pass
    try:
        raw = legacy.get_all(name) or []
        return " ".join(str(make_header(decode_header(str(v)))) for v in raw)
    except Exception:
        return " ".join(str(v) for v in legacy.get_all(name) or [])


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _addresses(text: str) -> list[str]:
    try:
        pairs = getaddresses([text])
    except Exception:
        return []
    return [address.strip().lower() for _, address in pairs
            if "@" in address and " " not in address.strip()]


def _address(text: str) -> str | None:
    found = _addresses(text)
    return found[0] if found else None


def _ids(text: str) -> list[str]:
    return MESSAGE_ID.findall(text)[:50]


def _first_id(text: str) -> str | None:
    found = _ids(text)
    return found[0][:500] if found else None


def _silent_reason(modern: Message, legacy: Message, sender: str | None,
                   own_address: str) -> str | None:
    def header(name: str) -> str:
        return _header(modern, legacy, name).strip().lower()

    if sender is None:
        return "no sender address"
    if sender == own_address.lower():
        return "a mail from Umpire's own address"
    auto = header("Auto-Submitted")
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    if own_address.lower() in header("X-Loop"):
        return "X-Loop names Umpire (a mail loop)"
    if header("Precedence") in SILENT_PRECEDENCE:
        return f"Precedence: {header('Precedence')}"
    if header("X-Autoreply") or header("X-Autorespond") or header("X-Auto-Reply"):
        return "an auto-reply"
    if header("List-Id") or header("List-Unsubscribe"):
        return "a mailing list mail"
    if header("Return-Path").replace(" ", "") == "<>":
        return "a bounce (empty return path)"
    if sender.split("@", 1)[0] in MACHINE_SENDERS:
        return f"a machine sender ({sender})"
    content_type = header("Content-Type")
    if content_type.startswith("multipart/report"):
        return "a delivery or read report"
    return None


# ---- the body ------------------------------------------------------------------------------

def _body(message: Message) -> tuple[str, bool, int]:
    """(text, whether it came from HTML, number of attachments)."""
    assert isinstance(message, EmailMessage)
    attachments = sum(1 for _ in message.iter_attachments()) if message.is_multipart() else 0
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        part = next((p for p in message.walk() if p.get_content_maintype() == "text"
                     and not p.is_attachment()), None)
    if part is None:
        return "", False, attachments
    text = _content(part)
    if part.get_content_subtype() == "html":
        return html_to_text(text), True, attachments
    return text, False, attachments


def _content(part: Any) -> str:
    try:
        content = part.get_content()
        if isinstance(content, str):
            return content
    except Exception:  # an unknown charset, a broken transfer encoding
        pass
    return _decode(part.get_payload(decode=True), part.get_content_charset())


def _decode(payload: Any, charset: str | None) -> str:
    if isinstance(payload, str):
        return payload
    if not isinstance(payload, bytes | bytearray):
        return ""
    for candidate in (charset, "utf-8"):
        if not candidate:
            continue
        try:
            return bytes(payload).decode(candidate)
        except (LookupError, UnicodeDecodeError):
            continue
    return bytes(payload).decode("utf-8", errors="replace")


def _fallback_body(legacy: Message) -> tuple[str, bool, int]:
    """The first text part, read by the lenient parser."""
    attachments = 0
    for part in legacy.walk():
        if part.is_multipart():
            continue
        disposition = str(part.get("Content-Disposition", "")).lower()
        if part.get_content_maintype() != "text" or disposition.startswith("attachment"):
            attachments += 1
            continue
        text = _decode(part.get_payload(decode=True), part.get_content_charset())
        if part.get_content_subtype() == "html":
            return html_to_text(text), True, attachments
        return text, False, attachments
    return "", False, attachments


def _text(text: str) -> str:
    """Text that can travel on: every lone surrogate replaced by U+FFFD. Every header and
    body this module returns passes here once, so nothing after it meets one."""
    return SURROGATES.sub("\ufffd", text)


def _clean(text: str) -> str:
    text = _text(text).replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    return "\n".join(line.rstrip() for line in text.split("\n"))
