"""Turning Point: Stalingrad pictures: structure, not golden images."""

from __future__ import annotations

import io
import itertools
import math
from typing import Any

import pytest
from PIL import Image, ImageChops

from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.last_action import (
    AttackRecord,
    LastAction,
    MoveRecord,
    RetreatRecord,
)
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
    assert 800 <= image.width <= 1700 and image.height > image.width


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
        groups = tps.stack_groups(units, faces, slots)
        assert sorted(u.id for g in groups for u in g) == sorted(u.id for u in units)
        assert len(groups) <= max(slots, 1)
        # both sides stay visible: a side of their own, or one stack of both (1 slot)
        assert {u.side for g in groups for u in g} == {"german", "russian"}
    # Fresh before Spent, German before Russian, so stacks read in order
    order = [(g[0].side, g[0].fresh) for g in tps.stack_groups(units, faces, 20)]
    assert order == sorted(order, key=lambda k: (k[0] != "german", not k[1]))
    # like faces are grouped first, whatever their designations
    groups = tps.stack_groups(units, faces, 4)
    assert all(len({faces[u.id].look for u in g}) == 1 for g in groups)


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
    assert isinstance(view, StalingradView) and view.last_action is not None
    attack = view.last_action.attacks[-1]  # the View alone says what to draw
    result = next(e for e in step.events if e.kind == "attack-result")
    assert attack.area == str(result.data["area"])
    assert attack.text is not None and str(result.data["total"]) in attack.text
    plain = tps.draw(view.model_copy(update={"last_action": None}))
    marked = tps.draw(view)
    box = tps.build_static(load_pack()).spaces[attack.area].bbox
    diff = Image.frombytes("L", plain.size, bytes(
        int(a != b) for a, b in zip(plain.tobytes(), marked.tobytes(), strict=True)))
    assert diff.crop(box).getbbox() is not None


def with_last(view: StalingradView, **record: Any) -> StalingradView:
    last = LastAction(side="german", date=view.date, day=view.day, box=view.box, **record)
    return view.model_copy(update={"last_action": last})


def test_the_view_last_action_is_drawn(historical: StalingradView) -> None:
    view = with_last(historical, origin="7", moves=[MoveRecord(units=["x"], path=["7", "8",
                                                                                    "10"])],
                     attacks=[AttackRecord(area="10", group="fresh", side="german",
                                           odds="9:8", total="15:12", cp=3, result="cp",
                                           text="15:12 — 3 CP")],
                     retreats=[RetreatRecord(units=["r"], path=["10", "9", "11"])])
    drawn = tps.draw(view)
    assert drawn.tobytes() != tps.draw(historical).tobytes()
    st = tps.build_static(load_pack())
    for area in ("7", "10", "11"):  # the origin, the attacked Area, the retreat's end
        plain = tps.draw(historical).crop(st.spaces[area].bbox)
        assert ImageChops.difference(plain, drawn.crop(st.spaces[area].bbox)).getbbox()


def _highlighted(image: Image.Image, st: tps.Static, a: tuple[float, float],
                 b: tuple[float, float]) -> float:
    """The share of points along a -> b drawn in the arrow's colours."""
    colours = {st.palette["highlight"], st.palette["ink"]}
    points = [(a[0] + (b[0] - a[0]) * t / 20, a[1] + (b[1] - a[1]) * t / 20)
              for t in range(3, 18)]
    return sum(image.getpixel((round(x), round(y))) in colours
               for x, y in points) / len(points)


def test_arrows_run_through_zones_in_the_full_picture(historical: StalingradView) -> None:
    pack = load_pack()
    st = tps.build_static(pack)
    view = with_last(historical, moves=[MoveRecord(units=["x"], path=["5", "C", "D", "7"])])
    points = tps.path_points(st, ["5", "C", "D", "7"])
    # C by its entrance tab for Area 5, D by its tab for Area 7
    assert points == [st.spaces["5"].centre, st.zone_tabs["C"]["5"], st.zone_tabs["D"]["7"],
                      st.spaces["7"].centre]
    image = tps.draw(view, pack)
    for a, b in itertools.pairwise(points):
        assert _highlighted(image, st, a, b) > 0.8, (a, b)
    # the Zones' boxes in the panel are framed too
    for letter in ("C", "D"):
        x0, y0, _, _ = st.zone_cells[letter]
        assert image.getpixel((x0 - 1, y0 + 20)) == st.palette["highlight"]
    x0, y0, _, _ = st.zone_cells["E"]
    assert image.getpixel((x0 - 1, y0 + 20)) != st.palette["highlight"]


def test_the_crop_shows_the_zones_of_the_last_action(historical: StalingradView) -> None:
    pack = load_pack()
    st = tps.build_static(pack, tps.CROP_SCALE)
    path = ["5", "C", "D", "7"]
    view = with_last(historical, moves=[MoveRecord(units=["x"], path=path)])
    assert tps.crop_zones(historical, pack) == {}  # no Zone in the action, no box
    zones = tps.crop_zones(view, pack)
    assert set(zones) == {"C", "D"}
    w, h = tps.CROP_SIZE
    boxes = list(zones.values())
    for x0, y0, x1, y1 in boxes:
        assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
    a, b = boxes
    assert a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1]  # apart
    image = tps.draw(view, pack, crop=True)
    assert image.size == tps.CROP_SIZE
    # each box is framed in the highlight colour
    for x0, y0, x1, _ in boxes:
        ring = [image.getpixel((x, y0 + 1)) for x in range(x0 + 2, x1 - 2)]
        assert sum(p == st.palette["highlight"] for p in ring) > 0.9 * len(ring)
    # and the arrow runs 5 -> C's box -> D's box -> 7
    ox, oy = tps.crop_origin(view, pack)
    full_zones = {k: (x0 + ox, y0 + oy, x1 + ox, y1 + oy) for k, (x0, y0, x1, y1) in
                  zones.items()}
    points = [(x - ox, y - oy) for x, y in tps.path_points(st, path, full_zones)]
    assert len(points) >= 4
    inside = [p for p in points if 0 <= p[0] < w and 0 <= p[1] < h]


    def on(rect: tuple[int, int, int, int], p: tuple[float, float]) -> bool:
        return rect[0] - 1 <= p[0] <= rect[2] + 1 and rect[1] - 1 <= p[1] <= rect[3] + 1

    # the segments between the boxes and the Areas (not the one inside a box, under it)
    segments = [(p, q) for p, q in itertools.pairwise(points) if p in inside and q in inside
                and not any(on(r, p) and on(r, q) for r in zones.values())]
    assert segments
    covered = [_highlighted(image, st, p, q) for p, q in segments
               if math.dist(p, q) > 30]
    assert covered and min(covered) > 0.6, covered


@pytest.mark.parametrize("every_viewer", [False, pytest.param(True, marks=pytest.mark.soak)])
def test_every_view_of_a_random_legal_game_renders(game: StalingradGame,
                                                   every_viewer: bool) -> None:
    """Every position of two random games renders, in turn for each viewer (for every
    viewer in the soak stage), and so does its crop."""
    viewers = ("public", "german", "russian", "gm")
    steps = random_game(game, "basic", 40, 4) + random_game(game, "historical", 40, 9)
    assert len(steps) > 60
    for number, step in enumerate(steps):
        for viewer in viewers if every_viewer else viewers[number % 4:number % 4 + 1]:
            view = game.view(step.state, viewer)
            assert isinstance(view, StalingradView)
            assert tps.render(view).startswith(PNG)
        assert tps.draw(view, crop=True).size == tps.CROP_SIZE


def test_the_legend_says_an_areas_fill_is_its_control_7_3() -> None:
    """7.3: an Area's fill (the side's tint the board is painted with) is its Control, not
    a unit's Fresh/Spent state; the legend names both apart."""
    from render.stalingrad.static import SWATCHES

    meaning = dict(SWATCHES)
    assert meaning["german_tint"] == "Area: German Control"
    assert meaning["russian_tint"] == "Area: Russian Control"
    counters = [label for colour, label in SWATCHES if not colour.endswith("_tint")]
    assert counters and all(("Fresh" in x or "Spent" in x) and "Control" not in x
                            for x in counters)
