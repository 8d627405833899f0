"""The map's geometry for pointing and highlighting: each space the picture draws (a Turning
Point: Stalingrad Area or Zone box, a Stalin's Tanks hex) as a shape in the picture's own
pixel coordinates, computed from the same static layer the picture is drawn from (so a shape
lies exactly over its space), plus what the View adds (a Stalin's Tanks set-up zone, the
counters drawn on the map).

``geometry(view, pack)`` -> :class:`Geometry`; ``.as_json()`` is what a web page draws as an
SVG layer over the picture. It reads only the View and the pack: nothing a viewer may not
know (a hidden unit's counter is listed only in the View of those who see it)."""

from __future__ import annotations

from typing import Any

from adjudicator.kernel.views import View
from render.shapes import Counter, Geometry, Shape

__all__ = ["Counter", "Geometry", "Shape", "geometry"]


def geometry(view: View, pack: Any = None) -> Geometry:
    """The geometry of the full picture :func:`render.render` draws of ``view``."""
    if view.game == "stalingrad":
        from adjudicator.stalingrad.views import StalingradView
        from render.stalingrad.geometry import stalingrad_geometry

        assert isinstance(view, StalingradView)
        return stalingrad_geometry(view, pack)
    if view.game == "tanks":
        from adjudicator.tanks.views import TanksView
        from render.tanks_geometry import tanks_geometry

        assert isinstance(view, TanksView)
        return tanks_geometry(view, pack)
    from render import NoPicture

    raise NoPicture(f"no map picture for the game {view.game!r}")
