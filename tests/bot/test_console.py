"""The console a newcomer meets: legal filters and pages, short names, standing orders
anywhere, confirmations before another side's secrets, undo, per-line batch reports, the
guided secret set-up, tab completion."""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path

from rich.console import Console

from bot.console import FunctionIO, LocalGame, Session
from bot.service import GameService
from bot.store import Store


def session(tmp_path: Path, game: str, scenario: str | None, public: Iterable[str],
            private: Iterable[str] = ()) -> tuple[Session, io.StringIO]:
    service = GameService(Store(tmp_path / "umpire.db"), seed_source=lambda n: b"\x05" * n)
    local = LocalGame.new(service, game, scenario)
    out = io.StringIO()
    lines, secret = iter(public), iter(private)
    return Session(service, local, FunctionIO(lambda _p: next(lines),
                                              lambda _p: next(secret)),
                   Console(file=out, width=220)), out


def test_legal_filters_by_unit_place_and_verb_with_a_count_and_pages(tmp_path: Path) -> None:
    console, out = session(tmp_path, "stalingrad", "historical", [
        "rubble", "legal i/103", "legal orlovka", "legal move by unit", "legal more",
        "legal 103", "legal mamaev", "legal orlowka", "quit"])
    console.run()
    text = out.getvalue()
    assert "legal order(s) for german matching 'i/103'" in text
    # a family of moves asked for by one of its units: that unit's order
    assert "move i/103 to 14  (" in text and "g14pz:i/103" not in text.split("i/103'")[1][:400]
    assert "matching 'orlovka'" in text and "attack 20 fresh with" in text
    assert "matching 'move by unit'" in text and "group(s)" in text
    assert "'legal more' for the next page" in text
    assert "ambiguous unit '103': could be i/103 (g14pz:i/103), ii/103" in text
    assert "matching 'mamaev'" in text  # the pack's alias for 56
    assert "'orlowka' is no verb, unit or place here" in text
    assert "did you mean Orlovka (20)" in text


def test_standing_orders_anywhere_without_a_secret_warning(tmp_path: Path) -> None:
    console, out = session(tmp_path, "stalingrad", "historical", [
        "standing advantage ask", "policies", "quit"])
    console.run()
    text = out.getvalue()
    assert "that order is secret" not in text
    assert "standing order advantage = ask" in text
    assert "standing advantage ask [set]" in text
    assert "standing voluntary never [applies by default]" in text


def test_another_sides_board_asks_first(tmp_path: Path) -> None:
    console, out = session(tmp_path, "tanks", "pakfront", ["quit"],
                           ["hide pak75-1 0105", "quit"])
    console.run()
    asked: list[str] = []
    answers = iter(["n", "y"])

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    console.io = FunctionIO(answer)
    console.cmd_board("soviet", ["german"])
    assert asked and "german's secrets" in asked[0]
    assert "not shown" in out.getvalue() and "0105" not in out.getvalue()
    console.cmd_board("soviet", ["german"])  # yes: everyone else looks away
    assert "0105" in out.getvalue()
    console.cmd_board("soviet", ["public"])  # the public board asks nothing
    assert len(asked) == 2


def test_a_batch_reports_every_line(tmp_path: Path) -> None:
    console, out = session(tmp_path, "stalingrad", "historical", [
        "rubble", "move i/103 to 14; move i/103 to 99; pass", "quit"])
    console.run()
    text = out.getvalue()
    assert "line 1 (move i/103 to 14): applied" in text
    assert "line 2 (move i/103 to 99): refused" in text
    assert "line 3 (pass): not reached" in text


def test_undo_takes_back_the_last_order(tmp_path: Path) -> None:
    console, out = session(tmp_path, "stalingrad", "historical", [
        "rubble", "move i/103 to 14", "undo", "legal i/103", "quit"])
    console.run()
    text = out.getvalue()
    assert "german takes back: move g14pz:i/103 to 14" in text \
        or "takes back: move i/103 to 14" in text
    state = console.service.load_state(console.local.game_id)
    assert state.units["g14pz:i/103"].loc != "14"  # type: ignore[attr-defined]


def test_a_wrong_moment_refusal_says_what_is_expected_now(tmp_path: Path) -> None:
    console, out = session(tmp_path, "stalingrad", "historical", ["pass", "quit"])
    console.run()
    text = out.getvalue()
    assert "5.7" in text and "legal: rubble" in text


def test_the_secret_set_up_is_guided(tmp_path: Path) -> None:
    units = ["su76-1", "su76-2", "su85-1", "su122-1", "su122-2", "at57-1", "at57-2",
             "at76-1", "at76-2", *(f"infsu-{n}" for n in range(1, 9))]
    places = [f"place {u} {12 + i:02d}13" for i, u in enumerate(units)]
    console, out = session(tmp_path, "tanks", "kursk-salient", ["n", "y", "quit"], [
        "left", "done", *places[:3], "legal mine", "", *places[3:], "mine 2020", "mine 2021",
        "done", "done", "quit"])
    console.run()
    text = out.getvalue()
    assert "soviet is placing secrets" in text
    assert "Left to place:" in text and "17 unit(s) to place" in text
    assert "columns 12-31, rows 13-26" in text
    assert "not yet: 17 unit(s) must still set up (4.0)" in text
    assert "line 1: applied" in text and "line 3: applied" in text
    assert "legal order(s) for soviet matching 'mine'" in text
    assert "Done now gives up: 4 mined hex(es)" in text
    assert "not done: go on placing" in text
    assert "soviet has finished setting up" in text
    assert "2020" not in text.split("Left to place")[-1].split("finished setting up")[-1]


def test_completion_offers_commands_verbs_units_and_places(tmp_path: Path) -> None:
    console, _ = session(tmp_path, "stalingrad", "historical", ["rubble", "quit"])
    console.run()
    assert "legal" in console.completions("le")
    assert "move" in console.completions("mo")
    after_verb = console.completions("move ", "german")
    assert "i/103" in after_verb
    assert "to" in console.completions("move i/103 ", "german")
    assert "14" in console.completions("move i/103 to 1", "german")
    assert "by" in console.completions("legal ", "german")
    assert "advantage" in console.completions("standing ad")
