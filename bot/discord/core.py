"""The bot's runtime: the client, its command tree and error handler, finding the game of
an interaction, replying, and the order of things after an action (acknowledge, then
publish).

Commands, groups and controls are added by :mod:`bot.discord.app`; this module imports
none of them. Callbacks stay thin: they collect options, call the service through
:class:`~bot.discord.port.ServicePort`, acknowledge, and hand the result to the
:class:`~bot.discord.publish.Publisher`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import app_commands

from adjudicator.kernel.events import PUBLIC
from adjudicator.kernel.game import Game
from adjudicator.registry import available
from bot import gm_notices
from bot.discord import formatting as fmt
from bot.discord.components import PendingRollbacks
from bot.discord.errors import Refusal, Unexpected
from bot.discord.inflight import InFlight
from bot.discord.permissions import DEFAULT_GM_ROLE, in_dm, is_gm
from bot.discord.port import THREAD_KEY, ServicePort, gms_of, players_of, plays_in
from bot.discord.publish import Early, Publisher, Renderer, extras
from bot.logs import handled, since
from bot.service import Actor, GameInfo, ServiceError, SubmitResult
from bot.service.models import CONFIRM_RULE, PRIVATE_CHANNEL, PUBLIC_CHANNEL, SECRET_RULE

log = logging.getLogger("umpire.discord")

#: Event dispatched (with the interaction) when the bot has finished handling one.
DONE_EVENT = "umpire_interaction_done"

USERS_ONLY = discord.AllowedMentions(everyone=False, roles=False, users=True)

#: Where the bot keeps, per game, the last action it published (``meta`` key + game id).
PUBLISHED = "discord:published:"
#: The lease of the bot process that posts what was done by email.
FOLLOW_LEASE = "discord:follow"

UNEXPECTED = ("Umpire hit an internal error (logged for the bot's operator). Check "
              "`/game status` or the thread before trying again: an order that was stored "
              "shows there.")


@dataclass
class BotConfig:
    #: The server whose guild-only commands (/gm) are registered on it (instantly); None:
    #: they are registered globally, for servers only.
    guild_id: int | None = None
    gm_role: str = DEFAULT_GM_ROLE
    #: Extra games offered by ``/game new`` besides the shipped ones: names registered
    #: in code (``adjudicator.registry.register``); nothing here is imported.
    extra_games: Sequence[str] = ()
    #: Seconds between deadline checks (0: no background checks).
    tick_seconds: float = 60.0
    #: Fixed game ids for tests (popped in order); empty: random ids.
    game_ids: list[str] = field(default_factory=list)
    #: Draw each game's map once at start-up, so the first /game map is not slow.
    warm_pictures: bool = True
    #: Seconds between looks for actions taken by email in games bound to a thread (0: no).
    follow_seconds: float = 15.0
    #: Shards: None runs one connection; else the bot's total shard count, and the shards
    #: this process runs (None: all of them).
    shard_count: int | None = None
    shard_ids: Sequence[int] | None = None
    #: Whether this process registers the commands at start-up (one process is enough).
    sync_commands: bool = True
    #: The web pages' public base URL (``--web-url``, docs/web.md): players get their seat's
    #: secret link when they join and with ``/game link``; None: no links are given.
    web_url: str | None = None
    #: Interactions doing their work after the acknowledgement at once; the others wait in
    #: the order they were acknowledged (:mod:`bot.gate`, docs/performance.md).
    working_at_once: int = field(default_factory=lambda: max(2, os.cpu_count() or 2))


async def reply(interaction: discord.Interaction[Any], content: str, *, ephemeral: bool,
                file: discord.File | None = None, view: discord.ui.View | None = None,
                allowed_mentions: discord.AllowedMentions | None = None) -> None:
    """Answer an interaction: its first response, or a follow-up once it is deferred."""
    kwargs: dict[str, Any] = {"ephemeral": ephemeral, **extras(file, view)}
    if allowed_mentions is not None:
        kwargs["allowed_mentions"] = allowed_mentions
    if interaction.response.is_done():
        await interaction.followup.send(fmt.clip(content), **kwargs)
    else:
        await interaction.response.send_message(fmt.clip(content), **kwargs)


async def defer(interaction: discord.Interaction[Any], ephemeral: bool = True) -> None:
    """Acknowledge now (Discord allows 3 seconds); the answer follows, in turn: the work
    after the acknowledgement waits for a place at the bot's gate (:mod:`bot.gate`),
    freed when the interaction is done."""
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)
        inflight = getattr(interaction.client, "inflight", None)
        if isinstance(inflight, InFlight):
            await inflight.gate.enter(interaction.id)


def pinging(user_ids: Sequence[str]) -> discord.AllowedMentions:
    """Mentions that notify exactly ``user_ids`` (the others mentioned are shown, silent)."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                   users=[discord.Object(int(u)) for u in user_ids])


async def announce(interaction: discord.Interaction[Any], content: str, *,
                   view: discord.ui.View | None = None, file: discord.File | None = None,
                   ack: str = "Done.", ping: Sequence[str] = ()) -> None:
    """A public answer to a command deferred privately (so that a refusal would have stayed
    private): a private acknowledgement, then the public message, which notifies the users
    in ``ping`` only (never the one who ran the command)."""
    await reply(interaction, ack, ephemeral=True)
    notified = [u for u in ping if u != str(interaction.user.id)]
    await interaction.followup.send(fmt.clip(content), ephemeral=False,
                                    allowed_mentions=pinging(notified), **extras(file, view))


class UmpireTree(app_commands.CommandTree[Any]):
    """The command tree: one place where failures become answers."""

    async def on_error(self, interaction: discord.Interaction[Any],
                       error: app_commands.AppCommandError) -> None:
        cause = getattr(error, "original", error)
        outcome = "refused"
        if isinstance(cause, Refusal):
            text = str(cause)
        elif isinstance(cause, ServiceError):
            text = f"**Not accepted**: {cause}"
        elif isinstance(error, app_commands.CheckFailure | app_commands.TransformerError):
            text = str(error)
        else:
            command = interaction.command.qualified_name if interaction.command else "?"
            log.error("error in %s", command, exc_info=cause)
            text, outcome = UNEXPECTED, "error"
            if isinstance(self.client, UmpireBot):
                self.client.inflight.error(f"{command}: {cause!r}")
        if isinstance(self.client, UmpireBot):
            self.client.inflight.note(interaction, outcome)
        try:
            await reply(interaction, text, ephemeral=True)
        except discord.HTTPException:
            log.warning("could not tell the user about an error")
        self.client.dispatch(DONE_EVENT, interaction)


class UmpireBot(discord.Client):
    def __init__(self, port: ServicePort, config: BotConfig | None = None,
                 renderer: Renderer | None = None, **options: Any) -> None:
        options.setdefault("guild_ready_timeout", 1.0)
        super().__init__(intents=discord.Intents.default(), allowed_mentions=USERS_ONLY,
                         **options)
        self.port = port
        self.config = config or BotConfig()
        self.renderer = renderer
        self.tree = UmpireTree(self)
        self.publisher = Publisher(self, port, renderer)
        self.rollbacks = PendingRollbacks(port)
        self._ticker: asyncio.Task[None] | None = None
        self._warming: asyncio.Task[None] | None = None
        self._follower: asyncio.Task[None] | None = None
        self.inflight = InFlight(self, self.config.working_at_once)

    # ---- start-up -----------------------------------------------------------------------

    async def setup_hook(self) -> None:
        if self.config.sync_commands:
            await self.sync_commands()
        else:
            log.info("commands not synced by this process (the process running shard 0 "
                     "syncs them)")
        if self.renderer is not None and self.config.warm_pictures:
            self._warming = asyncio.create_task(self.warm_pictures(), name="umpire-pictures")
        if self.config.tick_seconds > 0:
            self._ticker = asyncio.create_task(self._tick_loop(), name="umpire-deadlines")
        if self.config.follow_seconds > 0:
            self._follower = asyncio.create_task(self._follow_loop(), name="umpire-follow")

    async def sync_commands(self) -> None:
        """Register the commands with Discord, and log what Discord accepted, once it has
        (a refusal is logged with Discord's reason, and stops the start)."""
        scopes: list[discord.Object | None] = [None]
        if self.config.guild_id is not None:
            scopes.append(discord.Object(self.config.guild_id))
        for scope in scopes:
            where = "globally" if scope is None else f"to server {scope.id}"
            try:
                synced = await self.tree.sync(guild=scope)
            except discord.HTTPException as error:
                log.error("commands NOT synced %s: Discord answered %s %s", where,
                          error.status, error.text)
                raise
            log.info("commands synced %s: %s", where,
                     ", ".join(f"/{c.name}" for c in synced) or "none")

    async def warm_pictures(self) -> None:
        """Draw each game's opening map once, so static layers are built before anyone asks."""
        renderer = self.renderer
        assert renderer is not None
        for _, rules in self.game_rules():
            try:
                view = rules.view(rules.setup(), PUBLIC)
                await asyncio.to_thread(renderer, view)
            except Exception:
                log.info("no picture to prepare for %s", rules.name, exc_info=True)

    async def on_ready(self) -> None:
        self.inflight.health(connected=True, stopped=None)

    async def on_resumed(self) -> None:
        self.inflight.health(connected=True)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        self.inflight.begin(interaction)

    async def on_umpire_interaction_done(self, interaction: discord.Interaction[Any]) -> None:
        await self.inflight.done(interaction)

    async def close(self) -> None:
        for task in (self._ticker, self._warming, self._follower):
            if task is not None:
                task.cancel()
        self.inflight.health(connected=False)  # (no on_disconnect: it runs after close)
        await self.inflight.flush()
        await super().close()

    async def _tick_loop(self) -> None:
        """Deadlines at once when ready (a process started after another stopped takes its
        released lease without waiting), then every ``tick_seconds``."""
        await self.wait_until_ready()
        while not self.is_closed():
            start, outcome = time.monotonic(), "ok"
            try:
                await self.publisher.deadline_notices()
            except Exception as error:
                log.exception("deadline check failed")
                outcome = "error"
                self.inflight.error(f"deadline check: {error!r}")
            handled(log, game=None, actor="umpire", verb="deadline tick", outcome=outcome,
                    ms=since(start))
            self.inflight.health(last_tick=time.time())
            await asyncio.sleep(self.config.tick_seconds)

    async def _follow_loop(self) -> None:
        await self.wait_until_ready()
        while not self.is_closed():
            await asyncio.sleep(self.config.follow_seconds)
            try:
                await self.publish_from_email()
            except Exception:
                log.exception("posting actions taken by email failed")

    async def publish_from_email(self) -> None:
        """Post in each bound game's thread, and DM its Discord players, what was done by
        email since the bot last looked (a game may seat one side on Discord and the
        other by email; the mail gateway tells the email side). Of several bot processes,
        the holder of the ``discord:follow`` lease does it."""
        lease = max(60.0, 4 * self.config.follow_seconds)
        if not await self.port.lease(FOLLOW_LEASE, lease):
            return
        await self.deliver_gm_notices()
        for info in await self.port.games_behind(THREAD_KEY, PUBLISHED):
            key = PUBLISHED + info.id
            seen = await self.port.note(key)
            after = int(seen) if seen is not None else 0
            result = await self.port.updates(info.id, after, only_actor="email:")
            if result.seqs:
                await self.publisher.publish(info, result)
            done = max([info.head_seq, *result.seqs])
            await self.port.set_note(key, str(done))

    async def deliver_gm_notices(self) -> None:
        """DM each game's GMs the notices another frontend left for them (the mail
        gateway's report of a lasting failure, :mod:`bot.gm_notices`); audience: GMs."""
        for key, game_id, text in await self.port.gm_notices(gm_notices.DISCORD):
            try:
                info = await self.port.info(game_id)
            except ServiceError:  # the game is gone: nobody to tell
                info = None
            for gm in gms_of(info) if info is not None else []:
                await self.publisher.dm(info, gm, text)
            await self.port.gm_notice_delivered(key)

    async def on_app_command_completion(self, interaction: discord.Interaction[Any],
                                        command: Any) -> None:
        self.dispatch(DONE_EVENT, interaction)

    def game_rules(self) -> list[tuple[str, Game[Any]]]:
        """Every game this bot offers — the registered ones and the configured extras — as
        (the name games are created with, its rules)."""
        names = [*available(), *self.config.extra_games]
        return [(name, rules) for name in names
                if (rules := self.port.known_rules(name)) is not None]

    # ---- who, where ---------------------------------------------------------------------

    @staticmethod
    def actor(interaction: discord.Interaction[Any]) -> Actor:
        return Actor.discord(interaction.user.id)

    def is_gm(self, interaction: discord.Interaction[Any], info: GameInfo) -> bool:
        """Whether the user may use GM commands in the game (:func:`permissions.is_gm`)."""
        uid = str(interaction.user.id)
        return is_gm(interaction, uid in gms_of(info), uid in plays_in(info),
                     self.config.gm_role)

    async def require_gm(self, interaction: discord.Interaction[Any], info: GameInfo) -> Actor:
        """The actor, holding a GM seat in the game (a GM role holder or server
        administrator who does not play in it takes one now: they asked for a GM command).
        A player of the game is refused whatever their server rights; the service refuses
        a GM who also plays while the game runs."""
        if not self.is_gm(interaction, info):
            if is_gm(interaction, False, False, self.config.gm_role):  # rights, but plays
                raise Refusal("you play in this game, so you are not its GM: a player never "
                              "gets GM rights over their own game, whatever their server "
                              "role; ask a GM who does not play")
            raise Refusal(f"only a GM may do that: a GM of the game, the "
                          f"'{self.config.gm_role}' role, or a server administrator")
        actor = self.actor(interaction)
        await self.port.ensure_gm_seat(info, actor)
        return actor

    async def game_of(self, interaction: discord.Interaction[Any],
                      game: GameInfo | None = None) -> GameInfo:
        """The game an interaction is about: given, the thread's, or (in a DM) the user's
        only game in progress."""
        if game is not None:
            return game
        channel = interaction.channel
        if isinstance(channel, discord.Thread):
            info = await self.port.game_for_thread(channel.id)
            if info is not None:
                self.inflight.games[interaction.id] = info.id  # for its log line
                return info
        if in_dm(interaction):
            games = [g for g in await self.port.games_for(self.actor(interaction))
                     if g.status in ("setup", "active", "paused")]
            if len(games) == 1:
                return games[0]
            if not games:
                raise Refusal("you are not seated in any game in progress")
            uid = str(interaction.user.id)
            waiting = [g for g in games if g.to_act and uid in players_of(g, g.to_act)]
            if len(waiting) == 1:  # the one game whose turn or decision is the user's
                return waiting[0]
            listed = ", ".join(f"`{g.id}` ({g.game})" for g in games)
            raise Refusal(f"you play several games; add `game:` — one of {listed}")
        mine = [g for g in await self.port.games_for(self.actor(interaction))
                if g.status in ("setup", "active", "paused") and g.bindings.get(THREAD_KEY)]
        where = ("; your game" + ("s are" if len(mine) > 1 else " is") + " in "
                 + ", ".join(f"<#{g.bindings[THREAD_KEY]}> (`{g.id}`)" for g in mine[:5])
                 if mine else "")
        command = interaction.command
        if command is not None and not any(
                getattr(p, "name", None) == "game" for p in getattr(command, "parameters", [])):
            raise Refusal(f"use /{command.qualified_name} in the game's thread (it has no "
                          f"`game:` option){where}")
        raise Refusal("use this in a game's thread, or add `game:` (start one with /game new "
                      f"in a channel){where}")

    # ---- after an action ----------------------------------------------------------------

    async def guarded(self, interaction: discord.Interaction[Any],
                      work: Callable[[], Awaitable[None]]) -> None:
        """Run a button's, menu's or modal's work like a command: failures go to the tree's
        error handler; the end is signalled either way."""
        try:
            await work()
        except app_commands.AppCommandError as error:
            await self.tree.on_error(interaction, error)
            return
        except Exception as error:
            await self.tree.on_error(interaction, Unexpected(error))
            return
        self.dispatch(DONE_EVENT, interaction)

    async def mark_undone(self, info: GameInfo, to_seq: int) -> int:
        """Mark the thread posts a rollback to ``to_seq`` undid (:meth:`Publisher.mark_undone`)."""
        return await self.publisher.mark_undone(info, to_seq)

    async def after_action(self, interaction: discord.Interaction[Any], info: GameInfo,
                           result: SubmitResult, told: bool = False,
                           early: Early | None = None) -> None:
        """Publish a stored action (the actor has had their acknowledgement, which holds
        their side's private news if ``told``; ``early``: its board, begun meanwhile);
        what could not be delivered is told to the actor, never as a failure of the
        action."""
        if result.duplicate:  # nothing was drawn early for it (draw_early)
            return
        try:
            problems = await self.publisher.publish(info, result, str(interaction.user.id),
                                                    told, early)
        except Exception:  # the action is stored; a publishing bug must not deny it
            log.exception("game %s: publishing failed", info.id)
            problems = ["the thread post (an internal error, logged)"]
        if problems:
            text = ("Your action was stored, but I could not deliver "
                    + "; ".join(problems) + ". The GM can check the bot's log.")
            try:
                await interaction.followup.send(fmt.clip(text), ephemeral=True)
            except discord.HTTPException:
                log.warning("game %s: could not tell the actor about %s", info.id, problems)

    async def acknowledge_and_publish(self, interaction: discord.Interaction[Any],
                                      info: GameInfo, result: SubmitResult,
                                      acknowledgement: Awaitable[None], told: bool = False
                                      ) -> None:
        """Tell whoever acted that their action was stored (``acknowledgement``), then
        publish it (:meth:`after_action`); the board's picture is drawn meanwhile, while
        the acknowledgement is on its way to Discord (issue 26, :class:`Early`)."""
        early = self.publisher.draw_early(info, result)
        try:
            await acknowledgement
        except BaseException:  # refused or stopped: no drawing is left for a post to come
            if early is not None:
                early.drop()
            raise
        await self.after_action(interaction, info, result, told=told, early=early)

    async def submit(self, interaction: discord.Interaction[Any], info: GameInfo, text: str,
                     side: str | None = None) -> SubmitResult:
        """Submit orders for the user: defer, store (the interaction's id is the
        idempotency key), acknowledge what was stored, then publish it."""
        await defer(interaction, ephemeral=True)
        actor = self.actor(interaction)
        dm = in_dm(interaction)
        result = await self.port.submit(info.id, actor, text, f"discord:{interaction.id}",
                                        side, PRIVATE_CHANNEL if dm else PUBLIC_CHANNEL)
        if result.error_rule == SECRET_RULE:
            raise Refusal(fmt.SECRET_REFUSAL)  # e.g. a plain placement in a face-down set-up
        if result.error_rule == CONFIRM_RULE:  # a second 'done' confirms it
            raise Refusal(str(result.error).replace("done again", "`done` again"))
        if not result.ok:
            raise Refusal(fmt.refusal(result.error, result.error_rule,
                                      fmt.nearest(result.legal, text)))
        guide = await self.port.setup_guide(info.id, actor) if dm else None
        ack = fmt.result_ack(result)
        public, mine = result.messages.get(PUBLIC), result.messages.get(result.side or "")
        private = fmt.private_lines(mine, public.lines if public else []) if mine else []
        if private:
            ack = fmt.clip(f"{ack}\n**Only you see this** ({result.side}):\n"
                           + fmt.clip_lines(private, 1200))
        if guide is not None:  # the secret set-up goes on: what is left, and where
            ack = fmt.clip(f"{ack}\n{fmt.setup_guide(guide)}")

        async def acknowledge() -> None:
            try:
                await reply(interaction, ack, ephemeral=True)
            except discord.HTTPException:
                log.warning("game %s: could not acknowledge a stored action", info.id)

        await self.acknowledge_and_publish(interaction, info, result, acknowledge(),
                                           told=bool(private))
        return result


class ShardedUmpireBot(UmpireBot, discord.AutoShardedClient):
    """The bot on several shards (``BotConfig.shard_count``): Discord sends each shard the
    events of its guilds (``(guild_id >> 22) % shard_count``) and the direct messages to
    shard 0. One process may run some of the shards (``shard_ids``); every process shares
    the store, so any of them can act on any game."""

    def __init__(self, port: ServicePort, config: BotConfig | None = None,
                 renderer: Renderer | None = None, **options: Any) -> None:
        config = config or BotConfig()
        options.setdefault("shard_count", config.shard_count)
        if config.shard_ids is not None:
            options.setdefault("shard_ids", list(config.shard_ids))
        super().__init__(port, config, renderer, **options)
