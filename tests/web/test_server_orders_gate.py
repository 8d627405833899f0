"""The web pages' orders under a burst (issue 26): at most ``orders_at_once`` are stored at
once, in worker threads; the others wait their turn at the gate in arrival order
(``bot.gate``), so the first POSTed is answered first instead of every answer coming near
the end of the burst."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from bot.web.routes import ORDERS
from bot.web.seat import SeatReads
from bot.web.tokens import CSRF_HEADER
from tests.waiting import GENEROUS, until_async
from tests.web.server_games import hidden_setup_lines, pakfront, serving


async def test_26_a_burst_of_orders_is_stored_two_at_a_time_the_rest_wait_their_turn(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Six orders POSTed at once while the store is held: two are inside (the default
    width), four wait at the gate; once released, all six are stored and never more than
    two were being stored at once."""
    game = pakfront(tmp_path / "u.db")
    go, lock = threading.Event(), threading.Lock()
    inside = most = 0
    real = SeatReads.submit_as

    def held(self: SeatReads, *args: Any) -> Any:
        nonlocal inside, most
        with lock:
            inside += 1
            most = max(most, inside)
        try:
            go.wait(GENEROUS)
            return real(self, *args)
        finally:
            with lock:
                inside -= 1

    monkeypatch.setattr(SeatReads, "submit_as", held)
    lines = hidden_setup_lines()[:6]
    async with serving(game.service) as client:
        state = await (await client.get(f"/s/{game.german}/api/state")).json()
        posts = [asyncio.create_task(client.post(
            f"/s/{game.german}/api/submit", headers={CSRF_HEADER: state["csrf"]},
            json={"text": line, "key": f"k{number}"})) for number, line in enumerate(lines)]
        gate = client.server.app[ORDERS]
        await until_async(lambda: gate.inside == 2 and gate.waiting == 4,
                          "two orders inside the gate and four waiting")
        go.set()
        answers = [await (await post).json() for post in posts]
    assert [answer["status"] for answer in answers] == ["applied"] * 6, answers
    assert most == 2
    assert gate.inside == 0 and gate.waiting == 0
