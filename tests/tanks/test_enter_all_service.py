"""6.5 through the game service: ``enter all`` is stored as the ordinary moves it stands
for, one action each, so the record replays and verifies as if they were typed."""

from __future__ import annotations

import pytest

from bot.records import verify
from bot.service import Actor, GameService
from tests.bot.test_service_support import GM_ACTOR, make_service

SEED = bytes(range(32))
GERMAN, SOVIET = Actor.discord("31"), Actor.discord("32")


@pytest.fixture
def service(db_url: str) -> GameService:
    return make_service(db_url, seed_source=lambda n: SEED[:n])


def test_6_5_enter_all_is_stored_as_one_move_per_unit_and_verifies(
        service: GameService) -> None:
    """6.5: the service stores each move of the expansion as its own action (the order's
    text, not the shorthand); a refused shorthand stores nothing; the record verifies."""
    info = service.create_game(GM_ACTOR, "tanks", "kursk-salient")
    service.seat(info.id, GM_ACTOR, "german", GERMAN)
    service.seat(info.id, GM_ACTOR, "soviet", SOVIET)
    service.start(info.id, GM_ACTOR)
    game = service.rules(info.id)
    actors = {"german": GERMAN, "soviet": SOVIET}
    state = service.load_state(info.id)
    placed: set[str] = set()  # each unit once: a placed unit may be set up again until done
    while state.phase == "setup":  # type: ignore[attr-defined]
        side = game.acting_side(state)
        assert side is not None
        placing = [o for o in game.legal_orders(state, side)
                   if o.startswith(("place", "hide")) and o.split()[1] not in placed]
        if placing:
            placed.add(placing[0].split()[1])
        assert service.submit(info.id, actors[side], placing[0] if placing else "done").ok
        state = service.load_state(info.id)
    before = len(service.store.actions(info.id))
    refused = service.submit(info.id, GERMAN, "enter all at 0505-1501")
    assert refused.status == "refused" and refused.error_rule == "6.5"
    assert len(service.store.actions(info.id)) == before
    result = service.submit(info.id, GERMAN, "enter all at 0101-3101 face S")
    assert result.status == "applied", result.error
    rows = service.store.actions(info.id)[before:]
    assert len(rows) == 33 == len(result.seqs)
    assert rows[0]["text"] == "move iia-1 0101 face S"
    assert all(row["text"].startswith("move ") for row in rows)
    assert rows[-1]["text"] == "move ht-8 0301 0302"
    assert verify(service.export(info.id, GM_ACTOR).lines).ok
