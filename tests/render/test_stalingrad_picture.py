"""Turning Point: Stalingrad pictures: structure, not golden images."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from adjudicator.kernel.events import Event
from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.views import StalingradView, UnitView
from render import stalingrad as tps
from render import static_cache
from render.common import point_in_polygon, uses_any
from tests.render.games import random_game

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def game() -> StalingradGame:
    return StalingradGame()


@pytest.fixture(scope="module")
def historical(game: StalingradGame) -> StalingradView:
    view = game.view(game.setup("historical"), "public")
    assert isinstance(view, StalingradView)
    return view


def test_full_picture_size_and_png(historical: StalingradView) -> None:
    pack = load_pack()
    data = tps.render(historical, pack)
    assert data.startswith(PNG)
    assert len(data) < 400 * 1024
    image = Image.open(io.BytesIO(data))
    st = tps.build_static(pack)
    assert image.size == st.size
    assert image.mode == "P"
    # a tall board plus a panel: wide enough to read, not a thumbnail
    assert 800 <= image.width <= 1400 and image.height > image.width


def test_crop_has_the_preview_size(historical: StalingradView) -> None:
    image = tps.draw(historical, crop=True)
    assert image.size == tps.CROP_SIZE


def test_every_counter_lies_inside_its_area(historical: StalingradView) -> None:
    pack = load_pack()
    image = tps.draw(historical, pack)
    pal = tps.build_static(pack).palette
    boxes = tps.fits_inside(historical, pack)
    on_map = {u.loc for u in historical.units} & {str(n) for n in pack.areas}
    assert on_map and on_map <= set(boxes)
    for key in on_map:
        poly = tps.polygon_px(pack, key)
        for x0, y0, x1, y1 in boxes[key]:
            for x, y in ((x0, y0), (x1 - 1, y0), (x0, y1 - 1), (x1 - 1, y1 - 1)):
                assert point_in_polygon(x + 0.5, y + 0.5, poly), (key, (x0, y0))
            # and a counter was really drawn there: side colours fill most of the box
            colours = image.crop((x0, y0, x1, y1)).histogram()
            side = sum(colours[pal[name]] for name in
                       ("german", "russian", "german_spent", "russian_spent"))
            assert side > 0.3 * (x1 - x0) * (y1 - y0), key


def test_counters_are_grouped_with_a_count_when_an_area_is_full() -> None:
    units = [UnitView(id=f"g{i}", side="german", kind="infantry", loc="66", fresh=i % 2 == 0,
                      attack=2, defense=3, mf=4) for i in range(9)]
    units += [UnitView(id=f"r{i}", side="russian", kind="armor", loc="66", fresh=True,
                       attack=1, defense=2, mf=4) for i in range(4)]
    faces = {u.id: tps.unit_face(u, {}) for u in units}
    for slots in (1, 2, 3, 5, 20):
        groups = tps._groups(units, faces, slots)
        assert sum(n for _, n in groups) == len(units) or slots < 2
        assert len(groups) <= max(slots, 1)
        if slots >= 2:
            assert {u.side for u, _ in groups} == {"german", "russian"}
    # Fresh before Spent, German before Russian, so stacks read in order
    order = [(u.side, u.fresh) for u, _ in tps._groups(units, faces, 20)]
    assert order == sorted(order, key=lambda k: (k[0] != "german", not k[1]))


def test_same_view_same_bytes_even_after_the_cache_is_rebuilt(
        historical: StalingradView) -> None:
    first = tps.render(historical)
    assert tps.render(historical) == first
    static_cache.clear()
    assert tps.render(historical) == first


def test_no_picture_of_this_game_uses_a_secret_colour(historical: StalingradView) -> None:
    pack = load_pack()
    image = tps.draw(historical, pack)
    assert not uses_any(image, tps.build_static(pack).palette.secret_indices)


def test_the_last_attack_is_marked_with_its_result(game: StalingradGame) -> None:
    steps = random_game(game, "historical", 60, 1)
    attacks = [s for s in steps if any(e.kind == "attack-result" for e in s.events)]
    assert attacks, "the seeded game should contain an attack"
    step = attacks[-1]
    view = game.view(step.state, "public")
    assert isinstance(view, StalingradView)
    hl = tps.last_action(view, step.events)
    result = next(e for e in step.events if e.kind == "attack-result")
    assert hl.attack_area == str(result.data["area"])
    assert hl.attack_text is not None and str(result.data["total"]) in hl.attack_text
    plain = tps.draw(view)
    marked = tps.draw(view, events=step.events)
    box = tps.build_static(load_pack()).spaces[hl.attack_area].bbox
    diff = Image.frombytes("L", plain.size, bytes(
        int(a != b) for a, b in zip(plain.tobytes(), marked.tobytes(), strict=True)))
    assert diff.crop(box).getbbox() is not None


def test_events_the_viewer_may_not_see_are_ignored(historical: StalingradView) -> None:
    secret = Event(kind="attack-result", text="x", audience="german",
                   data={"area": "56", "total": "9:1", "cp": 8, "result": "cp"})
    assert tps.last_action(historical, [secret]).attack_area != "56"


def test_a_view_field_last_action_is_picked_up(historical: StalingradView) -> None:
    class WithLast(StalingradView):
        last_action: dict[str, object] | None = None

    view = WithLast(**historical.model_dump(), last_action={
        "origin": "7", "moves": [{"unit": "x", "path": ["7", "8", "10"]}],
        "attack": {"area": "10", "total": "15:12", "cp": 3, "result": "cp"},
        "retreats": [{"from": "10", "to": "9"}]})
    hl = tps.last_action(view)
    assert hl.moves == [("x", ["7", "8", "10"])]
    assert hl.attack_area == "10" and hl.attack_text == "15:12 — 3 CP"
    assert hl.retreats == [("10", "9")]
    assert tps.draw(view).tobytes() != tps.draw(historical).tobytes()


def test_every_view_of_a_random_legal_game_renders(game: StalingradGame) -> None:
    steps = random_game(game, "basic", 40, 4) + random_game(game, "historical", 40, 9)
    assert len(steps) > 60
    for step in steps:
        for viewer in ("public", "german", "russian", "gm"):
            view = game.view(step.state, viewer)
            assert isinstance(view, StalingradView)
            assert tps.render(view, events=step.events).startswith(PNG)
        assert tps.draw(view, events=step.events, crop=True).size == tps.CROP_SIZE
