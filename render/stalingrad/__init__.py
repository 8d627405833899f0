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

Modules: ``layout`` (scales, space geometry, label placement), ``static`` (the layers drawn
once per pack), ``counters`` (faces, sprites, stacks), ``plan`` (what a View puts on the
map, worked out once and painted fast: the full map from the kept board layer, a zoom only
in its window), ``highlight`` (the last action),
``picture`` (the full picture and the crop), ``panel`` (the panel's dynamic half).
"""

from __future__ import annotations

from render.stalingrad.counters import (
    Face,
    counter_font,
    counter_size,
    counter_sprite,
    face_of,
    short_label,
    stack_groups,
    stack_lines,
    stacks,
    unit_face,
    units_of_pack,
)
from render.stalingrad.highlight import path_points
from render.stalingrad.layout import (
    CROP_SCALE,
    CROP_SIZE,
    DEFAULT_SCALE,
    MIN_TEXT,
    SpaceGeo,
    Static,
)
from render.stalingrad.panel import fits_inside, polygon_px
from render.stalingrad.picture import (
    crop_origin,
    crop_window,
    crop_zones,
    draw,
    label_boxes,
    render,
    touched_areas,
)
from render.stalingrad.static import build_static, prepare

__all__ = [
    "CROP_SCALE",
    "CROP_SIZE",
    "DEFAULT_SCALE",
    "MIN_TEXT",
    "Face",
    "SpaceGeo",
    "Static",
    "build_static",
    "counter_font",
    "counter_size",
    "counter_sprite",
    "crop_origin",
    "crop_window",
    "crop_zones",
    "draw",
    "face_of",
    "fits_inside",
    "label_boxes",
    "path_points",
    "polygon_px",
    "prepare",
    "render",
    "short_label",
    "stack_groups",
    "stack_lines",
    "stacks",
    "touched_areas",
    "unit_face",
    "units_of_pack",
]
