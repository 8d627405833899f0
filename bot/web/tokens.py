"""Tokens in request paths: the CSRF token bound to a link, and the redaction of a path
before it reaches a log line.

A link's token is its page's only secret (the store keeps its hash, :mod:`bot.service.links`).
The CSRF token of a link is a keyed digest of the link's token (:func:`csrf_for`): a page
reads it from its own HTML or state JSON and sends it back in the ``X-CSRF-Token`` header of
every POST; :func:`csrf_ok` compares with :func:`hmac.compare_digest`. Another site can
neither read the page nor compute the digest without the token, so it cannot forge a POST.
"""

from __future__ import annotations

import hashlib
import hmac
import re

#: The header a POST carries its CSRF token in.
CSRF_HEADER = "X-CSRF-Token"
#: What a token is replaced with in a logged path.
REDACTED = "[token]"
_DOMAIN = b"umpire web csrf v1\x00"
_TOKEN_IN_PATH = re.compile(r"(/s/)[^/?#\s]+")


def csrf_for(token: str, key: bytes) -> str:
    """The CSRF token of the link ``token`` under the server's ``key``."""
    return hmac.new(key, _DOMAIN + token.encode("utf-8"), hashlib.sha256).hexdigest()


def csrf_ok(token: str, key: bytes, given: str | None) -> bool:
    """Whether ``given`` is the CSRF token of the link ``token`` (constant-time compare)."""
    if not given or len(given) > 128:
        return False
    return hmac.compare_digest(csrf_for(token, key).encode(), given.encode("utf-8", "replace"))


def redact_path(path: str) -> str:
    """``path`` with any link token replaced (``/s/abc/api/state`` -> ``/s/[token]/api/state``);
    the query string is dropped (it is never needed in a log line)."""
    return _TOKEN_IN_PATH.sub(lambda m: m.group(1) + REDACTED, path.split("?", 1)[0])
