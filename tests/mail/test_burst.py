"""A burst of mail against dovecot and the SMTP server (issue 26): the mail waiting when the
gateway wakes is fetched in one go and moved in one command, answered in turn over one SMTP
session, every reply before the batch's notices; mail that comes meanwhile is answered
before the gateway waits again; a session the server ends mid-batch (421, a dropped
connection, or no session at all for a while) loses no reply, sends none twice, and
applies no order twice."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot import seat_secrets
from bot.mail.gateway import SendFailed
from bot.mail.inbound import Inbound
from bot.mail.outbound import Outgoing
from bot.mail.transport import Inbox
from bot.seat_secrets import new_secret
from bot.service import Actor, GameService
from tests.mail.conftest import gateway_config
from tests.mail.servers import Dovecot, LocalCA, Received, SmtpSink
from tests.mail.support import DUEL, raw_mail
from tests.mail.table import Table

pytestmark = pytest.mark.usefixtures("passwords")

RED, BLUE, GM = "red@player.test", "blue@player.test", "gm@player.test"


@pytest.fixture
def table(dovecot: Dovecot, mailbox: str, sink: SmtpSink, ca: LocalCA,
          tmp_path: Path) -> Table:
    config = gateway_config(dovecot, mailbox, sink, ca, tmp_path, limits={"per_hour": 1000})
    return Table(dovecot, mailbox, sink, config, games=DUEL)


def duel(service: GameService) -> tuple[str, str]:
    """A started Duel game seated by mail (GM, red, blue), red to act; its id and red's
    secret."""
    gm, red, blue = Actor.mail(GM), Actor.mail(RED), Actor.mail(BLUE)
    secret = new_secret()
    game_id = service.create_game(gm, DUEL["duel"], creator_secret=new_secret()).id
    service.seat(game_id, gm, "red", red, secret=secret)
    service.seat(game_id, gm, "blue", blue, secret=new_secret())
    service.start(game_id, gm)
    service.submit(game_id, red, "trap 1")
    return game_id, secret


def burst(table: Table, games: int) -> tuple[list[str], list[bytes]]:
    """``games`` new games and red's order mail to each (not sent yet); the gateway has
    caught up with the games (as it does at each tick): their followers' cursors are set."""
    made = [duel(table.service) for _ in range(games)]
    table.gateway.tick(force=True)
    assert table.sink.received == []
    return [game_id for game_id, _ in made], [
        raw_mail(RED, f"password {secret}\npass", subject=f"[umpire {game_id}] pass")
        for game_id, secret in made]


def replies(sink: SmtpSink) -> list[Received]:
    return [m for m in sink.received if m.header("Auto-Submitted") == "auto-replied"]


def counted(inbox: Inbox) -> Counter[str]:
    """The UID commands ``inbox`` sends from now on (FETCH, MOVE, ...), counted."""
    inbox.connect()
    assert inbox.box is not None
    client = inbox.box.client
    commands: Counter[str] = Counter()
    uid = client.uid

    def counting(command: str, *args: Any) -> Any:
        commands[command.lower()] += 1
        return uid(command, *args)

    client.uid = counting  # type: ignore[method-assign]
    return commands


def test_a_burst_is_fetched_at_once_and_answered_over_one_session(table: Table) -> None:
    """Six games' mails waiting at once: two FETCH commands (sizes, bodies) and one MOVE
    for all six, six replies over one SMTP session, every reply before the first notice,
    and each other follower (blue, the GM) told once per game."""
    games, mails = burst(table, 6)
    assert isinstance(table.gateway.inbox, Inbox)
    commands = counted(table.gateway.inbox)
    table.dovecot.append(*mails, user=table.mailbox)
    assert table.gateway.poll() == 6
    assert commands["fetch"] == 2 and commands["move"] == 1, commands
    answered = replies(table.sink)
    assert Counter(m.header("X-Umpire-Game") for m in answered) == Counter(games)
    assert all(m.to == [RED] and "applied: pass" in m.text for m in answered)
    assert table.sink.logins == 1
    kinds = [m.header("Auto-Submitted") for m in table.sink.received]
    assert kinds == ["auto-replied"] * 6 + ["auto-generated"] * 12
    notices = Counter((tuple(m.to), m.header("X-Umpire-Game")) for m in table.sink.received
                      if m.header("Auto-Submitted") == "auto-generated")
    assert notices == Counter({((who,), game): 1 for game in games for who in (BLUE, GM)})
    assert table.dovecot.count("INBOX", table.mailbox) == 0


def test_mail_that_comes_during_a_batch_is_answered_before_the_gateway_waits(
        table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mail appended while the first is being answered is answered in the same poll
    (the mailbox is asked again before the gateway goes back to IDLE)."""
    games, (first, second) = burst(table, 2)
    handle = table.desk.handle
    late = [second]

    def handle_and_receive_more(inbound: Inbound) -> list[Outgoing]:
        while late:
            table.dovecot.append(late.pop(), user=table.mailbox)
        return handle(inbound)

    monkeypatch.setattr(table.desk, "handle", handle_and_receive_more)
    table.dovecot.append(first, user=table.mailbox)
    assert table.gateway.poll() == 2
    assert sorted(m.header("X-Umpire-Game") for m in replies(table.sink)) == sorted(games)
    assert table.dovecot.count("INBOX", table.mailbox) == 0


@pytest.mark.parametrize("ends", ["421", "drop"])
def test_a_session_ended_mid_batch_loses_no_reply_and_sends_none_twice(
        table: Table, ends: str) -> None:
    """The server ends each SMTP session after two mails (421 to the next MAIL FROM, or the
    connection closed after the second 250): the gateway opens another and goes on; each
    mail is answered once, each follower told once, each order applied once."""
    table.sink.session_limit, table.sink.ends = 2, ends
    games, mails = burst(table, 4)
    heads = {g: table.service.info(g).head_seq for g in games}
    table.dovecot.append(*mails, user=table.mailbox)
    assert table.gateway.poll() == 4
    sent = Counter((tuple(m.to), m.header("X-Umpire-Game"), m.header("Auto-Submitted"))
                   for m in table.sink.received)
    assert sent == Counter({**{((RED,), g, "auto-replied"): 1 for g in games},
                            **{((who,), g, "auto-generated"): 1 for g in games
                               for who in (BLUE, GM)}})
    assert table.sink.logins == 6  # 12 mails, two a session
    assert {g: table.service.info(g).head_seq for g in games} == {
        g: head + 1 for g, head in heads.items()}


def test_a_server_gone_mid_batch_is_retried_without_answering_twice(table: Table) -> None:
    """The session ends after three replies and no new one can be opened: the poll fails
    (the gateway waits and tries again), the three answered mails are moved out, the
    fourth stays. Once the server is back, the fourth is answered once — its order, stored
    before the failure, is not applied again — and the notices of all four go out once."""
    table.sink.session_limit = 3
    games, mails = burst(table, 4)
    heads = {g: table.service.info(g).head_seq for g in games}
    table.dovecot.append(*mails, user=table.mailbox)
    table.sink.max_logins = 1
    with pytest.raises(SendFailed):
        table.gateway.poll()
    assert len(replies(table.sink)) == 3
    assert table.dovecot.count("INBOX", table.mailbox) == 1
    table.sink.max_logins = table.sink.session_limit = None
    assert table.gateway.poll() == 1
    sent = Counter((tuple(m.to), m.header("X-Umpire-Game"), m.header("Auto-Submitted"))
                   for m in table.sink.received)
    assert sent == Counter({**{((RED,), g, "auto-replied"): 1 for g in games},
                            **{((who,), g, "auto-generated"): 1 for g in games
                               for who in (BLUE, GM)}})
    last = next(m for m in replies(table.sink) if m.header("X-Umpire-Game") == games[-1])
    assert "already handled" in last.text
    assert {g: table.service.info(g).head_seq for g in games} == {
        g: head + 1 for g, head in heads.items()}
    assert table.dovecot.count("INBOX", table.mailbox) == 0


def test_a_bursts_seat_secrets_are_hashed_ahead_once_each_and_no_strangers(
        table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the gateway answers a burst in turn, the seats' secrets (scrypt) are checked
    ahead in worker threads, each once; a stranger's password costs no hash; the desk still
    decides: each seat's order is applied, the stranger's is not."""
    games, mails = burst(table, 4)
    stranger = raw_mail("eve@player.test", "password not-the-secret\npass",
                        subject=f"[umpire {games[0]}] pass")
    hashed: list[tuple[str, str]] = []
    check = seat_secrets._check

    def recorded(secret: str, stored: str) -> bool:
        hashed.append((threading.current_thread().name, stored))
        return check(secret, stored)

    monkeypatch.setattr(seat_secrets, "_check", recorded)
    table.dovecot.append(*mails, stranger, user=table.mailbox)
    assert table.gateway.poll() == 5
    assert len({stored for _, stored in hashed}) == len(hashed) == 4
    assert all(thread.startswith("mail-secrets") for thread, _ in hashed), hashed
    answered = {m.header("X-Umpire-Game"): m for m in replies(table.sink) if m.to == [RED]}
    assert sorted(answered) == sorted(games)
    assert all("applied: pass" in m.text for m in answered.values())
    (refused,) = [m for m in replies(table.sink) if m.to == ["eve@player.test"]]
    assert "applied" not in refused.text
