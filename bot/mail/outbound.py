"""Mail Umpire sends: who may read it, and the message itself with its threading headers.

Every outgoing mail names its audience (a side, ``public``, ``gm``, or ``private``: the
one recipient only) so that a test, or the red-team scan, can check that no secret went
to anyone who may not read it. Each mail about a game carries the subject tag
``[umpire GAMEID]``; the gateway chains each recipient's mails of a game into one thread
(:mod:`bot.mail.threads`); a reply answers the player's mail (``In-Reply-To``). Mail
Umpire sends is marked automatic (``Auto-Submitted``, ``X-Loop``) so that well-behaved
auto-responders do not answer it, and Umpire never answers such mail either.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formataddr, formatdate, make_msgid
from typing import Literal

from bot.mail.commands import SUBJECT_TAG

#: Audiences besides the game's sides.
PRIVATE = "private"


@dataclass
class Outgoing:
    to: str
    subject: str
    body: str
    #: Who may read it: a side, "public", "gm", or "private" (the recipient alone).
    audience: str
    game_id: str | None = None
    kind: Literal["reply", "notice"] = "reply"
    in_reply_to: str | None = None
    references: list[str] = field(default_factory=list)
    attachments: list[tuple[str, bytes]] = field(default_factory=list)
    #: (game, address, action) cursors to move once the mail is sent: the recipient has
    #: then been told everything up to that action.
    advance: list[tuple[str, str, int]] = field(default_factory=list)


def tagged(subject: str, game_id: str | None) -> str:
    """``[umpire GAMEID] subject``, with one tag and one ``Re:`` at most."""
    subject = " ".join(SUBJECT_TAG.sub("", subject).split())
    while subject.lower().startswith(("re:", "aw:", "fw:", "fwd:")):
        subject = subject.split(":", 1)[1].strip()
    return f"[umpire {game_id}] {subject}".strip() if game_id else subject


def compose(out: Outgoing, sender: str, name: str) -> EmailMessage:
    """The message for ``out``; a text that cannot be encoded (a lone surrogate) raises
    here, where the gateway counts the failure, never later in the SMTP client."""
    for text in (out.to, out.subject, out.body):
        text.encode("utf-8")
    domain = sender.rsplit("@", 1)[1]
    message = EmailMessage()
    message["From"] = formataddr((name, sender))
    message["To"] = out.to
    message["Subject"] = out.subject
    message["Date"] = formatdate(time.time(), localtime=False, usegmt=True)
    message["Message-ID"] = make_msgid("umpire", domain=domain)
    references = list(out.references)
    if out.in_reply_to:
        message["In-Reply-To"] = out.in_reply_to
        if out.in_reply_to not in references:
            references.append(out.in_reply_to)
    if references:
        message["References"] = " ".join(dict.fromkeys(references))
    message["Auto-Submitted"] = "auto-replied" if out.kind == "reply" else "auto-generated"
    message["X-Loop"] = sender
    message["X-Umpire-Audience"] = out.audience
    if out.game_id is not None:
        message["X-Umpire-Game"] = out.game_id
    message.set_content(out.body)
    for filename, data in out.attachments:
        message.add_attachment(data, maintype="image", subtype="png", filename=filename)
    return message
