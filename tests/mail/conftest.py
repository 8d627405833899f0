"""Fixtures for the mail tests: a test CA, dovecot (per session), a fresh mailbox and an
SMTP sink per test, and a gateway configuration pointing at them."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest

from bot.mail.config import MailConfig
from tests.mail.servers import (
    MAIL_PASSWORD,
    SMTP_PASSWORD,
    SMTP_USER,
    Dovecot,
    LocalCA,
    SmtpSink,
    dovecot_binary,
)
from tests.mail.support import UMPIRE


@pytest.fixture(scope="session")
def ca() -> LocalCA:
    return LocalCA(Path(tempfile.mkdtemp(prefix="umpire-ca-")))


@pytest.fixture(scope="session")
def dovecot(ca: LocalCA) -> Iterator[Dovecot]:
    with running_dovecot(ca) as server:
        yield server


@contextlib.contextmanager
def running_dovecot(ca: LocalCA, introspection_url: str | None = None) -> Iterator[Dovecot]:
    """A dovecot started for the tests (with OAuth2 logins checked at
    ``introspection_url``), stopped after; skipped where dovecot is not installed."""
    if dovecot_binary() is None:
        if os.environ.get("UMPIRE_MAIL_SERVERS") == "required":
            pytest.fail("dovecot is not installed, and .ci/run requires the mail servers")
        pytest.skip("dovecot is not installed: `apt-get install dovecot-imapd` (.ci/run "
                    "installs it and fails when it cannot)")
    with started(Dovecot(ca, introspection_url)) as server:
        yield server


class Server(Protocol):
    def start(self) -> None: ...

    def stop(self) -> None: ...


S = TypeVar("S", bound=Server)


@contextlib.contextmanager
def started(server: S) -> Iterator[S]:
    """A test server, started, and stopped after."""
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def mailbox(dovecot: Dovecot) -> str:
    """A new, empty mailbox user for this test."""
    return dovecot.new_mailbox()


@pytest.fixture
def sink(ca: LocalCA) -> Iterator[SmtpSink]:
    with started(SmtpSink(ca)) as server:
        yield server


@pytest.fixture
def passwords(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UMPIRE_IMAP_PASSWORD", MAIL_PASSWORD)
    monkeypatch.setenv("UMPIRE_SMTP_PASSWORD", SMTP_PASSWORD)


def gateway_config(dovecot: Dovecot, mailbox: str, sink: SmtpSink, ca: LocalCA,
                   tmp_path: Path, **extra: Any) -> MailConfig:
    data: dict[str, Any] = {
        "address": UMPIRE, "database": str(tmp_path / "umpire.db"), "tick_seconds": 0.5,
        "imap": {"host": "localhost", "port": dovecot.imaps_port, "tls": "implicit",
                 "user": mailbox, "ca_file": str(ca.ca_file), "poll_seconds": 0.5},
        "smtp": {"host": "localhost", "port": sink.port, "tls": "starttls",
                 "user": SMTP_USER, "ca_file": str(ca.ca_file)},
    }
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return MailConfig.model_validate(data)
