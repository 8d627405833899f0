"""User text at the service's door (issue 27.2): lone surrogates, control characters and
oversized text are refused with a clear message by every call that takes text, before any
permission check, for any actor; nothing is stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.service import Actor, GameService, InvalidOperation, SubmitResult
from bot.service.text import BadText, check_text
from bot.store import Store
from bot.store.base import Refused, params_of
from tests.bot.test_service_support import (
    BLUE,
    GM_ACTOR,
    RED,
    STRANGER,
    make_service,
    new_game,
)
from tests.hypothesis_profiles import examples

SURROGATE = "\ud83d"  # the first half of an emoji, alone
ACTORS = {"stranger": STRANGER, "player": RED, "gm": GM_ACTOR}

#: Any text: every code point, lone surrogates and control characters made frequent.
ANY_TEXT = st.text(st.one_of(st.characters(),
                             st.integers(0xD800, 0xDFFF).map(chr),
                             st.integers(0, 0x9F).map(chr)), max_size=40)


def calls(service: GameService, game_id: str, actor: Actor, text: str) -> list[SubmitResult]:
    return [service.submit(game_id, actor, text),
            service.submit(game_id, actor, "pass", idempotency_key=text),
            service.override(game_id, actor, {"op": "force-dice", "values": [6]}, text),
            service.override(game_id, actor, {"op": text, "values": [text]}, "a reason"),
            service.pause(game_id, actor, text),
            service.resume(game_id, actor, text),
            service.rollback(game_id, actor, 0, text)]


def _unencodable(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return True
    return "\x00" in text


@pytest.fixture
def game(db_url: str) -> tuple[GameService, str]:
    """A started Duel on either backend."""
    service = make_service(db_url)
    return service, new_game(service)


@pytest.mark.parametrize("who", sorted(ACTORS))
def test_a_lone_surrogate_is_refused_before_any_permission_check(
        game: tuple[GameService, str], who: str) -> None:
    """27.2: submit, override and pause refuse a lone surrogate for a stranger, a player and
    the GM alike (they raised UnicodeEncodeError), naming the field and the character."""
    service, game_id = game
    before = service.store.count_actions(game_id)
    actor = ACTORS[who]
    submitted = service.submit(game_id, actor, f"move r1 {SURROGATE}")
    overridden = service.override(game_id, actor, {"op": "force-dice", "values": [6]},
                                  f"why {SURROGATE}")
    paused = service.pause(game_id, actor, f"tea {SURROGATE}")
    for result, what in ((submitted, "the order text"), (overridden, "the reason"),
                         (paused, "the reason")):
        assert result.status == "refused" and result.error_rule == "input"
        assert f"{what} holds a lone surrogate (U+D83D)" in str(result.error)
        assert "nothing was done" in str(result.error)
    assert service.store.count_actions(game_id) == before
    assert service.info(game_id).status == "active"


def test_control_characters_and_huge_reasons_are_refused(game: tuple[GameService, str]) -> None:
    """27.2: a NUL or an escape character in a reason, or a reason past the bound, is
    refused with what was wrong; a tab or a line break is taken."""
    service, game_id = game
    nul = service.pause(game_id, GM_ACTOR, "tea\x00")
    escape = service.pause(game_id, GM_ACTOR, "tea \x1b[2J")
    huge = service.pause(game_id, GM_ACTOR, "x" * 20_000)
    assert "control character (U+0000)" in str(nul.error)
    assert "control character (U+001B)" in str(escape.error)
    assert "at most 10000 characters" in str(huge.error)
    assert service.store.count_actions(game_id) == 0
    assert service.pause(game_id, GM_ACTOR, "tea\tbreak\r\nback soon").ok


def test_a_surrogate_in_an_actor_or_a_game_id_is_refused(game: tuple[GameService, str]) -> None:
    """27.2: the actor's own address (a mail header decoded with surrogateescape) and the
    game id are text from outside too."""
    service, game_id = game
    odd = Actor.mail(f"x{SURROGATE}@example.org")
    result = service.submit(game_id, odd, "pass")
    assert result.status == "refused" and "your name or address" in str(result.error)
    wrong_id = service.submit(game_id + SURROGATE, RED, "pass")
    assert wrong_id.status == "refused" and "the game id" in str(wrong_id.error)
    wrong_id.model_dump_json()  # the refusal itself can be sent
    with pytest.raises(BadText, match="the game id"):
        service.info(game_id + SURROGATE)


def test_administrative_calls_refuse_bad_text_with_invalid_operation(
        game: tuple[GameService, str]) -> None:
    """27.2: join names, reasons, secrets, entropy, options: an InvalidOperation naming the
    field, never a UnicodeEncodeError; nothing stored."""
    service, game_id = game
    seats = len(service.store.seats(game_id))
    with pytest.raises(InvalidOperation, match="the game's options"):
        service.create_game(GM_ACTOR, "tests.kernel.duel:DuelGame",
                            options={"note": SURROGATE})
    with pytest.raises(InvalidOperation, match="name, address or side"):
        service.seat(game_id, GM_ACTOR, "red", Actor.discord(SURROGATE))
    with pytest.raises(InvalidOperation, match="the reason"):
        service.unseat(game_id, GM_ACTOR, "red", f"gone {SURROGATE}")
    with pytest.raises(InvalidOperation, match="the seat's secret"):
        service.set_seat_secret(game_id, GM_ACTOR, f"correct horse {SURROGATE}", side="red")
    with pytest.raises(InvalidOperation, match="the seat's secret"):
        service.unlocked_seats(game_id, BLUE, SURROGATE)
    with pytest.raises(InvalidOperation, match="the binding"):
        service.find_by_binding("thread", SURROGATE)
    fresh = service.create_game(GM_ACTOR, "tests.kernel.duel:DuelGame")
    service.seat(fresh.id, GM_ACTOR, "red", RED)
    with pytest.raises(InvalidOperation, match="the entropy"):
        service.add_entropy(fresh.id, RED, f"dice {SURROGATE}")
    assert len(service.store.seats(game_id)) == seats
    assert service.store.entropy(fresh.id) == []


def test_the_store_refuses_what_it_cannot_encode() -> None:
    """27.2: the store's edge too, for a caller that skipped the door."""
    with pytest.raises(Refused, match="lone surrogate"):
        params_of([f"a{SURROGATE}"])
    with pytest.raises(Refused, match="NUL"):
        params_of(["a\x00"])
    assert params_of(["é€😀", True]) == ["é€😀", 1]


def test_check_text_walks_nested_values_and_bounds_their_number() -> None:
    check_text({"a": [1, None, ("b", {"c": "d"})]}, "the options")
    with pytest.raises(BadText, match="the options holds a lone surrogate"):
        check_text({"a": [1, None, ("b", {SURROGATE: "d"})]}, "the options")
    with pytest.raises(BadText, match="more than 200 texts"):
        check_text(["x"] * 201, "the options")


@settings(max_examples=examples(200), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=ANY_TEXT, who=st.sampled_from(sorted(ACTORS)))
def test_any_text_into_the_service_is_a_result_never_an_exception(
        tmp_path: Path, text: str, who: str) -> None:
    """27.2: arbitrary text (lone surrogates included) into submit, override, pause, resume
    and rollback, from a stranger, a player or the GM, never raises; text that cannot be
    encoded is refused as input and stores nothing."""
    service = _shared_service(tmp_path)
    game_id = _shared_game(service)
    before = service.store.count_actions(game_id)
    results = calls(service, game_id, ACTORS[who], text)
    for result in results:
        result.model_dump_json()  # every reply can be encoded and sent
        if _unencodable(text):
            assert result.status == "refused" and result.error_rule == "input", result
    if _unencodable(text):
        assert service.store.count_actions(game_id) == before


_SERVICES: dict[Path, GameService] = {}
_GAMES: dict[int, str] = {}


def _shared_service(folder: Path) -> GameService:
    """One service per test folder (hypothesis runs every example in the test's one
    folder): examples share a game, so they run against whatever state earlier ones
    left — paused, rolled back, with forced dice."""
    if folder not in _SERVICES:
        _SERVICES[folder] = GameService(Store(folder / "any.db"))
    return _SERVICES[folder]


def _shared_game(service: GameService) -> str:
    if id(service) not in _GAMES:
        _GAMES[id(service)] = new_game(service)
    return _GAMES[id(service)]
