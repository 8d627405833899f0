"""What a View puts on a Turning Point: Stalingrad map, worked out once and painted fast.

A :class:`Plan` lists, in drawing order and in full-picture pixels of one :class:`Static`,
the board's marks (German Control tints, Rubble and Contested tags and outlines) and the
counters of every stack. Painting it is a run of pastes straight into the image's core; a
window (the zoomed picture) paints only what reaches into it, which draws the same pixels
as painting everything, since whatever lies outside a window leaves it untouched.

What makes it cheap:

* each space's stacks are worked out once per set of unit views (the View's unit views are
  shared between Views of a game, :func:`adjudicator.stalingrad.views.build_view`);
* the board with its marks (:func:`board_layer`) changes a few times in a game: the last
  few are kept per Static, so the full map starts from a copy of the right one.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw

from adjudicator.kernel.memo import Memo
from adjudicator.stalingrad.data_models import StalingradPack
from adjudicator.stalingrad.views import StalingradView, UnitView
from render.common import outline_polygon
from render.stalingrad.counters import face_of, stack_sprite, stacks, units_of_pack
from render.stalingrad.layout import DEFAULT_SCALE, Point, Static

#: A paste: (x0, y0, x1, y1 — bounds for culling, full-picture pixels), the top-left corner
#: as drawn before rounding, the sprite and its mask (or None).
Paste = tuple[float, float, float, float, float, float, Image.Image, Image.Image | None]
#: An outline: bounds, the polygon (full-picture pixels), palette index, width.
Outline = tuple[float, float, float, float, list[Point], int, int]
#: A stack drawn as one counter: (space, its units, its centre).
Grouped = tuple[str, list[UnitView], Point]

#: Board layers kept per Static (each a copy of the whole picture).
BOARD_LAYERS = 4
#: Boards' marks kept per Static (all dropped when full).
BOARDS_KEPT = 256
#: Spaces' stacks kept per Static (all dropped when full).
STACKS_KEPT = 8192


@dataclass
class Plan:
    """The dynamic content of one View on one Static, in drawing order."""

    board_key: tuple[object, ...]
    board: list[Paste | Outline]
    counters: list[Paste]
    grouped: list[Grouped]
    #: each space's stacks as planned (what the next View's plan takes for the spaces
    #: whose units it shares) and the Contested spaces
    spaces: dict[str, _Stacks] = field(default_factory=dict)
    contested: frozenset[str] = frozenset()


#: A space's stacks: its units, the pastes of its counters and its grouped stacks.
_Stacks = tuple[tuple[UnitView, ...], list[Paste], list[Grouped]]


@dataclass
class _Kept:
    """What is kept per Static: stacks per space and units, the last board layers."""

    stacks: dict[tuple[object, ...], _Stacks] = field(default_factory=dict)
    boards: dict[tuple[object, ...], list[Paste | Outline]] = field(default_factory=dict)
    layers: OrderedDict[tuple[object, ...], Image.Image] = field(default_factory=OrderedDict)
    last: tuple[StalingradView, Plan] | None = None  # the View planned last, and its plan


_KEPT = Memo[_Kept](size=16)
#: The kept board layers are shared by the threads drawing pictures.
_layers_lock = threading.Lock()


def _kept(st: Static) -> _Kept:
    return _KEPT.get((st,), "plan", _Kept)


def plan(st: Static, view: StalingradView, pack: StalingradPack) -> Plan:
    """The plan of ``view`` on ``st`` (see the module docstring); Views are read-only, so
    the plan of the View planned last is kept (a zoom plans its window's key first)."""
    kept = _kept(st)
    last = kept.last  # read once: another thread may plan another View meanwhile
    if last is not None and last[0] is view:
        return last[1]
    made = _plan(st, kept, view, pack, last)
    kept.last = (view, made)
    return made


def counter_boxes(the_plan: Plan) -> list[tuple[float, float, float, float]]:
    """Each counter's box as painted (full-picture pixels)."""
    return [(x, y, x + w, y + h) for _x0, _y0, _x1, _y1, x, y, sprite, _mask
            in the_plan.counters for w, h in [sprite.size]]


def _changed_spaces(view: StalingradView, last: tuple[StalingradView, Plan] | None
                    ) -> set[str] | None:
    """The spaces where ``view``'s units differ from those of the View planned last (a
    unit view is one object per content: one not the last View's at the same place in
    the list changed), or None: no View planned last, or another list of units."""
    if last is None or len(last[0].units) != len(view.units) or not last[1].spaces:
        return None
    changed: set[str] = set()
    for now, before in zip(view.units, last[0].units, strict=True):
        if now is not before:
            if now.id != before.id:
                return None
            changed.add(now.loc)
            changed.add(before.loc)
    return changed


def _plan(st: Static, kept: _Kept, view: StalingradView, pack: StalingradPack,
          last: tuple[StalingradView, Plan] | None = None) -> Plan:
    """The plan of ``view``; with the View planned last (``last``), made by difference:
    the spaces none of whose units changed take their stacks from its plan as they are
    (their units are the same objects in the same order), the rest are planned."""
    by_loc: dict[str, list[UnitView]] = {}
    for u in view.units:
        by_loc.setdefault(u.loc, []).append(u)
    changed = _changed_spaces(view, last)
    if changed is None or last is None:
        contested = {loc for loc, units in by_loc.items()
                     if len(units) > 1 and any(u.side != units[0].side for u in units)}
        before: dict[str, _Stacks] = {}
    else:
        contested = {loc for loc in last[1].contested if loc not in changed}
        contested |= {loc for loc in changed if len(units := by_loc.get(loc, [])) > 1
                      and any(u.side != units[0].side for u in units)}
        before = {loc: stacks for loc, stacks in last[1].spaces.items() if loc not in changed}
    german = tuple(area.key for area in view.areas if area.control == "german")
    marks = tuple((area.key, area.rubble, area.key in contested) for area in view.areas
                  if area.rubble or area.key in contested)
    board_key = (german, marks)
    board = kept.boards.get(board_key)
    if board is None:
        board = _board_ops(st, german, marks)
        if len(kept.boards) >= BOARDS_KEPT:
            kept.boards.clear()
        kept.boards[board_key] = board
    counters: list[Paste] = []
    grouped: list[Grouped] = []
    spaces: dict[str, _Stacks] = {}
    pack_units: Any = None
    for loc, units in by_loc.items():
        if loc not in st.spaces:
            continue
        found = before.get(loc)
        if found is None:
            key = (loc, *map(id, units))
            found = kept.stacks.get(key)
            if found is None or not all(a is b for a, b in zip(found[0], units,
                                                                strict=True)):
                if pack_units is None:
                    pack_units = units_of_pack(pack)
                found = _stacks_of(st, loc, units, pack_units)
                if len(kept.stacks) >= STACKS_KEPT:
                    kept.stacks.clear()
                kept.stacks[key] = found
        spaces[loc] = found
        counters += found[1]
        grouped += found[2]
    return Plan(board_key, board, counters, grouped, spaces, frozenset(contested))


def _board_ops(st: Static, german: tuple[str, ...], marks: tuple[tuple[str, int, bool], ...]
               ) -> list[Paste | Outline]:
    """The marks on the board, in drawing order: the German-tinted board through each
    German-controlled Area's mask, then each marked Area's Rubble tag, Contested outline
    and tag (Areas in the View's order)."""
    board: list[Paste | Outline] = []
    for key in german:
        geo = st.spaces.get(key)
        if geo is None or geo.patch is None:
            continue
        x0, y0 = geo.bbox[0], geo.bbox[1]
        board.append((x0, y0, x0 + geo.patch.width, y0 + geo.patch.height, x0, y0,
                      geo.patch, geo.mask))
    fs_tag = max(7, round(0.2 * st.scale))
    width = max(2, round(3 * (st.scale / DEFAULT_SCALE)))
    for key, rubble, contested in marks:
        geo = st.spaces.get(key)
        if geo is None:
            continue
        tx, ty = geo.tag_at
        if rubble:
            tag = st.sprites.tag(f"R{rubble}", fs_tag, fg="white", bg="rubble")
            board.append(_paste_at(tag, tx, ty))
            tx += tag.width + 2
        if contested:
            xs = [p[0] for p in geo.polygon]
            ys = [p[1] for p in geo.polygon]
            board.append((min(xs) - width - 2, min(ys) - width - 2, max(xs) + width + 2,
                          max(ys) + width + 2, geo.polygon, st.palette["contested"], width))
            tag = st.sprites.tag("X", fs_tag, fg="white", bg="contested")
            board.append(_paste_at(tag, tx, ty))
    return board


def _paste_at(sprite: Image.Image, x: float, y: float) -> Paste:
    """A paste of ``sprite`` whose corner is drawn at ``round(x - dx), round(y - dy)``."""
    return (math.floor(x) - 1, math.floor(y) - 1, math.ceil(x) + sprite.width + 1,
            math.ceil(y) + sprite.height + 1, x, y, sprite, None)


def _stacks_of(st: Static, loc: str, units: list[UnitView], pack_units: Any) -> _Stacks:
    faces = {u.id: face_of(u, pack_units) for u in units}
    c = st.spaces[loc].counter
    pastes: list[Paste] = []
    grouped: list[Grouped] = []
    for members, (x, y) in stacks(st, loc, units, faces):
        pastes.append(_paste_at(stack_sprite(st.sprites, members, faces, c),
                                x - c / 2, y - c / 2))
        if len(members) > 1:
            grouped.append((loc, members, (x, y)))
    return tuple(units), pastes, grouped


def paint(canvas: Image.Image, ops: Sequence[Paste | Outline], offset: tuple[int, int] = (0, 0),
          window: tuple[float, float, float, float] | None = None) -> None:
    """Draw ``ops`` on ``canvas``, whose (0, 0) is the full picture's ``offset``; with a
    ``window`` (full-picture pixels) only the ops reaching into it."""
    dx, dy = offset
    core = canvas.im
    draw: ImageDraw.ImageDraw | None = None
    for op in ops:
        if window is not None and not (op[0] < window[2] and op[2] > window[0]
                                       and op[1] < window[3] and op[3] > window[1]):
            continue
        if len(op) == 8:
            sprite = op[6]
            x, y = round(op[4] - dx), round(op[5] - dy)
            w, h = sprite.size
            box = (x, y, x + w, y + h)
            if op[7] is None:
                core.paste(sprite.im, box)
            else:
                core.paste(sprite.im, box, op[7].im)
        else:
            if draw is None:
                draw = ImageDraw.Draw(canvas)
            outline_polygon(canvas, draw, [(x - dx, y - dy) for x, y in op[4]], op[5], op[6])


def board_layer(st: Static, the_plan: Plan) -> Image.Image:
    """The whole board with the plan's marks (Control, Rubble, Contested), from the last
    few kept (do not draw on it: copy it)."""
    kept = _kept(st)
    key = the_plan.board_key
    with _layers_lock:
        layer = kept.layers.get(key)
        if layer is not None:
            kept.layers.move_to_end(key)
            return layer
    layer = st.bases["russian"].copy()
    paint(layer, the_plan.board)
    with _layers_lock:
        kept.layers[key] = layer
        while len(kept.layers) > BOARD_LAYERS:
            kept.layers.popitem(last=False)
    return layer
