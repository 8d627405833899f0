"""A Turning Point: Stalingrad View built from kept parts (issue 26): unit and Area views
shared by content, the units' order kept by the order a state holds them in — the same
View as one built with nothing kept, whatever order the state's units dict is in."""

from __future__ import annotations

import pytest

from adjudicator.kernel.memo import Memo
from adjudicator.stalingrad import views as views_module
from adjudicator.stalingrad.game import StalingradGame
from tests.render.games import random_game

GAME = StalingradGame()


@pytest.mark.parametrize(("scenario", "seed"), [("historical", 8), ("basic", 13)])
def test_a_view_of_kept_parts_is_a_view_built_afresh(scenario: str, seed: int,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """In game order, every viewer (each sees its own ``last_action``); then each View
    again with nothing kept, and from the state with its units in reverse order."""
    steps = random_game(GAME, scenario, 40, seed)
    kept = [{viewer: GAME.view(step.state, viewer).model_dump()
             for viewer in (*GAME.sides, "public", "gm")} for step in steps]
    assert any(a["rubble"] for v in kept for a in v["public"]["areas"])
    assert any(v["public"]["last_action"] for v in kept)
    for step, made in zip(steps, kept, strict=True):
        monkeypatch.setattr(views_module, "_PARTS", Memo(size=16))  # nothing kept
        for viewer, data in made.items():
            assert GAME.view(step.state, viewer).model_dump() == data
        ids = [u["id"] for u in made["public"]["units"]]
        assert ids == sorted(ids) and len(ids) == len(step.state.units)
        turned = step.state.model_copy(deep=True)
        turned.units = dict(reversed(list(turned.units.items())))
        assert GAME.view(turned, "public").model_dump() == made["public"]
