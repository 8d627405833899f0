"""An order's acknowledgement comes before any look-up (issue 26, docs/performance.md "The
bot under a burst"): ``/order``, ``/decide`` and a verb's command defer first, then find the
game of their thread. Under a burst a look-up waits for a worker thread busy with other
games' work; Discord wants the first response within 3 seconds, whatever the workers do.

The bot runs against the fake Discord; the thread's look-up is held until the test has
seen the acknowledgement. Bounds are generous (busy machine).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

import pytest

from bot.discord.core import DONE_EVENT, UmpireBot
from tests.fakediscord.harness import gm_and_two_players

WAIT_S = 60.0


@pytest.mark.parametrize(("path", "options"), [
    ("order", {"text": "pass"}),
    ("decide", {"answer": "decide nothing"}),
    ("stalingrad pass", {}),
])
async def test_an_order_is_acknowledged_while_its_game_is_still_being_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str,
        options: dict[str, Any]) -> None:
    async with gm_and_two_players(tmp_path / "u.db", monkeypatch, "first",
                                  seed_byte=3) as (harness, gm, gerd, sasha):
        fake = harness.fake
        thread, _ = await harness.open_game(gm, "stalingrad", "basic",
                                            {"german": gerd, "russian": sasha})
        bot = cast(UmpireBot, harness.client)
        found = bot.port.game_for_thread
        entered, release = asyncio.Event(), asyncio.Event()

        async def held(thread_id: int) -> Any:
            entered.set()
            await release.wait()
            return await found(thread_id)

        monkeypatch.setattr(bot.port, "game_for_thread", held)
        iid = fake.new_id()
        done = asyncio.ensure_future(bot.wait_for(DONE_EVENT, check=lambda i: i.id == iid,
                                                  timeout=WAIT_S))
        try:
            record = await fake.interact(2, gerd, thread, fake.command_data(
                path, options, thread, gerd), iid=iid)
            await asyncio.wait_for(entered.wait(), WAIT_S)
            # the look-up is held: the acknowledgement must have come, or come anyway
            await asyncio.wait_for(record.responded.wait(), WAIT_S)
            assert not release.is_set()
            assert record.response_type == 5  # deferred ("thinking…"), privately
            assert record.original is not None and record.original.ephemeral
        finally:
            release.set()
        await done
        assert record.messages() and record.original.ephemeral
        harness.forgive()  # /decide with nothing to decide is refused: privately, as ever
