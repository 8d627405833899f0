"""OAuth2 logins (issue 24): Gmail and Microsoft 365 want XOAUTH2 or OAUTHBEARER with an
access token from the provider's token endpoint, for a refresh token kept in the
environment. IMAP is tested against dovecot with its oauth2 passdb (the token checked at
an introspection URL); SMTP against the loopback sink, which checks the SASL string and
the token. A refused token is dropped and a fresh one fetched at the next login."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.smtp import AuthResult

from bot.mail.config import ImapConfig, OAuthConfig, SmtpConfig
from bot.mail.oauth import TokenError, TokenSource
from bot.mail.transport import Inbox, Outbox
from tests.mail.conftest import running_dovecot, started
from tests.mail.servers import Dovecot, LocalCA, OAuthProvider, SmtpSink
from tests.mail.support import UMPIRE, raw_mail

REFRESH = "refresh-token-for-the-tests"
USER = "box1"


@pytest.fixture
def provider() -> Iterator[OAuthProvider]:
    with started(OAuthProvider(REFRESH, USER)) as server:
        yield server


@pytest.fixture
def oauth_dovecot(ca: LocalCA, provider: OAuthProvider) -> Iterator[Dovecot]:
    with running_dovecot(ca, provider.url + "/introspect") as server:
        yield server


def tokens(provider: OAuthProvider, refresh: str = REFRESH) -> TokenSource:
    return TokenSource(OAuthConfig(token_url=provider.url + "/token", client_id="umpire"),
                       {"UMPIRE_OAUTH_REFRESH_TOKEN": refresh})


@pytest.mark.parametrize("mechanism", ["oauthbearer", "xoauth2"])
def test_imap_logs_in_to_dovecot_with_an_access_token(
        mechanism: str, oauth_dovecot: Dovecot, provider: OAuthProvider, ca: LocalCA) -> None:
    oauth_dovecot.append(raw_mail("ann@player.test", "help"), user=USER)
    config = ImapConfig(host="localhost", port=oauth_dovecot.imaps_port, user=USER,
                        ca_file=ca.ca_file, auth=mechanism,
                        oauth=OAuthConfig(token_url=provider.url + "/token",
                                          client_id="umpire"))
    source = tokens(provider)
    inbox = Inbox(config, None, source)
    try:
        assert inbox.waiting() == ["1"]  # logged in with the token, the mailbox read
        assert provider.asked == ["/token", "/introspect"]
        assert f"method={mechanism.upper()}" in oauth_dovecot.log()
        inbox.close()
        provider.issued.clear()  # the provider revokes the token
        with pytest.raises(Exception):  # noqa: B017 - imaplib's or imap_tools' refusal
            inbox.connect()
        assert inbox.waiting() == ["1"]  # the next try fetches a new token
        assert provider.asked.count("/token") == 2
    finally:
        inbox.close()


def test_a_refused_refresh_token_says_what_the_provider_said(provider: OAuthProvider) -> None:
    with pytest.raises(TokenError, match="refused the refresh token: HTTP 400 invalid_grant"
                       ) as raised:
        tokens(provider, "a-stale-refresh-token").token()
    assert "a-stale-refresh-token" not in str(raised.value)


class OAuthSink(SmtpSink):
    """The SMTP sink taking XOAUTH2 and OAUTHBEARER logins with the provider's tokens."""

    def __init__(self, ca: LocalCA, provider: OAuthProvider) -> None:
        super().__init__(ca)
        self.provider = provider
        self.logins: list[tuple[str, str]] = []

    async def auth_XOAUTH2(self, server: Any, args: list[str]) -> AuthResult:
        return self._check("XOAUTH2", args, "user=umpire\x01auth=Bearer ")

    async def auth_OAUTHBEARER(self, server: Any, args: list[str]) -> AuthResult:
        return self._check("OAUTHBEARER", args, "n,a=umpire,\x01host=localhost\x01port=")

    def _check(self, mechanism: str, args: list[str], start: str) -> AuthResult:
        text = base64.b64decode(args[1]).decode() if len(args) > 1 else ""
        token = text.split("auth=Bearer ", 1)[-1].removesuffix("\x01\x01")
        ok = text.startswith(start) and token in self.provider.issued
        self.logins.append((mechanism, "ok" if ok else "refused"))
        return AuthResult(success=ok, handled=False)


@pytest.mark.parametrize("mechanism", ["oauthbearer", "xoauth2"])
def test_smtp_sends_with_an_access_token(mechanism: str, ca: LocalCA,
                                         provider: OAuthProvider, tmp_path: Path) -> None:
    sink = OAuthSink(ca, provider)
    sink.start()
    try:
        config = SmtpConfig(host="localhost", port=sink.port, user="umpire",
                            ca_file=ca.ca_file, auth=mechanism,
                            oauth=OAuthConfig(token_url=provider.url + "/token",
                                              client_id="umpire"))
        outbox = Outbox(config, None, UMPIRE, tokens(provider))
        message = EmailMessage()
        message["Subject"], message["From"] = "hello", UMPIRE
        message.set_content("hello")
        outbox.send(message, "ann@player.test")
        assert [m.to for m in sink.wait_for(1)] == [["ann@player.test"]]
        assert sink.logins == [(mechanism.upper(), "ok")]
    finally:
        sink.stop()


def test_the_config_pairs_an_oauth_login_with_its_token_endpoint(tmp_path: Path) -> None:
    from bot.mail.config import ConfigError, load_config

    path = tmp_path / "mail.toml"
    base = f'address = "{UMPIRE}"\n[listen]\nport = 2525\n[smtp]\nhost = "smtp.example.org"\n'
    path.write_text(base + 'auth = "xoauth2"\n')
    with pytest.raises(ConfigError, match="goes with an"):
        load_config(path)
    path.write_text(base + 'auth = "xoauth2"\n[smtp.oauth]\n'
                    'token_url = "http://tokens.example.org/token"\nclient_id = "c"\n')
    with pytest.raises(ConfigError, match="https://"):
        load_config(path)
    path.write_text(base + 'auth = "oauthbearer"\n[smtp.oauth]\n'
                    'token_url = "https://oauth2.example.org/token"\nclient_id = "c"\n'
                    'refresh_token_env = "UMPIRE_SMTP_REFRESH_TOKEN"\n')
    loaded = load_config(path).smtp
    assert loaded.auth == "oauthbearer" and loaded.oauth is not None
    assert loaded.oauth.refresh_token_env == "UMPIRE_SMTP_REFRESH_TOKEN"


def test_a_missing_refresh_token_stops_the_start_with_its_variable_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from bot.cli import app

    monkeypatch.delenv("UMPIRE_OAUTH_REFRESH_TOKEN", raising=False)
    path = tmp_path / "mail.toml"
    path.write_text(f'address = "{UMPIRE}"\ndatabase = "{tmp_path / "u.db"}"\n'
                    '[listen]\nport = 2525\n[smtp]\nhost = "smtp.example.org"\n'
                    'auth = "xoauth2"\n[smtp.oauth]\n'
                    'token_url = "https://oauth2.example.org/token"\nclient_id = "c"\n')
    result = CliRunner().invoke(app, ["mail", "--config", str(path)])
    assert result.exit_code == 2, result.output
    assert "UMPIRE_OAUTH_REFRESH_TOKEN" in result.output and "Traceback" not in result.output
