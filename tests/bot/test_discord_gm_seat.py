"""Through the fake Discord: being GM is a seat (security round 3, issue 27.3).

A server administrator or a holder of the GM role who plays in a game never reads it as
its GM (``/game log``, ``/game export``, GM-only DMs) nor uses GM tools on it; a GM who
also plays (``/game new side:``) has GM powers before the start and after the end only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Literal

import pytest

from bot.service import Actor, GameService
from tests.bot.test_discord_duel import DUEL, Table
from tests.bot.test_discord_gm import RESTORE_B2, b2_hit_and_lost
from tests.bot.test_service_support import EDITABLE
from tests.fakediscord import FakeDiscord, run_umpire
from tests.fakediscord.harness import served
from tests.fakediscord.server import User

#: What red's secret trap in Mill (cell 3) looks like to whoever may read it.
SECRETS = ("trap 3", "Mill")


def _fake(bob: Literal["admin", "role", "none"]) -> tuple[FakeDiscord, Table]:
    fake = FakeDiscord()
    gm = fake.add_user("gm", roles=("Umpire GM",))
    ann = fake.add_user("ann")
    bob_user = fake.add_user("bob", admin=bob == "admin",
                             roles=("Umpire GM",) if bob == "role" else ())
    eve = fake.add_user("eve")
    fake.permit("gm", "Umpire GM")
    return fake, Table(None, fake, gm, ann, bob_user, eve)  # type: ignore[arg-type]


async def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: Table
               ) -> AsyncIterator[Table]:
    async with run_umpire(table.fake, tmp_path / "umpire.db", monkeypatch,
                          seed_source=lambda n: bytes(range(n)), extra_games=[DUEL],
                          game_ids=["g1"]) as harness:
        table.h = harness
        yield table


@pytest.fixture(params=["admin", "role"])
async def privileged_blue(request: pytest.FixtureRequest, tmp_path: Path,
                          monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Table]:
    """bob plays blue and is a server administrator, or holds the GM role."""
    _, table = _fake(request.param)
    async for t in _run(tmp_path, monkeypatch, table):
        yield t


@pytest.fixture
async def plain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Table]:
    _, table = _fake("none")
    async for t in _run(tmp_path, monkeypatch, table):
        yield t


async def _red_traps_mill(t: Table) -> None:
    placed = await t.h.slash(t.ann, t.fake.dm_channel(t.ann), "duel trap", cell="3")
    assert "Applied" in placed, placed


def _service(t: Table) -> GameService:
    return served(t.h)


def _actions(t: Table) -> int:
    return _service(t).info("g1").head_seq


async def _no_gm_reads_or_tools(t: Table, user: User) -> None:
    """``player`` (a blue player) reads the log and record as blue and is refused every GM
    tool, and nothing is stored by the attempts."""
    h, thread = t.h, t.game_thread
    log = await h.slash(user, thread, "game log")
    assert "blue log" in log.text and "red has placed a trap" in log.text, log
    for secret in SECRETS:
        assert secret not in log.text, log
    record = await h.slash(user, thread, "game export")
    (attachment,) = record.original.attachments
    assert attachment.filename == "umpire-g1-blue.jsonl"
    for secret in SECRETS:
        assert secret.encode() not in attachment.data
    before = _actions(t)
    for command, options in (("gm pause", {"reason": "tea"}),
                             ("gm override", {"op": "force-dice", "args": "6 6",
                                              "reason": "x"}),
                             ("gm roll", {"values": "6 6", "reason": "x"}),
                             ("gm rollback", {"to": 0, "reason": "x"}),
                             ("gm roll-forward", {}),
                             ("game deadline", {"hours": 1.0})):
        refused = await h.slash(user, thread, command, **options)
        assert refused.ephemeral and "you play in this game" in refused.text, (command,
                                                                               refused)
        assert "trap 3" not in refused.text
    assert _actions(t) == before


async def test_27_3_a_server_admin_or_gm_role_holder_who_plays_reads_as_a_player(
        privileged_blue: Table) -> None:
    """Issue 27.3: bob plays blue and is a server administrator (or holds the GM role):
    /game log and /game export give him blue's view (not red's hidden trap), every GM tool
    is refused, and no GM seat is ever made for him."""
    t = privileged_blue
    await t.h.slash(t.gm, t.fake.general, "game new", game=DUEL)
    (t.thread,) = t.fake.threads()
    await t.h.slash(t.ann, t.game_thread, "game join", side="red")
    await t.h.slash(t.bob, t.game_thread, "game join", side="blue")
    await t.h.slash(t.gm, t.game_thread, "game start")
    await _red_traps_mill(t)
    await _no_gm_reads_or_tools(t, t.bob)
    seats = _service(t).info("g1").seats
    assert not any(s.role == "gm" and s.discord_id == str(t.bob.id) for s in seats)
    # The GM (role holder, not playing) still reads everything.
    gm_log = await t.h.slash(t.gm, t.game_thread, "game log")
    assert "trap 3" in gm_log.text and "gm log" in gm_log.text


async def test_27_3_a_gm_who_plays_has_no_gm_powers_while_the_game_runs(plain: Table) -> None:
    """Issue 27.3: the creator takes blue at /game new (GM and player): they start the game
    (set-up), but during play they read blue's view only, get no GM-only DMs and use no GM
    tool; once the game is over the full record is theirs (as everyone's)."""
    t, h = plain, plain.h
    await h.slash(t.gm, t.fake.general, "game new", game=DUEL, side="blue")
    (t.thread,) = t.fake.threads()
    await h.slash(t.ann, t.game_thread, "game join", side="red")
    started = await h.slash(t.gm, t.game_thread, "game start")
    assert "started" in started.public[0].content, started  # then the briefing
    await _red_traps_mill(t)
    await _no_gm_reads_or_tools(t, t.gm)
    # During play the creator, who plays, vouches for no new GM: a role holder comes late.
    t.fake.give_role(t.eve, "Umpire GM")
    late = await h.slash(t.eve, t.game_thread, "gm pause", reason="tea")
    assert "no GM of this game may seat a new GM now" in late.text, late
    service = _service(t)
    assert not service.has_gm_powers("g1", Actor.discord(t.gm.id))
    for dm in t.fake.dms_to(t.gm):
        for secret in SECRETS:
            assert secret not in dm.content, dm.content
    await h.slash(t.ann, t.game_thread, "game resign", confirm=True)
    assert service.info("g1").status == "finished"
    assert service.has_gm_powers("g1", Actor.discord(t.gm.id))
    full = await h.slash(t.gm, t.game_thread, "game export")
    assert full.original.attachments[0].filename == "umpire-g1.jsonl"


@pytest.fixture
async def editable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Table]:
    _, table = _fake("none")
    async with run_umpire(table.fake, tmp_path / "umpire.db", monkeypatch,
                          seed_source=lambda n: bytes(range(n)), extra_games=[EDITABLE],
                          game_ids=["g1"]) as harness:
        table.h = harness
        yield table


async def test_27_3_gm_only_dms_skip_a_gm_who_plays(editable: Table) -> None:
    """Issue 27.3: the creator plays blue; eve (GM role, not playing) takes a GM seat with
    her first /gm command before the start (during play the creator vouches for nobody).
    A GM edit's GM-only events are DMed to eve, never to the creator while the game runs."""
    t, h, fake = editable, editable.h, editable.fake
    await h.slash(t.gm, fake.general, "game new", game=EDITABLE, side="blue")
    (t.thread,) = fake.threads()
    thread = t.game_thread
    await h.slash(t.ann, thread, "game join", side="red")
    fake.give_role(t.eve, "Umpire GM")
    await h.slash(t.eve, thread, "gm reveal-seed")  # seats eve as a GM, before the start
    await h.slash(t.gm, thread, "game start")
    await h.slash(t.ann, fake.dm_channel(t.ann), "duel trap", cell="1")
    await b2_hit_and_lost(h, thread, t.ann, t.gm, t.eve)
    refused = await h.slash(t.gm, thread, "gm override", op="edit", args=RESTORE_B2,
                            reason="mine")
    assert "you play in this game" in refused.text, refused
    edit = await h.slash(t.eve, thread, "gm override", op="edit", args=RESTORE_B2,
                         reason="b2 was wrongly removed")
    assert "Applied" in edit, edit
    assert any("GM only:\nb2 restored" in m.content for m in fake.dms_to(t.eve))
    assert not any("GM only" in m.content for m in fake.dms_to(t.gm)), \
        [m.content for m in fake.dms_to(t.gm)]
