"""A Turning Point: Stalingrad game played through the service reaches its result (19,
the Sawmill's rule 3): the game records it and the service marks the game finished; the
optional rules are chosen when the game is created."""

from __future__ import annotations

from pathlib import Path

import pytest

from adjudicator.stalingrad.game import StalingradGame
from bot.service import Actor, GameService, InvalidOperation
from tests.bot.test_service_support import GM_ACTOR, make_service

GERMAN = Actor.discord("11")
RUSSIAN = Actor.discord("12")
pytestmark = pytest.mark.skipif(not StalingradGame().has_pack(),
                                reason="needs the shipped data pack")


def started(service: GameService, scenario: str, **options: object) -> str:
    info = service.create_game(GM_ACTOR, "stalingrad", scenario, options)
    service.seat(info.id, GM_ACTOR, "german", GERMAN)
    service.seat(info.id, GM_ACTOR, "russian", RUSSIAN)
    service.start(info.id, GM_ACTOR)
    return info.id


def test_a_sawmill_game_ends_with_its_result_and_is_finished(tmp_path: Path) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = started(service, "sawmill")
    actors = {"german": GERMAN, "russian": RUSSIAN}
    for side in actors:
        assert service.submit(game_id, actors[side], "standing advantage never").ok
    for _ in range(400):
        info = service.info(game_id)
        if info.status == "finished":
            break
        side = info.to_act
        assert side is not None
        legal = service.legal_orders(game_id, actors[side])
        order = "rubble" if "rubble" in legal else "pass" if "pass" in legal else legal[0]
        result = service.submit(game_id, actors[side], order)
        assert result.ok, (order, result.error)
    info = service.info(game_id)
    assert info.status == "finished"
    # Nobody attacked: the German holds no South Victory Point Area on September 19.
    assert info.result is not None and info.result.startswith("russian wins: German 0 VP")
    refused = service.submit(game_id, GERMAN, "pass")
    assert refused.status == "refused"


def test_optional_rules_are_checked_when_the_game_is_created(tmp_path: Path) -> None:
    service = make_service(tmp_path / "u.db")
    with pytest.raises(InvalidOperation) as error:
        service.create_game(GM_ACTOR, "stalingrad", "sawmill", {"tie_breaker": 1})
    assert "tie_breaker" in str(error.value) and "bids" in str(error.value)
    with pytest.raises(InvalidOperation):
        service.create_game(GM_ACTOR, "stalingrad", "historical", {"tie_breaker": 12})
    info = service.create_game(GM_ACTOR, "stalingrad", "historical", {"tie_breaker": 2})
    assert info.status == "setup"


def test_bids_through_the_service_keep_the_secret_and_exchange_the_seats_22_1(
        tmp_path: Path) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = started(service, "historical", bids=True)
    assert service.info(game_id).to_act == "german"
    sealed = service.submit(game_id, GERMAN, "bid -17")
    assert sealed.ok
    for audience, message in sealed.messages.items():
        if audience != "german" and audience != "gm":
            assert "-17" not in " ".join(message.lines), (audience, message.lines)
    assert "-17" in " ".join(sealed.messages["german"].lines)
    revealed = service.submit(game_id, RUSSIAN, "bid 4")
    assert revealed.ok and "seats are exchanged" in " ".join(revealed.messages["public"].lines)
    seats = {s.side: s.discord_id for s in service.info(game_id).seats if s.role == "player"}
    assert seats == {"german": RUSSIAN.discord_id, "russian": GERMAN.discord_id}
    # the new German (the former Russian seat) rolls the initial Rubble
    assert service.submit(game_id, RUSSIAN, "standing advantage never").ok
    assert service.submit(game_id, RUSSIAN, "rubble").ok
