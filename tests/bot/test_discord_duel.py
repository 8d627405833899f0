"""End to end through the fake Discord: two players and a GM play Duel to a result.

Duel (tests/kernel/duel.py) has what the bot must get right: a secret (red's trap, placed
in a DM), a pending decision answered with buttons, standing orders, GM dice and a
rollback. Every message the bot posts is recorded; the last test scans them all.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import PIL.Image
import PIL.PngImagePlugin
import pytest

from adjudicator.kernel.views import View
from bot.discord.publish import Renderer
from tests.fakediscord import Channel, FakeDiscord, Harness, Message, User, run_umpire
from tests.fakediscord.server import CommandUnavailable

DUEL = "tests.kernel.duel:DuelGame"


@dataclass
class Table:
    h: Harness
    fake: FakeDiscord
    gm: User
    ann: User  # red
    bob: User  # blue
    eve: User  # a bystander
    thread: Channel | None = None

    @property
    def game_thread(self) -> Channel:
        assert self.thread is not None
        return self.thread


@pytest.fixture
async def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Table]:
    fake = FakeDiscord()
    gm = fake.add_user("gm", roles=("Umpire GM",))
    ann, bob, eve = fake.add_user("ann"), fake.add_user("bob"), fake.add_user("eve")
    fake.permit("gm", "Umpire GM")  # the server's admin lets the GM role use /gm
    async with run_umpire(fake, tmp_path / "umpire.db", monkeypatch,
                          seed_source=lambda n: bytes(range(n)), extra_games=[DUEL],
                          game_ids=["duel1", "duel2"]) as harness:
        yield Table(harness, fake, gm, ann, bob, eve)


@contextlib.asynccontextmanager
async def drawn_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      renderer: Renderer) -> AsyncIterator[Table]:
    """A GM, ann, bob and eve on a fake server whose bot draws with ``renderer`` (one
    game, ``duel1``; the players may open it with :func:`open_game`)."""
    fake = FakeDiscord()
    gm, ann, bob = fake.add_user("gm"), fake.add_user("ann"), fake.add_user("bob")
    async with run_umpire(fake, tmp_path / "umpire.db", monkeypatch, renderer=renderer,
                          extra_games=[DUEL], game_ids=["duel1"]) as h:
        yield Table(h, fake, gm, ann, bob, fake.add_user("eve"))


async def open_game(t: Table) -> Channel:
    reply = await t.h.slash(t.gm, t.fake.general, "game new", game=DUEL)
    assert reply.ephemeral and "duel1" in reply  # errors would have been private too
    assert "duel1" in t.fake.channel_messages(t.fake.general)[-1].content
    (thread,) = t.fake.threads()
    t.thread = thread
    assert "[duel1]" in thread.name
    assert "red" in (await t.h.slash(t.ann, thread, "game join", side="red"))
    assert "blue" in (await t.h.slash(t.bob, thread, "game join", side="blue"))
    started = await t.h.slash(t.gm, thread, "game start")
    assert "commitment" in started and "commitment" in started.public[0].content
    return thread


def last_public(t: Table) -> Message:
    return t.fake.channel_messages(t.game_thread)[-1]


async def test_dm_commands_are_global_and_gm_tools_are_the_servers(table: Table) -> None:
    fake = table.fake
    everywhere = {c["name"]: c for c in fake.commands["global"]}
    assert set(everywhere) == {"game", "order", "decide", "help", "duel", "stalingrad", "tanks"}
    assert all(c["contexts"] == [0, 1] for c in everywhere.values())  # server and bot DM
    assert [c["name"] for c in fake.commands[str(fake.guild_id)]] == ["gm"]
    gm = fake.commands[str(fake.guild_id)][0]
    assert int(gm["default_member_permissions"]) == 1 << 34  # Manage Threads
    duel = table.fake.command("duel")
    assert {o["name"] for o in duel["options"]} == {"move", "attack", "pass", "trap", "decide"}


async def test_game_played_to_a_result(table: Table) -> None:
    t, h, fake = table, table.h, table.fake
    thread = await open_game(t)
    ann_dm, bob_dm = fake.dm_channel(t.ann), fake.dm_channel(t.bob)

    # Red's secret placement is due: Umpire says so in a DM.
    assert any("secret placement is due" in m.content for m in fake.dms_to(t.ann))
    # In the thread the secret order is refused without reading or echoing it.
    refused = await h.slash(t.ann, thread, "duel trap", cell="Mill")
    assert refused.ephemeral and "only in a direct message" in refused
    assert "Mill" not in refused.text
    placed = await h.slash(t.ann, ann_dm, "duel trap", cell="Mill")
    assert "trap 3" in placed
    assert "red has placed a trap" in last_public(t).content
    assert any("sets the trap in Mill" in m.content for m in fake.dms_to(t.ann))

    await h.slash(t.ann, thread, "duel pass")
    # Autocomplete offers blue's units and their legal destinations, from partial names.
    assert await h.autocomplete(t.bob, thread, "duel move", "unit") == ["b1", "b2"]
    assert await h.autocomplete(t.bob, thread, "duel move", "cell", unit="b2") == ["3", "5"]
    assert await h.autocomplete(t.bob, thread, "duel move", "cell", unit="b2", cell="mi") == ["3"]
    assert await h.autocomplete(t.bob, thread, "duel move", "unit", unit="1") == ["b1"]
    assert await h.autocomplete(t.ann, thread, "duel move", "unit") == []  # not red's turn

    # The GM sets the next die; blue walks into the trap and loses b2.
    gm_roll = await h.slash(t.gm, thread, "gm roll", values="5", reason="test the trap")
    assert gm_roll.ephemeral
    assert "set by the GM" in last_public(t).content and "5" not in last_public(t).content
    await h.slash(t.bob, thread, "duel move", unit="b2", cell="3")
    sprung = last_public(t)
    assert "springs on b2: eliminated" in sprung.content

    await h.slash(t.ann, thread, "duel move", unit="r2", cell="Mill")
    # An illegal order: ephemeral, with the rule and the legal orders.
    bad = await h.slash(t.bob, thread, "duel move", unit="b1", cell="1")
    assert bad.ephemeral and "rule D2" in bad and "Legal now: `move b1 4`" in bad
    await h.slash(t.bob, thread, "duel pass")

    # The GM rolls that pass back, after a preview, with a public notice.
    before = len(fake.channel_messages(thread))
    preview = await h.slash(t.gm, thread, "gm rollback", to=5, reason="blue misclicked")
    assert preview.ephemeral and "Preview" in preview and "pass" in preview
    confirm = next(i for i in preview.original.custom_ids() if i.startswith("umpire:rb:"))
    stranger = await h.click(t.eve, preview.original, confirm)
    assert stranger.ephemeral and "Only the GM" in stranger
    await h.click(t.gm, preview.original, confirm)
    notice = fake.channel_messages(thread)[before:]
    assert any("rolled the game back to" in m.content and "(1 order(s) undone)" in m.content
               for m in notice), [m.content for m in notice]
    # the post of the pass it undid is marked (issue 29)
    undone = [m for m in fake.channel_messages(thread)[:before] if m.history]
    assert len(undone) == 1 and undone[0].content.startswith("*(undone by the GM)*")
    assert "pass" in undone[0].history[-1][0]
    assert "Rolled back" in preview.original.content

    await h.slash(t.bob, thread, "order", text="pass")
    await h.slash(t.ann, thread, "duel move", unit="r2", cell="4")
    await h.slash(t.bob, thread, "duel pass")
    await h.slash(t.gm, thread, "gm roll", values="6 6", reason="a sure hit")
    await h.slash(t.ann, thread, "duel attack", unit="r2", cell="5")

    # Blue owes a decision: the thread names blue's player and carries a Choose button.
    prompt = last_public(t)
    assert f"<@{t.bob.id}>" in prompt.content and "waiting for blue" in prompt.content
    (choose,) = prompt.custom_ids()
    wrong = await h.click(t.ann, prompt, choose)
    assert wrong.ephemeral and "Only" in wrong and "decide" not in wrong.text.replace(
        "decision", "")
    options = await h.click(t.bob, prompt, choose)
    assert options.ephemeral and "decide lose" in options
    # Bob also got the option buttons in a DM; Ann cannot use them.
    dm_prompt = next(m for m in fake.dms_to(t.bob) if m.custom_ids())
    (lose,) = dm_prompt.custom_ids()
    assert dm_prompt.channel_id == bob_dm.id
    refused_click = await h.click(t.ann, dm_prompt, lose)
    assert refused_click.ephemeral and "Only" in refused_click
    await h.click(t.bob, dm_prompt, lose)
    assert "Answered" in dm_prompt.content and dm_prompt.components == []
    assert "Game over: red wins" in last_public(t).content

    # After the end: the seed is revealed and every roll verified; anyone may export.
    dice = await h.slash(t.eve, thread, "game dice")
    assert "every roll verified" in dice and "Seed:" in dice
    record = await h.slash(t.bob, thread, "game export")
    assert record.ephemeral and record.original.attachments[0].filename == "umpire-duel1.jsonl"
    stale = await h.click(t.bob, options.original, options.original.custom_ids()[0])
    assert stale.ephemeral and "no longer open" in stale

    assert_no_secret_leaked(t)


def assert_no_secret_leaked(t: Table) -> None:
    """No public message (any version) and no DM to blue names the trap before it springs."""
    public = t.fake.public_messages()
    springs = next(i for i, m in enumerate(public) if "springs" in m.content)
    for message in public[:springs]:
        for text in message.texts():
            assert "Mill" not in text and "trap 3" not in text, text
    for message in t.fake.dms_to(t.bob):
        if "springs" in message.content:
            break
        assert "Mill" not in " ".join(message.texts())
    for message in t.fake.messages.values():
        if message.channel_id == t.game_thread.id and not message.ephemeral:
            assert message.source != "dm"


async def test_views_maps_and_standing_orders(table: Table) -> None:
    t, h, fake = table, table.h, table.fake
    thread = await open_game(t)
    await h.slash(t.ann, fake.dm_channel(t.ann), "duel trap", cell="3")
    mine = await h.slash(t.ann, thread, "game map", private=True)
    assert mine.ephemeral and "[trap]" in mine
    theirs = await h.slash(t.bob, thread, "game map", private=True)
    assert "[trap]" not in theirs.text
    public = await h.slash(t.eve, thread, "game map")
    assert "[trap]" not in public.text and "public view" in public.public[0].content

    # A standing order is private: no public message, a DM-free ephemeral ack.
    count = len(fake.public_messages())
    assert await h.autocomplete(t.bob, thread, "game standing", "kind") == ["casualty"]
    ack = await h.slash(t.bob, thread, "game standing", kind="casualty", policy="lose")
    assert ack.ephemeral and "standing casualty lose" in ack
    assert len(fake.public_messages()) == count

    # Red moves and may take it back (no dice, nothing revealed); blue may not undo it.
    await h.slash(t.ann, thread, "duel move", unit="r2", cell="3")
    refused = await h.slash(t.bob, thread, "game undo")
    assert refused.ephemeral and "cannot undo" in refused
    undone = await h.slash(t.ann, thread, "game undo")
    assert undone.ephemeral
    assert "red takes back" in last_public(t).content

    # The standing order answers blue's casualty decision at once: no prompt, no buttons.
    await h.slash(t.ann, thread, "duel move", unit="r2", cell="3")
    await h.slash(t.bob, thread, "duel pass")
    await h.slash(t.gm, thread, "gm roll", values="6 6", reason="hit")
    await h.slash(t.ann, thread, "duel attack", unit="r2", cell="4")
    after = last_public(t)
    assert after.custom_ids() == [] and "b2 is eliminated" in after.content
    log = await h.slash(t.eve, thread, "game log", last=3)
    assert log.ephemeral and "b2 is eliminated" in log


async def test_permissions_and_places(table: Table) -> None:
    t, h, fake = table, table.h, table.fake
    outside = await h.slash(t.ann, fake.general, "duel pass")
    assert outside.ephemeral and "game's thread" in outside
    thread = await open_game(t)
    with pytest.raises(CommandUnavailable, match="hidden from eve"):
        await h.slash(t.eve, thread, "gm reveal-seed")  # Discord shows /gm to moderators
    fake.permit("gm", "Moderator")
    fake.give_role(t.eve, "Moderator")  # sees /gm, but is no GM of this game
    stranger = await h.slash(t.eve, thread, "gm reveal-seed")
    assert stranger.ephemeral and "only a GM" in stranger
    rolled = await h.slash(t.eve, thread, "gm roll", values="6", reason="x")
    assert rolled.ephemeral and "only a GM" in rolled
    seed = await h.slash(t.gm, thread, "gm reveal-seed")  # nobody sees it before the end
    assert seed.ephemeral and "secret until the game is over" in seed
    secret = await h.slash(t.ann, thread, "order", text="trap 2")
    assert secret.ephemeral and "only in a direct message" in secret
    early = await h.slash(t.bob, thread, "duel pass")
    assert early.ephemeral and "turn" in early
    export = await h.slash(t.ann, thread, "game export")
    assert export.ephemeral and "when the game is over" in export
    fake.give_role(t.eve, "Umpire GM")
    by_role = await h.slash(t.eve, thread, "gm reveal-seed")
    assert "only a GM" not in by_role and "secret until the game is over" in by_role


def png_of(view: View) -> bytes:
    """A stand-in renderer: a valid PNG that records which viewer it was drawn for."""
    image = PIL.Image.new("RGB", (8, 8), "white")
    info = PIL.PngImagePlugin.PngInfo()
    info.add_text("viewer", view.viewer)
    info.add_text("trap", str(getattr(view, "trap", None)))
    out = io.BytesIO()
    image.save(out, format="PNG", pnginfo=info)
    return out.getvalue()


def drawn_for(data: bytes) -> tuple[str, str]:
    image = PIL.Image.open(io.BytesIO(data))
    image.verify()
    text = PIL.Image.open(io.BytesIO(data)).text  # type: ignore[attr-defined]
    return text["viewer"], text["trap"]


async def test_pictures_are_drawn_from_each_audiences_view(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeDiscord()
    gm, ann, bob = fake.add_user("gm"), fake.add_user("ann"), fake.add_user("bob")
    async with run_umpire(fake, tmp_path / "umpire.db", monkeypatch, renderer=png_of,
                          extra_games=[DUEL], game_ids=["duel1"]) as h:
        t = Table(h, fake, gm, ann, bob, fake.add_user("eve"))
        thread = await open_game(t)
        await h.slash(ann, fake.dm_channel(ann), "duel trap", cell="2")
        await h.slash(ann, thread, "duel move", unit="r1", cell="2")
        await h.slash(bob, thread, "game map")
        mine = await h.slash(ann, thread, "game map", private=True)
        assert mine.ephemeral and drawn_for(mine.original.attachments[0].data) == (
            "red", "2")
    public = [a for m in fake.public_messages() for a in m.all_attachments()]
    # the public board's stand-in picture is the same after every order: posted once
    # (issue 29: no map identical to the one before)
    assert len(public) >= 1
    assert {drawn_for(a.data) for a in public} == {("public", "None")}
    private = [a for m in fake.dms_to(ann) for a in m.all_attachments()]
    # red's own action was told in her acknowledgement (issue 29: a DM only for what she
    # did not know); any picture she is sent is of red's view
    assert {drawn_for(a.data) for a in private} <= {("red", "2")}
    assert not [a for m in fake.dms_to(bob) for a in m.all_attachments()
                if drawn_for(a.data)[0] != "blue"]
