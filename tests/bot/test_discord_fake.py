"""The fake Discord itself: a minimal real discord.py client exercises every path it serves."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Callable

import aiohttp
import discord
import pytest
from discord import app_commands

from tests.fakediscord import BotFailed, FakeDiscord, Harness, run_client
from tests.fakediscord.server import CommandUnavailable

DONE = "probe_done"


class Probe(discord.Client):
    """A tiny bot: a few commands touching each kind of REST call the fake supports."""

    def __init__(self, guild_id: int) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.tree: app_commands.CommandTree[Probe] = app_commands.CommandTree(self)
        self.guild_id = guild_id
        self.clicked: list[int] = []
        tree = self.tree

        @tree.command(description="say something")
        async def echo(interaction: discord.Interaction[Probe], text: str,
                       secret: bool = False) -> None:
            await interaction.response.send_message(text, ephemeral=secret)
            self.dispatch(DONE, interaction)

        @echo.autocomplete("text")
        async def echo_text(interaction: discord.Interaction[Probe],
                            current: str) -> list[app_commands.Choice[str]]:
            words = ["alpha", "beta", "gamma"]
            return [app_commands.Choice(name=w, value=w) for w in words if w.startswith(current)]

        group = app_commands.Group(name="grp", description="a group")

        @group.command(name="thread", description="open a thread and post a picture")
        async def thread(interaction: discord.Interaction[Probe], name: str) -> None:
            await interaction.response.defer(thinking=True)
            assert isinstance(interaction.channel, discord.TextChannel)
            created = await interaction.channel.create_thread(
                name=name, type=discord.ChannelType.public_thread)
            await created.send("inside", file=discord.File(io.BytesIO(b"\x89PNG"), "m.png"))
            await interaction.followup.send(f"opened {created.mention}")
            view = discord.ui.View()
            view.add_item(discord.ui.Button(label="ok", custom_id="probe:ok"))
            await created.send("press", view=view)
            user = await self.fetch_user(interaction.user.id)
            await user.send("a private word", embed=discord.Embed(title="just for you"))
            self.dispatch(DONE, interaction)

        @group.command(name="boom", description="raises")
        async def boom(interaction: discord.Interaction[Probe]) -> None:
            raise RuntimeError("kaboom")

        tree.add_command(group)
        probe = app_commands.Group(name="probe", description="requests Discord refuses")

        @probe.command(name="choices", description="offer n autocomplete choices")
        async def choices(interaction: discord.Interaction[Probe], word: str, n: int) -> None:
            await interaction.response.send_message(word)
            self.dispatch(DONE, interaction)

        @choices.autocomplete("word")
        async def many(interaction: discord.Interaction[Probe],
                       current: str) -> list[app_commands.Choice[str]]:
            n = int(getattr(interaction.namespace, "n", 1))
            return [app_commands.Choice(name=f"w{i}", value=f"w{i}") for i in range(n)]

        @probe.command(name="say", description="n characters, or n rows of buttons")
        async def say(interaction: discord.Interaction[Probe], n: int, rows: bool = False,
                      wait: float = 0.0) -> None:
            await asyncio.sleep(wait)
            if rows:
                view = discord.ui.View()
                for row in range(n):
                    view.add_item(discord.ui.Button(label="b", custom_id=f"p:{row}",
                                                    row=min(row, 4)))
                await interaction.response.send_message("rows", view=view)
            else:
                await interaction.response.send_message("x" * n)
            self.dispatch(DONE, interaction)

        @probe.command(name="post", description="post in a channel or DM the user")
        async def post(interaction: discord.Interaction[Probe], where: str,
                       later: float = 0.0, big: bool = False) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            files = [discord.File(io.BytesIO(b"\0" * (11 * 1024 * 1024)), "big.bin")] \
                if big else []
            if where == "dm":
                user = await self.fetch_user(interaction.user.id)
                await user.send("psst", files=files)
            else:
                channel = self.get_partial_messageable(int(where))
                await channel.send("hello", files=files)
            self.advance(later)
            await interaction.followup.send("posted", ephemeral=True)
            self.dispatch(DONE, interaction)

        tree.add_command(probe)
        self.advance: Callable[[float], None] = lambda seconds: None

    async def setup_hook(self) -> None:
        guild = discord.Object(self.guild_id)
        self.tree.copy_global_to(guild=guild)
        await self.tree.sync(guild=guild)

    async def on_interaction(self, interaction: discord.Interaction[Probe]) -> None:
        if interaction.type is discord.InteractionType.component:
            self.clicked.append(interaction.user.id)
            await interaction.response.edit_message(content="pressed", view=None)
            self.dispatch(DONE, interaction)


@pytest.fixture
async def probe(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Harness]:
    fake = FakeDiscord()
    await fake.start()
    client = Probe(fake.guild_id)
    client.advance = fake.advance
    try:
        async with run_client(fake, client, client.tree, monkeypatch, DONE) as harness:
            yield harness
    finally:
        await fake.stop()


async def test_login_gateway_and_command_sync(probe: Harness) -> None:
    fake = probe.fake
    assert probe.client.user is not None and probe.client.user.id == fake.bot.id
    assert ("GET", "/api/v10/oauth2/applications/@me") in fake.requests
    assert {c["name"] for c in fake.commands[str(fake.guild_id)]} == {"echo", "grp", "probe"}
    guild = probe.client.get_guild(fake.guild_id)
    assert guild is not None and guild.get_channel(fake.general.id) is not None
    assert fake.token_seen == "fake-token-not-a-secret"


async def test_replies_ephemeral_and_autocomplete(probe: Harness) -> None:
    fake = probe.fake
    ann = fake.add_user("ann")
    reply = await probe.slash(ann, fake.general, "echo", text="hello")
    assert reply.original.content == "hello" and not reply.ephemeral
    secret = await probe.slash(ann, fake.general, "echo", text="psst", secret=True)
    assert secret.ephemeral
    assert [m.content for m in fake.public_messages()] == ["hello"]
    assert await probe.autocomplete(ann, fake.general, "echo", "text", text="b") == ["beta"]


async def test_threads_files_dms_and_buttons(probe: Harness) -> None:
    fake = probe.fake
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    reply = await probe.slash(ann, fake.general, "grp thread", name="game 1")
    (thread,) = fake.threads()
    assert thread.name == "game 1" and thread.parent_id == fake.general.id
    assert "opened" in reply.text and reply.original.deferred is False
    inside = fake.channel_messages(thread)
    assert inside[0].attachments[0].data == b"\x89PNG"
    (dm,) = fake.dms_to(ann)
    assert dm.content == "a private word" and dm.embeds[0]["title"] == "just for you"
    assert fake.dms_to(bob) == []
    press = inside[1]
    clicked = await probe.click(bob, press, "probe:ok")
    assert probe.client.clicked == [bob.id]  # type: ignore[attr-defined]
    assert clicked.record.response_type == 7 and press.content == "pressed"
    assert press.history[0][0] == "press"


async def test_an_exception_in_a_command_fails_the_test(probe: Harness) -> None:
    ann = probe.fake.add_user("ann")
    with pytest.raises(BotFailed, match="kaboom"):
        await probe.slash(ann, probe.fake.general, "grp boom")
    probe.forgive()


BUTTON = {"type": 2, "style": 1, "label": "ok", "custom_id": "b"}


async def raw_post(fake: FakeDiscord, path: str, body: object) -> tuple[int, dict[str, object]]:
    """A request as any client could send it, without discord.py's own checks."""
    async with aiohttp.ClientSession() as session, session.post(
            fake.rest_base + path, json=body, headers={"Authorization": "Bot t"}) as response:
        return response.status, await response.json()


def refused(probe: Harness, code: int) -> None:
    """The probe's last request was refused with Discord's ``code``; clear it."""
    errors = probe.forgive()
    assert errors, "Discord accepted it"
    assert f"error code: {code}" in str(errors[0]), errors


async def test_requests_are_validated_against_discords_schemas_and_limits(
        probe: Harness) -> None:
    fake = probe.fake
    ann = fake.add_user("ann")
    assert (await probe.slash(ann, fake.general, "probe say", n=2000)).original.content
    with pytest.raises(BotFailed):
        await probe.slash(ann, fake.general, "probe say", n=2001)  # content over 2,000
    refused(probe, 50035)
    for components in (
            [{"type": 1, "components": [BUTTON]}] * 6,  # six rows
            [{"type": 1, "components": [BUTTON] * 6}],  # six buttons in a row
            [{"type": 1, "components": [{**BUTTON, "label": "x" * 81}]}],  # label over 80
            [{"type": 1, "components": [{"type": 3, "custom_id": "s", "options": [
                {"label": str(n), "value": str(n)} for n in range(26)]}]}]):  # 26 options
        status, body = await raw_post(fake, f"/channels/{fake.general.id}/messages",
                                      {"content": "c", "components": components})
        assert status == 400 and body["code"] == 50035, (components, body)
    status, _ = await raw_post(fake, f"/channels/{fake.general.id}/messages",
                               {"content": "c", "components": [
                                   {"type": 1, "components": [BUTTON] * 5}] * 5})
    assert status == 200
    probe.forgive()
    assert len(await probe.autocomplete(ann, fake.general, "probe choices", "word", n=25)) == 25
    with pytest.raises(AssertionError, match="would refuse"):
        await probe.autocomplete(ann, fake.general, "probe choices", "word", n=26)
    assert fake.invalid and "POST /interactions" in fake.invalid[0]
    probe.forgive()


async def test_interaction_clocks(probe: Harness) -> None:
    fake = probe.fake
    ann = fake.add_user("ann")
    fake.response_deadline = 0.2
    with pytest.raises(BotFailed):
        await probe.slash(ann, fake.general, "probe say", n=3, wait=0.4)
    refused(probe, 10062)
    assert len(fake.late) == 1
    fake.response_deadline = 3.0
    with pytest.raises(BotFailed):  # a follow-up 16 minutes later
        await probe.slash(ann, fake.general, "probe post", where=str(fake.general.id),
                          later=16 * 60)
    refused(probe, 50027)


async def test_failures_on_demand(probe: Harness) -> None:
    fake = probe.fake
    ann = fake.add_user("ann")
    fake.refuse_posts(fake.general, times=1)
    with pytest.raises(BotFailed):
        await probe.slash(ann, fake.general, "probe post", where=str(fake.general.id))
    refused(probe, 50013)
    fake.close_dms(ann)
    with pytest.raises(BotFailed):
        await probe.slash(ann, fake.general, "probe post", where="dm")
    refused(probe, 50007)
    with pytest.raises(BotFailed):
        await probe.slash(ann, fake.general, "probe post", where=str(fake.general.id),
                          big=True)
    refused(probe, 40005)
    # A rate limit: discord.py waits retry_after and sends again.
    path = f"/api/v10/channels/{fake.general.id}/messages"
    fake.rate_limit("POST", f"^{path}$", retry_after=0.3)
    before = len(fake.requests)
    await probe.slash(ann, fake.general, "probe post", where=str(fake.general.id))
    assert [r for r in fake.requests[before:] if r == ("POST", path)] == [("POST", path)] * 2
    assert fake.channel_messages(fake.general)[-1].content == "hello"


async def test_archived_threads_reopen_locked_ones_refuse(probe: Harness) -> None:
    fake = probe.fake
    ann = fake.add_user("ann")
    await probe.slash(ann, fake.general, "grp thread", name="t")
    (thread,) = fake.threads()
    fake.archive(thread)
    await probe.slash(ann, fake.general, "probe post", where=str(thread.id))
    assert not thread.archived
    fake.archive(thread, locked=True)
    with pytest.raises(BotFailed):
        await probe.slash(ann, fake.general, "probe post", where=str(thread.id))
    refused(probe, 50083)


async def test_command_scopes(probe: Harness) -> None:
    fake = probe.fake
    ann = fake.add_user("ann")
    with pytest.raises(CommandUnavailable, match="no /echo in a DM"):  # a guild command
        await probe.slash(ann, fake.dm_channel(ann), "echo", text="hi")
    with pytest.raises(CommandUnavailable, match="needs"):  # required options
        await probe.slash(ann, fake.general, "echo")
