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

The last action comes from, in this order: an optional ``last_action`` attribute of the
View (shape documented at :class:`LastAction`), the events of the action as the viewer may
see them (``events=``; filtered again here with :func:`visible_to`), and what the View
itself says (``impulse_origin``, ``attacked``, ``battle``).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw

from adjudicator.kernel.events import Event, visible_to
from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.data_models import StalingradPack
from adjudicator.stalingrad.last_action import attack_text
from adjudicator.stalingrad.views import StalingradView, UnitView
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
    point_in_polygon,
    rgb,
    text_size,
)
from render.counters import TPS_KIND_SYMBOL, TPS_SYMBOL, draw_symbol

DEFAULT_SCALE = 40
CROP_SCALE = 72
#: The zoomed picture's size in pixels (a Discord preview shows about this much).
CROP_SIZE = (640, 720)
SIDES = ("german", "russian")
EAST = "east"
OFFBOARD = "offboard"
POOL = "pool"
DEAD = "dead"
FIRST_DATE = _dt.date(1942, 9, 13)
Point = tuple[float, float]


# ---- the last action ----------------------------------------------------------------------


@dataclass
class LastAction:
    """What the last action did, for the highlight layer.

    Made from the View's ``last_action`` (:class:`adjudicator.stalingrad.last_action.
    LastAction`, the last impulse as the rules resolved it and as the viewer may see it):

    * ``moves``: (units, path) — the path is the start, every Area or Zone entered, the end
      (``east`` for a landing, ``offboard`` for German reinforcements);
    * ``attacks``: (Area or Zone, result text) of every attack of the impulse, the last one
      last (``attack_area`` / ``attack_text``);
    * ``retreats``: the path of each retreating (or Routed) group, Area by Area;
    * ``crossings``: (landing, outcome) of the Volga crossings that did not land.
    """

    side: str | None = None
    origin: str | None = None
    moves: list[tuple[str, list[str]]] = field(default_factory=list)
    attacks: list[tuple[str, str | None]] = field(default_factory=list)
    retreats: list[list[str]] = field(default_factory=list)
    crossings: list[tuple[str, str]] = field(default_factory=list)

    @property
    def attack_area(self) -> str | None:
        return self.attacks[-1][0] if self.attacks else None

    @property
    def attack_text(self) -> str | None:
        return self.attacks[-1][1] if self.attacks else None

    def spaces(self) -> set[str]:
        """Every Area and Zone the action touched."""
        out = {a for _, path in self.moves for a in path}
        out |= {a for path in self.retreats for a in path}
        out |= {a for a, _ in self.attacks} | {a for a, _ in self.crossings}
        if self.origin:
            out.add(self.origin)
        return out

    def empty(self) -> bool:
        return not (self.origin or self.moves or self.attacks or self.retreats
                    or self.crossings)


def _attack_text(total: str | None, cp: Any, result: str | None) -> str | None:
    if total is None:
        return None
    return attack_text(str(total), result, cp if isinstance(cp, int) else None)


def last_action(view: StalingradView, events: Iterable[Event] = ()) -> LastAction:
    """The highlight for ``view``: its ``last_action``.

    A View without one (a game stored before Views carried it, until its next impulse) is
    highlighted from the ``events`` of its last action as the viewer may see them."""
    record = view.last_action
    if record is not None:
        out = LastAction(side=record.side, origin=record.origin)
        for move in record.moves:
            if len(move.path) >= 2:
                out.moves.append((", ".join(move.units), list(move.path)))
        for attack in record.attacks:
            out.attacks.append((attack.area, attack.text or attack.odds or None))
        for retreat in record.retreats:
            if len(retreat.path) >= 2:
                out.retreats.append(list(retreat.path))
        for crossing in record.crossings:
            if crossing.kind == "cross" and crossing.outcome in ("returned", "eliminated"):
                out.crossings.append((crossing.area, crossing.outcome))
        return out
    return _from_events(view, events)


def _from_events(view: StalingradView, events: Iterable[Event]) -> LastAction:
    out = LastAction(origin=view.impulse_origin)
    paths: dict[str, list[str]] = {}
    loc = {u.id: u.loc for u in view.units}
    for event in visible_to(events, view.viewer):
        data = event.data
        if event.kind in ("move", "regroup", "land") and data.get("unit") and data.get("area"):
            uid = str(data["unit"])
            if uid not in paths:
                first = EAST if event.kind == "land" else (
                    view.impulse_origin if event.kind == "move" else None)
                paths[uid] = [first] if first else []
            paths[uid].append(str(data["area"]))
        elif event.kind == "attack" and data.get("area") is not None:
            out.attacks.append((str(data["area"]), str(data.get("odds", "")) or None))
        elif event.kind == "attack-result" and data.get("area") is not None:
            text = _attack_text(data.get("total"), data.get("cp"), data.get("result"))
            if out.attacks and out.attacks[-1][0] == str(data["area"]):
                out.attacks[-1] = (str(data["area"]), text)
            else:
                out.attacks.append((str(data["area"]), text))
        elif event.kind == "retreat" and data.get("from") is not None and data.get("area"):
            out.retreats.append([str(data["from"]), str(data["area"])])
    for uid, path in paths.items():
        if len(path) >= 2:
            out.moves.append((uid, [str(p) for p in path]))
    if not out.attacks and view.battle:
        m = re.search(r" in (\S+) at (\d+:\d+)", view.battle)
        if m:
            out.attacks.append((m.group(1), m.group(2)))
    if not out.attacks and view.attacked:
        out.attacks.append((view.attacked[-1], None))
    if not out.moves and view.impulse_origin and view.impulse_mf:
        for uid in sorted(view.impulse_mf):
            here = loc.get(uid)
            if here and here != view.impulse_origin and here not in (DEAD, POOL):
                out.moves.append((uid, [view.impulse_origin, here]))
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


def _slots(poly: Sequence[Point], counter: int, avoid: Sequence[tuple[float, float, float,
           float]], centre: Point, soft: Sequence[tuple[float, float, float, float]] = ()
           ) -> list[Point]:
    """Counter centres fully inside ``poly`` and clear of the ``avoid`` boxes, nearest
    ``centre`` first; then the ones that cover a ``soft`` box (an Area's name)."""
    clean = _grid(poly, counter, [*avoid, *soft], centre)
    if not soft:
        return clean
    extra = [p for p in _grid(poly, counter, avoid, centre)
             if all(abs(p[0] - q[0]) >= counter + 1 or abs(p[1] - q[1]) >= counter + 1
                    for q in clean)]
    return clean + extra


def _grid(poly: Sequence[Point], counter: int, avoid: Sequence[tuple[float, float, float,
          float]], centre: Point) -> list[Point]:
    pitch = counter + 1
    half = counter / 2
    xs = [p[0] for p in poly]
    ys = [p[1] for p in poly]
    best: list[Point] = []
    for fx in (0.0, 0.25, 0.5, 0.75):
        for fy in (0.0, 0.25, 0.5, 0.75):
            found: list[Point] = []
            y = min(ys) + half + 1 + fy * pitch
            while y <= max(ys) - half - 1:
                x = min(xs) + half + 1 + fx * pitch
                while x <= max(xs) - half - 1:
                    if _fits(x, y, half, poly, avoid):
                        found.append((x, y))
                    x += pitch
                y += pitch
            if len(found) > len(best):
                best = found
    best.sort(key=lambda p: (p[0] - centre[0]) ** 2 + (p[1] - centre[1]) ** 2)
    return best


def _fits(x: float, y: float, half: float, poly: Sequence[Point],
          avoid: Sequence[tuple[float, float, float, float]]) -> bool:
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


def _build_static(pack: StalingradPack, scale: int) -> Static:
    g = _geometry(pack, scale)
    s = scale
    ox, oy = g["ox"], g["oy"]
    width, height = g["size"]
    counter = max(14, round(0.66 * s))

    def px(p: Point) -> Point:
        return (ox + p[0] * s, oy + p[1] * s)

    id_r = max(6.0, 0.27 * s)
    fs_id = max(8, round(0.32 * s))
    fs_name = max(7, round(0.24 * s))
    fs_small = max(7, round(0.22 * s))

    spaces: dict[str, SpaceGeo] = {}
    label_boxes: dict[str, list[tuple[float, float, float, float]]] = {}
    names: dict[str, list[str]] = {}
    for area in pack.areas.values():
        poly = [px(p) for p in area.polygon]
        lx, ly = px(area.label)
        boxes = [(lx - id_r * 1.3, ly - id_r * 1.3, lx + id_r * 1.9, ly + id_r * 1.25)]
        soft = []
        if area.name:
            room = (max(p[0] for p in poly) - min(p[0] for p in poly)) * 0.95
            names[area.key] = _name_lines(area.name, fs_name, room)
            tw = max(text_size(line, fs_name)[0] for line in names[area.key])
            th = len(names[area.key]) * (fs_name + 1)
            soft.append((lx - tw / 2 - 2, ly + id_r + 1, lx + tw / 2 + 2,
                         ly + id_r + th + 4))
        label_boxes[area.key] = boxes
        cen = centroid(poly)
        size = counter
        slots = _slots(poly, counter, boxes, cen, soft)
        if len(slots) < 3:
            small = max(10, round(counter * 0.72))
            more = _slots(poly, small, boxes, cen, soft)
            if len(more) > len(slots):
                size, slots = small, more
        xs = [int(p[0]) for p in poly]
        ys = [int(p[1]) for p in poly]
        bbox = (min(xs) - 2, min(ys) - 2, max(xs) + 3, max(ys) + 3)
        mask = Image.new("1", (bbox[2] - bbox[0], bbox[3] - bbox[1]), 0)
        ImageDraw.Draw(mask).polygon([(x - bbox[0], y - bbox[1]) for x, y in poly], fill=1,
                                     outline=1)
        spaces[area.key] = SpaceGeo(area.key, poly, bbox, mask, (lx, ly), slots, size,
                                    (lx - id_r * 1.3, ly - id_r * 2.2), cen)

    # the east bank holds the FAG boxes and the Russian reinforcements waiting to cross
    bank = [px(p) for p in pack.east_bank.polygon]
    fag_boxes: list[tuple[float, float, float, float]] = []
    for fag_box in pack.fag_boxes:
        bx, by = px(fag_box.label)
        fw = 0.9 * s
        fag_boxes.append((bx - fw, by - 0.75 * s, bx + fw, by + 0.75 * s))
    bank_centre = centroid(bank)
    bank_slots = _slots(bank, counter, fag_boxes, bank_centre)
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
    zc = max(12, round(counter * 0.85))
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
            d.text((ox + 0.08 * s, oy + top_y * s + 0.06 * s), quad.name.upper(),
                   font=font(fs_small), fill=rgb("dark_grey"))
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
            tx, ty = lx + id_r * 1.05, ly + id_r * 0.55
            tr = max(4, fs_small * 0.55)
            d.ellipse((tx - tr, ty - tr, tx + tr, ty + tr), fill=rgb("white"),
                      outline=rgb("ink"))
            d.text((tx, ty), str(area.tem), font=font(max(6, fs_small - 1)),
                   fill=rgb("ink"), anchor="mm")
            if area.name:
                colour = rgb("vp_red") if area.vp else rgb("dark_grey")
                for i, line in enumerate(names.get(area.key, [area.name])):
                    d.text((lx, ly + id_r + 2 + i * (fs_name + 1)), line, font=font(fs_name),
                           fill=colour, anchor="ma")
            icons = []
            if area.ferry_landing:
                icons.append("ferry")
            if area.supply != "none":
                icons.append(f"supply_{area.supply}")
            if area.rubble_symbol:
                icons.append("rubble_symbol")
            if area.vp:
                icons.append(f"vp{area.vp}")
            ix = lx - id_r * 1.2
            for icon in icons:
                _icon(d, icon, ix, ly - id_r * 1.05, fs_small)
                ix -= fs_small * 1.35
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
        _draw_panel_static(d, pack, zone_cells, ring, s, pw, height, panel)
        bases_rgb[side] = im

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
                  zone_tabs=zone_tabs, zone_anchor=zone_anchor, zone_side=zone_side)


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


def _draw_panel_static(d: ImageDraw.ImageDraw, pack: StalingradPack,
                       zone_cells: Mapping[str, tuple[int, int, int, int]],
                       ring: Mapping[str, tuple[int, int]], s: int, pw: int, height: int,
                       panel: dict[str, Any]) -> None:
    pad = panel["pad"]
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
        name = zone.name or ""
        d.text((x0 + 4 + fs + 6, y0 + 4), name[:14], font=font(fs_small), fill=rgb("ink"))
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
    _draw_legend(d, pad, top, pw - 2 * pad, s, fs_small, height)


def _draw_legend(d: ImageDraw.ImageDraw, x: int, y: int, w: int, s: int, fs: int,
                 height: int) -> None:
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
        if cy + c > height - 4:
            return
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
        ("white", "x5", "stack count"),
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
    isolated: bool


_FACES: dict[tuple[Any, ...], Face] = {}


def face_of(u: UnitView, pack_units: Mapping[str, Any]) -> Face:
    """:func:`unit_face`, memoised on what the face depends on."""
    key = (u.id, u.side, u.kind, u.fresh, u.duration, u.attack, u.defense, u.mf,
           u.isolated, id(pack_units))
    face = _FACES.get(key)
    if face is None:
        if len(_FACES) > 20000:
            _FACES.clear()
        face = _FACES[key] = unit_face(u, pack_units)
    return face


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
    return Face(u.side, symbol, motorized, u.fresh, factors, int(u.duration or 0), u.isolated)


def counter_sprite(sprites: SpriteCache, face: Face, size: int) -> Image.Image:
    def build() -> Image.Image:
        side_key = face.side if face.side in SIDES else "russian"
        fill = rgb(side_key) if face.fresh else rgb(f"{side_key}_spent")
        ink = rgb("white") if face.fresh else rgb("ink")
        im = Image.new("RGB", (size, size), fill)
        d = ImageDraw.Draw(im)
        if not face.fresh:
            # Spent face: a diagonal band in the side colour
            band = blend(fill, rgb(side_key), 0.45)
            d.polygon([(0, size * 0.62), (size * 0.38, size), (0, size)], fill=band)
        sw = size * 0.62
        sh = size * 0.36
        x0 = (size - sw) / 2
        y0 = size * 0.1
        draw_symbol(d, (x0, y0, x0 + sw, y0 + sh), face.symbol, ink, max(1, size // 22),
                    face.motorized)
        fs = max(7, round(size * 0.36))
        d.text((size / 2, size - 1), face.factors, font=font(fs), fill=ink, anchor="md")
        d.rectangle((0, 0, size - 1, size - 1), outline=rgb("ink"))
        if face.duration:
            r = max(4, size * 0.2)
            d.rectangle((size - 2 * r - 1, 0, size - 1, 2 * r), fill=rgb("duration"),
                        outline=rgb("ink"))
            d.text((size - r - 1, r), str(face.duration), font=font(max(6, round(r * 1.7))),
                   fill=rgb("ink"), anchor="mm")
        if face.isolated:
            r = max(4, size * 0.2)
            d.rectangle((0, 0, 2 * r, 2 * r), fill=rgb("isolated"), outline=rgb("ink"))
            d.text((r, r), "I", font=font(max(6, round(r * 1.7))), fill=rgb("white"),
                   anchor="mm")
        return im
    return sprites.get(("tps-counter", face, size), build)


def count_badge(sprites: SpriteCache, n: int, size: int) -> Image.Image:
    def build() -> Image.Image:
        text = f"x{n}"
        fs = max(7, round(size * 0.42))
        tw, th = text_size(text, fs)
        im = Image.new("RGB", (tw + 5, th + 5), rgb("white"))
        d = ImageDraw.Draw(im)
        d.rectangle((0, 0, im.width - 1, im.height - 1), outline=rgb("ink"))
        d.text((im.width / 2, im.height / 2), text, font=font(fs), fill=rgb("ink"),
               anchor="mm")
        return im
    return sprites.get(("badge", n, size), build)


def _groups(units: list[UnitView], faces: Mapping[str, Face], slots: int
            ) -> list[tuple[UnitView, int]]:
    """Counters to draw for an Area: every unit, or grouped until they fit.

    Order: German before Russian, Fresh before Spent. Grouping levels: identical faces,
    then side + Fresh/Spent + symbol, then side + Fresh/Spent, then side."""
    ordered = sorted(units, key=lambda u: (u.side != "german", not u.fresh,
                                           faces[u.id].symbol, u.id))
    if len(ordered) <= slots:
        return [(u, 1) for u in ordered]
    keys = (
        lambda u: (u.side, u.fresh, faces[u.id]),
        lambda u: (u.side, u.fresh, faces[u.id].symbol),
        lambda u: (u.side, u.fresh),
        lambda u: (u.side,),
    )
    grouped: list[tuple[UnitView, int]] = []
    for key in keys:
        grouped = []
        index: dict[Any, int] = {}
        for u in ordered:
            k = key(u)
            if k in index:
                first, n = grouped[index[k]]
                grouped[index[k]] = (first, n + 1)
            else:
                index[k] = len(grouped)
                grouped.append((u, 1))
        if len(grouped) <= slots:
            return grouped
    return grouped[:max(1, slots)]


# ---- drawing ---------------------------------------------------------------------------------


def draw(view: StalingradView, pack: StalingradPack | None = None, *,
         events: Iterable[Event] = (), scale: int = DEFAULT_SCALE,
         crop: bool = False) -> Image.Image:
    """The picture of ``view`` as a P image (``crop``: zoomed around the last action)."""
    pack = pack or load_pack()
    if crop:
        return _draw_crop(view, pack, events)
    st = build_static(pack, scale)
    highlight = last_action(view, events)
    canvas = st.bases["russian"].copy()
    _draw_dynamic(canvas, st, view, pack, highlight, (0, 0))
    _draw_panel(canvas, st, view, pack, highlight)
    return canvas


def render(view: StalingradView, pack: StalingradPack | None = None, *,
           events: Iterable[Event] = (), scale: int = DEFAULT_SCALE,
           crop: bool = False) -> bytes:
    """PNG bytes of :func:`draw`."""
    return encode_png(draw(view, pack, events=events, scale=scale, crop=crop))


def _draw_crop(view: StalingradView, pack: StalingradPack, events: Iterable[Event]
               ) -> Image.Image:
    st, highlight, box, tag, insets, blank = _crop_layout(view, pack, events)
    canvas = st.bases["russian"].crop(box)  # beyond the picture: index 0, the paper
    canvas.putpalette(st.palette.flat())
    d = ImageDraw.Draw(canvas)
    for band in blank:  # room for the Zones' boxes beside the frame
        d.rectangle(band, fill=st.palette["paper"])
    zones = {inset.letter: inset.rect for inset in insets}
    _draw_dynamic(canvas, st, view, pack, highlight, (box[0], box[1]), zones)
    for inset in insets:  # over the arrows, which run to their borders
        inset.draw(canvas, st, (box[0], box[1]))
    canvas.paste(tag, (4, 4))
    return canvas


def _crop_layout(view: StalingradView, pack: StalingradPack, events: Iterable[Event]
                 ) -> tuple[Static, LastAction, tuple[int, int, int, int], Image.Image,
                            list[ZoneInset], list[tuple[int, int, int, int]]]:
    """The crop's window on the full picture (centred on the last attack, else the last
    move's end, else the origin), its caption and the boxes of the Zones the last action
    went through (the Zones lie off the board; the full picture shows them in its panel)."""
    st = build_static(pack, CROP_SCALE)
    highlight = last_action(view, events)
    candidates = (highlight.attack_area,
                  highlight.moves[-1][1][-1] if highlight.moves else None, highlight.origin)
    focus = [p for p in (_focus_point(st, a) for a in candidates if a) if p is not None]
    if not focus:
        occupied = [u.loc for u in view.units if u.loc in st.spaces and u.loc != EAST]
        key = occupied[0] if occupied else "56" if "56" in st.spaces else next(iter(st.spaces))
        focus = [_focus_point(st, key) or st.spaces[key].centre]
    cx, cy = focus[0]
    w, h = CROP_SIZE
    mx0, _my0, mx1, _my1 = st.map_box
    x0 = int(max(mx0 - st.scale // 2, min(cx - w / 2, mx1 + st.scale // 2 - w)))
    y0 = int(max(0, min(cy - h / 2, st.size[1] - h)))
    box = (x0, y0, int(x0 + w), int(y0 + h))
    caption = f"{view.date_label} — {'day' if view.day else 'night'} impulse {view.box}"
    if highlight.side:
        caption += f" ({highlight.side})"
    if highlight.attack_text:
        caption += f" — attack on {highlight.attack_area}: {highlight.attack_text}"
    tag = st.sprites.tag(caption, max(10, st.scale // 4), pad=4)
    box, insets, blank = _zone_insets(st, view, pack, highlight, box, (cx, cy),
                                      tag.height + 8)
    return st, highlight, box, tag, insets, blank


def crop_zones(view: StalingradView, pack: StalingradPack | None = None,
               events: Iterable[Event] = ()) -> dict[str, tuple[int, int, int, int]]:
    """The Zone boxes drawn on the crop of ``view``, in the crop's pixels (for tests)."""
    _, _, box, _, insets, _ = _crop_layout(view, pack or load_pack(), events)
    return {i.letter: (round(i.rect[0] - box[0]), round(i.rect[1] - box[1]),
                       round(i.rect[2] - box[0]), round(i.rect[3] - box[1])) for i in insets}


def crop_origin(view: StalingradView, pack: StalingradPack | None = None,
                events: Iterable[Event] = ()) -> tuple[int, int]:
    """Where the crop of ``view`` lies in the full picture at the crop's scale (for tests)."""
    _, _, box, _, _, _ = _crop_layout(view, pack or load_pack(), events)
    return box[0], box[1]


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
    counters: list[tuple[Image.Image, Image.Image | None]]  # sprite, count badge
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
        for i, (sprite, badge) in enumerate(self.counters):
            left = x0 + 4 + (i % self.cols) * (c + 3)
            top = y0 + self.title.height + 9 + (i // self.cols) * (c + 3)
            canvas.paste(sprite, (left, top))
            if badge is not None:
                canvas.paste(badge, (left + c - badge.width + 2, top - 2))


def _zone_insets(st: Static, view: StalingradView, pack: StalingradPack, hl: LastAction,
                 box: tuple[int, int, int, int], focus: Point, top: int
                 ) -> tuple[tuple[int, int, int, int], list[ZoneInset],
                            list[tuple[int, int, int, int]]]:
    """Boxes for the Zones of the last action (the nearest :data:`MAX_ZONE_INSETS` to the
    crop's focus), each near where its Zone lies, inside the crop and apart.

    When the crop shows the board's edge on a Zone's side, the window moves out to leave a
    band beyond the frame for the boxes, so they cover nothing of the board. Returns the
    (moved) window, the boxes and the bands to blank (crop pixels)."""
    letters = sorted((z for z in hl.spaces() if z in st.zone_anchor),
                     key=lambda z: (st.zone_anchor[z][0] - focus[0]) ** 2
                     + (st.zone_anchor[z][1] - focus[1]) ** 2)[:MAX_ZONE_INSETS]
    if not letters:
        return box, [], []
    c = max(14, round(st.counter * 0.6))
    fs = max(9, round(st.scale * 0.2))
    cols = 3
    control = {a.key: a.control for a in view.areas}
    pack_units = _pack_units(pack)
    by_loc: dict[str, list[UnitView]] = {}
    for u in view.units:
        if u.loc in letters:
            by_loc.setdefault(u.loc, []).append(u)
    attacked = {a for a, _ in hl.attacks}
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
        counters = [(counter_sprite(st.sprites, faces[u.id], c),
                     count_badge(st.sprites, n, c) if n > 1 else None) for u, n in groups]
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
                  pack: StalingradPack, hl: LastAction, offset: tuple[int, int],
                  zones: Mapping[str, tuple[float, float, float, float]] | None = None
                  ) -> None:
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
    fs_tag = max(8, round(0.26 * st.scale))
    for area in view.areas:
        geo = st.spaces.get(area.key)
        if geo is None:
            continue
        here = by_loc.get(area.key, [])
        sides = {u.side for u in here}
        tx, ty = geo.tag_at
        if area.rubble:
            tag = st.sprites.tag(f"R{area.rubble}", fs_tag, fg="white", bg="rubble")
            canvas.paste(tag, (round(tx - tag.width - dx), round(ty - dy)))
        if len(sides) > 1:
            d.polygon([(x - dx, y - dy) for x, y in geo.polygon], outline=pal["contested"],
                      width=max(2, round(3 * scale_ratio)))
            tag = st.sprites.tag("CONTESTED", max(7, fs_tag - 2),
                                 fg="white", bg="contested")
            lx, ly = geo.label
            canvas.paste(tag, (round(lx - tag.width / 2 - dx),
                               round(ly + st.scale * 0.3 + (st.scale * 0.27 if
                                     area.label else 0) - dy)))
    for loc, units in by_loc.items():
        geo = st.spaces.get(loc)
        if geo is None:
            continue
        slots = geo.slots or [geo.centre]
        groups = _groups(units, faces, len(slots))
        chosen = sorted(slots[:len(groups)], key=lambda p: (round(p[1]), p[0]))
        c = geo.counter
        for (u, n), (x, y) in zip(groups, chosen, strict=False):
            sprite = counter_sprite(st.sprites, faces[u.id], c)
            left, top = round(x - c / 2 - dx), round(y - c / 2 - dy)
            canvas.paste(sprite, (left, top))
            if n > 1:
                badge = count_badge(st.sprites, n, c)
                canvas.paste(badge, (left + c - badge.width + 3, top - 3))
    _draw_highlight(canvas, d, st, hl, offset, zones)


def _draw_highlight(canvas: Image.Image, d: ImageDraw.ImageDraw, st: Static, hl: LastAction,
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

    if hl.origin and hl.origin in st.spaces and st.spaces[hl.origin].polygon:
        geo = st.spaces[hl.origin]
        d.polygon(shift(geo.polygon), outline=pal["highlight"], width=w + 1)
    for area, _ in hl.attacks:
        if area in st.spaces and area != EAST:
            d.polygon(shift(st.spaces[area].polygon), outline=pal["attack"], width=w + 2)
    drawn: set[tuple[str, ...]] = set()
    for _, path in hl.moves:
        key = tuple(path)
        if key in drawn:
            continue
        drawn.add(key)
        pts = path_points(st, path, zones)
        if len(pts) >= 2:
            arrow(d, shift(pts), pal["highlight"], w + 1, head=st.scale * 0.38,
                  outline=pal["ink"])
    for path in hl.retreats:
        pts = path_points(st, path, zones)
        if len(pts) >= 2:
            _dashed_path(d, shift(pts), pal["ink"], pal["white"], w, st.scale * 0.35)
    for area, outcome in hl.crossings:
        pts = path_points(st, [EAST, area], zones)
        if len(pts) >= 2:
            _dashed_path(d, shift(pts), pal["dark_grey"], pal["white"], w, st.scale * 0.3)
            tag = st.sprites.tag("lost crossing" if outcome == "eliminated" else "returned",
                                 max(8, round(0.24 * st.scale)), fg="white", bg="dark_grey")
            mx, my = (pts[0][0] + pts[1][0]) / 2 - dx, (pts[0][1] + pts[1][1]) / 2 - dy
            canvas.paste(tag, (round(mx - tag.width / 2), round(my - tag.height / 2)))
    seen: set[str] = set()
    for area, text in reversed(hl.attacks):  # the last attack on top, one tag per Area
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
                hl: LastAction) -> None:
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
    touched = hl.spaces()
    attacked = {a: t for a, t in hl.attacks}
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
        groups = _groups(units, faces, len(slots))
        for (u, n), (x, y) in zip(groups, slots, strict=False):
            sprite = counter_sprite(sprites, faces[u.id], zc)
            left, top = round(x - zc / 2), round(y - zc / 2)
            canvas.paste(sprite, (left, top))
            if n > 1:
                badge = count_badge(sprites, n, zc)
                canvas.paste(badge, (left + zc - badge.width + 3, top - 3))
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
    elif hl.attack_text and hl.attack_area:
        lines.append((f"Attack on {hl.attack_area}: {hl.attack_text}", "white", "attack"))
    chip = fs
    for i, (text, _, colour) in enumerate(lines[:p["status_lines"]]):
        ly = y + i * (fs + 5)
        if colour != "panel":
            d.rectangle((x, ly + 1, x + chip, ly + chip), fill=pal[colour], outline=pal["ink"])
        tag = sprites.tag(text[:60], fs, bg="panel", border=None, pad=0)
        canvas.paste(tag, (x + chip + 6, ly))
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
        slots = geo.slots or [geo.centre]
        groups = _groups(units, faces, len(slots))
        chosen = sorted(slots[:len(groups)], key=lambda p: (round(p[1]), p[0]))
        out[loc] = [(round(x - c / 2), round(y - c / 2), round(x - c / 2) + c,
                     round(y - c / 2) + c) for x, y in chosen]
    return out


def polygon_px(pack: StalingradPack, key: str, scale: int = DEFAULT_SCALE) -> list[Point]:
    return build_static(pack, scale).spaces[key].polygon
