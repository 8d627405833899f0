"""Assembling and running the Discord bot: its commands in their scopes, the restart-proof
buttons, the renderer; ``--check-commands``.

Scopes. Discord offers a server's (guild) commands only in that server, never in a direct
message. The commands players need in a DM with the bot — each game's orders (secret
set-up and mines are given there), ``/order``, ``/decide``, ``/game``, ``/help`` — are
therefore registered globally, usable in servers and in the bot's DM. ``/gm`` is for
servers only: registered on the configured server (instantly) or, without one, globally
for servers. Discord may take up to an hour to show new global commands everywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord

from adjudicator.registry import available
from bot import health
from bot.discord.commands_game import GameCommands
from bot.discord.commands_gm import GmCommands
from bot.discord.commands_orders import decide, game_groups, help_, order
from bot.discord.components import DYNAMIC_ITEMS
from bot.discord.core import BotConfig, ShardedUmpireBot, UmpireBot
from bot.discord.limits import check, size
from bot.discord.port import ServicePort
from bot.discord.publish import Renderer
from bot.logs import LogFormat, configure
from bot.offload import ListingPool, draw, prepare_pictures
from bot.offload import PicturePool as PooledRenderer
from bot.runtime import (
    DRAIN_SECONDS,
    STOP_SECONDS,
    release_leases,
    tune_gc,
    tune_switching,
)
from bot.service import GameService
from bot.store import Store

if TYPE_CHECKING:
    from bot.web.settings import WebSettings

log = logging.getLogger("umpire.discord")


def load_renderer(processes: int = 0) -> Renderer | None:
    """``render.render`` with the game's data pack (``render.load_pack``, cached per pack),
    when the rendering package provides them. ``processes`` > 0: pictures are drawn in a
    pool of that many warm worker processes (``bot.offload``), so drawing never holds the
    bot's event loop or its threads."""
    try:
        module = importlib.import_module("render")
    except ImportError:
        return None
    if not callable(getattr(module, "render", None)) or not callable(
            getattr(module, "load_pack", None)):
        return None
    if processes > 0:
        return PooledRenderer(processes)
    return draw


def add_commands(bot: UmpireBot) -> None:
    """Every command in its scope (see the module docstring), and the buttons."""
    tree = bot.tree
    tree.add_command(GameCommands())
    tree.add_command(order)
    tree.add_command(decide)
    tree.add_command(help_)
    for group in game_groups(bot.game_rules()):
        tree.add_command(group)
    guild = discord.Object(bot.config.guild_id) if bot.config.guild_id is not None else None
    tree.add_command(GmCommands(), guild=guild)
    bot.add_dynamic_items(*DYNAMIC_ITEMS)


def create_bot(service: GameService, config: BotConfig | None = None,
               renderer: Renderer | None = None, **options: Any) -> UmpireBot:
    """The bot: sharded (``config.shard_count``) or on one connection."""
    kind = UmpireBot if config is None or config.shard_count is None else ShardedUmpireBot
    bot = kind(ServicePort(service), config, renderer, **options)
    add_commands(bot)
    return bot


def command_payloads(bot: UmpireBot) -> dict[str, list[dict[str, Any]]]:
    """What ``tree.sync`` would send, per scope: "global", and the configured server."""
    tree = bot.tree
    scopes = {"global": [command.to_dict(tree) for command in tree.get_commands()]}
    if bot.config.guild_id is not None:
        guild = discord.Object(bot.config.guild_id)
        scopes[str(bot.config.guild_id)] = [command.to_dict(tree)
                                            for command in tree.get_commands(guild=guild)]
    return scopes


def check_commands(guild_id: int | None = None, extra_games: Sequence[str] = (),
                   out: Callable[[str], object] = print) -> int:
    """Print every command payload and check Discord's limits, without a network.
    Returns the number of problems."""
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "check.db")
        try:
            bot = create_bot(GameService(store), BotConfig(guild_id=guild_id,
                                                           extra_games=extra_games))
            scopes = command_payloads(bot)
        finally:
            store.close()
    for scope, commands in scopes.items():
        out(f"# {scope}: {len(commands)} commands")
        for command in commands:
            out(json.dumps(command, indent=1, sort_keys=True))
    problems = check(scopes)
    for scope, commands in scopes.items():
        out(f"{scope}: " + ", ".join(f"/{c['name']} {size(c)} characters" for c in commands))
    for problem in problems:
        out(f"PROBLEM {problem}")
    out(f"{sum(len(c) for c in scopes.values())} commands checked, {len(problems)} problems")
    return len(problems)


async def serve(token: str, db: Path | str, guild_id: int | None = None,
                gm_role: str = "Umpire GM", extra_games: Sequence[str] = (),
                shard_count: int | None = None, shard_ids: Sequence[int] | None = None,
                render_processes: int = 0, web: WebSettings | None = None,
                listing_processes: int = 0) -> None:
    """Run until interrupted; discord.py reconnects on its own. ``shard_count`` /
    ``shard_ids``: run these shards of a sharded bot (several processes share the
    database); ``render_processes``: draw pictures in that many worker processes;
    ``listing_processes``: make autocomplete's listings of legal orders in that many
    (``bot.offload``; 0: in the bot's threads);
    ``web``: also serve the players' web pages (``--web``, docs/web.md; a port of 0 only
    names the base URL of pages served by another process)."""
    store = Store(db)
    if render_processes <= 0:
        await asyncio.to_thread(prepare_pictures, [*available(), *extra_games])
    renderer = load_renderer(render_processes)
    # made in a thread: its queues' locks may start multiprocessing's resource tracker
    lister = await asyncio.to_thread(ListingPool, listing_processes) \
        if listing_processes > 0 else None
    warming = None if lister is None else asyncio.create_task(
        warm_listing(lister), name="umpire-listing-workers")  # what is asked meanwhile waits
    first = shard_ids is None or not shard_ids or 0 in shard_ids
    tune_gc()  # after start-up: what it loaded is never collected (bot.runtime)
    tune_switching()  # the loop takes the interpreter back from busy workers sooner
    service = GameService(store, lister=lister)
    bot = create_bot(service,
                     BotConfig(guild_id=guild_id, gm_role=gm_role, extra_games=extra_games,
                               shard_count=shard_count, shard_ids=shard_ids,
                               sync_commands=first,
                               web_url=(web.base_url or None) if web else None),
                     renderer)
    pages = None
    if web is not None and web.port:
        from bot.web.app import WebServer

        pages = WebServer(service, web)
        await pages.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, stop.set)
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
                    await stop_within(bot, running)
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            for number in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(number)
        if pages is not None:
            await pages.stop()
        if isinstance(renderer, PooledRenderer):
            renderer.close()
        if warming is not None:
            warming.cancel()
        if lister is not None:
            lister.close()
        release_leases(store, service.instance, log=log)  # the next process: at once
        with contextlib.suppress(Exception):
            health.record(store, "discord", service.instance, connected=False,
                          stopped=time.time())
        store.close()


async def warm_listing(lister: ListingPool) -> None:
    """Start the listing workers (their rules loaded, a set-up listed) before the first
    autocomplete asks; if they cannot start, the service lists in the bot's threads."""
    try:
        await asyncio.to_thread(lister.warm)
    except Exception:
        log.warning("the listing workers did not start: autocomplete lists in the bot's "
                    "threads", exc_info=True)


async def stop_within(bot: UmpireBot, running: asyncio.Task[None]) -> float:
    """Stop the bot within ``STOP_SECONDS`` (bot.runtime): drain the interactions in flight
    (answering what is left "restarting"), then close the connection; the seconds taken,
    logged."""
    start = time.monotonic()
    log.info("shutting down: %d interaction(s) in flight", len(bot.inflight.started))
    await bot.inflight.drain(DRAIN_SECONDS)
    left = max(0.5, STOP_SECONDS - 1.0 - (time.monotonic() - start))  # 1 s: the leases
    try:
        async with asyncio.timeout(left):
            await bot.close()
            with contextlib.suppress(asyncio.CancelledError):
                await running
    except TimeoutError:
        log.warning("the connection did not close within the stop's budget: cut")
        running.cancel()
    taken = time.monotonic() - start
    log.info("stopped in %.1f s (budget %.0f s)", taken, STOP_SECONDS)
    return taken


def run(token: str, db: Path | str, guild_id: int | None = None, gm_role: str = "Umpire GM",
        extra_games: Sequence[str] = (), shard_count: int | None = None,
        shard_ids: Sequence[int] | None = None, render_processes: int = 0,
        log_format: LogFormat = "text", web: WebSettings | None = None,
        listing_processes: int = 0) -> None:
    configure(log_format)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        loop.run_until_complete(serve(token, db, guild_id, gm_role, extra_games, shard_count,
                                      shard_ids, render_processes, web,
                                      listing_processes))
    except KeyboardInterrupt:
        log.info("stopped")
    finally:  # not asyncio.run: it would wait for a picture still being drawn
        left = asyncio.all_tasks(loop)
        for task in left:
            task.cancel()
        if left:
            loop.run_until_complete(asyncio.wait(left, timeout=1.0))
        loop.close()
    busy = [t for t in threading.enumerate() if t is not threading.current_thread()
            and not t.daemon and t.is_alive()]
    if busy:  # the store is closed and the leases released: nothing is lost
        log.info("exiting without waiting for %d worker thread(s)", len(busy))
        logging.shutdown()
        sys.stdout.flush()
        os._exit(0)
