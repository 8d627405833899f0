"""``/game``: new, open, join, link, leave, start, status, map, log, export, dice, standing,
deadline, undo, resign.

Every subcommand that loads a game, renders or writes a record defers first: Discord
allows three seconds for the first answer.
"""

from __future__ import annotations

import io
import json
import uuid
from typing import Any, Literal

import discord
from discord import app_commands

from adjudicator.kernel.events import PUBLIC
from bot import commands as catalogue
from bot import durations
from bot.discord import formatting as fmt
from bot.discord import limits
from bot.discord.autocomplete import rank
from bot.discord.commands_orders import choices, game_quietly, submit_order
from bot.discord.core import UmpireBot, announce, defer, reply
from bot.discord.errors import Refusal
from bot.discord.links import dm_link, link_text
from bot.discord.permissions import in_dm
from bot.discord.port import (
    CHANNEL_KEY,
    GUILD_KEY,
    THREAD_KEY,
    now,
    players_of,
    viewer_for,
)
from bot.discord.publish import PICTURES_KEY
from bot.discord.transformers import GAME_HELP, GameOption, bot_of
from bot.discord.verbs import order_commands
from bot.records import verify
from bot.service import Actor, GameInfo, ServiceError

#: A week, in minutes: the longest Discord keeps a quiet thread open.
ARCHIVE_AFTER_A_WEEK: Literal[10080] = 10080
NO_PINGS = discord.AllowedMentions.none()


def parse_options(text: str | None) -> dict[str, Any]:
    """Game options as ``key=value`` pairs (comma or space separated) or a JSON object."""
    if not text or not text.strip():
        return {}
    text = text.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise Refusal(f"options are not valid JSON: {error.msg}") from error
        if not isinstance(data, dict):
            raise Refusal("options must be a JSON object")
        return data
    out: dict[str, Any] = {}
    for part in text.replace(",", " ").split():
        key, sep, value = part.partition("=")
        if not sep or not key:
            raise Refusal(f"options are key=value pairs; cannot read {part!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def hours_to_seconds(hours: float | None) -> float | None:
    """A deadline option in hours → seconds (none for none or 0), or a :class:`Refusal`
    saying what is accepted (:mod:`bot.durations`: more than nothing, at most 60 days)."""
    try:
        return durations.from_hours(hours)
    except durations.DurationError as error:
        raise Refusal(f"nothing changed: {error}") from error


def seats_text(bot: UmpireBot, info: GameInfo) -> str:
    lines = []
    for side in bot.port.rules(info.game).sides:
        players = players_of(info, side)
        lines.append(f"{side}: {fmt.mentions(players) or '(free)'}")
    gms = [s.discord_id for s in info.seats if s.role == "gm" and s.discord_id]
    lines.append(f"GM: {fmt.mentions([str(g) for g in gms]) or '(none)'}")
    return "\n".join(lines)


async def _reader(bot: UmpireBot, interaction: discord.Interaction[Any], info: GameInfo
                  ) -> tuple[Actor, bool]:
    """The actor reading the log or record, and whether they read as the GM. Nobody is
    seated as GM by reading: the service gives GM views to a GM seat with GM powers only
    (never a player of the game while it runs, whatever their server rights)."""
    actor = bot.actor(interaction)
    return actor, await bot.port.has_gm_powers(info, actor)


def _offered(bot: UmpireBot) -> dict[str, str]:
    """The games ``/game new`` offers: the fixed list (registered and configured) only."""
    return {key: rules.title for key, rules in bot.game_rules()}


@app_commands.allowed_contexts(guilds=True, dms=True)
@app_commands.allowed_installs(guilds=True)
class GameCommands(app_commands.Group, name="game",
                   description="Create, join and follow games"):

    # ---- creating and joining ------------------------------------------------------------

    @app_commands.command(name="new", description=catalogue.describe(
        "discord", "game new"))
    @app_commands.describe(game="which game", scenario="scenario (default: the first)",
                           options="game options: key=value pairs or JSON",
                           side="take a side yourself as well as being the GM",
                           pictures="map pictures in the thread: after every order "
                           "(default), when the side to act changes, or none")
    async def new(self, interaction: discord.Interaction[Any], game: str,
                  scenario: str | None = None, options: str | None = None,
                  side: str | None = None,
                  pictures: Literal["order", "turn", "off"] = "order") -> None:
        bot = bot_of(interaction)
        channel = interaction.channel
        if in_dm(interaction) or not isinstance(channel, discord.TextChannel):
            raise Refusal("create games in a server text channel: the game gets its own "
                          "thread there")
        offered = _offered(bot)
        if game not in offered:
            raise Refusal(f"unknown game {game!r}; choose from {', '.join(offered)}")
        rules = bot.port.rules(game)
        if scenario is not None and scenario not in rules.scenarios():
            raise Refusal(f"unknown scenario {scenario!r}; choose from "
                          + ", ".join(rules.scenarios()))
        if side is not None and side not in rules.sides:
            raise Refusal(f"unknown side {side!r}; sides are {', '.join(rules.sides)}")
        chosen = parse_options(options)
        await defer(interaction, ephemeral=True)
        game_id = (bot.config.game_ids.pop(0) if bot.config.game_ids
                   else uuid.uuid4().hex[:12])
        title = f"{rules.title} — {scenario or next(iter(rules.scenarios()))}"
        thread = await channel.create_thread(name=fmt.thread_name(title, game_id),
                                             type=discord.ChannelType.public_thread,
                                             auto_archive_duration=ARCHIVE_AFTER_A_WEEK)
        actor = bot.actor(interaction)
        try:
            info = await bot.port.create_game(
                actor, game, scenario, chosen,
                {THREAD_KEY: str(thread.id), CHANNEL_KEY: str(channel.id),
                 GUILD_KEY: str(interaction.guild_id), PICTURES_KEY: pictures}, game_id)
        except ServiceError as error:
            await thread.send(f"This game could not be created: {error}")
            raise
        await thread.add_user(interaction.user)
        if side is not None:
            info = await bot.port.seat(info.id, actor, side, actor)
        sides = ", ".join(rules.sides)
        await thread.send(fmt.clip(
            f"**{title}** — game `{info.id}`, GM {interaction.user.mention}.\n"
            f"Take a side with `/game join` here ({sides}); the GM starts with "
            f"`/game start`. `/help {rules.name}` lists the orders.\n{seats_text(bot, info)}"),
            allowed_mentions=NO_PINGS)
        await channel.send(fmt.clip(f"New game: **{title}** (`{info.id}`) by "
                                    f"{interaction.user.mention} — join it in {thread.mention}"),
                           allowed_mentions=NO_PINGS)
        await reply(interaction, f"New game `{info.id}`: {thread.mention}", ephemeral=True)

    @new.autocomplete("game")
    async def new_game(self, interaction: discord.Interaction[Any],
                       current: str) -> list[app_commands.Choice[str]]:
        offered = _offered(bot_of(interaction))
        labels = {fmt.clip(f"{title} ({key})", 100): key for key, title in offered.items()
                  if len(key) <= 100}
        return [app_commands.Choice(name=name, value=labels[name])
                for name in rank(list(labels), current)]

    @new.autocomplete("scenario")
    async def new_scenario(self, interaction: discord.Interaction[Any],
                           current: str) -> list[app_commands.Choice[str]]:
        bot = bot_of(interaction)
        name = str(getattr(interaction.namespace, "game", ""))
        rules = bot.port.known_rules(name) if name in _offered(bot) else None
        return choices(rank(list(rules.scenarios()), current)) if rules else []

    @new.autocomplete("side")
    async def new_side(self, interaction: discord.Interaction[Any],
                       current: str) -> list[app_commands.Choice[str]]:
        bot = bot_of(interaction)
        name = str(getattr(interaction.namespace, "game", ""))
        rules = bot.port.known_rules(name) if name in _offered(bot) else None
        return choices(rank(list(rules.sides), current)) if rules else []

    @app_commands.command(name="open", description=catalogue.describe(
        "discord", "game open"))
    async def open_(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        if interaction.guild_id is None:
            raise Refusal("use this in a server: it lists that server's games")
        await defer(interaction, ephemeral=True)
        lines = []
        for info in await bot.port.games_in_guild(interaction.guild_id):
            if info.status not in ("setup", "active") or info.result:
                continue
            free = [s for s in bot.port.rules(info.game).sides if not players_of(info, s)]
            if not free:
                continue
            thread = info.bindings.get(THREAD_KEY)
            where = f" in <#{thread}>" if thread else ""
            lines.append(f"`{info.id}` {info.game} ({info.scenario_name}, "
                         f"{info.status}) — free: {', '.join(free)}{where}")
        text = ("**Games with a free side** — `/game join` in the thread:\n"
                + fmt.clip_lines(lines, 1800, more="/game open") if lines
                else "No game on this server has a free side. Start one with `/game new`.")
        await reply(interaction, text, ephemeral=True)

    @app_commands.command(name="join", description=catalogue.describe(
        "discord", "game join"))
    @app_commands.describe(side="the side", game=GAME_HELP)
    async def join(self, interaction: discord.Interaction[Any], side: str,
                   game: GameOption | None = None) -> None:
        bot = bot_of(interaction)
        info = await bot.game_of(interaction, game)
        actor = bot.actor(interaction)
        info = await bot.port.seat(info.id, actor, side, actor)
        await reply(interaction, f"{interaction.user.mention} plays **{side}**.\n"
                    f"{seats_text(bot, info)}", ephemeral=False,
                    allowed_mentions=NO_PINGS)  # who acts changes at the start, not here
        await dm_link(bot, info, interaction.user.id, side=side)  # the page (docs/web.md)

    @app_commands.command(name="link", description=catalogue.describe(
        "discord", "game link"))
    @app_commands.describe(new="end every older link of your seat (one was seen by someone "
                           "else)", observers="the game's public link instead", game=GAME_HELP)
    async def link(self, interaction: discord.Interaction[Any], new: bool = False,
                   observers: bool = False, game: GameOption | None = None) -> None:
        bot = bot_of(interaction)
        if not bot.config.web_url:
            raise Refusal("this bot serves no web pages (its operator gives no --web-url)")
        await defer(interaction, ephemeral=True)
        info = await bot.game_of(interaction, game)
        actor = bot.actor(interaction)
        link = await (bot.port.observer_link(info.id, actor, new=new) if observers
                      else bot.port.issue_link(info.id, actor, new=new))
        await reply(interaction, link_text(bot, info, link), ephemeral=True)

    @join.autocomplete("side")
    async def join_side(self, interaction: discord.Interaction[Any],
                        current: str) -> list[app_commands.Choice[str]]:
        bot = bot_of(interaction)
        info = await game_quietly(bot, interaction)
        if info is None:
            return []
        free = [s for s in bot.port.rules(info.game).sides if not players_of(info, s)]
        return choices(rank(free, current))

    @app_commands.command(name="leave", description=catalogue.describe(
        "discord", "game leave"))
    @app_commands.describe(game=GAME_HELP)
    async def leave(self, interaction: discord.Interaction[Any],
                    game: GameOption | None = None) -> None:
        bot = bot_of(interaction)
        info = await bot.game_of(interaction, game)
        if info.status != "setup":
            raise Refusal("the game has started: use `/game resign` to give it up, or ask "
                          "the GM to seat someone else (`/gm seat`)")
        actor = bot.actor(interaction)
        if not any(s.role == "player" and s.discord_id == actor.discord_id for s in info.seats):
            raise Refusal("you hold no side in this game")
        info = await bot.port.leave(info, actor)
        await reply(interaction, f"{interaction.user.mention} left the game.\n"
                    f"{seats_text(bot, info)}", ephemeral=False)

    @app_commands.command(name="resign", description=catalogue.describe(
        "discord", "game resign"))
    @app_commands.describe(confirm="yes, I resign", game=GAME_HELP)
    async def resign(self, interaction: discord.Interaction[Any], confirm: bool,
                     game: GameOption | None = None) -> None:
        bot = bot_of(interaction)
        if not confirm:
            raise Refusal("nothing done: set `confirm:` to True to resign")
        await submit_order(bot, interaction, "resign", await bot.game_of(interaction, game))

    # ---- running a game ------------------------------------------------------------------

    @app_commands.command(name="start", description=catalogue.describe(
        "discord", "game start"))
    @app_commands.describe(deadline_hours="time per turn or decision, in hours (optional)")
    async def start(self, interaction: discord.Interaction[Any],
                    deadline_hours: float | None = None) -> None:
        bot = bot_of(interaction)
        info = await bot.game_of(interaction)
        gm = await bot.require_gm(interaction, info)
        seconds = hours_to_seconds(deadline_hours)
        await defer(interaction, ephemeral=True)
        info = await bot.port.start(info.id, gm, deadline_seconds=seconds)
        view = await bot.port.view(info.id, gm, PUBLIC)
        acting = players_of(info, info.to_act) if info.to_act else []
        owing = view.pending.side if view.pending else None
        await bot.publisher.mark_pinged(info, view.to_act, owing)
        first = order_commands(bot.port.rules(info.game),
                               await bot.port.legal_orders(info, gm))[:4]
        does = (f" — first: {', '.join(f'`{c}`' for c in first)} (or `/order`; "
                f"`/help {bot.port.rules(info.game).name}` lists every order)" if first else "")
        await announce(interaction,
                       f"**The game has started.** Dice commitment (sha256 of the secret "
                       f"seed): `{info.commitment}`\n{seats_text(bot, info)}\n"
                       f"To act: **{view.to_act}** {fmt.mentions(acting)}{does}",
                       ping=[*acting, *(players_of(info, owing) if owing else [])],
                       file=await bot.publisher.picture(view, info=info, full=True))
        # the scenario's goals and special rules, right under the start (public, no ping)
        await interaction.followup.send(fmt.briefing(await bot.port.briefing(info.id, gm)),
                                        ephemeral=False, allowed_mentions=NO_PINGS)
        await bot.publisher.prompt_secret_placement(info)

    @app_commands.command(name="status", description=catalogue.describe(
        "discord", "game status"))
    @app_commands.describe(game=GAME_HELP)
    async def status(self, interaction: discord.Interaction[Any],
                     game: GameOption | None = None) -> None:
        bot = bot_of(interaction)
        info = await bot.game_of(interaction, game)
        actor = bot.actor(interaction)
        deadline = (f"\nDeadline: {fmt.deadline_at(info.deadline_at, now())}"
                    if info.deadline_at else "")
        state = (info.result and f"over — {info.result}") or info.status
        if info.paused:
            state += f" by the GM ({info.pause_reason}); the clock is stopped"
        await reply(interaction, fmt.clip(
            f"**{fmt.game_label(info)}** (scenario {info.scenario_name}): {state}, "
            f"action {info.head_seq}\nTo act: {info.to_act or '—'}\n"
            f"{seats_text(bot, info)}{deadline}"), ephemeral=True)
        await reply(interaction, fmt.briefing(await bot.port.briefing(info.id, actor)),
                    ephemeral=True)

    @app_commands.command(name="map", description=catalogue.describe(
        "discord", "game map"))
    @app_commands.describe(private="show your side's view, only to you", game=GAME_HELP,
                           full="the whole map (the usual picture zooms on the last action)")
    async def map_(self, interaction: discord.Interaction[Any], private: bool = False,
                   game: GameOption | None = None, full: bool = False) -> None:
        bot = bot_of(interaction)
        await defer(interaction, ephemeral=True)
        info = await bot.game_of(interaction, game)
        actor = bot.actor(interaction)
        viewer = viewer_for(info, actor, False) if private else PUBLIC
        view = await bot.port.view(info.id, actor, viewer)
        rules = bot.port.rules(info.game)
        prompt = view.pending.prompt if view.pending else None
        text = fmt.board_post(fmt.game_label(info), viewer, rules.board_text(view),
                              view.to_act, view.result, prompt)
        picture = await bot.publisher.picture(view, f"{viewer}.png", info, full=full)
        if private or in_dm(interaction):
            await reply(interaction, text, ephemeral=True, file=picture)
        else:
            await announce(interaction, text, file=picture, ack="The map is posted below.")

    @app_commands.command(name="log", description=catalogue.describe(
        "discord", "game log"))
    @app_commands.describe(last="how many actions", game=GAME_HELP)
    async def log(self, interaction: discord.Interaction[Any],
                  last: app_commands.Range[int, 1, 50] = 10,
                  game: GameOption | None = None) -> None:
        bot = bot_of(interaction)
        await defer(interaction, ephemeral=True)
        info = await bot.game_of(interaction, game)
        actor, as_gm = await _reader(bot, interaction, info)
        entries = await bot.port.log(info.id, actor, last)
        body = fmt.clip_lines([e.summary() for e in entries], 1850,
                              more="/game export") or "no actions yet"
        viewer = viewer_for(info, actor, as_gm)
        await reply(interaction, f"**{fmt.game_label(info)}** — {viewer} log\n{body}",
                    ephemeral=True)

    @app_commands.command(name="export", description=catalogue.describe(
        "discord", "game export"))
    @app_commands.describe(game=GAME_HELP)
    async def export(self, interaction: discord.Interaction[Any],
                     game: GameOption | None = None) -> None:
        bot = bot_of(interaction)
        await defer(interaction, ephemeral=True)
        info = await bot.game_of(interaction, game)
        actor, _ = await _reader(bot, interaction, info)
        record = await bot.port.export(info.id, actor)
        label = fmt.game_label(info)
        if record.full:
            name, text = f"umpire-{info.id}.jsonl", f"Record of {label}"
        else:
            name = f"umpire-{info.id}-{record.audience}.jsonl"
            text = (f"Your view of the record of {label} ({record.audience}): what you may "
                    "see of each action. The full record — both sides' secrets, verifiable — "
                    "is for everyone when the game is over (the GM at any time).")
        fitted = limits.fit_attachment(record.jsonl(), name)
        if isinstance(fitted, str):  # too large even gzipped: said, never dropped silently
            where = (f" The bot's operator can write it with `umpire export {info.id}`."
                     if record.full else " `/game log` shows the last actions.")
            await reply(interaction, f"{text}\nIt cannot be sent here: {fitted}.{where}",
                        ephemeral=True)
            return
        if fitted.note:
            text += f" — {fitted.note}"
        await reply(interaction, text, file=discord.File(io.BytesIO(fitted.data), fitted.name),
                    ephemeral=True)

    @app_commands.command(name="dice", description=catalogue.describe(
        "discord", "game dice"))
    @app_commands.describe(game=GAME_HELP)
    async def dice(self, interaction: discord.Interaction[Any],
                   game: GameOption | None = None) -> None:
        bot = bot_of(interaction)
        await defer(interaction, ephemeral=True)
        info = await bot.game_of(interaction, game)
        text = (f"Dice commitment of {fmt.game_label(info)}: `{info.commitment}` "
                "(sha256 of the secret seed, published at the start).")
        if info.status == "finished":
            actor = bot.actor(interaction)
            seed = await bot.port.reveal_seed(info.id, actor)
            record = await bot.port.export(info.id, actor)
            checked = await bot.port.call(verify, record.lines, seed)
            verdict = ("every roll verified" if checked.ok
                       else "PROBLEMS: " + "; ".join(checked.problems[:5]))
            text += (f"\nSeed: `{seed}`\nVerification: {verdict} "
                     f"({checked.rolls_checked} rolls checked, {checked.rolls_forced} "
                     f"set by the GM, {checked.actions} actions replayed).")
        await announce(interaction, text)

    @app_commands.command(name="standing", description=catalogue.describe(
        "discord", "game standing"))
    @app_commands.describe(kind="kind of decision", policy="policy, or 'off'", game=GAME_HELP)
    async def standing(self, interaction: discord.Interaction[Any], kind: str, policy: str,
                       game: GameOption | None = None) -> None:
        bot = bot_of(interaction)
        await submit_order(bot, interaction, f"standing {kind} {policy}",
                           await bot.game_of(interaction, game))

    @standing.autocomplete("kind")
    async def standing_kind(self, interaction: discord.Interaction[Any],
                            current: str) -> list[app_commands.Choice[str]]:
        bot = bot_of(interaction)
        info = await game_quietly(bot, interaction)
        if info is None:
            return []
        kinds = sorted({p.kind for p in bot.port.rules(info.game).standing_policies()})
        return choices(rank(kinds, current))

    @standing.autocomplete("policy")
    async def standing_policy(self, interaction: discord.Interaction[Any],
                              current: str) -> list[app_commands.Choice[str]]:
        bot = bot_of(interaction)
        info = await game_quietly(bot, interaction)
        if info is None:
            return []
        kind = str(getattr(interaction.namespace, "kind", "") or "")
        policies = bot.port.rules(info.game).standing_policies()
        names = [p.policy for p in policies if not kind or p.kind == kind] + ["off"]
        return choices(rank(names, current))

    @app_commands.command(name="deadline", description=catalogue.describe(
        "discord", "game deadline"))
    @app_commands.describe(hours="hours per turn or decision")
    async def deadline(self, interaction: discord.Interaction[Any], hours: float) -> None:
        bot = bot_of(interaction)
        info = await bot.game_of(interaction)
        gm = await bot.require_gm(interaction, info)
        seconds = hours_to_seconds(hours if hours > 0 else None)
        info = await bot.port.set_deadline(info.id, gm, seconds)
        text = (f"Deadline: {hours:g} h per turn or decision (reminders before it ends)."
                if seconds else "Deadlines are off.")
        await reply(interaction, text, ephemeral=False)

    @app_commands.command(name="undo", description=catalogue.describe(
        "discord", "game undo"))
    @app_commands.describe(game=GAME_HELP)
    async def undo(self, interaction: discord.Interaction[Any],
                   game: GameOption | None = None) -> None:
        bot = bot_of(interaction)
        await defer(interaction, ephemeral=True)
        info = await bot.game_of(interaction, game)
        result = await bot.port.undo(info.id, bot.actor(interaction))
        if not result.ok:
            raise Refusal(fmt.refusal(result.error, result.error_rule, result.legal))
        await bot.acknowledge_and_publish(
            interaction, info, result, reply(interaction, fmt.result_ack(result), ephemeral=True))
