"""The geometry of a Turning Point: Stalingrad picture: its scales and sizes, each space's
polygon in pixels, the counter slots inside it, and where its ID, number, name and markers go
(placed so that nothing covers another)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageChops, ImageDraw

from adjudicator.stalingrad.data_models import StalingradPack
from render.common import (
    Palette,
    SpriteCache,
    centroid,
    distance_to_polygon_edge,
    point_in_polygon,
    text_size,
)

DEFAULT_SCALE = 64


#: The smallest text on a picture posted at its default size (counters, names, panel).
MIN_TEXT = 11


CROP_SCALE = 72
#: The zoomed picture's scales, largest first: the largest that holds every Area the last
#: action touched (the opening Rubble spans the city; a move along the flank's Zones can
#: span the board: issue 29).
CROP_SCALES = (CROP_SCALE, 48, 32, 24, 16, 12)


#: The zoomed picture's size in pixels (a Discord preview shows about this much).
CROP_SIZE = (640, 720)


Point = tuple[float, float]


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
    #: never cover one (:func:`best_grid` avoids them), and tests check none is clipped.
    labels: list[Label] = field(default_factory=list)


def board_geometry(pack: StalingradPack, scale: int) -> dict[str, Any]:
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
                            _overlaps((x - half, y - half, x + half, y + half), b, 1)
                            for b in avoid):  # a pixel clear: the counter is drawn rounded
                        found.append((x, y))
                    x += pitch
                y += pitch
            options.append(found)
    return options


def best_grid(options: Sequence[Sequence[Point]], counter: int, avoid: Sequence[Box],
               centre: Point) -> list[Point]:
    """The offset keeping most counter centres clear of ``avoid``, nearest ``centre``
    first."""
    half = counter / 2
    best: list[Point] = []
    for found in options:
        kept = [p for p in found
                if not any(_overlaps((p[0] - half, p[1] - half, p[0] + half, p[1] + half), box,
                                     1) for box in avoid)]
        if len(kept) > len(best):
            best = kept
    return sorted(best, key=lambda p: (p[0] - centre[0]) ** 2 + (p[1] - centre[1]) ** 2)


def slot_grid(poly: Sequence[Point], counter: int, avoid: Sequence[Box], centre: Point
          ) -> list[Point]:
    return best_grid(_grid_options(poly, counter, avoid), counter, (), centre)


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


def area_labels(area: Any, poly: list[Point], at: Point, id_r: float, fs_small: int,
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
            room = len(best_grid(found, counter, fixed, centre))
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
                room = len(best_grid(found, counter, [*fixed, box], centre))
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
