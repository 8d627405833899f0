"""Turning Point: Stalingrad: the posted crop holds every Area the last action touched, and
the attack's label covers no counter (issue 29: pictures worth posting)."""

from __future__ import annotations

import pytest

from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.views import EAST, StalingradView
from render import stalingrad as tps
from tests.render.games import random_game, stalingrad_views


def _assert_holds(view: StalingradView) -> int:
    """Every touched Area's polygon lies inside the crop's window; how many there were."""
    pack = load_pack()
    (x0, y0, x1, y1), polygon = tps.crop_window(view, pack)
    on_board = tps.build_static(pack).spaces
    touched = [a for a in tps.touched_areas(view) if a in on_board and a != EAST]
    for area in touched:
        for x, y in polygon(area):
            assert x0 <= x <= x1 and y0 <= y <= y1, (area, (x0, y0, x1, y1), view.last_action)
    return len(touched)


@pytest.fixture(scope="module")
def steps() -> list[StalingradView]:
    return stalingrad_views(60, 29)


def test_29_the_crop_after_the_opening_rubble_rolls_shows_every_rubbled_area_5_7(
        steps: list[StalingradView]) -> None:
    """5.7: after the German's initial Rubble rolls (no impulse recorded yet) the crop
    holds every Area they rubbled — the whole city, so the crop zooms out."""
    opening = [v for v in steps if v.phase == "play" and v.last_action is None
               and any(a.rubble for a in v.areas)]
    assert opening, "the random game never reached the Rubble set-up"
    rubbled = sorted(a.key for a in opening[0].areas if a.rubble)
    assert sorted(tps.touched_areas(opening[0])) == rubbled
    assert _assert_holds(opening[0]) == len(rubbled) >= 2
    assert tps.draw(opening[0], crop=True).size == tps.CROP_SIZE
    # every white-Rubble-symbol Area rubbled: they span the city
    symbols = {str(k) for k, a in load_pack().areas.items() if a.rubble_symbol}
    everywhere = opening[0].model_copy(update={"areas": [
        a.model_copy(update={"rubble": 1}) if a.key in symbols else a
        for a in opening[0].areas]})
    assert _assert_holds(everywhere) == len(symbols) >= 6
    assert tps.draw(everywhere, crop=True).size == tps.CROP_SIZE


def test_29_the_crop_holds_every_area_of_each_last_action_8_1(
        steps: list[StalingradView]) -> None:
    """8.1: every impulse of a random game (moves, attacks and their Ranged fire 8.31,
    retreats 8.5, crossings 18.5): each touched Area lies inside the crop's window."""
    checked = sum(_assert_holds(v) for v in steps if v.last_action is not None)
    assert checked >= 20


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]
              ) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.fixture(scope="module")
def attacks() -> list[StalingradView]:
    """Views right after an attack's dice (8.2) in random games."""
    game = StalingradGame()
    found: list[StalingradView] = []
    for seed in (31,):  # unmoved, 96 of its 135 labels covered a counter on the full map
        for step in random_game(game, "historical", 150, seed):
            view = game.view(step.state, "public")
            assert isinstance(view, StalingradView)
            if view.last_action is not None and any(a.text for a in view.last_action.attacks):
                found.append(view)
    return found


@pytest.mark.parametrize("crop", [False, True])
def test_29_the_attack_label_covers_no_counter_8_2(attacks: list[StalingradView],
                                                   crop: bool) -> None:
    """8.2: the attack's result label (e.g. "15:12 — 3 CP") is drawn where it covers no
    counter, on the full picture and on the crop."""
    pack = load_pack()
    labelled = 0
    for view in attacks:
        labels, counters = tps.label_boxes(view, pack, crop=crop)
        for label in labels:
            assert not any(_overlaps(label, c) for c in counters), (label, view.last_action)
        labelled += len(labels)
    assert labelled >= 5
