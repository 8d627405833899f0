"""A submission's messages: each audience's View and board text are built only when a
frontend reads them, once, and say the same as views built directly from the state."""

from __future__ import annotations

from typing import Any

import pytest

from adjudicator.kernel.events import GM, PUBLIC
from bot.service import GameService
from tests.bot.test_service_support import BLUE, GM_ACTOR, RED, make_service, new_game, play


@pytest.fixture
def service(db_url: str) -> GameService:
    return make_service(db_url)


def counting(service: GameService, game_id: str, monkeypatch: pytest.MonkeyPatch
             ) -> dict[str, list[str]]:
    """Count the game's make_view and board_text calls, by viewer."""
    game = service.rules(game_id)
    calls: dict[str, list[str]] = {"views": [], "boards": []}
    make_view, board_text = game.make_view, game.board_text

    def view(state: Any, viewer: str) -> Any:
        calls["views"].append(viewer)
        return make_view(state, viewer)

    def board(view: Any) -> str:
        calls["boards"].append(view.viewer)
        return board_text(view)

    monkeypatch.setattr(game, "make_view", view)
    monkeypatch.setattr(game, "board_text", board)
    return calls


def test_views_and_boards_are_built_only_when_read(service: GameService,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    game_id = new_game(service)
    calls = counting(service, game_id, monkeypatch)
    result = service.submit(game_id, RED, "trap 1")
    assert result.ok and calls == {"views": [], "boards": []}
    public = result.messages[PUBLIC]
    assert public.lines and public.to_act == "red"
    assert calls["views"] == []  # lines, prompt and who acts need no view
    view = public.view
    assert view is not None and view.viewer == PUBLIC and public.view is view
    assert calls == {"views": [PUBLIC], "boards": []}
    red = result.messages["red"]
    assert "[trap]" in red.board and red.board is red.board
    assert calls == {"views": [PUBLIC, "red"], "boards": ["red"]}


def test_lazy_messages_match_views_built_from_the_state(service: GameService) -> None:
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"))
    result = service.submit(game_id, RED, "move r2 3")
    game, state = service.rules(game_id), service.load_state(game_id)
    for viewer in (PUBLIC, "red", "blue", GM):
        message = result.messages[viewer]
        direct = game.view(state, viewer)
        assert message.view is not None
        assert message.view.model_dump() == direct.model_dump()
        assert message.board == game.board_text(direct)
    assert "[trap]" not in result.messages["blue"].board


def test_a_pending_decision_is_told_only_to_its_side(service: GameService) -> None:
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"))
    service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6, 6]}, "test hit")
    result = service.submit(game_id, BLUE, "attack b2 3")
    owing = result.pending_side
    assert owing is not None
    assert result.messages[owing].options and result.messages[GM].options
    others = [v for v in (PUBLIC, "red", "blue") if v != owing]
    for viewer in others:
        message = result.messages[viewer]
        assert not message.options and message.prompt and "waiting for" in message.prompt


def test_an_idempotent_replay_keeps_lines_without_views(service: GameService) -> None:
    game_id = new_game(service)
    first = service.submit(game_id, RED, "trap 2", "key-1")
    again = service.submit(game_id, RED, "trap 2", "key-1")
    assert again.duplicate
    assert again.messages[PUBLIC].lines == first.messages[PUBLIC].lines
    assert again.messages[PUBLIC].view is None and again.messages["red"].board == ""
