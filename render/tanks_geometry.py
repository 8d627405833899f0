"""Stalin's Tanks' geometry for a web page's SVG layer: every hex as its hexagon in the pixels
of the full picture (:func:`render.tanks.draw` at ``radius``), the set-up zones the View names
while a side sets up (4.0), and each counter the picture draws (the View's own units only:
a hidden unit is in the View of those who may see it, and nowhere else)."""

from __future__ import annotations

from adjudicator.tanks.data import TanksPack, load_pack
from adjudicator.tanks.views import TanksView
from render.shapes import Counter, Geometry, Shape
from render.tanks import DEFAULT_RADIUS, build_static, centre, counter_boxes, hex_corners


def tanks_geometry(view: TanksView, pack: TanksPack | None = None, *,
                   radius: int = DEFAULT_RADIUS) -> Geometry:
    pack = pack or load_pack()
    st = build_static(pack, radius)
    shapes = []
    for h in sorted(pack.map.terrain, key=str):
        c = centre(st.origin, radius, h)
        shapes.append(Shape(str(h), "hex", tuple(hex_corners(c, radius)), c,
                            (c[0], c[1] - radius * 0.84)))
    where = {u.id: u.hex or "" for u in view.units}
    counters = tuple(Counter(uid, where[uid], at, size)
                     for uid, (at, size) in sorted(counter_boxes(view, pack, radius).items()))
    zones = {side: sorted(keys) for side, keys in sorted(view.setup_zone.items())}
    return Geometry(view.game, st.size, tuple(shapes), zones, counters)
