"""A newcomer's first session, per game, through a real terminal (a pty): `umpire play`
with line editing, and 12 orders (30 in the soak stage) typed the way the console teaches —
moves by destination (`move UNIT to AREA|HEX`), short unit names, and `legal` with filters to
find what to type.
Nothing else is typed: no ids with their formation prefix, no `via`, no hex-by-hex paths.

A hot-seat session per game scans everything the shared screen showed outside a look-away
step (from "— private to SIDE", printed once its player pressed Enter, to the screen clear)
for the other side's secrets: Stalin's Tanks' hidden units (20.0), a TP:S standing order.
"""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Z]|\r")
#: A fresh prompt (prompt_toolkit turns bracketed paste on as it starts one): a side's,
#: the secret set-up's, or a yes/no question.
PROMPT = (r"\x1b\[\?2004h[^\n]*?(\[(?:german|russian|soviet)\]|secret>|\[y/N\]"
          r"|(?:German|Russian|Soviet|GM): press Enter (?:when only you are looking"
          r"|to clear the screen))")
#: Where a look-away step begins (after its player pressed Enter) and ends (the clear).
PRIVATE = re.compile(r"— private to (\w+)(.*?)(?:\x1b\[H\x1b\[2J\x1b\[3J|\Z)", re.S)
LEGAL_LINE = re.compile(r"^ {2}(?P<order>\S.*?)(?: {2}\((?P<label>.*)\))?$")


class Newcomer:
    """Types lines at `umpire play` in a pty and reads what comes back."""

    def __init__(self, tmp_path: Path, game: str, scenario: str,
                 transcript: io.StringIO | None = None) -> None:
        env = dict(os.environ, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm", COLUMNS="200",
                   LINES="50", NO_COLOR="1")
        self.child = pexpect.spawn(
            sys.executable, ["-m", "bot.cli", "play", game, "--scenario", scenario,
                             "--db", str(tmp_path / "umpire.db")],
            env=env, cwd=str(ROOT), encoding="utf-8", timeout=90, dimensions=(50, 200))
        self.child.logfile_read = transcript  # everything the screen was sent
        self.typed: list[str] = []
        self.orders = 0
        self.output, self.prompt = self.wait()

    def wait(self) -> tuple[str, str]:
        self.child.expect(PROMPT)
        return ANSI.sub("", self.child.before), ANSI.sub("", self.child.match.group(1))

    def type(self, line: str) -> str:
        self.typed.append(line)
        self.child.sendline(line)
        self.output, self.prompt = self.wait()
        return self.output

    def order(self, line: str) -> str:
        """Type an order; count it when it was not refused."""
        out = self.type(line)
        if "refused" not in out and not re.search(r"^\s*\d+(\.\d+)*: ", out, re.M) \
                and "notation:" not in out:
            self.orders += 1
        return out

    @property
    def side(self) -> str:
        return self.prompt.strip("[]")

    def legal(self, words: str = "") -> list[tuple[str, str]]:
        """The orders `legal WORDS` lists (its first page): (order, label)."""
        out = self.type(f"legal {words}".strip())
        found = []
        for line in out.splitlines():
            match = LEGAL_LINE.match(line)
            if match and not line.startswith("  line "):
                found.append((match["order"].strip(), match["label"] or ""))
        return found

    def quit(self) -> str:
        self.child.sendline("quit")
        self.child.expect(pexpect.EOF)
        return ANSI.sub("", self.child.before)


def mf(label: str) -> int:
    """A move's cost; a family's dearest ("1-2 MF": 2)."""
    found = re.match(r"(\d+)(?:-(\d+))? MF", label)
    return int(found.group(2) or found.group(1)) if found else 99


def one_of(order: str) -> str:
    """A listed family's order for its first unit: ``move any of i/103 ii/103 to 14`` ->
    ``move i/103 to 14``."""
    words = order.split()
    if words[1:3] == ["any", "of"]:
        return " ".join([words[0], words[3], *words[words.index("to"):]])
    return order


def check_typed(typed: list[str]) -> None:
    """Only what the console teaches: moves by destination and short unit names."""
    for line in typed:
        if line.startswith("move "):
            assert " to " in line and " via " not in line, line
        assert ":" not in line, f"a unit id with its formation prefix: {line!r}"


#: Orders a session types: a dozen by default, thirty in the soak stage.
ORDERS = [12, pytest.param(30, marks=pytest.mark.soak)]


@pytest.mark.parametrize("count", ORDERS)
def test_a_newcomer_plays_orders_of_turning_point_stalingrad(tmp_path: Path, count: int) -> None:
    player = Newcomer(tmp_path, "stalingrad", "historical")
    assert player.side == "german"
    player.order("rubble")
    decisions = 0
    filters: set[str] = set()
    while player.orders < count:
        side = player.side
        if " decides (" in player.output:  # a decision: 'legal' lists its answers
            answers = player.legal()
            assert answers, player.output
            player.order(answers[0][0])
            decisions += 1
            continue
        moves = [(one_of(o), label) for o, label in player.legal("move")
                 if o.startswith("move ") and "(stays" not in o]
        filters.add("move")
        cheap = sorted((m for m in moves if mf(m[1]) <= 2), key=lambda m: mf(m[1]))
        if not cheap:
            player.order("pass")
            continue
        order = cheap[0][0]
        unit, place = order.split()[1], order.split()[-1]
        assert ":" not in unit  # listed by its short name
        # what else this unit, and this Area, could do: the filters a newcomer uses
        assert any(o == order for o, _ in player.legal(unit))
        filters.add("unit")
        if len(filters) < 3:
            assert player.legal(place) is not None
            filters.add("place")
        out = player.order(order)
        assert "refused" not in out, out
        if player.side == side and " decides (" not in player.output:
            out = player.order("end")
            if "refused" in out or "8.34" in out:  # must attack first: the listed attack
                attacks = player.legal(f"attack {place}")
                player.order(attacks[0][0])
    check_typed(player.typed)
    assert filters == {"move", "unit", "place"}
    assert player.orders >= count
    assert "is saved: resume with" in player.quit()


@pytest.mark.parametrize("count", ORDERS)
def test_a_newcomer_plays_orders_of_stalins_tanks(tmp_path: Path, count: int) -> None:
    player = Newcomer(tmp_path, "tanks", "first-encounter")
    phase_moves = 0
    kinds: set[str] = set()
    while player.orders < count:
        listed = player.legal()  # what may be done now (a decision's answers, too)
        orders = [o for o, _ in listed]
        fires = [o for o in orders if o.startswith(("fire ", "assault "))]
        moves = [o for o in orders if o.startswith("move ") and " to " in o]
        if fires:
            player.order(fires[0])
            kinds.add("fire")
            continue
        if moves and phase_moves < 2:
            unit = moves[0].split()[1]
            mine = [o for o, _ in player.legal(unit) if o.startswith("move ") and " to " in o]
            assert moves[0] in mine  # the unit filter finds the same moves
            # a move to a hex, not a turn in place ("move iia-1 to 1710 face N", 8.3)
            mine = [o for o in mine if " face " not in o]
            place = mine[-1].split()[-1]
            assert mine[-1] in [o for o, _ in player.legal(place)]  # and the hex filter
            out = player.order(mine[-1])  # as far as it goes
            assert "the cheapest path to" in out, out
            phase_moves += 1
            kinds.add("move")
            continue
        out = player.order("done")
        if "must enter" not in out:
            phase_moves = 0
        else:  # 6.5: more units must enter before the phase ends
            phase_moves -= 2
        kinds.add("done")
    check_typed(player.typed)
    assert {"move", "done"} <= kinds
    assert player.orders >= count
    assert "is saved: resume with" in player.quit()


def shared_screen(transcript: str) -> str:
    """What the shared screen showed outside every look-away step (escape codes removed)."""
    return ANSI.sub("", PRIVATE.sub("", transcript))


def private_screen(transcript: str, side: str) -> str:
    return ANSI.sub("", "".join(m.group(2) for m in PRIVATE.finditer(transcript)
                                if m.group(1) == side))


#: pakfront's German set-up (25.2): eleven units hidden, four infantry in sight.
HIDDEN = ["pak75-1", "pak75-2", "flak88-1", "flak88-2", "pak88-1", "pak88-2",
          *(f"infde-{n}" for n in range(5, 10))]
SETUP = ([f"hide {u} {c:02d}20" for u, c in zip(HIDDEN, range(3, 30, 2), strict=False)]
         + [f"place infde-{n} {c:02d}22" for n, c in zip(range(1, 5), range(3, 30, 4),
                                                          strict=False)])

#: The Soviet force enters from the north edge (25.2), one batch typed at once.
ENTRY = "; ".join(f"move {u} to {h}" for u, h in zip(
    ["t34a-1", "t34a-2", *(f"t34b-{n}" for n in range(1, 5)), *(f"t34c-{n}" for n in range(1, 7)),
     *(f"kvia-{n}" for n in range(1, 5)), "kvic-1", "kvic-2", "su152-1", "su152-2"],
    ["0101", "0102", "0103", "0104", "0105", "0201", "0202", "0203", "0204", "0301", "0302",
     "0303", "0401", "0402", "0403", "0501", "0502", "0503", "0601", "0602"], strict=True))


def test_a_hot_seat_stalins_tanks_game_shows_no_hidden_unit_on_the_shared_screen_20_0(
        tmp_path: Path) -> None:
    """pakfront at one screen: the German sets up hidden, the Soviet enters, the German
    gets Defensive Fire options naming hidden units (10.1), then types board and legal at
    its own prompt. Outside the German's look-away steps no hidden unit id is shown."""
    transcript = io.StringIO()
    player = Newcomer(tmp_path, "tanks", "pakfront", transcript)
    assert player.prompt.startswith("German: press Enter when only you are looking")
    player.type("")
    said = {}
    for line in [*SETUP, "placed", "done"]:
        assert player.prompt == "secret>", player.output
        said[line] = player.type(line)
    assert "0320 pak75-1 (75), hidden (20.0)" in said["placed"]  # to its owner
    asked = {"board", "legal", "done"}
    typed_german: list[str] = []
    for _ in range(200):
        prompt = player.prompt
        if "press Enter" in prompt:
            player.type("")
        elif prompt == "[soviet]":
            out = player.order(ENTRY if ENTRY not in player.typed else "done")
            assert "refused" not in out, out
        elif prompt == "[german]":
            if " decides (" in player.output:
                typed_german.append("done")
                player.order("done")
                continue
            if not asked:
                break
            line = next(w for w in ("board", "legal", "done") if w in asked)
            asked.discard(line)
            typed_german.append(line)
            player.type(line)
        else:
            raise AssertionError(f"unexpected prompt {prompt!r}: {player.output}")
    assert not asked, "the German's player turn never came"
    player.quit()
    raw = transcript.getvalue()
    after = shared_screen(raw).split("german has finished setting up", 1)
    assert len(after) == 2, "the set-up's end was never shown to everyone"
    leaks = sorted({u for u in HIDDEN if re.search(rf"\b{re.escape(u)}\b", after[1])})
    assert not leaks, f"hidden units shown on the shared screen: {leaks}"
    owner = private_screen(raw, "german")
    # not blind: the same secrets were on the screen, behind the German's steps
    assert "flak88-1 (88 Flak) [hidden]" in owner  # board
    assert re.search(r"fire (?:pak75|flak88|pak88)-\d at t34", owner)  # options, legal
    assert "german secret salt:" in owner  # dice only the German may see (20.0's commitment)
    assert "secret salt" not in shared_screen(raw)


def test_a_hot_seat_stalingrad_game_keeps_a_standing_order_off_the_shared_screen(
        tmp_path: Path) -> None:
    """TP:S at one screen: the German types a standing order privately ('secret'); its
    confirmation and the policies it then lists show only behind the German's step."""
    transcript = io.StringIO()
    player = Newcomer(tmp_path, "stalingrad", "historical", transcript)
    player.type("secret")
    assert player.prompt.startswith("German: press Enter when only you are looking")
    player.type("")
    player.type("standing advantage ask")
    player.type("policies")  # a command ends the batch: the order is sent first
    player.type("")
    assert player.prompt.startswith("German: press Enter to clear the screen")
    player.type("")
    player.order("rubble")
    while player.prompt != "[german]" or " decides (" in player.output:
        player.type("" if "press Enter" in player.prompt else "advantage decline")
    player.quit()
    raw = transcript.getvalue()
    assert "standing order advantage = ask" in private_screen(raw, "german")
    shared = shared_screen(raw)
    assert "advantage = ask" not in shared and "[set]" not in shared
