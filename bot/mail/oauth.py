"""OAuth2 for the mail servers (Gmail, Microsoft 365 / Outlook.com): an access token from
the provider's token endpoint for a refresh token kept in the environment, and the SASL
strings that carry it — XOAUTH2 (Google's and Microsoft's) and OAUTHBEARER (RFC 7628).

The token flow is a single POST (RFC 6749 §6: ``grant_type=refresh_token``), made with the
standard library; the access token is kept until a minute before it expires. Neither the
refresh token nor an access token ever reaches a log line or a repr (:class:`Secret`).
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping

from bot.mail.config import ConfigError, OAuthConfig, Secret

#: An access token is fetched again this long before it expires.
EARLY = 60.0


class TokenError(Exception):
    """The token endpoint refused the refresh token, or could not be reached."""


class TokenSource:
    def __init__(self, config: OAuthConfig, environ: Mapping[str, str],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        refresh = environ.get(config.refresh_token_env)
        if not refresh:
            raise ConfigError(f"OAuth2: the environment variable {config.refresh_token_env} "
                              "(the refresh token) is not set")
        self.refresh = Secret(refresh)
        secret = environ.get(config.client_secret_env) if config.client_secret_env else None
        self.client_secret = Secret(secret) if secret else None
        self.clock = clock
        self._token: Secret | None = None
        self._expires = 0.0
        self._lock = threading.Lock()

    def token(self) -> str:
        """A valid access token (fetched when there is none or it is about to expire)."""
        with self._lock:
            if self._token is None or self.clock() >= self._expires - EARLY:
                self._fetch()
            assert self._token is not None
            return self._token.reveal()

    def forget(self) -> None:
        """Drop the access token (the server refused it): the next login fetches one."""
        with self._lock:
            self._token = None

    def _fetch(self) -> None:
        config = self.config
        form = {"grant_type": "refresh_token", "refresh_token": self.refresh.reveal(),
                "client_id": config.client_id}
        if self.client_secret is not None:
            form["client_secret"] = self.client_secret.reveal()
        if config.scope:
            form["scope"] = config.scope
        request = urllib.request.Request(
            config.token_url, data=urllib.parse.urlencode(form).encode(), method="POST",
            headers={"Content-Type": "application/x-www-form-urlencoded",
                     "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=config.timeout) as response:
                data = json.loads(response.read(1_000_000))
        except urllib.error.HTTPError as error:
            raise TokenError(f"the token endpoint refused the refresh token: HTTP "
                             f"{error.code} {_oauth_error(error)}") from None
        except (OSError, ValueError) as error:
            raise TokenError(f"the token endpoint could not be read: {error}") from None
        token = data.get("access_token") if isinstance(data, dict) else None
        if not isinstance(token, str) or not token:
            raise TokenError("the token endpoint's answer has no access_token")
        lifetime = data.get("expires_in", 3600)
        self._token = Secret(token)
        self._expires = self.clock() + (float(lifetime) if isinstance(lifetime, int | float)
                                        else 3600.0)


def _oauth_error(error: urllib.error.HTTPError) -> str:
    """The ``error`` code of an OAuth2 error answer (never its other fields)."""
    try:
        data = json.loads(error.read(10_000))
    except (OSError, ValueError):
        return ""
    code = data.get("error") if isinstance(data, dict) else None
    return str(code)[:80] if isinstance(code, str) else ""


def xoauth2(user: str, token: str) -> str:
    """The XOAUTH2 initial response (before base64)."""
    return f"user={user}\x01auth=Bearer {token}\x01\x01"


def oauthbearer(user: str, token: str, host: str, port: int) -> str:
    """The OAUTHBEARER initial response (RFC 7628 §3.1, before base64)."""
    return f"n,a={user},\x01host={host}\x01port={port}\x01auth=Bearer {token}\x01\x01"


def sasl(mechanism: str, user: str, token: str, host: str, port: int) -> str:
    return (xoauth2(user, token) if mechanism == "xoauth2"
            else oauthbearer(user, token, host, port))
