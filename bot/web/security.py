"""What every response and request of the web server passes through: security headers (a
strict Content-Security-Policy: no inline script, nothing from another origin), request
bounds, rate limits per link and per address, and an access log that never holds a token.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

from bot.logs import FIELDS
from bot.web.tokens import redact_path

log = logging.getLogger("umpire.web")
access = logging.getLogger("umpire.web.access")

#: The page's Content-Security-Policy: its own scripts, styles and images only; no inline
#: script or style, no plugin, no framing, forms and requests to its own origin only.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")

HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass
class Bucket:
    """A token bucket: ``rate`` requests a second, ``burst`` at once."""

    tokens: float
    stamp: float


@dataclass
class RateLimiter:
    """Requests per key (a link's hash, an address) as token buckets; keys idle long enough
    to be full again are forgotten, so the table stays small."""

    rate: float
    burst: float
    clock: Callable[[], float] = time.monotonic
    buckets: dict[str, Bucket] = field(default_factory=dict)

    def allow(self, key: str, cost: float = 1.0) -> bool:
        now = self.clock()
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.stamp) * self.rate)
        bucket.stamp = now
        if len(self.buckets) > 10_000:
            self._forget(now)
        if bucket.tokens < cost:
            return False
        bucket.tokens -= cost
        return True

    def retry_after(self, key: str, cost: float = 1.0) -> float:
        bucket = self.buckets.get(key)
        missing = cost - (bucket.tokens if bucket else self.burst)
        return max(0.0, missing / self.rate) if self.rate > 0 else 60.0

    def _forget(self, now: float) -> None:
        full = self.burst / self.rate if self.rate > 0 else float("inf")
        for key in [k for k, b in self.buckets.items() if now - b.stamp > full]:
            del self.buckets[key]


def too_many(limiter: RateLimiter, key: str, what: str) -> web.Response:
    """The refusal of a request over its rate limit (HTTP 429, JSON, Retry-After)."""
    wait = max(1, round(limiter.retry_after(key) + 0.5))
    return web.json_response(
        {"error": f"too many requests from {what}: wait {wait} s and try again",
         "rule": "rate"}, status=429, headers={"Retry-After": str(wait)})


@web.middleware
async def headers_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The security headers on every response, errors included; nothing is cached by a
    shared cache (every page and answer is for one link)."""
    try:
        response = await handler(request)
    except web.HTTPException as error:
        response = error
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    response.headers.setdefault("Cache-Control", "private, no-store")
    if isinstance(response, web.HTTPException) and response.status >= 400:
        raise response
    return response


class AccessLogger(AbstractAccessLogger):
    """One line per request through :mod:`bot.logs` (``text`` or ``json`` as configured):
    method, the path with any link token redacted (:func:`redact_path`), status, size and
    milliseconds. The query string, the headers and the body are never logged."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse,
            time: float) -> None:
        self.logger.info("request", extra={FIELDS: {
            "method": request.method, "path": redact_path(request.path),
            "status": response.status, "bytes": response.body_length,
            "ms": round(time * 1000.0)}})

    @property
    def enabled(self) -> bool:
        return self.logger.isEnabledFor(logging.INFO)
