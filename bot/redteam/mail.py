"""Mail Umpire sends, as the leak scan reads it: the email gateway's outgoing mail.

The scanned game's players who play by email (the second side's seat has an address) get
a seat secret and mail some of their orders (:func:`send_order`); a stranger follows the
game by mail (``observe``). At the moments this producer runs, the gateway
(:class:`bot.mail.gateway.Gateway`, its desk, a capturing outbox instead of SMTP) receives
read-only commands from both — ``status``, ``log``, ``legal``, ``map``, ``policies`` — and
mails every follower what happened since they were last told, as it does after each mail.
Every mail it sent is scanned as its recipient reads it: the audience is the recipient's
seat (a side, the GM), else the public — not what the mail says of itself. The subject and
every text part are read as text; a picture attached to a reader without secrets of its
own may not use the secret colours; and the ``X-Umpire-Audience`` header must name an
audience the recipient may read.
"""

from __future__ import annotations

import io
import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

from adjudicator.kernel.errors import LEGAL_SEPARATOR
from adjudicator.kernel.events import GM, PUBLIC
from bot.mail.config import MailConfig
from bot.mail.desk import Desk
from bot.mail.gateway import Gateway
from bot.mail.outbound import PRIVATE, compose
from bot.redteam.leaks import own_secrets, secret_tokens
from bot.redteam.outputs import ORDER_SENDERS, Moment, Output, output_producer

UMPIRE = "umpire@red.team"
OBSERVER = "observer@red.team"
#: Every how many runs the followers send their read-only commands.
ASK_EVERY = 2


@dataclass
class Outbox:
    """What the gateway sends, kept instead of sent: (recipient, message); ``judge``: what
    the scan must know of the game when a mail is sent (kept in ``judged``, by the
    message's id), since a mail is scanned later, when the game may have moved on."""

    sent: list[tuple[str, EmailMessage]] = field(default_factory=list)
    judge: Callable[[], Any] | None = None
    judged: dict[int, Any] = field(default_factory=dict)

    def send(self, message: EmailMessage, to: str) -> None:
        self.sent.append((to, message))
        if self.judge is not None:
            self.judged[id(message)] = self.judge()


@dataclass
class Post:
    """The gateway of one scanned game, and who writes to it."""

    gateway: Gateway
    outbox: Outbox
    #: address -> the lines every mail from it starts with (a seat's password)
    writers: dict[str, str]
    runs: int = 0


def _post(m: Moment) -> Post | None:
    post = m.notes.get("mail")
    if post is None:
        config = MailConfig.model_validate({
            "address": UMPIRE, "smtp": {"host": "127.0.0.1", "port": 25, "tls": "none"},
            "limits": {"per_hour": 1_000_000}})
        # a reply's picture is judged by its reader's secrets when it was drawn: a side
        # that mailed a hidden placement and took it back before the scan held its own
        # secret in that picture (a false alarm on kursk-salient, found by the red team)
        outbox = Outbox(judge=lambda: own_secrets(m.rules, m.state()))
        desk = Desk(m.service, config, clock=m.service.clock)
        post = Post(Gateway(desk, config, outbox), outbox, {})
        gm = m.actors[GM]
        kept = m.notes.setdefault("seat_secrets", {})
        for seat in m.service.store.seats(m.game_id):
            if seat["email"] and seat["role"] == "player":
                secret = f"seat-{secrets.token_hex(8)}"
                m.service.set_seat_secret(m.game_id, gm, secret, side=seat["side"])
                kept[str(seat["side"])] = secret
                post.writers[str(seat["email"])] = f"password {secret}"
        if not post.writers:
            return None
        post.writers[OBSERVER] = ""
        m.notes["mail"] = post
        _write(m, post, OBSERVER, f"observe {m.game_id}")
    return post if isinstance(post, Post) else None


def _write(m: Moment, post: Post, sender: str, body: str) -> None:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = UMPIRE
    message["Subject"] = f"[umpire {m.game_id}] red team"
    message["Message-ID"] = make_msgid("redteam", domain="red.team")
    message.set_content(body)
    post.gateway.receive(message.as_bytes())


def send_order(m: Moment, side: str, text: str) -> bool:
    """``side``'s player mails ``text`` to the gateway (its reply is scanned with the other
    mail); False when that side does not play by mail (or the mail producer has not run)."""
    post = m.notes.get("mail")
    if not isinstance(post, Post):
        return False
    for seat in m.service.store.seats(m.game_id):
        if seat["side"] == side and seat["role"] == "player" and seat["email"] in post.writers:
            address = str(seat["email"])
            _write(m, post, address, f"{post.writers[address]}\n{text}")
            return True
    return False


ORDER_SENDERS.append(send_order)


def reader(m: Moment, address: str) -> str:
    """The audience the holder of ``address`` reads as in the game: its seat, else public."""
    found = PUBLIC
    for seat in m.service.store.seats(m.game_id):
        if seat["email"] and str(seat["email"]).lower() == address.lower():
            if seat["role"] == "gm":
                return GM
            found = str(seat["side"])
    return found


def readable(recipient: str, claimed: str | None) -> bool:
    """Whether a mail marked for ``claimed`` may go to a reader of ``recipient``."""
    return claimed in (recipient, PUBLIC, PRIVATE) or recipient == GM


@output_producer("emails", every=3)
def emails(m: Moment) -> Iterable[Output]:
    post = _post(m)
    if post is None:
        return
    post.runs += 1
    if post.runs % ASK_EVERY == 1:
        for sender, password in post.writers.items():
            commands = ["status", "log 30", "map"]
            if password:
                commands = [password, *commands, "legal", "policies"]
            _write(m, post, sender, "\n".join(commands))
    gateway = post.gateway
    for mail in gateway.desk.catch_up({m.game_id}):
        post.outbox.send(compose(mail, gateway.config.address, gateway.config.name), mail.to)
        gateway.desk.sent(mail)
    sent, post.outbox.sent = post.outbox.sent, []
    judged, post.outbox.judged = post.outbox.judged, {}
    secrets = secret_tokens(m) if sent else {}
    for to, message in sent:
        own = judged.get(id(message), m.notes.get("own_secrets", {}))
        audience = reader(m, to)
        claimed = message["X-Umpire-Audience"]
        yield Output("emails", audience, f"mail to {to} marked {claimed}",
                     leak=not readable(audience, claimed))
        text, listings = split_legal_lists(mail_text(message))
        yield Output("emails", audience, text)
        for listing in listings:
            found = [what for what, pattern in secrets.get(audience, [])
                     if pattern.search(listing)]
            yield Output("emails", audience, f"legal list mailed to {to}: {found}",
                         leak=bool(found))
        if audience != GM and not own.get(audience):
            for name, data in pictures(message):
                yield Output("emails", audience, f"{name} to {to}: secret colours",
                             leak=secret_colours(data))


#: The head of a mailed ``legal`` answer (bot.mail.play.cmd_legal): "  soviet may give:
#: 2424 legal order(s) for soviet in 3 group(s)"; its listing is every indented line after.
LEGAL_HEAD = re.compile(r"^\s*\S+ may give: ")


def split_legal_lists(text: str) -> tuple[str, list[str]]:
    """A mail's text without the legal lists it answers ``legal`` with, and those lists.
    A legal list names every hex a move may reach, a hidden unit's among them: it is
    scanned as the leak scan's legal lists are (for a unit next to its hex, never a hex
    alone), the rest of the mail as narrative. A list is the indented lines under its head
    (groups, orders, "... N more", "(+N more lines ...)"), up to the next command's echo
    or anything else not indented; and the orders a refused line's rule error offers
    (:data:`~adjudicator.kernel.errors.LEGAL_SEPARATOR`: "...; legal: a, b (+N more)")."""
    kept: list[str] = []
    listings: list[str] = []
    listing: list[str] | None = None
    for line in text.split("\n"):
        if listing is not None and line.startswith("  "):
            listing.append(line)
            continue
        if listing:
            listings.append("\n".join(listing))
        listing = [] if LEGAL_HEAD.match(line) else None
        if LEGAL_SEPARATOR in line:
            line, offered = line.split(LEGAL_SEPARATOR, 1)
            listings.append(offered)
        kept.append(line)
    if listing:
        listings.append("\n".join(listing))
    return "\n".join(kept), listings


def mail_text(message: EmailMessage) -> str:
    """The subject and every text part of a mail (attachments that are text too)."""
    parts = [str(message["Subject"] or "")]
    for part in message.walk():
        if part.get_content_maintype() == "text":
            parts.append(str(part.get_content()))
    return "\n".join(parts)


def pictures(message: EmailMessage) -> list[tuple[str, bytes]]:
    found: list[tuple[str, bytes]] = []
    for part in message.walk():
        if part.get_content_type() == "image/png":
            data: Any = part.get_payload(decode=True)
            if isinstance(data, bytes):
                found.append((part.get_filename() or "picture", data))
    return found


def secret_colours(png: bytes) -> bool:
    """Whether a picture uses the colours kept for secrets (a palette picture; any
    other kind of picture is a finding too: it cannot be checked)."""
    from PIL import Image

    from render.common import FIRST_SECRET, uses_any

    with Image.open(io.BytesIO(png)) as image:
        return image.mode != "P" or uses_any(image, range(FIRST_SECRET, 256))
