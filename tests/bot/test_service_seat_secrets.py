"""Seat secrets (the email frontend's second factor), resignation through the service, and
``updates``: what a frontend tells its users of actions taken elsewhere."""

from __future__ import annotations

import pytest

from adjudicator.kernel.events import PUBLIC
from bot import seat_secrets
from bot.service import Actor, GameService, InvalidOperation, PermissionDenied
from tests.bot.test_service_support import (
    BLUE,
    DUEL,
    GM_ACTOR,
    RED,
    make_service,
    new_game,
    play,
)


@pytest.fixture
def service(db_url: str) -> GameService:
    return make_service(db_url)


def test_generated_secrets_are_random_and_only_their_hash_is_stored(
        service: GameService) -> None:
    first, second = seat_secrets.new_secret(), seat_secrets.new_secret()
    assert first != second and len(first) == 14
    gid = service.create_game(GM_ACTOR, DUEL).id
    service.seat(gid, BLUE, "blue", BLUE, secret=first)
    (seat,) = [s for s in service.info(gid, BLUE).seats if s.side == "blue"]
    assert seat.secret and seat.email == "blue@example.org"
    raw = service.store.query("SELECT password_hash FROM seats WHERE side = 'blue'"
                              )[0]["password_hash"]
    assert first not in raw and raw.startswith("scrypt$")
    assert [s.side for s in service.unlocked_seats(gid, BLUE, first)] == ["blue"]
    assert service.unlocked_seats(gid, BLUE, second) == []
    assert service.unlocked_seats(gid, BLUE, None) == []
    # The right secret from another address unlocks nothing, but is recognised.
    assert service.unlocked_seats(gid, Actor.mail("mallory@example.org"), first) == []
    assert [s.email for s in service.seats_with_secret(gid, first)] == ["blue@example.org"]


def test_only_the_gm_sets_or_resets_a_seat_secret(service: GameService) -> None:
    gid = new_game(service)
    with pytest.raises(PermissionDenied, match="GM"):
        service.set_seat_secret(gid, BLUE, "new-secret-1", side="blue")
    with pytest.raises(InvalidOperation, match="at least 8"):
        service.set_seat_secret(gid, GM_ACTOR, "short", side="blue")
    with pytest.raises(InvalidOperation, match="unknown side"):
        service.set_seat_secret(gid, GM_ACTOR, "new-secret-1", side="green")
    (seat,) = service.set_seat_secret(gid, GM_ACTOR, " new-secret-1 ", side="blue")
    assert seat.side == "blue" and seat.secret
    assert service.unlocked_seats(gid, BLUE, "new-secret-1")
    service.set_seat_secret(gid, GM_ACTOR, "newer-secret-2", side="blue")
    assert not service.unlocked_seats(gid, BLUE, "new-secret-1")  # a reset replaces it
    (gm,) = service.set_seat_secret(gid, GM_ACTOR, "gm-secret-3", holder=GM_ACTOR)
    assert gm.role == "gm"


def test_a_mail_seat_resigns_and_the_record_says_so(service: GameService) -> None:
    gid = new_game(service)
    play(service, gid, (RED, "trap 1"))
    result = service.submit(gid, BLUE, "resign")
    assert result.ok and result.messages[PUBLIC].result == "blue resigns; red wins"
    info = service.info(gid)
    assert info.status == "finished" and info.result == "blue resigns; red wins"
    again = service.submit(gid, RED, "resign")
    assert not again.ok and "finished" in (again.error or "")
    assert service.load_state(gid).result == "blue resigns; red wins"  # replays


def test_updates_tell_each_audience_what_others_did(service: GameService) -> None:
    gid = new_game(service)
    play(service, gid, (RED, "trap 1"), (RED, "move r2 3"), (BLUE, "pass"))
    everything = service.updates(gid, 0)
    assert everything.seqs == [1, 2, 3]
    public, red, blue = (everything.messages[a] for a in (PUBLIC, "red", "blue"))
    assert not any("Ford" in line for line in public.lines + blue.lines)  # red's secret
    assert "red sets the trap in Ford" in red.lines
    assert public.to_act == "red"
    skipped = service.updates(gid, 0, skip_actor=RED.label)
    assert skipped.seqs == [3]
    assert service.updates(gid, 3).seqs == []
