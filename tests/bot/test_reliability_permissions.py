"""Permissions: the other side, a stranger, a player calling GM operations.

Every attempt is refused with a message that says why, and the database is byte-for-byte
the same afterwards (every table's rows compared).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bot.service import GameService, PermissionDenied, SubmitResult
from tests.bot.test_service_support import BLUE, GM_ACTOR, RED, STRANGER, make_service, new_game

#: Every table a refused request could touch, ordered by its key.
TABLES = {"games": "id", "seats": "id", "entropy": "id", "actions": "game_id, seq",
          "snapshots": "game_id, seq", "idempotency": "game_id, key", "audit": "id",
          "dice_seeds": "game_id, from_branch", "meta": "key"}


def dump(service: GameService) -> dict[str, list[dict[str, Any]]]:
    return {name: service.store.query(f"SELECT * FROM {name} ORDER BY {key}")
            for name, key in TABLES.items()}


@pytest.fixture
def game(db_url: str) -> tuple[GameService, str]:
    service = make_service(db_url)
    game_id = new_game(service)
    assert service.submit(game_id, RED, "trap 1").ok
    return service, game_id


REFUSED_RESULTS: list[tuple[str, Callable[[GameService, str], SubmitResult], str]] = [
    ("blue plays red's move", lambda s, g: s.submit(g, BLUE, "move r2 3", "k1"),
     "it is red's turn, not blue's"),
    ("blue names red's side", lambda s, g: s.submit(g, BLUE, "move r2 3", "k2", side="red"),
     "you hold no seat for red; you play blue"),
    ("red answers for blue", lambda s, g: s.submit(g, RED, "pass", "k3", side="blue"),
     "you hold no seat for blue; you play red"),
    ("a stranger plays", lambda s, g: s.submit(g, STRANGER, "move r2 3", "k4"),
     "you are not seated in game"),
    ("a player overrides", lambda s, g: s.override(g, RED, {"op": "force-dice", "values": [6]},
                                                   "luck"), "only the game's GM may override"),
    ("a stranger overrides", lambda s, g: s.override(
        g, STRANGER, {"op": "edit", "name": "move-unit", "args": {}}, "x"),
     "only the game's GM may override"),
    ("a player rolls back", lambda s, g: s.rollback(g, BLUE, 0, "I lost"),
     "only the game's GM may roll back"),
    ("a stranger undoes", lambda s, g: s.undo(g, STRANGER), "you play no side"),
    ("blue undoes red's order", lambda s, g: s.undo(g, BLUE),
     "your last order is not the game's last action"),
]


@pytest.mark.parametrize(("what", "call", "message"), REFUSED_RESULTS,
                         ids=[r[0] for r in REFUSED_RESULTS])
def test_refused_and_nothing_stored(game: tuple[GameService, str], what: str,
                                    call: Callable[[GameService, str], SubmitResult],
                                    message: str) -> None:
    service, game_id = game
    before = dump(service)
    result = call(service, game_id)
    assert result.status == "refused", what
    assert message in str(result.error), result.error
    assert result.messages == {}
    assert dump(service) == before


ADMIN: list[tuple[str, Callable[[GameService, str], object], str]] = [
    ("preview", lambda s, g: s.rollback_preview(g, RED, 0), "only the game's GM may roll back"),
    ("roll forward", lambda s, g: s.roll_forward(g, BLUE), "only the game's GM may roll forward"),
    ("deadline", lambda s, g: s.set_deadline(g, RED, 60), "only the game's GM may set deadlines"),
    ("seed", lambda s, g: s.reveal_seed(g, GM_ACTOR), "secret until the game is over"),
    ("seat", lambda s, g: s.seat(g, RED, "blue", STRANGER), "only the game's GM may seat"),
    ("seat a GM", lambda s, g: s.seat(g, STRANGER, None, STRANGER, role="gm"),
     "only the game's GM may seat"),
    ("view", lambda s, g: s.view(g, BLUE, "gm"), "you may not see the gm view"),
]


@pytest.mark.parametrize(("what", "call", "message"), ADMIN, ids=[a[0] for a in ADMIN])
def test_gm_operations_refuse_players(game: tuple[GameService, str], what: str,
                                      call: Callable[[GameService, str], object],
                                      message: str) -> None:
    service, game_id = game
    before = dump(service)
    with pytest.raises(PermissionDenied, match=message):
        call(service, game_id)
    assert dump(service) == before


def test_gm_seats_a_second_gm_who_may_then_override(game: tuple[GameService, str]) -> None:
    service, game_id = game
    service.seat(game_id, GM_ACTOR, None, STRANGER, role="gm")
    assert service.override(game_id, STRANGER, {"op": "force-dice", "values": [3]}, "help").ok
