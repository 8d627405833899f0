"""The Views of a game's state are kept with it (issue 26): the public View a frontend built
for its picture is the one the next order's dice position (27.6, ``bot.dice_reuse``) digests
— no View built again — and the position is the public View's digest either way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adjudicator.kernel.events import PUBLIC
from adjudicator.stalingrad.game import StalingradGame
from bench.common import played
from bot.dice_reuse import POSITION, public_position
from bot.service import GameService
from bot.store import Store, loads


def test_27_6_a_rolling_orders_position_reads_the_kept_public_view(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A random TP:S game through the service; the public View of every other result is
    read (as the bot reads it to draw the map). Each order that rolled dice recorded the
    digest of the public View of the position it was given in, and built no View for it
    when that View had been read."""
    service = GameService(Store(tmp_path / "games.db"))
    built: list[str] = []
    make_view = StalingradGame.make_view

    def counting(self: StalingradGame, state: Any, viewer: str) -> Any:
        built.append(viewer)
        return make_view(self, state, viewer)

    monkeypatch.setattr(StalingradGame, "make_view", counting)
    read = False  # whether the public View of the position was read
    rolled = {True: 0, False: 0}
    for table, actor, text in played(service, "stalingrad", ["historical"], 90, seed=5):
        game_id = table.game_id
        before = service._load(game_id)
        built.clear()
        result = service.submit(game_id, actor, text, table.key())
        during = list(built)
        if not result.ok:
            continue
        row = service.store.action(game_id, result.seqs[0])
        assert row is not None
        position = (loads(row["payload"], None) or {}).get(POSITION)
        if position is not None:
            rolled[read] += 1
            assert position == public_position(before.game, before.state)
            assert during == ([] if read else [PUBLIC])
        read = not read
        if read:
            assert result.messages[PUBLIC].view is not None
    assert rolled[True] and rolled[False]
