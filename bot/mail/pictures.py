"""Map pictures for mail: one audience's View -> PNG, drawn with the game's own data pack."""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

from adjudicator.kernel.views import View

log = logging.getLogger("umpire.mail")


@lru_cache(maxsize=8)
def _pack(game: str, path: str | None) -> Any:
    import render

    return render.load_pack(game, path)


def picture(view: View, pack: str | None) -> bytes | None:
    """The PNG of ``view`` (None for a game without pictures, or if drawing fails: the mail
    goes out with its text alone)."""
    import render

    try:
        return render.render(view, _pack(view.game, pack))
    except render.NoPicture:
        return None
    except Exception:
        log.warning("no picture for a %s view", view.game, exc_info=True)
        return None
