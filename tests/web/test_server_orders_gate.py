"""The web pages' orders under a burst (issue 26): they are stored by
``orders_at_once`` threads (one by default), the others wait their turn in the threads'
queue in arrival order, so the first POSTed is answered first instead of every answer
coming near the end of the burst (docs/performance.md, rounds 7 and 10)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from bot.web.routes import ORDERS
from bot.web.seat import SeatReads
from bot.web.settings import WebSettings
from bot.web.tokens import CSRF_HEADER
from tests.waiting import GENEROUS, until_async
from tests.web.server_games import hidden_setup_lines, pakfront, serving


@pytest.mark.parametrize("at_once", [WebSettings().orders_at_once, 2])
async def test_26_a_burst_of_orders_is_stored_in_turn_the_rest_wait_their_turn(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at_once: int) -> None:
    """Six orders POSTed at once while the store is held: ``at_once`` are being stored
    (one by default: round 10), the others wait in the order threads' queue; once
    released, all six are stored and never more than ``at_once`` were stored at once."""
    assert WebSettings().orders_at_once == 1
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
    async with serving(game.service, orders_at_once=at_once) as client:
        state = await (await client.get(f"/s/{game.german}/api/state")).json()
        posts = [asyncio.create_task(client.post(
            f"/s/{game.german}/api/submit", headers={CSRF_HEADER: state["csrf"]},
            json={"text": line, "key": f"k{number}"})) for number, line in enumerate(lines)]
        queue = client.server.app[ORDERS]._work_queue  # the orders waiting their turn
        await until_async(lambda: inside == at_once and queue.qsize() == 6 - at_once,
                          f"{at_once} order(s) being stored and {6 - at_once} waiting")
        go.set()
        answers = [await (await post).json() for post in posts]
        assert queue.qsize() == 0
    assert [answer["status"] for answer in answers] == ["applied"] * 6, answers
    assert most == at_once
