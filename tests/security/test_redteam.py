"""The red team's scans find leaks when there are some (each shown on a leaky variant)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from adjudicator.kernel.events import GM
from adjudicator.tanks.game import TanksGame
from bot import messages
from bot.redteam import outputs
from bot.redteam.leaks import Tally, differential, play_and_scan
from bot.redteam.outputs import Moment, Output, output_producer


def failures(tally: Tally) -> int:
    return sum(tally.failed.values())


def test_a_clean_scan_of_a_face_down_set_up_finds_nothing(tmp_path: Path) -> None:
    tally = Tally()
    play_and_scan(tmp_path, "tanks", "gauntlet", 14, 3, tally)
    assert tally.tried["leak scan: log"] > 0 and tally.tried["leak scan: views"] > 0
    assert failures(tally) == 0, tally.examples


def test_a_registered_producer_is_scanned_and_a_leak_counted(tmp_path: Path) -> None:
    """A frontend plugs in its outputs (the email gateway's mails); a leaky one is caught."""

    @output_producer("leaky mail")
    def leaky(m: Moment) -> Iterable[Output]:
        gm_view = m.service.view(m.game_id, m.actors[GM], GM).model_dump_json()
        yield Output("leaky mail", "public", gm_view)

    try:
        tally = Tally()
        play_and_scan(tmp_path, "tanks", "pakfront", 30, 5, tally)
        assert tally.failed["leak scan: leaky mail"] > 0
        assert sum(n for figure, n in tally.failed.items()
                   if figure != "leak scan: leaky mail") == 0, tally.examples
    finally:
        outputs.PRODUCERS.pop("leaky mail")


def test_the_log_scan_catches_secret_orders_shown_to_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(messages, "text_visible", lambda game, row, audience: True)
    tally = Tally()
    play_and_scan(tmp_path, "tanks", "gauntlet", 12, 3, tally)
    assert tally.failed["leak scan: log"] > 0


def test_the_differential_probe_catches_a_view_that_shows_secrets(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clean = Tally()
    for seed in range(3):
        differential("tanks", "pakfront", 6, seed, clean)
    assert clean.tried["differential: tanks secret set-up"] > 0 and failures(clean) == 0

    original = TanksGame.make_view

    def leaky(self: TanksGame, state: object, viewer: str) -> object:
        view = original(self, state, "gm")  # type: ignore[arg-type]
        view.viewer = viewer
        return view

    monkeypatch.setattr(TanksGame, "make_view", leaky)
    found = Tally()
    for seed in range(3):
        differential("tanks", "pakfront", 6, seed, found)
    assert failures(found) > 0
