"""Where real Discord differs from a friendly fake: each defect found running the bot on a
real server, pinned end to end through the strict fake Discord.

Secret commands in DMs (global commands only), an applied order never reported as failed
(acknowledge first, publish after), failed DMs told in the thread, slow commands that defer
within three seconds, pings only when whoever must act changes, autocomplete values that are
never cut, the ``game`` option's autocomplete, week-long threads, private errors of
``/game new``, expiring rollback previews, ``/help``, open games, leaving and resigning.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adjudicator.kernel.views import View
from bot.discord.app import command_payloads, create_bot
from bot.discord.core import BotConfig, UmpireBot
from bot.service import GameService
from bot.store import Store
from tests.bot.duel_variants import DETOUR, ROUTES_GAME
from tests.bot.test_discord_duel import DUEL, Table, last_public, png_of
from tests.fakediscord import Channel, FakeDiscord, Message, run_umpire
from tests.fakediscord.server import CommandUnavailable
from tests.waiting import until_async


@pytest.fixture
async def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Table]:
    fake = FakeDiscord()
    gm = fake.add_user("gm", roles=("Umpire GM",))
    ann, bob, eve = fake.add_user("ann"), fake.add_user("bob"), fake.add_user("eve")
    fake.permit("gm", "Umpire GM")
    async with run_umpire(fake, tmp_path / "umpire.db", monkeypatch,
                          seed_source=lambda n: bytes(range(n)),
                          extra_games=[DUEL, ROUTES_GAME],
                          game_ids=["g1", "g2", "g3"]) as harness:
        yield Table(harness, fake, gm, ann, bob, eve)


async def new_game(t: Table, game: str = DUEL, trap: str | None = "1",
                   **options: object) -> Channel:
    """A started Duel (or variant) in a new thread: ann red, bob blue, the trap placed."""
    before = set(c.id for c in t.fake.threads())
    await t.h.slash(t.gm, t.fake.general, "game new", game=game, **options)
    (thread,) = [c for c in t.fake.threads() if c.id not in before]
    t.thread = thread
    await t.h.slash(t.ann, thread, "game join", side="red")
    await t.h.slash(t.bob, thread, "game join", side="blue")
    await t.h.slash(t.gm, thread, "game start")
    if trap is not None:
        group = "routes-duel" if game == ROUTES_GAME else "duel"
        placed = await t.h.slash(t.ann, t.fake.dm_channel(t.ann), f"{group} trap", cell=trap)
        assert "Applied" in placed, placed
    return thread


# ---- secret commands exist where the bot asks for them: in the DM --------------------------


async def test_secret_orders_are_global_commands_usable_in_a_dm(table: Table) -> None:
    t, h, fake = table, table.h, table.fake
    thread = await new_game(t, trap=None)
    dm = fake.dm_channel(t.ann)
    prompt = next(m for m in fake.dms_to(t.ann) if "secret placement" in m.content)
    assert "/duel trap" in prompt.content
    placed = await h.slash(t.ann, dm, "duel trap", cell="Mill")  # a global command, in a DM
    assert "Applied: `trap 3`" in placed
    assert "trap" not in " ".join(m.content for m in fake.channel_messages(thread)
                                  if "red sets" in m.content)
    with pytest.raises(CommandUnavailable, match="no /gm in a DM"):
        await h.slash(t.gm, dm, "gm reveal-seed")  # the server's tools stay in the server


# ---- acknowledge first: a stored action is never reported as failed ------------------------


async def test_a_refused_thread_post_never_turns_a_stored_order_into_a_failure(
        table: Table) -> None:
    t, h, fake = table, table.h, table.fake
    thread = await new_game(t)
    await h.slash(t.ann, thread, "duel move", unit="r2", cell="3")
    await h.slash(t.bob, thread, "duel pass")
    await h.slash(t.gm, thread, "gm roll", values="6 6", reason="a sure hit")
    fake.refuse_posts(thread)  # an admin took "Send Messages in Threads" away
    attack = await h.slash(t.ann, thread, "duel attack", unit="r2", cell="4")
    assert "Applied: `attack r2 4`" in attack and "went wrong" not in attack.text
    assert "stored" in attack and "permission" in attack.text
    # The owing player still gets the decision with its buttons, by DM.
    decision = [m for m in fake.dms_to(t.bob) if m.custom_ids()]
    assert decision and "yield or lose" in decision[-1].content
    fake.failures.clear()
    status = await h.slash(t.gm, thread, "game status")
    assert "To act: blue" in status  # stored once: the decision is owed


# ---- failed DMs are told in the thread -------------------------------------------------


async def test_a_player_with_closed_dms_is_told_in_the_thread(table: Table) -> None:
    t, h, fake = table, table.h, table.fake
    fake.close_dms(t.ann)
    thread = await new_game(t, trap=None)
    told = [m for m in fake.channel_messages(thread) if "open your DMs" in m.content.lower()
            or "Open your DMs" in m.content]
    assert len(told) == 1 and f"<@{t.ann.id}>" in told[0].content
    assert "secret" in told[0].content
    await h.slash(t.gm, thread, "gm roll", values="1", reason="again")  # more DMs fail...
    assert len([m for m in fake.channel_messages(thread)
                if "Open your DMs" in m.content]) == 1  # ...but the thread is told once


# ---- slow commands defer at once -------------------------------------------------------


async def test_a_slow_map_is_deferred_within_discords_three_seconds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeDiscord()
    fake.response_deadline = 0.3  # Discord's 3 seconds, scaled to the test's pictures

    def slow(view: View, pack: object = None, /) -> bytes:
        time.sleep(0.6)  # a first render, with static layers still to build
        return png_of(view)

    gm, ann, bob = fake.add_user("gm"), fake.add_user("ann"), fake.add_user("bob")
    async with run_umpire(fake, tmp_path / "umpire.db", monkeypatch, renderer=slow,
                          extra_games=[DUEL], game_ids=["g1"], warm_pictures=False) as h:
        t = Table(h, fake, gm, ann, bob, fake.add_user("eve"))
        thread = await new_game(t)
        shown = await h.slash(bob, thread, "game map")
        assert shown.public and shown.public[0].attachments
        private = await h.slash(ann, thread, "game map", private=True)
        assert private.ephemeral and private.original.attachments
    assert fake.late == []


async def test_static_map_layers_are_built_at_start_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str] = []

    def record(view: View, pack: object = None, /) -> bytes:
        drawn.append(view.game)
        return png_of(view)

    fake = FakeDiscord()
    async with run_umpire(fake, tmp_path / "umpire.db", monkeypatch, renderer=record):
        await until_async(lambda: {"stalingrad", "tanks"} <= set(drawn),
                          "both games' static map layers to be drawn")
    assert {"stalingrad", "tanks"} <= set(drawn)


# ---- noise: pings when whoever must act changes; pictures as the game says -------------------


async def test_players_are_pinged_only_when_the_side_to_act_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeDiscord()
    gm, gerd, sasha = fake.add_user("gm", admin=True), fake.add_user("gerd"), \
        fake.add_user("sasha")
    async with run_umpire(fake, tmp_path / "umpire.db", monkeypatch, renderer=png_of,
                          seed_source=lambda n: b"\x07" * n, game_ids=["tanks1"]) as h:
        await h.slash(gm, fake.general, "game new", game="tanks", scenario="pakfront",
                      pictures="turn")
        (thread,) = fake.threads()
        await h.slash(gerd, thread, "game join", side="german")
        await h.slash(sasha, thread, "game join", side="soviet")
        await h.slash(gm, thread, "game start")
        gerd_dm = fake.dm_channel(gerd)
        for unit, where in (("pak75-1", "0101"), ("pak75-2", "0102"), ("flak88-1", "0103")):
            await h.slash(gerd, gerd_dm, "tanks hide", unit=unit, hex=where)
        for number, unit in enumerate(["flak88-2", "pak88-1", "pak88-2",
                                       *(f"infde-{n}" for n in range(1, 10))], start=4):
            await h.slash(gerd, thread, "tanks place", unit=unit, hex=f"01{number:02d}")
        await h.slash(gerd, thread, "tanks done")

        def posts() -> list[Message]:
            return [m for m in fake.channel_messages(thread) if m.source == "channel"]

        first = len(posts())
        for index, unit in enumerate(["t34a-1", "t34a-2", "t34b-1", "t34b-2"], start=1):
            await h.slash(sasha, thread, "tanks move", unit=unit, steps=f"{index:02d}01")
        moves = posts()[first:]
    assert len(moves) == 4
    assert f"<@{sasha.id}>" not in " ".join(m.content for m in moves)  # still sasha's turn
    assert sum(bool(m.attachments) for m in moves) == 0  # "turn": no picture per move
    pinged = [m for m in posts() if f"<@{sasha.id}>" in m.content and "To act" in m.content]
    assert len(pinged) == 1  # once, when the Soviet player's turn began


# ---- autocomplete never cuts an order -----------------------------------------------------


async def test_long_options_are_offered_by_key_and_submitted_whole(table: Table) -> None:
    t, h = table, table.h
    thread = await new_game(t, ROUTES_GAME)
    await h.slash(t.ann, thread, "routes-duel move", unit="r2", cell="3")
    await h.slash(t.bob, thread, "routes-duel pass")
    await h.slash(t.gm, thread, "gm roll", values="6 6", reason="a sure hit")
    await h.slash(t.ann, thread, "routes-duel attack", unit="r2", cell="4")
    offered = await h.choices(t.bob, thread, "decide", "answer", answer="wood")
    assert len(offered) == 1 and len(offered[0]["name"]) <= 100
    assert len(str(offered[0]["value"])) <= 20
    chosen = await h.slash(t.bob, thread, "decide", answer=offered[0]["value"])
    whole = " ".join(["route", *DETOUR, "wood"])
    assert len(whole) > 100 and f"Applied: `{whole}`" in chosen
    # /order: a legal order too long for a choice is offered by its key as well.
    await h.slash(t.bob, thread, "routes-duel pass")
    orders = await h.choices(t.ann, thread, "order", "text", text="move r2")
    assert orders and all(len(str(c["value"])) <= 100 for c in orders)
    moved = await h.slash(t.ann, thread, "order", text=str(orders[0]["value"]))
    assert "Applied" in moved


# ---- the game option --------------------------------------------------------------------


async def test_the_game_option_autocompletes_the_users_games(table: Table) -> None:
    t, h, fake = table, table.h, table.fake
    first = await new_game(t)
    await new_game(t, trap=None)
    dm = fake.dm_channel(t.ann)
    games = await h.choices(t.ann, dm, "duel trap", "game")
    assert [c["value"] for c in games] == ["g2", "g1"] or \
        sorted(c["value"] for c in games) == ["g1", "g2"]
    assert all("duel" in c["name"] for c in games)
    several = await h.slash(t.ann, dm, "duel trap", cell="2")
    assert several.ephemeral and "several games" in several
    placed = await h.slash(t.ann, dm, "duel trap", cell="2", game="g2")
    assert "Applied: `trap 2`" in placed
    here = await h.choices(t.ann, first, "game status", "game")
    assert here[0]["value"] == "g1"  # the thread's own game first
    unknown = await h.slash(t.ann, dm, "game status", game="nope")
    assert unknown.ephemeral and "no game" in unknown


# ---- smaller ------------------------------------------------------------------------------


def test_production_has_no_test_game_commands_and_passes_discords_limits(
        tmp_path: Path) -> None:
    store = Store(tmp_path / "u.db")
    try:
        bot = create_bot(GameService(store), BotConfig(guild_id=1))
        scopes = command_payloads(bot)
    finally:
        store.close()
    names = {c["name"] for commands in scopes.values() for c in commands}
    assert names == {"game", "order", "decide", "help", "stalingrad", "tanks", "gm"}
    assert "trap" not in str(scopes)
    (gm,) = scopes["1"]
    assert int(gm["default_member_permissions"]) == 1 << 34
    assert all(c["contexts"] == [0, 1] for c in scopes["global"])


async def test_threads_stay_open_a_week_and_new_game_errors_are_private(table: Table) -> None:
    t, h, fake = table, table.h, table.fake
    bad = await h.slash(t.gm, fake.general, "game new", game="tanks", scenario="nowhere")
    assert bad.ephemeral and "unknown scenario" in bad and not fake.threads()
    thread = await new_game(t)
    assert thread.auto_archive_duration == 10080
    fake.archive(thread)  # a quiet week later: a new post reopens it
    await h.slash(t.ann, thread, "duel pass")
    assert not thread.archived and "red passes" in last_public(t).content


async def test_rollback_previews_expire(table: Table) -> None:
    t, h = table, table.h
    thread = await new_game(t)
    await h.slash(t.ann, thread, "duel pass")
    preview = await h.slash(t.gm, thread, "gm rollback", to=1, reason="oops")
    assert "Confirm within 15 minutes" in preview
    bot = h.client
    assert isinstance(bot, UmpireBot)
    made = bot.rollbacks.clock()
    bot.rollbacks.clock = lambda: made + 16 * 60
    confirm = await h.click(t.gm, preview.original, preview.original.custom_ids()[0])
    assert confirm.ephemeral and "expired" in confirm
    assert len(bot.rollbacks) == 0


async def test_help_open_games_leave_and_resign(table: Table) -> None:
    t, h, fake = table, table.h, table.fake
    overview = await h.slash(t.eve, fake.dm_channel(t.eve), "help")
    assert overview.ephemeral and "/game new" in overview and "/stalingrad" in overview
    verb = await h.slash(t.eve, fake.general, "help", topic="tanks fire")
    assert "fire UNIT[+UNIT] [at] UNIT [at|ap|he]" in verb and "15.2" in verb
    assert "stalingrad move" in await h.autocomplete(t.eve, fake.general, "help", "topic",
                                                       topic="stalingrad mo")
    await h.slash(t.gm, fake.general, "game new", game=DUEL)
    (thread,) = fake.threads()
    t.thread = thread
    await h.slash(t.ann, thread, "game join", side="red")
    listed = await h.slash(t.eve, fake.general, "game open")
    assert "g1" in listed and "free: blue" in listed
    left = await h.slash(t.ann, thread, "game leave")
    assert "left the game" in left and "red: (free)" in left
    assert "free: red, blue" in await h.slash(t.eve, fake.general, "game open")
    await h.slash(t.ann, thread, "game join", side="red")
    await h.slash(t.bob, thread, "game join", side="blue")
    await h.slash(t.gm, thread, "game start")
    stay = await h.slash(t.ann, thread, "game leave")
    assert stay.ephemeral and "/game resign" in stay
    kept = await h.slash(t.bob, thread, "game resign", confirm=False)
    assert kept.ephemeral and "nothing done" in kept
    resigned = await h.slash(t.bob, thread, "game resign", confirm=True)
    assert "Applied: `resign`" in resigned
    assert "blue resigns; red wins" in last_public(t).content
    assert "No game on this server" in await h.slash(t.eve, fake.general, "game open")


async def test_guild_less_bot_registers_gm_globally_for_servers_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeDiscord()
    admin = fake.add_user("admin", admin=True)
    async with run_umpire(fake, tmp_path / "umpire.db", monkeypatch, guild_id=None) as h:
        assert str(fake.guild_id) not in fake.commands
        gm = next(c for c in fake.commands["global"] if c["name"] == "gm")
        assert gm["contexts"] == [0]
        with pytest.raises(CommandUnavailable):
            await h.slash(admin, fake.dm_channel(admin), "gm reveal-seed")
        refused = await h.slash(admin, fake.general, "gm reveal-seed")
        assert refused.ephemeral and "thread" in refused

