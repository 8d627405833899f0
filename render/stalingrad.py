"""Turning Point: Stalingrad pictures: a :class:`StalingradView` plus the data pack -> PNG.

Layout (``scale`` pixels per inch of the physical board, default 40):

* left, the panel: the Zones box (symbolic, its links drawn, each Zone's entrance arrows
  listed), the date and Turn Record Track, the Day/Night Impulse Track, Advantage, Victory
  Points, the Front Artillery Group strength, reinforcements and losses, and the legend;
* right, the board: Area polygons tinted by Control, Area ID shapes in their setup colour
  with the Area number and the TEM, Victory Point Area names in red, Ferry Landings and
  supply symbols, the Volga and the east bank with the FAG boxes and the Russian
  reinforcements waiting there, Quadrant lines, Zone entrance tabs on the frame;
* dynamic: Control, Rubble 1/2, Contested Areas, counters (grouped Fresh/Spent per side,
  with a count when an Area cannot hold them all), and the last action: movement arrows,
  the attacked Area with its result ("15:12 — 3 CP"), retreats.

The last action is the View's ``last_action`` (the kernel's last-action record, as far as
the viewer may see it: :mod:`adjudicator.stalingrad.last_action`).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from PIL import Image, ImageChops, ImageDraw

from adjudicator.kernel.memo import Memo
from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.data_models import StalingradPack
from adjudicator.stalingrad.views import (
    EAST,
    OFFBOARD,
    POOL,
    SIDES,
    LastAction,
    StalingradView,
    UnitView,
)
from render import static_cache
from render.common import (
    Palette,
    SpriteCache,
    arrow,
    blend,
    centroid,
    distance_to_polygon_edge,
    encode_png,
    font,
    plain,
    point_in_polygon,
    rgb,
    text_size,
    wrap,
)
from render.counters import TPS_KIND_SYMBOL, TPS_SYMBOL, draw_symbol

DEFAULT_SCALE = 64
#: The smallest text on a picture posted at its default size (counters, names, panel).
MIN_TEXT = 11
CROP_SCALE = 72
#: The zoomed picture's size in pixels (a Discord preview shows about this much).
CROP_SIZE = (640, 720)
FIRST_DATE = _dt.date(1942, 9, 13)
Point = tuple[float, float]


# ---- the last action ----------------------------------------------------------------------


def _attacks(hl: LastAction | None) -> list[tuple[str, str | None]]:
    """(Area or Zone, result — or the odds before the dice) of every attack of the last
    impulse, the last one last."""
    return [(a.area, a.text or a.odds or None) for a in hl.attacks] if hl else []


def _last_attack(hl: LastAction | None) -> tuple[str | None, str | None]:
    attacks = _attacks(hl)
    return attacks[-1] if attacks else (None, None)


def _moves(hl: LastAction | None) -> list[list[str]]:
    """The path of every group that moved: start, every Area or Zone entered, end (``east``
    for a landing, ``offboard`` for German reinforcements)."""
    return [list(m.path) for m in hl.moves if len(m.path) >= 2] if hl else []


def _retreats(hl: LastAction | None) -> list[list[str]]:
    """The path of each retreating (or Routed) group, Area by Area."""
    return [list(r.path) for r in hl.retreats if len(r.path) >= 2] if hl else []


def _lost_crossings(hl: LastAction | None) -> list[tuple[str, str]]:
    """(landing, outcome) of the Volga crossings that did not land."""
    return [(c.area, c.outcome) for c in hl.crossings if c.kind == "cross"
            and c.outcome in ("returned", "eliminated")] if hl else []


def _touched(hl: LastAction | None) -> set[str]:
    """Every Area and Zone the last action touched."""
    out = {a for path in _moves(hl) + _retreats(hl) for a in path}
    out |= {a for a, _ in _attacks(hl)} | {a for a, _ in _lost_crossings(hl)}
    if hl and hl.origin:
        out.add(hl.origin)
    return out


# ---- static layer -------------------------------------------------------------------------


@dataclass
class SpaceGeo:
    key: str
    polygon: list[Point]  # pixels
    bbox: tuple[int, int, int, int]
    mask: Image.Image | None
    label: Point  # pixel centre of the ID
    slots: list[Point]  # counter centres, nearest the middle first
    counter: int  # counter size here (smaller in the narrowest Areas)
    tag_at: Point  # where Rubble / Contested tags go
    centre: Point
    patch: Image.Image | None = None  # the Area as drawn German-controlled (bbox crop)


@dataclass
class Static:
    scale: int
    size: tuple[int, int]
    palette: Palette
    sprites: SpriteCache
    bases: dict[str, Image.Image]  # control side -> board with that tint everywhere
    spaces: dict[str, SpaceGeo]
    zone_cells: dict[str, tuple[int, int, int, int]]
    zone_slots: dict[str, list[Point]]
    panel: dict[str, Any]
    counter: int
    origin: Point
    map_box: tuple[int, int, int, int]
    # Zones on the board's frame: the entrance tab of each (Zone, Area) pair, one anchor per
    # Zone (where a path through it is drawn when no Area of its arrows is next), and the
    # side of the frame it lies on ("left", "right", "top", "bottom")
    zone_tabs: dict[str, dict[str, Point]] = field(default_factory=dict)
    zone_anchor: dict[str, Point] = field(default_factory=dict)
    zone_side: dict[str, str] = field(default_factory=dict)
    #: Every text of the static layer with its box (names, IDs, quadrants ...): counters
    #: never cover one (:func:`_best_grid` avoids them), and tests check none is clipped.
    labels: list[Label] = field(default_factory=list)


def _geometry(pack: StalingradPack, scale: int) -> dict[str, Any]:
    s = scale
    margin = round(0.55 * s)
    panel_w = round(7.6 * s)
    ox = panel_w + margin
    oy = margin
    width = ox + round(pack.board.width * s) + margin
    height = oy + round(pack.board.height * s) + margin
    return {"margin": margin, "panel_w": panel_w, "ox": ox, "oy": oy,
            "size": (width, height)}


Box = tuple[float, float, float, float]


def _overlaps(a: Box, b: Box, gap: float = 0.0) -> bool:
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def _erode(mask: Image.Image, k: int) -> Image.Image:
    """``mask`` eroded by a (2k+1)-pixel square: a pixel stays set only when every pixel
    within ``k`` of it (Chebyshev distance) is set. Minimums of shifted copies, doubling
    the window each time; the mask's border must be clear by ``k`` pixels."""
    for dx, dy in ((1, 0), (0, 1)):
        width, out = 1, mask
        while width * 2 <= 2 * k + 1:
            out = ImageChops.darker(out, ImageChops.offset(out, -width * dx, -width * dy))
            width *= 2
        rest = 2 * k + 1 - width
        if rest:
            out = ImageChops.darker(out, ImageChops.offset(out, -rest * dx, -rest * dy))
        mask = ImageChops.offset(out, k * dx, k * dy)
    return mask


def _grid_options(poly: Sequence[Point], counter: int, avoid: Sequence[Box], fine: int = 4
                  ) -> list[list[Point]]:
    """Counter centres fully inside ``poly`` (by a pixel) and clear of ``avoid``, for each
    of ``fine`` x ``fine`` grid offsets (a counter's pitch is its size plus one pixel).

    The polygon is rasterised and eroded by half a counter with a square kernel (repeated
    3x3 minimum filters), so a pixel left is exactly a centre whose counter lies inside."""
    pitch = counter + 1
    half = counter / 2
    k = math.ceil(half) + 1
    x0 = math.floor(min(p[0] for p in poly)) - k - 2
    y0 = math.floor(min(p[1] for p in poly)) - k - 2
    x1 = math.ceil(max(p[0] for p in poly)) + k + 2
    y1 = math.ceil(max(p[1] for p in poly)) + k + 2
    mask = Image.new("L", (x1 - x0, y1 - y0), 0)
    ImageDraw.Draw(mask).polygon([(x - x0, y - y0) for x, y in poly], fill=255)
    inside = _erode(mask, k).load()
    assert inside is not None
    options: list[list[Point]] = []
    steps = [i / fine for i in range(fine)]
    for fx in steps:
        for fy in steps:
            found: list[Point] = []
            y = y0 + half + 2 + fy * pitch
            while y <= y1 - half - 2:
                x = x0 + half + 2 + fx * pitch
                while x <= x1 - half - 2:
                    if inside[round(x - x0), round(y - y0)] and not any(
                            _overlaps((x - half, y - half, x + half, y + half), b)
                            for b in avoid):
                        found.append((x, y))
                    x += pitch
                y += pitch
            options.append(found)
    return options


def _best_grid(options: Sequence[Sequence[Point]], counter: int, avoid: Sequence[Box],
               centre: Point) -> list[Point]:
    """The offset keeping most counter centres clear of ``avoid``, nearest ``centre``
    first."""
    half = counter / 2
    best: list[Point] = []
    for found in options:
        kept = [p for p in found
                if not any(_overlaps((p[0] - half, p[1] - half, p[0] + half, p[1] + half), box)
                           for box in avoid)]
        if len(kept) > len(best):
            best = kept
    return sorted(best, key=lambda p: (p[0] - centre[0]) ** 2 + (p[1] - centre[1]) ** 2)


def _grid(poly: Sequence[Point], counter: int, avoid: Sequence[Box], centre: Point
          ) -> list[Point]:
    return _best_grid(_grid_options(poly, counter, avoid), counter, (), centre)


def _fits(x: float, y: float, half: float, poly: Sequence[Point], avoid: Sequence[Box]
          ) -> bool:
    x0, y0, x1, y1 = x - half, y - half, x + half, y + half
    for ax0, ay0, ax1, ay1 in avoid:
        if x0 < ax1 and ax0 < x1 and y0 < ay1 and ay0 < y1:
            return False
    if not point_in_polygon(x, y, poly):
        return False
    for cx, cy in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
        if not point_in_polygon(cx, cy, poly):
            return False
    if distance_to_polygon_edge(x, y, poly) < half + 0.5:
        return False
    return all(not (x0 < px < x1 and y0 < py < y1) for px, py in poly)


def _box_inside(box: Box, poly: Sequence[Point], margin: float = 1.5) -> bool:
    """Whether ``box`` lies inside ``poly`` (corners inside, no vertex within, clear of the
    border by ``margin``)."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    corners = ((x0, y0), (x1, y0), (x0, y1), (x1, y1), (cx, y0), (cx, y1), (x0, cy), (x1, cy))
    if not all(point_in_polygon(x, y, poly) for x, y in corners):
        return False
    if any(distance_to_polygon_edge(x, y, poly) < margin for x, y in corners):
        return False
    return all(not (x0 < px < x1 and y0 < py < y1) for px, py in poly)


@dataclass(frozen=True)
class Label:
    """A text drawn on the static layer, with the box it covers (for placement and tests):
    ``kind`` is "area-name", "area-id", "tem", "quadrant", "zone-name", "panel"...; a
    label's ``container`` is the box or polygon it must stay inside (None: the picture)."""

    kind: str
    key: str
    text: str
    box: Box
    size: int
    container: tuple[Point, ...] | None = None


@dataclass
class AreaLabels:
    """Where an Area's printed marks go: the ID shape, the TEM disc, the icons, the name."""

    id_box: Box
    tem: Point
    icons: list[tuple[str, Point]]
    icon_boxes: list[Box]
    name: list[tuple[str, Point]]  # (line, centre)
    name_box: Box | None
    at: Point = (0.0, 0.0)  # the ID's centre
    name_size: int = 0  # the name's font size (smaller in a cramped Area)

    @property
    def boxes(self) -> list[Box]:
        return [self.id_box, *self.icon_boxes, *([self.name_box] if self.name_box else [])]


#: An Area with room for fewer counters than this beside its printed marks has its ID moved
#: (and its name placed) where more counters fit.
ENOUGH_SLOTS = 4


def _marks_at(area: Any, lx: float, ly: float, id_r: float, fs_small: int
              ) -> tuple[Box, Point, list[tuple[str, Point]], list[Box]]:
    """The ID shape's box with the TEM disc on its lower right, and the icons in a row to
    its upper left, for an ID centred on (lx, ly)."""
    tr = max(4, fs_small * 0.55)
    tem = (lx + id_r * 1.05, ly + id_r * 0.55)
    id_box = (lx - id_r * 1.25, ly - id_r * 1.3, max(lx + id_r * 1.25, tem[0] + tr),
              max(ly + id_r * 1.25, tem[1] + tr))
    kinds = []
    if area.ferry_landing:
        kinds.append("ferry")
    if area.supply != "none":
        kinds.append(f"supply_{area.supply}")
    if area.rubble_symbol:
        kinds.append("rubble_symbol")
    if area.vp:
        kinds.append(f"vp{area.vp}")
    icons: list[tuple[str, Point]] = []
    icon_boxes: list[Box] = []
    r = fs_small * 0.6
    ix = lx - id_r * 1.2
    iy = ly - id_r * 1.05
    for kind in kinds:
        icons.append((kind, (ix, iy)))
        icon_boxes.append((ix - r - 1, iy - r - 1, ix + r + 1, iy + r + 1))
        ix -= fs_small * 1.35
    return id_box, tem, icons, icon_boxes


def _tag_box(id_box: Box, fs_tag: int) -> Box:
    """Room right of the ID's top for the dynamic tags: Rubble ("R2") and Contested
    ("X"), so they never cover a name or a counter."""
    w = text_size("R2", fs_tag)[0] + text_size("X", fs_tag)[0] + 14
    h = fs_tag + 6
    return (id_box[2] + 1, id_box[1] - 2, id_box[2] + 1 + w, id_box[1] - 2 + h)


def _area_labels(area: Any, poly: list[Point], at: Point, id_r: float, fs_small: int,
                 fs_name: int, counter: int, taken: Sequence[Box], frame: Box,
                 neighbours: Sequence[Sequence[Point]] = ()
                 ) -> tuple[AreaLabels, list[list[Point]]]:
    """Place an Area's printed marks where counters have the most room.

    The ID shape goes at the pack's label point, with the TEM disc on its lower right and
    the icons in a row to its upper left; the name where it fits inside the Area and
    leaves room for the most counters (below the ID, above it, beside it). When that leaves
    room for fewer than :data:`ENOUGH_SLOTS` counters, the ID moves inside the Area and the
    name may lie beyond it (over water or a roomier neighbour) — never over another
    Area's marks (``taken``) nor off the board (``frame``).
    Returns the layout and the counter grid options (before any label is avoided)."""
    xs = [p[0] for p in poly]
    # small Areas: a finer choice of grid offsets finds room the coarse one misses
    small = (max(xs) - min(xs)) * (max(p[1] for p in poly) - min(p[1] for p in poly)) \
        < 30 * counter * counter
    found = _grid_options(poly, counter, [], 7 if small else 4)
    ys = [p[1] for p in poly]
    centre = centroid(poly)
    # (score, layout)
    best: tuple[tuple[Any, ...], AreaLabels] | None = None

    def consider(lx: float, ly: float, moved: bool) -> None:
        nonlocal best
        id_box, tem, icons, icon_boxes = _marks_at(area, lx, ly, id_r, fs_small)
        icon_boxes = [*icon_boxes, _tag_box(id_box, fs_small)]
        if moved and not all(_box_inside(b, poly, 1) for b in (id_box, *icon_boxes)):
            return
        fixed = [id_box, *icon_boxes]
        move_cost = -round(math.hypot(lx - at[0], ly - at[1]))
        if not area.name:
            room = len(_best_grid(found, counter, fixed, centre))
            score: tuple[int, bool, int, int, int] = (min(room, ENOUGH_SLOTS), True, move_cost,
                                                      0, 0)
            if best is None or score > best[0]:
                best = (score, AreaLabels(id_box, tem, icons, icon_boxes, [], None, (lx, ly)))
            return
        left_edge = min(b[0] for b in fixed)
        top_edge = min(b[1] for b in fixed)
        preference = 0
        sizes = (fs_name, max(MIN_TEXT, fs_name - 3)) if fs_name > MIN_TEXT else (fs_name,)
        for size, lines in [(fs, lines) for fs in sizes
                            for lines in _name_options(area.name, fs)]:
            lh = size + 3
            w = max(text_size(line, size)[0] for line in lines)
            h = len(lines) * lh
            spots = [(lx - w / 2, id_box[3] + 1), (lx - w / 2 - w / 3, id_box[3] + 1),
                     (lx - w / 2 + w / 3, id_box[3] + 1), (lx - w / 2, top_edge - 1 - h),
                     (id_box[2] + 2, ly - h / 2), (left_edge - 2 - w, ly - h / 2)]
            if moved:  # beyond the Area, beside it
                spots += [(max(xs) + 3, ly - h / 2), (min(xs) - 3 - w, ly - h / 2)]
            for x, y in spots:
                preference -= 1
                box = (x - 1, y - 1, x + w + 1, y + h + 1)
                if any(_overlaps(box, b) for b in icon_boxes):
                    continue
                inside = _box_inside(box, poly)
                if not inside and (
                        any(_overlaps(box, b) for b in taken)
                        or not (frame[0] <= box[0] and box[2] <= frame[2]
                                and frame[1] <= box[1] and box[3] <= frame[3])
                        or _over_others(box, poly, neighbours)):
                    continue  # beyond its Area only over water, never over another Area
                room = len(_best_grid(found, counter, [*fixed, box], centre))
                score = (min(room, ENOUGH_SLOTS), inside, move_cost, preference,
                         -_outside(box, poly))
                if best is None or score > best[0]:
                    centres = [(x + w / 2, y + i * lh + lh / 2) for i in range(len(lines))]
                    best = (score, AreaLabels(id_box, tem, icons, icon_boxes,
                                              list(zip(lines, centres, strict=True)), box,
                                              (lx, ly), size))

    consider(at[0], at[1], False)
    for steps in (5, 11):  # a coarse search, then a fine one for the most cramped Areas
        if best is not None and best[0][0] >= (ENOUGH_SLOTS if steps == 5 else 2):
            break
        for i in range(steps):
            for j in range(steps):
                consider(min(xs) + (0.1 + 0.8 * i / (steps - 1)) * (max(xs) - min(xs)),
                         min(ys) + (0.1 + 0.8 * j / (steps - 1)) * (max(ys) - min(ys)), True)
    if best is None:  # no name spot clear of the others: the ID alone, the name under it
        id_box, tem, icons, icon_boxes = _marks_at(area, at[0], at[1], id_r, fs_small)
        w, h = text_size(area.name, fs_name)
        box = (at[0] - w / 2 - 1, id_box[3], at[0] + w / 2 + 1, id_box[3] + h + 5)
        best = ((), AreaLabels(id_box, tem, icons, icon_boxes,
                               [(area.name, (at[0], (box[1] + box[3]) / 2))], box, at,
                               fs_name))
    return best[1], found


def _over_others(box: Box, poly: Sequence[Point], others: Sequence[Sequence[Point]]
                 ) -> bool:
    """Whether any of 15 points spread over ``box`` outside ``poly`` lies in one of
    ``others`` (the other Areas)."""
    x0, y0, x1, y1 = box
    points = [(x0 + (x1 - x0) * i / 4, y0 + (y1 - y0) * j / 2) for i in range(5)
              for j in range(3)]
    near = [other for other in others
            if min(p[0] for p in other) <= x1 and x0 <= max(p[0] for p in other)
            and min(p[1] for p in other) <= y1 and y0 <= max(p[1] for p in other)]
    return any(not point_in_polygon(x, y, poly) and any(point_in_polygon(x, y, other)
                                                        for other in near)
               for x, y in points)


def _outside(box: Box, poly: Sequence[Point]) -> int:
    """How many of 15 points spread over ``box`` lie outside ``poly``."""
    x0, y0, x1, y1 = box
    return sum(not point_in_polygon(x0 + (x1 - x0) * i / 4, y0 + (y1 - y0) * j / 2, poly)
               for i in range(5) for j in range(3))


def _name_options(name: str, size: int) -> list[list[str]]:
    """An Area name on one line, split in two at its most even word break, and (three or
    more words) in three lines."""
    words = name.split()

    def width(lines: list[str]) -> int:
        return max(text_size(line, size)[0] for line in lines)

    out = [[name]]
    if len(words) >= 2:
        out.append(min(([" ".join(words[:i]), " ".join(words[i:])]
                        for i in range(1, len(words))), key=width))
    if len(words) >= 3:
        out.append(min(([" ".join(words[:i]), " ".join(words[i:j]), " ".join(words[j:])]
                        for i in range(1, len(words) - 1) for j in range(i + 1, len(words))),
                       key=width))
    return out


def _name_lines(name: str, size: int, room: float) -> list[str]:
    """An Area name on one line, or two when it is wider than its Area."""
    words = name.split()
    if text_size(name, size)[0] <= room or len(words) < 2:
        return [name]
    best = [name]
    best_w = math.inf
    for i in range(1, len(words)):
        lines = [" ".join(words[:i]), " ".join(words[i:])]
        w = max(text_size(line, size)[0] for line in lines)
        if w < best_w:
            best, best_w = lines, w
    return best


def _id_shape(draw: ImageDraw.ImageDraw, shape: str, cx: float, cy: float, r: float,
              fill: tuple[int, int, int], outline: tuple[int, int, int], width: int) -> None:
    if shape == "square":
        draw.rectangle((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=outline, width=width)
    elif shape == "triangle":
        pts = [(cx, cy - r * 1.25), (cx + r * 1.2, cy + r * 0.85), (cx - r * 1.2, cy + r * 0.85)]
        draw.polygon(pts, fill=fill, outline=outline, width=width)
    else:
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=outline, width=width)


def _setup_colour(name: str) -> tuple[int, int, int]:
    key = f"setup_{name}"
    try:
        return rgb(key)
    except KeyError:
        return rgb("setup_white")


def _zone_ring(letters: list[str], pack: StalingradPack) -> dict[str, tuple[int, int]]:
    """Grid cells (col, row) of a 3x3 ring, Zones placed clockwise from the north-west."""
    cx, cy = pack.board.width / 2, pack.board.height / 2

    def angle(letter: str) -> float:
        x, y = centroid(pack.zones[letter].polygon)
        # clockwise from north-west: atan2 with y pointing south
        return (math.degrees(math.atan2(y - cy, x - cx)) + 360 + 135 - 0.01) % 360

    ring = [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2), (1, 2), (0, 2), (0, 1)]
    ordered = sorted(letters, key=angle)
    if len(ordered) <= len(ring):
        return {z: ring[i] for i, z in enumerate(ordered)}
    cols = 3
    return {z: (i % cols, 3 + i // cols) for i, z in enumerate(ordered)}


def build_static(pack: StalingradPack, scale: int = DEFAULT_SCALE) -> Static:
    return static_cache.cached(("stalingrad", pack.hash, scale),
                               lambda: _build_static(pack, scale))


def prepare(pack: StalingradPack) -> None:
    """Build the static layers of both pictures the frontends post (the whole map and the
    zoom on the last action) ahead of the first one (a frontend calls it at start-up)."""
    build_static(pack, DEFAULT_SCALE)
    build_static(pack, CROP_SCALE)
    _pack_units(pack)


def _build_static(pack: StalingradPack, scale: int) -> Static:
    g = _geometry(pack, scale)
    s = scale
    ox, oy = g["ox"], g["oy"]
    width, height = g["size"]
    counter = counter_size(s)

    def px(p: Point) -> Point:
        return (ox + p[0] * s, oy + p[1] * s)

    id_r = max(6.0, 0.27 * s)
    fs_id = max(8, round(0.3 * s))
    fs_name = max(7, round(0.215 * s))
    fs_small = max(7, round(0.2 * s))

    spaces: dict[str, SpaceGeo] = {}
    layouts: dict[str, AreaLabels] = {}
    options: dict[str, list[list[Point]]] = {}
    frame = (ox + 2.0, oy + 2.0, ox + pack.board.width * s - 2, oy + pack.board.height * s - 2)
    # the printed marks at the pack's points, which other Areas' names keep clear of
    taken: dict[str, list[Box]] = {}
    for area in pack.areas.values():
        id_box, _, _, icon_boxes = _marks_at(area, *px(area.label), id_r, fs_small)
        taken[area.key] = [id_box, *icon_boxes]
    # roomy Areas first, so a cramped one's name keeps clear of its neighbours' marks
    def room(area: Any) -> float:
        xs, ys = [p[0] for p in area.polygon], [p[1] for p in area.polygon]
        return -float((max(xs) - min(xs)) * (max(ys) - min(ys)))

    for area in sorted(pack.areas.values(), key=room):
        poly = [px(p) for p in area.polygon]
        others = [b for k, boxes in taken.items() if k != area.key for b in boxes]
        near = [[px(p) for p in a.polygon] for a in pack.areas.values()
                if a.key != area.key]
        layout, found = _area_labels(area, poly, px(area.label), id_r, fs_small, fs_name,
                                     counter, others, frame, near)
        layouts[area.key] = layout
        taken[area.key] = layout.boxes
        options[area.key] = found
        xs = [int(p[0]) for p in poly]
        ys = [int(p[1]) for p in poly]
        bbox = (min(xs) - 2, min(ys) - 2, max(xs) + 3, max(ys) + 3)
        mask = Image.new("1", (bbox[2] - bbox[0], bbox[3] - bbox[1]), 0)
        ImageDraw.Draw(mask).polygon([(x - bbox[0], y - bbox[1]) for x, y in poly], fill=1,
                                     outline=1)
        lx, ly = layout.at
        tag = _tag_box(layout.id_box, fs_small)
        spaces[area.key] = SpaceGeo(area.key, poly, bbox, mask, (lx, ly), [], counter,
                                    (tag[0], tag[1]), centroid(poly))
    labels: list[Label] = []
    for area in pack.areas.values():
        layout = layouts[area.key]
        poly_t = tuple(spaces[area.key].polygon)
        labels.append(Label("area-id", area.key, str(area.number), layout.id_box, fs_id))
        for line, (cx, cy) in layout.name:
            w, h = text_size(line, layout.name_size)
            labels.append(Label("area-name", area.key, line,
                                (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2),
                                layout.name_size, poly_t))
    # Quadrant names just under their line, where no Area's marks are
    quadrant_labels: list[tuple[str, Point]] = []
    marks = [box for layout in layouts.values() for box in layout.boxes]
    board_right = ox + pack.board.width * s
    for quad in pack.quadrants:
        top_y = oy + min(p[1] for p in quad.polygon) * s
        text = quad.name.upper()
        w, h = text_size(text, fs_small)
        x = ox + 0.08 * s
        while x + w < board_right:
            box = (x - 1, top_y + 0.06 * s - 1, x + w + 1, top_y + 0.06 * s + h + 3)
            if not any(_overlaps(box, m, 2) for m in marks):
                break
            x += 0.25 * s
        quadrant_labels.append((text, (x, top_y + 0.06 * s)))
        labels.append(Label("quadrant", quad.name, text, box, fs_small))
    avoid_all = [label.box for label in labels]
    avoid_all += [b for layout in layouts.values() for b in layout.icon_boxes]
    for area in pack.areas.values():
        geo = spaces[area.key]
        geo.slots = _best_grid(options[area.key], counter,
                               [b for b in avoid_all if _overlaps(b, geo.bbox)], geo.centre)

    # the east bank holds the FAG boxes and the Russian reinforcements waiting to cross
    bank = [px(p) for p in pack.east_bank.polygon]
    fag_boxes: list[tuple[float, float, float, float]] = []
    for fag_box in pack.fag_boxes:
        bx, by = px(fag_box.label)
        fw = 0.9 * s
        fag_boxes.append((bx - fw, by - 0.75 * s, bx + fw, by + 0.75 * s))
    bank_centre = centroid(bank)
    bank_slots = _grid(bank, counter, fag_boxes, bank_centre)
    bank_slots.sort(key=lambda p: (p[1], p[0]))
    xs = [int(p[0]) for p in bank]
    ys = [int(p[1]) for p in bank]
    spaces[EAST] = SpaceGeo(EAST, bank, (min(xs), min(ys), max(xs), max(ys)), None,
                            bank_centre, bank_slots, counter, bank_centre, bank_centre)

    # panel: zones box
    pw = g["panel_w"]
    pad = round(0.2 * s)
    cell_w = (pw - 2 * pad - 2 * round(0.15 * s)) // 3
    cell_h = round(2.3 * s)
    gap = round(0.15 * s)
    zone_top = pad + round(0.5 * s)
    ring = _zone_ring(sorted(pack.zones), pack)
    zone_cells: dict[str, tuple[int, int, int, int]] = {}
    for letter, (col, row) in ring.items():
        x0 = pad + col * (cell_w + gap)
        y0 = zone_top + row * (cell_h + gap)
        zone_cells[letter] = (x0, y0, x0 + cell_w, y0 + cell_h)
    zone_bottom = max(c[3] for c in zone_cells.values())
    zone_slots: dict[str, list[Point]] = {}
    zc = counter
    for letter, (x0, y0, x1, y1) in zone_cells.items():
        top = y0 + round(0.95 * s)
        pts = []
        y = top + zc / 2
        while y + zc / 2 <= y1 - 3:
            x = x0 + 3 + zc / 2
            while x + zc / 2 <= x1 - 3:
                pts.append((x, y))
                x += zc + 2
            y += zc + 2
        zone_slots[letter] = pts

    panel: dict[str, Any] = {"pad": pad, "zone_bottom": zone_bottom, "zone_counter": zc,
                             "width": pw,
                             "fs_small": fs_small, "fag_boxes": fag_boxes}

    # Zones on the frame: entrance tabs, anchors, sides
    frame = (ox, oy, ox + pack.board.width * s, oy + pack.board.height * s)
    tab_r = max(6, fs_small * 0.75)
    zone_tabs: dict[str, dict[str, Point]] = {}
    zone_anchor: dict[str, Point] = {}
    zone_side: dict[str, str] = {}
    board_centre = ((frame[0] + frame[2]) / 2, (frame[1] + frame[3]) / 2)
    for zone in pack.zones.values():
        zx, zy = px(centroid(zone.polygon))
        tabs: dict[str, Point] = {}
        for number in zone.arrows:
            if number not in pack.areas:
                continue
            ax, ay = px(pack.areas[number].label)
            tx, ty = _frame_hit((ax, ay), (zx, zy), frame)
            ang = math.atan2(ay - ty, ax - tx)
            tabs[str(number)] = (tx - math.cos(ang) * tab_r * 1.2,
                                 ty - math.sin(ang) * tab_r * 1.2)
        zone_tabs[zone.letter] = tabs
        if tabs:
            mx = sum(p[0] for p in tabs.values()) / len(tabs)
            my = sum(p[1] for p in tabs.values()) / len(tabs)
            anchor = min(tabs.values(), key=lambda p: (p[0] - mx) ** 2 + (p[1] - my) ** 2)
        else:
            tx, ty = _frame_hit(board_centre, (zx, zy), frame)
            ang = math.atan2(zy - board_centre[1], zx - board_centre[0])
            anchor = (tx + math.cos(ang) * tab_r * 1.2, ty + math.sin(ang) * tab_r * 1.2)
        zone_anchor[zone.letter] = anchor
        ax, ay = anchor
        out = {"left": frame[0] - ax, "right": ax - frame[2], "top": frame[1] - ay,
               "bottom": ay - frame[3]}
        zone_side[zone.letter] = max(out, key=lambda k: out[k])

    # ---- draw the two tinted boards in RGB
    bases_rgb: dict[str, Image.Image] = {}
    for side in SIDES:
        im = Image.new("RGB", (width, height), rgb("paper"))
        d = ImageDraw.Draw(im)
        d.rectangle((0, 0, pw, height), fill=rgb("panel"))
        d.line([(pw, 0), (pw, height)], fill=rgb("dark_grey"), width=2)
        d.polygon([px(p) for p in pack.volga.polygon], fill=rgb("water"))
        d.polygon(bank, fill=rgb("east_bank"), outline=rgb("dark_grey"))
        tint = rgb(f"{side}_tint")
        for geo in spaces.values():
            if geo.key == EAST:
                continue
            d.polygon(geo.polygon, fill=tint)
        for geo in spaces.values():
            if geo.key == EAST:
                continue
            d.polygon(geo.polygon, outline=rgb("dark_grey"), width=max(1, s // 30))
        # Quadrant lines: the shared edges of the quadrant regions
        for i, quad in enumerate(pack.quadrants):
            ys_q = [p[1] for p in quad.polygon]
            top_y = min(ys_q)
            if i > 0:
                y = oy + top_y * s
                x = ox
                while x < ox + pack.board.width * s:
                    d.line([(x, y), (min(x + 0.35 * s, ox + pack.board.width * s), y)],
                           fill=rgb("ink"), width=max(2, s // 16))
                    x += 0.55 * s
        for text, at in quadrant_labels:
            d.text(at, text, font=font(fs_small), fill=rgb("dark_grey"))
        d.text(px((13.1, 9.5)), "VOLGA", font=font(fs_name + 2), fill=rgb("water_dark"))
        # FAG boxes
        for fb, box in zip(pack.fag_boxes, fag_boxes, strict=True):
            d.rectangle(box, fill=rgb("russian_tint"), outline=rgb("russian"), width=2)
            d.text(((box[0] + box[2]) / 2, box[1] + 3), "FAG", font=font(fs_name),
                   fill=rgb("ink"), anchor="mt")
            d.text(((box[0] + box[2]) / 2, box[1] + 3 + fs_name + 1),
                   fb.quadrant.replace("-central", "-C.").replace("north", "N")
                   .replace("south", "S"), font=font(fs_small), fill=rgb("dark_grey"),
                   anchor="mt")
        # Area IDs, names, symbols
        for area in pack.areas.values():
            geo = spaces[area.key]
            lx, ly = geo.label
            _id_shape(d, area.id_shape, lx, ly, id_r, _setup_colour(area.setup_colour),
                      rgb("ink"), max(1, s // 30))
            d.text((lx, ly + (2 if area.id_shape == "triangle" else 0)), str(area.number),
                   font=font(fs_id), fill=rgb("ink"), anchor="mm")
            layout = layouts[area.key]
            tx, ty = layout.tem
            tr = max(4, fs_small * 0.55)
            d.ellipse((tx - tr, ty - tr, tx + tr, ty + tr), fill=rgb("white"),
                      outline=rgb("ink"))
            d.text((tx, ty), str(area.tem), font=font(max(6, fs_small - 1)),
                   fill=rgb("ink"), anchor="mm")
            colour = rgb("vp_red") if area.vp else rgb("dark_grey")
            for line, at in layout.name:
                d.text(at, line, font=font(layout.name_size), fill=colour, anchor="mm")
            for icon, (ix, iy) in layout.icons:
                _icon(d, icon, ix, iy, fs_small)
        # Zone entrance tabs on the frame
        fx0, fy0 = ox, oy
        fx1, fy1 = ox + pack.board.width * s, oy + pack.board.height * s
        for zone in pack.zones.values():
            zx, zy = px(centroid(zone.polygon))
            for number in zone.arrows:
                if number not in pack.areas:
                    continue
                ax, ay = px(pack.areas[number].label)
                tx, ty = _frame_hit((ax, ay), (zx, zy), (fx0, fy0, fx1, fy1))
                _zone_tab(d, zone.letter, (tx, ty), (ax, ay), s, fs_small)
        d.rectangle((fx0, fy0, fx1, fy1), outline=rgb("ink"), width=2)
        _draw_panel_static(im, pack, zone_cells, ring, s, pw, height, panel)
        bases_rgb[side] = im

    labels += panel.get("labels", [])
    palette = Palette.build(bases_rgb["russian"])
    bases = {side: palette.quantize(im) for side, im in bases_rgb.items()}
    for geo in spaces.values():
        if geo.mask is not None:
            geo.patch = bases["german"].crop(geo.bbox)
    return Static(scale=s, size=(width, height), palette=palette,
                  sprites=SpriteCache(palette), bases=bases, spaces=spaces,
                  zone_cells=zone_cells, zone_slots=zone_slots, panel=panel, counter=counter,
                  origin=(ox, oy),
                  map_box=(ox, oy, round(ox + pack.board.width * s),
                           round(oy + pack.board.height * s)),
                  zone_tabs=zone_tabs, zone_anchor=zone_anchor, zone_side=zone_side,
                  labels=labels)


def _frame_hit(inside: Point, outside: Point, frame: tuple[float, float, float, float]
               ) -> Point:
    """Where the segment inside -> outside crosses the frame."""
    x0, y0, x1, y1 = frame
    (ax, ay), (bx, by) = inside, outside
    best = 1.0
    for t in _crossings(ax, bx, x0) + _crossings(ax, bx, x1) + _crossings(ay, by, y0) \
            + _crossings(ay, by, y1):
        if 0 <= t < best:
            best = t
    return (ax + (bx - ax) * best, ay + (by - ay) * best)


def _crossings(a: float, b: float, edge: float) -> list[float]:
    if a == b:
        return []
    return [(edge - a) / (b - a)]


def _zone_tab(d: ImageDraw.ImageDraw, letter: str, at: Point, towards: Point, s: int,
              fs: int) -> None:
    x, y = at
    ang = math.atan2(towards[1] - y, towards[0] - x)
    r = max(6, fs * 0.75)
    # an arrow from just outside the frame into the Area
    bx, by = x - math.cos(ang) * r * 1.2, y - math.sin(ang) * r * 1.2
    tip = (x + math.cos(ang) * r * 1.1, y + math.sin(ang) * r * 1.1)
    d.line([(bx, by), tip], fill=rgb("ink"), width=max(2, s // 20))
    left = (tip[0] - math.cos(ang - 0.5) * r * 0.8, tip[1] - math.sin(ang - 0.5) * r * 0.8)
    right = (tip[0] - math.cos(ang + 0.5) * r * 0.8, tip[1] - math.sin(ang + 0.5) * r * 0.8)
    d.polygon([tip, left, right], fill=rgb("ink"))
    d.ellipse((bx - r, by - r, bx + r, by + r), fill=rgb("white"), outline=rgb("ink"), width=2)
    d.text((bx, by), letter, font=font(fs + 1), fill=rgb("ink"), anchor="mm")


def _icon(d: ImageDraw.ImageDraw, icon: str, x: float, y: float, fs: int) -> None:
    r = fs * 0.6
    if icon == "ferry":
        d.rectangle((x - r, y - r * 0.7, x + r, y + r * 0.7), fill=rgb("water_dark"))
        d.text((x, y), "F", font=font(max(6, fs - 1)), fill=rgb("white"), anchor="mm")
    elif icon.startswith("supply_"):
        side = icon.removeprefix("supply_")
        colour = rgb(side) if side in SIDES else rgb("supply")
        d.ellipse((x - r, y - r, x + r, y + r), fill=rgb("white"), outline=colour, width=2)
        d.text((x, y), "S", font=font(max(6, fs - 1)), fill=colour, anchor="mm")
    elif icon == "rubble_symbol":
        d.polygon([(x - r, y + r * 0.7), (x, y - r * 0.8), (x + r, y + r * 0.7)],
                  fill=rgb("rubble_light"), outline=rgb("rubble"))
    elif icon.startswith("vp"):
        d.rectangle((x - r, y - r * 0.75, x + r, y + r * 0.75), fill=rgb("vp_red"))
        d.text((x, y), icon[2:], font=font(max(6, fs - 1)), fill=rgb("white"), anchor="mm")


def _draw_panel_static(im: Image.Image, pack: StalingradPack,
                       zone_cells: Mapping[str, tuple[int, int, int, int]],
                       ring: Mapping[str, tuple[int, int]], s: int, pw: int, height: int,
                       panel: dict[str, Any]) -> None:
    d = ImageDraw.Draw(im)
    pad = panel["pad"]
    panel["labels"] = []  # drawn once per tint: the labels of the last drawing
    fs = max(8, round(0.3 * s))
    fs_small = panel["fs_small"]
    d.text((pad, pad), "ZONES", font=font(fs + 2), fill=rgb("ink"))
    # links first, under the cells
    for letter, zone in pack.zones.items():
        for other in zone.zones:
            if other in zone_cells and letter < other:
                a, b = zone_cells[letter], zone_cells[other]
                d.line([((a[0] + a[2]) / 2, (a[1] + a[3]) / 2),
                        ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)], fill=rgb("ink"),
                       width=max(3, s // 10))
    for letter, (x0, y0, x1, y1) in zone_cells.items():
        zone = pack.zones[letter]
        d.rectangle((x0, y0, x1, y1), fill=rgb("paper"), outline=rgb("ink"), width=2)
        d.text((x0 + 4, y0 + 3), letter, font=font(fs + 3), fill=rgb("ink"))
        name_x = x0 + 4 + fs + 6
        room = (x1 - 2 * fs_small - 2) - name_x
        w = min(room, text_size(zone.name or "", fs_small)[0] + 2)
        box = (name_x, y0 + 3, name_x + w, y0 + 5 + fs_small)
        fitted_text(im, zone.name or "", fs_small, box, rgb("ink"), rgb("paper"))
        panel["labels"].append(Label(
            "zone-name", letter, zone.name or "", box, fs_small,
            ((x0, y0), (x1, y0), (x1, y1), (x0, y1))))
        arrows = ",".join(str(a) for a in zone.arrows)
        d.text((x0 + 4 + fs + 6, y0 + 5 + fs_small), f"> {arrows}", font=font(fs_small),
               fill=rgb("dark_grey"))
        if zone.supply != "none":
            _icon(d, f"supply_{zone.supply}", x1 - fs_small, y0 + fs_small, fs_small)
    # centre of the ring: a key
    cells = list(zone_cells.values())
    if cells:
        cw = cells[0][2] - cells[0][0]
        ch = cells[0][3] - cells[0][1]
        x0 = pad + cw + round(0.15 * s)
        y0 = min(c[1] for c in cells) + ch + round(0.15 * s)
        for i, line in enumerate(("Zones link", "as drawn;", "> Areas by", "entrance",
                                  "arrows")):
            d.text((x0 + 4, y0 + 4 + i * (fs_small + 3)), line, font=font(fs_small),
                   fill=rgb("dark_grey"))
    # tracks: frames only; the markers are dynamic
    top = panel["zone_bottom"] + round(0.35 * s)
    panel["date_at"] = (pad, top)
    top += round(1.35 * s)
    d.text((pad, top), "TURN RECORD (this week)", font=font(fs_small), fill=rgb("dark_grey"))
    top += fs_small + 4
    cw = (pw - 2 * pad) // 7
    panel["week_cells"] = [(pad + i * cw, top, pad + (i + 1) * cw - 3, top + round(0.7 * s))
                           for i in range(7)]
    for box in panel["week_cells"]:
        d.rectangle(box, fill=rgb("white"), outline=rgb("ink"))
    top += round(0.7 * s) + round(0.25 * s)
    d.text((pad, top), "DAY / NIGHT IMPULSE TRACK", font=font(fs_small),
           fill=rgb("dark_grey"))
    top += fs_small + 4
    n = pack.scenarios[next(iter(pack.scenarios))].impulse_max \
        if pack.scenarios else 12
    bw = (pw - 2 * pad) // n
    panel["impulse_cells"] = [(pad + i * bw, top, pad + (i + 1) * bw - 2, top + round(0.6 * s))
                              for i in range(n)]
    for i, box in enumerate(panel["impulse_cells"]):
        d.rectangle(box, fill=rgb("white"), outline=rgb("ink"))
        d.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), str(i + 1),
               font=font(fs_small), fill=rgb("grey"), anchor="mm")
    top += round(0.6 * s) + round(0.3 * s)
    panel["status_at"] = (pad, top)
    panel["status_lines"] = 11
    top += 11 * (fs + 5) + round(0.2 * s)
    panel["legend_at"] = (pad, top)
    panel["fs"] = fs
    panel["stacks_at"] = (pad, _draw_legend(d, pad, top, pw - 2 * pad, s, fs_small, height)
                          + round(0.3 * s))


def _draw_legend(d: ImageDraw.ImageDraw, x: int, y: int, w: int, s: int, fs: int,
                 height: int) -> int:
    """The legend from ``y`` down; returns where it ends."""
    d.text((x, y), "LEGEND", font=font(fs + 2), fill=rgb("ink"))
    y += fs + 8
    c = max(14, round(0.6 * s))
    rows = [("infantry", "infantry"), ("motorized", "motorized"), ("armor", "armor / tank"),
            ("mech_infantry", "panzergrenadier"), ("recon", "recon"),
            ("engineer", "engineer / pioneer"), ("at", "anti-tank"), ("aa", "anti-aircraft"),
            ("artillery", "artillery"), ("mg", "machine gun")]
    col_w = w // 2
    for i, (kind, label) in enumerate(rows):
        cx = x + (i % 2) * col_w
        cy = y + (i // 2) * (c + 4)
        draw_symbol(d, (cx, cy + 2, cx + c, cy + c * 0.62), kind, rgb("ink"))
        d.text((cx + c + 5, cy + 1), label, font=font(fs), fill=rgb("ink"))
    y += (len(rows) + 1) // 2 * (c + 4) + 4
    items = [
        ("german", "German Fresh (A-D-M)"), ("german_spent", "German Spent (D)"),
        ("russian", "Russian Fresh"), ("russian_spent", "Russian Spent"),
    ]
    for i, (colour, label) in enumerate(items):
        cx = x + (i % 2) * col_w
        cy = y + (i // 2) * round(c * 0.7 + 4)
        d.rectangle((cx, cy, cx + c * 0.7, cy + c * 0.7), fill=rgb(colour), outline=rgb("ink"))
        d.text((cx + c * 0.7 + 5, cy), label, font=font(fs), fill=rgb("ink"))
    y += 2 * (round(c * 0.7) + 4) + 4
    notes = [
        ("duration", "2", "Duration: dates to recover"),
        ("rubble_light", "R2", "Rubble level"),
        ("contested", "X", "Contested Area"),
        ("white", "x5", "stack of 5 (ids below)"),
    ]
    for i, (colour, mark, label) in enumerate(notes):
        cx = x + (i % 2) * col_w
        cy = y + (i // 2) * (fs + 8)
        d.rectangle((cx, cy, cx + fs * 1.6, cy + fs + 3), fill=rgb(colour), outline=rgb("ink"))
        d.text((cx + fs * 0.8, cy + (fs + 3) / 2), mark,
               font=font(fs), fill=rgb("white") if colour == "contested" else rgb("ink"),
               anchor="mm")
        d.text((cx + fs * 1.6 + 5, cy), label, font=font(fs), fill=rgb("ink"))
    y += 2 * (fs + 8) + 2
    symbols = [("ferry", "Ferry Landing"), ("supply_russian", "supply source"),
               ("vp2", "Victory Points"), ("rubble_symbol", "Rubble symbol")]
    for i, (icon, label) in enumerate(symbols):
        cx = x + (i % 2) * col_w
        cy = y + (i // 2) * (fs + 8)
        _icon(d, icon, cx + fs * 0.7, cy + fs * 0.6, fs)
        d.text((cx + fs * 1.6 + 5, cy), label, font=font(fs), fill=rgb("ink"))
    y += 2 * (fs + 8) + 2
    d.text((x, y), "Area ID: number in the setup-colour shape, TEM in the small disc;",
           font=font(fs), fill=rgb("ink"))
    d.text((x, y + fs + 3), "red names = Victory Point Areas. Arrows: last move,",
           font=font(fs), fill=rgb("ink"))
    d.text((x, y + 2 * (fs + 3)), "red frame: attacked Area; dashed: retreat.",
           font=font(fs), fill=rgb("ink"))
    d.text((x, y + 3 * (fs + 3)), "Counter: designation, symbol, factors.",
           font=font(fs), fill=rgb("ink"))
    return y + 4 * (fs + 3)


# ---- counters ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Face:
    """Everything a counter shows; equal faces share one sprite."""

    side: str
    symbol: str
    motorized: bool
    fresh: bool
    factors: str
    duration: int
    isolated: int  # the Isolation marker: 0 none, 1 for "-1", 2 for "-2" (12.2)
    label: str = ""  # the counter's printed designation ("I/267"), its short id
    count: int = 1  # a stack of this many like counters: "x3" shows instead of the label

    @property
    def look(self) -> Face:
        """The face without its label: what units grouped as "identical" share."""
        return Face(self.side, self.symbol, self.motorized, self.fresh, self.factors,
                    self.duration, self.isolated)


#: Faces by what they depend on, kept with the pack's units they were drawn from.
_FACES = Memo[Face](size=20000)


def face_of(u: UnitView, pack_units: Mapping[str, Any]) -> Face:
    """:func:`unit_face`, memoised on what the face depends on."""
    key = (u.id, u.side, u.kind, u.fresh, u.duration, u.attack, u.defense, u.mf, u.isolation)
    return _FACES.get((pack_units,), key, lambda: unit_face(u, pack_units))


def short_label(uid: str, pack_units: Mapping[str, Any]) -> str:
    """The counter's printed designation ("I/267"); without the pack, the id after its
    formation prefix ("g94:i/267" -> "i/267")."""
    pu = pack_units.get(uid)
    designation = getattr(pu, "designation", None) if pu is not None else None
    if designation:
        return str(designation)
    return uid.split(":", 1)[-1]


def unit_face(u: UnitView, pack_units: Mapping[str, Any]) -> Face:
    pu = pack_units.get(u.id)
    if pu is not None:
        symbol = TPS_SYMBOL.get(pu.type, "infantry")
        motorized = bool(pu.motorized) and symbol not in ("motorized",)
        motorized = motorized and symbol in ("at", "aa", "artillery", "recon", "engineer")
    else:
        symbol = TPS_KIND_SYMBOL.get(u.kind, "infantry")
        motorized = False
    if u.fresh:
        attack = "*" if u.attack is None else str(u.attack)
        factors = f"{attack}-{u.defense}-{u.mf}"
    else:
        factors = str(u.defense)
    return Face(u.side, symbol, motorized, u.fresh, factors, int(u.duration or 0), u.isolation,
                short_label(u.id, pack_units))


def counter_font(size: int) -> int:
    """The font size of a counter's texts: :data:`MIN_TEXT` px on a counter of the default
    scale (``counter_size(DEFAULT_SCALE)``), proportionally smaller only on the small
    replay frames."""
    return max(7, round(size * 0.29))


def counter_size(scale: int) -> int:
    return max(14, round(0.6 * scale))


def fitted_text(im: Image.Image, text: str, size: int, box: tuple[float, float, float, float],
                fill: tuple[int, int, int], bg: tuple[int, int, int]) -> None:
    """Write ``text`` centred in ``box`` at ``size`` px, squeezed sideways (never shrunk in
    height) when it is wider than the box, so a long designation stays whole and readable."""
    text = plain(text)
    f = font(size)
    left, top, right, bottom = f.getbbox(text)
    w, h = max(1, int(right - left)), max(1, int(bottom - top))
    x0, y0, x1, y1 = box
    room = max(1, int(x1 - x0))
    strip = Image.new("RGB", (w + 2, h + 2), bg)
    ImageDraw.Draw(strip).text((1 - left, 1 - top), text, font=f, fill=fill)
    if strip.width > room:
        strip = strip.resize((room, strip.height), Image.Resampling.LANCZOS)
    im.paste(strip, (round((x0 + x1 - strip.width) / 2), round((y0 + y1 - strip.height) / 2)))


def counter_sprite(sprites: SpriteCache, face: Face, size: int) -> Image.Image:
    """A counter as printed: the designation on top, the unit-type symbol, the factors
    (A-D-M Fresh, D Spent) at the bottom; a yellow Duration box right of the symbol and a
    red Isolation box left of it. Both text lines are :func:`counter_font` px high."""
    def build() -> Image.Image:
        side_key = face.side if face.side in SIDES else "russian"
        fill = rgb(side_key) if face.fresh else rgb(f"{side_key}_spent")
        ink = rgb("white") if face.fresh else rgb("ink")
        im = Image.new("RGB", (size, size), fill)
        d = ImageDraw.Draw(im)
        if not face.fresh:
            # Spent face: a diagonal band in the side colour
            band = blend(fill, rgb(side_key), 0.45)
            d.polygon([(size * 0.62, 0), (size, 0), (size, size * 0.38)], fill=band)
        fs = counter_font(size)
        line = fs + 1
        # a small counter (the replay's frames) has no room for the designation line
        labelled = size - 2 * (line + 2) >= 8
        top_box = (1, 1, size - 1, 1 + line) if labelled else (2, 0, size - 2, 0)
        bottom_box = (2, size - 1 - line, size - 2, size - 1)
        if not labelled:
            pass
        elif face.count > 1:
            text = f"x{face.count}"
            w = text_size(text, fs)[0] + 6
            pill = (size / 2 - w / 2, top_box[1], size / 2 + w / 2, top_box[3])
            d.rectangle(pill, fill=rgb("white"), outline=rgb("ink"))
            fitted_text(im, text, fs, pill, rgb("ink"), rgb("white"))
        elif face.label:
            fitted_text(im, face.label, fs, top_box, ink, fill)
        fitted_text(im, face.factors, fs, bottom_box, ink, fill)
        y0, y1 = top_box[3] + 1, bottom_box[1] - 1
        sw = size * (0.5 if labelled else 0.62)
        x0 = (size - sw) / 2
        draw_symbol(d, (x0, y0, x0 + sw, y1 - (2 if face.motorized else 0)), face.symbol,
                    ink, max(1, size // 26), face.motorized)
        mark = max(6, round(x0) - 2)
        if face.duration:
            d.rectangle((size - mark - 1, y0, size - 1, y1), fill=rgb("duration"),
                        outline=rgb("ink"))
            fitted_text(im, str(face.duration), fs, (size - mark, y0, size - 1, y1),
                        rgb("ink"), rgb("duration"))
        if face.isolated:
            d.rectangle((0, y0, mark, y1), fill=rgb("isolated"), outline=rgb("ink"))
            fitted_text(im, f"-{face.isolated}", fs, (1, y0, mark, y1), rgb("white"),
                        rgb("isolated"))
        d.rectangle((0, 0, size - 1, size - 1), outline=rgb("ink"))
        return im
    return sprites.get(("tps-counter", face, size), build)


def mixed_sprite(sprites: SpriteCache, counts: tuple[tuple[str, int], ...], size: int
                 ) -> Image.Image:
    """One counter standing for the units of both sides in an Area with room for one:
    split corner to corner, each side's colour with its count ("x3")."""
    def build() -> Image.Image:
        im = Image.new("RGB", (size, size), rgb("russian"))
        d = ImageDraw.Draw(im)
        d.polygon([(0, 0), (size, 0), (0, size)], fill=rgb("german"))
        fs = counter_font(size)
        line = fs + 1
        for (side, n), box in zip(counts, ((2, 1, size - 2, 1 + line),
                                           (2, size - 1 - line, size - 2, size - 1)),
                                  strict=False):
            fitted_text(im, f"x{n}", fs, box, rgb("white"), rgb(side))
        d.line([(0, size), (size, 0)], fill=rgb("white"), width=2)
        d.rectangle((0, 0, size - 1, size - 1), outline=rgb("contested"), width=2)
        return im
    return sprites.get(("tps-mixed", counts, size), build)


def stack_sprite(sprites: SpriteCache, members: Sequence[UnitView],
                 faces: Mapping[str, Face], size: int) -> Image.Image:
    """The counter drawn for a stack: the unit itself, a like stack with its count, or
    both sides' counts (:func:`mixed_sprite`)."""
    if len(members) == 1:
        return counter_sprite(sprites, faces[members[0].id], size)
    sides = [side for side in SIDES if any(m.side == side for m in members)]
    if len(sides) > 1:
        counts = tuple((side, sum(m.side == side for m in members)) for side in sides)
        return mixed_sprite(sprites, counts, size)
    first = faces[members[0].id]
    return counter_sprite(sprites, replace(first.look, count=len(members)), size)


def _groups(units: list[UnitView], faces: Mapping[str, Face], slots: int
            ) -> list[list[UnitView]]:
    """The stacks to draw for an Area: every unit alone, or grouped until they fit.

    Order: German before Russian, Fresh before Spent. Grouping levels: like faces, then
    side + Fresh/Spent + symbol, then side + Fresh/Spent, then side; with room for one
    counter only, one stack of both sides (drawn by :func:`mixed_sprite`)."""
    ordered = sorted(units, key=lambda u: (u.side != "german", not u.fresh,
                                           faces[u.id].symbol, u.id))
    slots = max(1, slots)
    if len(ordered) <= slots:
        return [[u] for u in ordered]
    keys = (
        lambda u: (u.side, u.fresh, faces[u.id].look),
        lambda u: (u.side, u.fresh, faces[u.id].symbol),
        lambda u: (u.side, u.fresh),
        lambda u: (u.side,),
        lambda u: (),
    )
    grouped: list[list[UnitView]] = []
    for key in keys:
        index: dict[Any, list[UnitView]] = {}
        for u in ordered:
            index.setdefault(key(u), []).append(u)
        grouped = list(index.values())
        if len(grouped) <= slots:
            return grouped
    return grouped


def stacks(st: Static, loc: str, units: list[UnitView], faces: Mapping[str, Face]
           ) -> list[tuple[list[UnitView], Point]]:
    """Each stack drawn in a space and where (its centre, full-picture pixels), read row
    by row."""
    geo = st.spaces[loc]
    slots = geo.slots or [geo.centre]
    groups = _groups(units, faces, len(slots))
    chosen = sorted(slots[:len(groups)], key=lambda p: (round(p[1]), p[0]))
    return list(zip(groups, chosen, strict=False))


# ---- drawing ---------------------------------------------------------------------------------


def draw(view: StalingradView, pack: StalingradPack | None = None, *,
         scale: int = DEFAULT_SCALE, crop: bool = False) -> Image.Image:
    """The picture of ``view`` as a P image, its last action (``view.last_action``)
    highlighted; ``crop``: zoomed around the last action."""
    pack = pack or load_pack()
    if crop:
        return _draw_crop(view, pack)
    st = build_static(pack, scale)
    highlight = view.last_action
    canvas = st.bases["russian"].copy()
    grouped = _draw_dynamic(canvas, st, view, pack, highlight, (0, 0))
    _draw_panel(canvas, st, view, pack, highlight, [(loc, m) for loc, m, _ in grouped])
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


def _draw_crop(view: StalingradView, pack: StalingradPack) -> Image.Image:
    lay = _crop_layout(view, pack)
    st, box = lay.st, lay.box
    window = st.bases["russian"].crop(box)  # beyond the picture: index 0, the paper
    window.putpalette(st.palette.flat())
    d = ImageDraw.Draw(window)
    for band in lay.blank:  # room for the Zones' boxes beside the frame
        d.rectangle(band, fill=st.palette["paper"])
    zones = {inset.letter: inset.rect for inset in lay.insets}
    _draw_dynamic(window, st, view, pack, lay.highlight, (box[0], box[1]), zones)
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
    move's end, else the origin), its caption, the key to its stacks and the boxes of the
    Zones the last action went through (the Zones lie off the board; the full picture
    shows them in its panel)."""
    st = build_static(pack, CROP_SCALE)
    highlight = view.last_action
    attack_area, attack_result = _last_attack(highlight)
    moves = _moves(highlight)
    candidates = (attack_area, moves[-1][-1] if moves else None,
                  highlight.origin if highlight else None)
    focus = [p for p in (_focus_point(st, a) for a in candidates if a) if p is not None]
    if not focus:
        occupied = [u.loc for u in view.units if u.loc in st.spaces and u.loc != EAST]
        key = occupied[0] if occupied else "56" if "56" in st.spaces else next(iter(st.spaces))
        focus = [_focus_point(st, key) or st.spaces[key].centre]
    cx, cy = focus[0]
    caption = f"{view.date_label} — {'day' if view.day else 'night'} impulse {view.box}"
    if highlight and highlight.side:
        caption += f" ({highlight.side})"
    if attack_result:
        caption += f" — attack on {attack_area}: {attack_result}"
    w, h = CROP_SIZE
    fs_caption = max(MIN_TEXT, st.scale // 4)
    lines = [st.sprites.tag(line, fs_caption, pad=3)
             for line in wrap(caption, fs_caption, w - 16)[:2]]
    top = sum(line.height + 2 for line in lines) + 6
    fs_key = _crop_key_font(st)
    keyed: list[str] = []
    box = (0, 0, 0, 0)
    for _ in range(2):  # the key's height sets the window's, which sets the key
        map_h = h - top - (len(keyed) * (fs_key + 4) + 6 if keyed else 0)
        mx0, _my0, mx1, _my1 = st.map_box
        x0 = int(max(mx0 - st.scale // 2, min(cx - w / 2, mx1 + st.scale // 2 - w)))
        y0 = int(max(0, min(cy - map_h / 2, st.size[1] - map_h)))
        box = (x0, y0, int(x0 + w), int(y0 + map_h))
        keyed = _crop_key(st, view, pack, box, fs_key, w - 8)
    box, insets, blank = _zone_insets(st, view, pack, highlight, box, (cx, cy), 4)
    return CropLayout(st, highlight, box, lines, top, keyed, insets, blank)


def _crop_key(st: Static, view: StalingradView, pack: StalingradPack,
              box: tuple[int, int, int, int], fs: int, width: int) -> list[str]:
    """The key to the stacks whose counter lies in the crop's window (at most four
    lines)."""
    pack_units = _pack_units(pack)
    faces = {u.id: face_of(u, pack_units) for u in view.units}
    by_loc: dict[str, list[UnitView]] = {}
    for u in view.units:
        by_loc.setdefault(u.loc, []).append(u)
    grouped = []
    for loc, units in by_loc.items():
        if loc not in st.spaces:
            continue
        for members, (x, y) in stacks(st, loc, units, faces):
            if len(members) > 1 and box[0] <= x <= box[2] and box[1] <= y <= box[3]:
                grouped.append((loc, members))
    lines = [part for line in stack_lines(grouped, pack_units)
             for part in _indent(wrap(line, fs, width))]
    if len(lines) > 4:
        lines = [*lines[:3], f"... and {len(lines) - 3} more lines in the full map"]
    return lines


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
                 box: tuple[int, int, int, int], focus: Point, top: int
                 ) -> tuple[tuple[int, int, int, int], list[ZoneInset],
                            list[tuple[int, int, int, int]]]:
    """Boxes for the Zones of the last action (the nearest :data:`MAX_ZONE_INSETS` to the
    crop's focus), each near where its Zone lies, inside the crop and apart.

    When the crop shows the board's edge on a Zone's side, the window moves out to leave a
    band beyond the frame for the boxes, so they cover nothing of the board. Returns the
    (moved) window, the boxes and the bands to blank (crop pixels)."""
    letters = sorted((z for z in _touched(hl) if z in st.zone_anchor),
                     key=lambda z: (st.zone_anchor[z][0] - focus[0]) ** 2
                     + (st.zone_anchor[z][1] - focus[1]) ** 2)[:MAX_ZONE_INSETS]
    if not letters:
        return box, [], []
    c = st.counter
    fs = max(9, round(st.scale * 0.2))
    cols = 3
    control = {a.key: a.control for a in view.areas}
    pack_units = _pack_units(pack)
    by_loc: dict[str, list[UnitView]] = {}
    for u in view.units:
        if u.loc in letters:
            by_loc.setdefault(u.loc, []).append(u)
    attacked = {a for a, _ in _attacks(hl)}
    contents = []
    for letter in letters:
        zone = pack.zones[letter]
        title = st.sprites.tag(f"Zone {letter} {zone.name or ''}".strip(), fs, bg="paper",
                               border=None, pad=1)
        units = by_loc.get(letter, [])
        faces = {u.id: face_of(u, pack_units) for u in units}
        groups = _groups(units, faces, 2 * cols) if units else []
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
    bands: dict[str, int] = {}  # side -> band edge (full-picture pixels)
    near = min(cw, ch) // 3  # the frame is this close to the crop's side: make room
    if "left" in sides and -near < mx0 - x0 < near:
        width = max(w for letter, _, _, w, _ in contents if st.zone_side[letter] == "left")
        x0 = min(x0, mx0 - margin - width - 8)
        bands["left"] = mx0 - margin
    if "top" in sides and -near < my0 - y0 < near:
        height = max(h for letter, _, _, _, h in contents if st.zone_side[letter] == "top")
        y0 = min(y0, my0 - margin - height - top - 4)
        bands["top"] = my0 - margin
    if "bottom" in sides and -near < y1 - my1 < near:
        height = max(h for letter, _, _, _, h in contents
                     if st.zone_side[letter] == "bottom")
        y0 = max(y0, my1 + margin + height + 8 - ch)
        bands["bottom"] = my1 + margin
    box = (x0, y0, x0 + cw, y0 + ch)
    placed: list[tuple[int, int, int, int]] = []
    out: list[ZoneInset] = []
    for letter, title, counters, w, h in contents:
        side = st.zone_side[letter]
        ax, ay = st.zone_anchor[letter]
        ax, ay = ax - x0, ay - y0
        along = side in ("left", "right")
        if side in bands:  # in the band: beside the frame
            edge = bands[side] - (x0 if along else y0)
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
    for side, edge in bands.items():
        if side == "left":
            blank.append((0, 0, edge - x0 - 1, ch))
        elif side == "top":
            blank.append((0, 0, cw, edge - y0 - 1))
        else:
            blank.append((0, edge - y0 + 1, cw, ch))
    return box, out, blank


def _on_border(rect: tuple[float, float, float, float], p: Point) -> Point:
    """The point of ``rect``'s border nearest ``p``."""
    x0, y0, x1, y1 = rect
    x, y = min(max(p[0], x0), x1), min(max(p[1], y0), y1)
    if x0 < x < x1 and y0 < y < y1:  # inside: out by the nearest side
        gaps = {x - x0: (x0, y), x1 - x: (x1, y), y - y0: (x, y0), y1 - y: (x, y1)}
        return gaps[min(gaps)]
    return (x, y)


def _nearest_on_polygon(p: Point, poly: Sequence[Point]) -> Point:
    best, found = math.inf, p
    for i in range(len(poly)):
        (ax, ay), (bx, by) = poly[i], poly[(i + 1) % len(poly)]
        dx, dy = bx - ax, by - ay
        length2 = dx * dx + dy * dy
        t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy)
                                                  / length2))
        q = (ax + t * dx, ay + t * dy)
        dist = (q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2
        if dist < best:
            best, found = dist, q
    return found


def path_points(st: Static, path: Sequence[str],
                zones: Mapping[str, tuple[float, float, float, float]] | None = None
                ) -> list[Point]:
    """Full-picture pixels of a path of Areas and Zones: an Area's middle; on a crop
    (``zones``: the Zones' boxes) where the path meets a Zone's box, in and out; else a
    Zone's entrance tab for the Area next on the path, or its anchor; the east bank's point
    nearest the next Area. Spaces without a place (off board) are left out."""

    def plain_point(key: str) -> Point | None:
        geo = st.spaces.get(key)
        if geo is not None and key != EAST:
            return geo.centre
        if zones is not None:
            rect = zones.get(key)
            return None if rect is None else ((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2)
        return st.zone_anchor.get(key)

    out: list[Point] = []

    def add(point: Point | None) -> None:
        if point is not None and (not out or out[-1] != point):
            out.append(point)

    for i, key in enumerate(path):
        near = [path[j] for j in (i - 1, i + 1) if 0 <= j < len(path)]
        if key == EAST:
            targets = [q for q in (plain_point(n) for n in near) if q is not None]
            add(_nearest_on_polygon(targets[0], st.spaces[EAST].polygon) if targets else None)
        elif key in st.spaces:
            add(plain_point(key))
        elif zones is not None:
            rect = zones.get(key)
            if rect is None:
                continue
            before = out[-1] if out else None
            after = plain_point(path[i + 1]) if i + 1 < len(path) else None
            if before is not None:
                add(_on_border(rect, before))
            if after is not None:
                add(_on_border(rect, after))
            if before is None and after is None:
                add(plain_point(key))
        elif key in st.zone_tabs:
            tabs = st.zone_tabs[key]
            add(next((tabs[n] for n in near if n in tabs), st.zone_anchor[key]))
    return out


def _draw_dynamic(canvas: Image.Image, st: Static, view: StalingradView,
                  pack: StalingradPack, hl: LastAction | None, offset: tuple[int, int],
                  zones: Mapping[str, tuple[float, float, float, float]] | None = None
                  ) -> list[tuple[str, list[UnitView], Point]]:
    """Control tints, tags, counters and the last action; returns the stacks drawn as one
    counter (space, units, centre), for the key to them."""
    pal = st.palette
    dx, dy = offset
    d = ImageDraw.Draw(canvas)
    # Control: the German-tinted board through each German-controlled Area's mask
    for area in view.areas:
        geo = st.spaces.get(area.key)
        if geo is None or geo.patch is None or area.control != "german":
            continue
        canvas.paste(geo.patch, (geo.bbox[0] - dx, geo.bbox[1] - dy), geo.mask)
    by_loc: dict[str, list[UnitView]] = {}
    for u in view.units:
        by_loc.setdefault(u.loc, []).append(u)
    pack_units = _pack_units(pack)
    faces = {u.id: face_of(u, pack_units) for u in view.units}
    scale_ratio = st.scale / DEFAULT_SCALE
    fs_tag = max(7, round(0.2 * st.scale))
    for area in view.areas:
        geo = st.spaces.get(area.key)
        if geo is None:
            continue
        here = by_loc.get(area.key, [])
        sides = {u.side for u in here}
        tx, ty = geo.tag_at
        if area.rubble:
            tag = st.sprites.tag(f"R{area.rubble}", fs_tag, fg="white", bg="rubble")
            canvas.paste(tag, (round(tx - dx), round(ty - dy)))
            tx += tag.width + 2
        if len(sides) > 1:
            d.polygon([(x - dx, y - dy) for x, y in geo.polygon], outline=pal["contested"],
                      width=max(2, round(3 * scale_ratio)))
            tag = st.sprites.tag("X", fs_tag, fg="white", bg="contested")
            canvas.paste(tag, (round(tx - dx), round(ty - dy)))
    grouped: list[tuple[str, list[UnitView], Point]] = []
    for loc, units in by_loc.items():
        if loc not in st.spaces:
            continue
        c = st.spaces[loc].counter
        for members, (x, y) in stacks(st, loc, units, faces):
            canvas.paste(stack_sprite(st.sprites, members, faces, c),
                         (round(x - c / 2 - dx), round(y - c / 2 - dy)))
            if len(members) > 1:
                grouped.append((loc, members, (x, y)))
    _draw_highlight(canvas, d, st, hl, offset, zones)
    return grouped


def _indent(lines: list[str]) -> list[str]:
    return [lines[0], *("   " + line for line in lines[1:])] if lines else lines


def stack_lines(grouped: Iterable[tuple[str, Sequence[UnitView]]],
                pack_units: Mapping[str, Any]) -> list[str]:
    """The key to the stacks drawn as one counter: where, how many, and their short ids
    ("59 x3: I/269, II/269, III/269"), by Area number then Zone letter."""
    out = []
    for loc, members in sorted(grouped, key=lambda g: (not g[0].isdigit(),
                                                        int(g[0]) if g[0].isdigit() else 0,
                                                        g[0])):
        where = loc if loc.isdigit() else f"Zone {loc}"
        parts = []
        for side in SIDES:
            labels = [short_label(m.id, pack_units) for m in members if m.side == side]
            if labels:
                parts.append(", ".join(labels))
        out.append(f"{where} x{len(members)}: " + "; ".join(parts))
    return out


def _draw_highlight(canvas: Image.Image, d: ImageDraw.ImageDraw, st: Static,
                    hl: LastAction | None,
                    offset: tuple[int, int],
                    zones: Mapping[str, tuple[float, float, float, float]] | None = None
                    ) -> None:
    """The last action: origin (yellow outline), attacked Areas (red frame and result),
    movement arrows along each path (through Zones too), dashed retreats and failed
    crossings. ``zones``: where the Zones are drawn on a crop."""
    pal = st.palette
    dx, dy = offset
    w = max(2, round(st.scale / 13))

    def shift(points: Sequence[Point]) -> list[Point]:
        return [(x - dx, y - dy) for x, y in points]

    if hl and hl.origin and hl.origin in st.spaces and st.spaces[hl.origin].polygon:
        geo = st.spaces[hl.origin]
        d.polygon(shift(geo.polygon), outline=pal["highlight"], width=w + 1)
    for area, _ in _attacks(hl):
        if area in st.spaces and area != EAST:
            d.polygon(shift(st.spaces[area].polygon), outline=pal["attack"], width=w + 2)
    drawn: set[tuple[str, ...]] = set()
    for path in _moves(hl):
        key = tuple(path)
        if key in drawn:
            continue
        drawn.add(key)
        pts = path_points(st, path, zones)
        if len(pts) >= 2:
            arrow(d, shift(pts), pal["highlight"], w + 1, head=st.scale * 0.38,
                  outline=pal["ink"])
    for path in _retreats(hl):
        pts = path_points(st, path, zones)
        if len(pts) >= 2:
            _dashed_path(d, shift(pts), pal["ink"], pal["white"], w, st.scale * 0.35)
    for area, outcome in _lost_crossings(hl):
        pts = path_points(st, [EAST, area], zones)
        if len(pts) >= 2:
            _dashed_path(d, shift(pts), pal["dark_grey"], pal["white"], w, st.scale * 0.3)
            tag = st.sprites.tag("lost crossing" if outcome == "eliminated" else "returned",
                                 max(8, round(0.24 * st.scale)), fg="white", bg="dark_grey")
            mx, my = (pts[0][0] + pts[1][0]) / 2 - dx, (pts[0][1] + pts[1][1]) / 2 - dy
            canvas.paste(tag, (round(mx - tag.width / 2), round(my - tag.height / 2)))
    seen: set[str] = set()
    for area, text in reversed(_attacks(hl)):  # the last attack on top, one tag per Area
        if not text or area in seen:
            continue
        seen.add(area)
        tag = st.sprites.tag(text, max(9, round(0.3 * st.scale)), fg="white", bg="attack",
                             pad=3)
        if area in st.spaces and area != EAST:
            x, y = st.spaces[area].label
            y -= st.scale * 0.75 + tag.height
        elif zones is not None and area in zones:
            x, y = (zones[area][0] + zones[area][2]) / 2, zones[area][3] + 2
        else:
            continue  # an attack in a Zone: the full picture tags the Zone's box in the panel
        x = min(max(x - tag.width / 2, dx + 2), dx + canvas.width - tag.width - 2)
        y = min(max(y, dy + 2), dy + canvas.height - tag.height - 2)
        canvas.paste(tag, (round(x - dx), round(y - dy)))


def _dashed_path(d: ImageDraw.ImageDraw, pts: Sequence[Point], ink: int, paper: int, w: int,
                 head: float) -> None:
    """A dashed polyline (ink on a paper edge) with an arrowhead at its end."""
    for i in range(len(pts) - 1):
        a, b = pts[i], pts[i + 1]
        last = i == len(pts) - 2
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        if length < 1:
            continue
        ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
        stop = length - head if last else length
        t = 0.0
        while t < stop:
            e = min(stop, t + 8)
            seg = [(a[0] + ux * t, a[1] + uy * t), (a[0] + ux * e, a[1] + uy * e)]
            d.line(seg, fill=paper, width=w + 2)
            d.line(seg, fill=ink, width=w)
            t = e + 5
        if last:
            arrow(d, [(b[0] - ux * head * 1.2, b[1] - uy * head * 1.2), b], ink, w, head)


def _pack_units(pack: StalingradPack) -> Mapping[str, Any]:
    return static_cache.cached(("stalingrad-units", pack.hash),
                               lambda: {u.id.lower(): u for u in pack.units.values()})


# ---- the panel ---------------------------------------------------------------------------------


def _draw_panel(canvas: Image.Image, st: Static, view: StalingradView, pack: StalingradPack,
                hl: LastAction | None, grouped: list[tuple[str, list[UnitView]]]) -> None:
    pal = st.palette
    d = ImageDraw.Draw(canvas)
    p = st.panel
    fs = p["fs"]
    sprites = st.sprites
    control = {a.key: a.control for a in view.areas}
    # Zones: control strip and units
    by_loc: dict[str, list[UnitView]] = {}
    for u in view.units:
        by_loc.setdefault(u.loc, []).append(u)
    pack_units = _pack_units(pack)
    zc = p["zone_counter"]
    touched = _touched(hl)
    attacked = dict(_attacks(hl))
    zone_tags: list[tuple[Image.Image, tuple[int, int]]] = []
    for letter, (x0, y0, x1, y1) in st.zone_cells.items():
        side = control.get(letter, pack.zones[letter].initial_control)
        d.rectangle((x0 + 2, y0 + round(0.8 * st.scale) - 4, x1 - 2,
                     y0 + round(0.8 * st.scale) - 1), fill=pal[side])
        if letter in attacked:  # an attack in a Zone: its box framed, the result under it
            d.rectangle((x0 - 2, y0 - 2, x1 + 2, y1 + 2), outline=pal["attack"], width=3)
            text = attacked[letter]
            if text:
                tag = sprites.tag(text, max(8, fs - 1), fg="white", bg="attack", pad=2)
                zone_tags.append((tag, (round((x0 + x1 - tag.width) / 2),
                                        y1 - tag.height - 2)))
        elif letter in touched:  # the last action went through this Zone
            d.rectangle((x0 - 2, y0 - 2, x1 + 2, y1 + 2), outline=pal["highlight"], width=3)
        units = by_loc.get(letter, [])
        if not units:
            continue
        if len({u.side for u in units}) > 1:
            d.rectangle((x0, y0, x1, y1), outline=pal["contested"], width=3)
        faces = {u.id: face_of(u, pack_units) for u in units}
        slots = st.zone_slots[letter]
        for members, (x, y) in zip(_groups(units, faces, len(slots)), slots, strict=False):
            canvas.paste(stack_sprite(sprites, members, faces, zc),
                         (round(x - zc / 2), round(y - zc / 2)))
            if len(members) > 1:
                grouped.append((letter, members))
    for tag, at in zone_tags:
        canvas.paste(tag, at)
    # date and tracks
    x, y = p["date_at"]
    day = FIRST_DATE + _dt.timedelta(days=view.date)
    period = "Day" if view.day else "Night"
    head = sprites.tag(f"{view.date_label}, 1942 — {period}", fs + 5, bg="panel",
                       border=None, pad=0)
    canvas.paste(head, (x, y))
    turn = view.date + 1
    sub = f"Game Turn {turn}"
    try:
        week = pack.calendar.week_of(day)
        sub += f", week {week.number} (ends {week.end.strftime('%b')} {week.end.day})"
    except KeyError:
        week = None
    canvas.paste(sprites.tag(sub, fs, bg="panel", border=None, pad=0),
                 (x, y + head.height + 4))
    if week is not None:
        for i, box in enumerate(p["week_cells"]):
            date_i = week.start + _dt.timedelta(days=i)
            current = date_i == day
            bg = "highlight" if current else "white"
            label = sprites.tag(f"{date_i.day}", fs - 1, bg=bg, border=None, pad=1)
            if current:
                d.rectangle(box, fill=pal["highlight"], outline=pal["ink"], width=2)
            canvas.paste(label, (round((box[0] + box[2]) / 2 - label.width / 2),
                                 round((box[1] + box[3]) / 2 - label.height / 2)))
    for i, box in enumerate(p["impulse_cells"]):
        if i + 1 == view.box:
            fill = "highlight" if view.day else "dark_grey"
            d.rectangle(box, fill=pal[fill], outline=pal["ink"], width=2)
            mark = sprites.tag(str(i + 1), fs - 1, fg="ink" if view.day else "white",
                               bg=fill, border=None, pad=0)
            canvas.paste(mark, (round((box[0] + box[2]) / 2 - mark.width / 2),
                                round((box[1] + box[3]) / 2 - mark.height / 2)))
    # status lines
    x, y = p["status_at"]
    lines: list[tuple[str, str, str]] = []
    to_act = view.pending.side if view.pending else (view.to_act or "—")
    lines.append((f"{to_act.capitalize()} to act" + (" (decision)" if view.pending else ""),
                  "ink", to_act if to_act in SIDES else "panel"))
    lines.append((f"Advantage: {view.advantage}"
                  + ("" if view.advantage_usable else " (used)"), "ink", view.advantage))
    vp_line = f"VP: German holds {view.vp} of {view.vp_total}"
    if week is not None:
        vp_line += f"  (blue {week.blue})"
    lines.append((vp_line, "ink", "vp_red"))
    with contextlib.suppress(KeyError, ValueError):  # a pack without a FAG schedule
        fag = pack.calendar.fag_strength(day)
        lines.append((f"Russian FAG strength today: {fag}", "ink", "russian"))
    lines += luftwaffe_lines(view, pack, day)
    counts = {k: len(v) for k, v in by_loc.items()}
    lines.append((f"East bank: {counts.get(EAST, 0)} Russian waiting", "ink", "east_bank"))
    lines.append((f"Off board: {counts.get(OFFBOARD, 0)} German waiting", "ink", "german_tint"))
    lines.append((f"To arrive: {counts.get(POOL, 0)}", "ink", "panel"))
    lines.append((f"Eliminated: German {view.eliminated.get('german', 0)}, "
                  f"Russian {view.eliminated.get('russian', 0)}", "ink", "panel"))
    if view.phase != "play":
        lines.append((f"Phase: {view.phase}", "ink", "panel"))
    if view.result:
        lines.append((f"Result: {view.result}", "white", "attack"))
    if view.battle:
        lines.append((f"Attack: {view.battle}", "white", "attack"))
    elif _last_attack(hl)[1]:
        area, result = _last_attack(hl)
        lines.append((f"Attack on {area}: {result}", "white", "attack"))
    chip = fs
    row = 0
    room = st.panel["width"] - 2 * x - chip - 6
    for text, _, colour in lines:
        parts = wrap(text, fs, room)
        if row + len(parts) > p["status_lines"]:
            break
        ly = y + row * (fs + 5)
        if colour != "panel":
            d.rectangle((x, ly + 1, x + chip, ly + chip), fill=pal[colour], outline=pal["ink"])
        for part in parts:
            tag = sprites.tag(part, fs, bg="panel", border=None, pad=0)
            canvas.paste(tag, (x + chip + 6, y + row * (fs + 5)))
            row += 1
    # the key to the stacks: each stack's units by short id
    x, y = p["stacks_at"]
    keyed = stack_lines(grouped, pack_units)
    if keyed:
        fs_key = max(MIN_TEXT, p["fs_small"])
        step = fs_key + 4
        room = (st.size[1] - y - step) // step - 1
        canvas.paste(sprites.tag("STACKS (one counter for several units)", fs_key + 1,
                                 bg="panel", border=None, pad=0), (x, y))
        width = st.panel["width"] - 2 * x
        wrapped = [part for line in keyed for part in _indent(wrap(line, fs_key, width))]
        if len(wrapped) > room:
            more = len(wrapped) - room + 1
            wrapped = [*wrapped[:room - 1], f"... {more} more lines"]
        for i, line in enumerate(wrapped):
            canvas.paste(sprites.tag(line, fs_key, bg="panel", border=None, pad=0),
                         (x, y + (i + 1) * step + 2))
    # FAG boxes: today's strength
    fag_today: int | None
    try:
        fag_today = pack.calendar.fag_strength(day)
    except (KeyError, ValueError):
        fag_today = None
    if fag_today is not None:
        for box in p["fag_boxes"]:
            tag = sprites.tag(str(fag_today), max(8, fs), fg="white", bg="russian",
                              border=None)
            canvas.paste(tag, (round((box[0] + box[2]) / 2 - tag.width / 2),
                               round(box[3] - tag.height - 3)))
    _draw_fag_status(canvas, sprites, view, pack, p["fag_boxes"], fs)


def luftwaffe_lines(view: StalingradView, pack: StalingradPack, day: _dt.date
                    ) -> list[tuple[str, str, str]]:
    """The Luftwaffe's box (4.26, 17.22): its strength today and whether it has flown."""
    stuka = next((u for u in view.units if u.kind == "air" and u.loc == "box"), None)
    if stuka is None:
        return []
    try:
        strength = pack.calendar.luftwaffe_attack(day)
    except (KeyError, ValueError):
        return []
    state = "ready" if stuka.fresh and view.day else "flown today" if not stuka.fresh \
        else "grounded at night"
    return [(f"Luftwaffe (Stuka {strength}): {state}", "ink", "german")]


def support_status(u: UnitView) -> str | None:
    """What an Artillery/air unit in its box may do (15.32, 15.34, 17.22): None when ready,
    else "D1".. (Disrupted, dates to go) or "Refit" (its marker off, awaiting a Refit)."""
    if u.fresh:
        return None
    return f"D{u.duration}" if u.duration else "Refit"


def _draw_fag_status(canvas: Image.Image, sprites: SpriteCache, view: StalingradView,
                     pack: StalingradPack, boxes: Sequence[tuple[float, float, float, float]],
                     fs: int) -> None:
    """Each FAG box: its unit's state — out of this game (struck through), Disrupted for
    N dates, or waiting to Refit (15.32-15.34)."""
    pack_units = _pack_units(pack)
    fags = {getattr(pack_units.get(u.id), "quadrant", None): u for u in view.units
            if u.kind == "fag"}
    d = ImageDraw.Draw(canvas)
    for fag_box, box in zip(pack.fag_boxes, boxes, strict=True):
        unit = fags.get(fag_box.quadrant)
        if unit is None or unit.loc != "box":
            d.line([(box[0], box[1]), (box[2], box[3])], fill=rgb("dark_grey"), width=2)
            continue
        status = support_status(unit)
        if status is None:
            continue
        tag = sprites.tag(status, max(8, fs - 1), fg="white", bg="isolated", border=None)
        canvas.paste(tag, (round(box[0] + 2), round(box[3] - tag.height - 3)))


def fits_inside(view: StalingradView, pack: StalingradPack, scale: int = DEFAULT_SCALE
                ) -> dict[str, list[tuple[int, int, int, int]]]:
    """Pixel boxes of the counters drawn for each Area (for tests)."""
    st = build_static(pack, scale)
    pack_units = _pack_units(pack)
    faces = {u.id: face_of(u, pack_units) for u in view.units}
    out: dict[str, list[tuple[int, int, int, int]]] = {}
    by_loc: dict[str, list[UnitView]] = {}
    for u in view.units:
        by_loc.setdefault(u.loc, []).append(u)
    for loc, units in by_loc.items():
        geo = st.spaces.get(loc)
        if geo is None:
            continue
        c = geo.counter
        out[loc] = [(round(x - c / 2), round(y - c / 2), round(x - c / 2) + c,
                     round(y - c / 2) + c) for _, (x, y) in stacks(st, loc, units, faces)]
    return out


def polygon_px(pack: StalingradPack, key: str, scale: int = DEFAULT_SCALE) -> list[Point]:
    return build_static(pack, scale).spaces[key].polygon
