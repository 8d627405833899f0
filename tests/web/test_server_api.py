"""The JSON API and the event stream of a seat's page (issue 25): everything is read from
that seat's View — a Stalin's Tanks hidden set-up (25.2) never reaches the Soviet's state,
legal orders, log, replay, picture or stream; orders go through the service's submit (one
action per idempotency key); the stream tells of actions stored by another process and
ends when its link is revoked."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from aiohttp import ClientResponse

from bot.web.tokens import CSRF_HEADER
from tests.web.server_games import (
    GERMAN,
    HIDDEN,
    SOVIET,
    Game,
    hidden_setup_lines,
    pakfront,
    serving,
)

#: How long a test waits for an event it needs (a busy machine; the event comes in ms).
EVENT_WAIT_S = 60.0
ROOT = Path(__file__).resolve().parents[2]


async def _set_up_hidden(client: Any, game: Game) -> None:
    state = await (await client.get(f"/s/{game.german}/api/state")).json()
    response = await client.post(
        f"/s/{game.german}/api/submit", headers={CSRF_HEADER: state["csrf"]},
        json={"text": "\n".join(hidden_setup_lines()), "key": "setup-1"})
    outcome = await response.json()
    assert outcome["status"] == "applied", outcome


async def _everything(client: Any, token: str) -> str:
    """Every JSON answer of a link, as one text."""
    texts = []
    for path in ("api/state", "api/legal", "api/replay", "api/verify", "api/record"):
        response = await client.get(f"/s/{token}/{path}")
        assert response.status == 200, path
        texts.append(await response.text())
    return "\n".join(texts)


async def test_25_2_the_soviet_page_never_holds_a_hidden_german_unit(tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service) as client:
        await _set_up_hidden(client, game)
        soviet = await _everything(client, game.soviet)
        observer = await _everything(client, game.observer)
        german = await _everything(client, game.german)
        gm = await _everything(client, game.gm)
        for unit in HIDDEN:
            assert unit not in soviet and unit not in observer, unit
            assert unit in german and unit in gm, unit
        state = json.loads(soviet.split("\n", 1)[0])
        assert state["seat"]["audience"] == "soviet" and state["to_act"] == "soviet"
        assert all(entry["withheld"] or entry["text"] for entry in state["log"])


async def test_the_picture_is_drawn_from_the_seat_s_own_view(tmp_path: Path) -> None:
    import render

    game = pakfront(tmp_path / "u.db")
    async with serving(game.service) as client:
        await _set_up_hidden(client, game)
        soviet = await (await client.get(f"/s/{game.soviet}/api/map.png")).read()
        german = await (await client.get(f"/s/{game.german}/api/map.png")).read()
        rules = game.service.rules(game.game_id)
        pack = render.load_pack(rules.name, rules.pack)
        assert soviet == render.render(game.service.view(game.game_id, SOVIET), pack)
        assert german == render.render(game.service.view(game.game_id, GERMAN), pack)
        assert soviet != german  # the German's own hidden guns are drawn for them only
        again = await client.get(f"/s/{game.soviet}/api/map.png",
                                 headers={"If-None-Match": '"16"'})
        assert again.status == 304


async def test_replay_is_the_seat_s_view_during_play(tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service) as client:
        await _set_up_hidden(client, game)
        replay = await (await client.get(f"/s/{game.soviet}/api/replay")).json()
        assert replay["count"] == len(hidden_setup_lines()) + 1 and not replay["full"]
        assert "german: a secret order" in replay["captions"]
        first = await client.get(f"/s/{game.soviet}/api/replay/0.png")
        assert first.status == 200 and first.content_type == "image/png"
        past = await client.get(f"/s/{game.soviet}/api/replay/{replay['count']}.png")
        assert past.status == 404
        steps = await (await client.get(f"/s/{game.soviet}/api/replay?by=step")).json()
        assert 1 <= steps["count"] < replay["count"] and steps["by"] == "step"
        last = await client.get(f"/s/{game.soviet}/api/replay/{steps['count'] - 1}.png"
                                "?by=step")
        assert last.status == 200 and last.headers["ETag"] != first.headers["ETag"]
        assert (await client.get(f"/s/{game.soviet}/api/replay?by=turn")).status == 400


async def test_an_order_is_stored_once_per_idempotency_key(tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service) as client:
        state = await (await client.get(f"/s/{game.german}/api/state")).json()
        body = {"text": "hide pak75-1 0101", "key": "click-1"}
        headers = {CSRF_HEADER: state["csrf"]}
        first = await (await client.post(f"/s/{game.german}/api/submit", json=body,
                                         headers=headers)).json()
        again = await (await client.post(f"/s/{game.german}/api/submit", json=body,
                                         headers=headers)).json()
        assert first["status"] == again["status"] == "applied" and again["duplicate"]
        assert game.service.info(game.game_id).head_seq == 1
        # the Soviet cannot give the German's orders, nor any order out of turn
        soviet = await (await client.get(f"/s/{game.soviet}/api/state")).json()
        refused = await (await client.post(
            f"/s/{game.soviet}/api/submit", json={"text": "hide pak75-2 0102", "key": "x"},
            headers={CSRF_HEADER: soviet["csrf"]})).json()
        assert refused["status"] == "refused" and refused["error"]
        observer = await (await client.get(f"/s/{game.observer}/api/state")).json()
        watcher = await (await client.post(
            f"/s/{game.observer}/api/submit", json={"text": "done", "key": "y"},
            headers={CSRF_HEADER: observer["csrf"]})).json()
        assert watcher["status"] == "refused"
        assert game.service.info(game.game_id).head_seq == 1


async def test_legal_orders_for_one_unit(tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service) as client:
        await _set_up_hidden(client, game)
        listed = await (await client.get(f"/s/{game.soviet}/api/legal?unit=t34a-1")).json()
        assert listed["orders"] and all("t34a-1" in o for o in listed["orders"])
        every = await (await client.get(f"/s/{game.soviet}/api/legal")).json()
        assert set(listed["orders"]) < set(every["orders"])
        assert (await (await client.get(f"/s/{game.german}/api/legal")).json())["orders"] == []


async def _next_event(response: ClientResponse) -> tuple[str, dict[str, Any]]:
    """The next event of a stream (comments skipped)."""
    name, data = "message", ""
    while True:
        line = (await asyncio.wait_for(response.content.readline(), EVENT_WAIT_S)).decode()
        if not line:
            raise EOFError("the stream ended")
        line = line.rstrip("\n")
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
        elif line == "" and data:
            return name, json.loads(data)


async def test_the_stream_tells_of_an_action_stored_by_another_process(db_url: str) -> None:
    """On SQLite and on PostgreSQL: the server polls the store's head."""
    db = db_url
    game = pakfront(db)
    async with serving(game.service) as client:
        stream = await client.get(f"/s/{game.soviet}/events")
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        assert await _next_event(stream) == ("seq", {"seq": 0})
        script = ("import sys\nfrom bot.service import Actor, GameService\n"
                  "from bot.store import Store\n"
                  "service = GameService(Store(sys.argv[1]))\n"
                  "result = service.submit(sys.argv[2], Actor.discord('201'), "
                  "'hide pak75-1 0101')\nassert result.ok, result\n")
        done = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-c", script, db, game.game_id],
            cwd=ROOT, capture_output=True, text=True, timeout=EVENT_WAIT_S * 2)
        assert done.returncode == 0, done.stderr
        name, data = await _next_event(stream)
        assert (name, data) == ("seq", {"seq": 1})
        stream.close()


async def test_a_revoked_link_s_open_stream_ends_at_once(tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service) as client:
        stream = await client.get(f"/s/{game.soviet}/events")
        german = await client.get(f"/s/{game.german}/events")
        assert (await _next_event(stream))[0] == (await _next_event(german))[0] == "seq"
        game.service.reissue_link(game.game_id, game.gm_actor, "soviet")
        assert await _next_event(stream) == ("revoked", {})
        assert await asyncio.wait_for(stream.content.read(), EVENT_WAIT_S) == b""
        # the German's stream goes on, and hears the next action at once (this process)
        state = await (await client.get(f"/s/{game.german}/api/state")).json()
        await client.post(f"/s/{game.german}/api/submit", headers={CSRF_HEADER: state["csrf"]},
                          json={"text": "hide pak75-1 0101"})
        assert await _next_event(german) == ("seq", {"seq": 1})
        german.close()


async def test_replay_is_the_full_view_once_the_game_is_over(tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service) as client:
        await _set_up_hidden(client, game)
        soviet = await (await client.get(f"/s/{game.soviet}/api/state")).json()
        over = await (await client.post(
            f"/s/{game.soviet}/api/submit", headers={CSRF_HEADER: soviet["csrf"]},
            json={"text": "resign", "key": "r"})).json()
        assert over["status"] == "applied", over
        assert game.service.info(game.game_id).status == "finished"
        replay = await (await client.get(f"/s/{game.soviet}/api/replay")).json()
        assert replay["full"] and "german: a secret order" not in replay["captions"]
        assert any("pak75-1" in caption for caption in replay["captions"])
        verify = await (await client.get(f"/s/{game.soviet}/api/verify")).json()
        assert verify["full_record"] and verify["commitment"] in " ".join(
            verify["instructions"])
        record = await (await client.get(f"/s/{game.soviet}/api/record")).text()
        assert '"seed"' in record.split("\n", 1)[0]  # the full record, verifiable


def test_umpire_web_serves_a_link_from_its_own_process(tmp_path: Path) -> None:
    import socket
    import time
    import urllib.request

    db = tmp_path / "u.db"
    game = pakfront(db)
    game.service.store.close()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "web", "--db", str(db), "--port", str(port),
         "--web-url", "https://umpire.example"], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + EVENT_WAIT_S
        while True:
            try:
                with urllib.request.urlopen(
                        f"http://127.0.0.1:{port}/s/{game.soviet}/api/state", timeout=10) as r:
                    state = json.loads(r.read())
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        assert state["seat"]["side"] == "soviet"
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=EVENT_WAIT_S)
    assert process.returncode == 0, output
    assert "/s/[token]/api/state" in output and game.soviet not in output


async def test_25_2_a_link_reads_its_own_seat_even_when_its_holder_plays_both_sides(
        tmp_path: Path) -> None:
    """One person at both seats (a hot seat): the Soviet link still reads the Soviet's view,
    no German set-up guide and no record read as another audience."""
    from bot.service import GameService
    from bot.store import Store
    from tests.web.server_games import GM

    service = GameService(Store(tmp_path / "u.db"))
    game_id = service.create_game(GM, "tanks", "pakfront").id
    service.seat(game_id, GM, "german", GERMAN)
    service.seat(game_id, GM, "soviet", GERMAN)
    service.start(game_id, GM)
    german = service.issue_link(game_id, GERMAN, side="german").token
    soviet = service.issue_link(game_id, GERMAN, side="soviet").token
    async with serving(service) as client:
        state = await (await client.get(f"/s/{german}/api/state")).json()
        assert state["setup"] is not None
        outcome = await (await client.post(
            f"/s/{german}/api/submit", headers={CSRF_HEADER: state["csrf"]},
            json={"text": "hide pak75-1 0101", "key": "h"})).json()
        assert outcome["status"] == "applied"
        text = await (await client.get(f"/s/{soviet}/api/state")).text()
        assert "pak75-1" not in text and json.loads(text)["setup"] is None
        record = await client.get(f"/s/{soviet}/api/record")
        assert record.status == 403
        assert "pak75-1" not in await (await client.get(f"/s/{soviet}/api/replay")).text()


async def test_a_gm_link_reads_the_gm_view_and_names_the_side_it_lists_for(
        tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service) as client:
        await _set_up_hidden(client, game)
        state = await (await client.get(f"/s/{game.gm}/api/state")).json()
        assert state["seat"] == {"role": "gm", "side": None, "audience": "gm"}
        listed = await (await client.get(f"/s/{game.gm}/api/legal?side=soviet")).json()
        assert listed["orders"] and any("t34a-1" in o for o in listed["orders"])
        # a player's link lists its own side only, whatever it names
        mine = await (await client.get(f"/s/{game.german}/api/legal?side=soviet")).json()
        assert mine["orders"] == []


async def test_the_geometry_matches_the_picture_and_holds_only_the_seat_s_units(
        tmp_path: Path) -> None:
    import struct

    game = pakfront(tmp_path / "u.db")
    async with serving(game.service) as client:
        await _set_up_hidden(client, game)
        picture = await (await client.get(f"/s/{game.soviet}/api/map.png")).read()
        width, height = struct.unpack(">II", picture[16:24])  # the PNG's IHDR
        soviet = await (await client.get(f"/s/{game.soviet}/api/geometry")).json()
        german = await (await client.get(f"/s/{game.german}/api/geometry")).json()
        assert soviet["size"] == [width, height] and soviet["seq"] == 16
        assert {h["key"] for h in soviet["shapes"] if h["kind"] == "hex"} >= {"0101", "0104"}
        theirs = {c["unit"] for c in soviet["counters"]}
        mine = {c["unit"] for c in german["counters"]}
        assert "flak88-2" in theirs  # placed openly: on both seats' maps
        for unit in HIDDEN:
            assert unit not in theirs and unit in mine, unit
