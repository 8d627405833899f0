"""The sending budget (issue 24): past ``per_hour`` mails, notices to players wait — their
cursor does not move, so the next notice once the hour is over tells everything since —
while replies and mail to the GM still go, and the GM is told once by mail; in digest
mode a player gets at most one notice per game every ``digest_minutes``, bundling what
happened meanwhile with the latest picture only."""

from __future__ import annotations

import logging
from email.message import EmailMessage
from pathlib import Path

import pytest

from bot.mail.gateway import Gateway
from tests.mail.support import config, desk, raw_mail
from tests.mail.test_desk import BLUE, GM, RED, catch_up, game_with_players
from tests.mail.test_gateway import MemoryBox, MemorySender


def text(message: EmailMessage) -> str:
    body = message.get_body(("plain",))
    return str(body.get_content()) if body is not None else ""


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0  # a whole hour: the test's windows start here

    def __call__(self) -> float:
        return self.now


def setup(tmp_path: Path, **quota: float) -> tuple[Gateway, MemoryBox, MemorySender, Clock,
                                                    str, dict[str, str]]:
    office = desk(tmp_path / "umpire.db")
    game_id, secrets = game_with_players(office)
    catch_up(office)  # everyone told of the start
    box, sender, clock = MemoryBox(), MemorySender(), Clock()
    gateway = Gateway(office, config(quota=quota), sender, box)
    gateway.quota.clock = clock
    return gateway, box, sender, clock, game_id, secrets


def move(box: MemoryBox, game_id: str, secret: str, order: str, who: str = RED) -> None:
    box.mails[str(len(box.mails) + 1)] = raw_mail(
        who, f"password {secret}\n{order}", subject=f"[umpire {game_id}] orders")


def test_past_the_hourly_budget_player_notices_wait_and_the_gm_is_told(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    gateway, box, sender, clock, game_id, secrets = setup(tmp_path, per_hour=1)
    caplog.set_level(logging.INFO, logger="umpire.mail")
    move(box, game_id, secrets[RED], "trap 1\nmove r2 3")
    gateway.poll()
    to = [address for address, _ in sender.sent]
    assert to[0] == RED  # the reply goes (and spends the budget)
    assert BLUE not in to  # blue's notice waits
    assert to.count(GM) == 2  # the GM's notice, and the budget mail
    budget = [m for a, m in sender.sent if a == GM and "budget" in text(m)]
    assert len(budget) == 1 and "1 mails per hour" in text(budget[0])
    assert any("mail budget of 1 mails per hour reached" in r.getMessage()
               and game_id in r.getMessage() for r in caplog.records)
    gateway.tick(force=True)
    assert BLUE not in [a for a, _ in sender.sent]  # still within the hour
    assert len([m for a, m in sender.sent if "budget" in text(m)]) == 1  # told once

    clock.now += 3600  # a new hour: blue hears of everything since
    gateway.tick(force=True)
    (told,) = [m for a, m in sender.sent if a == BLUE]
    assert "r2 moves to Mill" in text(told)


def test_digest_mode_bundles_a_players_notices(tmp_path: Path) -> None:
    gateway, box, sender, clock, game_id, secrets = setup(tmp_path, digest_minutes=10)
    move(box, game_id, secrets[RED], "trap 1\nmove r2 3")
    gateway.poll()
    assert [a for a, _ in sender.sent].count(BLUE) == 1  # the notice of red's move
    clock.now += 60
    move(box, game_id, secrets[BLUE], "pass", who=BLUE)  # blue's reply is no notice
    gateway.poll()
    assert [a for a, _ in sender.sent].count(BLUE) == 2
    clock.now += 60
    move(box, game_id, secrets[RED], "move r2 2")
    gateway.poll()
    gateway.tick(force=True)
    assert [a for a, _ in sender.sent].count(BLUE) == 2  # within 10 minutes: it waits
    clock.now += 600
    gateway.tick(force=True)
    told = [m for a, m in sender.sent if a == BLUE]
    assert len(told) == 3 and "r2 moves to Hill" in text(told[2])
    assert len(list(told[2].iter_attachments())) <= 1  # the latest picture only
