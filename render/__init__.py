"""Pictures of the map: a game's View (plus its data pack) -> PNG bytes.

``render(view, pack=None, crop=False)`` dispatches on ``view.game``. The renderers never see a
game state: only what the viewer may know, the View (its ``last_action`` record is what the
highlight draws). See ``docs/render.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import Image

from adjudicator.kernel.views import View

GAMES = ("stalingrad", "tanks")


class NoPicture(ValueError):
    """The game has no map picture (e.g. a plug-in game)."""


def load_pack(game: str, path: Path | str | None = None) -> Any:
    """The data pack a picture of ``game`` needs (``path``: a GM's replacement)."""
    if game == "stalingrad":
        from adjudicator.stalingrad.data import load_pack as load

        return load(path)
    if game == "tanks":
        from adjudicator.tanks.data import load_pack as load_tanks

        return load_tanks(Path(path) if path is not None else None)
    raise NoPicture(f"no map picture for the game {game!r}")


def prepare(game: str, path: Path | str | None = None, *views: View) -> None:
    """Build ``game``'s static picture layers (for its pack at ``path``, default the shipped
    one) now, so that the first picture does not pay for them; with ``views`` (fresh
    set-ups'), draw each as the frontends do, which readies the sprites and fonts as well.
    A frontend calls it at start-up; a game without pictures is skipped."""
    try:
        pack = load_pack(game, path)
    except NoPicture:
        return
    if game == "stalingrad":
        from render import stalingrad

        stalingrad.prepare(pack)
    elif game == "tanks":
        from render import tanks

        tanks.prepare(pack)
    for view in views:
        for crop in (False, True):
            render(view, pack, crop=crop)


def draw(view: View, pack: Any = None, *, crop: bool = False) -> Image.Image:
    """The picture of ``view`` as a palette image."""
    if view.game == "stalingrad":
        from adjudicator.stalingrad.views import StalingradView
        from render import stalingrad

        assert isinstance(view, StalingradView)
        return stalingrad.draw(view, pack, crop=crop)
    if view.game == "tanks":
        from adjudicator.tanks.views import TanksView
        from render import tanks

        assert isinstance(view, TanksView)
        return tanks.draw(view, pack, crop=crop)
    raise NoPicture(f"no map picture for the game {view.game!r}")


def render(view: View, pack: Any = None, *, crop: bool = False) -> bytes:
    """PNG bytes of the picture of ``view`` (``crop``: zoomed on the last action)."""
    from render.common import encode_png

    return encode_png(draw(view, pack, crop=crop))
