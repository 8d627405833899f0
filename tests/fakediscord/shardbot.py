"""One bot process running some shards of a sharded Umpire bot against the fake Discord
(for the multi-process test): what ``umpire bot --shards N --shard-ids …`` runs, minus the
pictures, with discord.py pointed at the fake.

``python -m tests.fakediscord.shardbot REST_BASE GATEWAY_URL DATABASE SHARDS IDS`` (IDS like
``0`` or ``0,1``). Runs until killed.
"""

from __future__ import annotations

import asyncio
import logging
import sys

import discord
import yarl

from bot.discord.app import create_bot
from bot.discord.core import BotConfig
from bot.service import GameService
from bot.store import Store
from tests.fakediscord.harness import TOKEN
from tests.kernel import duel  # noqa: F401  (registers the Duel test game)

DUEL = "tests.kernel.duel:DuelGame"


async def main(rest: str, gateway: str, db: str, shards: int, ids: list[int]) -> None:
    discord.utils.setup_logging(level=logging.WARNING)
    discord.http.Route.BASE = rest
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    store = Store(db)
    config = BotConfig(shard_count=shards, shard_ids=ids, sync_commands=0 in ids,
                       tick_seconds=0, follow_seconds=0, warm_pictures=False,
                       extra_games=[DUEL])
    bot = create_bot(GameService(store), config, None, guild_ready_timeout=0.05)
    try:
        await bot.start(TOKEN)
    finally:
        store.close()


if __name__ == "__main__":
    rest, gateway, db, shards, ids = sys.argv[1:6]
    asyncio.run(main(rest, gateway, db, int(shards), [int(i) for i in ids.split(",")]))
