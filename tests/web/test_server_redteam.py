"""The red team covers the web page (issue 25): each audience's page, JSON and event stream
(:mod:`bot.redteam.web`) are scanned for secrets and compared in the secret differential —
clean on Umpire as it is, and a page that shows the GM's view to a seat is found by both."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import bot.redteam  # noqa: F401 (registers every producer, the web page's included)
from bot.redteam.differential import COMPARED, differential
from bot.redteam.leaks import Table, Tally, play_and_scan, scan
from bot.redteam.outputs import PRODUCERS
from bot.web import seat

FIGURE = "leak scan: web page"


def _failures(tally: Tally) -> int:
    return sum(tally.failed.values())


def _leaky_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant a leak: every page's state JSON holds the GM's view."""
    original = seat.SeatReads.state

    def leaky(self: seat.SeatReads, holder: Any, csrf: str, base: str) -> dict[str, Any]:
        data = original(self, holder, csrf, base)
        state = self.service.load_state(holder.game_id)
        data["view"] = self.service.rules(holder.game_id).view(state, "gm").model_dump(
            mode="json")
        return data

    monkeypatch.setattr(seat.SeatReads, "state", leaky)


def _scanned_after(folder: Path, actions: int, seed: int) -> Tally:
    """A Pakfront game of the red team's table, played ``actions`` actions into the hidden
    set-up and beyond, then every producer scanned once."""
    tally = Tally()
    table = Table(folder, "tanks", "pakfront", random.Random(seed), 0, tally)
    for _ in range(actions):
        table.step(last=False)
    table.moment.step = 0  # a multiple of every producer's period: all of them run
    scan(table.moment, tally)
    table.service.store.close()
    return tally


def test_the_web_page_is_a_scanned_and_compared_output() -> None:
    assert "web page" in PRODUCERS and "web page" in COMPARED


def test_25_2_the_leak_scan_of_every_page_finds_nothing(tmp_path: Path) -> None:
    tally = _scanned_after(tmp_path, 30, 5)
    assert tally.tried[FIGURE] > 0
    assert _failures(tally) == 0, tally.examples


def test_25_2_a_page_showing_the_gm_s_view_is_found_by_the_scan(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _leaky_state(monkeypatch)
    tally = _scanned_after(tmp_path, 30, 5)
    assert tally.failed[FIGURE] > 0
    assert sum(n for figure, n in tally.failed.items() if figure != FIGURE) == 0


@pytest.mark.soak
@pytest.mark.parametrize(("scenario", "seed"), [("pakfront", 5), ("gauntlet", 3)])
def test_25_2_the_leak_scan_of_every_page_during_play_finds_nothing(
        tmp_path: Path, scenario: str, seed: int) -> None:
    tally = Tally()
    play_and_scan(tmp_path, "tanks", scenario, 30, seed, tally)
    assert tally.tried[FIGURE] > 0
    assert _failures(tally) == 0, tally.examples


@pytest.mark.soak
def test_the_differential_over_the_pages_is_clean_and_finds_a_planted_leak(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clean = Tally()
    (tmp_path / "clean").mkdir()
    differential("tanks", "pakfront", 4, 1, clean, tmp_path / "clean")
    assert clean.tried["differential: tanks secret set-up"] > 0
    assert _failures(clean) == 0, clean.examples
    _leaky_state(monkeypatch)
    found = Tally()
    (tmp_path / "leaky").mkdir()
    differential("tanks", "pakfront", 4, 1, found, tmp_path / "leaky")
    assert _failures(found) > 0
