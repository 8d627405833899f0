"""``Authentication-Results`` (RFC 8601): whether the receiving provider found a mail's
sender forged, so that Umpire sends no reply to the real holder of a forged address
(backscatter).

Only the results of a trusted ``authserv-id`` count (``trusted_authserv_ids`` in
``mail.toml``: the provider that receives Umpire's mail, e.g. ``mx.google.com``), and of
those only the topmost header — the one that provider added; a header further down may
have been written by the sender. A mail fails when DMARC fails, or, without a DMARC
result, when SPF fails and no DKIM signature passed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_RESULT = re.compile(r"\b(spf|dkim|dmarc)\s*=\s*([a-z]+)", re.IGNORECASE)
_COMMENT = re.compile(r"\([^()]*\)")


def failure(headers: Iterable[str], trusted: Iterable[str]) -> str | None:
    """Why the mail failed its sender's authentication (None: it did not, or no trusted
    header says anything)."""
    ids = {t.strip().lower() for t in trusted if t.strip()}
    if not ids:
        return None
    for header in headers:
        text = _COMMENT.sub(" ", " ".join(header.split()))
        authserv = text.split(";", 1)[0].strip().split()
        if not authserv or authserv[0].lower() not in ids:
            continue
        results: dict[str, set[str]] = {}
        for method, result in _RESULT.findall(text):
            results.setdefault(method.lower(), set()).add(result.lower())
        if "fail" in results.get("dmarc", set()):
            return f"DMARC failed (according to {authserv[0]})"
        if "dmarc" not in results and "fail" in results.get("spf", set()) \
                and "pass" not in results.get("dkim", set()):
            return f"SPF failed and no DKIM signature passed (according to {authserv[0]})"
        return None  # the topmost trusted header decides
    return None
