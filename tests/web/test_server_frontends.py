"""The links reach their holders through the other frontends (issue 25, docs/web.md): a
Discord DM on ``/game join``, ``/game link`` (ephemeral) and the GM's ``/gm seat … link``
re-issue; the mail reply to ``join`` and the mail command ``link`` / ``link new``; and a
link given so opens that seat's page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.mail.desk import Desk
from bot.service import GameService, NotFound
from bot.store import Store
from tests.fakediscord import FakeDiscord
from tests.fakediscord.harness import run_umpire
from tests.mail.support import config, inbound, secret_in
from tests.mail.test_desk import BLUE, GM, RED, handle, one

URL = "https://umpire.example"
LINK = re.compile(r"https://umpire\.example/s/([A-Za-z0-9_-]+)")


async def test_discord_join_dms_the_seat_s_link_and_game_link_gives_another(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeDiscord()
    gm, gerd, sasha = fake.add_user("gm", admin=True), fake.add_user("gerd"), fake.add_user(
        "sasha")
    db = tmp_path / "u.db"
    async with run_umpire(fake, db, monkeypatch, game_ids=["w1"], web_url=URL) as h:
        thread, _ = await h.open_game(gm, "tanks", "pakfront", {"german": gerd,
                                                                "soviet": sasha})
        dm = [LINK.search(m.content) for m in fake.dms_to(gerd)]
        (first,) = [m.group(1) for m in dm if m]
        public = " ".join(" ".join(m.texts()) for m in fake.public_messages())
        assert first not in public and "/s/" not in public
        asked = await h.slash(gerd, thread, "game link")
        assert asked.ephemeral
        found = LINK.search(asked.text)
        assert found is not None
        second = found.group(1)
        service = GameService(Store(db))
        try:
            assert service.resolve_link(first).side == service.resolve_link(second).side \
                == "german"
            renewed = await h.slash(gerd, thread, "game link", new=True)
            found = LINK.search(renewed.text)
            assert found is not None and "2 older link(s)" in renewed.text
            for old in (first, second):
                with pytest.raises(Exception, match="not valid"):
                    service.resolve_link(old)
            # the GM re-issues sasha's link: a DM to sasha, her old link stops
            (before,) = [m.group(1) for m in (LINK.search(x.content)
                                              for x in fake.dms_to(sasha)) if m]
            done = await h.slash(gm, thread, "gm seat", side="soviet", player=sasha.id,
                                 link=True)
            assert "re-issued" in done.text
            links = [m.group(1) for m in (LINK.search(x.content) for x in fake.dms_to(sasha))
                     if m]
            assert len(links) == 2 and links[0] == before
            assert service.resolve_link(links[1]).side == "soviet"
            with pytest.raises(Exception, match="not valid"):
                service.resolve_link(before)
        finally:
            service.store.close()


async def test_discord_gives_no_link_without_a_web_url(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeDiscord()
    gm, gerd, sasha = fake.add_user("gm", admin=True), fake.add_user("gerd"), fake.add_user(
        "sasha")
    async with run_umpire(fake, tmp_path / "u.db", monkeypatch, game_ids=["w2"]) as h:
        thread, _ = await h.open_game(gm, "tanks", "pakfront", {"german": gerd,
                                                                "soviet": sasha})
        assert not any("/s/" in m.content for m in fake.dms_to(gerd))
        refused = await h.slash(gerd, thread, "game link")
        assert refused.ephemeral and "no web pages" in refused.text


def _mail_desk(db: Path) -> Desk:
    service = GameService(Store(db), seed_source=lambda n: b"\x07" * n)
    return Desk(service, config(web_url=URL), draw=lambda view, pack: b"PNG",
                games={"tanks": "tanks"})


def test_mail_join_carries_the_link_and_link_new_replaces_it(tmp_path: Path) -> None:
    office = _mail_desk(tmp_path / "u.db")
    created = one(handle(office, inbound(GM, "create tanks pakfront")))
    game_id = str(created.game_id)
    joined = one(handle(office, inbound(RED, f"join {game_id} german")))
    found = LINK.search(joined.body)
    assert found is not None and joined.to == RED
    first, secret = found.group(1), secret_in(joined)
    assert office.service.resolve_link(first).side == "german"
    subject = f"[umpire {game_id}]"
    # no password: no link; with others in copy: no link
    refused = one(handle(office, inbound(RED, "link", subject=subject)))
    assert LINK.search(refused.body) is None
    copied = handle(office, inbound(RED, f"password {secret}\nlink", subject=subject,
                                    cc=BLUE))
    assert not any(LINK.search(o.body) for o in copied)
    again = one(handle(office, inbound(RED, f"password {secret}\nlink", subject=subject)))
    found = LINK.search(again.body)
    assert found is not None and again.to == RED
    second = found.group(1)
    assert office.service.resolve_link(first).side == "german"  # both work
    renewed = one(handle(office, inbound(RED, f"password {secret}\nlink new",
                                         subject=subject)))
    found = LINK.search(renewed.body)
    assert found is not None and "2 older link(s)" in renewed.body
    for old in (first, second):
        with pytest.raises(NotFound):
            office.service.resolve_link(old)
    assert office.service.resolve_link(found.group(1)).side == "german"
    watch = one(handle(office, inbound(RED, f"password {secret}\nlink observers",
                                       subject=subject)))
    found = LINK.search(watch.body)
    assert found is not None and office.service.resolve_link(found.group(1)).role == \
        "observer"


def test_a_player_the_gm_seats_by_mail_gets_the_link_with_the_secret_alone(tmp_path: Path
                                                                         ) -> None:
    """``seat SIDE ADDRESS``: the seated player's private mail carries the seat's web page
    beside its secret; the GM's reply names neither, and a re-seat ends the older link."""
    office = _mail_desk(tmp_path / "u.db")
    created = one(handle(office, inbound(GM, "create tanks pakfront")))
    game_id, gm_secret = str(created.game_id), secret_in(created)
    subject = f"[umpire {game_id}]"
    reply, private = handle(office, inbound(GM, f"password {gm_secret}\nseat german {RED}",
                                            subject=subject))
    found = LINK.search(private.body)
    assert found is not None and private.to == RED and private.audience == "private"
    assert LINK.search(reply.body) is None and "web page link" in reply.body
    first = found.group(1)
    assert office.service.resolve_link(first).side == "german"
    _, again = handle(office, inbound(GM, f"password {gm_secret}\nseat german {BLUE}",
                                      subject=subject))
    found = LINK.search(again.body)
    assert found is not None and again.to == BLUE
    with pytest.raises(NotFound):
        office.service.resolve_link(first)
    assert office.service.resolve_link(found.group(1)).side == "german"


def test_the_mail_gateway_s_web_server_runs_in_a_thread_of_its_own(tmp_path: Path) -> None:
    """``umpire mail --web``: the gateway is threads, not asyncio; its pages are served by
    a loop in a thread of its own, over the gateway's service, and stop with it."""
    import json
    import urllib.request

    from bot.web.app import ThreadedWebServer
    from bot.web.settings import WebSettings
    from tests.web.server_games import pakfront

    game = pakfront(tmp_path / "u.db")
    server = ThreadedWebServer(game.service, WebSettings(port=0))
    port = server.start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/s/{game.german}/api/state",
                                    timeout=30) as response:
            assert json.loads(response.read())["seat"]["side"] == "german"
    finally:
        server.stop()
    assert not server.thread.is_alive()


def test_umpire_bot_and_mail_take_web_and_web_url(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from typing import Any

    from typer.testing import CliRunner

    import bot.discord.app as discord_app
    import bot.mail.app as mail_app
    from bot.cli import app

    seen: dict[str, Any] = {}
    monkeypatch.setattr(discord_app, "run", lambda *a, **k: seen.update(bot=k.get("web")))
    monkeypatch.setattr(mail_app, "run", lambda *a: seen.update(mail=a[2] if len(a) > 2
                                                                else None))
    monkeypatch.setenv("DISCORD_TOKEN", "test-token")
    monkeypatch.delenv("UMPIRE_WEB_URL", raising=False)
    empty = tmp_path / "discord.toml"
    empty.write_text("", encoding="utf-8")
    mail = tmp_path / "mail.toml"
    mail.write_text('address = "umpire@example.org"\nweb_url = "https://mail.example"\n'
                    '[smtp]\nhost = "127.0.0.1"\n[listen]\nport = 8025\n', encoding="utf-8")
    db = str(tmp_path / "u.db")
    runner = CliRunner()
    result = runner.invoke(app, ["bot", "--config", str(empty), "--db", db, "--web",
                                 "127.0.0.1:8181", "--web-url", URL + "/"])
    assert result.exit_code == 0, result.output
    assert (seen["bot"].host, seen["bot"].port, seen["bot"].base_url) == (
        "127.0.0.1", 8181, URL)
    result = runner.invoke(app, ["bot", "--config", str(empty), "--db", db])
    assert result.exit_code == 0 and seen["bot"] is None
    bad = runner.invoke(app, ["bot", "--config", str(empty), "--db", db, "--web", "nowhere"])
    assert bad.exit_code == 2 and "HOST:PORT" in bad.output
    result = runner.invoke(app, ["mail", "--config", str(mail), "--db", db])
    assert result.exit_code == 0, result.output
    assert seen["mail"].base_url == "https://mail.example" and seen["mail"].port == 0
