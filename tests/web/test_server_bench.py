"""``umpire bench web`` (issue 25) runs in ``bench all`` and prints its figures: the page's
update over the service's submit, its page load over the service's View and picture (the
smoke size here: no timing is asserted), then the server under a burst of orders from many
games at once. The server it times runs in a process of its own,
as a browser's page is another process (issue 26, round 5), and the first game's submit is
timed there, on the same service; the earlier reading (the server beside the bench's
client, in its process) is printed without a target."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import aiohttp
from typer.testing import CliRunner

from bench.web import Apart
from bot.cli import _benches, app


def test_bench_web_is_one_of_bench_all() -> None:
    assert "web" in _benches()


def test_bench_web_smoke_run_prints_its_figures() -> None:
    result = CliRunner().invoke(app, ["bench", "web", "--actions", "6"])
    assert result.exit_code == 0, result.output
    assert "FIGURE web update / submit (p50)" in result.output
    assert "FIGURE web page load / view + picture (p50)" in result.output
    earlier = [line for line in result.output.splitlines() if line.startswith(
        "FIGURE web update / submit, server in the bench's process (p50)")]
    assert len(earlier) == 1 and earlier[0].endswith("(no target)"), result.output
    assert "the server's process" in result.output  # its CPU per update, and the client's
    # the server under a burst (issue 26): as the Discord bot's, with the same targets
    for figure, target in (("web burst first response p99", "(target <= 1 s)"),
                           ("web burst event / (submit p95 x queue place) p95",
                            "(target <= 1.5x)"),
                           ("web burst event loop lag p99", "(target <= 50 ms)")):
        (line,) = [line for line in result.output.splitlines()
                   if line.startswith(f"FIGURE {figure}: ")]
        assert target in line, line
    assert "6 games at once, 12 orders POSTed in bursts" in result.output, result.output


async def _served_apart(folder: Path) -> None:
    server = Apart(folder)
    port, tokens = await server.start()
    try:
        assert server.pid not in (0, os.getpid())
        url = f"http://127.0.0.1:{port}/s/{tokens['soviet']}/api/state"
        async with aiohttp.ClientSession() as http, http.get(url) as response:
            assert response.status == 200
            assert (await response.json())["seat"]["side"] == "soviet"
        turn = await server.call("turn")
        order = turn["orders"][0]
        timed = await server.call("submit", side=turn["side"], order=order)
        assert timed["status"] == "applied", timed  # a legal order of the first game
        assert timed["seconds"] > 0 and timed["cpu"] >= 0
        assert (await server.call("turn")) != turn  # the first game moved on
    finally:
        await server.stop()
    assert server.process is not None and server.process.returncode == 0


def test_the_bench_s_server_and_its_timed_submit_run_in_a_process_of_their_own(
        tmp_path: Path) -> None:
    asyncio.run(_served_apart(tmp_path))
