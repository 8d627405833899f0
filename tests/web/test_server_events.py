"""The event streams' wake-up (issue 25's live update, issue 26's round 5): an action this
process stored wakes the game's streams, and they have written their event before the
poster's answer goes (``Watchers.advance`` returns after them); a stream that hears nothing
sends a keep-alive comment, and a revoked link's stream is refused at its next check."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.web.events import Watch, Watchers, wait_changed
from bot.web.tokens import CSRF_HEADER
from tests.web.server_games import pakfront, serving

#: How long a test waits for what it needs (a busy machine; it comes in milliseconds).
WAIT_S = 60.0


async def _never_moves(game_ids: object) -> dict[str, tuple[int, int]]:
    return {}


async def _listen(watch: Watch, heard: list[int], ready: asyncio.Event) -> None:
    """What a stream does: wait for the watch's change, then note the head it would send."""
    async with watch.changed:
        ready.set()
        while not heard:
            if await wait_changed(watch, WAIT_S):
                heard.append(watch.head)


async def test_advance_returns_after_every_stream_it_woke_has_run() -> None:
    watchers = Watchers(_never_moves, interval=WAIT_S)
    watch = await watchers.subscribe("g1")
    heard: list[list[int]] = [[], [], []]
    readies = [asyncio.Event() for _ in heard]
    tasks = [asyncio.create_task(_listen(watch, h, r)) for h, r in zip(heard, readies, strict=True)]
    try:
        for ready in readies:
            await asyncio.wait_for(ready.wait(), WAIT_S)
        await watchers.advance("g1", 3)
        # no other await in between: each stream ran in the pass advance gave them
        assert heard == [[3], [3], [3]]
    finally:
        for task in tasks:
            task.cancel()
        await watchers.close()


async def test_advance_to_a_head_already_known_wakes_no_stream() -> None:
    watchers = Watchers(_never_moves, interval=WAIT_S)
    watch = await watchers.subscribe("g1")
    watch.head = 5
    heard: list[int] = []
    ready = asyncio.Event()
    task = asyncio.create_task(_listen(watch, heard, ready))
    try:
        await asyncio.wait_for(ready.wait(), WAIT_S)
        await watchers.advance("g1", 5)
        await watchers.advance("g2", 9)  # a game nobody watches
        await asyncio.sleep(0)
        assert heard == []
    finally:
        task.cancel()
        await watchers.close()


async def test_wait_changed_is_false_when_nothing_changes_in_time() -> None:
    watch = Watch(head=0, ended=0)
    async with watch.changed:
        assert await wait_changed(watch, 0.01) is False
        assert watch.changed.locked()  # held again after the time-out, as after a change


async def test_the_other_seat_hears_the_order_and_a_quiet_stream_keeps_alive(
        tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service, keepalive=0.05) as client:
        stream = await client.get(f"/s/{game.soviet}/events")
        first = await asyncio.wait_for(stream.content.readuntil(b"\n\n"), WAIT_S)
        assert first.startswith(b"event: seq\nid: 0\n")
        quiet = await asyncio.wait_for(stream.content.readuntil(b"\n\n"), WAIT_S)
        assert quiet == b": keep-alive\n\n"
        state = await (await client.get(f"/s/{game.german}/api/state")).json()
        response = await client.post(f"/s/{game.german}/api/submit",
                                     headers={CSRF_HEADER: state["csrf"]},
                                     json={"text": "hide pak75-1 0101", "key": "k1"})
        assert (await response.json())["seqs"] == [1]
        while (told := await asyncio.wait_for(stream.content.readuntil(b"\n\n"), WAIT_S)
               ) == b": keep-alive\n\n":
            continue
        assert told == b'event: seq\nid: 1\ndata: {"seq": 1}\n\n'
        stream.close()
