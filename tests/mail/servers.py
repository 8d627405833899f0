"""Real mail servers on loopback for the tests: Debian's dovecot (IMAP, with a throwaway
config, STARTTLS and implicit TLS from a test CA) and an aiosmtpd sink that requires
STARTTLS and a login, like a real submission server, and keeps every mail it accepts.

dovecot runs as root (it drops privileges to its own users, as installed by Debian) or,
when the tests are not root, entirely as the current user.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import imaplib
import json
import logging
import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from functools import cached_property
from pathlib import Path
from typing import Any

import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from tests.waiting import GENEROUS

DOVECOT_PATHS = ("/usr/sbin/dovecot", "/usr/local/sbin/dovecot")
# aiosmtpd warns of its own deprecated attribute on every login; not the tests' business.
logging.getLogger("mail.log").setLevel(logging.ERROR)
MAIL_USER, MAIL_PASSWORD = "umpire", "imap-test-password"
SMTP_USER, SMTP_PASSWORD = "umpire", "smtp-test-password"
#: Mailboxes made when dovecot starts (one per test that needs one).
MAILBOXES = 300


def dovecot_binary() -> str | None:
    found = shutil.which("dovecot") or next((p for p in DOVECOT_PATHS if os.path.exists(p)),
                                            None)
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float = GENEROUS) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


@dataclass
class LocalCA:
    """A certificate authority for the tests, and a server certificate for localhost."""

    folder: Path
    ca: trustme.CA = field(default_factory=trustme.CA)

    def __post_init__(self) -> None:
        self.server = self.ca.issue_cert("localhost", "127.0.0.1")
        self.ca_file = self.folder / "ca.pem"
        self.cert_file = self.folder / "cert.pem"
        self.key_file = self.folder / "key.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_file))
        self.server.cert_chain_pems[0].write_to_path(str(self.cert_file))
        for extra in self.server.cert_chain_pems[1:]:
            extra.write_to_path(str(self.cert_file), append=True)
        self.server.private_key_pem.write_to_path(str(self.key_file))
        os.chmod(self.key_file, 0o644)
        os.chmod(self.folder, 0o755)

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.server.configure_cert(context)
        return context

    def client_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context()
        self.ca.configure_trust(context)
        return context


class Dovecot:
    """A dovecot IMAP server for one test session, on free loopback ports."""

    def __init__(self, ca: LocalCA, introspection_url: str | None = None) -> None:
        #: With an OAuth2 introspection URL, XOAUTH2 and OAUTHBEARER logins too (checked
        #: there: dovecot's oauth2 passdb).
        self.introspection_url = introspection_url
        binary = dovecot_binary()
        if binary is None:
            raise RuntimeError("dovecot is not installed (apt-get install dovecot-imapd)")
        self.binary = binary
        self.ca = ca
        # Short paths: dovecot's sockets live under base_dir (UNIX socket paths are short).
        self.root = Path(tempfile.mkdtemp(prefix="dv", dir="/tmp"))
        os.chmod(self.root, 0o755)
        self.imap_port, self.imaps_port = free_port(), free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.used = 0

    def config_text(self) -> str:
        root = self.root
        if os.geteuid() == 0:
            users = "default_internal_user = dovecot\ndefault_login_user = dovenull\n"
            mail_user = "uid=nobody gid=nogroup"
            shutil.chown(root / "home", "nobody", "nogroup")
        else:  # everything as the current user (no chroot, no other users)
            me = getpass.getuser()
            users = (f"default_internal_user = {me}\ndefault_login_user = {me}\n"
                     "service imap-login {\n  chroot =\n}\nservice anvil {\n  chroot =\n}\n"
                     f"first_valid_uid = {os.getuid()}\n")
            mail_user = f"uid={os.getuid()} gid={os.getgid()}"
        return f"""\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
{users}ssl = yes
ssl_cert = <{self.ca.cert_file}
ssl_key = <{self.ca.key_file}
disable_plaintext_auth = no
{self._oauth_text()}passdb {{
  driver = passwd-file
  args = scheme=PLAIN {root}/passwd
}}
userdb {{
  driver = static
  args = {mail_user} home={root}/home/%u
}}
mail_location = maildir:~/Maildir
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.imap_port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {self.imaps_port}
    ssl = yes
  }}
}}
"""

    def _oauth_text(self) -> str:
        if self.introspection_url is None:
            return "auth_mechanisms = plain login\n"
        (self.root / "oauth2.conf").write_text(
            "introspection_mode = post\n"
            f"introspection_url = {self.introspection_url}\n"
            "force_introspection = yes\n"
            "username_attribute = username\n"
            "active_attribute = active\nactive_value = true\n")
        return (f"auth_mechanisms = plain login xoauth2 oauthbearer\n"
                f"passdb {{\n  driver = oauth2\n  mechanisms = xoauth2 oauthbearer\n"
                f"  args = {self.root}/oauth2.conf\n}}\n")

    def start(self) -> None:
        for name in ("run", "state", "home"):
            (self.root / name).mkdir(exist_ok=True)
        # One mailbox per test: users made up front (dovecot's view of the passwd file
        # changes only when its modification time does, to the second).
        users = [MAIL_USER, *(f"box{n}" for n in range(1, MAILBOXES + 1))]
        (self.root / "passwd").write_text("".join(f"{user}:{{PLAIN}}{MAIL_PASSWORD}::::::\n"
                                                  for user in users))
        (self.root / "dovecot.conf").write_text(self.config_text())
        self.process = subprocess.Popen(  # its own process group: stopped as one (below)
            [self.binary, "-F", "-c", str(self.root / "dovecot.conf")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        try:
            wait_for_port(self.imap_port)
            wait_for_port(self.imaps_port)
        except RuntimeError as error:
            self.stop()
            raise RuntimeError(f"dovecot did not start: {self.log()}") from error

    def log(self) -> str:
        path = self.root / "dovecot.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def stop(self) -> None:
        """Ask dovecot to stop; a throwaway server that takes its time (dovecot's orderly
        shutdown waits seconds for its helpers) is killed with its whole process group."""
        if self.process is not None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(0.5)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(5)
            self.process = None
        shutil.rmtree(self.root, ignore_errors=True)

    # ---- what a test does with the mailbox --------------------------------------------------

    def new_mailbox(self) -> str:
        """An unused mailbox (its user name)."""
        self.used += 1
        if self.used > MAILBOXES:
            raise RuntimeError("more mailboxes than made up front")
        return f"box{self.used}"

    def client(self, user: str = MAIL_USER) -> imaplib.IMAP4:
        client = imaplib.IMAP4("127.0.0.1", self.imap_port)
        client.starttls(self.ca.client_context())
        client.login(user, MAIL_PASSWORD)
        return client

    def append(self, *raws: bytes, user: str = MAIL_USER, folder: str = "INBOX") -> None:
        """Deliver mail the way a test can: IMAP APPEND into the mailbox."""
        client = self.client(user)
        try:
            for raw in raws:
                status, detail = client.append(folder, None, None, raw)
                assert status == "OK", detail
        finally:
            client.logout()

    def count(self, folder: str, user: str = MAIL_USER) -> int:
        client = self.client(user)
        try:
            status, data = client.select(f'"{folder}"', readonly=True)
            return int(data[0] or 0) if status == "OK" else 0
        finally:
            client.logout()


@dataclass
class Received:
    mail_from: str
    to: list[str]
    raw: bytes

    @cached_property
    def message(self) -> EmailMessage:
        parsed = message_from_bytes(self.raw, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        return parsed

    @cached_property
    def text(self) -> str:
        body = self.message.get_body(preferencelist=("plain",))
        return str(body.get_content()) if body is not None else ""

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])

    def header(self, name: str) -> str:
        return str(self.message.get(name, ""))

    @property
    def pngs(self) -> list[bytes]:
        return [bytes(part.get_content()) for part in self.message.iter_attachments()
                if part.get_content_type() == "image/png"]


class SmtpSink:
    """An SMTP server that wants STARTTLS and a login, and keeps what it is sent.

    ``logins`` counts its sessions (each logs in once). With ``session_limit`` it ends a
    session after that many mails, as real servers do: ``ends`` = "421" answers the next
    MAIL FROM with 421 and closes the connection; "drop" closes the connection at once
    after the last mail's 250. With ``max_logins`` it refuses the logins after that many."""

    def __init__(self, ca: LocalCA) -> None:
        self.port = free_port()
        self.received: list[Received] = []
        self.logins = 0
        self.session_limit: int | None = None
        self.ends: str = "421"
        #: Sessions it opens at most (then it refuses the login) until set back to None.
        self.max_logins: int | None = None
        self.changed = threading.Condition()
        self.controller = Controller(
            self, hostname="127.0.0.1", port=self.port, tls_context=ca.server_context(),
            require_starttls=True, authenticator=self._authenticate, auth_required=True)

    def _authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str,
                      data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and data.login == SMTP_USER.encode() \
            and data.password == SMTP_PASSWORD.encode()
        if ok and self.max_logins is not None and self.logins >= self.max_logins:
            ok = False  # a server that takes no more sessions for now
        if ok:
            self.logins += 1
        return AuthResult(success=ok, handled=False)  # a refusal is answered: 535

    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str,
                          mail_options: list[str]) -> str:
        if self.session_limit is not None and \
                getattr(session, "mails", 0) >= self.session_limit:
            asyncio.get_running_loop().call_soon(server.transport.close)
            return "421 4.7.0 too many mails in one session, closing"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.changed:
            self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos),
                                          bytes(envelope.original_content
                                                or envelope.content)))
            self.changed.notify_all()
        session.mails = getattr(session, "mails", 0) + 1
        if self.session_limit is not None and self.ends == "drop" \
                and session.mails >= self.session_limit:
            asyncio.get_running_loop().call_soon(server.transport.close)  # after the 250
        return "250 OK"

    def start(self) -> None:
        self.controller.start()
        self.running = True

    def stop(self) -> None:
        if getattr(self, "running", False):
            self.controller.stop()
            self.running = False

    def to(self, address: str) -> list[Received]:
        return [m for m in self.received if address in m.to]

    def wait_for(self, count: int, timeout: float = GENEROUS) -> list[Received]:
        """Until at least ``count`` mails have arrived in all."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while len(self.received) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{len(self.received)} mails arrived, not {count}")
                self.changed.wait(left)
            return list(self.received)


class OAuthProvider:
    """An OAuth2 provider on loopback: ``/token`` trades its refresh token for a new access
    token (RFC 6749 §6), ``/introspect`` tells dovecot whose a token is (RFC 7662)."""

    def __init__(self, refresh_token: str, user: str) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import parse_qs

        self.refresh_token, self.user = refresh_token, user
        self.issued: list[str] = []
        self.asked: list[str] = []
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in
                        parse_qs(self.rfile.read(length).decode()).items()}
                provider.asked.append(self.path)
                status, answer = provider.answer(self.path, form)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def answer(self, path: str, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if path == "/token":
            if form.get("grant_type") != "refresh_token" or \
                    form.get("refresh_token") != self.refresh_token:
                return 400, {"error": "invalid_grant"}
            token = f"access-{len(self.issued) + 1}-{os.urandom(6).hex()}"
            self.issued.append(token)
            return 200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600}
        if path.startswith("/introspect"):
            active = form.get("token") in self.issued
            return 200, ({"active": True, "username": self.user} if active
                         else {"active": False})
        return 404, {"error": "not_found"}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
