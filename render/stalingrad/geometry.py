"""Turning Point: Stalingrad's geometry for a web page's SVG layer: every Area (and the east
bank) as its polygon, every Zone as its box in the panel, in the pixels of the full picture
(:func:`render.stalingrad.draw` at ``scale``), read from the same static layer."""

from __future__ import annotations

from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.data_models import StalingradPack
from adjudicator.stalingrad.views import StalingradView
from render.shapes import Geometry, Shape
from render.stalingrad.layout import DEFAULT_SCALE
from render.stalingrad.static import build_static


def stalingrad_geometry(view: StalingradView, pack: StalingradPack | None = None, *,
                        scale: int = DEFAULT_SCALE) -> Geometry:
    """The Areas and Zones of the picture of ``view`` (the board is the same for every View:
    nothing here depends on what the viewer knows)."""
    pack = pack or load_pack()
    st = build_static(pack, scale)
    shapes = [Shape(key, "area", tuple(geo.polygon), geo.centre, geo.label)
              for key, geo in st.spaces.items()]
    for letter, (x0, y0, x1, y1) in sorted(st.zone_cells.items()):
        centre = ((x0 + x1) / 2, (y0 + y1) / 2)
        shapes.append(Shape(letter, "zone",
                            ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), centre,
                            (centre[0], y0 + (y1 - y0) * 0.15)))
    return Geometry(view.game, st.size, tuple(shapes))
