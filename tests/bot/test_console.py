"""The console a newcomer meets: legal filters and pages, short names, standing orders
anywhere, confirmations before another side's secrets, undo, per-line batch reports, the
guided secret set-up, tab completion."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from rich.console import Console

from bot.console import LOCAL, FunctionIO, LocalGame, Session
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
    # a family of moves asked for by one of its units: that unit's order, the cheapest first
    assert "move i/103 to 3  (1 MF)" in text
    assert "g14pz:i/103" not in text.split("i/103'")[1][:400]
    assert "matching 'orlovka'" in text and "attack 20 fresh with" in text
    assert "matching 'move by unit'" in text and "group(s)" in text
    assert "'legal more' for the next page" in text
    assert "ambiguous unit '103': could be i/103 (g14pz:i/103), ii/103" in text
    assert "matching 'mamaev'" in text  # the pack's alias for 56
    assert "'orlowka' is no verb, unit or place here" in text
    assert "did you mean Orlovka (20)" in text


def test_standing_orders_anywhere_without_a_secret_warning(tmp_path: Path) -> None:
    console, out = session(tmp_path, "stalingrad", "historical", [
        "standing advantage ask", "", "policies", "quit"])  # "": german looks
    console.run()
    text = out.getvalue()
    assert "that order is secret" not in text
    assert "standing order advantage = ask" in text
    assert "standing advantage ask [set]" in text
    assert "standing voluntary never [applies by default]" in text


def test_another_sides_board_asks_first(tmp_path: Path) -> None:
    console, out = session(tmp_path, "tanks", "pakfront", ["", ""],
                           ["hide pak75-1 0105", ""])
    console.run()
    mark = len(out.getvalue())
    asked: list[str] = []
    answers = iter(["n", "y"])

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    console.io = FunctionIO(answer)
    console.cmd_board("soviet", ["german"])
    assert asked and "German: press Enter when only you are looking" in asked[0]
    assert "german's secrets" in asked[0]
    assert "not shown" in out.getvalue()[mark:] and "0105" not in out.getvalue()[mark:]
    console.cmd_board("soviet", ["german"])  # Enter (or y): only the German looks
    assert "0105" in out.getvalue()[mark:]
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
    # "": the Soviet looks (three set-up rounds) and clears the screen after each
    console, out = session(tmp_path, "tanks", "kursk-salient", ["", "", "", "n", "y", "",
                                                                 "quit"], [
        "left", "done", *places[:3], "legal mine", "", *places[3:], "mine 2020", "mine 2021",
        "done", "done", "quit"])
    console.run()
    text = out.getvalue()
    assert "soviet is placing secrets" in text
    assert "Left to place:" in text and "17 unit(s) to place" in text
    assert "columns 12-31, rows 13-26" in text
    assert "not yet: 17 unit(s) must still set up (4.0)" in text
    assert "line 1 (place su76-1 1213): applied" in text
    assert "line 3 (place su85-1 1413): applied" in text
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


def reading(console: Session, lines: Iterable[str]) -> None:
    """Answer look-away steps with Enter, questions with y, prompts with ``lines``."""
    typed = iter(lines)

    def read(prompt: str) -> str:
        if "press Enter" in prompt:
            return ""
        return "y" if "[y/N]" in prompt else next(typed, "quit")

    console.io = FunctionIO(read, read)


#: The opening of the console's TP:S game up to a German attack on Yelshanka (32), which
#: asks the Russian whether to add his Artillery to the defense (15.3).
ATTACK = ["rubble", "move arko14 to 3", "end", "pass",
          "attack 32 fresh with pzjg4 i/15 ii/15 iii/15 pz129"]


@pytest.mark.parametrize("choice", [0, 1])
def test_decision_options_show_short_names_that_are_accepted_as_typed_15_3(
        tmp_path: Path, choice: int) -> None:
    """A TP:S decision's options are shown with the names players type (``fag-s``, not
    the stored ``r:fag-s``); the stored options keep their ids; each shown option, typed as
    it is shown, answers the decision (15.3)."""
    console, out = session(tmp_path, "stalingrad", "historical", [])
    reading(console, ATTACK)
    console.run()
    pending = console.local.prompt().pending
    assert pending is not None and pending.rule == "15.3"
    assert "decide artillery r:fag-s" in pending.option_orders()  # stored texts unchanged
    text = out.getvalue().split("russian decides (15.3)", 1)[1]
    shown = re.findall(r"^ {3}(decide artillery \S+)", text, re.M)
    assert shown == ["decide artillery fag-s", "decide artillery none"]
    assert "r:fag-s" not in text
    mark = len(out.getvalue())
    reading(console, [shown[choice], "quit"])
    console.run()
    after = out.getvalue()[mark:]
    assert "refused" not in after and "not one of" not in after
    answered = console.local.prompt().pending
    assert answered is None or answered.kind != "artillery"
    log = console.service.log(console.local.game_id, LOCAL, 3, audience="russian")
    assert any(e.text == pending.option_orders()[choice] for e in log if e.side == "russian")


def test_defensive_fire_options_are_grouped_best_first_and_not_reprinted_after_a_shot_5_1(
        tmp_path: Path) -> None:
    """Stalin's Tanks' Defensive Fire (5.1) offers every unit, target and ammunition: the
    console lists one line per firer (its best shot, how many more), best first, once;
    after each shot one line says how many are left and the best; a command in between
    ('board', 'legal fire') reprints nothing."""
    from tests.bot.test_console_hot_seat import SETUP, new_session, private

    shots = iter(["fire", "board", "legal fire", "fire", "done"])
    holder: list[Session] = []

    def read(prompt: str) -> str:
        if "press Enter" in prompt:
            return ""
        console = holder[0]
        if prompt.startswith("[soviet]"):
            legal = console.service.legal_orders(console.local.game_id, LOCAL, "soviet")
            return "done" if "done" in legal else legal[0]
        pending = console.local.prompt().pending
        word = next(shots, "quit") if pending is not None else "quit"
        if word == "fire":
            return next(o.order for o in pending.options  # type: ignore[union-attr]
                        if o.order.startswith("fire"))
        return word

    setup = iter([*SETUP, "done", "quit"])
    console, out = new_session(tmp_path, read, lambda _p: next(setup))
    holder.append(console)
    console.run()
    owner = private(out.getvalue(), "german")
    phase = out.getvalue().split("german decides (5.1)", 1)[1].split("Mobile Fire Phase")[0]
    head = re.search(r"(\d+) options in (\d+) groups, best first \('legal fire'", owner)
    assert head is not None, owner
    groups = re.findall(r"^ {3}(fire \S+ at \S+(?: \w+)?) +(\d+)% to destroy"
                        r"(?: +\(\+(\d+) more: 'legal \S+'\))?$", owner, re.M)
    assert len(groups) == int(head.group(2)) - 1  # and 'done'
    assert 1 + sum(1 + int(more or 0) for *_, more in groups) == int(head.group(1))
    odds = [int(p) for _, p, _ in groups]
    assert odds == sorted(odds, reverse=True) and len(odds) > 1
    assert len({g[0].split()[1] for g in groups}) == len(groups)  # one line per firer
    assert phase.count("options in") == 1  # listed once in the phase
    left = [int(n) for n in re.findall(r"(\d+) more fire option\(s\) possible \(best: fire",
                                       owner)]
    assert len(left) == 2 and left[0] > left[1]  # one line after each of the two shots
    assert phase.count("german decides (5.1): still open") == 2
    assert "legal order(s) for german matching 'fire'" in owner
    assert "german decides (5.1): Defensive Fire Phase, turn 1" in out.getvalue()  # once


def test_a_long_option_list_pages_its_groups_best_first_5_1() -> None:
    """More firers than a page (5.1): the best PAGE groups, then how many more and where."""
    from bot.decision_options import PAGE, option_lines, options_left

    options = [(f"fire u{n} at t{t}", f"{n * 5 + t}% to destroy")
               for n in range(PAGE + 2) for t in (1, 2)] + [("done", "end the phase")]
    lines = option_lines(options)
    assert lines[0] == f"{len(options)} options in {PAGE + 3} groups, best first " \
                       "('legal fire' lists every one):"
    assert lines[1] == f"fire u{PAGE + 1} at t2   {(PAGE + 1) * 5 + 2}% to destroy   " \
                       f"(+1 more: 'legal u{PAGE + 1}')"
    assert len(lines) == 1 + PAGE + 1 and lines[-1] == "... 3 more group(s): 'legal' lists them all"
    assert option_lines(options[:3]) == ["fire u1 at t1   6% to destroy",
                                         "fire u0 at t2   2% to destroy",
                                         "fire u0 at t1   1% to destroy"]
    assert options_left([("done", "")], "done") == "only 'done' is left"
