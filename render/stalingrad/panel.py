"""The dynamic half of a Turning Point: Stalingrad picture's panel: Zones' Control and units,
the date and Impulse Track markers, Advantage, Victory Points, the Luftwaffe and the Front
Artillery Groups, reinforcements, losses and the last attack."""

from __future__ import annotations

import contextlib
import datetime as _dt
from collections.abc import Sequence

from PIL import Image, ImageDraw

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
from render.common import SpriteCache, rgb, wrap
from render.stalingrad.counters import (
    face_of,
    indented,
    stack_groups,
    stack_lines,
    stack_sprite,
    stacks,
    units_of_pack,
)
from render.stalingrad.highlight import attack_results, last_attack, touched_spaces
from render.stalingrad.layout import DEFAULT_SCALE, MIN_TEXT, Point, Static
from render.stalingrad.static import build_static


def draw_panel(canvas: Image.Image, st: Static, view: StalingradView, pack: StalingradPack,
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
    pack_units = units_of_pack(pack)
    zc = p["zone_counter"]
    touched = touched_spaces(hl)
    attacked = dict(attack_results(hl))
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
        for members, (x, y) in zip(stack_groups(units, faces, len(slots)), slots, strict=False):
            canvas.paste(stack_sprite(sprites, members, faces, zc),
                         (round(x - zc / 2), round(y - zc / 2)))
            if len(members) > 1:
                grouped.append((letter, members))
    for tag, at in zone_tags:
        canvas.paste(tag, at)
    # date and tracks
    x, y = p["date_at"]
    day = pack.calendar.first + _dt.timedelta(days=view.date)  # 5.1: the track's first date
    period = "Day" if view.day else "Night"
    head = sprites.tag(f"{view.date_label}, {view.year} — {period}", fs + 5, bg="panel",
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
    elif last_attack(hl)[1]:
        area, result = last_attack(hl)
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
        wrapped = [part for line in keyed for part in indented(wrap(line, fs_key, width))]
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
    pack_units = units_of_pack(pack)
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
    pack_units = units_of_pack(pack)
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
