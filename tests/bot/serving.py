"""The Discord bot's ``serve`` run in the test's process against the fake Discord, for the
tests of its start, health and stop (signals go to this process: serve's own handlers)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import discord
import pytest
import yarl

from bot.discord import app as discord_app
from tests.fakediscord.server import FakeDiscord


async def wait_while(task: asyncio.Task[None], what: Callable[[], bool], seconds: float,
                     why: str) -> None:
    """Wait (bounded) for ``what`` while ``task`` (serve) runs; fail with ``why``."""
    deadline = time.monotonic() + seconds
    while not what():
        assert not task.done(), task.result()
        assert time.monotonic() < deadline, why
        await asyncio.sleep(0.2)


@contextlib.asynccontextmanager
async def serving(fake: FakeDiscord, db: Path, monkeypatch: pytest.MonkeyPatch,
                  **options: Any) -> AsyncIterator[asyncio.Task[None]]:
    """``serve`` on ``db`` against the started ``fake`` (``options``: serve's own);
    cancelled if still running at the end, then the fake stopped."""
    await fake.start()
    monkeypatch.setattr(discord.http.Route, "BASE", fake.rest_base)
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY",
                        yarl.URL(fake.gateway_url))
    task = asyncio.create_task(discord_app.serve("token", db, fake.guild_id, **options))
    try:
        yield task
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await fake.stop()
