"""The web server's guards (issue 25): CSRF on every POST, the strict Content-Security-
Policy on every answer, rate limits per link and per address, request bounds, bad text
refused by the service's door, and an access log that never holds a token."""

from __future__ import annotations

import io
import logging
from pathlib import Path

from bot.logs import LineFormatter
from bot.web.tokens import CSRF_HEADER, redact_path
from tests.web.server_games import hidden_setup_lines, pakfront, serving


async def _csrf(client, token: str) -> str:  # type: ignore[no-untyped-def]
    return str((await (await client.get(f"/s/{token}/api/state")).json())["csrf"])


async def test_a_post_without_the_link_s_csrf_token_is_refused_and_changes_nothing(
        tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service) as client:
        url = f"/s/{game.german}/api/submit"
        body = {"text": "hide pak75-1 0101", "key": "k1"}
        other = await _csrf(client, game.soviet)  # another link's token
        for headers in ({}, {CSRF_HEADER: "0" * 64}, {CSRF_HEADER: other}):
            response = await client.post(url, json=body, headers=headers)
            assert response.status == 403
            assert (await response.json())["rule"] == "csrf"
        assert game.service.info(game.game_id).head_seq == 0
        good = await client.post(url, json=body,
                                 headers={CSRF_HEADER: await _csrf(client, game.german)})
        assert good.status == 200 and (await good.json())["status"] == "applied"
        assert game.service.info(game.game_id).head_seq == 1


async def test_every_answer_has_the_strict_content_security_policy(tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service) as client:
        for path in (f"/s/{game.german}", f"/s/{game.german}/api/state", "/s/nope",
                     f"/s/{game.german}/api/map.png", "/static/page.js", "/nothing"):
            response = await client.get(path)
            policy = response.headers["Content-Security-Policy"]
            assert "script-src 'self'" in policy and "unsafe-inline" not in policy, path
            assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
            assert response.headers["Referrer-Policy"] == "no-referrer"
            assert response.headers["X-Content-Type-Options"] == "nosniff"
        html = await (await client.get(f"/s/{game.german}")).text()
        assert "<script>" not in html and " on" not in html.split("<body", 1)[1].split(">")[0]


async def test_rate_limits_per_link_and_per_address(tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service, per_link=(0.01, 3.0),
                       per_address=(0.01, 6.0)) as client:
        codes = [(await client.get(f"/s/{game.german}/api/verify")).status for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        limited = await client.get(f"/s/{game.german}/api/verify")
        assert limited.status == 429 and int(limited.headers["Retry-After"]) >= 1
        # another link from the same address: its own bucket, until the address's is empty
        assert (await client.get(f"/s/{game.soviet}/api/verify")).status == 200  # 6th
        assert (await client.get(f"/s/{game.soviet}/api/verify")).status == 429
        assert (await client.get("/s/unknown")).status == 429  # guessing is limited too


async def test_orders_have_their_own_rate_limit_and_bounds(tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service, submits=(0.01, 2.0)) as client:
        headers = {CSRF_HEADER: await _csrf(client, game.german)}
        url = f"/s/{game.german}/api/submit"
        big = await client.post(url, data=b"x" * 20_000, headers={
            **headers, "Content-Type": "application/json"})
        assert big.status == 413
        bad = await client.post(url, json={"text": "hide pak75-1 0101\x00"}, headers=headers)
        assert bad.status == 200
        refused = await bad.json()
        assert refused["status"] == "refused" and refused["rule"] == "input", refused
        third = await client.post(url, json={"text": "hide pak75-1 0101"}, headers=headers)
        assert third.status == 429
        assert game.service.info(game.game_id).head_seq == 0


async def test_bad_input_gets_a_clear_refusal(tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service) as client:
        headers = {CSRF_HEADER: await _csrf(client, game.german)}
        url = f"/s/{game.german}/api/submit"
        not_json = await client.post(url, data=b"{", headers={
            **headers, "Content-Type": "application/json"})
        assert not_json.status == 400 and "JSON" in (await not_json.json())["error"]
        form = await client.post(url, data={"text": "done"}, headers=headers)
        assert form.status == 415
        wrong = await client.post(url, json={"text": 5}, headers=headers)
        assert wrong.status == 400
        rules = await (await client.post(url, json={"text": "hide pak75-1 9999"},
                                         headers=headers)).json()
        assert rules["status"] == "refused" and rules["rule"] and rules["error"]
        bad_key = await client.post(url, json={"text": "done", "key": "k\ud800"},
                                    headers=headers)
        assert bad_key.status in (400, 200)
        assert game.service.info(game.game_id).head_seq == 0
        assert (await client.get(f"/s/{game.german}/api/replay/x.png")).status == 400
        assert (await client.get(f"/s/{game.german}/api/legal?unit=a\x01")).status == 400


async def test_the_access_log_never_holds_a_token(tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(LineFormatter("json"))
    logger = logging.getLogger("umpire.web.access")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        async with serving(game.service) as client:
            await client.get(f"/s/{game.german}/api/state?x={game.german}")
            await client.get(f"/s/{game.soviet}")
            headers = {CSRF_HEADER: await _csrf(client, game.german)}
            await client.post(f"/s/{game.german}/api/submit",
                              json={"text": hidden_setup_lines()[0]}, headers=headers)
    finally:
        logger.removeHandler(handler)
    written = stream.getvalue()
    assert "/s/[token]/api/state" in written and "/s/[token]/api/submit" in written
    for token in (game.german, game.soviet):
        assert token not in written
    assert redact_path(f"/s/{game.gm}/api/replay/3.png?seq=4") == "/s/[token]/api/replay/3.png"


async def test_a_link_holds_a_bounded_number_of_open_streams(tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service, streams_per_link=2) as client:
        first = await client.get(f"/s/{game.german}/events")
        second = await client.get(f"/s/{game.german}/events")
        assert first.status == second.status == 200
        third = await client.get(f"/s/{game.german}/events")
        assert third.status == 429 and (await third.json())["rule"] == "rate"
        other = await client.get(f"/s/{game.soviet}/events")  # another link: its own count
        assert other.status == 200
        for stream in (first, second, other):
            stream.close()
