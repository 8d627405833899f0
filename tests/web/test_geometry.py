"""The web page's SVG layer (issue 25): each shape of :func:`render.geometry.geometry` lies
where the picture draws its space — found from the picture's own pixels, by changing one
space in the View and seeing which pixels change."""

from __future__ import annotations

import json

import pytest
from PIL import Image, ImageChops

import render
from adjudicator.kernel.dice import CommittedDice
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.views import StalingradView
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.views import TanksView
from render.common import point_in_polygon
from render.geometry import Geometry, Shape, geometry

Box = tuple[int, int, int, int]


def changed(a: Image.Image, b: Image.Image, near: Shape | None = None, by: float = 0
            ) -> Box:
    """The box of the pixels that differ (``near``: only those within ``by`` pixels of the
    shape's box, e.g. leaving out a panel's caption)."""
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    x0 = y0 = 0
    if near is not None:
        x0, y0, x1, y1 = (round(v) for v in bbox(near))
        x0, y0 = max(0, x0 - round(by)), max(0, y0 - round(by))
        diff = diff.crop((x0, y0, x1 + round(by), y1 + round(by)))
    box = diff.getbbox()
    assert box is not None, "the change drew nothing"
    return box[0] + x0, box[1] + y0, box[2] + x0, box[3] + y0


def bbox(shape: Shape) -> tuple[float, float, float, float]:
    xs = [p[0] for p in shape.points]
    ys = [p[1] for p in shape.points]
    return min(xs), min(ys), max(xs), max(ys)


def assert_same_box(found: Box, shape: Shape, slack: float) -> None:
    x0, y0, x1, y1 = bbox(shape)
    assert abs(found[0] - x0) <= slack and abs(found[1] - y0) <= slack, (found, shape.key)
    assert abs(found[2] - x1) <= slack and abs(found[3] - y1) <= slack, (found, shape.key)
    # so the shape's centre is the middle of what the picture drew for the space
    middle = ((found[0] + found[2]) / 2, (found[1] + found[3]) / 2)
    box_middle = ((x0 + x1) / 2, (y0 + y1) / 2)
    assert abs(middle[0] - box_middle[0]) <= slack and abs(middle[1] - box_middle[1]) <= slack
    if shape.kind == "hex":  # a hexagon's centre is its box's middle
        assert abs(shape.centre[0] - middle[0]) <= slack, (shape.centre, middle)
        assert abs(shape.centre[1] - middle[1]) <= slack, (shape.centre, middle)


@pytest.fixture(scope="module")
def stalingrad() -> StalingradView:
    game = StalingradGame()
    view = game.view(game.setup("historical"), "public")
    assert isinstance(view, StalingradView)
    return view


@pytest.mark.parametrize("area", ["7", "14", "33", "62"])
def test_an_areas_shape_is_where_the_picture_tints_its_control(
        stalingrad: StalingradView, area: str) -> None:
    """An Area's polygon covers exactly the pixels its Control tint (3.2) paints."""
    pack = render.load_pack("stalingrad")
    flipped = stalingrad.model_copy(update={"areas": [
        a.model_copy(update={"control": "german" if a.control != "german" else "russian"})
        if a.key == area else a for a in stalingrad.areas]})
    found = changed(render.draw(stalingrad, pack), render.draw(flipped, pack))
    shape = geometry(stalingrad, pack).shape(area)
    assert shape.kind == "area"
    assert_same_box(found, shape, slack=3)
    assert point_in_polygon(*shape.label, list(shape.points))


def test_the_shapes_span_the_picture_and_read_as_json(stalingrad: StalingradView) -> None:
    pack = render.load_pack("stalingrad")
    geo = geometry(stalingrad, pack)
    assert geo.size == render.draw(stalingrad, pack).size
    keys = {s.key for s in geo.shapes}
    assert {str(n) for n in range(1, 75)} <= keys and set("ABCDEFGH") <= keys
    assert all(0 <= x <= geo.size[0] and 0 <= y <= geo.size[1]
               for s in geo.shapes for x, y in s.points)
    again = json.loads(json.dumps(geo.as_json()))
    assert again["size"] == list(geo.size) and len(again["shapes"]) == len(geo.shapes)


def test_a_zones_box_is_where_the_picture_draws_its_units(
        stalingrad: StalingradView) -> None:
    """A Zone's shape is its box in the panel's Zones box (3.1): a unit moved into the Zone
    is drawn inside it."""
    pack = render.load_pack("stalingrad")
    unit = next(u for u in stalingrad.units if u.loc.isdigit())
    moved = stalingrad.model_copy(update={"units": [
        u.model_copy(update={"loc": "G"}) if u.id == unit.id else u
        for u in stalingrad.units]})
    geo = geometry(stalingrad, pack)
    box = geo.shape("G")
    picture, after = render.draw(stalingrad, pack), render.draw(moved, pack)
    x0, y0, x1, y1 = bbox(box)
    inside = ImageChops.difference(picture.convert("RGB").crop((x0, y0, x1, y1)),
                                   after.convert("RGB").crop((x0, y0, x1, y1))).getbbox()
    assert inside is not None


TANKS = TanksGame()


def tanks_view(scenario: str, viewer: str, side: str = "", *orders: str) -> TanksView:
    state = TANKS.setup(scenario)
    for text in orders:
        state = TANKS.apply_text(state, side, text, CommittedDice(b"\x03" * 32, "g")).state
    view = TANKS.view(state, viewer)
    assert isinstance(view, TanksView)
    return view


@pytest.mark.parametrize("hex_key", ["0101", "1213", "2020", "3126"])
def test_a_hexs_shape_is_where_the_picture_outlines_it_4_0(hex_key: str) -> None:
    """A hex's hexagon is where the picture outlines it as part of a set-up zone (4.0)."""
    pack = render.load_pack("tanks")
    view = tanks_view("kursk-salient", "public")
    plain = view.model_copy(update={"setup_zone": {}})
    one = view.model_copy(update={"setup_zone": {"soviet": [hex_key]}})
    shape = geometry(plain, pack).shape(hex_key)
    found = changed(render.draw(plain, pack), render.draw(one, pack), shape, by=30)
    assert shape.kind == "hex"
    assert_same_box(found, shape, slack=4)


def test_the_set_up_zone_and_counters_come_from_the_view_4_0_20_0() -> None:
    """The zones are the View's (4.0); a hidden unit (20.0) has a counter only in its
    owner's geometry, and each counter lies inside its hex."""
    pack = render.load_pack("tanks")
    orders = ("hide pak75-1 0320", "place infde-1 0722")
    own = tanks_view("pakfront", "german", "german", *orders)
    other = tanks_view("pakfront", "soviet", "german", *orders)
    mine, theirs = geometry(own, pack), geometry(other, pack)
    assert mine.zones == {k: sorted(v) for k, v in own.setup_zone.items()} != {}
    assert theirs.zones == mine.zones
    assert {c.unit for c in mine.counters} >= {"pak75-1", "infde-1"}
    assert "pak75-1" not in json.dumps(theirs.as_json())
    assert "infde-1" in {c.unit for c in theirs.counters}
    for counter in mine.counters:
        hexagon = list(mine.shape(counter.space).points)
        assert point_in_polygon(*counter.centre, hexagon), counter


def test_a_game_without_a_picture_has_no_geometry() -> None:
    view = StalingradGame().view(StalingradGame().setup("historical"), "public")
    with pytest.raises(render.NoPicture):
        geometry(view.model_copy(update={"game": "duel"}))
    assert isinstance(geometry(view), Geometry)


def test_tps_counters_are_where_the_picture_draws_them(stalingrad: StalingradView) -> None:
    """Each stack's counter centre lies in a box where the picture drew a counter, inside
    its Area; a lone unit's counter names it, a group's names none (a click on it is a click
    on the Area)."""
    from render import stalingrad as tps

    pack = render.load_pack("stalingrad")
    geo = geometry(stalingrad, pack)
    boxes = tps.fits_inside(stalingrad, pack)
    assert len(geo.counters) >= 50
    for counter in geo.counters:
        x, y = counter.centre
        assert any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in boxes[counter.space])
        assert point_in_polygon(x, y, list(geo.shape(counter.space).points))
        if counter.unit:
            assert next(u for u in stalingrad.units if u.id == counter.unit).loc == counter.space
