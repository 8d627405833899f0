"""The gateway against real servers on loopback: dovecot over implicit TLS and STARTTLS,
with IDLE and with polling; replies through an SMTP server that wants STARTTLS and a
login."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.mail.config import MailConfig, password
from bot.mail.desk import Desk
from bot.mail.gateway import Gateway
from bot.mail.inbound import MAX_HEADER_BYTES
from bot.mail.transport import Inbox, Outbox
from bot.service import GameService
from bot.store import Store
from tests.mail.conftest import gateway_config
from tests.mail.servers import Dovecot, LocalCA, SmtpSink
from tests.mail.support import DUEL, raw_mail
from tests.waiting import GENEROUS

pytestmark = pytest.mark.usefixtures("passwords")


def make_gateway(config: MailConfig) -> Gateway:
    assert config.imap is not None and config.database is not None
    service = GameService(Store(config.database, synchronous="NORMAL"))
    desk = Desk(service, config, games=DUEL)
    return Gateway(desk, config, Outbox(config.smtp, password(config.smtp), config.address),
                   Inbox(config.imap, password(config.imap)))


@pytest.mark.parametrize("tls", ["implicit", "starttls"])
def test_mail_in_the_mailbox_is_answered_and_moved(tls: str, dovecot: Dovecot, mailbox: str,
                                                   sink: SmtpSink, ca: LocalCA,
                                                   tmp_path: Path) -> None:
    port = dovecot.imaps_port if tls == "implicit" else dovecot.imap_port
    config = gateway_config(dovecot, mailbox, sink, ca, tmp_path,
                            imap={"tls": tls, "port": port})
    dovecot.append(raw_mail("ann@player.test", "help", subject="hello"), user=mailbox)
    gateway = make_gateway(config)
    assert gateway.poll() == 1
    (reply,) = sink.wait_for(1)
    assert reply.to == ["ann@player.test"] and "create GAME" in reply.text
    assert reply.header("Auto-Submitted") == "auto-replied"
    assert dovecot.count("INBOX", mailbox) == 0
    assert dovecot.count("Umpire-handled", mailbox) == 1
    assert gateway.poll() == 0


def test_idle_wakes_the_gateway_when_mail_comes(dovecot: Dovecot, mailbox: str,
                                                sink: SmtpSink, ca: LocalCA,
                                                tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    config = gateway_config(dovecot, mailbox, sink, ca, tmp_path,
                            imap={"poll_seconds": 600}, tick_seconds=600)
    gateway = make_gateway(config)
    waiting = threading.Event()
    wait = Inbox.wait

    def idling(inbox: Inbox, seconds: float) -> None:
        waiting.set()  # the gateway has polled once and now waits for mail
        wait(inbox, seconds)

    monkeypatch.setattr(Inbox, "wait", idling)
    stop = threading.Event()
    runner = threading.Thread(target=gateway.run, args=(stop,), daemon=True)
    runner.start()
    try:
        assert waiting.wait(GENEROUS), "the gateway never came to wait for mail"
        assert gateway.inbox is not None and getattr(gateway.inbox, "idle", False)
        dovecot.append(raw_mail("ann@player.test", "help"), user=mailbox)
        (reply,) = sink.wait_for(1)  # long before the 600 s poll
        assert "create GAME" in reply.text
    finally:
        stop.set()
        # a mail wakes the idling gateway, which then sees it is to stop (else it idles on
        # and the join waits its whole timeout)
        dovecot.append(raw_mail("ann@player.test", "help"), user=mailbox)
        runner.join(timeout=GENEROUS)
    assert not runner.is_alive(), "the gateway did not stop"


def test_a_huge_mail_is_refused_unread_over_imap(dovecot: Dovecot, mailbox: str,
                                                 sink: SmtpSink, ca: LocalCA,
                                                 tmp_path: Path) -> None:
    config = gateway_config(dovecot, mailbox, sink, ca, tmp_path, limits={"max_bytes": 20_000})
    huge = raw_mail("ann@player.test", "pass\n" + "y" * 60_000, subject="my orders")
    dovecot.append(huge, raw_mail("bob@player.test", "help"), user=mailbox)
    gateway = make_gateway(config)
    assert gateway.poll() == 2
    replies = {m.to[0]: m for m in sink.wait_for(2)}
    assert "Umpire reads mails of up to 19 KB" in replies["ann@player.test"].text
    assert "create GAME" in replies["bob@player.test"].text
    assert dovecot.count("INBOX", mailbox) == 0


def test_a_huge_header_is_fetched_in_part_and_answered_27_10(
        dovecot: Dovecot, mailbox: str, sink: SmtpSink, ca: LocalCA, tmp_path: Path) -> None:
    """27.10: a mail over the size limit is looked at by its RFC822.SIZE and only the first
    MAX_HEADER_BYTES of its header are fetched; its sender is answered all the same."""
    config = gateway_config(dovecot, mailbox, sink, ca, tmp_path, limits={"max_bytes": 20_000})
    to = ",\r\n ".join(f"user{i}@example.org" for i in range(20_000))
    bomb = (f"From: ann@player.test\r\nSubject: orders\r\nMessage-ID: <bomb@player.test>\r\n"
            f"To: {to}\r\n\r\nhelp\r\n").encode()
    dovecot.append(bomb, user=mailbox)
    gateway = make_gateway(config)
    inbox = gateway.inbox
    assert isinstance(inbox, Inbox)
    fetched: list[int] = []
    fetch = inbox.fetch

    def measured(uids: Sequence[str], max_bytes: int) -> dict[str, tuple[bytes, int]]:
        got = fetch(uids, max_bytes)
        fetched.extend(len(raw) for raw, _ in got.values())
        return got

    inbox.fetch = measured  # type: ignore[method-assign]
    assert gateway.poll() == 1
    assert fetched and fetched[0] <= MAX_HEADER_BYTES + 1 < len(bomb)
    (reply,) = sink.wait_for(1)
    assert reply.to == ["ann@player.test"] and "Umpire reads mails of up to 19 KB" in reply.text
    assert dovecot.count("INBOX", mailbox) == 0


def test_the_smtp_listener_accepts_only_what_it_handled(sink: SmtpSink, ca: LocalCA,
                                                        tmp_path: Path) -> None:
    import smtplib

    from bot.mail.transport import Listener
    from tests.mail.servers import free_port

    port = free_port()
    config = MailConfig.model_validate({
        "address": "umpire@umpire.test", "database": str(tmp_path / "umpire.db"),
        "listen": {"host": "127.0.0.1", "port": port},
        "smtp": {"host": "localhost", "port": sink.port, "tls": "starttls",
                 "user": "umpire", "ca_file": str(ca.ca_file)}})
    service = GameService(Store(tmp_path / "umpire.db", synchronous="NORMAL"))
    gateway = Gateway(Desk(service, config, games=DUEL), config,
                      Outbox(config.smtp, password(config.smtp), config.address))
    listener = Listener(config.listen, gateway.receive, 100_000)  # type: ignore[arg-type]
    listener.start()
    try:
        with smtplib.SMTP("127.0.0.1", port) as client:
            client.sendmail("ann@player.test", ["umpire@umpire.test"],
                            raw_mail("ann@player.test", "help"))
        (reply,) = sink.wait_for(1)
        assert reply.to == ["ann@player.test"] and "create GAME" in reply.text
        sink.stop()  # replies cannot go out now: the mail is refused for a retry (451)
        with smtplib.SMTP("127.0.0.1", port) as client, pytest.raises(
                smtplib.SMTPDataError) as refused:
            client.sendmail("bob@player.test", ["umpire@umpire.test"],
                            raw_mail("bob@player.test", "help"))
        assert refused.value.smtp_code == 451
    finally:
        listener.stop()
