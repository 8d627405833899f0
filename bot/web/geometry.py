"""The map's geometry in the picture's pixels, for the page's SVG layer (pointing and
highlighting over the map picture): Stalin's Tanks' hexes (centres, radius) and the drawn
units' counters of the link's own View; Turning Point: Stalingrad's Areas (outlines, label
and centre) and Zones (boxes). Read from the renderer's own layout, so the layer matches
the picture; a unit's counter comes from the View the picture is drawn from, so the layer
holds no unit the picture does not show."""

from __future__ import annotations

from typing import Any

from adjudicator.kernel.views import View


def _point(p: tuple[float, float]) -> list[float]:
    return [round(p[0], 1), round(p[1], 1)]


def geometry(view: View, pack: Any) -> dict[str, Any]:
    """The geometry of the picture of ``view`` drawn with ``pack`` (its whole map)."""
    if view.game == "tanks":
        return _tanks(view, pack)
    if view.game == "stalingrad":
        return _stalingrad(pack)
    return {"game": view.game}


def _tanks(view: Any, pack: Any) -> dict[str, Any]:
    from render import tanks

    st = tanks.build_static(pack)
    hexes = [{"id": str(h), "centre": _point(tanks.centre(st.origin, st.radius, h))}
             for h in pack.map.terrain]
    units = {uid: {"centre": _point(at), "size": size}
             for uid, (at, size) in tanks.counter_boxes(view, pack, st.radius).items()}
    return {"game": "tanks", "size": list(st.size), "radius": st.radius,
            "corners": "flat-topped hexagon: centre + radius at 0, 60, ... 300 degrees",
            "hexes": hexes, "units": units}


def _stalingrad(pack: Any) -> dict[str, Any]:
    from render.stalingrad.static import build_static

    st = build_static(pack)
    areas = [{"id": key, "polygon": [_point(p) for p in space.polygon],
              "label": _point(space.label), "centre": _point(space.centre)}
             for key, space in st.spaces.items()]
    zones = {key: list(box) for key, box in st.zone_cells.items()}
    return {"game": "stalingrad", "size": list(st.size), "areas": areas, "zones": zones}
