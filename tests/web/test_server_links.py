"""Secret links (issue 25): a link per seat, the GM's, the observers'; only the hash stored;
``link`` adds one (at most MAX_LINKS per seat), ``link new`` and the GM's re-issue revoke the
others at once; a closed seat's links stop; a page reads its own seat's view only."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.service import NotFound, PermissionDenied
from bot.service.links import MAX_LINKS, token_hash
from tests.web.server_games import GERMAN, GM, SOVIET, pakfront, serving


def test_only_the_hash_of_a_link_is_stored(db_url: str) -> None:
    game = pakfront(db_url)
    rows = game.service.store.query("SELECT * FROM web_links")
    stored = " ".join(str(v) for row in rows for v in row.values())
    for token in (game.german, game.soviet, game.gm, game.observer):
        assert token not in stored
        assert token_hash(token) in stored


def test_link_resolves_to_its_seat_and_audience(db_url: str) -> None:
    game = pakfront(db_url)
    resolve = game.service.resolve_link
    assert (resolve(game.german).side, resolve(game.german).audience) == ("german", "german")
    assert resolve(game.soviet).actor == SOVIET
    assert resolve(game.gm).audience == "gm"
    assert resolve(game.observer).audience == "public"
    for bad in ("", "x" * 65, "../etc", game.german + "x", "a b"):
        with pytest.raises(NotFound):
            resolve(bad)


def test_link_adds_one_link_new_revokes_the_others(db_url: str) -> None:
    game = pakfront(db_url)
    service = game.service
    more = [service.issue_link(game.game_id, GERMAN).token for _ in range(MAX_LINKS - 1)]
    assert service.resolve_link(game.german).side == "german"  # still MAX_LINKS in force
    service.issue_link(game.game_id, GERMAN)  # one more: the oldest (the first) ends
    with pytest.raises(NotFound):
        service.resolve_link(game.german)
    fresh = service.issue_link(game.game_id, GERMAN, new=True)
    assert fresh.revoked == MAX_LINKS
    for token in more:
        with pytest.raises(NotFound):
            service.resolve_link(token)
    assert service.resolve_link(fresh.token).side == "german"


def test_gm_reissues_and_revokes_a_seat_link_players_may_not(db_url: str) -> None:
    game = pakfront(db_url)
    service = game.service
    with pytest.raises(PermissionDenied):
        service.reissue_link(game.game_id, SOVIET, "german")
    new = service.reissue_link(game.game_id, GM, "german")
    with pytest.raises(NotFound):
        service.resolve_link(game.german)
    assert service.revoke_seat_links(game.game_id, GM, "german") == 1
    with pytest.raises(NotFound):
        service.resolve_link(new.token)
    with pytest.raises(PermissionDenied):
        service.observer_link(game.game_id, SOVIET, new=True)
    assert service.observer_link(game.game_id, SOVIET).role == "observer"


def test_a_closed_seat_s_links_stop(db_url: str) -> None:
    game = pakfront(db_url)
    game.service.unseat(game.game_id, GM, SOVIET, "replaced")
    with pytest.raises(NotFound):
        game.service.resolve_link(game.soviet)


async def test_revoked_link_gets_404_at_once(db_url: str) -> None:
    game = pakfront(db_url)
    async with serving(game.service) as client:
        assert (await client.get(f"/s/{game.german}/api/state")).status == 200
        game.service.reissue_link(game.game_id, GM, "german")
        response = await client.get(f"/s/{game.german}/api/state")
        assert response.status == 404
        assert "not valid" in (await response.json())["error"]


async def test_the_page_is_served_with_its_csrf_token(tmp_path: Path) -> None:
    game = pakfront(tmp_path / "u.db")
    async with serving(game.service) as client:
        response = await client.get(f"/s/{game.german}")
        assert response.status == 200
        html = await response.text()
        state = await (await client.get(f"/s/{game.german}/api/state")).json()
        assert f'content="{state["csrf"]}"' in html
        assert state["seat"] == {"role": "player", "side": "german", "audience": "german"}
        assert (await client.get("/s/unknown-token")).status == 404
