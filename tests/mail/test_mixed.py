"""One game, two frontends: red and the GM on Discord (the fake Discord), blue by email
(dovecot and an SMTP server on loopback). Each seat is told where it plays; the public
record reaches both; red's secret reaches neither blue's mail nor the thread."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.discord.core import UmpireBot
from tests.fakediscord import FakeDiscord, Harness, User, run_umpire
from tests.mail.conftest import gateway_config
from tests.mail.servers import Dovecot, LocalCA, SmtpSink
from tests.mail.table import Table

DUEL = "tests.kernel.duel:DuelGame"
pytestmark = pytest.mark.usefixtures("passwords")


@pytest.fixture
async def discord_side(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                       ) -> AsyncIterator[tuple[Harness, User, User]]:
    fake = FakeDiscord()
    gm, ann = fake.add_user("gm"), fake.add_user("ann")
    async with run_umpire(fake, tmp_path / "umpire.db", monkeypatch,
                          seed_source=lambda n: bytes(range(n)), extra_games=[DUEL],
                          game_ids=["mixed1"]) as harness:
        yield harness, gm, ann


async def test_one_side_on_discord_the_other_by_email(
        discord_side: tuple[Harness, User, User], dovecot: Dovecot, mailbox: str,
        sink: SmtpSink, ca: LocalCA, tmp_path: Path) -> None:
    h, gm, ann = discord_side
    fake = h.fake
    bot = h.client
    assert isinstance(bot, UmpireBot)
    table = Table(dovecot, mailbox, sink, gateway_config(dovecot, mailbox, sink, ca, tmp_path))

    async def mail(body: str) -> str:
        mails = await asyncio.to_thread(table.send, bob, body)
        return table.reply_to(bob, mails).text

    await h.slash(gm, fake.general, "game new", game=DUEL)
    (thread,) = fake.threads()
    await h.slash(ann, thread, "game join", side="red")
    bob = table.player("bob@club.test")
    bob.game_id = "mixed1"
    joined = await mail("join blue")
    bob.secret = joined.split("secret: ")[1].split()[0]
    await h.slash(gm, thread, "game start")

    # Red plays on Discord: the secret trap in a DM, then a move in the thread.
    await h.slash(ann, fake.dm_channel(ann), "duel trap", cell="1")
    await h.slash(ann, thread, "duel move", unit="r2", cell="3")
    sent = len(sink.received)
    await asyncio.to_thread(table.gateway.tick, True)  # the gateway looks for news
    (told,) = sink.received[sent:]
    assert told.to == ["bob@club.test"] and told.header("X-Umpire-Audience") == "blue"
    assert "r2 moves to Mill" in told.text and "To act: blue" in told.text
    assert "Ford" not in told.text  # red's trap is red's

    # Blue answers by mail; the thread and red's DMs hear of it.
    answered = await mail("pass")
    assert "applied: pass" in answered and "Ford" not in answered
    await bot.publish_from_email()
    posts = [m.content for m in fake.channel_messages(thread)]
    assert any("blue passes" in p for p in posts)
    await bot.publish_from_email()  # told once
    assert [m.content for m in fake.channel_messages(thread)] == posts

    # Red moves again on Discord; blue resigns by mail; both frontends see the result.
    moved = await h.slash(ann, thread, "duel move", unit="r2", cell="2")
    assert "Applied" in moved, moved
    resigned = await mail("resign")
    assert "Game over: blue resigns; red wins" in resigned
    assert "r2 moves to Hill" in resigned  # told what red did since his last mail
    await bot.publish_from_email()
    assert any("blue resigns; red wins" in m.content for m in fake.channel_messages(thread))
    for message in fake.public_messages():
        text = " ".join(message.texts())
        assert "Ford" not in text and bob.secret not in text
    for received in sink.received:
        assert received.to == ["bob@club.test"] and "Ford" not in received.text
