"""Through the fake Discord: pause and resume, replacing a player, the /order multi-line
box, the select menu of a decision with more options than buttons, GM-only DMs, and the
log and record as each user may read them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adjudicator.registry import load_game
from tests.bot.duel_variants import POSTS, POSTS_GAME
from tests.bot.test_discord_duel import DUEL, Table, last_public
from tests.bot.test_service_support import EDITABLE
from tests.fakediscord import Channel, FakeDiscord, Harness, User, run_umpire
from tests.fakediscord.server import CommandUnavailable


@pytest.fixture
async def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Table]:
    fake = FakeDiscord()
    gm = fake.add_user("gm", roles=("Umpire GM",))
    ann, bob, eve = fake.add_user("ann"), fake.add_user("bob"), fake.add_user("eve")
    fake.permit("gm", "Umpire GM")  # the server's admin lets the GM role use /gm
    async with run_umpire(fake, tmp_path / "umpire.db", monkeypatch,
                          seed_source=lambda n: bytes(range(n)),
                          extra_games=[DUEL, EDITABLE, POSTS_GAME],
                          game_ids=["g1", "g2"]) as harness:
        yield Table(harness, fake, gm, ann, bob, eve)


async def open_game(t: Table, game: str = DUEL, trap: str = "1") -> Channel:
    await t.h.slash(t.gm, t.fake.general, "game new", game=game)
    (thread,) = t.fake.threads()
    t.thread = thread
    await t.h.slash(t.ann, thread, "game join", side="red")
    await t.h.slash(t.bob, thread, "game join", side="blue")
    await t.h.slash(t.gm, thread, "game start")
    group = load_game(game).name  # each game's orders are under its own command
    placed = await t.h.slash(t.ann, t.fake.dm_channel(t.ann), f"{group} trap", cell=trap)
    assert "Applied" in placed, placed
    return thread


async def test_pause_and_resume(table: Table) -> None:
    t, h = table, table.h
    thread = await open_game(t)
    await h.slash(t.ann, thread, "duel move", unit="r2", cell="3")
    await h.slash(t.bob, thread, "duel pass")
    await h.slash(t.gm, thread, "gm roll", values="6 6", reason="a sure hit")
    await h.slash(t.ann, thread, "duel attack", unit="r2", cell="4")
    prompt = last_public(t)
    (choose,) = prompt.custom_ids()

    with pytest.raises(CommandUnavailable):  # Discord does not show /gm to players
        await h.slash(t.ann, thread, "gm pause", reason="blue is away")
    paused = await h.slash(t.gm, thread, "gm pause", reason="blue is away until Monday")
    assert paused.ephemeral
    notice = last_public(t)
    assert "The GM paused the game — reason: blue is away until Monday" in notice.content
    assert notice.custom_ids() == [] and f"<@{t.bob.id}>" not in notice.content

    # Nobody can act while paused: not by command, not by button, not the GM for a side.
    for user, command, options in ((t.bob, "decide", {"answer": "decide lose"}),
                                   (t.ann, "duel pass", {}), (t.gm, "decide",
                                                         {"answer": "decide lose"})):
        reply = await h.slash(user, thread, command, **options)
        assert reply.ephemeral and "paused by the GM" in reply, (command, reply)
    clicked = await h.click(t.bob, prompt, choose)
    assert clicked.ephemeral and "paused by the GM" in clicked
    assert await h.autocomplete(t.bob, thread, "decide", "answer") != []  # options shown
    assert await h.autocomplete(t.ann, thread, "duel move", "unit") == []  # nothing legal
    status = await h.slash(t.eve, thread, "game status")
    assert "paused by the GM (blue is away until Monday)" in status

    resumed = await h.slash(t.gm, thread, "gm resume", reason="blue is back")
    assert resumed.ephemeral
    back = last_public(t)
    assert "The GM resumed the game — reason: blue is back." in back.content
    # The decision is asked again, with a fresh button for blue.
    assert f"<@{t.bob.id}>" in back.content and back.custom_ids()
    stale = await h.click(t.bob, prompt, choose)
    assert "no longer open" in stale
    shown = await h.click(t.bob, back, back.custom_ids()[0])
    assert "decide lose" in shown
    await h.click(t.bob, shown.original, shown.original.custom_ids()[-1])
    assert "b2 is eliminated" in last_public(t).content

    log = await h.slash(t.eve, thread, "game log", last=4)
    assert "pause: The GM paused the game" in log and "resume: The GM resumed" in log


async def test_gm_seat_replaces_a_player(table: Table) -> None:
    t, h = table, table.h
    thread = await open_game(t)
    await h.slash(t.ann, thread, "duel pass")
    t.fake.permit("gm", "Veteran")  # an admin showed /gm to veterans; bob is one, not a GM
    t.fake.give_role(t.bob, "Veteran")
    refused = await h.slash(t.bob, thread, "gm seat", side="blue", player=t.eve.id)
    assert refused.ephemeral and "only a GM" in refused
    assert await h.autocomplete(t.gm, thread, "gm seat", "side", side="b") == ["blue"]
    seated = await h.slash(t.gm, thread, "gm seat", side="blue", player=t.eve.id,
                           reason="bob had to leave")
    assert seated.public  # the seating is announced in the thread
    assert (f"<@{t.eve.id}> now plays **blue**, replacing <@{t.bob.id}> — reason: bob had "
            "to leave.") in seated
    assert f"To act: **blue** <@{t.eve.id}>" in seated
    gone = await h.slash(t.bob, thread, "duel pass")
    assert gone.ephemeral and "not seated" in gone
    assert await h.autocomplete(t.eve, thread, "duel move", "unit") == ["b1", "b2"]
    await h.slash(t.eve, thread, "duel move", unit="b2", cell="3")
    status = await h.slash(t.gm, thread, "game status")
    assert f"blue: <@{t.eve.id}>" in status and f"<@{t.bob.id}>" not in status.text
    again = await h.slash(t.gm, thread, "gm seat", side="blue", player=t.eve.id)
    assert again.ephemeral and "already plays" in again
    # A replacement while a decision is owed hands the decision over.
    await h.slash(t.gm, thread, "gm roll", values="6 6", reason="hit")
    await h.slash(t.ann, thread, "duel attack", unit="r2", cell="3")
    owed = last_public(t)
    assert f"<@{t.eve.id}>" in owed.content and "waiting for blue" in owed.content
    handed = await h.slash(t.gm, thread, "gm seat", side="blue", player=t.bob.id)
    assert f"<@{t.bob.id}> blue owes a decision" in handed
    announced = handed.public[0]
    (choose,) = announced.custom_ids()
    old_owner = await h.click(t.eve, announced, choose)
    assert old_owner.ephemeral and "Only" in old_owner
    options = await h.click(t.bob, announced, choose)
    assert "decide lose" in options
    await h.click(t.bob, options.original, options.original.custom_ids()[-1])
    assert "b2 is eliminated" in last_public(t).content
    record = await h.slash(t.gm, thread, "game export")
    header = json.loads(record.original.attachments[0].data.splitlines()[0])
    assert [s["removed_reason"] for s in header["closed_seats"]] == [
        "bob had to leave", "replaced by the GM"]


async def test_order_without_text_opens_a_multi_line_box(table: Table) -> None:
    t, h = table, table.h
    thread = await open_game(t)
    shown = await h.slash(t.ann, thread, "order")
    assert shown.record.response_type == 9
    assert shown.record.response_data["title"] == "Orders"
    done = await h.submit_modal(t.ann, thread, shown, "move r2 3\n# a comment\n\nmove r1 2")
    # Red's first line ends red's turn: the second is refused, the first stays applied.
    assert done.ephemeral and "Applied: `move r2 3`" in done
    assert "turn" in done and "move r1 2" not in last_public(t).content
    await h.slash(t.bob, thread, "duel pass")
    box = await h.slash(t.ann, thread, "order")
    secret = await h.submit_modal(t.ann, thread, box, "move r1 2\ntrap 4")
    assert secret.ephemeral and "only in a direct message" in secret
    assert "trap 4" not in secret.text
    standing = await h.slash(t.ann, thread, "order")
    both = await h.submit_modal(t.ann, thread, standing, "standing casualty lose\nmove r1 2")
    assert "Applied: `standing casualty lose`, `move r1 2`" in both
    assert "standing" not in last_public(t).content
    assert "r1 moves to Hill" in last_public(t).content


async def test_a_decision_with_many_options_uses_a_select_menu(table: Table) -> None:
    t, h, fake = table, table.h, table.fake
    thread = await open_game(t, POSTS_GAME)
    await h.slash(t.ann, thread, "posts-duel move", unit="r2", cell="3")
    await h.slash(t.bob, thread, "posts-duel pass")
    await h.slash(t.gm, thread, "gm roll", values="6 6", reason="a sure hit")
    await h.slash(t.ann, thread, "posts-duel attack", unit="r2", cell="4")
    prompt = last_public(t)
    assert "post" not in " ".join(prompt.labels())  # the options are blue's to read
    (choose,) = prompt.custom_ids()
    shown = await h.click(t.bob, prompt, choose)
    menu = shown.original
    (select_id,) = menu.custom_ids()
    select = menu.component(select_id)
    assert select["type"] == 3 and len(select["options"]) == POSTS
    assert select["options"][7]["label"] == "fall back to post 8 (post 8)"
    dm = next(m for m in fake.dms_to(t.bob) if m.custom_ids())
    (dm_select,) = dm.custom_ids()
    assert dm.component(dm_select)["type"] == 3
    # Only the owing player may pick; then the choice is applied once.
    wrong = await h.click(t.ann, dm, dm_select, values=["3"])
    assert wrong.ephemeral and "Only" in wrong
    await h.click(t.bob, menu, select_id, values=["7"])
    assert "b2 falls back: post 8" in last_public(t).content
    assert "Answered: **fall back to post 8 (post 8)**" in menu.content
    late = await h.click(t.bob, dm, dm_select, values=["2"])
    assert "no longer open" in late
    log = await h.slash(t.ann, thread, "game log", last=1)
    assert "(secret)" in log and "post 8" in log  # the answer's text is blue's; the event not


RESTORE_B2 = "restore-unit unit=b2 side=blue cell=5 strength=2"


async def b2_hit_and_lost(h: Harness, thread: Channel, red: User, blue: User, gm: User
                          ) -> None:
    """Red moves, blue passes, the GM sets a sure hit, red attacks b2 and blue loses it."""
    await h.slash(red, thread, "duel move", unit="r2", cell="3")
    await h.slash(blue, thread, "duel pass")
    await h.slash(gm, thread, "gm roll", values="6 6", reason="hit")
    await h.slash(red, thread, "duel attack", unit="r2", cell="4")
    await h.slash(blue, thread, "decide", answer="decide lose")


async def test_gm_only_events_are_dmed_to_every_gm(table: Table) -> None:
    t, h, fake = table, table.h, table.fake
    thread = await open_game(t, EDITABLE)
    fake.give_role(t.eve, "Umpire GM")
    await h.slash(t.eve, thread, "gm reveal-seed")  # seats eve as a GM of the game
    await b2_hit_and_lost(h, thread, t.ann, t.bob, t.gm)
    edit = await h.slash(t.gm, thread, "gm override", op="edit", args=RESTORE_B2,
                         reason="b2 was wrongly removed")
    assert edit.ephemeral and "Applied" in edit
    for gm in (t.gm, t.eve):
        dms = [m.content for m in fake.dms_to(gm)]
        assert any("GM only:\nb2 restored" in text for text in dms), (gm.name, dms)
    for player in (t.ann, t.bob):
        assert not any("b2 restored" in m.content for m in fake.dms_to(player))
    assert not any("b2 restored" in text for m in fake.public_messages() for text in m.texts())
    notice = last_public(t).content
    assert "GM override:" in notice and "reason: b2 was wrongly removed" in notice


async def test_log_and_export_as_each_user_may_read_them(table: Table) -> None:
    t, h = table, table.h
    thread = await open_game(t, trap="3")
    await h.slash(t.ann, thread, "duel pass")
    ann_log = await h.slash(t.ann, thread, "game log")
    assert "#1 order red: trap 3" in ann_log
    bob_log = await h.slash(t.bob, thread, "game log")
    assert "#1 order red: (secret) — red has placed a trap" in bob_log
    assert "Mill" not in bob_log.text
    gm_log = await h.slash(t.gm, thread, "game log")
    assert "trap 3" in gm_log and "red sets the trap in Mill" in gm_log
    mine = await h.slash(t.bob, thread, "game export")
    (attachment,) = mine.original.attachments
    assert attachment.filename == "umpire-g1-blue.jsonl" and "when the game is over" in mine
    text = attachment.data.decode()
    assert "Mill" not in text and "trap 3" not in text and "state_hash" not in text
    full = await h.slash(t.gm, thread, "game export")
    assert full.original.attachments[0].filename == "umpire-g1.jsonl"
    assert b"trap 3" in full.original.attachments[0].data
