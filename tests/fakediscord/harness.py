"""Run a real discord.py client against :class:`FakeDiscord` and act as its users.

The client under test must dispatch a ``done_event`` (default
``"umpire_interaction_done"``) with the interaction when it has finished handling one;
:meth:`Harness.slash` and :meth:`Harness.click` wait for it, so a test reads a complete
record. Every exception that reaches ``tree.on_error`` (or the client's error hook) is
collected and fails the next step.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
import pytest
import yarl
from discord import app_commands

from bot.discord.app import create_bot
from bot.discord.core import BotConfig
from bot.discord.errors import Refusal
from bot.discord.publish import Renderer
from bot.service import GameService, ServiceError
from bot.store import Store
from tests.fakediscord.server import Channel, FakeDiscord, InteractionRecord, Message, User
from tests.waiting import GENEROUS

TOKEN = "fake-token-not-a-secret"


class BotFailed(AssertionError):
    """The bot raised an unexpected exception while handling an interaction."""


@dataclass
class Reply:
    """What the bot answered to one interaction."""

    record: InteractionRecord

    @property
    def messages(self) -> list[Message]:
        return self.record.messages()

    @property
    def original(self) -> Message:
        assert self.record.original is not None, "the bot sent no response"
        return self.record.original

    @property
    def ephemeral(self) -> bool:
        return self.original.ephemeral

    @property
    def text(self) -> str:
        return "\n".join(text for message in self.messages for text in message.texts())

    @property
    def public(self) -> list[Message]:
        return [m for m in self.messages if not m.ephemeral]

    def __repr__(self) -> str:
        kind = "ephemeral" if self.record.original and self.ephemeral else "public"
        return f"<Reply {kind}: {self.text!r}>"

    def __contains__(self, needle: str) -> bool:
        return needle.lower() in self.text.lower()


class Harness:
    def __init__(self, fake: FakeDiscord, client: discord.Client,
                 tree: app_commands.CommandTree[Any],
                 done_event: str = "umpire_interaction_done",
                 expected: tuple[type[BaseException], ...] = ()) -> None:
        self.fake = fake
        #: Errors the client reports to users by design (refusals): not failures.
        self.expected = expected
        self.client = client
        self.tree = tree
        self.done_event = done_event
        self.errors: list[BaseException] = []
        self.timeout = GENEROUS
        self._failed = asyncio.Event()
        #: The game service the bot runs on (set by :func:`run_umpire`): what a test
        #: arranges or checks behind the bot's back (the bot itself sees only its port).
        self.service: GameService | None = None

    def check(self) -> None:
        if self.errors:
            first = self.errors[0]
            raise BotFailed(f"the bot raised {first!r}") from first
        if self.fake.unhandled:
            raise AssertionError(f"the bot called routes the fake does not know: "
                                 f"{self.fake.unhandled}")
        if self.fake.invalid:
            raise AssertionError(f"Discord would refuse what the bot sent: {self.fake.invalid}")

    def forgive(self) -> list[BaseException]:
        """The errors recorded so far (and what Discord refused), cleared: for tests that
        make the client fail on purpose."""
        errors, self.errors = self.errors, []
        self.fake.invalid.clear()
        self._failed.clear()
        return errors

    def record_error(self, error: BaseException) -> None:
        if isinstance(getattr(error, "original", error), self.expected):
            return
        self.errors.append(error)
        self._failed.set()

    async def _run(self, type_: int, user: User, channel: Channel, data: dict[str, Any],
                   message: Message | None = None, wait_done: bool = True) -> Reply:
        self.check()
        iid = self.fake.new_id()
        waiters: set[asyncio.Future[Any]] = {asyncio.ensure_future(self._failed.wait())}
        if wait_done:  # registered before the interaction is sent, so it cannot be missed
            waiters.add(asyncio.ensure_future(self.client.wait_for(
                self.done_event, check=lambda interaction: interaction.id == iid)))
        record = await self.fake.interact(type_, user, channel, data, message, iid=iid)
        if not wait_done:
            waiters.add(asyncio.ensure_future(record.responded.wait()))
        try:
            finished, _ = await asyncio.wait(waiters, timeout=self.timeout,
                                             return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
        self.check()
        if not finished:
            raise AssertionError(f"the bot did not finish interaction {data} "
                                 f"within {self.timeout}s")
        return Reply(record)

    async def slash(self, user: User, channel: Channel, path: str, **options: Any) -> Reply:
        """Invoke ``/path`` (e.g. ``"game new"``) as ``user`` in ``channel``."""
        data = self.fake.command_data(path, options, channel, user)
        return await self._run(2, user, channel, data)

    async def open_game(self, gm: User, game: str, scenario: str,
                        seats: dict[str, User]) -> tuple[Channel, Reply]:
        """``/game new`` in #general, each player's ``/game join`` of its side in the game's
        thread, then ``/game start``: the thread and the start's reply."""
        before = {c.id for c in self.fake.threads()}
        await self.slash(gm, self.fake.general, "game new", game=game, scenario=scenario)
        (thread,) = [c for c in self.fake.threads() if c.id not in before]
        for side, player in seats.items():
            await self.slash(player, thread, "game join", side=side)
        return thread, await self.slash(gm, thread, "game start")

    async def autocomplete(self, user: User, channel: Channel, path: str, focused: str,
                           **options: Any) -> list[str]:
        """The values of the choices the bot offers while ``user`` types ``focused``."""
        choices = await self.choices(user, channel, path, focused, **options)
        return [str(choice["value"]) for choice in choices]

    async def choices(self, user: User, channel: Channel, path: str, focused: str,
                      **options: Any) -> list[dict[str, Any]]:
        """The choices (name and value) the bot offers while ``user`` types ``focused``."""
        options.setdefault(focused, "")
        data = self.fake.command_data(path, options, channel, user, focused=focused)
        reply = await self._run(4, user, channel, data, wait_done=False)
        assert reply.record.response_type == 8, reply.record.response_type
        return reply.record.choices

    async def submit_modal(self, user: User, channel: Channel, shown: Reply,
                           *values: str) -> Reply:
        """Fill the modal the bot answered ``shown`` with (one value per text input, in
        order) and submit it as ``user``."""
        assert shown.record.response_type == 9, "the bot showed no modal"
        modal = shown.record.response_data
        inputs: list[dict[str, Any]] = []
        for row in modal.get("components", []):
            inputs.extend(row.get("components", []) if row.get("type") == 1
                          else [row.get("component", row)])
        inputs = [item for item in inputs if item.get("type") == 4]
        assert len(inputs) == len(values), (inputs, values)
        rows = [{"type": 1, "components": [{"type": 4, "custom_id": item["custom_id"],
                                           "value": value}]}
                for item, value in zip(inputs, values, strict=True)]
        data = {"custom_id": modal["custom_id"], "components": rows}
        return await self._run(5, user, channel, data)

    async def click(self, user: User, message: Message, custom_id: str,
                    values: list[str] | None = None) -> Reply:
        """Press a button (or pick ``values`` in a select menu) on ``message``."""
        component = message.component(custom_id)
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component["type"]}
        if values is not None:
            data["values"] = values
        channel = self.fake.channels[message.channel_id]
        return await self._run(3, user, channel, data, message=message)


@contextlib.asynccontextmanager
async def run_client(fake: FakeDiscord, client: discord.Client,
                     tree: app_commands.CommandTree[Any], monkeypatch: pytest.MonkeyPatch,
                     done_event: str = "umpire_interaction_done",
                     expected: tuple[type[BaseException], ...] = ()) -> AsyncIterator[Harness]:
    """Point discord.py at ``fake``, start ``client``, yield a harness, close cleanly."""
    monkeypatch.setattr(discord.http.Route, "BASE", fake.rest_base)
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY",
                        yarl.URL(fake.gateway_url))
    harness = Harness(fake, client, tree, done_event, expected)

    original_on_error = tree.on_error

    async def on_tree_error(interaction: discord.Interaction[Any],
                            error: app_commands.AppCommandError) -> None:
        harness.record_error(error)
        await original_on_error(interaction, error)

    tree.on_error = on_tree_error  # type: ignore[method-assign]
    task = asyncio.create_task(client.start(TOKEN), name="discord-client")
    ready = asyncio.ensure_future(client.wait_until_ready())
    finished, _ = await asyncio.wait({task, ready}, timeout=GENEROUS,
                                     return_when=asyncio.FIRST_COMPLETED)
    if task in finished:
        ready.cancel()
        task.result()
        raise AssertionError("the client stopped before it was ready")
    if ready not in finished:
        task.cancel()
        raise AssertionError("the client did not become ready against the fake Discord")
    try:
        yield harness
        harness.check()
    finally:
        await client.close()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, GENEROUS)


def served(harness: Harness) -> GameService:
    """The game service behind the bot of ``harness`` (started by :func:`run_umpire`)."""
    assert harness.service is not None, "the harness runs no Umpire bot"
    return harness.service


@contextlib.asynccontextmanager
async def run_umpire(fake: FakeDiscord, db: Path, monkeypatch: pytest.MonkeyPatch,
                     seed_source: Callable[[int], bytes] | None = None,
                     renderer: Renderer | None = None,
                     **config: Any) -> AsyncIterator[Harness]:
    """Start ``fake``, run Umpire's bot against it on a new store at ``db`` (``config``:
    :class:`BotConfig` fields besides the fake's guild and ``tick_seconds=0``), yield the
    harness; close the store and stop the fake afterwards."""
    await fake.start()
    store = Store(db)
    service = (GameService(store) if seed_source is None
               else GameService(store, seed_source=seed_source))
    config.setdefault("guild_id", fake.guild_id)
    config.setdefault("follow_seconds", 0)
    bot = create_bot(service, BotConfig(tick_seconds=0, **config), renderer,
                     guild_ready_timeout=0.05)
    try:
        async with run_client(fake, bot, bot.tree, monkeypatch,
                              expected=(Refusal, ServiceError)) as harness:
            harness.service = service
            yield harness
    finally:
        store.close()
        await fake.stop()


@contextlib.asynccontextmanager
async def gm_and_two_players(db: Path, monkeypatch: pytest.MonkeyPatch, game_id: str,
                             seed_byte: int, renderer: Renderer | None = None
                             ) -> AsyncIterator[tuple[Harness, User, User, User]]:
    """A fake server with a GM (an admin) and two players, gerd and sasha, and Umpire on a
    new store at ``db`` whose first game is ``game_id``, its dice seeds ``seed_byte``
    repeated."""
    fake = FakeDiscord()
    gm, gerd, sasha = (fake.add_user("gm", admin=True), fake.add_user("gerd"),
                       fake.add_user("sasha"))
    async with run_umpire(fake, db, monkeypatch, seed_source=lambda n: bytes([seed_byte]) * n,
                          renderer=renderer, game_ids=[game_id]) as harness:
        yield harness, gm, gerd, sasha
