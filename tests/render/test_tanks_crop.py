"""Stalin's Tanks: the posted picture is the crop, and the crop holds every hex the last
action touched (issue 29: pictures worth posting)."""

from __future__ import annotations

import random

from adjudicator.tanks.data import load_pack
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.last_action import BarrageEntry, LastAction, MoveEntry, ShotEntry
from adjudicator.tanks.views import TanksView
from render import tanks


def _hex(rng: random.Random, columns: int, rows: int) -> str:
    return f"{rng.randint(1, columns):02d}{rng.randint(1, rows):02d}"


def test_29_the_crop_holds_every_hex_the_last_action_touched() -> None:
    """Moves (6.0), shots (9.0) and barrages anywhere on the map, in random spread: each
    touched hex's centre lies in the crop's window, a hex's margin inside its edge where
    the map allows, and the crop is smaller than the whole map."""
    game, pack = TanksGame(), load_pack()
    view = game.view(game.setup("kursk-counterattack"), "public")
    assert isinstance(view, TanksView)
    size = tanks.build_static(pack, tanks.CROP_RADIUS).size
    rng = random.Random(29)
    for _ in range(60):
        columns, rows = view.columns or 15, view.rows or 10
        spread = rng.randint(1, 4)
        first = _hex(rng, columns, rows)

        def beside(at: int, most: int, spread: int = spread) -> int:
            return min(most, max(1, at + rng.randint(-spread, spread)))

        near = [first, *(f"{beside(int(first[:2]), columns):02d}"
                         f"{beside(int(first[2:]), rows):02d}" for _ in range(4))]
        last = LastAction(
            move=MoveEntry(unit="x", path=near[:3]),
            shot=ShotEntry.model_validate({"from": [near[3]], "to": near[4], "hit": False,
                                           "destroyed": False, "disrupted": False,
                                           "text": "MISS"}),
            barrage=BarrageEntry(target=near[0], hexes=[near[1]]))
        shown = view.model_copy(update={"last_action": last})
        (x0, y0, x1, y1), centre = tanks.crop_window(shown, pack)
        assert x1 - x0 < size[0] or y1 - y0 < size[1]
        for name in last.hexes():
            x, y = centre(name)
            assert x0 <= x <= x1 and y0 <= y <= y1, (name, (x0, y0, x1, y1))
