"""A viewer's last-action record (:meth:`ActionRecord.for_viewer`) holds deep copies of the
entries it may see, made by the kernel's copy of JSON-like data (issue 26): equal to
pydantic's deep copies, and sharing nothing the state's record holds."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from adjudicator.kernel.events import may_see
from adjudicator.kernel.game import Game
from adjudicator.kernel.last_action import ActionRecord, Entry
from adjudicator.registry import load_game
from tests.render.games import random_game


def deep_way(record: ActionRecord, viewer: str) -> ActionRecord:
    """The record as ``model_copy(deep=True)`` of each entry seen makes it."""
    update: dict[str, Any] = {}
    for name in type(record).model_fields:
        value = getattr(record, name)
        if isinstance(value, Entry):
            update[name] = (value.model_copy(deep=True) if may_see(value.audience, viewer)
                            else None)
        elif isinstance(value, list):
            update[name] = [item.model_copy(deep=True) if isinstance(item, BaseModel)
                            else item for item in value
                            if not isinstance(item, Entry) or may_see(item.audience, viewer)]
    return record.model_copy(update=update)


def _nested(value: Any) -> list[Any]:
    """Every list and model inside ``value`` (what a shared object would be)."""
    out: list[Any] = []
    if isinstance(value, BaseModel):
        out.append(value)
        for item in value.__dict__.values():
            out += _nested(item)
    elif isinstance(value, list):
        out.append(value)
        for item in value:
            out += _nested(item)
    return out


@pytest.mark.parametrize(("name", "scenario", "seed"),
                         [("stalingrad", "historical", 4), ("tanks", None, 9)])
def test_a_viewers_record_is_a_deep_copy_of_what_it_may_see(name: str, scenario: str | None,
                                                            seed: int) -> None:
    game: Game[Any] = load_game(name)
    records = 0
    for step in random_game(game, scenario, 40, seed):
        record = getattr(step.state, "last_action", None)
        if not isinstance(record, ActionRecord):
            continue
        records += 1
        for viewer in (*game.sides, "public", "gm"):
            seen = record.for_viewer(viewer)
            assert seen == deep_way(record, viewer)
            theirs = {id(part) for part in _nested(record)}
            assert not any(id(part) in theirs for part in _nested(seen)[1:])
    assert records
