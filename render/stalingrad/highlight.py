"""The last action on a Turning Point: Stalingrad picture, read from the View's record alone
(:mod:`adjudicator.kernel.last_action`): the origin, the attacked Areas with their result,
movement arrows through Areas and Zones, dashed retreats and failed crossings."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from PIL import Image, ImageDraw

from adjudicator.stalingrad.views import EAST, LastAction
from render.common import arrow, outline_polygon
from render.stalingrad.layout import Point, Static


def attack_results(hl: LastAction | None) -> list[tuple[str, str | None]]:
    """(Area or Zone, result — or the odds before the dice) of every attack of the last
    impulse, the last one last."""
    return [(a.area, a.text or a.odds or None) for a in hl.attacks] if hl else []


def last_attack(hl: LastAction | None) -> tuple[str | None, str | None]:
    attacks = attack_results(hl)
    return attacks[-1] if attacks else (None, None)


def move_paths(hl: LastAction | None) -> list[list[str]]:
    """The path of every group that moved: start, every Area or Zone entered, end (``east``
    for a landing, ``offboard`` for German reinforcements)."""
    return [list(m.path) for m in hl.moves if len(m.path) >= 2] if hl else []


def retreat_paths(hl: LastAction | None) -> list[list[str]]:
    """The path of each retreating (or Routed) group, Area by Area."""
    return [list(r.path) for r in hl.retreats if len(r.path) >= 2] if hl else []


def lost_crossings(hl: LastAction | None) -> list[tuple[str, str]]:
    """(landing, outcome) of the Volga crossings that did not land."""
    return [(c.area, c.outcome) for c in hl.crossings if c.kind == "cross"
            and c.outcome in ("returned", "eliminated")] if hl else []


def touched_spaces(hl: LastAction | None) -> set[str]:
    """Every Area and Zone the last action touched."""
    out = {a for path in move_paths(hl) + retreat_paths(hl) for a in path}
    out |= {a for a, _ in attack_results(hl)} | {a for a, _ in lost_crossings(hl)}
    if hl and hl.origin:
        out.add(hl.origin)
    return out


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


def draw_highlight(canvas: Image.Image, d: ImageDraw.ImageDraw, st: Static,
                    hl: LastAction | None,
                    offset: tuple[int, int],
                    zones: Mapping[str, tuple[float, float, float, float]] | None = None,
                    avoid: Sequence[tuple[float, float, float, float]] = ()
                    ) -> None:
    """The last action: origin (yellow outline), attacked Areas (red frame and result),
    movement arrows along each path (through Zones too), dashed retreats and failed
    crossings. ``zones``: where the Zones are drawn on a crop; ``avoid``: the counters'
    boxes, which the results' labels leave uncovered (:func:`attack_tags`)."""
    pal = st.palette
    dx, dy = offset
    w = max(2, round(st.scale / 13))

    def shift(points: Sequence[Point]) -> list[Point]:
        return [(x - dx, y - dy) for x, y in points]

    if hl and hl.origin and hl.origin in st.spaces and st.spaces[hl.origin].polygon:
        geo = st.spaces[hl.origin]
        outline_polygon(canvas, d, shift(geo.polygon), pal["highlight"], w + 1)
    for area, _ in attack_results(hl):
        if area in st.spaces and area != EAST:
            outline_polygon(canvas, d, shift(st.spaces[area].polygon), pal["attack"], w + 2)
    drawn: set[tuple[str, ...]] = set()
    for path in move_paths(hl):
        key = tuple(path)
        if key in drawn:
            continue
        drawn.add(key)
        pts = path_points(st, path, zones)
        if len(pts) >= 2:
            arrow(d, shift(pts), pal["highlight"], w + 1, head=st.scale * 0.38,
                  outline=pal["ink"])
    for path in retreat_paths(hl):
        pts = path_points(st, path, zones)
        if len(pts) >= 2:
            _dashed_path(d, shift(pts), pal["ink"], pal["white"], w, st.scale * 0.35)
    for area, outcome in lost_crossings(hl):
        pts = path_points(st, [EAST, area], zones)
        if len(pts) >= 2:
            _dashed_path(d, shift(pts), pal["dark_grey"], pal["white"], w, st.scale * 0.3)
            tag = st.sprites.tag("lost crossing" if outcome == "eliminated" else "returned",
                                 max(8, round(0.24 * st.scale)), fg="white", bg="dark_grey")
            mx, my = (pts[0][0] + pts[1][0]) / 2 - dx, (pts[0][1] + pts[1][1]) / 2 - dy
            canvas.paste(tag, (round(mx - tag.width / 2), round(my - tag.height / 2)))
    for sprite, x, y in attack_tags(st, hl, (dx, dy, dx + canvas.width, dy + canvas.height),
                                    zones, avoid):
        canvas.paste(sprite, (round(x - dx), round(y - dy)))


#: A box in full-picture pixels: x0, y0, x1, y1.
Box = tuple[float, float, float, float]


def attack_tags(st: Static, hl: LastAction | None, window: Box,
                zones: Mapping[str, Box] | None = None, avoid: Sequence[Box] = ()
                ) -> list[tuple[Image.Image, float, float]]:
    """The attack results' labels (one per Area, the last attack's on top) and their
    top-left corners in full-picture pixels: above the Area's name, inside ``window``,
    moved to the nearest spot that covers none of the boxes in ``avoid`` (the counters:
    issue 29) where there is one."""
    out: list[tuple[Image.Image, float, float]] = []
    seen: set[str] = set()
    for area, text in reversed(attack_results(hl)):
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
        x, y = _free_spot(tag.width, tag.height, x - tag.width / 2, y, window, avoid)
        out.append((tag, x, y))
    return out


#: Where a label may go, nearest first: (half heights down, widths right); (0, 0) first.
_STEPS = sorted(((i * 0.5, j) for i in range(-10, 11) for j in (-1, 0, 1)),
                key=lambda s: abs(s[0]) + abs(s[1]) * 1.5)


def _free_spot(w: int, h: int, x: float, y: float, window: Box, avoid: Sequence[Box]
               ) -> tuple[float, float]:
    """The corner nearest (``x``, ``y``) — steps of half the label's height up or down, of
    its width aside — where a ``w`` x ``h`` label lies in ``window`` and covers nothing of
    ``avoid``; (``x``, ``y``) kept in the window when every spot covers something."""

    def inside(px: float, py: float) -> tuple[float, float]:
        return (min(max(px, window[0] + 2), window[2] - w - 2),
                min(max(py, window[1] + 2), window[3] - h - 2))

    reach = (x - 2 * w, y - 5 * h, x + 3 * w, y + 6 * h)
    near = [b for b in avoid
            if b[0] < reach[2] and b[2] > reach[0] and b[1] < reach[3] and b[3] > reach[1]]
    for dy, dx in _STEPS:
        px, py = inside(x + dx * (w + 4), y + dy * h)
        if not any(px < b[2] and b[0] < px + w and py < b[3] and b[1] < py + h
                   for b in near):
            return px, py
    return inside(x, y)


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
