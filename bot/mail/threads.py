"""One mail thread per game and recipient, so that Gmail, Outlook and Thunderbird show each
game as one conversation.

Every mail about a game to one address carries the same subject, ``[umpire GAMEID] TITLE``
(``Re:`` before it after the first), and chains to the mails before it: the first one Umpire
sends to that address about that game is the thread's root (its Message-ID is made from
the game and the address, so a retried first mail is the same root); each later one has
``In-Reply-To`` the previous mail of the thread (or the player's mail it answers) and
``References`` the root, the last few mails and the player's mail. Gmail joins mails with
one subject and a known reference, Thunderbird follows ``References``, Outlook the subject
(``Thread-Topic``).

The thread of each (game, address) — its root, subject and last Message-IDs — is kept in
the store (``meta``, ``mail:thread:GAME:ADDRESS``), so a restart or another gateway carries
it on.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from email.message import EmailMessage

from bot.mail.outbound import Outgoing

PREFIX = "mail:thread:"
#: Message-IDs of a thread's last mails kept in ``References`` (with the root).
KEPT = 8


@dataclass
class Thread:
    root: str
    subject: str
    recent: list[str] = field(default_factory=list)


class Threads:
    def __init__(self, get: Callable[[str], str | None], put: Callable[[str, str], None],
                 domain: str, title: Callable[[str], str]) -> None:
        """``get``/``put``: the store's ``meta``; ``title``: a game's title by its id."""
        self._get, self._put, self.domain, self.title = get, put, domain, title

    @staticmethod
    def _key(game_id: str, address: str) -> str:
        return f"{PREFIX}{game_id}:{address.lower()}"

    def thread(self, game_id: str, address: str) -> Thread | None:
        text = self._get(self._key(game_id, address))
        return Thread(**json.loads(text)) if text else None

    def root_id(self, game_id: str, address: str) -> str:
        digest = hashlib.sha256(address.lower().encode()).hexdigest()[:12]
        return f"<game.{game_id}.{digest}@{self.domain}>"

    def place(self, message: EmailMessage, mail: Outgoing) -> None:
        """Set the message's subject and threading headers for its game and recipient."""
        if mail.game_id is None:
            return
        thread = self.thread(mail.game_id, mail.to)
        answered = [*mail.references, *([mail.in_reply_to] if mail.in_reply_to else [])]
        if thread is None:
            subject = f"[umpire {mail.game_id}] {self.title(mail.game_id)}"
            message_id = self.root_id(mail.game_id, mail.to)
            references = answered
            parent = mail.in_reply_to
        else:
            subject = "Re: " + thread.subject
            message_id = str(message["Message-ID"])
            references = [thread.root, *thread.recent[-KEPT:], *answered]
            parent = mail.in_reply_to or (thread.recent or [thread.root])[-1]
        _set(message, "Subject", subject)
        _set(message, "Thread-Topic", subject.removeprefix("Re: "))
        _set(message, "Message-ID", message_id)
        _set(message, "In-Reply-To", parent)
        _set(message, "References", " ".join(dict.fromkeys(references)) or None)

    def sent(self, message: EmailMessage, mail: Outgoing) -> None:
        """Record a mail of a thread as sent (the root when the thread is new)."""
        if mail.game_id is None:
            return
        message_id = str(message["Message-ID"])
        thread = self.thread(mail.game_id, mail.to)
        if thread is None:
            thread = Thread(root=message_id, subject=str(message["Thread-Topic"]))
        elif message_id != thread.root:
            thread.recent = [*thread.recent, message_id][-KEPT:]
        self._put(self._key(mail.game_id, mail.to), json.dumps(asdict(thread)))


def _set(message: EmailMessage, name: str, value: str | None) -> None:
    del message[name]
    if value:
        message[name] = value
