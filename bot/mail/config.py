"""``mail.toml``: the mailbox Umpire reads, the server it sends through, its own address.

Passwords never go in the file: each section names the environment variable that holds
its password (``password_env``, by default ``UMPIRE_IMAP_PASSWORD`` and
``UMPIRE_SMTP_PASSWORD``). A password read from the environment is a :class:`Secret`,
which never shows itself in a repr, a log line or a traceback.

```toml
address = "umpire@example.org"        # players write here; replies come from here
name = "Umpire"                       # display name on outgoing mail
database = "umpire.db"                # optional (else --db, $UMPIRE_DB, the default file,
                                      # which the start-up line names); a URL with a
                                      # password only in a file of mode 0600

[imap]
host = "imap.example.org"
port = 993                            # 993: implicit TLS; 143 with tls = "starttls"
tls = "implicit"                      # implicit | starttls | none (loopback tests only)
user = "umpire@example.org"
password_env = "UMPIRE_IMAP_PASSWORD"
folder = "INBOX"
handled_folder = "Umpire-handled"     # handled mail is moved here ("" : flag \\Seen only)
idle = true                           # IMAP IDLE when the server offers it, else polling
poll_seconds = 30

[smtp]
host = "smtp.example.org"
port = 587                            # 587 with STARTTLS, 465 with implicit TLS
tls = "starttls"
user = "umpire@example.org"
password_env = "UMPIRE_SMTP_PASSWORD"

[listen]                              # optional: receive mail over SMTP as well
host = "127.0.0.1"
port = 8025

[limits]
max_bytes = 1000000                   # larger mails are refused unread
per_hour = 60                         # mails per sender and hour, then silence
idle_per_hour = 5                     # of them without a valid command, then silence

[quota]                               # optional: Umpire's own sending budget
per_hour = 60
per_day = 450
digest_minutes = 30                   # at most one notice per game and player this often
```

Top-level keys besides: ``retry_max_seconds`` and ``report_after_minutes`` (failures,
bot.mail.gateway), ``trusted_authserv_ids`` (bot.mail.authresults). A server section may
log in with OAuth2 instead of a password: ``auth = "xoauth2"`` or ``"oauthbearer"`` and an
``[imap.oauth]`` / ``[smtp.oauth]`` section (bot.mail.oauth; docs/email.md).
"""

from __future__ import annotations

import os
import ssl
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot.config_secrets import ExposedSecret, require_owner_only, url_has_password

TlsMode = Literal["implicit", "starttls", "none"]


class ConfigError(Exception):
    """The config file is missing, unreadable or wrong; the message says where."""


class Secret:
    """A password that never shows itself in reprs, logs or tracebacks."""

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret(***)"

    __str__ = __repr__


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class OAuthConfig(_Section):
    """OAuth2 (``[imap.oauth]``, ``[smtp.oauth]``): the provider's token endpoint and the
    app's client id; the refresh token (and a client secret, if the app has one) come from
    the environment, like passwords."""

    token_url: str
    client_id: str
    refresh_token_env: str = "UMPIRE_OAUTH_REFRESH_TOKEN"
    client_secret_env: str | None = None
    scope: str | None = None
    timeout: float = Field(default=30.0, gt=0)

    @field_validator("token_url")
    @classmethod
    def _url(cls, value: str) -> str:
        if not value.startswith(("https://", "http://127.", "http://localhost")):
            raise ValueError("the token endpoint is an https:// URL (http:// on loopback "
                             "only)")
        return value


class ServerConfig(_Section):
    host: str
    port: int = Field(ge=1, le=65535)
    tls: TlsMode
    user: str | None = None
    password_env: str
    #: How the server is logged in to: a password, or an OAuth2 access token (then
    #: ``oauth`` says where it comes from).
    auth: Literal["password", "xoauth2", "oauthbearer"] = "password"
    oauth: OAuthConfig | None = None
    #: A CA bundle to trust instead of the system's (a private server, the tests).
    ca_file: Path | None = None
    timeout: float = Field(default=60.0, gt=0)

    def ssl_context(self) -> ssl.SSLContext | None:
        if self.tls == "none":
            return None
        context = ssl.create_default_context(
            cafile=str(self.ca_file) if self.ca_file is not None else None)
        return context


class ImapConfig(ServerConfig):
    port: int = Field(default=993, ge=1, le=65535)
    tls: TlsMode = "implicit"
    password_env: str = "UMPIRE_IMAP_PASSWORD"
    folder: str = "INBOX"
    handled_folder: str = "Umpire-handled"
    idle: bool = True
    poll_seconds: float = Field(default=30.0, gt=0, le=29 * 60)


class SmtpConfig(ServerConfig):
    port: int = Field(default=587, ge=1, le=65535)
    tls: TlsMode = "starttls"
    password_env: str = "UMPIRE_SMTP_PASSWORD"


class ListenConfig(_Section):
    host: str = "127.0.0.1"
    port: int = Field(default=8025, ge=1, le=65535)


class Limits(_Section):
    max_bytes: int = Field(default=1_000_000, ge=10_000)
    per_hour: int = Field(default=60, ge=1)
    #: Order lines and commands read from one mail; the rest is refused.
    max_commands: int = Field(default=200, ge=1)
    #: Mails per sender and hour without a valid command (an auto-responder that marks
    #: itself in no way, a loop) that are answered; then silence until the hour is over.
    idle_per_hour: int = Field(default=5, ge=1)


class QuotaConfig(_Section):
    """The sending budget (bot.mail.quota): notices to players wait past it."""

    per_hour: int | None = Field(default=None, ge=1)
    per_day: int | None = Field(default=None, ge=1)
    #: Digest mode: at most one notice per game and recipient every this many minutes.
    digest_minutes: float | None = Field(default=None, gt=0)


class MailConfig(_Section):
    address: str
    name: str = "Umpire"
    #: The database: a file, sqlite:///PATH or postgresql://… (else --db, $UMPIRE_DB). A
    #: URL with a password only in a file of mode 0600 (:mod:`bot.config_secrets`).
    database: str | None = None
    imap: ImapConfig | None = None
    smtp: SmtpConfig
    listen: ListenConfig | None = None
    limits: Limits = Limits()
    quota: QuotaConfig = QuotaConfig()
    #: Seconds between deadline checks and looks for actions taken elsewhere.
    tick_seconds: float = Field(default=30.0, gt=0)
    #: After a failure to receive or send, the gateway waits 1 s, then 2, 4, … up to this.
    retry_max_seconds: float = Field(default=300.0, ge=1)
    #: A failure that lasts this long is reported to the GMs of the games it holds up,
    #: by Discord where the game has it (else the log and the status say so).
    report_after_minutes: float = Field(default=15.0, gt=0)
    #: The authserv-ids whose Authentication-Results are believed (the provider that
    #: receives Umpire's mail): a mail that failed SPF/DKIM/DMARC there gets no reply.
    trusted_authserv_ids: list[str] | None = None
    #: The web pages' public base URL (docs/web.md; ``--web-url`` overrides it): a joining
    #: player's reply and ``link`` carry their seat's secret link. None: no links given.
    web_url: str | None = None

    @field_validator("address")
    @classmethod
    def _address(cls, value: str) -> str:
        value = value.strip().lower()
        if "@" not in value or " " in value:
            raise ValueError(f"{value!r} is not an email address")
        return value

    @property
    def domain(self) -> str:
        return self.address.rsplit("@", 1)[1]


def password(server: ServerConfig, environ: Mapping[str, str] | None = None) -> Secret | None:
    """The server's password from its environment variable (None when unset: no login)."""
    env = os.environ if environ is None else environ
    value = env.get(server.password_env)
    return Secret(value) if value else None


def load_config(path: Path) -> MailConfig:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise ConfigError(f"no config file at {path}") from error
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from error
    if any("password" in key and not key.endswith("_env") for key in _keys(data)):
        raise ConfigError(f"{path}: passwords do not go in the file; name the environment "
                          "variable that holds each one (password_env)")
    try:
        config = MailConfig.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                             for e in error.errors())
        raise ConfigError(f"{path}: {problems}") from error
    for server in (config.imap, config.smtp):
        if server is not None and (server.auth != "password") != (server.oauth is not None):
            raise ConfigError(f"{path}: auth = \"xoauth2\" or \"oauthbearer\" goes with an "
                              "[imap.oauth] or [smtp.oauth] section, and only with one")
    if config.imap is None and config.listen is None:
        raise ConfigError(f"{path}: give an [imap] mailbox to read, or a [listen] address, "
                          "or both")
    _check_database(path, config.database)
    return config


def _check_database(path: Path, database: str | None) -> None:
    """``database`` names a store this Umpire takes, and a password in it sits in a file
    only its owner may read (:mod:`bot.config_secrets`, the bot's rule too)."""
    if database is None:
        return
    from bot.store import StoreError, parse_store_target

    try:
        parse_store_target(database)
    except StoreError as error:
        raise ConfigError(f"{path}: database: {error}") from None
    if url_has_password(database):
        try:
            require_owner_only(path, "the database password", "UMPIRE_DB")
        except ExposedSecret as error:
            raise ConfigError(str(error)) from None


def _keys(data: Mapping[str, object]) -> list[str]:
    keys: list[str] = []
    for key, value in data.items():
        keys.append(key)
        if isinstance(value, Mapping):
            keys.extend(_keys(value))
    return keys
