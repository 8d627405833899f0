"""Two bot processes, one shard each, against a fake Discord that serves two shards and
one database: each process receives only its guilds' events (and shard 0 the DMs), and
either acts on any game through the shared store."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.store import Store
from tests.fakediscord.server import Channel, FakeDiscord, InteractionRecord, User
from tests.waiting import GENEROUS
from tests.waiting import until_async as until

DUEL = "tests.kernel.duel:DuelGame"
ROOT = Path(__file__).resolve().parents[2]


@contextlib.asynccontextmanager
async def bot_process(fake: FakeDiscord, db: str, shard: int) -> AsyncIterator[None]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.fakediscord.shardbot", fake.rest_base, fake.gateway_url,
        db, str(fake.shard_count), str(shard), cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    try:
        yield
    finally:
        process.kill()
        _, errors = await process.communicate()
        assert b"Traceback" not in errors, errors.decode(errors="replace")[-2000:]


async def slash(fake: FakeDiscord, user: User, channel: Channel, path: str,
                **options: object) -> InteractionRecord:
    record = await fake.interact(2, user, channel,
                                 fake.command_data(path, options, channel, user))
    await asyncio.wait_for(record.responded.wait(), GENEROUS)
    try:
        await until(lambda: record.original is not None and not record.original.deferred)
    except AssertionError:
        raise AssertionError(f"no answer to /{path}; requests: {fake.requests[-12:]}") from None
    return record


def text(record: InteractionRecord) -> str:
    return "\n".join(t for m in record.messages() for t in m.texts())


async def test_two_processes_each_serve_their_shards_guilds(db_url: str) -> None:
    fake = FakeDiscord(shards=2)
    home = fake.shard_for(fake.guild_id)
    other_guild = fake.add_guild("Other server", shard=1 - home)
    by_shard = {home: fake.guild_id, 1 - home: other_guild}
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    general = {g: next(c for c in fake.channels.values() if c.guild_id == g and c.type == 0)
               for g in by_shard.values()}
    await fake.start()
    Store(db_url).close()  # the schema, once, before two processes open it
    try:
        async with bot_process(fake, db_url, 0), bot_process(fake, db_url, 1):
            await until(lambda: len(fake.identified) == 2 and "global" in fake.commands)
            assert sorted(fake.identified) == [(0, 2), (1, 2)]
            # each shard's READY named its own guilds only
            assert fake.ready_guilds == {(s, 2): [g] for s, g in by_shard.items()}
            games = {}
            for shard, guild in by_shard.items():
                await slash(fake, alice, general[guild], "game new", game=DUEL)
                thread = next(c for c in fake.threads() if c.guild_id == guild)
                # answered by the process of the guild's shard: the other never saw it
                games[shard] = thread
            store = Store(db_url)
            try:
                rows = store.query("SELECT id, bindings FROM games ORDER BY created")
                guilds = sorted(int(json.loads(r["bindings"])["discord_guild"]) for r in rows)
            finally:
                store.close()
            assert guilds == sorted(by_shard.values())
            # The game in shard 1's guild, played in a DM: DMs reach shard 0's process,
            # which finds the game in the shared store and posts in the other's thread.
            thread = games[1]
            assert "red" in text(await slash(fake, bob, thread, "game join", side="red"))
            assert "blue" in text(await slash(fake, carol, thread, "game join", side="blue"))
            started = await slash(fake, alice, thread, "game start")
            # A private "Done." first, then the public announcement as a follow-up.
            await until(lambda: "commitment" in text(started))
            before = len(fake.channel_messages(thread))
            record = await slash(fake, bob, fake.dm_channel(bob), "order", text="trap 1")
            assert "stored" in text(record).lower() or "trap" in text(record), text(record)
            await until(lambda: len(fake.channel_messages(thread)) > before)
    finally:
        await fake.stop()
    assert fake.invalid == [] and fake.unhandled == []


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONWARNINGS", "ignore")
