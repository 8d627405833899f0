"""A Turning Point: Stalingrad picture of a View: the full map (:func:`draw`, :func:`render`)
or the crop zoomed on the last action, with its caption, the key to its stacks and the boxes
of the Zones the last action went through."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image, ImageDraw

from adjudicator.kernel.memo import Memo
from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.data_models import StalingradPack
from adjudicator.stalingrad.views import EAST, LastAction, StalingradView, UnitView
from render.common import encode_png, wrap
from render.stalingrad.counters import (
    by_space,
    face_of,
    key_lines_each,
    stack_groups,
    stack_sprite,
    units_of_pack,
)
from render.stalingrad.highlight import (
    attack_results,
    attack_tags,
    draw_highlight,
    last_attack,
    move_paths,
    touched_spaces,
)
from render.stalingrad.layout import (
    CROP_SCALES,
    CROP_SIZE,
    DEFAULT_SCALE,
    MIN_TEXT,
    Point,
    Static,
)
from render.stalingrad.panel import draw_panel
from render.stalingrad.plan import Plan, board_layer, counter_boxes, paint, plan
from render.stalingrad.static import build_static


def draw(view: StalingradView, pack: StalingradPack | None = None, *,
         scale: int = DEFAULT_SCALE, crop: bool = False) -> Image.Image:
    """The picture of ``view`` as a P image, its last action (``view.last_action``)
    highlighted; ``crop``: zoomed around the last action."""
    pack = pack or load_pack()
    if crop:
        return draw_crop(view, pack)
    st = build_static(pack, scale)
    highlight = view.last_action
    the_plan = plan(st, view, pack)
    canvas = board_layer(st, the_plan).copy()
    paint(canvas, the_plan.counters)
    draw_highlight(canvas, ImageDraw.Draw(canvas), st, highlight, (0, 0),
                   avoid=counter_boxes(the_plan))
    draw_panel(canvas, st, view, pack, highlight, [(loc, m) for loc, m, _ in the_plan.grouped])
    return canvas


def render(view: StalingradView, pack: StalingradPack | None = None, *,
           scale: int = DEFAULT_SCALE, crop: bool = False) -> bytes:
    """PNG bytes of :func:`draw`."""
    return encode_png(draw(view, pack, scale=scale, crop=crop))


@dataclass
class CropLayout:
    """The zoomed picture: a caption strip on top, a window on the full picture at
    :data:`CROP_SCALE` (``box``, full-picture pixels) and, under it, the key to the stacks
    drawn in the window."""

    st: Static
    highlight: LastAction | None
    box: tuple[int, int, int, int]
    caption: list[Image.Image]
    top: int  # the map window's top in the crop
    key: list[str]
    insets: list[ZoneInset]
    blank: list[tuple[int, int, int, int]]

    @property
    def origin(self) -> tuple[int, int]:
        """The full-picture pixel at the crop's (0, 0)."""
        return self.box[0], self.box[1] - self.top


def draw_crop(view: StalingradView, pack: StalingradPack, *, cull: bool = True) -> Image.Image:
    """The zoomed picture; ``cull``: draw only what reaches into its window (the same
    pixels as drawing everything, which ``cull=False`` does, for tests)."""
    lay = _crop_layout(view, pack)
    st, box = lay.st, lay.box
    window = st.bases["russian"].crop(box)  # beyond the picture: index 0, the paper
    window.putpalette(st.palette.flat_bytes)
    d = ImageDraw.Draw(window)
    for band in lay.blank:  # room for the Zones' boxes beside the frame
        d.rectangle(band, fill=st.palette["paper"])
    zones = {inset.letter: inset.rect for inset in lay.insets}
    the_plan = plan(st, view, pack)
    seen = (box[0], box[1], box[0] + window.width, box[1] + window.height) if cull else None
    paint(window, the_plan.board, (box[0], box[1]), seen)
    paint(window, the_plan.counters, (box[0], box[1]), seen)
    draw_highlight(window, ImageDraw.Draw(window), st, lay.highlight, (box[0], box[1]), zones,
                   counter_boxes(the_plan))
    for inset in lay.insets:  # over the arrows, which run to their borders
        inset.draw(window, st, (box[0], box[1]))
    canvas = st.palette.new(CROP_SIZE, "paper")
    canvas.paste(window, (0, lay.top))
    y = 4
    for strip in lay.caption:
        canvas.paste(strip, (4, y))
        y += strip.height + 2
    fs = _crop_key_font(st)
    y = lay.top + (box[3] - box[1]) + 3
    for text in lay.key:
        canvas.paste(st.sprites.tag(text, fs, bg="paper", border=None, pad=0), (4, y))
        y += fs + 4
    return canvas


def _crop_key_font(st: Static) -> int:
    return max(MIN_TEXT, round(st.scale * 0.17))


def _crop_layout(view: StalingradView, pack: StalingradPack) -> CropLayout:
    """The crop's window on the full picture (centred on the last attack, else the last
    move's end, else the origin, then moved to hold every Area the action touched, at the
    largest of :data:`CROP_SCALES` where they fit), its caption, the key to its stacks and
    the boxes of the Zones the last action went through (the Zones lie off the board; the
    full picture shows them in its panel)."""
    highlight = view.last_action
    attack_area, attack_result = last_attack(highlight)
    moves = move_paths(highlight)
    caption = f"{view.date_label} — {'day' if view.day else 'night'} impulse {view.box}"
    if highlight and highlight.side:
        caption += f" ({highlight.side})"
    if attack_result:
        caption += f" — attack on {attack_area}: {attack_result}"
    w, h = CROP_SIZE
    first = _touched_bounds(build_static(pack, CROP_SCALES[0]), view)
    for scale in CROP_SCALES:
        if first is not None and scale != CROP_SCALES[-1] and (
                (first[2] - first[0]) * scale / CROP_SCALES[0] > w
                or (first[3] - first[1]) * scale / CROP_SCALES[0] > h * 0.9):
            continue  # too small a window at this scale (the sizes scale with it)
        st = build_static(pack, scale)
        candidates = (attack_area, moves[-1][-1] if moves else None,
                      highlight.origin if highlight else None)
        focus = [p for p in (_focus_point(st, a) for a in candidates if a) if p is not None]
        if not focus:
            occupied = [u.loc for u in view.units if u.loc in st.spaces and u.loc != EAST]
            key = occupied[0] if occupied else "56" if "56" in st.spaces else next(
                iter(st.spaces))
            focus = [_focus_point(st, key) or st.spaces[key].centre]
        cx, cy = focus[0]
        fs_caption = max(MIN_TEXT, st.scale // 4)
        lines = [st.sprites.tag(line, fs_caption, pad=3)
                 for line in wrap(caption, fs_caption, w - 16)[:2]]
        top = sum(line.height + 2 for line in lines) + 6
        fs_key = _crop_key_font(st)
        need = _touched_bounds(st, view)
        keyed: list[str] = []
        box = (0, 0, 0, 0)
        fits = True
        for _ in range(2):  # the key's height sets the window's, which sets the key
            map_h = h - top - (len(keyed) * (fs_key + 4) + 6 if keyed else 0)
            mx0, _my0, mx1, _my1 = st.map_box
            x0 = int(max(mx0 - st.scale // 2, min(cx - w / 2, mx1 + st.scale // 2 - w)))
            y0 = int(max(0, min(cy - map_h / 2, st.size[1] - map_h)))
            if need is not None:  # move to hold every touched Area, a margin round them
                m = st.scale // 4
                nx0, ny0, nx1, ny1 = need
                fits = nx1 - nx0 + 2 * m <= w and ny1 - ny0 + 2 * m <= map_h
                x0 = int(min(max(x0, nx1 + m - w), nx0 - m))
                y0 = int(min(max(y0, ny1 + m - map_h), ny0 - m))
            box = (x0, y0, int(x0 + w), int(y0 + map_h))
            keyed = _crop_key(st, view, pack, box, fs_key, w - 8)
        if fits and need is not None:
            fits = _holds(box, need)
        if fits:
            break
    moved, insets, blank = _zone_insets(st, view, pack, highlight, box, (cx, cy), 4)
    if need is not None and not _holds(moved, need):  # no band that hides a touched Area
        moved, insets, blank = _zone_insets(st, view, pack, highlight, box, (cx, cy), 4,
                                            bands=False)
    box = moved
    return CropLayout(st, highlight, box, lines, top, keyed, insets, blank)


def label_boxes(view: StalingradView, pack: StalingradPack | None = None, *,
                crop: bool = False) -> tuple[list[tuple[float, float, float, float]],
                                             list[tuple[float, float, float, float]]]:
    """The attack labels' boxes and the counters' boxes as drawn on the full picture or
    the crop (full-picture pixels at its scale), for tests."""
    pack = pack or load_pack()
    if crop:
        lay = _crop_layout(view, pack)
        st, (x0, y0, x1, y1) = lay.st, lay.box
        zones: dict[str, tuple[float, float, float, float]] | None = {
            inset.letter: inset.rect for inset in lay.insets}
    else:
        st = build_static(pack, DEFAULT_SCALE)
        x0, y0, (x1, y1), zones = 0, 0, st.size, None
    counters = counter_boxes(plan(st, view, pack))
    tags = attack_tags(st, view.last_action, (x0, y0, x1, y1), zones, counters)
    return [(x, y, x + t.width, y + t.height) for t, x, y in tags], counters


def _holds(box: tuple[int, int, int, int], need: tuple[float, float, float, float]) -> bool:
    return box[0] <= need[0] and box[1] <= need[1] and need[2] <= box[2] and need[3] <= box[3]


def touched_areas(view: StalingradView) -> list[str]:
    """The Areas on the board the last action touched: its origin, every Area a move or a
    retreat went through, attacked or fired from (8.31), a crossing's landing. With no
    record yet (the record starts with the first impulse), the Areas the opening Rubble
    rolls rubbled (5.7)."""
    hl = view.last_action
    if hl is None:
        return [a.key for a in view.areas if a.rubble]
    out = touched_spaces(hl) | {a for attack in hl.attacks for a in attack.ranged_from}
    out |= {c.area for c in hl.crossings}
    return sorted(a for a in out if a != EAST)


def _touched_bounds(st: Static, view: StalingradView
                    ) -> tuple[float, float, float, float] | None:
    """The box (full-picture pixels) round every touched Area drawn on the board."""
    boxes = [st.spaces[a].bbox for a in touched_areas(view) if a in st.spaces]
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def crop_window(view: StalingradView, pack: StalingradPack | None = None
                ) -> tuple[tuple[int, int, int, int], Callable[[str], list[Point]]]:
    """The crop's window on the full picture (at the crop's scale) and each Area's polygon
    there (for tests)."""
    lay = _crop_layout(view, pack or load_pack())
    return lay.box, lambda key: list(lay.st.spaces[key].polygon)


def _crop_key(st: Static, view: StalingradView, pack: StalingradPack,
              box: tuple[int, int, int, int], fs: int, width: int) -> list[str]:
    """The key to the stacks whose counter lies in the crop's window (at most four
    lines)."""
    lines = [line for (x, y), stack in _keyed_stacks(plan(st, view, pack), pack, fs, width)
             if box[0] <= x <= box[2] and box[1] <= y <= box[3] for line in stack]
    if len(lines) > 4:
        lines = [*lines[:3], f"... and {len(lines) - 3} more lines in the full map"]
    return lines


#: Each plan's grouped stacks in the key's order with their key lines (by font and width):
#: a zoom asks for the key at each window tried, and a View is drawn more than once.
_KEYED = Memo[list[tuple[Point, tuple[str, ...]]]](size=32)


def _keyed_stacks(the_plan: Plan, pack: StalingradPack, fs: int, width: int
                  ) -> list[tuple[Point, tuple[str, ...]]]:
    """The plan's stacks drawn as one counter, in the key's order (:func:`by_space`: a
    window's key is these filtered, the same as sorting the filtered ones), each with its
    centre and its key lines (:func:`key_lines_each`)."""
    pack_units = units_of_pack(pack)

    def make() -> list[tuple[Point, tuple[str, ...]]]:
        grouped = by_space(the_plan.grouped)
        return list(zip([point for _loc, _members, point in grouped],
                        key_lines_each([(loc, members) for loc, members, _ in grouped],
                                       pack_units, fs, width), strict=True))

    return _KEYED.get((the_plan, pack_units), (fs, width), make)


def crop_zones(view: StalingradView, pack: StalingradPack | None = None
               ) -> dict[str, tuple[int, int, int, int]]:
    """The Zone boxes drawn on the crop of ``view``, in the crop's pixels (for tests)."""
    lay = _crop_layout(view, pack or load_pack())
    ox, oy = lay.origin
    return {i.letter: (round(i.rect[0] - ox), round(i.rect[1] - oy),
                       round(i.rect[2] - ox), round(i.rect[3] - oy)) for i in lay.insets}


def crop_origin(view: StalingradView, pack: StalingradPack | None = None) -> tuple[int, int]:
    """The full-picture pixel (at the crop's scale) drawn at the crop's (0, 0), for tests."""
    return _crop_layout(view, pack or load_pack()).origin


def _focus_point(st: Static, key: str) -> Point | None:
    """Where a space is in the full picture: an Area's middle, a Zone's anchor."""
    geo = st.spaces.get(key)
    if geo is not None and key != EAST:
        return ((geo.bbox[0] + geo.bbox[2]) / 2, (geo.bbox[1] + geo.bbox[3]) / 2)
    return st.zone_anchor.get(key)


#: At most this many Zone boxes on a crop (the nearest to its focus).
MAX_ZONE_INSETS = 4


@dataclass
class ZoneInset:
    """A Zone's box on a crop: its letter and name, Control strip and counters."""

    letter: str
    rect: tuple[float, float, float, float]  # full-picture pixels
    title: Image.Image
    control: str
    edge: str  # "attack" when attacked, else "highlight"
    counters: list[Image.Image]
    size: int
    cols: int

    def draw(self, canvas: Image.Image, st: Static, offset: tuple[int, int]) -> None:
        pal = st.palette
        d = ImageDraw.Draw(canvas)
        x0, y0, x1, y1 = (round(self.rect[0] - offset[0]), round(self.rect[1] - offset[1]),
                          round(self.rect[2] - offset[0]), round(self.rect[3] - offset[1]))
        d.rectangle((x0, y0, x1, y1), fill=pal["paper"], outline=pal[self.edge], width=3)
        d.rectangle((x0 + 3, y0 + 3, x1 - 3, y0 + 6), fill=pal[self.control])
        canvas.paste(self.title, (x0 + 4, y0 + 8))
        c = self.size
        for i, sprite in enumerate(self.counters):
            left = x0 + 4 + (i % self.cols) * (c + 3)
            top = y0 + self.title.height + 9 + (i // self.cols) * (c + 3)
            canvas.paste(sprite, (left, top))


def _zone_insets(st: Static, view: StalingradView, pack: StalingradPack, hl: LastAction | None,
                 box: tuple[int, int, int, int], focus: Point, top: int, *, bands: bool = True
                 ) -> tuple[tuple[int, int, int, int], list[ZoneInset],
                            list[tuple[int, int, int, int]]]:
    """Boxes for the Zones of the last action (the nearest :data:`MAX_ZONE_INSETS` to the
    crop's focus), each near where its Zone lies, inside the crop and apart.

    When the crop shows the board's edge on a Zone's side, the window moves out to leave a
    band beyond the frame for the boxes, so they cover nothing of the board (not with
    ``bands=False``: the window holds a touched Area the move would hide). Returns the
    (moved) window, the boxes and the bands to blank (crop pixels)."""
    letters = sorted((z for z in touched_spaces(hl) if z in st.zone_anchor),
                     key=lambda z: (st.zone_anchor[z][0] - focus[0]) ** 2
                     + (st.zone_anchor[z][1] - focus[1]) ** 2)[:MAX_ZONE_INSETS]
    if not letters:
        return box, [], []
    c = st.counter
    fs = max(9, round(st.scale * 0.2))
    cols = 3
    control = {a.key: a.control for a in view.areas}
    pack_units = units_of_pack(pack)
    by_loc: dict[str, list[UnitView]] = {}
    for u in view.units:
        if u.loc in letters:
            by_loc.setdefault(u.loc, []).append(u)
    attacked = {a for a, _ in attack_results(hl)}
    contents = []
    for letter in letters:
        zone = pack.zones[letter]
        title = st.sprites.tag(f"Zone {letter} {zone.name or ''}".strip(), fs, bg="paper",
                               border=None, pad=1)
        units = by_loc.get(letter, [])
        faces = {u.id: face_of(u, pack_units) for u in units}
        groups = stack_groups(units, faces, 2 * cols) if units else []
        rows = 0 if not groups else 1 if len(groups) <= cols else 2
        w = max(title.width + 8, cols * (c + 3) + 7)
        h = title.height + 10 + rows * (c + 3)
        counters = [stack_sprite(st.sprites, members, faces, c) for members in groups]
        contents.append((letter, title, counters, w, h))
    # bands beyond the frame for the boxes, where the crop shows the frame
    x0, y0, x1, y1 = box
    cw, ch = x1 - x0, y1 - y0
    mx0, my0, _mx1, my1 = st.map_box
    margin = round(0.55 * st.scale)
    sides = {st.zone_side[letter] for letter in letters}
    edges: dict[str, int] = {}  # side -> band edge (full-picture pixels)
    near = min(cw, ch) // 3 if bands else -1  # the frame is this close to its side: room
    if "left" in sides and -near < mx0 - x0 < near:
        width = max(w for letter, _, _, w, _ in contents if st.zone_side[letter] == "left")
        x0 = min(x0, mx0 - margin - width - 8)
        edges["left"] = mx0 - margin
    if "top" in sides and -near < my0 - y0 < near:
        height = max(h for letter, _, _, _, h in contents if st.zone_side[letter] == "top")
        y0 = min(y0, my0 - margin - height - top - 4)
        edges["top"] = my0 - margin
    if "bottom" in sides and -near < y1 - my1 < near:
        height = max(h for letter, _, _, _, h in contents
                     if st.zone_side[letter] == "bottom")
        y0 = max(y0, my1 + margin + height + 8 - ch)
        edges["bottom"] = my1 + margin
    box = (x0, y0, x0 + cw, y0 + ch)
    placed: list[tuple[int, int, int, int]] = []
    out: list[ZoneInset] = []
    for letter, title, counters, w, h in contents:
        side = st.zone_side[letter]
        ax, ay = st.zone_anchor[letter]
        ax, ay = ax - x0, ay - y0
        along = side in ("left", "right")
        if side in edges:  # in the band: beside the frame
            edge = edges[side] - (x0 if along else y0)
            if side == "left":
                ax = edge - w / 2 - 4
            elif side == "top":
                ay = edge - h / 2 - 2
            else:
                ay = edge + h / 2 + 2
        spot = None
        for k in (0, 1, -1, 2, -2, 3, -3, 4, -4):
            x = ax - w / 2 + (0 if along else k * (w + 6))
            y = ay - h / 2 + (k * (h + 6) if along else 0)
            x = min(max(x, 4), cw - w - 4)
            y = min(max(y, top), ch - h - 4)
            rect = (round(x), round(y), round(x) + w, round(y) + h)
            if all(rect[2] + 3 < q[0] or q[2] + 3 < rect[0] or rect[3] + 3 < q[1]
                   or q[3] + 3 < rect[1] for q in placed):
                spot = rect
                break
        if spot is None:
            continue
        placed.append(spot)
        out.append(ZoneInset(
            letter=letter,
            rect=(spot[0] + x0, spot[1] + y0, spot[2] + x0, spot[3] + y0), title=title,
            control=control.get(letter, pack.zones[letter].initial_control),
            edge="attack" if letter in attacked else "highlight", counters=counters,
            size=c, cols=cols))
    blank = []
    for side, edge in edges.items():
        if side == "left":
            blank.append((0, 0, edge - x0 - 1, ch))
        elif side == "top":
            blank.append((0, 0, cw, edge - y0 - 1))
        else:
            blank.append((0, edge - y0 + 1, cw, ch))
    return box, out, blank
