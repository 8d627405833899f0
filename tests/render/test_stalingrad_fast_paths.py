"""Turning Point: Stalingrad pictures drawn the fast way (planned once, the board with its
marks kept, counters pasted straight into the image, a zoom drawing only its window) are
pixel for pixel the pictures drawn the plain way, and a View built from shared parts is the
View a validating build makes."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image, ImageChops, ImageDraw

from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.data_models import StalingradPack
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.views import StalingradView, UnitView
from render import common
from render import stalingrad as tps
from render.common import outline_polygon
from render.stalingrad.counters import face_of, stack_sprite, stacks, units_of_pack
from render.stalingrad.highlight import draw_highlight
from render.stalingrad.panel import draw_panel
from render.stalingrad.picture import draw_crop
from tests.render.games import random_game


@pytest.fixture(scope="module")
def game() -> StalingradGame:
    return StalingradGame()


@pytest.fixture(scope="module")
def views(game: StalingradGame) -> list[StalingradView]:
    """Positions of two random games (set-up, moves, attacks, Rubble, Contested Areas),
    each View as the rules build it (shared parts) and the same View validated afresh
    (parts of its own: every cache misses on them)."""
    out: list[StalingradView] = []
    for scenario, seed in (("historical", 3), ("basic", 11)):
        steps = random_game(game, scenario, 45, seed)
        for step in steps[::4]:
            view = game.view(step.state, "public")
            assert isinstance(view, StalingradView)
            out.append(view)
            out.append(StalingradView.model_validate(view.model_dump()))
    return out


def plain_full(view: StalingradView, pack: StalingradPack) -> Image.Image:
    """The full picture drawn step by step through Pillow's public calls, nothing kept
    between pictures: a fresh copy of the board, each German Area's tint pasted through its
    mask, Rubble and Contested marks, every stack's counter, the last action, the panel."""
    st = tps.build_static(pack)
    pal = st.palette
    canvas = st.bases["russian"].copy()
    d = ImageDraw.Draw(canvas)
    for area in view.areas:
        geo = st.spaces.get(area.key)
        if geo is not None and geo.patch is not None and area.control == "german":
            canvas.paste(geo.patch, (geo.bbox[0], geo.bbox[1]), geo.mask)
    by_loc: dict[str, list[UnitView]] = {}
    for u in view.units:
        by_loc.setdefault(u.loc, []).append(u)
    pack_units = units_of_pack(pack)
    faces = {u.id: face_of(u, pack_units) for u in view.units}
    fs_tag = max(7, round(0.2 * st.scale))
    for area in view.areas:
        geo = st.spaces.get(area.key)
        if geo is None:
            continue
        tx, ty = geo.tag_at
        if area.rubble:
            tag = st.sprites.tag(f"R{area.rubble}", fs_tag, fg="white", bg="rubble")
            canvas.paste(tag, (round(tx), round(ty)))
            tx += tag.width + 2
        if len({u.side for u in by_loc.get(area.key, [])}) > 1:
            d.polygon(geo.polygon, outline=pal["contested"], width=3)
            canvas.paste(st.sprites.tag("X", fs_tag, fg="white", bg="contested"),
                         (round(tx), round(ty)))
    grouped = []
    counters = []  # the attack's label covers none of them (issue 29)
    for loc, units in by_loc.items():
        if loc not in st.spaces:
            continue
        c = st.spaces[loc].counter
        for members, (x, y) in stacks(st, loc, units, faces):
            sprite = stack_sprite(st.sprites, members, faces, c)
            canvas.paste(sprite, (round(x - c / 2), round(y - c / 2)))
            counters.append((x - c / 2, y - c / 2, x - c / 2 + sprite.width,
                             y - c / 2 + sprite.height))
            if len(members) > 1:
                grouped.append((loc, members))
    draw_highlight(canvas, d, st, view.last_action, (0, 0), avoid=counters)
    draw_panel(canvas, st, view, pack, view.last_action, grouped)
    return canvas


def same(a: Image.Image, b: Image.Image) -> bool:
    return (a.size == b.size and a.mode == b.mode == "P" and a.getpalette() == b.getpalette()
            and ImageChops.difference(a, b).getbbox() is None)


def test_the_views_show_rubble_contested_areas_stacks_and_attacks(
        views: list[StalingradView]) -> None:
    """The positions exercise every mark the fast path keeps (else the tests below prove
    little)."""
    assert any(a.rubble for v in views for a in v.areas)
    assert any(a.control == "german" for v in views for a in v.areas)
    contested = any(len({u.side for u in v.units if u.loc == a.key}) > 1
                    for v in views for a in v.areas)
    assert contested
    assert any(v.last_action and v.last_action.attacks for v in views)
    assert any(v.last_action and v.last_action.moves for v in views)


def test_the_full_map_is_the_plainly_drawn_one_pixel_for_pixel(
        views: list[StalingradView]) -> None:
    """In game order, then backwards and from fresh objects (the kept board layers and
    stacks hit and miss in turn)."""
    pack = load_pack()
    for view in [*views, *reversed(views)]:
        assert same(tps.draw(view, pack), plain_full(view, pack))


def test_the_zoom_drawing_its_window_only_is_the_zoom_drawing_everything(
        views: list[StalingradView]) -> None:
    pack = load_pack()
    for view in views:
        assert same(tps.draw(view, pack, crop=True), draw_crop(view, pack, cull=False))


def test_a_view_of_shared_parts_is_the_validated_view(game: StalingradGame) -> None:
    """Unit and Area views are made unvalidated and shared between Views: each View still
    validates to itself, and equal positions give equal Views."""
    steps = random_game(game, "historical", 30, 5)
    for step in steps:
        view = game.view(step.state, "public")
        data = view.model_dump()
        again = StalingradView.model_validate(data)
        assert again == view and again.model_dump() == data
        assert game.view(step.state.model_copy(deep=True), "public") == view


@pytest.mark.parametrize("width", [2, 3, 7])
def test_an_outline_through_a_kept_mask_is_pillows_outline(width: int) -> None:
    """:func:`outline_polygon` draws what ``ImageDraw.polygon(outline=, width=)`` draws,
    Area by Area (wholly inside, across the edge and off the picture), and leaves its kept
    mask blank for the next one."""
    st = tps.build_static(load_pack())
    for number, geo in enumerate(st.spaces.values()):
        if not geo.polygon:
            continue
        dx, dy = ((0, 0), (geo.bbox[0] + 20, 7), (-40, -900))[number % 3]
        poly = [(x - dx, y - dy) for x, y in geo.polygon]
        pillow = st.bases["russian"].copy()
        ImageDraw.Draw(pillow).polygon(poly, outline=st.palette["attack"], width=width)
        kept = st.bases["russian"].copy()
        outline_polygon(kept, ImageDraw.Draw(kept), poly, st.palette["attack"], width)
        assert same(kept, pillow), geo.key
    masks = common._scratch.masks
    assert masks and all(mask.getbbox() is None for mask in masks.values())


def test_pictures_drawn_by_several_threads_at_once_are_the_same(
        views: list[StalingradView]) -> None:
    """The kept plans, board layers and masks are shared by threads drawing pictures."""
    pack = load_pack()
    chosen = views[::3][:8]
    alone = [(tps.draw(v, pack), tps.draw(v, pack, crop=True)) for v in chosen]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda v: (tps.draw(v, pack), tps.draw(v, pack, crop=True)),
                                 chosen * 2))
    for (full, zoom), (full_t, zoom_t) in zip(alone * 2, together, strict=True):
        assert same(full, full_t) and same(zoom, zoom_t)
