"""The bot's runtime: the client, finding the game of an interaction, replying, and
posting the outcome of an action (one public message, DMs, decision prompts).

Command callbacks stay thin: they collect options, call the service through
:class:`~bot.discord.port.ServicePort`, and hand the result to :meth:`UmpireBot.publish`.
"""

from __future__ import annotations

import asyncio
import functools
import io
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import discord
from discord import app_commands

from adjudicator.kernel.events import GM, PUBLIC
from adjudicator.kernel.game import Game
from adjudicator.kernel.views import View
from adjudicator.registry import available
from bot.discord import formatting as fmt
from bot.discord.permissions import DEFAULT_GM_ROLE, in_dm, is_gm
from bot.discord.port import THREAD_KEY, ServicePort, gms_of, players_of
from bot.discord.verbs import secret_commands
from bot.messages import Message
from bot.service import Actor, GameInfo, ServiceError, SubmitResult

log = logging.getLogger("umpire.discord")

class Renderer(Protocol):
    """``renderer(view, pack) -> PNG bytes``; plugged in when the rendering package provides
    one. ``pack`` is the game's own data pack (a GM's replacement): a game played with the
    shipped pack is drawn with ``renderer(view)``. The picture is the game's usual one
    (zoomed on the last action for Turning Point: Stalingrad); ``renderer(view, pack,
    full=True)`` draws the whole map."""

    def __call__(self, view: View, pack: Path | None = None, /, **options: bool) -> bytes: ...


#: Where the bot keeps, per game, the last action it published (``meta`` key + game id).
PUBLISHED = "discord:published:"

#: Event dispatched (with the interaction) when the bot has finished handling one.
DONE_EVENT = "umpire_interaction_done"

USERS_ONLY = discord.AllowedMentions(everyone=False, roles=False, users=True)


class Refusal(Exception):
    """A user's request that cannot be done; the text is shown to them ephemerally."""


class UnexpectedError(app_commands.AppCommandError):
    """Wraps an unexpected exception raised outside the command tree (buttons, modals)."""


@dataclass
class BotConfig:
    guild_id: int | None = None
    gm_role: str = DEFAULT_GM_ROLE
    #: Extra games offered by ``/game new`` besides the shipped ones: names registered
    #: in code (``adjudicator.registry.register``); nothing here is imported.
    extra_games: Sequence[str] = ()
    #: Seconds between deadline checks (0: no background checks).
    tick_seconds: float = 60.0
    #: Fixed game ids for tests (popped in order); empty: random ids.
    game_ids: list[str] = field(default_factory=list)
    #: Seconds between looks for actions taken by email in games bound to a thread (0: no).
    follow_seconds: float = 15.0


class UmpireBot(discord.Client):
    def __init__(self, port: ServicePort, config: BotConfig | None = None,
                 renderer: Renderer | None = None, **options: Any) -> None:
        intents = discord.Intents.default()
        options.setdefault("guild_ready_timeout", 1.0)
        super().__init__(intents=intents, allowed_mentions=USERS_ONLY, **options)
        self.port = port
        self.config = config or BotConfig()
        self.renderer = renderer
        self.tree: app_commands.CommandTree[UmpireBot] = app_commands.CommandTree(self)
        self.tree.on_error = self.on_command_error  # type: ignore[method-assign]
        self._ticker: asyncio.Task[None] | None = None
        self._follower: asyncio.Task[None] | None = None
        self.pending_rollbacks: dict[str, tuple[str, int, str, int, int]] = {}
        self._prompted: dict[str, tuple[str, str, int]] = {}

    # ---- start-up -----------------------------------------------------------------------

    async def setup_hook(self) -> None:
        from bot.discord.app import register

        register(self)
        if self.config.guild_id is not None:
            guild = discord.Object(self.config.guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()
        if self.config.tick_seconds > 0:
            self._ticker = asyncio.create_task(self._tick_loop(), name="umpire-deadlines")
        if self.config.follow_seconds > 0:
            self._follower = asyncio.create_task(self._follow_loop(), name="umpire-follow")

    async def close(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
        if self._follower is not None:
            self._follower.cancel()
        await super().close()

    async def _tick_loop(self) -> None:
        await self.wait_until_ready()
        while not self.is_closed():
            await asyncio.sleep(self.config.tick_seconds)
            try:
                await self.post_deadline_notices()
            except Exception:
                log.exception("deadline check failed")

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
        other by email; the mail gateway tells the email side)."""
        service = self.port.service
        for info in await self.port.call(service.games_behind, THREAD_KEY, PUBLISHED):
            key = PUBLISHED + info.id
            seen = await self.port.call(service.store.get_meta, key)
            after = int(seen) if seen is not None else 0
            result = await self.port.call(service.updates, info.id, after, only_actor="email:")
            if result.seqs:
                await self.publish(info, result)
            done = max([info.head_seq, *result.seqs])
            await self.port.call(service.store.set_meta, key, str(done))

    async def post_deadline_notices(self) -> None:
        for notice in await self.port.tick():
            info = await self.port.info(notice.game_id)
            if notice.audience == PUBLIC:
                await self.post_to_thread(info, notice.text)
            else:
                targets = gms_of(info) if notice.audience == GM else players_of(
                    info, notice.audience)
                for user_id in targets:
                    await self.dm(user_id, f"**{game_label(info)}**: {notice.text}")

    def game_rules(self) -> list[tuple[str, Game[Any]]]:
        """Every game this bot offers — the registered ones and the configured extras — as
        (the name games are created with, its rules)."""
        names = [*available(), *self.config.extra_games]
        return [(name, rules) for name in names
                if (rules := self.port.known_rules(name)) is not None]

    # ---- who, where -------------------------------------------------------------------------

    @staticmethod
    def actor(interaction: discord.Interaction[Any]) -> Actor:
        return Actor.discord(interaction.user.id)

    def is_gm(self, interaction: discord.Interaction[Any], info: GameInfo) -> bool:
        creators = gms_of(info)
        creator = creators[0] if creators else None
        return is_gm(interaction, creator, self.config.gm_role)

    async def require_gm(self, interaction: discord.Interaction[Any], info: GameInfo) -> Actor:
        """The actor, holding a GM seat in the game (mirrored from Discord GM rights)."""
        if not self.is_gm(interaction, info):
            raise Refusal(f"only a GM may do that: the game's creator, the "
                          f"'{self.config.gm_role}' role, or a server administrator")
        actor = self.actor(interaction)
        await self.port.ensure_gm_seat(info, actor)
        return actor

    async def game_of(self, interaction: discord.Interaction[Any],
                      game_id: str | None = None) -> GameInfo:
        """The game an interaction is about: named, the thread's, or the user's only game."""
        if game_id:
            try:
                return await self.port.info(game_id.strip())
            except ServiceError as error:
                raise Refusal(str(error)) from error
        channel = interaction.channel
        if isinstance(channel, discord.Thread):
            info = await self.port.game_for_thread(channel.id)
            if info is not None:
                return info
        if in_dm(interaction):
            games = [g for g in await self.port.games_for(self.actor(interaction))
                     if g.status in ("setup", "active")]
            if len(games) == 1:
                return games[0]
            if not games:
                raise Refusal("you are not seated in any game in progress")
            listed = ", ".join(f"`{g.id}` ({g.game})" for g in games)
            raise Refusal(f"you play several games; add `game:` — one of {listed}")
        raise Refusal("use this in a game's thread (start one with /game new in a channel)")

    # ---- replying ----------------------------------------------------------------------------

    async def handle(self, interaction: discord.Interaction[Any],
                     work: Callable[[], Awaitable[None]]) -> None:
        """Run a callback: refusals become ephemeral replies, surprises reach on_error."""
        try:
            await work()
        except Refusal as refusal:
            await self.reply(interaction, fmt.clip(str(refusal)), ephemeral=True)
        except ServiceError as error:
            await self.reply(interaction, fmt.clip(f"**Not accepted**: {error}"),
                             ephemeral=True)
        except Exception as error:
            wrapped = UnexpectedError(f"{type(error).__name__}: {error}")
            wrapped.__cause__ = error
            await self.tree.on_error(interaction, wrapped)
        finally:
            self.dispatch(DONE_EVENT.removeprefix("on_"), interaction)

    async def on_command_error(self, interaction: discord.Interaction[Any],
                               error: app_commands.AppCommandError) -> None:
        log.error("error in %s", interaction.command.name if interaction.command else "?",
                  exc_info=error.__cause__ or error)
        try:
            await self.reply(interaction, "Something went wrong on Umpire's side; the GM can "
                             "check the bot's log.", ephemeral=True)
        except discord.HTTPException:
            log.warning("could not tell the user about the error")

    async def reply(self, interaction: discord.Interaction[Any], content: str, *,
                    ephemeral: bool, file: discord.File | None = None,
                    view: discord.ui.View | None = None) -> None:
        kwargs: dict[str, Any] = {"ephemeral": ephemeral}
        if file is not None:
            kwargs["file"] = file
        if view is not None:
            kwargs["view"] = view
        if interaction.response.is_done():
            await interaction.followup.send(content, **kwargs)
        else:
            await interaction.response.send_message(content, **kwargs)

    async def defer(self, interaction: discord.Interaction[Any], ephemeral: bool = True) -> None:
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=ephemeral, thinking=True)

    # ---- posting -----------------------------------------------------------------------------

    def thread_of(self, info: GameInfo) -> discord.abc.Messageable | None:
        thread = info.bindings.get(THREAD_KEY)
        if thread is None:
            return None
        return self.get_partial_messageable(int(thread), type=discord.ChannelType.public_thread)

    async def post_to_thread(self, info: GameInfo, content: str,
                             file: discord.File | None = None,
                             view: discord.ui.View | None = None) -> discord.Message | None:
        channel = self.thread_of(info)
        if channel is None:
            return None
        kwargs: dict[str, Any] = {}
        if file is not None:
            kwargs["file"] = file
        if view is not None:
            kwargs["view"] = view
        return await channel.send(fmt.clip(content), **kwargs)

    async def dm(self, user_id: str | int, content: str, *, file: discord.File | None = None,
                 view: discord.ui.View | None = None) -> None:
        user = self.get_user(int(user_id)) or await self.fetch_user(int(user_id))
        kwargs: dict[str, Any] = {}
        if file is not None:
            kwargs["file"] = file
        if view is not None:
            kwargs["view"] = view
        try:
            await user.send(fmt.clip(content), **kwargs)
        except discord.Forbidden:
            log.info("user %s does not accept DMs", user_id)

    async def picture(self, view: View | None, name: str = "map.png",
                      info: GameInfo | None = None, full: bool = False
                      ) -> discord.File | None:
        """The map picture of a view of the game ``info``, drawn with the game's own data
        pack, when a renderer is plugged in (``full``: the whole map, not the zoom)."""
        if self.renderer is None or view is None:
            return None
        renderer = self.renderer
        try:
            pack = (await self.port.game_rules(info)).pack if info is not None else None
            args = (view, Path(pack)) if pack is not None else (view,)
            data = await asyncio.to_thread(
                functools.partial(renderer, *args, full=True) if full else
                functools.partial(renderer, *args))
        except Exception:  # a game without pictures, or a drawing bug: post the text alone
            log.exception("no picture for a %s view", view.game)
            return None
        return discord.File(io.BytesIO(data), filename=name)

    async def publish(self, info: GameInfo, result: SubmitResult) -> None:
        """After an action: one public message in the thread, then each side's DMs.

        The public message is built from the public audience's message only; each side's
        DM from that side's own message; the GM's DM from the GM's.
        """
        from bot.discord.decisions import choose_view, options_view

        info = await self.port.info(info.id)
        public = result.messages.get(PUBLIC)
        if public is None:
            return
        if info.paused:  # nobody can act: the notice only, no prompts or buttons
            await self.post_to_thread(info, fmt.public_post(
                public.model_copy(update={"prompt": None, "to_act": None}), None, "", ""))
            await self.dm_gm_only(info, result)
            return
        owing = result.pending_side
        to_act_ids = players_of(info, public.to_act) if public.to_act else []
        owing_ids = players_of(info, owing) if owing else []
        if public.lines or public.result or owing:
            content = fmt.public_post(public, None, fmt.mentions(to_act_ids),
                                      fmt.mentions(owing_ids))
            view = choose_view(info.id, info.head_seq) if owing and not public.result else None
            await self.post_to_thread(info, content, await self.picture(public.view,
                                                                       info=info), view)
        label = game_label(info)
        for side in self.port.rules(info.game).sides:
            message = result.messages.get(side)
            if message is None:
                continue
            text = fmt.private_post(message, label, public.lines)
            owes = owing == side and bool(message.options)
            for user_id in players_of(info, side):
                if owes:
                    await self.dm(user_id, _decision_dm(label, message),
                                  view=options_view(info.id, info.head_seq, message))
                elif text is not None:
                    await self.dm(user_id, text, file=await self.picture(
                        message.view, f"{side}.png", info))
        await self.dm_gm_only(info, result)
        await self.prompt_secret_placement(info)

    async def dm_gm_only(self, info: GameInfo, result: SubmitResult) -> None:
        """DM every GM of the game what only the GM's message holds (GM-only events)."""
        gm = result.messages.get(GM)
        if gm is None:
            return
        seen = {line for m in result.messages.values() if m.audience != GM for line in m.lines}
        gm_only = [line for line in gm.lines if line not in seen]
        if gm_only:
            for user_id in gms_of(info):
                await self.dm(user_id, f"**{game_label(info)}** — GM only:\n"
                              + fmt.clip_lines(gm_only, 1800))

    async def prompt_secret_placement(self, info: GameInfo) -> None:
        """DM the side to act, once per turn of set-up, when it may place secretly now."""
        side = info.to_act
        if side is None or info.status != "active":
            return
        key = (info.id, side, info.branch)
        if self._prompted.get(info.id) == key:
            return
        rules = self.port.rules(info.game)
        for user_id in players_of(info, side):
            legal = await self.port.legal_orders(info, Actor.discord(user_id))
            verbs = secret_commands(rules, legal)
            if verbs:
                self._prompted[info.id] = key
                commands = ", ".join(f"/{verb}" for verb in verbs)
                await self.dm(user_id, f"**{game_label(info)}**: your secret placement is due "
                              f"({side}). Use {commands} here, in this DM — never in the "
                              f"game thread.")


def game_label(info: GameInfo) -> str:
    return f"{info.game} [{info.id}]"


def _decision_dm(label: str, message: Message) -> str:
    lines = [f"**{label}** — {message.prompt or 'your decision'}"]
    private = [line for line in message.lines]
    if private:
        lines.append(fmt.clip_lines(private, 1200))
    lines.append("Choose below, or use /decide.")
    return fmt.clip("\n".join(lines))


def format_result_ack(result: SubmitResult) -> str:
    """The actor's own (ephemeral) acknowledgement of what was applied."""
    applied = ", ".join(f"`{text}`" for text in result.applied) or "nothing"
    text = f"Applied: {applied}"
    if result.status == "partial":
        text += "\n" + fmt.refusal(result.error, result.error_rule, result.legal)
    return fmt.clip(text)
