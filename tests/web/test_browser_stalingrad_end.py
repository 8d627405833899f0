"""Turning Point: Stalingrad played to its end from the page alone, in a real browser (issue
25: "both games can be played start to finish from the page alone"): the Kuibyshev Sawmill
Introductory Scenario (the shortest TP:S scenario in data/stalingrad/scenarios.toml: one
week, the South Quadrant) by clicks only — the initial Rubble (5.7) and the passes (7.0) as
buttons, attacks by both sides by clicking a unit and then the attacked Area on the map (8.1),
every decision owed (the Advantage offer 9.4, casualties 8.354, retreats) answered by a
button — each page seeing the other's action live (no reload), to the week's end and its
result (the Sawmill's rule 3, 19.2) shown on both pages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from bot.service import Actor
from tests.web.browser import DESKTOP, PHONE, Seat, act, two_seats
from tests.web.test_browser_stalingrad import attack_by_clicks, orders_of

GERMAN = Actor(email="german@example.org")
RUSSIAN = Actor(email="russian@example.org")
#: Attacks given by clicks per side before it only passes (each brings its decisions: the
#: Artillery, the Advantage, casualties, retreats; the whole week is ~100 orders and under 2
#: minutes of browser time on the 2-core machine).
ATTACKS = {"german": 10, "russian": 3}


def choose(seat: Seat, name: str, attacks: dict[str, list[str]]) -> str:
    """The button to click next on ``seat``'s page, chosen from what the page offers: a
    decision owed (the first answer: declining the Advantage when offered, 9.4), the initial
    Rubble (5.7), an attack by clicks (8.1, unit then Area: the order box filled, Submit),
    else ending or passing the impulse (7.0)."""
    buttons, units = orders_of(seat)
    if seat.page.locator("#order-plain p.prompt").count():
        answer = next((b for b in buttons if b.startswith("advantage decline")),
                      buttons[0] if buttons else None)
        assert answer is not None, seat.page.inner_text("#order-plain")
        return f'#order-plain button[data-order="{answer}"]'
    if "rubble" in buttons:
        return '#order-plain button[data-order="rubble"]'
    if len(attacks[name]) < ATTACKS[name] and units and (
            picked := attack_by_clicks(seat, units)):
        attacks[name].append(picked)
        return "#order-submit"
    for plain in ("end", "pass"):
        if plain in buttons:
            return f'#order-plain button[data-order="{plain}"]'
    raise AssertionError(f"{name}: no end or pass among {buttons}")


@pytest.mark.soak
def test_the_sawmill_played_to_its_result_by_clicks_only_7_0_8_1_9_4_19_2(
        tmp_path: Path, browser: Any) -> None:
    """Both pages, clicks only, from the first Rubble roll to the result of September 19:
    every order stored, seen live by the other page, the result the same on both pages and
    the game finished."""
    with two_seats(browser, tmp_path, "stalingrad", "sawmill", "sawmill-web",
                   ("german", GERMAN, DESKTOP), ("russian", RUSSIAN, PHONE)) as pages:
        server, german, russian = pages
        seats = {"german": german, "russian": russian}
        attacks: dict[str, list[str]] = {"german": [], "russian": []}
        prompts: list[str] = []
        given = 0
        while not german.page.inner_text("#result").strip():
            assert given < 400, (given, prompts[-5:])
            acting = [(name, seat) for name, seat in seats.items() if any(orders_of(seat))]
            assert len(acting) == 1, ([name for name, _ in acting],
                                      german.page.inner_text("#status"))
            name, seat = acting[0]
            other = russian if seat is german else german
            prompt = seat.page.locator("#order-plain p.prompt")
            if prompt.count():
                prompts.append(str(prompt.inner_text()))
            button = choose(seat, name, attacks)
            stored, reply = act(seat, other, button)
            assert stored, (name, button, reply)
            given += 1
        result = german.page.inner_text("#result").strip()
        assert re.search(r"(german|russian) wins", result), result
        expect(russian.page.locator("#result")).to_have_text(result)
        assert server.service.info("sawmill-web").status == "finished"
        assert server.service.info("sawmill-web").result == result
        assert all(attacks.values()), attacks  # unit, then the Area on the map (8.1)
        said = " | ".join(prompts).lower()
        assert "advantage" in said, prompts  # the offer answered by a button (9.4)
        assert "casualty point" in said, prompts  # the defender's losses decided (8.354)
        assert german.reloads == russian.reloads == 0  # live, never reloaded
        assert german.errors == [] and russian.errors == []
        # the game over, neither page offers an order any more
        assert not any(orders_of(german)) and not any(orders_of(russian))
