"""The fake Discord in a process of its own (``tests.fakediscord.apart``, what ``umpire bench
discord`` runs the bot against): the same server, refusing what it refuses in-process, its
record read over the pipe."""

from __future__ import annotations

import aiohttp
import pytest

from tests.fakediscord import schema
from tests.fakediscord.apart import FakeProcess


async def test_the_fake_apart_refuses_what_discord_refuses_and_reports_it() -> None:
    remote = FakeProcess()
    await remote.start()
    try:
        user = await remote.call("add_user", name="player")
        auth = {"Authorization": "Bot fake-token-not-a-secret"}
        async with aiohttp.ClientSession(headers=auth) as http:
            posted = f"{remote.rest_base}/channels/{remote.general}/messages"
            async with http.post(posted, json={"content": "fine"}) as answer:
                assert answer.status == 200
            async with http.post(posted, json={"content": 5}) as answer:  # not a string
                assert answer.status == 400
                assert (await answer.json())["code"] == 50035
            async with http.get(f"{remote.rest_base}/no/such/route") as answer:
                assert answer.status == 404
        assert await remote.call("messages_in", channel=remote.general) == 1
        assert not remote.invalid and not remote.unhandled  # as of the last refresh
        await remote.refresh()
        assert len(remote.invalid) == 1 and "/messages" in remote.invalid[0]
        assert remote.unhandled == ["GET /api/v10/no/such/route"]
        # what the fake raises there is raised here (no bot registered any command yet)
        with pytest.raises(RuntimeError, match="CommandUnavailable"):
            await remote.call("command_data", path="game map", options={},
                              channel=remote.general, user=user)
    finally:
        await remote.stop()
    assert remote.process is not None and remote.process.returncode == 0


def test_a_body_checked_again_gets_the_same_answer_without_a_second_check() -> None:
    """The fake checks a body already seen on a route once (every defer's body is one):
    the same refusal with its reasons, or the same acceptance, keys in any order."""
    route = "POST /channels/{channel_id}/messages"
    schema._checked.cache_clear()
    refused = schema.problems(route, {"content": 5, "tts": False})
    assert refused and "content" in refused[0]
    assert schema.problems(route, {"tts": False, "content": 5}) == refused
    assert schema.problems(route, {"content": "fine"}) == []
    assert schema.problems(route, {"content": "fine"}) == []
    assert schema._checked.cache_info().hits == 2
    assert schema.problems(route, {"content": "x" * 1, "flags": "no"})  # a new body: checked
    assert schema._checked.cache_info().misses == 3
