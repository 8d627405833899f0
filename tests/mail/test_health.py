"""Failures nobody saw (issue 24): an SMTP server that refuses the gateway's login is logged
with its cause and tried again with a growing wait; after ``report_after_minutes`` the GM of
each game held up is told by Discord where the game has a Discord GM, and the log and the
status say which GMs nobody could tell; ``umpire mail --status`` reads the health from the
store (another process); the gateway recovers once the password is right."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot import gm_notices
from bot.cli import app
from bot.mail.config import Secret, SmtpConfig
from bot.mail.gateway import Gateway
from bot.mail.health import read
from bot.mail.transport import Outbox
from bot.service import Actor
from tests.fakediscord.harness import served
from tests.mail.servers import SMTP_PASSWORD, SMTP_USER, LocalCA, SmtpSink
from tests.mail.support import DUEL, UMPIRE, config, desk, raw_mail
from tests.mail.test_gateway import MemoryBox

DUEL_GAME = DUEL["duel"]
#: Generous bounds for a busy machine.
WAIT = 60.0


def wait_until(what: Callable[[], object], timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        if time.monotonic() > deadline:
            raise AssertionError("the gateway did not get there in time")
        time.sleep(0.1)


def test_a_refused_smtp_login_is_logged_retried_reported_and_shown(
        tmp_path: Path, ca: LocalCA, sink: SmtpSink, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    office = desk(tmp_path / "umpire.db")
    service = office.service
    gm = Actor.discord(4242)
    service.create_game(gm, DUEL_GAME, game_id="ondiscord")
    service.seat("ondiscord", gm, "blue", Actor.mail("bob@player.test"))
    mailgm = Actor.mail("gm@player.test")
    service.create_game(mailgm, DUEL_GAME, game_id="bymail")
    settings = config(report_after_minutes=0.05, retry_max_seconds=4)
    smtp = SmtpConfig(host="localhost", port=sink.port, tls="starttls", user=SMTP_USER,
                      ca_file=ca.ca_file, timeout=10)
    outbox = Outbox(smtp, Secret("a-wrong-password"), UMPIRE)
    box = MemoryBox(raw_mail("bob@player.test", "help"))
    gateway = Gateway(office, settings, outbox, box)
    stop = threading.Event()
    caplog.set_level(logging.INFO, logger="umpire.mail")
    runner = threading.Thread(target=gateway.run, args=(stop,), daemon=True)
    runner.start()
    try:
        store = service.store
        wait_until(lambda: gm_notices.waiting(store, gm_notices.DISCORD))
        wait_until(lambda: (h := read(store)) is not None and "bymail" in h.gm_unreachable)
        ((_, game_id, text),) = gm_notices.waiting(store, gm_notices.DISCORD)
        assert game_id == "ondiscord"
        assert "cannot send mail" in text and "535" in text and "a-wrong-password" not in text
        logged = [r.getMessage() for r in caplog.records]
        refused = [line for line in logged if "cannot send mail: SMTP login refused: 535" in line]
        assert len(refused) >= 3, logged
        assert "trying again in 1 s" in refused[0] and "trying again in 2 s" in refused[1]
        assert "trying again in 4 s" in refused[2]
        assert any("GM of game bymail cannot be told" in line and "no other channel" in line
                   for line in logged)
        assert box.waiting() == ["1"] and sink.received == []

        # The status, from another process's point of view: only the store.
        toml = tmp_path / "mail.toml"
        toml.write_text(f'address = "{UMPIRE}"\ndatabase = "{tmp_path / "umpire.db"}"\n'
                        '[smtp]\nhost = "localhost"\n[listen]\nport = 2525\n')
        shown = CliRunner().invoke(app, ["mail", "--config", str(toml), "--status"],
                                   env={"COLUMNS": "200"})
        assert shown.exit_code == 1, shown.output
        for expected in ("FAILING to send since", "queue:        1 mail",
                         "last error:   SMTP login refused: 535", "last poll:    20",
                         "GMs told:     games ondiscord", "GMs not told: games bymail"):
            assert expected in shown.output, shown.output
        assert "a-wrong-password" not in shown.output

        outbox.password = Secret(SMTP_PASSWORD)  # the operator fixes the password
        sink.wait_for(1, timeout=WAIT)
        wait_until(lambda: box.waiting() == [])
        wait_until(lambda: (h := read(store)) is not None and h.failing_since is None)
    finally:
        stop.set()
        runner.join(WAIT)
    assert not runner.is_alive()
    assert any("working again after" in r.getMessage() for r in caplog.records)
    shown = CliRunner().invoke(app, ["mail", "--config", str(toml), "--status"])
    assert shown.exit_code == 0 and "state:        working" in shown.output, shown.output
    assert "last send:    20" in shown.output


def test_a_mail_gateway_that_never_ran_has_no_status(tmp_path: Path) -> None:
    toml = tmp_path / "mail.toml"
    toml.write_text(f'address = "{UMPIRE}"\ndatabase = "{tmp_path / "umpire.db"}"\n'
                    '[smtp]\nhost = "localhost"\n[listen]\nport = 2525\n')
    shown = CliRunner().invoke(app, ["mail", "--config", str(toml), "--status"])
    assert shown.exit_code == 0 and "no mail gateway has run" in shown.output


async def test_the_discord_bot_delivers_a_gm_notice_to_the_gm_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The notice the gateway left reaches the game's GM by DM, once, and no thread."""
    from bot.discord.core import UmpireBot
    from tests.fakediscord import FakeDiscord, run_umpire

    fake = FakeDiscord()
    gm, ann = fake.add_user("gm"), fake.add_user("ann")
    async with run_umpire(fake, tmp_path / "umpire.db", monkeypatch,
                          seed_source=lambda n: bytes(range(n)), extra_games=[DUEL_GAME],
                          game_ids=["told1"]) as h:
        bot = h.client
        assert isinstance(bot, UmpireBot)
        await h.slash(gm, fake.general, "game new", game=DUEL_GAME)
        (thread,) = fake.threads()
        await h.slash(ann, thread, "game join", side="red")
        store = served(h).store
        gm_notices.leave(store, gm_notices.DISCORD, "told1", "mail is down: SMTP 535")
        gm_notices.leave(store, gm_notices.DISCORD, "gone", "a game deleted since")
        await bot.publish_from_email()
        await bot.publish_from_email()
        to_gm = [m.content for m in fake.channel_messages(fake.dm_channel(gm))]
        assert to_gm.count("mail is down: SMTP 535") == 1
        assert not any("SMTP 535" in m.content for m in fake.channel_messages(fake.dm_channel(ann)))
        assert not any("SMTP 535" in " ".join(m.texts()) for m in fake.public_messages())
        assert gm_notices.waiting(store, gm_notices.DISCORD) == []
