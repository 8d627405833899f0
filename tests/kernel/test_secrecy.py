""""Is this order secret?" is answered once (issue 22): :meth:`Game.secrecy`, from the order
spec's ``secret`` verbs and the game's position hook; every frontend's path asks it and
classifies both games' orders the same (20.0, 19.1, 22.11, 22.22, 25.7)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.game import Game
from adjudicator.kernel.secrecy import Secrecy
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.tanks import scenario
from adjudicator.tanks.game import TanksGame
from bot.messages import text_visible

ROOT = Path(__file__).resolve().parents[2]

#: The places that once decided secrecy themselves; now each asks ``Game.secrecy``.
CALLERS = ("adjudicator/kernel/game.py", "adjudicator/tanks/game.py",
           "adjudicator/stalingrad/game.py", "bot/listing.py", "bot/messages.py",
           "bot/service/reads.py")
#: What deciding secrecy looks like: the spec's secret flag or words, standing orders
#: singled out, a position compared with the side entering secrets.
DECIDING = re.compile(r"declares_secret\(|secret_words\(|verb\.secret\b|"
                      r"SetStanding\).*(secret|private)|private_input\([^)]*\)\s*==")

GAMES = {"stalingrad": StalingradGame(), "tanks": TanksGame()}
#: Per game: (order text, its secrecy).
TEXTS = {
    "stalingrad": [("bid 2", Secrecy.SECRET), ("decide card 7", Secrecy.SECRET),
                   ("standing casualties hold", Secrecy.SENDER), ("rubble", Secrecy.PUBLIC),
                   ("pass", Secrecy.PUBLIC), ("bi", Secrecy.SECRET)],
    "tanks": [("hide pak75-1 0101", Secrecy.SECRET), ("mine 0505", Secrecy.SECRET),
              ("place pak75-1 0101", Secrecy.PUBLIC), ("done", Secrecy.PUBLIC),
              ("standing defensive-fire hold", Secrecy.SENDER),
              ("hid garbled words", Secrecy.SECRET), ("zzz", Secrecy.PUBLIC)],
}


def test_only_game_secrecy_decides_whether_an_order_is_secret() -> None:
    """No caller decides secrecy itself: the spec's flag, standing orders and the position
    are read only inside ``Game.secrecy`` and the kernel's secrecy module."""
    deciders = [inspect.getsource(Game.secrecy), inspect.getsource(Game.secret_in_position)]
    for name in CALLERS:
        text = (ROOT / name).read_text()
        for decider in deciders:
            text = text.replace(decider, "")
        found = [line.strip() for line in text.splitlines() if DECIDING.search(line)]
        assert found == [], f"{name} decides secrecy itself: {found}"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_20_0_19_1_22_11_every_frontend_path_classifies_an_order_alike(name: str) -> None:
    game: Game[Any] = GAMES[name]
    for text, secrecy in TEXTS[name]:
        assert game.secrecy(text) is secrecy, text
        # refused in a public channel exactly when secret: tests/bot/test_one_door.py
        # console, mail, the leak scan: hidden text
        assert game.is_secret_text(text) is secrecy.hidden, text
        try:
            order = game.parse(text)
        except (RuleError, ValueError):  # unreadable: only the text paths apply
            continue
        assert game.is_secret(order) is secrecy.hidden, text
        # the log: another side reads a stored order exactly when it is not hidden
        row = {"side": game.sides[0], "kind": "order", "text": text, "payload": None}
        assert text_visible(game, row, game.sides[1]) is not secrecy.hidden, text


def test_25_7_a_face_down_placement_is_secret_by_its_position() -> None:
    """The game hook: in a face-down set-up a plain placement names a unit the other side
    may not know (25.7); outside one it is public."""
    game = GAMES["tanks"]
    state = game.setup("gauntlet")
    side = scenario.setup_side(state)
    assert side == "german" and state.flags["hidden"][side]["mode"] == "face-down"
    placement = game.legal_orders(state, side)[0]
    assert placement.startswith("place ")
    order = game.parse(placement)
    assert game.secrecy(order, state, side) is Secrecy.SECRET
    assert game.is_private(state, side, order)
    assert game.secrecy(order) is Secrecy.PUBLIC  # without the position: the verb's own
    assert game.secrecy(order, game.setup(), side) is Secrecy.PUBLIC  # no set-up: public
