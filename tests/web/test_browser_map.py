"""The page's map on a phone (390 px wide), the GM's and the observers' pages, in a real
browser (issue 25): zoom by the buttons and the wheel, pan by dragging — a drag is not a
click; a GM's page giving an order for the side it picks in its tools, and a refused order
showing the service's message and storing nothing; mines written by clicking hexes (19.1);
the observers' page following the game live with no orders to give."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bot.service import Actor
from tests.web.browser import GM, PHONE, Seat, new_game, served

GERMAN_PLAYER = Actor(email="german@example.org")
SOVIET_PLAYER = Actor(email="soviet@example.org")

TRANSFORM = re.compile(r"translate\(([-\d.e]+)px, ([-\d.e]+)px\) scale\(([-\d.e]+)\)")


def placement(seat: Seat) -> tuple[float, float, float]:
    style = str(seat.page.get_attribute("#map .stage", "style"))
    found = TRANSFORM.search(style)
    assert found, style
    x, y, scale = (float(v) for v in found.groups())
    return x, y, scale


def test_zoom_and_pan_on_a_phone_a_drag_is_not_a_click(tmp_path: Path, browser: Any) -> None:
    with served(tmp_path) as server:
        links = new_game(server.service, "tanks", "pakfront",
                         {"german": GERMAN_PLAYER, "soviet": SOVIET_PLAYER}, "map-web")
        seat = Seat(browser, server.url + links["german"], PHONE)
        try:
            page = seat.page
            box = page.locator("#map").bounding_box()
            assert box is not None and box["width"] <= PHONE["width"]
            _, _, fitted = placement(seat)
            geo_width = float(str(page.get_attribute("#map svg.shapes", "width")))
            assert abs(fitted * geo_width - box["width"]) < 2  # as wide as the phone
            page.click("#zoom-in")
            _, _, zoomed = placement(seat)
            assert zoomed > fitted * 1.2
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.wheel(0, -200)
            _, _, wheeled = placement(seat)
            assert wheeled > zoomed
            x0, y0, _ = placement(seat)
            cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            page.mouse.move(cx, cy)
            page.mouse.down()
            page.mouse.move(cx - 60, cy - 40, steps=6)
            page.mouse.up()
            x1, y1, _ = placement(seat)
            assert abs((x1 - x0) + 60) < 2 and abs((y1 - y0) + 40) < 2
            assert page.locator("polygon.space.selected").count() == 0  # not a click
            page.click("#zoom-fit")
            _, _, whole = placement(seat)
            geo_height = float(str(page.get_attribute("#map svg.shapes", "height")))
            assert whole * geo_width <= box["width"] + 1  # the whole map inside the box
            assert whole * geo_height <= box["height"] + 1
        finally:
            seat.close()


def test_the_gms_page_gives_an_order_for_the_side_it_picks(tmp_path: Path,
                                                          browser: Any) -> None:
    with served(tmp_path) as server:
        service = server.service
        new_game(service, "tanks", "pakfront",
                 {"german": GERMAN_PLAYER, "soviet": SOVIET_PLAYER}, "gm-web")
        link = service.issue_link("gm-web", GM).path
        seat = Seat(browser, server.url + link)
        try:
            page = seat.page
            page.wait_for_selector("#gm-tools:not([hidden])")
            assert page.input_value("#gm-side") == "german"  # the side to act
            unit = str(page.locator("#order-units button.unit").first.get_attribute("data-unit"))
            seat.click_unit(unit)
            seat.click_space("0520")
            text = page.input_value("#order-text")
            assert text.endswith("0520"), text
            stored, reply = seat.submit()
            assert stored, reply
            assert service.info("gm-web").head_seq == 1
            # the box is editable: a refused order shows the service's message, stores nothing
            page.fill("#order-text", "hide pak75-1 9999")
            stored, reply = seat.submit()
            assert not stored and "9999" in reply, reply
            assert "refused" in str(page.get_attribute("#order-reply", "class"))
            assert service.info("gm-web").head_seq == 1
        finally:
            seat.close()


def test_mines_are_written_by_clicking_hexes_19_1(tmp_path: Path, browser: Any) -> None:
    """Orders naming no unit but a hex, many of one verb (a mine per hex of the zone, 19.1,
    25.3), are given like a unit's: the verb's button, then a highlighted hex."""
    with served(tmp_path) as server:
        links = new_game(server.service, "tanks", "kursk-salient",
                         {"german": GERMAN_PLAYER, "soviet": SOVIET_PLAYER}, "mines-web")
        seat = Seat(browser, server.url + links["soviet"])
        try:
            page = seat.page
            assert page.locator('#order-plain button[data-order^="mine "]').count() == 0
            seat.click_unit("@mine")
            page.wait_for_selector('polygon.space.legal[data-key="2020"]')
            assert page.locator('polygon.space.legal[data-key="0505"]').count() == 0
            seat.click_space("2020")
            assert page.input_value("#order-text") == "mine 2020"
            stored, reply = seat.submit()
            assert stored, reply
            seat.wait_seq(seat.stored_seq())
            placed = page.inner_text("#placed")
            assert "2020" in placed and "5 of 6" in placed, placed
        finally:
            seat.close()


def test_the_observers_page_follows_the_game_and_gives_no_orders(tmp_path: Path,
                                                                  browser: Any) -> None:
    """The observers' link shows the public view live; it has no orders to give."""
    with served(tmp_path) as server:
        service = server.service
        new_game(service, "stalingrad", "historical",
                 {"german": GERMAN_PLAYER, "russian": SOVIET_PLAYER}, "observed")
        seat = Seat(browser, server.url + service.observer_link("observed", GM).path)
        try:
            page = seat.page
            assert page.inner_text("#seat").strip().lower() in ("observer", "public")
            assert page.locator("#order-units button, #order-plain button").count() == 0
            assert page.locator("polygon.space.area").count() >= 74
            stored = service.submit("observed", GERMAN_PLAYER, "rubble")
            assert stored.ok, stored.error
            seat.wait_seq(stored.seqs[-1])  # told by the stream, no reload
            assert seat.reloads == 0 and seat.errors == []
        finally:
            seat.close()
