"""The fake Discord itself: a minimal real discord.py client exercises every path it serves."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator

import discord
import pytest
from discord import app_commands

from tests.fakediscord import BotFailed, FakeDiscord, Harness, run_client

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
    try:
        async with run_client(fake, client, client.tree, monkeypatch, DONE) as harness:
            yield harness
    finally:
        await fake.stop()


async def test_login_gateway_and_command_sync(probe: Harness) -> None:
    fake = probe.fake
    assert probe.client.user is not None and probe.client.user.id == fake.bot.id
    assert ("GET", "/api/v10/oauth2/applications/@me") in fake.requests
    assert {c["name"] for c in fake.commands[str(fake.guild_id)]} == {"echo", "grp"}
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
    probe.errors.clear()
