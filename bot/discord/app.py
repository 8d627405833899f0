"""Building and running the Discord bot: command groups, dynamic buttons, the renderer."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import signal
from collections.abc import Sequence
from pathlib import Path

import discord

from adjudicator.kernel.views import View
from bot.discord import commands_game, commands_gm, commands_orders
from bot.discord.core import BotConfig, Renderer, UmpireBot
from bot.discord.decisions import DYNAMIC_ITEMS
from bot.discord.port import ServicePort
from bot.service import GameService
from bot.store import Store

log = logging.getLogger("umpire.discord")


def register(bot: UmpireBot) -> None:
    """Add every command group and the restart-proof buttons to ``bot``."""
    commands_game.register(bot)
    commands_orders.register(bot)
    commands_gm.register(bot)
    bot.add_dynamic_items(*DYNAMIC_ITEMS)


def load_renderer() -> Renderer | None:
    """``render.render`` with the game's data pack (``render.load_pack``, cached per pack),
    when the rendering package provides them."""
    try:
        module = importlib.import_module("render")
    except ImportError:
        return None
    function = getattr(module, "render", None)
    loader = getattr(module, "load_pack", None)
    if not callable(function) or not callable(loader):
        return None

    def draw(view: View, pack: Path | None = None, /, **options: bool) -> bytes:
        # Turning Point: Stalingrad's map is tall: posts show the zoom on the last action
        # (readable on a phone), the whole map on request; Stalin's Tanks is shown whole.
        crop = view.game == "stalingrad" and not options.get("full", False)
        data = function(view, loader(view.game, pack), crop=crop)
        assert isinstance(data, bytes)
        return data

    return draw


def create_bot(service: GameService, config: BotConfig | None = None,
               renderer: Renderer | None = None) -> UmpireBot:
    return UmpireBot(ServicePort(service), config, renderer)


async def serve(token: str, db: Path, guild_id: int | None = None,
                gm_role: str = "Umpire GM", extra_games: Sequence[str] = ()) -> None:
    """Run until interrupted; discord.py reconnects on its own."""
    store = Store(db)
    bot = create_bot(GameService(store),
                     BotConfig(guild_id=guild_id, gm_role=gm_role, extra_games=extra_games),
                     load_renderer())
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    try:
        async with bot:
            running = asyncio.create_task(bot.start(token), name="umpire-bot")
            stopping = asyncio.create_task(stop.wait(), name="umpire-stop")
            try:
                await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stopping.cancel()
                if running.done():
                    running.result()
                else:
                    log.info("shutting down")
                    await bot.close()
                    with contextlib.suppress(asyncio.CancelledError):
                        await running
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGTERM)
        store.close()


def run(token: str, db: Path, guild_id: int | None = None, gm_role: str = "Umpire GM",
        extra_games: Sequence[str] = ()) -> None:
    discord.utils.setup_logging(level=logging.INFO)
    try:
        asyncio.run(serve(token, db, guild_id, gm_role, extra_games))
    except KeyboardInterrupt:
        log.info("stopped")
