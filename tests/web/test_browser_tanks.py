"""Stalin's Tanks from the page alone, in a real browser (issue 25): two seats' pages, each in
its own browser context, play by clicks only — the German hidden set-up of Pakfront (20.0,
25.2) by clicking a unit and then a hex of the set-up zone, with the ``placed`` list beside it,
then the Soviet entry and the turns' ends — each page seeing the other's action arrive live
(the event stream, no reload); the Soviet page never receives a hidden unit, in its DOM, any
response body, any event-stream message or any picture; and the scenario played to its
result (soak: the short run stops after the set-up and the first orders)."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import expect

from bot.service import Actor
from render.common import FIRST_SECRET, uses_any
from tests.web.browser import DESKTOP, PHONE, Seat, act, shoot, two_seats

GERMAN = Actor(email="german@example.org")
SOVIET = Actor(email="soviet@example.org")
#: Hexes the German sets up in, one per unit (row 20: inside the zone, away from the edge).
HEXES = [f"{c:02d}{r:02d}" for r in (20, 22, 18) for c in range(3, 30, 2)]


def hidden_set_up(german: Seat, soviet: Seat) -> tuple[list[str], int]:
    """The German's set-up by clicks (20.0: hide wherever the rules let a unit hide): the
    units hidden, and the orders given."""
    hidden: list[str] = []
    orders = 0
    for where in HEXES:
        units = german.page.locator("#order-units button.unit")
        if units.count() == 0:
            break
        unit = str(units.first.get_attribute("data-unit"))
        german.click_unit(unit)
        german.page.wait_for_selector(f'polygon.space.legal[data-key="{where}"]')
        german.click_space(where)
        hide = german.page.locator(f'#order-list button.order[data-order^="hide {unit} "]')
        if hide.count():
            hide.first.click()
        text = german.page.input_value("#order-text")
        assert text.split()[0] in ("hide", "place") and where in text, text
        stored, reply = act(german, soviet, "#order-submit")
        assert stored, reply
        orders += 1
        if text.startswith("hide"):
            hidden.append(unit)
        placed = german.page.inner_text("#placed")
        assert unit in placed or text.split()[1] in placed, placed
    stored, reply = act(german, soviet, '#order-plain button[data-order="done"]')
    assert stored, reply
    return hidden, orders + 1


def plain(seat: Seat) -> list[str]:
    return [str(b.get_attribute("data-order"))
            for b in seat.page.locator("#order-plain button.decision").all()]


def play_on(german: Seat, soviet: Seat, orders: int) -> tuple[int, str]:
    """Play ``orders`` more orders by clicks (the Soviet enters all at once, then each side
    ends its phases), or to the result: (orders given, the result shown)."""
    given = 0
    while given < orders:
        result = german.page.inner_text("#result").strip()
        if result:
            return given, result
        for seat, other in ((german, soviet), (soviet, german)):
            choices = plain(seat)
            pick = next((c for c in choices if c.startswith("enter all")), None) or next(
                (c for c in choices if c == "done"), None)
            if pick is None:
                continue
            stored, reply = act(seat, other, f'#order-plain button[data-order="{pick}"]')
            assert stored, reply
            given += 1
            break
        else:
            pytest.fail(f"nobody has an order: {german.page.inner_text('#status')}")
    return given, german.page.inner_text("#result").strip()


def replay_by_slider(seat: Seat) -> None:
    """The replay: a slider over the record's positions, each re-rendered for the seat's
    view; back to now shows the live picture again."""
    page = seat.page
    live = page.get_attribute("#map img.picture", "src")
    page.click("#replay-open")
    page.wait_for_selector("#replay.on")
    slider = page.locator("#replay-slider")
    assert int(str(slider.get_attribute("max"))) >= 2
    slider.focus()
    page.keyboard.press("Home")
    page.wait_for_selector('#map img.picture[data-loaded*="/api/replay/0.png"]',
                           state="attached")
    expect(page.locator("#replay-caption")).to_contain_text("1/")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('#map img.picture[data-loaded*="/api/replay/1.png"]',
                           state="attached")
    by_action = int(str(slider.get_attribute("max")))
    page.select_option("#replay-by", "step")  # a position per phase: fewer
    page.wait_for_selector('#map img.picture[data-loaded*="by=step"]', state="attached")
    assert int(str(slider.get_attribute("max"))) < by_action
    page.click("#replay-close")
    page.wait_for_selector(f'#map img.picture[data-loaded="{live}"]', state="attached")


def assert_never_received(seat: Seat, hidden: list[str]) -> None:
    """No hidden unit in the page's DOM, a response body, an event-stream message or a
    picture's pixels (the secret colours are only ever drawn for the owner, render/)."""
    seat.recorded.collect()
    dom = seat.page.content()
    bodies = [text for _, text in seat.recorded.texts] + seat.recorded.events + [dom]
    assert seat.recorded.texts and seat.recorded.events and seat.recorded.pictures
    for unit in hidden:
        pattern = re.compile(rf"(?<![\w-]){re.escape(unit)}(?![\w-])")
        for body in bodies:
            assert not pattern.search(body), (unit, body[:300])
    for url, data in seat.recorded.pictures:
        image = Image.open(io.BytesIO(data))
        if image.mode == "P":
            assert not uses_any(image, range(FIRST_SECRET, 256)), url


def test_pakfront_by_clicks_hidden_set_up_live_and_secret_20_0_25_2(
        tmp_path: Path, browser: Any) -> None:
    """20 orders by clicks: the German hidden set-up (20.0, 25.2: unit, then hex; hide
    where allowed; the placed list grows), ``done``, the Soviet entry, the phases' ends;
    the other page sees each live; the Soviet page never receives a hidden unit."""
    with two_seats(browser, tmp_path, "tanks", "pakfront", "pakfront-web",
                   ("german", GERMAN, DESKTOP), ("soviet", SOVIET, PHONE)) as pages:
        _, german, soviet = pages
        hidden, orders = hidden_set_up(german, soviet)
        assert len(hidden) >= 3, hidden
        shoot(german, "web-tanks-desktop.png")
        given, _ = play_on(german, soviet, max(0, 20 - orders))
        assert orders + given >= 20
        shoot(soviet, "web-tanks-phone.png")
        replay_by_slider(soviet)
        assert_never_received(soviet, hidden)
        german.recorded.collect()  # the scan sees them where they belong: the owner's
        assert all(any(unit in text for _, text in german.recorded.texts) for unit in hidden)
        assert german.reloads == soviet.reloads == 0  # live, never reloaded
        assert german.errors == [] and soviet.errors == []


@pytest.mark.soak
def test_pakfront_played_to_its_result_from_the_page_alone_25_2(
        tmp_path: Path, browser: Any) -> None:
    """The whole scenario from the pages: set-up, then every phase to the last turn's end
    and the victory points' result (25.2), shown on both pages; the hidden units reach the
    Soviet page only once the game is over."""
    with two_seats(browser, tmp_path, "tanks", "pakfront", "pakfront-end",
                   ("german", GERMAN, DESKTOP), ("soviet", SOVIET, DESKTOP)) as pages:
        server, german, soviet = pages
        hidden, _ = hidden_set_up(german, soviet)
        given, result = play_on(german, soviet, 20)
        assert not result and given == 20
        assert_never_received(soviet, hidden)  # while the game runs
        _, result = play_on(german, soviet, 400)
        assert "victory" in result or "wins" in result or "draw" in result, result
        expect(soviet.page.locator("#result")).to_have_text(re.compile(r"\S"))
        assert soviet.page.inner_text("#result").strip() == result
        assert server.service.info("pakfront-end").status == "finished"
        # once it is over, the record is anyone's: the Soviet page may see them now
        soviet.recorded.collect()
        assert hidden[0] in soviet.recorded.texts[-1][1] or any(
            hidden[0] in text for _, text in soviet.recorded.texts[-6:])
