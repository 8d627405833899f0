"""Turning Point: Stalingrad pictures are readable at the size they are posted: counter
texts at least 11 px, every counter's short id shown (or in the key to the stacks), no
label clipped or covered — checked on the pixels."""

from __future__ import annotations

import pytest
from PIL import Image

from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.views import EAST, StalingradView, UnitView
from render import stalingrad as tps
from render.common import font, point_in_polygon, rgb
from tests.render.games import random_game


@pytest.fixture(scope="module")
def game() -> StalingradGame:
    return StalingradGame()


@pytest.fixture(scope="module")
def views(game: StalingradGame) -> list[StalingradView]:
    """The historical set-up and a game some way in (without its last action, so nothing
    but counters and tags is drawn over the board)."""
    out = []
    for state in (game.setup("historical"), random_game(game, "historical", 80, 5)[-1].state):
        view = game.view(state, "public")
        assert isinstance(view, StalingradView)
        # no highlight: the last action's arrows and frames are drawn over everything
        view = view.model_copy(update={"last_action": None, "impulse_origin": None,
                                       "impulse_mf": {}, "attacked": [], "battle": None})
        out.append(view)
    return out


def _digit_height(size: int) -> int:
    _, top, _, bottom = font(size).getbbox("0123456789")
    return int(bottom - top)


def _ink_rows(image: Image.Image, box: tuple[int, int, int, int], ink: tuple[int, int, int],
              paper: tuple[int, int, int]) -> int:
    """How many pixel rows of ``box`` hold text: a pixel nearer ``ink`` than ``paper``."""
    rgb_image = image.convert("RGB")

    def near(p: tuple[int, int, int], q: tuple[int, int, int]) -> int:
        return sum(abs(a - b) for a, b in zip(p, q, strict=True))

    rows = 0
    for y in range(box[1], box[3]):
        if any(near(rgb_image.getpixel((x, y)), ink) < near(rgb_image.getpixel((x, y)), paper)
               for x in range(box[0], box[2])):
            rows += 1
    return rows


@pytest.mark.parametrize("scale", [tps.DEFAULT_SCALE, tps.CROP_SCALE])
def test_counter_texts_are_at_least_11_px_high(scale: int) -> None:
    size = tps.counter_size(scale)
    fs = tps.counter_font(size)
    assert fs >= tps.MIN_TEXT == 11
    face = tps.Face("german", "infantry", False, True, "4-5-6", 0, False, "III/194")
    sprite = tps.counter_sprite(tps.build_static(load_pack(), scale).sprites, face, size)
    line = fs + 1
    white = rgb("white")
    need = _digit_height(tps.MIN_TEXT)  # an 11 px font's digits: 8 px of ink
    blue = rgb("german")
    assert _ink_rows(sprite, (2, 1, size - 2, 1 + line), white, blue) >= need  # designation
    assert _ink_rows(sprite, (2, size - 1 - line, size - 2, size - 1), white, blue) >= need


def test_counters_in_the_posted_picture_have_11_px_texts(views: list[StalingradView]
                                                           ) -> None:
    pack = load_pack()
    view = views[0]
    image = tps.draw(view, pack)
    boxes = tps.fits_inside(view, pack)
    need = _digit_height(tps.MIN_TEXT)
    checked = 0
    for key, side in (("1", "german"), ("14", "german"), ("22", "russian")):
        for x0, y0, x1, y1 in boxes[key][:2]:
            line = tps.counter_font(x1 - x0) + 1
            for top in (y0 + 1, y1 - 1 - line):  # the designation, the factors
                assert _ink_rows(image, (x0 + 2, top, x1 - 2, top + line), rgb("white"),
                                 rgb(side)) >= need, key
            checked += 1
    assert checked >= 4


def test_every_designation_fits_its_counter_readably() -> None:
    """A designation wider than the counter is squeezed sideways, never below 65 % of its
    width (and never shrunk in height)."""
    pack = load_pack()
    size = tps.counter_size(tps.DEFAULT_SCALE)
    fs = tps.counter_font(size)
    room = size - 2
    for unit in pack.units.values():
        left, _, right, _ = font(fs).getbbox(unit.designation)
        assert room / (right - left + 2) >= 0.65, unit.designation


def test_each_counter_shows_its_short_id_or_is_in_the_key(game: StalingradGame) -> None:
    pack = load_pack()
    units = [UnitView(id=u, side="german", kind="infantry", loc="59", fresh=True, attack=3,
                      defense=3, mf=5) for u in ("g94:i/267", "g94:ii/267", "g94:iii/267",
                                                  "g94:i/274", "g94:ii/274")]
    view = game.view(game.setup("historical"), "public")
    assert isinstance(view, StalingradView)
    view.units = [u for u in view.units if u.loc != "59"] + units
    st = tps.build_static(pack)
    faces = {u.id: tps.face_of(u, tps.units_of_pack(pack)) for u in units}
    drawn = tps.stacks(st, "59", units, faces)
    shown = {m.id for members, _ in drawn if len(members) == 1 for m in members}
    keyed = [members for members, _ in drawn if len(members) > 1]
    lines = tps.stack_lines([("59", m) for m in keyed], tps.units_of_pack(pack))
    for u in units:
        label = tps.short_label(u.id, tps.units_of_pack(pack))
        assert u.id in shown or any(label in line for line in lines), u.id
    assert keyed, "59 is small: some of its five units are stacked"


def test_no_label_is_clipped_or_covered(views: list[StalingradView]) -> None:
    pack = load_pack()
    st = tps.build_static(pack)
    w, h = st.size
    bases = [b.convert("RGB") for b in st.bases.values()]
    assert st.labels
    kinds = {label.kind for label in st.labels}
    assert {"area-name", "area-id", "quadrant", "zone-name"} <= kinds
    areas = {k: g.polygon for k, g in st.spaces.items() if k != EAST}
    for i, a in enumerate(st.labels):
        x0, y0, x1, y1 = a.box
        assert x0 >= 0 and y0 >= 0 and x1 <= w and y1 <= h, a
        for b in st.labels[i + 1:]:
            assert not tps.layout._overlaps(a.box, b.box), (a, b)
        if a.kind == "area-name":  # in its Area, or beyond it over no other Area
            assert a.container is not None
            for fx in (0.0, 0.5, 1.0):
                for fy in (0.0, 1.0):
                    x, y = x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)
                    if not point_in_polygon(x, y, a.container):
                        assert not any(point_in_polygon(x, y, poly) for k, poly in
                                       areas.items() if k != a.key), a
        if a.kind == "zone-name":  # whole inside its Zone's box in the panel
            assert a.container is not None
            cx0, cy0 = a.container[0]
            cx1, cy1 = a.container[2]
            assert cx0 <= x0 and x1 <= cx1 and cy0 <= y0 and y1 <= cy1, a
    for view in views:
        image = tps.draw(view, pack).convert("RGB")
        counters = [box for boxes in tps.fits_inside(view, pack).values() for box in boxes]
        for label in st.labels:
            for box in counters:
                assert not tps.layout._overlaps(label.box, box), (label, box)
            # every pixel of the label is the board's own: nothing is drawn over it
            x0, y0, x1, y1 = (round(v) for v in label.box)
            for y in range(max(0, y0), min(h, y1)):
                for x in range(max(0, x0), min(w, x1)):
                    pixel = image.getpixel((x, y))
                    assert any(base.getpixel((x, y)) == pixel for base in bases), (label,
                                                                                    (x, y))


def test_the_crop_has_a_caption_strip_and_a_key_to_its_stacks(game: StalingradGame) -> None:
    pack = load_pack()
    state = game.setup("historical")
    view = game.view(state, "public")
    assert isinstance(view, StalingradView)
    # six units in Area 59 (room for one or two counters): a stack with its key line
    units = [UnitView(id=u, side="german", kind="infantry", loc="59", fresh=True, attack=3,
                      defense=3, mf=5) for u in ("g94:i/267", "g94:ii/267", "g94:iii/267",
                                                  "g94:i/274", "g94:ii/274", "g94:iii/274")]
    view.units = [u for u in view.units if u.loc != "59"] + units
    from adjudicator.stalingrad.last_action import LastAction
    view.last_action = LastAction(side="german", date=0, day=True, box=1, origin="59")
    layout = tps.picture._crop_layout(view, pack)
    assert layout.top > 0 and layout.caption
    assert any(line.startswith("59 x") and "I/267" in line for line in layout.key)
    image = tps.draw(view, pack, crop=True)
    assert image.size == tps.CROP_SIZE
