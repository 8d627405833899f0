"""The web page per seat as outputs for the leak scans (issue 25): each audience's link —
a side's seat link, the observers' public link for the public — is served by the real
application (:func:`bot.web.app.make_app`) on a loopback port, and everything it reads is
an output: the page's HTML, its JSON (state, legal orders, replay, verification, record) and
the first message of its event stream. Registered with :func:`output_producer` when this
module is imported (by :mod:`bot.redteam`), so the leak scan and the secret differential
cover it with no other change.

A link's token and its CSRF token are random per world: they are replaced by placeholders
(``[token]``, ``[csrf]``) so the differential compares what the page says, not its keys.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import Coroutine, Iterable
from typing import Any, TypeVar

from adjudicator.kernel.events import GM, PUBLIC
from bot.redteam.outputs import Moment, Output, output_producer
from bot.service import GameService

T = TypeVar("T")
NAME = "web page"
#: What one link's page reads, path by path (after ``/s/TOKEN``).
PATHS = ("", "/api/state", "/api/legal", "/api/replay", "/api/verify", "/api/record",
         "/api/geometry", "/api/entries")  # the last two: the page's click layer
#: Seconds the scan waits for a page's answer (a busy machine; it comes in milliseconds).
WAIT_S = 120.0


def links(m: Moment) -> dict[str, str]:
    """A token per reader (issued once per game): each side's seat link, the observers'
    link (issued by the GM) for the public."""
    tokens: dict[str, str] = m.notes.setdefault("web_links", {})
    for audience in m.readers:
        if audience in tokens:
            continue
        if audience == PUBLIC:
            tokens[audience] = m.service.observer_link(m.game_id, m.actors[GM]).token
        else:
            tokens[audience] = m.service.issue_link(m.game_id, m.actors[audience],
                                                    side=audience).token
    return tokens


async def _read(service: GameService, tokens: dict[str, str]) -> list[tuple[str, str]]:
    from aiohttp.test_utils import TestClient, TestServer

    from bot.web.app import make_app
    from bot.web.settings import WebSettings

    unlimited = (1e6, 1e6)
    app = make_app(service, WebSettings(per_link=unlimited, per_address=unlimited,
                                        submits=unlimited, keepalive=WAIT_S))
    found: list[tuple[str, str]] = []
    async with TestClient(TestServer(app)) as client:
        for audience, token in tokens.items():
            base = f"/s/{token}"
            csrf = ""
            for path in PATHS:
                response = await client.get(base + path)
                text = await response.text()
                if path == "/api/state" and response.status == 200:
                    csrf = str(json.loads(text).get("csrf", ""))
                found.append((audience, text))
            stream = await client.get(base + "/events")
            first = b""
            while not first.endswith(b"\n\n"):
                line = await asyncio.wait_for(stream.content.readline(), WAIT_S)
                if not line:
                    break
                first += line
            stream.close()
            found.append((audience, first.decode()))
            found = [(a, _masked(t, token, csrf)) if a == audience else (a, t)
                     for a, t in found]
    return found


def _masked(text: str, token: str, csrf: str) -> str:
    text = text.replace(token, "[token]")
    return text.replace(csrf, "[csrf]") if csrf else text


def in_thread(work: Coroutine[Any, Any, T], wait: float) -> T:
    """Run ``work`` in a thread's own event loop (the caller may be inside one)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result(wait)


def _run(service: GameService, tokens: dict[str, str]) -> list[tuple[str, str]]:
    """:func:`_read` in a thread of its own."""
    return in_thread(_read(service, tokens), WAIT_S * 4)


@output_producer(NAME, every=3)
def web_page(m: Moment) -> Iterable[Output]:
    """Each reader's page, JSON and stream (see the module notes)."""
    tokens = links(m)
    wanted = {a: tokens[a] for a in m.readers}
    for audience, text in _run(m.service, wanted):
        yield Output(NAME, audience, text)


def read_all(service: GameService, tokens: dict[str, str]) -> dict[str, Any]:
    """Every answer of each link, by audience (for tests)."""
    out: dict[str, list[str]] = {}
    for audience, text in _run(service, tokens):
        out.setdefault(audience, []).append(text)
    return out
