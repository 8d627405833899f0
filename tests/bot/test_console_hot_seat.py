"""Hot-seat secrecy at the console: what a side's View holds beyond the public one (hidden
units, 20.0; mines, 19.1; face-down identities, 25.7) reaches the shared screen only behind
that side's look-away step — boards, decision options (Defensive Fire naming hidden units,
10.1), legal lists, set-up echoes alike — and a secret set-up is echoed, listed, changed and
undone by its owner before ``done``. ``--seat`` puts each side at its own terminal."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from rich.console import Console

from bot.console import LOCAL, FunctionIO, LocalGame, Session
from bot.screen import CLEARED
from bot.service import GameService
from bot.store import Store

#: The German set-up of these tests (pakfront, 25.2): eleven hidden, four infantry in sight.
HIDDEN = ["pak75-1", "pak75-2", "flak88-1", "flak88-2", "pak88-1", "pak88-2",
          *(f"infde-{n}" for n in range(5, 10))]
SETUP = ([f"hide {u} {c:02d}20" for u, c in zip(HIDDEN, range(3, 30, 2), strict=False)]
         + [f"place infde-{n} {c:02d}22" for n, c in zip(range(1, 5), range(3, 30, 4),
                                                          strict=False)])
PRIVATE = re.compile(r"— private to (\w+)[^\n]*\n(.*?)(?=\(screen cleared\)|\Z)", re.S)


def shared(text: str) -> str:
    """What the shared screen showed outside every look-away step."""
    return PRIVATE.sub("", text)


def private(text: str, side: str) -> str:
    return "".join(m.group(2) for m in PRIVATE.finditer(text) if m.group(1) == side)


def new_session(tmp_path: Path, reader: Callable[[str], str],
                private_reader: Callable[[str], str],
                scenario: str = "pakfront") -> tuple[Session, io.StringIO]:
    service = GameService(Store(tmp_path / "umpire.db"), seed_source=lambda n: b"\x05" * n)
    local = LocalGame.new(service, "tanks", scenario)
    out = io.StringIO()
    return Session(service, local, FunctionIO(reader, private_reader),
                   Console(file=out, width=200)), out


def test_a_secret_batch_with_a_refused_line_reports_it_refused_20_0_6_2(tmp_path: Path) -> None:
    """The issue's batch: three orders on one line, the third refused (6.2: 0505 already
    holds flak88-2) — reported refused, never 'applied', and nothing after it counted."""
    public = iter(["", "", ""])
    secret = iter(["hide flak88-2 0505; hide infde-5 1111; hide infde-9 0505", "", "quit"])
    console, out = new_session(tmp_path, lambda _p: next(public), lambda _p: next(secret))
    console.run()
    text = out.getvalue()
    assert "line 1 (hide flak88-2 0505): applied" in text
    assert "line 2 (hide infde-5 1111): applied" in text
    assert "line 3 (hide infde-9 0505): refused — 6.2: 0505 already holds flak88-2" in text
    assert "private order(s) accepted" not in text
    owner = private(text, "german")
    assert "flak88-2 set up hidden in 0505" in owner  # each applied order echoed to its owner
    assert "0505" not in shared(text) and "1111" not in shared(text)
    state = console.service.load_state(console.local.game_id)
    assert state.unit("infde-9").status == "waiting"  # type: ignore[attr-defined]


def test_placed_board_remove_and_undo_work_in_the_secret_set_up_4_0_19_1_20_0(
        tmp_path: Path) -> None:
    public = iter(["", "", ""])
    secret = iter(["hide flak88-2 0505", "hide infde-5 1111", "placed", "remove flak88-2",
                   "hide pak88-1 0606", "undo", "board", "placed", "", "quit"])
    console, out = new_session(tmp_path, lambda _p: next(public), lambda _p: next(secret))
    console.run()
    text = out.getvalue()
    owner = private(text, "german")
    first = owner.split("Placed:")[1]
    assert "0505 flak88-2 (88 Flak), hidden (20.0)" in first.split("Placed:")[0]
    assert "flak88-2 taken back from 0505" in owner
    assert "german takes back: hide pak88-1 0606" in owner  # undo, before done
    last = owner.split("Placed:")[-1].split("Left to place")[0]
    assert "1111 infde-5 (Inf), hidden (20.0)" in last
    assert "flak88-2" not in last and "pak88-1" not in last
    assert "1111 infde-5 (Inf) [hidden]" in owner  # 'board': the owner's view
    assert "takes back: hide" not in shared(text)  # the public hears of an undo, not what
    assert not {"0505", "0606", "1111"} & set(re.findall(r"\d{4}", shared(text)))
    assert console.service.setup_guide(console.local.game_id, LOCAL) is not None


def scripted(tmp_path: Path, german: Iterator[str]) -> tuple[Session, io.StringIO, list[str]]:
    """A pakfront hot-seat game: the German sets up (SETUP), the Soviet enters and ends its
    phases, the German answers its decisions 'done' and types ``german`` at its prompts."""
    asked: list[str] = []
    holder: list[Session] = []

    def read(prompt: str) -> str:
        asked.append(prompt)
        if "press Enter" in prompt:
            return ""
        session = holder[0]
        if prompt.startswith("[soviet]"):
            legal = session.service.legal_orders(session.local.game_id, LOCAL, "soviet")
            return "done" if "done" in legal else legal[0]
        now = session.local.prompt()
        if now.pending is not None:
            return "done"
        return next(german, "quit")

    setup = iter([*SETUP, "done", "quit"])
    console, out = new_session(tmp_path, read, lambda _p: next(setup))
    holder.append(console)
    console.run()
    return console, out, asked


def test_a_hot_seat_screen_shows_no_hidden_unit_outside_a_look_away_step_20_0_10_1(
        tmp_path: Path) -> None:
    _, out, asked = scripted(tmp_path, iter(["board", "legal", "legal more", "done",
                                                   "quit"]))
    text = out.getvalue()
    assert "german has finished setting up" in text
    after_setup = shared(text).split("german has finished setting up", 1)[1]
    leaks = [u for u in HIDDEN if re.search(rf"\b{re.escape(u)}\b", after_setup)]
    assert not leaks, f"hidden units on the shared screen: {leaks}"
    owner = private(text, "german")
    # the scan is not blind: the same secrets were printed, behind the German's step
    assert "flak88-1 (88 Flak) [hidden]" in owner  # board
    assert re.search(r"fire (pak75|flak88|pak88)-\d at t34", owner)  # Defensive Fire options
    assert any(p.startswith("German: press Enter when only you are looking") for p in asked)
    assert any(p.startswith("German: press Enter to clear the screen") for p in asked)
    assert CLEARED in text


def test_tab_completion_offers_no_hidden_unit_on_a_shared_screen_20_0(tmp_path: Path) -> None:
    console, _, _ = scripted(tmp_path, iter(["quit"]))
    console.screen.close()
    assert "flak88-1" not in console.completions("move ", "german")
    assert console.screen.open("german")
    assert "flak88-1" in console.completions("fire ", "german") + console.completions(
        "move ", "german")


def test_two_seated_consoles_share_one_stored_game_each_seeing_its_side_20_0(
        tmp_path: Path) -> None:
    """Two terminals on one stored game (``umpire play --resume ID --seat SIDE``): each
    shows its side's view and the public one, never the other's; what the other terminal
    did shows when its user acts or presses Enter."""
    db = tmp_path / "umpire.db"
    service = GameService(Store(db), seed_source=lambda n: b"\x05" * n)
    game_id = LocalGame.new(service, "tanks", "pakfront").game_id
    said: dict[str, str] = {}

    def seated(side: str, lines: list[str | Callable[[], str]], secret: list[str]) -> str:
        # each terminal its own service on the same store, as two `umpire play` processes
        other = GameService(Store(db))
        out = io.StringIO()
        typed, hidden = iter(lines), iter(secret)

        def read(_prompt: str) -> str:
            item = next(typed)
            return item() if callable(item) else item

        Session(other, LocalGame(other, game_id), FunctionIO(read, lambda _p: next(hidden)),
                Console(file=out, width=200), seat=side).run()
        said[side] = out.getvalue() if side not in said else said[side] + out.getvalue()
        return said[side]

    def soviet_moves() -> str:
        seated("soviet", ["board", "move t34a-1 to 0101", "quit"], [])
        return ""  # the German presses Enter

    def german_terminal() -> str:
        seated("german", [soviet_moves, "quit"], [*SETUP, "placed", "done"])
        return ""  # the Soviet presses Enter

    soviet = seated("soviet", ["board german", german_terminal, "quit"], [])
    german = said["german"]
    assert "german to act: press Enter to look again" in soviet
    assert "this terminal plays soviet: it shows soviet's view and the public one" in soviet
    assert "press Enter when only you are looking" not in german  # its own terminal
    assert "0320 pak75-1 (75), hidden (20.0)" in german
    assert "--seat german" in german
    assert "german has finished setting up" in soviet  # the other terminal's news
    assert not [u for u in HIDDEN if re.search(rf"\b{re.escape(u)}\b", soviet)]
    assert "t34a-1 moves from off the map: 0101" in soviet
    assert "t34a-1 moves from off the map: 0101" in german  # seen on Enter


def test_the_services_secret_batch_result_names_the_refused_line_20_0_6_2(
        tmp_path: Path) -> None:
    """What email and Discord report from: a private batch stops at its refused line, which
    is named with its error; only the lines before it are applied."""
    service = GameService(Store(tmp_path / "umpire.db"), seed_source=lambda n: b"\x05" * n)
    game_id = LocalGame.new(service, "tanks", "pakfront").game_id
    result = service.submit(game_id, LOCAL, "hide flak88-2 0505\nhide infde-5 1111\n"
                            "hide infde-9 0505\nhide infde-6 1112", side="german")
    assert result.status == "partial" and result.stopped_at == 3
    assert result.error == "6.2: 0505 already holds flak88-2"
    assert result.applied == ["hide flak88-2 0505", "hide infde-5 1111"]
    assert len(result.seqs) == 2
    assert result.messages["german"].lines == ["flak88-2 set up hidden in 0505",
                                               "infde-5 set up hidden in 1111"]
    assert result.messages["public"].lines == []
    guide = service.setup_guide(game_id, LOCAL)
    assert guide is not None and [p.split()[1] for p in guide.placed] == ["flak88-2",
                                                                          "infde-5"]


def test_a_picture_of_a_sides_secrets_is_written_only_behind_its_step_20_0(
        tmp_path: Path) -> None:
    """`map german FILE` at the Soviet's prompt: the picture holds the German's hidden units,
    so it is written only once the German alone looks ('n' declines: no file)."""
    public = iter(["", ""])
    secret = iter(["hide flak88-2 0505", "", "quit"])
    console, out = new_session(tmp_path, lambda _p: next(public), lambda _p: next(secret))
    console.run()
    asked: list[str] = []
    answers = iter(["n", ""])

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    console.io = FunctionIO(answer)
    picture = tmp_path / "german.png"
    console.cmd_map("soviet", ["german", str(picture)])
    assert not picture.exists() and asked[-1].startswith("German: press Enter when only")
    console.cmd_map("soviet", ["german", str(picture)])
    assert picture.read_bytes().startswith(b"\x89PNG")
    assert f"map written to {picture}" in private(out.getvalue(), "german")
    console.cmd_map("soviet", ["public", str(tmp_path / "public.png")])  # asks nothing
    assert len(asked) == 2


def test_an_open_set_up_needs_no_look_away_step_4_0(tmp_path: Path) -> None:
    """Kursk: Counterattack's Soviet Start forces set up in sight (25.4): nothing the Soviet
    sees is secret, so 'legal' and 'board' ask nobody to look away."""
    asked: list[str] = []
    lines = iter(["legal", "board", "quit"])

    def read(prompt: str) -> str:
        asked.append(prompt)
        return next(lines)

    console, out = new_session(tmp_path, read, read, scenario="kursk-counterattack")
    console.run()
    assert asked == ["[soviet] > "] * 3
    assert "legal order(s) for soviet" in out.getvalue()


def test_umpire_play_seat_resumes_one_side_at_its_own_terminal(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from bot.cli import app

    runner = CliRunner()
    db = str(tmp_path / "umpire.db")
    wrong = runner.invoke(app, ["play", "tanks", "--seat", "nobody", "--db", db])
    assert wrong.exit_code == 2 and "no side 'nobody'; choose from german, soviet" in wrong.output
    service = GameService(Store(tmp_path / "umpire.db"), seed_source=lambda n: b"\x05" * n)
    game_id = LocalGame.new(service, "tanks", "pakfront").game_id
    service.submit(game_id, LOCAL, "hide flak88-2 0505", side="german")
    result = runner.invoke(app, ["play", "tanks", "--resume", game_id, "--seat", "soviet",
                                 "--db", db], input="board\nquit\n")
    assert result.exit_code == 0, result.output
    assert "This terminal plays soviet" in result.output
    assert "german to act: press Enter to look again" in result.output
    assert "flak88-2" not in result.output and "0505" not in result.output
    assert f"--resume {game_id} --seat soviet" in " ".join(result.output.split())


def test_tab_completes_the_secret_set_up_once_the_screen_is_private_20_0(
        tmp_path: Path) -> None:
    console, _ = new_session(tmp_path, lambda _p: "", lambda _p: "")
    assert "pak75-1" not in console.completions("hide ", "german")  # a shared screen
    assert console.screen.open("german")  # the German alone looks (the secret> prompt)
    assert "pak75-1" in console.completions("hide ", "german")
