"""``umpire web``'s process (issue 26, round 5): once its server listens it applies the
settings of Umpire's long-running processes (``bot.runtime.tune_gc``), as ``umpire bot`` and
``umpire mail`` — which serve the pages too — do, and it stops when told."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import pytest

from bot.web import app as web_app
from bot.web.settings import WebSettings
from tests.web.server_games import pakfront

#: How long the test waits for what it needs (a busy machine; it comes in milliseconds).
WAIT_S = 60.0


async def test_umpire_web_tunes_the_garbage_collector_once_it_listens(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = pakfront(tmp_path / "u.db")
    tuned: list[bool] = []
    listening: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def tune_gc() -> None:  # the real one changes this test process's collector
        assert not listening.done(), "told it listens before it was tuned"
        tuned.append(True)

    monkeypatch.setattr(web_app, "tune_gc", tune_gc)
    stop = asyncio.Event()
    serving = asyncio.create_task(web_app.serve(game.service, WebSettings(port=0), stop,
                                                started=listening.set_result))
    try:
        port = await asyncio.wait_for(listening, WAIT_S)
        assert tuned == [True]
        url = f"http://127.0.0.1:{port}/s/{game.soviet}/api/state"
        async with aiohttp.ClientSession() as http, http.get(url) as response:
            assert response.status == 200
    finally:
        stop.set()
        await asyncio.wait_for(serving, WAIT_S)
    async with aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.ClientConnectionError):
            await http.get(f"http://127.0.0.1:{port}/s/{game.soviet}/api/state")
