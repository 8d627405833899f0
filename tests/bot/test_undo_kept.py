"""Undoing an order just given (or a GM's rollback of the last action) returns to the state
the service planned that order on, kept for the most recent games: no replay from a
snapshot. A kept state is used only while the action it precedes is still the game's last
one: the undo of an action another process wrote rebuilds what it returns to. On both
backends."""

from __future__ import annotations

from typing import Any

import pytest

from bot.service import GameService
from tests.bot.test_service_support import GM_ACTOR, RED, make_service, new_game, play


def no_rebuild(service: GameService, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    rebuild = service._rebuild

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return rebuild(*args, **kwargs)

    monkeypatch.setattr(service, "_rebuild", counted)
    return calls


def test_an_undo_returns_to_the_kept_state_without_replaying(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    service = make_service(db_url, snapshot_every=1000, snapshot_replay_ms=1e9)
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"))
    before = service.load_state(game_id)  # (drops the current state from the cache)
    play(service, game_id, (RED, "standing casualty lose"))
    rebuilt = no_rebuild(service, monkeypatch)
    undone = service.undo(game_id, RED)
    assert undone.ok, undone.error
    assert rebuilt == []
    assert service.store.game(game_id)["state_hash"] == before.state_hash()  # type: ignore[index]
    fresh = make_service(db_url)
    assert fresh.load_state(game_id) == before
    # a GM's rollback of the last action takes the kept state too
    play(service, game_id, (RED, "standing casualty off"))
    head = service.info(game_id).head_seq
    assert service.rollback(game_id, GM_ACTOR, head - 1, "test").ok
    assert rebuilt == [] and service.load_state(game_id) == before


def test_undoing_what_another_process_wrote_rebuilds_the_state(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    service = make_service(db_url)
    other = make_service(db_url)  # another process on the same database
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "standing casualty lose"))
    play(other, game_id, (RED, "standing casualty off"))
    expected = other.load_state(game_id)
    play(other, game_id, (RED, "move r2 3"))
    rebuilt = no_rebuild(service, monkeypatch)
    undone = service.undo(game_id, RED)  # takes back 'move r2 3', which it did not plan
    assert undone.ok, undone.error
    assert [call[3] for call in rebuilt if len(call) > 3] == [3]  # the state at action 3
    assert service.load_state(game_id) == expected
