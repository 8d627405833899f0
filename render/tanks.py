"""Stalin's Tanks pictures: a :class:`TanksView` plus the data pack -> PNG.

Layout (``radius`` = hex circumradius in pixels, default 22):

* the hex map, flat-topped hexes in columns (odd columns half a hex higher, see
  ``docs/data-tanks.md``), every hex numbered XXYY, terrain drawn recognisably: hills shaded
  with a contour on their outline, woods with trees, swamp tufts, the stream as a wavy blue
  line, buildings, the road and the bridge; map-edge labels N/E/S/W;
* counters: side colour, unit-type symbol, label, AT/AP (or defence) and Armor Class,
  Movement Factor; a facing pointer for tanks and SP guns; a red corner for disrupted units;
  "+n" for passengers aboard a halftrack; face-down units as "?" for those who may not know;
* the last action: the last shot as a line of sight from firer to target with the result,
  the barrage target marker, scatter and the barrage hexes, the last move's path;
* the right panel: scenario, turn and phase, destroyed and exited tallies, legend.

Secrets: hidden units (``UnitView.hidden``) and unrevealed minefields appear only in the
owner's and the GM's views, and the picture draws them only in the *secret* colours of
:mod:`render.common` — a public or opposing picture cannot contain a pixel of them. The panel
never prints counts that would differ between viewers (e.g. units on the map).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from adjudicator.tanks.data import TanksPack, load_pack
from adjudicator.tanks.hexgrid import Direction, Hex, neighbour, pixel_centre
from adjudicator.tanks.views import PHASE_NAMES, SIDES, LastAction, TanksView, UnitView
from render import static_cache
from render.common import (
    Palette,
    SpriteCache,
    arrow,
    dashed_line,
    encode_png,
    font,
    point_in_polygon,
    rgb,
    text_size,
)
from render.counters import TANKS_SYMBOL, draw_symbol

DEFAULT_RADIUS = 26
CROP_RADIUS = 40
Point = tuple[float, float]
#: Facing direction -> angle (radians, screen coordinates: y down) of the hexside's middle.
FACING_ANGLE = {d: math.radians(-90 + 60 * (d.value - 1)) for d in Direction}


# ---- static layer ----------------------------------------------------------------------------


@dataclass
class Static:
    radius: int
    size: tuple[int, int]
    palette: Palette
    sprites: SpriteCache
    base: Image.Image
    origin: Point
    columns: int
    rows: int
    counter: int
    panel_x: int
    viewer_box: tuple[int, int, int, int]
    panel: dict[str, Any]
    #: Each set-up zone's outline as a mask of the whole picture (see :func:`zone_outline`).
    zones: dict[tuple[str, ...], Image.Image] = field(default_factory=dict)


def centre(st_origin: Point, radius: float, name: str | Hex) -> Point:
    h = Hex.parse(name) if not isinstance(name, Hex) else name
    x, y = pixel_centre(h, radius)
    return (st_origin[0] + radius + x, st_origin[1] + radius * math.sqrt(3) / 2 + y)


def hex_corners(c: Point, r: float) -> list[Point]:
    return [(c[0] + r * math.cos(math.radians(60 * i)), c[1] + r * math.sin(math.radians(60 * i)))
            for i in range(6)]


def build_static(pack: TanksPack, radius: int = DEFAULT_RADIUS) -> Static:
    return static_cache.cached(("tanks", pack.content_hash, radius),
                               lambda: _build_static(pack, radius))


def prepare(pack: TanksPack) -> None:
    """Build the static layers of the map picture, the whole map's and the posted zoom's,
    ahead of the first one (a frontend calls it at start-up)."""
    build_static(pack)
    build_static(pack, CROP_RADIUS)


def _build_static(pack: TanksPack, r: int) -> Static:
    tmap = pack.map
    margin = max(16, round(r * 0.9))
    origin = (margin, margin)
    map_w = 1.5 * r * (tmap.columns - 1) + 2 * r
    map_h = math.sqrt(3) * r * (tmap.rows + 0.5)
    panel_w = round(r * 11.5)
    panel_x = round(origin[0] + map_w + margin)
    width = panel_x + panel_w
    height = round(origin[1] + map_h + margin)
    im = Image.new("RGB", (width, height), rgb("paper"))
    d = ImageDraw.Draw(im)
    terrain = tmap.terrain
    fs_num = max(6, round(r * 0.3))

    def c_of(h: Hex) -> Point:
        return centre(origin, r, h)

    fills = {"clear": "clear", "hill": "hill1", "woods": "woods", "swamp": "swamp",
             "stream": "clear", "building": "clear"}
    for h, t in terrain.items():
        d.polygon(hex_corners(c_of(h), r), fill=rgb(fills.get(t.value, "clear")),
                  outline=rgb("hexline"))
    # hill contour: hexsides between hill and not-hill
    for h, t in terrain.items():
        if t.value != "hill":
            continue
        cx, cy = c_of(h)
        for i, dr in enumerate(Direction):
            n = neighbour(h, dr)
            if terrain.get(n) is not None and terrain[n].value == "hill":
                continue
            a0 = math.radians(-120 + 60 * i)
            a1 = math.radians(-60 + 60 * i)
            p0 = (cx + r * math.cos(a0), cy + r * math.sin(a0))
            p1 = (cx + r * math.cos(a1), cy + r * math.sin(a1))
            d.line([p0, p1], fill=rgb("road"), width=max(2, r // 8))
        d.ellipse((cx - r * 0.45, cy - r * 0.35, cx + r * 0.45, cy + r * 0.35),
                  outline=rgb("hill2"), width=1)
    for h, t in terrain.items():
        cx, cy = c_of(h)
        if t.value == "woods":
            for ox, oy in ((-0.42, -0.2), (0.0, 0.25), (0.42, -0.2), (0.0, -0.5), (-0.4, 0.45),
                           (0.4, 0.45)):
                tr = r * 0.2
                d.ellipse((cx + ox * r - tr, cy + oy * r - tr, cx + ox * r + tr,
                           cy + oy * r + tr), fill=rgb("woods_dark"))
        elif t.value == "swamp":
            for ox, oy in ((-0.4, -0.25), (0.3, -0.1), (-0.1, 0.35), (0.45, 0.4)):
                x, y = cx + ox * r, cy + oy * r
                for k in (-1, 0, 1):
                    d.line([(x + k * r * 0.08, y), (x + k * r * 0.14, y - r * 0.18)],
                           fill=rgb("water_dark"), width=1)
        elif t.value == "building":
            for ox, oy in ((-0.35, -0.3), (0.2, -0.25), (-0.2, 0.25), (0.35, 0.3)):
                s = r * 0.2
                d.rectangle((cx + ox * r - s, cy + oy * r - s * 0.8, cx + ox * r + s,
                             cy + oy * r + s * 0.8), fill=rgb("building"), outline=rgb("ink"))
    # the stream: a wavy line through the centres of neighbouring stream hexes
    stream = {h for h, t in terrain.items() if t.value == "stream"} | set(tmap.bridges)
    done: set[frozenset[Hex]] = set()
    for h in sorted(stream):
        for n in tmap.neighbours(h):
            pair = frozenset((h, n))
            if n in stream and pair not in done:
                done.add(pair)
                _wavy(d, c_of(h), c_of(n), rgb("water"), max(3, r // 4))
        if h.col == 1 or h.col == tmap.columns:
            cx, cy = c_of(h)
            edge = cx - r if h.col == 1 else cx + r
            _wavy(d, (cx, cy), (edge, cy), rgb("water"), max(3, r // 4))
    # the road and the bridge
    for road in tmap.roads:
        pts = [c_of(h) for h in road]
        first, last = road[0], road[-1]
        if first.row == 1:
            pts.insert(0, (pts[0][0], pts[0][1] - r))
        if last.row == tmap.rows:
            pts.append((pts[-1][0], pts[-1][1] + r))
        d.line(pts, fill=rgb("road"), width=max(4, r // 4), joint="curve")
        d.line(pts, fill=rgb("setup_tan"), width=max(2, r // 10), joint="curve")
    for b in tmap.bridges:
        cx, cy = c_of(b)
        for side in (-1, 1):
            d.line([(cx + side * r * 0.28, cy - r * 0.45), (cx + side * r * 0.28,
                                                            cy + r * 0.45)],
                   fill=rgb("ink"), width=max(2, r // 10))
    # hex numbers
    for h in terrain:
        cx, cy = c_of(h)
        d.text((cx, cy - r * 0.84), str(h), font=font(fs_num), fill=rgb("dark_grey"),
               anchor="ma")
    # map edges
    fs_edge = max(9, round(r * 0.55))
    mx0, my0 = origin
    mx1, my1 = origin[0] + map_w, origin[1] + map_h
    d.text(((mx0 + mx1) / 2, my0 / 2), "N  (north edge, row 01)", font=font(fs_edge),
           fill=rgb("ink"), anchor="mm")
    d.text(((mx0 + mx1) / 2, (my1 + height) / 2), "S  (south edge)", font=font(fs_edge),
           fill=rgb("ink"), anchor="mm")
    for label, x in (("W", mx0 / 2), ("E", (mx1 + panel_x) / 2)):
        d.text((x, (my0 + my1) / 2), label, font=font(fs_edge + 2), fill=rgb("ink"),
               anchor="mm")
    # the panel frame and legend
    d.rectangle((panel_x, 0, width, height), fill=rgb("panel"))
    d.line([(panel_x, 0), (panel_x, height)], fill=rgb("dark_grey"), width=2)
    pad = round(r * 0.5)
    fs = max(9, round(r * 0.5))
    panel: dict[str, Any] = {"pad": pad, "fs": fs, "status_at": (panel_x + pad, pad)}
    legend_top = round(height * 0.5)
    _legend(d, panel_x + pad, legend_top, panel_w - 2 * pad, r, fs, height)
    viewer_box = (panel_x + pad, legend_top - 2 * (fs + 8), width - pad, legend_top - 6)
    palette = Palette.build(im)
    base = palette.quantize(im)
    counter = max(14, round(r * 1.2))
    return Static(radius=r, size=(width, height), palette=palette,
                  sprites=SpriteCache(palette), base=base, origin=origin,
                  columns=tmap.columns, rows=tmap.rows, counter=counter, panel_x=panel_x,
                  viewer_box=viewer_box, panel=panel)


def _wavy(d: ImageDraw.ImageDraw, a: Point, b: Point, colour: tuple[int, int, int],
          width: int) -> None:
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    if length == 0:
        return
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    nx, ny = -uy, ux
    steps = max(4, int(length / 3))
    pts = []
    for i in range(steps + 1):
        t = i / steps
        wob = math.sin(t * math.pi * 2) * width * 0.6
        pts.append((a[0] + ux * length * t + nx * wob, a[1] + uy * length * t + ny * wob))
    d.line(pts, fill=colour, width=width, joint="curve")


def _legend(d: ImageDraw.ImageDraw, x: int, y: int, w: int, r: int, fs: int,
            height: int) -> None:
    d.text((x, y), "LEGEND", font=font(fs + 2), fill=rgb("ink"))
    y += fs + 10
    sw = max(14, round(r * 0.9))
    terrains = [("clear", "clear"), ("hill1", "hill"), ("woods", "woods"), ("swamp", "swamp"),
                ("water", "stream"), ("building", "buildings"), ("road", "road")]
    col_w = w // 2
    for i, (colour, label) in enumerate(terrains):
        cx = x + (i % 2) * col_w
        cy = y + (i // 2) * (sw + 4)
        d.rectangle((cx, cy, cx + sw, cy + sw * 0.7), fill=rgb(colour), outline=rgb("ink"))
        d.text((cx + sw + 5, cy), label, font=font(fs), fill=rgb("ink"))
    y += (len(terrains) + 1) // 2 * (sw + 4) + 6
    kinds = [("armor", "tank"), ("sp_gun", "SP gun"), ("at", "AT gun"),
             ("infantry", "infantry"), ("halftrack", "halftrack")]
    for i, (kind, label) in enumerate(kinds):
        cx = x + (i % 2) * col_w
        cy = y + (i // 2) * (sw + 6)
        draw_symbol(d, (cx, cy, cx + sw, cy + sw * 0.6), kind, rgb("ink"))
        d.text((cx + sw + 5, cy), label, font=font(fs), fill=rgb("ink"))
    y += (len(kinds) + 1) // 2 * (sw + 6) + 6
    lines = [
        "Counter: label; AT-AP factors; Armor Class",
        "(or defence) and Movement Factor.",
        "Pointer: facing. Red corner: disrupted.",
        "+n: infantry aboard a halftrack. ?: face-down.",
        "Red line: last shot (hit); grey dashed: miss.",
        "Circle: barrage target; arrow: scatter.",
    ]
    for line in lines:
        if y + fs > height - 4:
            return
        d.text((x, y), line, font=font(max(8, fs - 1)), fill=rgb("ink"))
        y += fs + 4


# ---- counters --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Face:
    side: str
    symbol: str
    label: str
    top: str  # AT-AP
    bottom: str  # Armor Class / defence + MF
    disrupted: bool
    unknown: bool
    hidden: bool
    concealed: bool
    passengers: int


def unit_face(u: UnitView, pack: TanksPack, passengers: int = 0) -> Face:
    if u.type == "?" or u.type not in pack.units:
        return Face(u.side, "unknown", "?", "", "", False, True, u.hidden, u.concealed,
                    passengers)
    t = pack.units[u.type]
    top = f"{t.at}-{t.ap}"
    armour = t.armor_class if t.armored else str(t.defense)
    bottom = f"{armour} {t.mf}"
    return Face(u.side, TANKS_SYMBOL.get(t.kind.value, "infantry"), u.label or t.label, top,
                bottom, u.disrupted, False, u.hidden, u.concealed, passengers)


def counter_sprite(sprites: SpriteCache, face: Face, size: int) -> Image.Image:
    secret = face.hidden or (face.concealed and not face.unknown)

    def build() -> Image.Image:
        side = face.side if face.side in SIDES else "german"
        fill = rgb(side)
        ink = rgb("white")
        if face.hidden:
            fill, ink = rgb("hidden_fill"), rgb("hidden_ink")
        im = Image.new("RGB", (size, size), fill)
        d = ImageDraw.Draw(im)
        if face.unknown:
            d.text((size / 2, size / 2), "?", font=font(round(size * 0.7)), fill=ink,
                   anchor="mm")
        else:
            fs = max(6, round(size * 0.27))
            d.text((size / 2, 0), face.label, font=font(_fit(face.label, fs, size - 2)),
                   fill=ink, anchor="ma")
            sw, sh = size * 0.44, size * 0.2
            sy = size * 0.3
            draw_symbol(d, ((size - sw) / 2, sy, (size + sw) / 2, sy + sh), face.symbol, ink, 1)
            d.text((size / 2, size * 0.76), face.top, font=font(_fit(face.top, fs, size - 2)),
                   fill=ink, anchor="md")
            d.text((size / 2, size), face.bottom, font=font(_fit(face.bottom, fs, size - 2)),
                   fill=ink, anchor="md")
        if face.disrupted:
            d.polygon([(size, 0), (size, size * 0.4), (size * 0.6, 0)], fill=rgb("los_hit"))
        if face.passengers:
            tag = f"+{face.passengers}"
            fs = max(6, round(size * 0.32))
            tw, th = text_size(tag, fs)
            d.rectangle((0, size - th - 3, tw + 3, size - 1), fill=rgb("white"))
            d.text((1, size - 2), tag, font=font(fs), fill=rgb("ink"), anchor="ld")
        if face.hidden:
            colour = rgb("hidden")
            for i in range(0, size, 4):
                d.line([(i, 0), (min(size, i + 2), 0)], fill=colour, width=2)
                d.line([(i, size - 1), (min(size, i + 2), size - 1)], fill=colour, width=2)
                d.line([(0, i), (0, min(size, i + 2))], fill=colour, width=2)
                d.line([(size - 1, i), (size - 1, min(size, i + 2))], fill=colour, width=2)
        else:
            d.rectangle((0, 0, size - 1, size - 1), outline=rgb("ink"))
        if face.concealed and not face.unknown:
            # the owner's face-down unit: the real counter with a secret-coloured band
            d.rectangle((0, size * 0.42, 3, size * 0.58), fill=rgb("hidden"))
            d.rectangle((size - 4, size * 0.42, size - 1, size * 0.58), fill=rgb("hidden"))
        return im
    key = ("secret" if secret else "tanks-counter", face, size)
    return sprites.get(key, build)


def _fit(text: str, size: int, width: int) -> int:
    """The largest font size not above ``size`` at which ``text`` fits ``width`` pixels."""
    while size > 6 and text_size(text, size)[0] > width:
        size -= 1
    return size


# ---- drawing ---------------------------------------------------------------------------------


def draw(view: TanksView, pack: TanksPack | None = None, *, radius: int = DEFAULT_RADIUS,
         crop: bool = False) -> Image.Image:
    """The picture of ``view`` as a P image, its last action (``view.last_action``)
    highlighted; ``crop``: zoomed around the last action."""
    pack = pack or load_pack()
    st = build_static(pack, CROP_RADIUS if crop else radius)
    hl = view.last_action
    if crop:
        return _draw_crop(view, pack, st, hl)
    canvas = st.base.copy()
    _draw_map(canvas, st, view, pack, hl, (0, 0))
    _draw_panel(canvas, st, view)
    return canvas


def render(view: TanksView, pack: TanksPack | None = None, *, radius: int = DEFAULT_RADIUS,
           crop: bool = False) -> bytes:
    """PNG bytes of :func:`draw`."""
    return encode_png(draw(view, pack, radius=radius, crop=crop))


def crop_box(view: TanksView, st: Static, hl: LastAction | None
             ) -> tuple[int, int, int, int]:
    """The crop's window on the full picture: every hex the last action touched with a
    hex's margin round them (at least 13 hexes wide), kept on the map."""
    hexes = [h for h in (hl.hexes() if hl else ()) if _on_map(st, h)]
    if not hexes:
        hexes = [u.hex for u in view.units if u.hex and _on_map(st, u.hex)][:1] or ["1613"]
    pts = [centre(st.origin, st.radius, h) for h in hexes]
    r = st.radius
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    least = 13 * r
    w = max(least, max(xs) - min(xs) + 4 * r)
    h = max(least * 0.8, max(ys) - min(ys) + 4 * r)
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    x0 = int(max(0, min(cx - w / 2, st.panel_x - w)))
    y0 = int(max(0, min(cy - h / 2, st.size[1] - h)))
    return (x0, y0, int(x0 + w), int(y0 + h))


def crop_window(view: TanksView, pack: TanksPack | None = None
                ) -> tuple[tuple[int, int, int, int], Callable[[str], tuple[float, float]]]:
    """The crop's window on the full picture and each hex's centre there (for tests)."""
    pack = pack or load_pack()
    st = build_static(pack, CROP_RADIUS)
    return (crop_box(view, st, view.last_action),
            lambda name: centre(st.origin, st.radius, name))


def _draw_crop(view: TanksView, pack: TanksPack, st: Static, hl: LastAction | None
               ) -> Image.Image:
    box = crop_box(view, st, hl)
    x0, y0 = box[0], box[1]
    canvas = st.base.crop(box)
    canvas.putpalette(st.palette.flat_bytes)
    _draw_map(canvas, st, view, pack, hl, (x0, y0))
    canvas.paste(st.sprites.tag(crop_caption(view, hl), max(10, st.radius // 3), pad=4), (4, 4))
    return canvas


def move_outcome(view: TanksView, hl: LastAction | None) -> str | None:
    """What befell the last move's unit at its path's end, read from the View: destroyed by
    a minefield there, or through one and on (19.2: each enemy unit entering a mined hex is
    attacked). Nothing is kept in the state for it, so stored states keep their hashes."""
    move = hl.move if hl else None
    if move is None or not move.path or move.unit is None:
        return None
    end = move.path[-1]
    unit = next((u for u in view.units if u.id == move.unit), None)
    if unit is None or end not in view.known_mines:
        return None
    if unit.status == "destroyed":
        return f"{unit.id} destroyed by the minefield in {end} (19.2)"
    return f"{unit.id} attacked by the minefield in {end}, survived (19.2)"


def crop_caption(view: TanksView, hl: LastAction | None) -> str:
    """The crop's caption: the scenario, turn and phase, and what the last action did —
    a minefield's attack on the mover (19.2), the last shot's result — not only its arrow."""
    caption = (f"{view.scenario} - turn {view.turn}/{view.last_turn}, {view.phasing}, "
               f"{PHASE_NAMES.get(view.phase, view.phase)}")
    befell = move_outcome(view, hl)
    if befell:
        caption += f" - {befell}"
    if hl and hl.shot:
        caption += f" - last shot: {hl.shot.text}"
    return caption


def _on_map(st: Static, name: str) -> bool:
    try:
        h = Hex.parse(name)
    except ValueError:
        return False
    return 1 <= h.col <= st.columns and 1 <= h.row <= st.rows


#: Set-up zone outlines kept per static layer (a scenario has one or two zones).
ZONES_KEPT = 8


def zone_outline(st: Static, hexes: list[str]) -> Image.Image:
    """The outline of a set-up zone's hexes (each hex's, inset) as a mask of the whole
    picture, made once per zone: the set-up's every picture pastes the side's colour through
    it, where 800 polygons drawn on each picture cost tens of milliseconds. Each hex's is
    drawn as on the picture itself (a wide polygon outline is inked through a mask of its
    own, so the union of the hexes' masks is the same pixels)."""
    key = tuple(hexes)
    mask = st.zones.get(key)
    if mask is None:
        mask = Image.new("1", st.size)
        width = max(2, st.radius // 9)
        reach = math.ceil(st.radius * 0.86) + width + 2
        shapes: dict[Point, Image.Image] = {}
        for h in hexes:
            if not _on_map(st, h):
                continue
            # each hex on a small mask of its own, placed at whole pixels (a wide outline
            # drawn on the whole picture makes three images of its size: 0.1-0.2 ms a hex);
            # hexes whose centres share their fractions of a pixel share their mask
            x, y = centre(st.origin, st.radius, h)
            left, top = math.floor(x) - reach, math.floor(y) - reach
            phase = (x - left, y - top)
            one = shapes.get(phase)
            if one is None:
                one = shapes[phase] = Image.new("1", (2 * reach + 2, 2 * reach + 2))
                ImageDraw.Draw(one).polygon(hex_corners(phase, st.radius * 0.86),
                                            outline=1, width=width)
            mask.paste(1, (left, top), one)
        if len(st.zones) >= ZONES_KEPT:
            st.zones.clear()
        st.zones[key] = mask
    return mask


def _draw_map(canvas: Image.Image, st: Static, view: TanksView, pack: TanksPack,
              hl: LastAction | None, offset: tuple[int, int]) -> None:
    pal = st.palette
    r = st.radius
    dx, dy = offset
    d = ImageDraw.Draw(canvas)

    def at(name: str) -> Point:
        x, y = centre(st.origin, r, name)
        return (x - dx, y - dy)

    # a set-up under way: its side's zone outlined in that side's colour (what is placed
    # there is drawn below as this view may see it: the owner's picture holds its secrets)
    for zone_side, hexes in view.setup_zone.items():
        box = (dx, dy, dx + canvas.width, dy + canvas.height)
        canvas.paste(pal[zone_side], (0, 0, canvas.width, canvas.height),
                     zone_outline(st, hexes).crop(box))
    # mines: revealed ones (``known_mines``, everyone sees them) in the public style; the
    # others in the view are the viewer's own (or the GM's) secrets, in the secret style
    for h, owner in view.mines.items():
        if not _on_map(st, h):
            continue
        secret = view.viewer in (owner, "gm") and h not in view.known_mines
        c = at(h)
        corners = hex_corners(c, r * 0.92)
        colour = pal["mine_secret"] if secret else pal["mine"]
        d.polygon(corners, outline=colour, width=max(2, r // 8))
        tag_key = ("secret", "mines", r) if secret else ("tanks-mines", r)

        def build(secret: bool = secret) -> Image.Image:
            fs = max(7, round(r * 0.36))
            im = Image.new("RGB", (round(r * 1.3), fs + 4),
                           rgb("mine_secret") if secret else rgb("mine"))
            ImageDraw.Draw(im).text((im.width / 2, im.height / 2), "MINES", font=font(fs),
                                    fill=rgb("white"), anchor="mm")
            return im
        tag = st.sprites.get(tag_key, build)
        canvas.paste(tag, (round(c[0] - tag.width / 2), round(c[1] + r * 0.45)))
    # barrage
    barrage = hl.barrage if hl else None
    if barrage is not None:
        for h in barrage.hexes:
            if _on_map(st, h):
                d.polygon(hex_corners(at(h), r * 0.95), outline=pal["attack"], width=2)
    if barrage is not None and barrage.target and _on_map(st, barrage.target):
        c = at(barrage.target)
        rr = r * 0.8
        d.ellipse((c[0] - rr, c[1] - rr, c[0] + rr, c[1] + rr), outline=pal["attack"],
                  width=max(2, r // 7))
        d.line([(c[0] - rr, c[1]), (c[0] + rr, c[1])], fill=pal["attack"], width=1)
        d.line([(c[0], c[1] - rr), (c[0], c[1] + rr)], fill=pal["attack"], width=1)
        weight = (view.marker or {}).get("weight") if view.marker else None
        if weight:
            tag = st.sprites.tag(f"{weight} barrage", max(8, r // 3), fg="white", bg="attack")
            canvas.paste(tag, (round(c[0] - tag.width / 2), round(c[1] - rr - tag.height)))
        if barrage.scatter_to and _on_map(st, barrage.scatter_to):
            arrow(d, [c, at(barrage.scatter_to)], pal["attack"], max(2, r // 8), r * 0.45)
    # units: each hex's stack, fitted inside the hex (see stack_layout)
    for h, shown, carried in _stacks(view):
        if not _on_map(st, h):
            continue
        cx, cy = at(h)
        size, places = stack_layout(r, st.counter, min(len(shown), MAX_SHOWN))
        for u, (ox, oy) in zip(shown[-MAX_SHOWN:], places, strict=True):
            face = unit_face(u, pack, carried.get(u.id, 0))
            sprite = counter_sprite(st.sprites, face, size)
            canvas.paste(sprite, (round(cx + ox - size / 2), round(cy + oy - size / 2)))
            if u.facing and not face.unknown and face.symbol in ("armor", "sp_gun"):
                _pointer(d, (cx + ox, cy + oy), u.facing, size, r,
                         pal["hidden"] if u.hidden else pal["ink"],
                         pal["hidden_fill"] if u.hidden else pal["highlight"])
        if len(shown) > 1:  # how many units the stack holds
            tag = st.sprites.tag(str(len(shown)), max(7, r // 3), bg="highlight")
            canvas.paste(tag, (round(cx + size / 2 - 2), round(cy - size / 2 - tag.height + 4)))
    # last move and last shot on top
    path = [p for p in (hl.move.path if hl and hl.move else ()) if _on_map(st, p)]
    if len(path) >= 2:
        arrow(d, [at(p) for p in path], pal["highlight"], max(2, r // 7), r * 0.5,
              outline=pal["ink"])
    shot = hl.shot if hl else None
    if shot is not None and shot.from_ and _on_map(st, shot.to):
        b = at(shot.to)
        for f in shot.from_:
            if not _on_map(st, f):
                continue
            a = at(f)
            if shot.hit:
                d.line([a, b], fill=pal["white"], width=max(3, r // 6) + 2)
                d.line([a, b], fill=pal["los_hit"], width=max(3, r // 6))
            else:
                dashed_line(d, a, b, pal["los_miss"], max(2, r // 8), r * 0.4, r * 0.25)
            d.ellipse((a[0] - 3, a[1] - 3, a[0] + 3, a[1] + 3), fill=pal["los_hit"])
        if shot.text:
            tag = st.sprites.tag(shot.text, max(9, round(r * 0.45)), fg="white",
                                 bg="los_hit" if shot.hit else "dark_grey", pad=3)
            canvas.paste(tag, (round(b[0] - tag.width / 2), round(b[1] + r * 0.7)))


def _pointer(d: ImageDraw.ImageDraw, c: Point, facing: str, size: int, r: int, ink: int,
             fill: int) -> None:
    try:
        direction = Direction[facing] if facing in Direction.__members__ \
            else Direction(int(facing))
    except (ValueError, KeyError):
        return
    ang = FACING_ANGLE[direction]
    inner = size * 0.5
    outer = r * 0.86
    tip = (c[0] + outer * math.cos(ang), c[1] + outer * math.sin(ang))
    half = 0.32
    left = (c[0] + inner * math.cos(ang - half), c[1] + inner * math.sin(ang - half))
    right = (c[0] + inner * math.cos(ang + half), c[1] + inner * math.sin(ang + half))
    d.polygon([tip, left, right], fill=fill, outline=ink)


def _draw_panel(canvas: Image.Image, st: Static, view: TanksView) -> None:
    sprites = st.sprites
    fs = st.panel["fs"]
    x, y = st.panel["status_at"]
    d = ImageDraw.Draw(canvas)
    pal = st.palette
    title = sprites.tag(view.scenario.replace("-", " ").title(), fs + 5, bg="panel",
                        border=None, pad=0)
    canvas.paste(title, (x, y))
    y += title.height + 8
    lines: list[tuple[str, str]] = [
        (f"Turn {view.turn} of {view.last_turn}", "panel"),
        (f"{view.phasing.capitalize()} player turn", view.phasing),
        (PHASE_NAMES.get(view.phase, view.phase), "panel"),
    ]
    acting = view.pending.side if view.pending else view.to_act
    if acting:
        lines.append((f"{acting.capitalize()} to act"
                      + (f" (decision: {view.pending.kind})" if view.pending else ""), acting))
    for side in SIDES:
        gone = [u for u in view.units if u.side == side and u.status == "destroyed"]
        out = [u for u in view.units if u.side == side and u.status == "exited"]
        lines.append((f"{side.capitalize()}: {len(gone)} destroyed, {len(out)} exited", side))
        if gone:
            labels = ", ".join(sorted(u.label for u in gone))
            lines.append((f"  lost: {labels}"[:46], "panel"))
    for zone_side, hexes in view.setup_zone.items():
        lines.append((f"{zone_side.capitalize()} sets up: {len(hexes)} hexes outlined", zone_side))
        placed = [u for u in view.units if u.side == zone_side and u.status == "on"]
        if placed:
            hidden = sum(1 for u in placed if u.hidden)
            lines.append((f"  placed: {len(placed)}" + (f" ({hidden} hidden)" if hidden else ""),
                          "panel"))
    if view.marker:
        lines.append((f"Barrage marker: {view.marker.get('hex')} "
                      f"({view.marker.get('weight')})", "attack"))
    if view.result:
        lines.append((f"Result: {view.result}", "attack"))
    chip = fs
    for text, colour in lines:
        if colour != "panel":
            d.rectangle((x, y + 1, x + chip, y + chip), fill=pal[colour], outline=pal["ink"])
        tag = sprites.tag(text, fs, bg="panel", border=None, pad=0)
        canvas.paste(tag, (x + chip + 6, y))
        y += fs + 6
    # the viewer badge, in its own box (tests allow it to differ between viewers)
    vx0, vy0, _vx1, vy1 = st.viewer_box
    who = {"public": "Public view", "gm": "GM view (all secrets)"}.get(
        view.viewer, f"{view.viewer.capitalize()} view (private)")
    tag = sprites.tag(who, fs, fg="white", bg="dark_grey", border=None, pad=3)
    canvas.paste(tag, (vx0, vy0 + (vy1 - vy0 - tag.height) // 2))


#: At most this many counters of a stack are drawn (the top ones); the badge counts them all.
MAX_SHOWN = 3


def _stacks(view: TanksView) -> list[tuple[str, list[UnitView], dict[str, int]]]:
    """Each hex's units on the map, bottom first (passengers aboard a carrier in the hex are
    not drawn: the carrier shows "+n"), with the passengers per carrier."""
    by_hex: dict[str, list[UnitView]] = {}
    for u in view.units:
        if u.status == "on" and u.hex:
            by_hex.setdefault(u.hex, []).append(u)
    out = []
    for h in sorted(by_hex):
        units = by_hex[h]
        ids = {u.id for u in units}
        carried: dict[str, int] = {}
        for u in units:
            if u.carrier:
                carried[u.carrier] = carried.get(u.carrier, 0) + 1
        shown = sorted((u for u in units if not (u.carrier and u.carrier in ids)),
                       key=lambda u: (u.hidden, u.id))
        out.append((h, shown, carried))
    return out


@lru_cache(maxsize=64)
def stack_layout(radius: int, counter: int, count: int) -> tuple[int, tuple[Point, ...]]:
    """The counter size and the offsets from the hex centre of a stack of ``count`` counters,
    each a little up and to the right of the one below, every corner inside the hex.

    The largest size (up to ``counter``) at which the stack fits, with steps of about an
    eighth of a counter."""
    centre = (0.0, 0.0)
    hexagon = hex_corners(centre, radius)
    drop = radius * 0.08  # counters sit a little low, under the hex number
    for size in range(counter, max(8, counter // 2) - 1, -1):
        step = max(2.0, size / 8) if count > 1 else 0.0
        places = tuple(((i - (count - 1) / 2) * step, drop - (i - (count - 1) / 2) * step)
                       for i in range(count))
        if all(point_in_polygon(x, y, hexagon)
               for ox, oy in places
               for x, y in _corners(ox, oy, size)):
            return size, places
    size = max(8, counter // 2)
    return size, tuple((0.0, drop) for _ in range(count))


def _corners(ox: float, oy: float, size: int) -> list[Point]:
    """The outermost a counter's corner pixels' centres can be, whatever the rounding of its
    top-left corner (pixel centres lie half a pixel in; rounding moves them half a pixel)."""
    h = size / 2
    return [(ox - h, oy - h), (ox + h, oy - h), (ox - h, oy + h), (ox + h, oy + h)]


def counter_boxes(view: TanksView, pack: TanksPack, radius: int = DEFAULT_RADIUS
                  ) -> dict[str, tuple[Point, int]]:
    """Each drawn unit's counter centre and size in the full picture (for tests)."""
    st = build_static(pack, radius)
    out: dict[str, tuple[Point, int]] = {}
    for h, shown, _ in _stacks(view):
        cx, cy = centre(st.origin, radius, h)
        size, places = stack_layout(radius, st.counter, min(len(shown), MAX_SHOWN))
        for u, (ox, oy) in zip(shown[-MAX_SHOWN:], places, strict=True):
            out[u.id] = ((round(cx + ox - size / 2) + size / 2,
                          round(cy + oy - size / 2) + size / 2), size)
    return out
