"""Hostile input: every input gets a refusal, never an exception, within size limits."""

from __future__ import annotations

import contextlib
import io
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.orders import MAX_CHARS, MAX_LINES, MAX_WORDS
from adjudicator.registry import load_game
from bot.console import LocalGame, run_console
from bot.service import GameService
from bot.store import Store
from tests.bot.test_service_support import BLUE, GM_ACTOR, RED, make_service, new_game
from tests.hypothesis_profiles import examples

TANKS = load_game("tanks")
STALINGRAD = load_game("stalingrad")
for _game in (TANKS, STALINGRAD):  # warm up (name indexes are built on first use)
    with contextlib.suppress(RuleError):
        _game.parse("move x to y")


@pytest.mark.parametrize("text", [
    "mine ١٢٣٤", "move iia-1 ０１０１", "place X 0101 ¹", "hide x 𝟎𝟏𝟎𝟏", "move a 0101 face ²",
    "barrage 9.9.9", "fire a+&+b", "move iia-1 overrun", "place a 0101 face",
])
def test_tanks_notation_refuses_hostile_text(text: str) -> None:
    with pytest.raises(RuleError) as refused:
        TANKS.parse(text)
    assert refused.value.rule == "notation"


@pytest.mark.parametrize("text", ["cross g1", "recross x", "regroup a", "cross to",
                                  "recross from"])
def test_stalingrad_notation_refuses_missing_keywords(text: str) -> None:
    with pytest.raises(RuleError):
        STALINGRAD.parse(text)


HOSTILE_WORDS = st.sampled_from([
    "move", "fire", "at", "to", "from", "via", "with", "face", "exit", "overrun", "done",
    "standing", "attack", "cross", "recross", "setup", "0101", "١٢٣٤", "０１", "¹", "\u200b",
    "\u202e", "\x00", "\x1b[2J", "#", ",", "+", "&", "-", "ß", "İ", "e\u0301", "𝟎", "Ⅳ",
])
HOSTILE_TEXT = st.one_of(
    st.text(max_size=200),
    st.lists(st.one_of(HOSTILE_WORDS, st.text(max_size=8)), max_size=30).map(" ".join),
    st.text(alphabet=st.characters(categories=["Cc", "Cf", "Zs", "Nd", "No"]), max_size=60),
)


@pytest.mark.parametrize("game", [TANKS, STALINGRAD], ids=["tanks", "stalingrad"])
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=HOSTILE_TEXT)
def test_parsers_refuse_and_never_raise_anything_else(game: object, text: str) -> None:
    started = time.thread_time()  # processor time: a busy machine does not count
    with contextlib.suppress(RuleError):
        game.parse(text)  # type: ignore[attr-defined]
    assert time.thread_time() - started < 0.1


def test_size_limits_are_refused_quickly_and_name_the_limit(tmp_path: Path) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = new_game(service)
    before = service.store.count_actions(game_id)
    cases = [
        ("standing casualty lose\n" * 10_000, f"at most {MAX_CHARS} characters"),
        ("pass\n" * (MAX_LINES + 1), f"at most {MAX_LINES} order lines"),
        ("move r1 " + " ".join(["2"] * 1_000), "characters"),
        ("move " + " ".join(f"u{n}" for n in range(MAX_WORDS + 1)) + " to 2",
         f"at most {MAX_WORDS} words"),
    ]
    for text, limit in cases:
        started = time.thread_time()
        result = service.submit(game_id, RED, text)
        assert time.thread_time() - started < 1.0
        assert result.status == "refused" and limit in str(result.error), result.error
    assert service.store.count_actions(game_id) == before
    steps = "move iia-1 " + " ".join(["0101"] * 41)
    with pytest.raises(RuleError, match="at most 40 steps"):
        TANKS.parse(steps)


def test_an_internal_error_is_a_refusal_that_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = new_game(service)
    rules = service.rules(game_id)

    def broken(*_args: object, **_kwargs: object) -> object:
        raise KeyError("secret-unit-id-b2")

    monkeypatch.setattr(rules, "resolve", broken)
    before = service.store.count_actions(game_id)
    result = service.submit(game_id, RED, "trap 1")
    assert result.status == "refused" and result.error_rule == "internal"
    assert "secret-unit-id-b2" not in str(result.error)  # no detail: it may be a secret
    assert service.store.count_actions(game_id) == before
    monkeypatch.undo()
    assert service.submit(game_id, RED, "trap 1").ok


def test_hostile_text_through_the_service_is_always_a_refusal(tmp_path: Path) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = new_game(service)
    for actor in (RED, BLUE, GM_ACTOR):
        for text in ("", "\x00", "move ١ ٢", "\u202eevom", "attack", "decide", "standing x y z",
                     "trap \u200b9", "#", "move r1 ¹"):
            result = service.submit(game_id, actor, text)
            assert result.status == "refused", (actor, text)


def test_the_console_survives_any_command(tmp_path: Path) -> None:
    service = GameService(Store(tmp_path / "u.db"))
    local = LocalGame.new(service, "tests.kernel.duel:DuelGame", None)
    console = Console(file=io.StringIO(), width=200)
    inputs = iter(["log ¹", "log 99999999999999999999", "board nobody", "map nobody",
                   "move ١ ٢", "trap 1", "quit"])
    run_console(service, local, lambda _prompt: next(inputs), console)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert "Traceback" not in output
    assert service.load_state(local.game_id).trap == "1"  # type: ignore[attr-defined]


# ---- the mail gateway (issue 27: 27.1, 27.2, 27.7, 27.8) -------------------------------------

MAIL_LINES = [
    "log ¹", "log ²⁰", "log ٣", "log 99999999999999999999", "decide ²", "decide ٣",
    "rollback ¹ because x", "override force-dice ¹ because x", "override force-dice 9" * 50,
    "deadline " + "9" * 400 + "d", "deadline 1e309h", "start ²h", "help +\ud800-", "\ud800",
    "game \udfff", "map \x00", "legal \u202e", "seat red ann@x\ud800 because y",
    "password " + "x" * 10_000, "pw", "password",
]


def _mail_office() -> tuple[object, str, dict[str, str]]:
    """One desk with a started game, made once for the hypothesis examples."""
    if "office" not in _MAIL:
        import tempfile

        from tests.mail.support import desk
        from tests.mail.test_desk import game_with_players

        office = desk(Path(tempfile.mkdtemp(prefix="umpire-hostile-mail-")) / "u.db")
        office.config = office.config.model_copy(update={"limits": office.config.limits
                                                          .model_copy(update={
                                                              "per_hour": 10**6,
                                                              "idle_per_hour": 10**6})})
        _MAIL["office"] = (office, *game_with_players(office))
    return _MAIL["office"]


_MAIL: dict[str, tuple[object, str, dict[str, str]]] = {}


def _answer_mail(text: str, who: str) -> None:
    from bot.mail.inbound import read_mail
    from bot.mail.outbound import compose

    office, game_id, secrets = _mail_office()
    body = (f"password {secrets[who]}\n" if who in secrets else "") + text
    # charset=utf-7 carries any text, lone surrogates included (27.2)
    raw = (f"From: {who}\r\nTo: umpire@umpire.test\r\nSubject: [umpire {game_id}]\r\n"
           "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-7\r\n"
           "Content-Transfer-Encoding: 7bit\r\n\r\n").encode() + body.encode("utf-7")
    started = time.thread_time()
    out = office.handle(read_mail(raw, "umpire@umpire.test", 1_000_000))  # type: ignore[attr-defined]
    assert time.thread_time() - started < 2.0
    assert len(out) >= 1 and out[0].to == who
    for mail in out:
        compose(mail, "umpire@umpire.test", "Umpire").as_bytes()  # every answer can be sent


@pytest.mark.parametrize("text", MAIL_LINES)
@pytest.mark.parametrize("who", ["gm@player.test", "red@player.test", "mallory@player.test"])
def test_hostile_mail_lines_are_answered_never_raise_27(text: str, who: str) -> None:
    """Issue 27 (27.1, 27.2, 27.7, 27.8): every hostile mail line gets an answer that can
    be sent; none raises, none takes long."""
    _answer_mail(text, who)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=HOSTILE_TEXT)
def test_hostile_mail_text_is_always_answered_27(text: str) -> None:
    """Issue 27: any text in a seated player's mail is answered, never raises."""
    _answer_mail(text, "red@player.test")
