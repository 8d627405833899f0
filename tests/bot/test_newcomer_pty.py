"""A newcomer's first session, per game, through a real terminal (a pty): `umpire play`
with line editing, and 12 orders (30 in the soak stage) typed the way the console teaches —
moves by destination (`move UNIT to AREA|HEX`), short unit names, and `legal` with filters to
find what to type.
Nothing else is typed: no ids with their formation prefix, no `via`, no hex-by-hex paths.
"""

from __future__ import annotations

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
PROMPT = r"\x1b\[\?2004h[^\n]*?(\[(?:german|russian|soviet)\]|secret>|\[y/N\])"
LEGAL_LINE = re.compile(r"^ {2}(?P<order>\S.*?)(?: {2}\((?P<label>.*)\))?$")


class Newcomer:
    """Types lines at `umpire play` in a pty and reads what comes back."""

    def __init__(self, tmp_path: Path, game: str, scenario: str) -> None:
        env = dict(os.environ, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm", COLUMNS="200",
                   LINES="50", NO_COLOR="1")
        self.child = pexpect.spawn(
            sys.executable, ["-m", "bot.cli", "play", game, "--scenario", scenario,
                             "--db", str(tmp_path / "umpire.db")],
            env=env, cwd=str(ROOT), encoding="utf-8", timeout=90, dimensions=(50, 200))
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
