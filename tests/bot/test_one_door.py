"""One door for orders (issue 22, item 1): ``GameService.submit(game, actor, text, key, side,
channel)`` reads the lines once, refuses a secret order where others read it before
anything is applied (25.7 face-down placements, 20.0 hidden set-up, mines), asks a set-up's
forfeiting ``done`` once, and returns the lines it read; the frontends (console, email,
Discord) hold no order parsing and no secrecy decision of their own."""

from __future__ import annotations

import re
from pathlib import Path

from bot.service.models import (
    CONFIRM_RULE,
    COPIED_CHANNEL,
    PRIVATE_CHANNEL,
    PUBLIC_CHANNEL,
    SECRET_RULE,
    SHARED_CHANNEL,
)
from tests.bot.test_service_support import make_service
from tests.security.test_secret_outputs import GERMAN, SOVIET, tanks_game

ROOT = Path(__file__).resolve().parents[2]
#: The Soviet's units in the Kursk salient (tests/bot/test_discord_setup_guide.py).
KURSK_SOVIET = ["su76-1", "su76-2", "su85-1", "su122-1", "su122-2", "at57-1", "at57-2",
                "at76-1", "at76-2", *(f"infsu-{n}" for n in range(1, 9))]

#: What reading an order or deciding its secrecy looks like in a frontend.
PARSING = re.compile(r"order_lines\(|apply_lines|\.secrecy\(|is_secret|is_private\b|"
                     r"private_only|secret_heads|\brules\.parse\(|\bgame\.parse\(|"
                     r"spec\.read\(|parse_in\(|verb\.secret\s+and")
#: The frontends' files; Discord's autocomplete reads legal orders to suggest them (it
#: submits nothing), so it is the one file left out.
FRONTENDS = [ROOT / "bot" / "console.py", *sorted((ROOT / "bot" / "mail").glob("*.py")),
             *sorted(p for p in (ROOT / "bot" / "discord").glob("*.py")
                     if p.name != "autocomplete.py")]


def test_frontends_neither_parse_orders_nor_decide_secrecy() -> None:
    """The grep of issue 22: no order parsing, no secrecy decision in bot/console.py,
    bot/mail/, bot/discord/ — the service's submit does both."""
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for path in FRONTENDS
             for number, line in enumerate(path.read_text().splitlines(), start=1)
             if PARSING.search(line)]
    assert found == []
    assert len(FRONTENDS) > 20  # the globs found the frontends


def test_a_face_down_placement_is_refused_in_public_before_anything_is_applied_25_7(
        tmp_path: Path) -> None:
    """25.7: in the Gauntlet's face-down set-up a plain ``place`` is the German's secret:
    given in public (a thread, the shared screen) or in a copied mail it is refused with
    rule ``secret`` and nothing is applied; privately it is taken."""
    service = make_service(tmp_path / "u.db")
    game_id = tanks_game(service, "gauntlet")
    head = service.info(game_id).head_seq
    place = next(o for o in service.legal_orders(game_id, GERMAN) if o.startswith("place"))
    for channel in (PUBLIC_CHANNEL, COPIED_CHANNEL):
        refused = service.submit(game_id, GERMAN, f"# first\n\n{place}", "k1", None, channel)
        assert refused.status == "refused" and refused.error_rule == SECRET_RULE
        assert refused.stopped_at == 1 and refused.lines == [place]
        assert "line 1 is a secret order" in str(refused.error)
        assert service.info(game_id).head_seq == head
    taken = service.submit(game_id, GERMAN, place, "k1", None, PRIVATE_CHANNEL)
    assert taken.ok and taken.lines == [place] and taken.secret_lines == []
    # the hot-seat's shared screen takes it, and names it for the console to say so
    again = next(o for o in service.legal_orders(game_id, GERMAN)
                 if o.startswith("place") and o.split()[1] != place.split()[1])
    shared = service.submit(game_id, GERMAN, again, "k2", None, SHARED_CHANNEL)
    assert shared.ok and shared.secret_lines == [1]


def test_standing_orders_may_be_given_in_public_but_not_in_a_copied_mail_22_11(
        tmp_path: Path) -> None:
    """A standing order is acknowledged to its sender alone, so a thread may take it; a
    mail with copies shows its text to others, so it is refused there (and a mistyped
    secret verb is refused as secret, never echoed)."""
    service = make_service(tmp_path / "u.db")
    game_id = tanks_game(service, "gauntlet")
    standing = "standing defensive-fire hold"
    copied = service.submit(game_id, GERMAN, standing, None, None, COPIED_CHANNEL)
    assert copied.error_rule == SECRET_RULE
    assert service.submit(game_id, GERMAN, standing, None, None, PUBLIC_CHANNEL).ok
    garbled = service.submit(game_id, GERMAN, "hid garbled words", None, None,
                             PUBLIC_CHANNEL)
    assert garbled.error_rule == SECRET_RULE


def test_a_forfeiting_done_is_asked_once_then_taken_20_0(tmp_path: Path) -> None:
    """20.0/19.1: a hidden set-up's ``done`` that leaves mines unwritten is refused once
    with rule ``confirm`` (what it gives up), and the same ``done`` again is taken; a
    frontend that asks in its own dialogue sends it ``confirmed``."""
    service = make_service(tmp_path / "u.db")
    game_id = tanks_game(service, "kursk-salient")
    lines = [f"place {unit} {12 + i:02d}13" for i, unit in enumerate(KURSK_SOVIET)]
    placed = service.submit(game_id, SOVIET, "\n".join(lines), "p", None, PRIVATE_CHANNEL)
    assert placed.ok, placed.error
    first = service.submit(game_id, SOVIET, "done", "d1", None, PRIVATE_CHANNEL,
                           confirmed=False)
    assert first.error_rule == CONFIRM_RULE
    assert "Done now gives up: 6 mined hex(es)" in str(first.error)
    second = service.submit(game_id, SOVIET, "done", "d2", None, PRIVATE_CHANNEL,
                            confirmed=False)
    assert second.ok, second.error


def test_the_discord_port_is_the_bots_only_door_into_the_service() -> None:
    """Issue 22, item 5: the bot's commands, publisher and controls reach the service (and
    its store) only through :class:`ServicePort`'s methods — no ``port.service`` reach-ins,
    no store imported beside the port (``app.py`` builds them both)."""
    reach = re.compile(r"\bport\.(_?service)\b|\._service\b|^from bot\.store|^import bot\.store")
    door = {"port.py", "app.py"}
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for path in sorted((ROOT / "bot" / "discord").glob("*.py")) if path.name not in door
             for number, line in enumerate(path.read_text().splitlines(), start=1)
             if reach.search(line)]
    assert found == []
