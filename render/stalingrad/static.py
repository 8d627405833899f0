"""The static layer of a Turning Point: Stalingrad picture, drawn once per data pack and
scale: the board, every Area's ID and name, the Volga and the east bank, the Zones' tabs, the
panel's fixed parts and the legend (see :mod:`render.static_cache`)."""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from typing import Any

from PIL import Image, ImageDraw

from adjudicator.stalingrad.data_models import StalingradPack
from adjudicator.stalingrad.views import EAST, SIDES
from render import static_cache
from render.common import Palette, SpriteCache, centroid, font, rgb, text_size
from render.counters import draw_symbol
from render.stalingrad.counters import (
    common_faces,
    counter_size,
    fitted_text,
    prepare_counters,
)
from render.stalingrad.layout import (
    CROP_SCALES,
    DEFAULT_SCALE,
    AreaLabels,
    Box,
    Label,
    Point,
    SpaceGeo,
    Static,
    _marks_at,
    _overlaps,
    _tag_box,
    area_labels,
    best_grid,
    board_geometry,
    slot_grid,
)


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


#: The zoomed-out crops' layers (:data:`CROP_SCALES` below :data:`CROP_SCALE`), kept apart
#: from the shared cache so they never push out the two layers every post uses.
_ZOOMED_OUT: dict[tuple[str, int], Static] = {}
_zoomed_out_lock = threading.Lock()
#: Zoomed-out layers kept (all dropped when full): a few packs' worth.
ZOOMED_OUT_KEPT = 16


def build_static(pack: StalingradPack, scale: int = DEFAULT_SCALE) -> Static:
    if scale in CROP_SCALES[1:]:
        key = (pack.hash, scale)
        with _zoomed_out_lock:
            found = _ZOOMED_OUT.get(key)
        if found is None:
            found = _build_static(pack, scale)
            with _zoomed_out_lock:
                if len(_ZOOMED_OUT) >= ZOOMED_OUT_KEPT:
                    _ZOOMED_OUT.clear()
                _ZOOMED_OUT[key] = found
        return found
    return static_cache.cached(("stalingrad", pack.hash, scale),
                               lambda: _build_static(pack, scale))


def prepare(pack: StalingradPack) -> None:
    """Build the static layers of both pictures the frontends post (the whole map and the
    zoom on the last action at each of its scales) ahead of the first one (a frontend calls
    it at start-up)."""
    faces = common_faces(pack)
    for scale in (DEFAULT_SCALE, *CROP_SCALES):  # a few tenths of a second each: not on a post
        st = build_static(pack, scale)
        # every unit's common faces at the sizes its counters are drawn (the Areas', the
        # Zones'): about a second in all, which the first picture of a View saves
        prepare_counters(st.sprites, faces,
                         [st.counter, *(geo.counter for geo in st.spaces.values())])


def _build_static(pack: StalingradPack, scale: int) -> Static:
    g = board_geometry(pack, scale)
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
        layout, found = area_labels(area, poly, px(area.label), id_r, fs_small, fs_name,
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
        geo.slots = best_grid(options[area.key], counter,
                               [b for b in avoid_all if _overlaps(b, geo.bbox)], geo.centre)

    # the east bank holds the FAG boxes and the Russian reinforcements waiting to cross
    bank = [px(p) for p in pack.east_bank.polygon]
    fag_boxes: list[tuple[float, float, float, float]] = []
    for fag_box in pack.fag_boxes:
        bx, by = px(fag_box.label)
        fw = 0.9 * s
        fag_boxes.append((bx - fw, by - 0.75 * s, bx + fw, by + 0.75 * s))
    bank_centre = centroid(bank)
    bank_slots = slot_grid(bank, counter, fag_boxes, bank_centre)
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


#: The legend's colour swatches: an Area's fill is its Control (7.3), a counter's colour
#: Fresh or Spent (10.1) — two meanings the legend keeps apart.
SWATCHES = (
    ("german_tint", "Area: German Control"), ("russian_tint", "Area: Russian Control"),
    ("german", "German Fresh (A-D-M)"), ("german_spent", "German Spent (D)"),
    ("russian", "Russian Fresh"), ("russian_spent", "Russian Spent"),
)


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
    items = SWATCHES
    for i, (colour, label) in enumerate(items):
        cx = x + (i % 2) * col_w
        cy = y + (i // 2) * round(c * 0.7 + 4)
        d.rectangle((cx, cy, cx + c * 0.7, cy + c * 0.7), fill=rgb(colour), outline=rgb("ink"))
        d.text((cx + c * 0.7 + 5, cy), label, font=font(fs), fill=rgb("ink"))
    y += (len(items) + 1) // 2 * (round(c * 0.7) + 4) + 4
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
