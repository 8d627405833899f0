"""Helpers for the mail tests: mails as players write them, a desk on a fresh store."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from bot.mail.config import MailConfig
from bot.mail.desk import Desk
from bot.mail.inbound import Inbound, read_mail
from bot.mail.outbound import Outgoing
from bot.service import GameService
from bot.store import Store

UMPIRE = "umpire@umpire.test"
DUEL = {"duel": "tests.kernel.duel:DuelGame"}
_numbers = itertools.count(1)


def config(**overrides: Any) -> MailConfig:
    data: dict[str, Any] = {"address": UMPIRE, "smtp": {"host": "127.0.0.1", "port": 25,
                                                         "tls": "none"},
                            "listen": {"port": 2525}}
    data.update(overrides)
    return MailConfig.model_validate(data)


def raw_mail(sender: str, body: str, subject: str = "orders", *, to: str = UMPIRE,
             cc: str | None = None, message_id: str | None = None,
             headers: Mapping[str, str] | None = None, html: str | None = None) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    if cc:
        message["Cc"] = cc
    message["Subject"] = subject
    message["Message-ID"] = message_id or make_msgid(f"t{next(_numbers)}", domain="player.test")
    for name, value in (headers or {}).items():
        message[name] = value
    if html is not None:
        message.set_content(html, subtype="html")
    else:
        message.set_content(body)
    return message.as_bytes()


def inbound(sender: str, body: str, subject: str = "orders", **kwargs: Any) -> Inbound:
    return read_mail(raw_mail(sender, body, subject, **kwargs), UMPIRE, 1_000_000)


def desk(db: Path, **kwargs: Any) -> Desk:
    service = GameService(Store(db, synchronous="NORMAL"),
                          seed_source=kwargs.pop("seed_source", lambda n: b"\x07" * n))
    return Desk(service, config(), draw=lambda view, pack: b"PNG:" + view.viewer.encode(),
                games=kwargs.pop("games", DUEL), **kwargs)


def secret_in(reply: Outgoing) -> str:
    """The seat secret a reply hands out (``Your ... secret: xxxx-xxxx-xxxx``)."""
    for line in reply.body.splitlines():
        if "secret:" in line and "password" not in line:
            return line.split("secret:", 1)[1].strip()
    raise AssertionError(f"no secret in {reply.body!r}")
