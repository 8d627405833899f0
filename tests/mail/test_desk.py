"""The desk: a received mail in, the mail to send out — commands, seats and secrets,
each audience's view, forged senders, duplicates, loops and floods (no network here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.mail.desk import Desk
from bot.mail.inbound import Inbound
from bot.mail.outbound import Outgoing
from bot.service import Actor
from tests.mail.support import desk, inbound, secret_in

GM, RED, BLUE = "gm@player.test", "red@player.test", "blue@player.test"


@pytest.fixture
def office(tmp_path: Path) -> Desk:
    return desk(tmp_path / "umpire.db")


def one(out: list[Outgoing]) -> Outgoing:
    assert len(out) == 1, [o.to for o in out]
    return out[0]


def handle(office: Desk, mail: Inbound) -> list[Outgoing]:
    """What the gateway does with a mail: handle it, send (here: nothing) what it says."""
    out = office.handle(mail)
    for sent in out:
        office.sent(sent)
    return out


def catch_up(office: Desk) -> list[Outgoing]:
    out = office.catch_up()
    for sent in out:
        office.sent(sent)
    return out


def game_with_players(office: Desk) -> tuple[str, dict[str, str]]:
    created = one(handle(office, inbound(GM, "create duel")))
    game_id = created.game_id
    assert game_id is not None and f"[umpire {game_id}]" in created.subject
    secrets = {GM: secret_in(created)}
    for who, side in ((RED, "red"), (BLUE, "blue")):
        joined = one(handle(office, inbound(who, f"join {game_id} {side}")))
        secrets[who] = secret_in(joined)
    started, *told = handle(office, inbound(GM, f"password {secrets[GM]}\nstart",
                                            subject=f"Re: [umpire {game_id}] x"))
    assert "started; to act: red" in started.body, started.body
    assert {mail.to for mail in told} == {RED, BLUE}  # every seat is told
    return game_id, secrets


def test_a_game_is_created_joined_started_and_played_by_mail(office: Desk) -> None:
    game_id, secrets = game_with_players(office)
    reply = one(handle(office, inbound(RED, f"password {secrets[RED]}\ntrap 1\nmove r2 3",
                                      subject=f"[umpire {game_id}] turn 1")))
    assert "applied: trap 1" in reply.body and "applied: move r2 3" in reply.body
    assert "red sets the trap in Ford" in reply.body  # red's own view
    assert reply.audience == "red" and reply.attachments == [(f"{game_id}-red.png", b"PNG:red")]
    assert secrets[RED] not in reply.body
    notices = catch_up(office)
    by = {n.to: n for n in notices}
    assert set(by) == {GM, BLUE}  # red was told in the reply
    assert "Ford" not in by[BLUE].body and "r2 moves to Mill" in by[BLUE].body
    assert by[BLUE].audience == "blue" and by[GM].audience == "gm"
    assert "Ford" in by[GM].body
    assert catch_up(office) == []  # told once


def test_forged_sender_without_the_secret_is_refused_and_the_owner_told(office: Desk) -> None:
    game_id, secrets = game_with_players(office)
    forged = one(handle(office, inbound(RED, "trap 1", subject=f"[umpire {game_id}]")))
    assert forged.to == RED  # the reply goes to the seat's own address: its owner is told
    assert "did not carry the seat's secret" in forged.body
    assert "someone tried to act for you" in forged.body
    assert office.service.info(game_id).head_seq == 0
    # Another player's secret from the wrong address: refused like any wrong secret (a
    # password is checked against the sender's own seats only, issue 27.1).
    stolen = one(handle(office, inbound(BLUE, f"password {secrets[RED]}\ntrap 1",
                                       subject=f"[umpire {game_id}]")))
    assert stolen.to == BLUE and "did not carry the seat's secret" in stolen.body
    assert office.service.info(game_id).head_seq == 0


def test_refusals_name_the_rule_and_what_is_legal(office: Desk) -> None:
    game_id, secrets = game_with_players(office)
    reply = one(handle(office, inbound(BLUE, f"password {secrets[BLUE]}\npass",
                                      subject=f"[umpire {game_id}]")))
    assert "line 2 not applied — turn: it is red's turn" in reply.body
    legal = one(handle(office, inbound(RED, f"password {secrets[RED]}\nlegal trap",
                                      subject=f"[umpire {game_id}]")))
    assert "trap 1" in legal.body and "move" not in legal.body.split("may give")[1]


def test_a_duplicate_mail_applies_nothing_twice(office: Desk) -> None:
    game_id, secrets = game_with_players(office)
    mail = inbound(RED, f"password {secrets[RED]}\ntrap 1", subject=f"[umpire {game_id}]",
                   message_id="<same@player.test>")
    handle(office, mail)
    again = one(handle(office, mail))
    assert "already handled" in again.body
    assert office.service.info(game_id).head_seq == 1


def test_quotes_signatures_and_footers_are_ignored(office: Desk) -> None:
    game_id, secrets = game_with_players(office)
    body = (f"password {secrets[RED]}\ntrap 1\n\nOn Mon, 1 Jan 2026, Umpire wrote:\n"
            "> move r2 3\n> pass\n-- \nRed\nmove r1 2\n")
    reply = one(handle(office, inbound(RED, body, subject=f"[umpire {game_id}]")))
    assert "applied: trap 1" in reply.body and "move r" not in reply.body
    assert office.service.info(game_id).head_seq == 1


def test_secret_orders_only_from_a_private_mail(office: Desk) -> None:
    game_id, secrets = game_with_players(office)
    reply, reset = handle(office, inbound(RED, f"password {secrets[RED]}\ntrap 1",
                                         subject=f"[umpire {game_id}]", cc=BLUE))
    assert "only from a mail to Umpire alone" in reply.body
    assert reset.to == RED and "has a new secret" in reset.body  # the password was seen
    assert office.service.info(game_id).head_seq == 0


def test_auto_replies_bounces_and_loops_are_never_answered(office: Desk) -> None:
    for headers in ({"Auto-Submitted": "auto-replied"}, {"Precedence": "bulk"},
                    {"X-Loop": "umpire@umpire.test"}, {"List-Id": "<x.lists.test>"}):
        assert handle(office, inbound(RED, "help", headers=headers)) == []
    assert handle(office, inbound("MAILER-DAEMON@player.test", "help")) == []
    assert handle(office, inbound("umpire@umpire.test", "help")) == []


def test_a_flood_is_told_once_then_dropped(tmp_path: Path) -> None:
    from tests.mail.support import config

    office = desk(tmp_path / "umpire.db")
    office.config = config(limits={"per_hour": 3})
    replies = [handle(office, inbound(RED, "help")) for _ in range(6)]
    assert [len(r) for r in replies] == [1, 1, 1, 1, 0, 0]
    assert "more than 3 mails within an hour" in replies[3][0].body


def test_gm_rollback_needs_a_preview_and_its_code(office: Desk) -> None:
    game_id, secrets = game_with_players(office)
    handle(office, inbound(RED, f"password {secrets[RED]}\ntrap 1\nmove r2 3",
                          subject=f"[umpire {game_id}]"))
    subject = f"[umpire {game_id}]"
    preview = one(handle(office, inbound(GM, f"password {secrets[GM]}\nrollback 1 because "
                                        "wrong square", subject=subject)))
    assert "Preview" in preview.body and "move r2 3" in preview.body
    code = preview.body.split("send: confirm ")[1].split()[0]
    assert office.service.info(game_id).head_seq == 2
    stranger = one(handle(office, inbound(RED, f"password {secrets[RED]}\nconfirm {code}",
                                         subject=subject)))
    assert "GM" in stranger.body and office.service.info(game_id).head_seq == 2
    done = one(handle(office, inbound(GM, f"password {secrets[GM]}\nconfirm {code}",
                                     subject=subject)))
    assert "applied: confirm" in done.body and "rolled the game back to action 1" in done.body
    notices = {n.to: n for n in catch_up(office)}
    assert "rolled the game back" in notices[BLUE].body


def test_gm_seats_a_player_by_mail_and_only_they_get_the_secret(office: Desk) -> None:
    created = one(handle(office, inbound(GM, "create duel")))
    game_id, gm_secret = created.game_id, secret_in(created)
    out = handle(office, inbound(GM, f"password {gm_secret}\nseat red {RED}\nseat blue {BLUE}",
                                subject=f"[umpire {game_id}]"))
    reply, *secrets = out
    assert {m.to for m in secrets} == {RED, BLUE} and all(m.audience == "private"
                                                         for m in secrets)
    for mail in secrets:
        assert secret_in(mail) not in reply.body
    red_secret = secret_in(next(m for m in secrets if m.to == RED))
    assert office.service.unlocked_seats(game_id, Actor.mail(RED), red_secret)


def test_deadlines_remind_by_mail_and_expire(tmp_path: Path) -> None:
    from tests.bot.test_service_support import Clock

    clock = Clock()
    office = desk(tmp_path / "umpire.db", clock=clock)
    office.service.clock = clock
    game_id, secrets = game_with_players(office)
    handle(office, inbound(GM, f"password {secrets[GM]}\ndeadline 10h",
                           subject=f"[umpire {game_id}]"))
    handle(office, inbound(RED, f"password {secrets[RED]}\ntrap 1", subject=f"[umpire {game_id}]"))
    catch_up(office)
    clock.advance(5.5 * 3600)  # past half of red's time: red is reminded
    mails = office.tick()
    reminders = [m for m in mails if "left to act" in m.body]
    assert [m.to for m in reminders] == [RED] and reminders[0].audience == "red"
    assert office.tick() == []  # reminded once
    told: list[Outgoing] = []
    for _ in range(5 * 3600 // 300):  # the gateway ticks often; red's time runs out
        clock.advance(300)
        for mail in office.tick():
            office.sent(mail)
            told.append(mail)
    expired = {m.to: m.body for m in told if "deadline passed" in m.body}
    assert set(expired) == {GM, RED, BLUE} and "Umpire plays pass" in expired[BLUE]
    info = office.service.info(game_id)
    assert info.head_seq == 2 and info.to_act == "blue"


def test_unknown_games_finished_games_and_empty_mail_get_clear_answers(office: Desk) -> None:
    unknown = one(handle(office, inbound(RED, "pass", subject="[umpire nosuchgame] x")))
    assert "there is no game 'nosuchgame'" in unknown.body
    nothing = one(handle(office, inbound(RED, "\n\n> pass\n-- \nRed")))
    assert "no command" in nothing.body
    game_id, secrets = game_with_players(office)
    handle(office, inbound(BLUE, f"password {secrets[BLUE]}\nresign",
                           subject=f"[umpire {game_id}]"))
    late = one(handle(office, inbound(RED, f"password {secrets[RED]}\ntrap 1",
                                      subject=f"[umpire {game_id}]")))
    assert "the game is finished, not in play" in late.body
    assert "Game over: blue resigns; red wins" in late.body


def test_every_other_command_by_mail(office: Desk) -> None:
    game_id, secrets = game_with_players(office)
    subject = f"[umpire {game_id}]"

    def send(who: str, body: str) -> str:
        return one(handle(office, inbound(who, f"password {secrets[who]}\n{body}",
                                          subject=subject))).body

    listed = one(handle(office, inbound(RED, "list"))).body
    assert f"{game_id}: " in listed and "you: red" in listed
    status = send(BLUE, "status")
    assert "red: by mail\n" in status.replace("\r", "") and "to act: red" in status
    assert RED not in status  # players' addresses are for the GM
    assert RED in send(GM, "status")
    mapped = one(handle(office, inbound(RED, f"password {secrets[RED]}\ntrap 1\nmap",
                                        subject=subject)))
    assert (f"{game_id}-red.png", b"PNG:red") in mapped.attachments
    refused = send(BLUE, "map red")
    assert "may not see the red view" in refused
    assert "standing casualty" in send(BLUE, "standing")
    assert "#1 order red: trap 1" in send(RED, "log 5")
    assert "#1 order red: (secret)" in send(BLUE, "log 5")
    moved = send(RED, "move r2 3\nundo")
    assert "applied: undo" in moved and "red takes back: move r2 3" in moved
    paused = send(GM, "pause holidays")
    assert "paused the game" in paused and "holidays" in paused
    assert "paused by the GM" in send(RED, "pass")
    assert "resumed" in send(GM, "resume back again")
    reset = handle(office, inbound(GM, f"password {secrets[GM]}\nsecret blue",
                                   subject=subject))
    assert {m.to for m in reset} == {GM, BLUE}
    new_blue = secret_in(next(m for m in reset if m.to == BLUE))
    assert new_blue not in next(m for m in reset if m.to == GM).body
    assert "did not carry the seat's secret" in send(BLUE, "pass")  # the old one is void
    assert "secret until the game is over" in send(GM, "seed")
    assert "GM's seat" in send(RED, "seed")
    assert "blue has no player now" in send(GM, "unseat blue because left the club")


def test_a_gm_who_plays_gets_no_gm_only_mail_while_the_game_runs(office: Desk) -> None:
    """Issue 27.3: a GM who also plays is a player during play, so the mail a GM alone may
    read (red's secret trap, D4) does not reach their address; before the start and
    after the end they read as the GM."""
    created = one(handle(office, inbound(GM, "create duel")))
    game_id = created.game_id
    assert game_id is not None
    secrets = {GM: secret_in(created)}
    assert office.recipients(office.service.info(game_id, contacts=True))[GM] == "gm"
    secrets[RED] = secret_in(one(handle(office, inbound(RED, f"join {game_id} red"))))
    handle(office, inbound(GM, f"password {secrets[GM]}\njoin {game_id} blue"))
    handle(office, inbound(GM, f"password {secrets[GM]}\nstart", subject=f"[umpire {game_id}]"))
    info = office.service.info(game_id, contacts=True)
    assert info.status == "active"
    assert office.recipients(info)[GM] == "blue"
    handle(office, inbound(RED, f"password {secrets[RED]}\ntrap 1", subject=f"[umpire {game_id}]"))
    notices = catch_up(office)
    to_gm = [n for n in notices if n.to == GM]
    assert to_gm and all(n.audience == "blue" for n in to_gm)
    assert all("Ford" not in n.body for n in to_gm)
