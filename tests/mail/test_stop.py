"""Stops (issue 24): SIGTERM while the gateway waits on an SMTP server that accepted the
connection and never answers ends the gateway within its own 10 s budget — the call is
cut, not left to its 60 s timeout."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.mail.servers import MAIL_PASSWORD, Dovecot, LocalCA, free_port
from tests.mail.support import UMPIRE, raw_mail

#: The gateway's own budget (issue 24) and slack for a busy machine's process exit.
BUDGET, SLACK = 10.0, 5.0


class SilentServer:
    """Accepts connections on loopback and never says a word."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", free_port()))
        self.port = int(self.sock.getsockname()[1])
        self.accepted = threading.Event()
        self.held: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            self.accepted.set()

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


def test_sigterm_while_stuck_in_an_smtp_login_stops_within_10_s(
        dovecot: Dovecot, mailbox: str, ca: LocalCA, tmp_path: Path) -> None:
    silent = SilentServer()
    config = tmp_path / "mail.toml"
    config.write_text(f"""address = "{UMPIRE}"
database = "{tmp_path / 'umpire.db'}"
tick_seconds = 0.5
[imap]
host = "localhost"
port = {dovecot.imaps_port}
user = "{mailbox}"
ca_file = "{ca.ca_file}"
poll_seconds = 0.5
[smtp]
host = "127.0.0.1"
port = {silent.port}
user = "umpire"
""")
    dovecot.append(raw_mail("ann@player.test", "help"), user=mailbox)
    env = {**os.environ, "UMPIRE_IMAP_PASSWORD": MAIL_PASSWORD,
           "UMPIRE_SMTP_PASSWORD": "never-asked", "COLUMNS": "200"}
    gateway = subprocess.Popen(
        [sys.executable, "-c", "from bot.cli import app; app()", "mail", "--config",
         str(config), "--log-format", "json"], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    output = stop_when_connected(gateway, silent, "the gateway never tried to send its reply")
    assert "stopping (signal 15)" in output and "stopped" in output, output
    # The log in JSON, one object a line after the banner, and no colour codes in a pipe.
    banner, *lines = output.splitlines()
    assert banner.startswith("Umpire mail gateway for") and "\x1b[" not in output
    records = [json.loads(line) for line in lines]
    assert any(r["message"] == "stopping (signal 15)" for r in records)


def test_sigterm_while_an_imap_server_never_greets_stops_within_10_s(tmp_path: Path) -> None:
    """No connection to cut yet (the IMAP client waits for the TLS handshake inside its
    constructor): the gateway is left behind after its 8 s and the process still ends."""
    silent = SilentServer()
    config = tmp_path / "mail.toml"
    config.write_text(f"""address = "{UMPIRE}"
database = "{tmp_path / 'umpire.db'}"
[imap]
host = "127.0.0.1"
port = {silent.port}
user = "umpire"
[smtp]
host = "127.0.0.1"
port = {silent.port}
""")
    env = {**os.environ, "UMPIRE_IMAP_PASSWORD": "x", "COLUMNS": "200"}
    gateway = subprocess.Popen(
        [sys.executable, "-c", "from bot.cli import app; app()", "mail", "--config",
         str(config)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = stop_when_connected(gateway, silent, "the gateway never connected")
    assert "still waiting on a server" in output, output


@pytest.mark.parametrize("tls", ["implicit", "none"])
def test_an_smtp_connection_being_opened_is_cut_by_abort(tls: str) -> None:
    """The cut reaches a connection still waiting for the server's greeting (or, over
    implicit TLS, for its handshake)."""
    from bot.mail.config import Secret, SmtpConfig
    from bot.mail.transport import Outbox

    silent = SilentServer()
    outbox = Outbox(SmtpConfig(host="127.0.0.1", port=silent.port, tls=tls, user="u"),
                    Secret("x"), UMPIRE)
    failed: list[BaseException] = []

    def connect() -> None:
        try:
            outbox._connect()
        except BaseException as error:  # what the cut raised
            failed.append(error)

    opener = threading.Thread(target=connect, daemon=True)
    opener.start()
    try:
        assert silent.accepted.wait(30)
        deadline = time.monotonic() + 30
        while not (getattr(outbox._opening, "raw_sock", None)
                   or getattr(outbox._opening, "sock", None)):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        started = time.monotonic()
        outbox.abort()
        opener.join(30)
        assert not opener.is_alive() and failed
        assert time.monotonic() - started < 30  # not the 60 s timeout
    finally:
        silent.close()


def stop_when_connected(gateway: subprocess.Popen[str], silent: SilentServer,
                        what: str) -> str:
    """SIGTERM to ``gateway`` once it has reached ``silent`` (a server that never answers):
    it must exit cleanly within its stop budget; its output."""
    try:
        assert silent.accepted.wait(60), what
        started = time.monotonic()
        gateway.send_signal(signal.SIGTERM)
        output, _ = gateway.communicate(timeout=60)
        took = time.monotonic() - started
    finally:
        if gateway.poll() is None:
            gateway.kill()
            gateway.wait()
        silent.close()
    assert gateway.returncode == 0, output
    assert took <= BUDGET + SLACK, (took, output)
    return output
