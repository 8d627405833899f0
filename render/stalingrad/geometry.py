"""Turning Point: Stalingrad's geometry for a web page's SVG layer: every Area (and the east
bank) as its polygon, every Zone as its box in the panel, in the pixels of the full picture
(:func:`render.stalingrad.draw` at ``scale``), read from the same static layer; and each
stack the picture draws in an Area (:func:`render.stalingrad.counters.stacks`, as the
picture places them): a unit's counter, or a group's (no unit: clicking it is clicking the
Area)."""

from __future__ import annotations

from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.data_models import StalingradPack
from adjudicator.stalingrad.views import StalingradView, UnitView
from render.shapes import Counter, Geometry, Shape
from render.stalingrad.counters import face_of, stacks, units_of_pack
from render.stalingrad.layout import DEFAULT_SCALE
from render.stalingrad.static import build_static


def stalingrad_geometry(view: StalingradView, pack: StalingradPack | None = None, *,
                        scale: int = DEFAULT_SCALE) -> Geometry:
    """The Areas and Zones of the picture of ``view`` (the same for every View) and the
    stacks it draws (from the View: what the viewer may see)."""
    pack = pack or load_pack()
    st = build_static(pack, scale)
    shapes = [Shape(key, "area", tuple(geo.polygon), geo.centre, geo.label)
              for key, geo in st.spaces.items()]
    for letter, (x0, y0, x1, y1) in sorted(st.zone_cells.items()):
        centre = ((x0 + x1) / 2, (y0 + y1) / 2)
        shapes.append(Shape(letter, "zone",
                            ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), centre,
                            (centre[0], y0 + (y1 - y0) * 0.15)))
    by_space: dict[str, list[UnitView]] = {}
    for unit in view.units:
        by_space.setdefault(unit.loc, []).append(unit)
    pack_units = units_of_pack(pack)
    counters: list[Counter] = []
    for space, units in by_space.items():
        if space not in st.spaces:
            continue
        faces = {u.id: face_of(u, pack_units) for u in units}
        size = st.spaces[space].counter
        for members, at in stacks(st, space, units, faces):
            counters.append(Counter(members[0].id if len(members) == 1 else "", space, at,
                                    size))
    return Geometry(view.game, st.size, tuple(shapes), counters=tuple(counters))
