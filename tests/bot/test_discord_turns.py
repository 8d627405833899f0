"""Through the fake Discord: every change of who must act is posted and pings exactly the
side that must act now (issue 29, "the turn changes silently").

The fake Discord records whom each message notified (:attr:`Message.pings`: the user
mentions its ``allowed_mentions`` let through). Duel (tests/kernel/duel.py) gives the
turns: red places its trap (D4), then red and blue alternate (D1).
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from bot.discord.core import UmpireBot
from tests.bot import test_discord_duel
from tests.bot.test_discord_duel import DUEL, Table
from tests.fakediscord import Message
from tests.fakediscord.harness import served

table = test_discord_duel.table  # the fixture: a GM, ann, bob and eve on a fake server


def _pings(t: Table, since: int) -> list[tuple[int, str]]:
    """(user id pinged, the text that pinged them) for thread posts after the first
    ``since`` messages."""
    return [(user, m.content) for m in t.fake.channel_messages(t.game_thread)[since:]
            for user in m.pings]


def _count(t: Table) -> int:
    return len(t.fake.channel_messages(t.game_thread))


def _last(t: Table) -> Message:
    return t.fake.channel_messages(t.game_thread)[-1]


async def test_29_join_and_start_ping_only_the_side_to_act_never_who_ran_them(
        table: Table) -> None:
    """Issue 29: ``/game join`` pings nobody (who acts has not changed); ``/game start``
    pings the players of the side to act (red, D1) and not the GM who started it."""
    t = table
    await t.h.slash(t.gm, t.fake.general, "game new", game=DUEL)
    (t.thread,) = t.fake.threads()
    before = _count(t)
    await t.h.slash(t.ann, t.game_thread, "game join", side="red")
    await t.h.slash(t.bob, t.game_thread, "game join", side="blue")
    assert _pings(t, before) == []
    before = _count(t)
    await t.h.slash(t.gm, t.game_thread, "game start")
    assert [user for user, _ in _pings(t, before)] == [t.ann.id]


async def test_29_each_change_of_who_acts_pings_that_side_and_never_the_actor(
        table: Table) -> None:
    """Issue 29: when the turn passes (D1), the thread says who acts and pings exactly
    their players; the player who just acted is never pinged, and an order that leaves
    the same side to act pings nobody."""
    t, h = table, table.h
    thread = await test_discord_duel.open_game(t)
    before = _count(t)
    await h.slash(t.ann, t.fake.dm_channel(t.ann), "duel trap", cell="3")  # red acts again
    assert _pings(t, before) == []
    for actor, other, order in ((t.ann, t.bob, {"unit": "r2", "cell": "3"}),
                                (t.bob, t.ann, {}), (t.ann, t.bob, {})):
        before = _count(t)
        if order:
            done = await h.slash(actor, thread, "duel move", **order)
        else:
            done = await h.slash(actor, thread, "duel pass")
        assert "Applied" in done, done
        pinged = _pings(t, before)
        assert [user for user, _ in pinged] == [other.id], pinged
        assert "To act:" in pinged[0][1]


async def test_29_a_deadline_that_runs_out_says_who_acts_next_and_pings_them(
        table: Table) -> None:
    """Issue 29: red's deadline passes, Umpire plays red's default (``pass``); the same
    post says blue acts now and pings blue's player (not red's, not the GM)."""
    t, h = table, table.h
    thread = await test_discord_duel.open_game(t)
    await h.slash(t.ann, t.fake.dm_channel(t.ann), "duel trap", cell="3")
    await h.slash(t.gm, thread, "game deadline", hours=1.0)
    bot = cast(UmpireBot, h.client)
    service = served(h)
    now = service.clock()
    service.clock = lambda: now + 2 * 3600
    before = _count(t)
    await bot.publisher.deadline_notices()
    posted = t.fake.channel_messages(thread)[before:]
    assert any("deadline passed" in m.content and "To act: **blue**" in m.content
               for m in posted), [m.content for m in posted]
    assert [user for user, _ in _pings(t, before)] == [t.bob.id]


async def _blue_owes_a_decision(t: Table) -> int:
    """Red traps Mill, moves r2 there and attacks b in Hill on GM dice 6 6 (D3): blue owes
    the casualty decision. The count of thread messages before the attack."""
    h = t.h
    thread = await test_discord_duel.open_game(t)
    await h.slash(t.ann, t.fake.dm_channel(t.ann), "duel trap", cell="3")
    await h.slash(t.ann, thread, "duel move", unit="r2", cell="3")
    await h.slash(t.bob, thread, "duel pass")
    await h.slash(t.gm, thread, "gm roll", values="6 6", reason="a sure hit")
    before = _count(t)
    attack = await h.slash(t.ann, thread, "duel attack", unit="r2", cell="4")
    assert "Applied" in attack, attack
    return before


async def test_29_whoever_answers_a_decision_is_not_pinged_for_their_own_turn(
        table: Table) -> None:
    """Issue 29: red's attack leaves blue owing a decision (pinged); blue answers with the
    DM button and the turn passes to blue (D1): the post says so without pinging bob,
    who just acted."""
    t, h = table, table.h
    before = await _blue_owes_a_decision(t)
    thread = t.game_thread
    assert [user for user, _ in _pings(t, before)] == [t.bob.id]
    dm_prompt = next(m for m in reversed(t.fake.dms_to(t.bob)) if m.custom_ids())
    before = _count(t)
    await h.click(t.bob, dm_prompt, dm_prompt.custom_ids()[0])
    posted = t.fake.channel_messages(thread)[before:]
    assert posted and "To act: **blue**" in posted[-1].content, [m.content for m in posted]
    assert _pings(t, before) == []


async def test_29_an_action_with_nothing_public_to_report_still_says_who_acts_next(
        table: Table) -> None:
    """Issue 29: an action whose public message has no lines (a Turning Point: Stalingrad
    night ``end`` with nothing to report) but hands the turn over is still posted — who
    acts now, pinging them — instead of being skipped while the ping is marked sent."""
    from bot.messages import Message as Told
    from bot.service import SubmitResult

    t, h = table, table.h
    await test_discord_duel.open_game(t)
    bot = cast(UmpireBot, h.client)
    info = served(h).info("duel1")
    quiet = SubmitResult(status="applied", game_id="duel1", side="red", seqs=[info.head_seq],
                         to_act="blue", messages={
                             "public": Told(audience="public", lines=[], to_act="blue")})
    before = _count(t)
    await bot.publisher.publish(info, quiet, str(t.ann.id))
    posted = t.fake.channel_messages(t.game_thread)[before:]
    assert [m.content for m in posted] == [f"**red**\nTo act: **blue** <@{t.bob.id}>"]
    assert _pings(t, before) == [(t.bob.id, posted[0].content)]


async def test_29_the_actor_reads_their_private_news_in_their_answer_not_a_dm(
        table: Table) -> None:
    """Issue 29 (D4, red's secret trap): red's own private news is in her private answer;
    no DM repeats it or the board; the GM reads it once in a GM-only DM."""
    t, h = table, table.h
    await test_discord_duel.open_game(t)
    dms_before = len([m for m in t.fake.dms_to(t.ann) if not m.ephemeral])
    placed = await h.slash(t.ann, t.fake.dm_channel(t.ann), "duel trap", cell="3")
    assert placed.ephemeral and "Only you see this" in placed and "Mill" in placed
    after = [m for m in t.fake.dms_to(t.ann) if not m.ephemeral]
    assert len(after) == dms_before, [m.content for m in after[dms_before:]]
    for message in after:
        assert "```" not in message.content


async def test_29_a_picture_only_when_the_board_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: a move (D2) changes the board and its post carries a picture; a pass
    changes only who acts, and its post carries none — no two identical maps in a row."""
    from tests.bot.test_discord_session import board_png

    async with test_discord_duel.drawn_table(tmp_path, monkeypatch, board_png) as t:
        h, fake, ann, bob = t.h, t.fake, t.ann, t.bob
        thread = await test_discord_duel.open_game(t)
        await h.slash(ann, fake.dm_channel(ann), "duel trap", cell="2")
        before = _count(t)
        await h.slash(ann, thread, "duel move", unit="r2", cell="3")
        moved = [m for m in t.fake.channel_messages(thread)[before:] if not m.ephemeral]
        assert [bool(m.attachments) for m in moved] == [True], [m.content for m in moved]
        for who in (bob, ann):
            before = _count(t)
            await h.slash(who, thread, "duel pass")
            passed = t.fake.channel_messages(thread)[before:]
            assert passed and not any(m.attachments for m in passed), passed
        before = _count(t)
        await h.slash(bob, thread, "duel move", unit="b1", cell="4")
        assert any(m.attachments for m in t.fake.channel_messages(thread)[before:])


async def test_29_a_standing_order_while_a_decision_waits_changes_nothing_seen(
        table: Table) -> None:
    """Issue 29: while blue owes a decision (D3), red sets a standing order (kept private):
    nothing is posted in the thread, blue gets no second decision DM, and blue's buttons
    still answer the decision."""
    t, h = table, table.h
    await _blue_owes_a_decision(t)
    thread = t.game_thread
    dm_prompt = next(m for m in reversed(t.fake.dms_to(t.bob)) if m.custom_ids())
    posts = len([m for m in t.fake.channel_messages(thread) if not m.ephemeral])
    dms = len(t.fake.dms_to(t.bob))
    ack = await h.slash(t.ann, thread, "game standing", kind="casualty", policy="lose")
    assert ack.ephemeral and "standing casualty lose" in ack, ack
    assert len([m for m in t.fake.channel_messages(thread) if not m.ephemeral]) == posts
    assert len(t.fake.dms_to(t.bob)) == dms
    await h.click(t.bob, dm_prompt, dm_prompt.custom_ids()[0])
    assert "Answered" in dm_prompt.content, dm_prompt.content
    assert "b2 retreats to Wood" in _last(t).content


async def test_29_a_post_says_who_gave_the_order_the_player_or_the_gm(table: Table) -> None:
    """Issue 29: a player's order is headed by their side; the GM answering blue's stuck
    decision (an override, D3) is headed "blue, given by the GM" — never a bare Umpire."""
    t, h = table, table.h
    await _blue_owes_a_decision(t)
    assert _last(t).content.startswith("**red**")
    done = await h.slash(t.gm, t.game_thread, "gm override", op="answer-decision",
                         args="decide lose", reason="bob is away")
    assert done.ephemeral and "Applied" in done, done
    headed = [m.content for m in t.fake.channel_messages(t.game_thread) if not m.ephemeral]
    assert headed and headed[-1].startswith("**blue, given by the GM**"), headed


async def test_29_gm_outside_a_thread_is_told_to_use_the_thread(table: Table) -> None:
    """Issue 29: /gm has no ``game:`` option, so its advice outside a thread names the
    thread, not an option it lacks."""
    t = table
    await test_discord_duel.open_game(t)
    refused = await t.h.slash(t.gm, t.fake.general, "gm pause", reason="tea")
    assert refused.ephemeral and "in the game's thread" in refused
    assert "add `game:`" not in refused.text


async def test_29_in_a_dm_the_game_waiting_for_you_needs_no_game_option(table: Table) -> None:
    """Issue 29: ann plays two games; only in duel1 is it her turn (red places the trap
    first, D4). Her DM order without ``game:`` goes to duel1; when both wait for her, she
    is asked which."""
    t, h = table, table.h
    await test_discord_duel.open_game(t)
    await h.slash(t.gm, t.fake.general, "game new", game=DUEL)
    second = next(c for c in t.fake.threads() if "[duel2]" in c.name)
    await h.slash(t.bob, second, "game join", side="red")
    await h.slash(t.ann, second, "game join", side="blue")
    await h.slash(t.gm, second, "game start")
    placed = await h.slash(t.ann, t.fake.dm_channel(t.ann), "duel trap", cell="3")
    assert "Applied" in placed, placed
    service = served(h)
    assert service.info("duel1").head_seq > service.info("duel2").head_seq
    await h.slash(t.bob, t.fake.dm_channel(t.bob), "duel trap", cell="2")
    await h.slash(t.bob, second, "duel pass")  # now both games wait for ann
    asked = await h.slash(t.ann, t.fake.dm_channel(t.ann), "duel pass")
    assert asked.ephemeral and "add `game:`" in asked and "duel2" in asked, asked


async def test_29_long_help_comes_in_pages_never_cut_mid_word(table: Table) -> None:
    """Issue 29: ``/help topic:stalingrad`` is longer than a message: it comes in pages,
    each within Discord's 2,000 characters, holding every line of the game's help whole."""
    from adjudicator.stalingrad.game import StalingradGame

    t = table
    reply = await t.h.slash(t.eve, t.fake.general, "help", topic="stalingrad")
    pages = [m.content for m in reply.messages]
    assert len(pages) > 1 and all(m.ephemeral for m in reply.messages)
    assert all(len(page) <= 2000 for page in pages)
    assert "(page 1/" in pages[0] and f"(page {len(pages)}/{len(pages)})" in pages[-1]
    shown = "\n".join(pages)
    for line in StalingradGame().help().splitlines():
        assert line.replace("```", "'''") in shown, line


async def test_29_an_order_in_the_wrong_channel_links_to_the_games_thread(
        table: Table) -> None:
    """Issue 29: ann gives an order in #general: the private refusal links her game's
    thread; nothing is stored."""
    t = table
    thread = await test_discord_duel.open_game(t)
    before = served(t.h).info("duel1").head_seq
    refused = await t.h.slash(t.ann, t.fake.general, "duel pass")
    assert refused.ephemeral and f"<#{thread.id}>" in refused and "duel1" in refused, refused
    assert served(t.h).info("duel1").head_seq == before


async def test_29_a_rollback_is_previewed_and_told_as_the_orders_it_undoes(
        table: Table) -> None:
    """Issue 29: the GM's preview lists the orders and outcomes that will disappear (not
    a state diff); once confirmed, the thread is told which orders no longer stand, in
    the public's words (red's secret trap as "(secret)")."""
    t, h = table, table.h
    thread = await test_discord_duel.open_game(t)
    await h.slash(t.ann, t.fake.dm_channel(t.ann), "duel trap", cell="3")
    await h.slash(t.ann, thread, "duel move", unit="r2", cell="3")
    await h.slash(t.bob, thread, "duel pass")
    preview = await h.slash(t.gm, thread, "gm rollback", to=0, reason="a fresh start")
    assert preview.ephemeral and "- blue: pass — blue passes" in preview, preview
    assert "- red: move r2 3 — r2 moves to Mill" in preview and "->" not in preview.text
    confirm = next(i for i in preview.original.custom_ids() if i.startswith("umpire:rb:"))
    await h.click(t.gm, preview.original, confirm)
    told = _last(t)
    assert "Undone by the rollback" in told.content and "- blue: pass" in told.content
    assert "- red: (secret)" in told.content and "trap 3" not in told.content, told.content


def test_29_an_errors_legal_list_starts_near_the_target() -> None:
    """Issue 29: refused ``move pz-1 to 1812`` (Stalin's Tanks, 6.0) among 3,000 legal
    moves from hex 0101 on: the list shown (within 2,000 characters) starts with pz-1's
    moves to the hexes next to 1812, not with 0101."""
    from bot.discord import formatting as fmt

    legal = [f"move {unit} to {col:02d}{row:02d}" for unit in ("iiij-1", "pz-1", "t34-2")
             for col in range(1, 31) for row in range(1, 34) if (col, row) != (18, 12)]
    text = fmt.refusal("cannot reach 1812 facing S", "6.0",
                       fmt.nearest(legal, "move pz-1 to 1812"))
    assert len(text) <= 2000
    shown = text.split("Legal now: ", 1)[1]
    first = shown.split(" · ")[0]
    assert first.startswith("`move pz-1 to 181"), first
    assert "0101" not in shown and "move pz-1 to 1811" in shown
