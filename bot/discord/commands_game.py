"""``/game``: new, join, start, status, map, log, export, dice, standing, deadline, undo."""

from __future__ import annotations

import io
import json
import uuid
from typing import Any

import discord
from discord import app_commands

from adjudicator.kernel.events import PUBLIC
from adjudicator.registry import UnknownGame, available
from bot.discord import formatting as fmt
from bot.discord.autocomplete import rank
from bot.discord.commands_orders import _choices, _game_quietly, submit_order
from bot.discord.core import Refusal, UmpireBot, format_result_ack, game_label
from bot.discord.permissions import in_dm
from bot.discord.port import CHANNEL_KEY, GUILD_KEY, THREAD_KEY, players_of, viewer_for
from bot.records import verify
from bot.service import Actor, GameInfo, ServiceError


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


def seats_text(bot: UmpireBot, info: GameInfo) -> str:
    lines = []
    for side in bot.port.rules(info.game).sides:
        players = players_of(info, side)
        lines.append(f"{side}: {fmt.mentions(players) or '(free)'}")
    gms = [s.discord_id for s in info.seats if s.role == "gm" and s.discord_id]
    lines.append(f"GM: {fmt.mentions([str(g) for g in gms]) or '(none)'}")
    return "\n".join(lines)


async def _reader(bot: UmpireBot, interaction: discord.Interaction[Any], info: GameInfo
                  ) -> Actor:
    """The actor reading the log or record; a Discord GM is seated as the game's GM first."""
    if bot.is_gm(interaction, info):
        return await bot.require_gm(interaction, info)
    return bot.actor(interaction)


def register(bot: UmpireBot) -> None:
    group = app_commands.Group(name="game", description="Create, join and follow games")

    def games() -> list[str]:
        return [*available(), *bot.config.extra_games]

    @group.command(name="new", description="Create a game and a thread for it in this channel")
    @app_commands.describe(game="which game", scenario="scenario (default: the first)",
                           options="game options: key=value pairs or JSON",
                           side="take a side yourself as well as being the GM")
    async def new(interaction: discord.Interaction[Any], game: str,
                  scenario: str | None = None, options: str | None = None,
                  side: str | None = None) -> None:
        async def work() -> None:
            channel = interaction.channel
            if in_dm(interaction) or not isinstance(channel, discord.TextChannel):
                raise Refusal("create games in a server text channel: the game gets its own "
                              "thread there")
            rules = bot.port.known_rules(game) if game in games() else None
            if rules is None:
                raise Refusal(f"unknown game {game!r}; choose from {', '.join(games())}")
            if scenario is not None and scenario not in rules.scenarios():
                raise Refusal(f"unknown scenario {scenario!r}; choose from "
                              + ", ".join(rules.scenarios()))
            if side is not None and side not in rules.sides:
                raise Refusal(f"unknown side {side!r}; sides are {', '.join(rules.sides)}")
            chosen = parse_options(options)
            await bot.defer(interaction, ephemeral=False)
            game_id = (bot.config.game_ids.pop(0) if bot.config.game_ids
                       else uuid.uuid4().hex[:12])
            title = f"{rules.title} — {scenario or next(iter(rules.scenarios()))}"
            thread = await channel.create_thread(name=fmt.thread_name(title, game_id),
                                                 type=discord.ChannelType.public_thread)
            actor = bot.actor(interaction)
            try:
                info = await bot.port.create_game(
                    actor, game, scenario, chosen,
                    {THREAD_KEY: str(thread.id), CHANNEL_KEY: str(channel.id),
                     GUILD_KEY: str(interaction.guild_id)}, game_id)
            except ServiceError as error:
                await thread.send(f"This game could not be created: {error}")
                raise
            await thread.add_user(interaction.user)
            if side is not None:
                info = await bot.port.call(bot.port.service.seat, info.id, actor, side, actor)
            sides = ", ".join(rules.sides)
            await thread.send(fmt.clip(
                f"**{title}** — game `{info.id}`, GM {interaction.user.mention}.\n"
                f"Take a side with `/game join` here ({sides}); the GM starts with "
                f"`/game start`.\n{seats_text(bot, info)}"))
            await bot.reply(interaction, f"New game `{info.id}`: {thread.mention}",
                            ephemeral=False)

        await bot.handle(interaction, work)

    @new.autocomplete("game")
    async def new_game(interaction: discord.Interaction[Any],
                       current: str) -> list[app_commands.Choice[str]]:
        return _choices(rank(games(), current))

    @new.autocomplete("scenario")
    async def new_scenario(interaction: discord.Interaction[Any],
                           current: str) -> list[app_commands.Choice[str]]:
        rules = bot.port.known_rules(str(getattr(interaction.namespace, "game", "")))
        return _choices(rank(list(rules.scenarios()), current)) if rules else []

    @new.autocomplete("side")
    async def new_side(interaction: discord.Interaction[Any],
                       current: str) -> list[app_commands.Choice[str]]:
        rules = bot.port.known_rules(str(getattr(interaction.namespace, "game", "")))
        return _choices(rank(list(rules.sides), current)) if rules else []

    @group.command(name="join", description="Take a free side in this thread's game")
    async def join(interaction: discord.Interaction[Any], side: str) -> None:
        async def work() -> None:
            info = await bot.game_of(interaction)
            actor = bot.actor(interaction)
            info = await bot.port.call(bot.port.service.seat, info.id, actor, side, actor)
            await bot.reply(interaction, f"{interaction.user.mention} plays **{side}**.\n"
                            f"{seats_text(bot, info)}", ephemeral=False)

        await bot.handle(interaction, work)

    @join.autocomplete("side")
    async def join_side(interaction: discord.Interaction[Any],
                        current: str) -> list[app_commands.Choice[str]]:
        info = await _game_quietly(bot, interaction)
        if info is None:
            return []
        free = [s for s in bot.port.rules(info.game).sides if not players_of(info, s)]
        return _choices(rank(free, current))

    @group.command(name="start", description="Start the game (GM)")
    @app_commands.describe(deadline_hours="time per turn or decision, in hours (optional)")
    async def start(interaction: discord.Interaction[Any],
                    deadline_hours: float | None = None) -> None:
        async def work() -> None:
            info = await bot.game_of(interaction)
            gm = await bot.require_gm(interaction, info)
            seconds = deadline_hours * 3600 if deadline_hours else None
            info = await bot.port.call(bot.port.service.start, info.id, gm,
                                       deadline_seconds=seconds)
            view = await bot.port.view(info.id, gm, PUBLIC)
            to_act = fmt.mentions(players_of(info, info.to_act)) if info.to_act else ""
            await bot.reply(interaction, fmt.clip(
                f"**The game has started.** Dice commitment (sha256 of the secret seed): "
                f"`{info.commitment}`\n{seats_text(bot, info)}\n"
                f"To act: **{view.to_act}** {to_act}"), ephemeral=False)
            await bot.prompt_secret_placement(info)

        await bot.handle(interaction, work)

    @group.command(name="status", description="Seats, whose turn, deadline")
    async def status(interaction: discord.Interaction[Any], game: str | None = None) -> None:
        async def work() -> None:
            info = await bot.game_of(interaction, game)
            deadline = (f"\nDeadline: <t:{int(info.deadline_at)}:R>" if info.deadline_at
                        else "")
            state = (info.result and f"over — {info.result}") or info.status
            if info.paused:
                state += f" by the GM ({info.pause_reason}); the clock is stopped"
            await bot.reply(interaction, fmt.clip(
                f"**{game_label(info)}** ({info.scenario or 'default scenario'}): {state}, "
                f"action {info.head_seq}\nTo act: {info.to_act or '—'}\n"
                f"{seats_text(bot, info)}{deadline}"), ephemeral=True)

        await bot.handle(interaction, work)

    @group.command(name="map", description="The map: public in the thread, or your own view")
    @app_commands.describe(private="show your side's view, only to you",
                           full="the whole map (the usual picture zooms on the last action)")
    async def map_(interaction: discord.Interaction[Any], private: bool = False,
                   game: str | None = None, full: bool = False) -> None:
        async def work() -> None:
            info = await bot.game_of(interaction, game)
            actor = bot.actor(interaction)
            viewer = viewer_for(info, actor, False) if private else PUBLIC
            view = await bot.port.view(info.id, actor, viewer)
            rules = bot.port.rules(info.game)
            prompt = view.pending.prompt if view.pending else None
            text = fmt.board_post(game_label(info), viewer, rules.board_text(view),
                                  view.to_act, view.result, prompt)
            picture = await bot.picture(view, f"{viewer}.png", info, full=full)
            ephemeral = private or in_dm(interaction)
            await bot.reply(interaction, text, ephemeral=ephemeral, file=picture)

        await bot.handle(interaction, work)

    @group.command(name="log", description="The last actions, as you may see them")
    async def log(interaction: discord.Interaction[Any],
                  last: app_commands.Range[int, 1, 50] = 10, game: str | None = None) -> None:
        async def work() -> None:
            info = await bot.game_of(interaction, game)
            actor = await _reader(bot, interaction, info)
            entries = await bot.port.log(info.id, actor, last)
            body = fmt.clip_lines([e.summary() for e in entries], 1850,
                                  more="/game export") or "no actions yet"
            viewer = viewer_for(info, actor, bot.is_gm(interaction, info))
            await bot.reply(interaction, f"**{game_label(info)}** — {viewer} log\n{body}",
                            ephemeral=True)

        await bot.handle(interaction, work)

    @group.command(name="export", description="The game record (JSON lines): full for the GM "
                   "and after the end, your own view during play")
    async def export(interaction: discord.Interaction[Any], game: str | None = None) -> None:
        async def work() -> None:
            info = await bot.game_of(interaction, game)
            actor = await _reader(bot, interaction, info)
            await bot.defer(interaction, ephemeral=True)
            record = await bot.port.export(info.id, actor)
            if record.full:
                name, text = f"umpire-{info.id}.jsonl", f"Record of {game_label(info)}"
            else:
                name = f"umpire-{info.id}-{record.audience}.jsonl"
                text = (f"Your view of the record of {game_label(info)} ({record.audience}): "
                        "what you may see of each action. The full record — both sides' "
                        "secrets, verifiable — is for everyone when the game is over "
                        "(the GM at any time).")
            await bot.reply(interaction, text,
                            file=discord.File(io.BytesIO(record.jsonl()), name),
                            ephemeral=True)

        await bot.handle(interaction, work)

    @group.command(name="dice", description="The dice commitment; verification after the end")
    async def dice(interaction: discord.Interaction[Any], game: str | None = None) -> None:
        async def work() -> None:
            info = await bot.game_of(interaction, game)
            text = (f"Dice commitment of {game_label(info)}: `{info.commitment}` "
                    "(sha256 of the secret seed, published at the start).")
            if info.status == "finished":
                await bot.defer(interaction, ephemeral=False)
                actor = bot.actor(interaction)
                seed = await bot.port.call(bot.port.service.reveal_seed, info.id, actor)
                record = await bot.port.export(info.id, actor)
                checked = await bot.port.call(verify, record.lines, seed)
                verdict = ("every roll verified" if checked.ok
                           else "PROBLEMS: " + "; ".join(checked.problems[:5]))
                text += (f"\nSeed: `{seed}`\nVerification: {verdict} "
                         f"({checked.rolls_checked} rolls checked, {checked.rolls_forced} "
                         f"set by the GM, {checked.actions} actions replayed).")
            await bot.reply(interaction, fmt.clip(text), ephemeral=False)

        await bot.handle(interaction, work)

    @group.command(name="standing", description="Set a standing order that answers a kind of "
                   "decision at once")
    @app_commands.describe(kind="kind of decision", policy="policy, or 'off'")
    async def standing(interaction: discord.Interaction[Any], kind: str, policy: str,
                       game: str | None = None) -> None:
        async def work() -> None:
            await submit_order(bot, interaction, f"standing {kind} {policy}", game_id=game)

        await bot.handle(interaction, work)

    @standing.autocomplete("kind")
    async def standing_kind(interaction: discord.Interaction[Any],
                            current: str) -> list[app_commands.Choice[str]]:
        info = await _game_quietly(bot, interaction)
        if info is None:
            return []
        kinds = sorted({p.kind for p in bot.port.rules(info.game).standing_policies()})
        return _choices(rank(kinds, current))

    @standing.autocomplete("policy")
    async def standing_policy(interaction: discord.Interaction[Any],
                              current: str) -> list[app_commands.Choice[str]]:
        info = await _game_quietly(bot, interaction)
        if info is None:
            return []
        kind = str(getattr(interaction.namespace, "kind", "") or "")
        policies = bot.port.rules(info.game).standing_policies()
        names = [p.policy for p in policies if not kind or p.kind == kind] + ["off"]
        return _choices(rank(names, current))

    @group.command(name="deadline", description="Time per turn or decision (GM); 0 turns it off")
    async def deadline(interaction: discord.Interaction[Any], hours: float) -> None:
        async def work() -> None:
            info = await bot.game_of(interaction)
            gm = await bot.require_gm(interaction, info)
            seconds = hours * 3600 if hours > 0 else None
            try:
                info = await bot.port.call(bot.port.service.set_deadline, info.id, gm, seconds)
            except ValueError as error:
                raise Refusal(str(error)) from error
            text = (f"Deadline: {hours:g} h per turn or decision (reminders before it ends)."
                    if seconds else "Deadlines are off.")
            await bot.reply(interaction, text, ephemeral=False)

        await bot.handle(interaction, work)

    @group.command(name="undo", description="Take back your last order (if it revealed nothing "
                   "and rolled no dice)")
    async def undo(interaction: discord.Interaction[Any], game: str | None = None) -> None:
        async def work() -> None:
            info = await bot.game_of(interaction, game)
            await bot.defer(interaction, ephemeral=True)
            result = await bot.port.call(bot.port.service.undo, info.id, bot.actor(interaction))
            if not result.ok:
                raise Refusal(fmt.refusal(result.error, result.error_rule, result.legal))
            await bot.publish(info, result)
            await bot.reply(interaction, format_result_ack(result), ephemeral=True)

        await bot.handle(interaction, work)

    bot.tree.add_command(group)


__all__ = ["UnknownGame", "parse_options", "register"]
