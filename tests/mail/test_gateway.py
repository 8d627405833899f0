"""The gateway loop with an in-memory mailbox: a mail is marked handled only after its
replies went out; a mail that breaks the desk is tried again, then set aside, and never
holds up the mail behind it; a duplicate delivery is answered once."""

from __future__ import annotations

import smtplib
from collections.abc import Sequence
from email.message import EmailMessage
from pathlib import Path

import pytest

from bot.mail.desk import Desk
from bot.mail.gateway import MAX_FAILURES, Gateway, SendFailed
from bot.mail.inbound import Inbound, read_mail
from tests.mail.support import UMPIRE, config, desk, raw_mail


class MemoryBox:
    def __init__(self, *mails: bytes) -> None:
        self.mails = {str(uid): raw for uid, raw in enumerate(mails, start=1)}
        self.handled: list[str] = []

    def waiting(self) -> list[str]:
        return sorted(set(self.mails) - set(self.handled), key=int)

    def fetch(self, uids: Sequence[str], max_bytes: int) -> dict[str, tuple[bytes, int]]:
        return {uid: (self.mails[uid], len(self.mails[uid])) for uid in uids}

    def done(self, uids: Sequence[str]) -> None:
        self.handled.extend(uids)

    def wait(self, seconds: float) -> None:
        pass


class MemorySender:
    def __init__(self) -> None:
        self.sent: list[tuple[str, EmailMessage]] = []
        self.down = False

    def send(self, message: EmailMessage, to: str) -> None:
        if self.down:
            raise smtplib.SMTPServerDisconnected("the server went away")
        self.sent.append((to, message))


class BrokenDesk(Desk):
    """A desk with a bug that only one kind of mail meets."""

    def handle(self, inbound: Inbound) -> list:  # type: ignore[type-arg]
        if "boom" in inbound.text:
            raise RuntimeError("a bug")
        return super().handle(inbound)


@pytest.fixture
def parts(tmp_path: Path) -> tuple[Desk, MemorySender]:
    office = desk(tmp_path / "umpire.db")
    broken = BrokenDesk(office.service, config(), games=office.games,
                        draw=office.draw)
    return broken, MemorySender()


def test_a_failing_mail_is_set_aside_and_the_rest_are_answered(
        parts: tuple[Desk, MemorySender]) -> None:
    office, sender = parts
    box = MemoryBox(raw_mail("ann@player.test", "boom"), raw_mail("bob@player.test", "help"))
    gateway = Gateway(office, config(), sender, box)
    assert gateway.poll() == 1  # bob's mail is answered although ann's failed
    assert [to for to, _ in sender.sent] == ["bob@player.test"]
    for _ in range(MAX_FAILURES - 1):
        gateway.poll()
    assert box.waiting() == []  # set aside after the last attempt, with a log line
    assert [to for to, _ in sender.sent] == ["bob@player.test", "ann@player.test"]  # told
    failed = read_mail(box.mails["1"], UMPIRE, 100_000)
    assert office.ledger.handled(failed.key) == "failed"


def test_a_mail_is_not_marked_handled_until_its_replies_are_sent(
        parts: tuple[Desk, MemorySender]) -> None:
    office, sender = parts
    box = MemoryBox(raw_mail("ann@player.test", "help", message_id="<once@player.test>"))
    gateway = Gateway(office, config(), sender, box)
    sender.down = True
    with pytest.raises(SendFailed):  # the loop logs it and waits before trying again
        gateway.poll()
    assert box.waiting() == ["1"]
    sender.down = False
    assert gateway.poll() == 1 and len(sender.sent) == 1
    box.mails["2"] = box.mails["1"]  # delivered twice
    assert gateway.poll() == 1 and len(sender.sent) == 1  # answered once
    ((_, reply),) = sender.sent
    assert reply["In-Reply-To"] == "<once@player.test>" and reply["Auto-Submitted"]
