"""What the browser tests share (issue 25): Debian's Chromium driven by Playwright (skipped
when it is missing, unless ``UMPIRE_BROWSER=required``), the web server over a service on a
test database in a thread of its own, games with a secret link per seat, and a seat's page
driven by clicks only — with every response body and event-stream message it receives
recorded, for the secrecy checks."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.service import Actor, GameService
from bot.store import Store

CHROMIUM = Path("/usr/bin/chromium")
#: How long a test waits for what it expects on the page (generous: a busy 2-core machine).
WAIT_MS = 60_000
GM = Actor(email="gm@example.org")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def chromium() -> str:
    """The browser's path; the test skips without it (fails under ``UMPIRE_BROWSER=required``,
    as in ``.ci/run``)."""
    if CHROMIUM.exists() and os.access(CHROMIUM, os.X_OK):
        return str(CHROMIUM)
    if os.environ.get("UMPIRE_BROWSER") == "required":
        pytest.fail(f"{CHROMIUM} is missing and UMPIRE_BROWSER=required")
    pytest.skip(f"no browser: {CHROMIUM} is missing (apt-get install chromium)")


class Served:
    """The web server (``umpire web``'s application) over ``service``, on a free loopback
    port, in a thread running its own event loop."""

    def __init__(self, service: GameService) -> None:
        from bot.web.app import WebServer
        from bot.web.settings import WebSettings

        self.service = service
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        settings = WebSettings(host="127.0.0.1", port=0, per_link=(500.0, 2000.0),
                               per_address=(2000.0, 8000.0), submits=(100.0, 400.0))
        self.server = WebServer(service, settings)
        port = asyncio.run_coroutine_threadsafe(self.server.start(), self.loop).result(60)
        self.url = f"http://127.0.0.1:{port}"

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(60)
        self.loop.close()


@contextmanager
def served(tmp_path: Path) -> Iterator[Served]:
    service = GameService(Store(tmp_path / "web.db"), seed_source=lambda n: bytes(range(n)))
    server = Served(service)
    try:
        yield server
    finally:
        server.close()


def new_game(service: GameService, game: str, scenario: str, sides: dict[str, Actor],
             game_id: str) -> dict[str, str]:
    """A started game with a player per side; each side's secret link (its path)."""
    info = service.create_game(GM, game, scenario, game_id=game_id)
    for side, player in sides.items():
        service.seat(info.id, GM, side, player)
    service.start(info.id, GM)
    return {side: service.issue_link(info.id, player, side=side).path
            for side, player in sides.items()}


@dataclass
class Recorded:
    """Everything one browser context received: response bodies (text, or the PNG bytes)
    and the event stream's messages."""

    texts: list[tuple[str, str]] = field(default_factory=list)
    pictures: list[tuple[str, bytes]] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    pending: list[Any] = field(default_factory=list)

    def collect(self) -> None:
        """Read the bodies of the responses finished so far (not inside the event handler:
        the sync API may not wait there)."""
        while self.pending:
            response = self.pending.pop(0)
            ctype = response.headers.get("content-type", "")
            if "event-stream" in ctype:
                continue
            try:
                body = response.body()
            except Exception:  # a body the browser no longer holds
                continue
            if ctype.startswith("image/"):
                self.pictures.append((response.url, body))
            else:
                self.texts.append((response.url, body.decode("utf-8", "replace")))


class Seat:
    """One seat's page in its own browser context, driven by clicks."""

    def __init__(self, browser: Any, url: str, viewport: dict[str, int] | None = None) -> None:
        self.context = browser.new_context(viewport=viewport or DESKTOP)
        self.page = self.context.new_page()
        self.page.set_default_timeout(WAIT_MS)
        self.recorded = Recorded()
        self.page.on("requestfinished",
                     lambda request: self.recorded.pending.append(request.response()))
        cdp = self.context.new_cdp_session(self.page)
        cdp.send("Network.enable")
        cdp.on("Network.eventSourceMessageReceived",
               lambda event: self.recorded.events.append(str(event.get("data", ""))))
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.goto(url)
        self.wait_live()
        #: the page's loads after the first (the page follows the game without one)
        self.reloads = 0
        self.page.on("load", lambda _: setattr(self, "reloads", self.reloads + 1))

    # ---- waiting ------------------------------------------------------------------------

    def wait_live(self) -> None:
        self.page.wait_for_selector("#live.on")
        self.page.wait_for_selector("body[data-seq]", state="attached")

    def seq(self) -> int:
        return int(self.page.evaluate("Number(document.body.dataset.seq)"))

    def wait_seq(self, seq: int) -> None:
        """Wait until the page's log shows action ``seq`` (pushed by the event stream: the
        page is never reloaded). Waits are selectors, not scripts: the page's strict CSP
        forbids the evaluated predicates of ``wait_for_function``."""
        self.page.wait_for_selector(f'body[data-seq="{seq}"]', state="attached")
        self.page.wait_for_selector(f'#log li[data-seq="{seq}"]', state="attached")

    # ---- clicks -------------------------------------------------------------------------

    def click_space(self, key: str) -> None:
        """Click the map's shape ``key`` at a point of it nothing else covers (the whole
        map fitted in view first)."""
        self.page.click("#zoom-fit")
        point = self.page.evaluate(
            """(key) => {
                const poly = document.querySelector(`polygon.space[data-key="${key}"]`);
                const svg = poly.ownerSVGElement;
                const m = poly.getScreenCTM();
                const pts = [...poly.points].map((p) => [p.x, p.y]);
                const cx = pts.reduce((a, p) => a + p[0], 0) / pts.length;
                const cy = pts.reduce((a, p) => a + p[1], 0) / pts.length;
                const tries = [[cx, cy]];
                for (const [x, y] of pts) {
                    for (const f of [0.3, 0.5, 0.7]) {
                        tries.push([cx + (x - cx) * f, cy + (y - cy) * f]);
                    }
                }
                for (const [x, y] of tries) {
                    const p = svg.createSVGPoint();
                    p.x = x; p.y = y;
                    const s = p.matrixTransform(m);
                    const hit = document.elementFromPoint(s.x, s.y);
                    if (hit === poly || (hit && hit.classList.contains("counter")
                                         && hit.dataset.key === key)) return [s.x, s.y];
                }
                return null;
            }""", key)
        assert point is not None, f"no free point of {key} on the map"
        self.page.mouse.click(point[0], point[1])

    def click_counter(self, unit: str) -> bool:
        """Click ``unit``'s counter on the map (the whole map fitted in view first); False if
        the map draws none of its own (off the map, or in a group drawn as one counter)."""
        self.page.click("#zoom-fit")
        point = self.page.evaluate(
            """(unit) => {
                const rect = document.querySelector(`rect.counter[data-unit="${unit}"]`);
                if (!rect) return null;
                const p = rect.ownerSVGElement.createSVGPoint();
                p.x = rect.x.baseVal.value + rect.width.baseVal.value / 2;
                p.y = rect.y.baseVal.value + rect.height.baseVal.value / 2;
                const s = p.matrixTransform(rect.getScreenCTM());
                return document.elementFromPoint(s.x, s.y) === rect ? [s.x, s.y] : null;
            }""", unit)
        if point is None:
            return False
        self.page.mouse.click(point[0], point[1])
        return True

    def click_unit(self, unit: str) -> None:
        self.page.click(f'#order-units button[data-unit="{unit}"]')

    def stored_seq(self) -> int:
        """The last action the page's last click stored."""
        return int(self.page.evaluate(
            'Number(document.querySelector("#order-reply").dataset.seq || 0)'))

    def replied(self, button: str) -> tuple[bool, str]:
        """Click ``button`` (Submit, a decision) and wait for the service's reply: (stored,
        the reply the page shows)."""
        before = int(self.page.evaluate(
            'Number(document.querySelector("#order-reply").dataset.n || 0)'))
        self.page.click(button)
        self.page.wait_for_selector(f'#order-reply[data-n="{before + 1}"]', state="attached")
        reply = self.page.locator("#order-reply")
        return "ok" in str(reply.get_attribute("class")), str(reply.inner_text())

    def submit(self) -> tuple[bool, str]:
        return self.replied("#order-submit")

    def close(self) -> None:
        self.recorded.collect()
        self.context.close()


@contextmanager
def two_seats(browser: Any, tmp_path: Path, game: str, scenario: str, game_id: str,
              first: tuple[str, Actor, dict[str, int]],
              second: tuple[str, Actor, dict[str, int]]) -> Iterator[tuple[Served, Seat, Seat]]:
    """A started game served, and each of its two seats' pages (side, player, viewport)
    open in its own browser context; closed at the end."""
    with served(tmp_path) as server:
        links = new_game(server.service, game, scenario,
                         {first[0]: first[1], second[0]: second[1]}, game_id)
        one = Seat(browser, server.url + links[first[0]], first[2])
        try:
            two = Seat(browser, server.url + links[second[0]], second[2])
            try:
                yield server, one, two
            finally:
                two.close()
        finally:
            one.close()


def act(seat: Seat, other: Seat, button: str) -> tuple[bool, str]:
    """Click ``button`` on ``seat``'s page; once stored, wait for ``other``'s page to show the
    new action live (its event stream: no reload)."""
    stored, reply = seat.replied(button)
    if stored:
        seq = seat.stored_seq()
        seat.wait_seq(seq)
        other.wait_seq(seq)
    return stored, reply


def shoot(seat: Seat, name: str) -> None:
    """Screenshots for docs/web.md, when ``UMPIRE_WEB_SCREENSHOTS`` names a folder."""
    folder = os.environ.get("UMPIRE_WEB_SCREENSHOTS")
    if folder:
        seat.page.evaluate("window.scrollTo(0, 0)")
        seat.page.screenshot(path=str(Path(folder) / name))
