"""Email ``brief`` (the scenario's briefing, issue 23) and ``placed`` (a seat's secret
set-up so far, 25.7: owner only, never to a mail with others in copy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.mail.desk import Desk
from bot.service import Actor
from tests.mail.support import desk, inbound, secret_in
from tests.mail.test_desk import BLUE, GM, RED, handle, one


@pytest.fixture
def gauntlet(tmp_path: Path) -> tuple[Desk, str, dict[str, str]]:
    """A started Gauntlet game by mail: red plays the German side (a face-down set-up,
    25.7), blue the Soviet."""
    return started_gauntlet(tmp_path / "umpire.db")


def started_gauntlet(db: Path) -> tuple[Desk, str, dict[str, str]]:
    """A Gauntlet game created, joined (red German, blue Soviet) and started by mail:
    the desk, the game's id and each sender's secret."""
    office = desk(db, games={"tanks": "tanks"})
    created = one(handle(office, inbound(GM, "create tanks gauntlet")))
    game_id = str(created.game_id)
    secrets = {GM: secret_in(created)}
    for who, side in ((RED, "german"), (BLUE, "soviet")):
        secrets[who] = secret_in(one(handle(office, inbound(who, f"join {game_id} {side}"))))
    handle(office, inbound(GM, f"password {secrets[GM]}\nstart", subject=f"[umpire {game_id}]"))
    return office, game_id, secrets


def _place(office: Desk, game_id: str, secret: str) -> str:
    place = next(o for o in office.service.legal_orders(game_id, Actor.mail(RED))
                 if o.startswith("place"))
    reply = one(handle(office, inbound(RED, f"password {secret}\n{place}",
                                      subject=f"[umpire {game_id}]")))
    assert f"applied: {place}" in reply.body, reply.body
    return place


def test_brief_mails_the_scenarios_briefing_to_anyone_issue_23(
        gauntlet: tuple[Desk, str, dict[str, str]]) -> None:
    """Issue 23: the same briefing as Discord's and the console's ``brief``, by email;
    public (it comes from the scenario), so a stranger may ask for it by game id."""
    office, game_id, _ = gauntlet
    text = office.service.briefing(game_id, Actor.mail(GM)).text()
    for body, subject in ((f"brief {game_id}", "briefing"), ("brief", f"[umpire {game_id}]")):
        reply = one(handle(office, inbound("stranger@player.test", body, subject=subject)))
        assert "not done" not in reply.body, reply.body
        for line in text.splitlines():
            assert line.strip() in reply.body


def test_brief_of_an_unknown_game_is_refused_clearly(
        gauntlet: tuple[Desk, str, dict[str, str]]) -> None:
    office, _, _ = gauntlet
    reply = one(handle(office, inbound(RED, "brief nosuchgame")))
    assert "not done — there is no game 'nosuchgame'" in reply.body


def test_placed_lists_the_seats_secret_set_up_to_its_player_25_7(
        gauntlet: tuple[Desk, str, dict[str, str]]) -> None:
    """25.7: ``placed`` answers the German player (alone) with what it has set up so far,
    the service's set-up guide, and what is left."""
    office, game_id, secrets = gauntlet
    _place(office, game_id, secrets[RED])
    guide = office.service.setup_guide(game_id, Actor.mail(RED))
    assert guide is not None and len(guide.placed) == 1
    reply = one(handle(office, inbound(RED, f"password {secrets[RED]}\nplaced",
                                      subject=f"[umpire {game_id}]")))
    assert reply.to == RED and reply.audience == "german"
    assert "german has set up (1):" in reply.body and guide.placed[0] in reply.body
    assert "left to place: " in reply.body


def test_placed_is_never_answered_to_a_mail_with_others_in_copy_25_7(
        gauntlet: tuple[Desk, str, dict[str, str]]) -> None:
    """25.7: with the opponent (or anyone) in copy, ``placed`` is refused and lists
    nothing of the set-up."""
    office, game_id, secrets = gauntlet
    _place(office, game_id, secrets[RED])
    guide = office.service.setup_guide(game_id, Actor.mail(RED))
    assert guide is not None
    out = handle(office, inbound(RED, f"password {secrets[RED]}\nplaced",
                                 subject=f"[umpire {game_id}]", cc=BLUE))
    assert out and all(mail.to == RED for mail in out)
    assert "not done — 'placed' lists your side's secret set-up" in out[0].body
    for mail in out:
        assert guide.placed[0] not in mail.body


@pytest.mark.parametrize("who", [BLUE, GM, "stranger@player.test", RED])
def test_placed_is_refused_to_anyone_but_the_setting_up_seat_25_7(
        gauntlet: tuple[Desk, str, dict[str, str]], who: str) -> None:
    """25.7: the opponent, the GM, a stranger, and the German player without its password
    are refused; none reads the German set-up."""
    office, game_id, secrets = gauntlet
    _place(office, game_id, secrets[RED])
    guide = office.service.setup_guide(game_id, Actor.mail(RED))
    assert guide is not None
    password = f"password {secrets[who]}\n" if who in secrets and who != RED else ""
    reply = one(handle(office, inbound(who, f"{password}placed",
                                      subject=f"[umpire {game_id}]")))
    assert "not done — " in reply.body, reply.body
    assert guide.placed[0] not in reply.body
