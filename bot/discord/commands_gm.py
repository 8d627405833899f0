"""``/gm``: rollback (preview + confirm), roll-forward, override, roll, pause, resume, seat,
reveal-seed.

Being GM is a seat: the game's creator holds the first; the first GM command of a holder of
the GM role or a server administrator seats them as a GM of that game — unless they play in
it (a player never gets GM rights over their own game), and a GM who also plays has no GM
powers while the game runs (the service refuses). The group is
for servers only, and Discord shows it by default to members who may manage threads
(``default_member_permissions``); a server's admins give it to the GM role in
Server Settings → Integrations. Each command checks GM rights again whoever sees it.
"""

from __future__ import annotations

import secrets
from typing import Any, Literal

import discord
from discord import app_commands

from adjudicator.kernel.errors import RuleError
from bot import commands as catalogue
from bot.discord import formatting as fmt
from bot.discord.components import choose_view, rollback_view
from bot.discord.core import UmpireBot, announce, defer, reply
from bot.discord.errors import Refusal
from bot.discord.links import dm_link
from bot.discord.port import players_of
from bot.discord.transformers import bot_of
from bot.overrides import override_from_words
from bot.service import Actor, GameInfo, SubmitResult

OverrideOp = Literal["force-dice", "answer-decision", "set-standing", "edit"]


def override_op(op: str, args: str) -> dict[str, Any]:
    """A typed override from the GM's words (:func:`bot.overrides.override_from_words`)."""
    try:
        return override_from_words(op, args)
    except RuleError as error:
        raise Refusal(error.message) from error


async def _stored(bot: UmpireBot, interaction: discord.Interaction[Any], info: GameInfo,
                  result: SubmitResult) -> None:
    """Acknowledge a stored GM action to the GM, then publish it."""
    if not result.ok:
        raise Refusal(fmt.refusal(result.error, result.error_rule, result.legal))
    await bot.acknowledge_and_publish(
        interaction, info, result, reply(interaction, fmt.result_ack(result), ephemeral=True))


async def _gm(interaction: discord.Interaction[Any]) -> tuple[UmpireBot, GameInfo, Actor]:
    bot = bot_of(interaction)
    info = await bot.game_of(interaction)
    return bot, info, await bot.require_gm(interaction, info)


async def _override(interaction: discord.Interaction[Any], typed: dict[str, Any],
                    reason: str) -> None:
    await defer(interaction, ephemeral=True)
    bot, info, gm = await _gm(interaction)
    result = await bot.port.override(info.id, gm, typed, reason, f"discord:{interaction.id}")
    await _stored(bot, interaction, info, result)


class GmCommands(app_commands.Group, name="gm", description="Game master tools",
                 guild_only=True, default_permissions=discord.Permissions(manage_threads=True)):

    @app_commands.command(name="rollback", description=catalogue.describe(
        "discord", "gm rollback"))
    @app_commands.describe(to="action number to return to (0: the start)",
                           reason="why (posted publicly)")
    async def rollback(self, interaction: discord.Interaction[Any],
                       to: app_commands.Range[int, 0], reason: str) -> None:
        if not reason.strip():
            raise Refusal("a rollback needs a reason")
        await defer(interaction, ephemeral=True)
        bot, info, gm = await _gm(interaction)
        preview = await bot.port.rollback_preview(info.id, gm, to)
        token = secrets.token_hex(8)
        bot.rollbacks.add(token, info.id, to, reason, interaction.user.id, info.head_seq)
        # what will disappear, as orders and their outcomes (issue 29), not a state diff
        undone = await bot.port.log(info.id, gm, info.head_seq - to)
        reverted = fmt.clip_lines(fmt.undone_lines([e for e in undone if e.seq > to]), 1500,
                                  more="/game log")
        minutes = int(bot.rollbacks.ttl // 60)
        await reply(interaction, fmt.clip(
            f"**Preview — roll {fmt.game_label(info)} back to action {to}**\n"
            f"Undone ({len(preview.reverted)} action(s)):\n{reverted}\n"
            f"Dice rolls discarded: {preview.rolls_discarded}. Reason: {reason}\n"
            f"Confirm within {minutes} minutes."), ephemeral=True, view=rollback_view(token))

    @app_commands.command(name="roll-forward", description=catalogue.describe(
        "discord", "gm roll-forward"))
    async def roll_forward(self, interaction: discord.Interaction[Any]) -> None:
        await defer(interaction, ephemeral=True)
        bot, info, gm = await _gm(interaction)
        report = await bot.port.roll_forward(info.id, gm)
        text = f"Re-applied {len(report.reapplied)}, skipped {len(report.skipped)}."
        if report.stopped_at is not None:
            text += f"\nStopped at action {report.stopped_at}: {report.error}"
        await reply(interaction, text, ephemeral=True)
        for result in report.results:
            if result.ok:
                await bot.after_action(interaction, info, result)

    @app_commands.command(name="override", description=catalogue.describe(
        "discord", "gm override"))
    @app_commands.describe(op="what to change", args="force-dice: `6 6`; answer-decision: an "
                           "option; set-standing: `SIDE KIND POLICY`; edit: `NAME key=value`",
                           reason="why (posted publicly)")
    async def override(self, interaction: discord.Interaction[Any], op: OverrideOp, args: str,
                       reason: str) -> None:
        await _override(interaction, override_op(op, args), reason)

    @app_commands.command(name="roll", description=catalogue.describe(
        "discord", "gm roll"))
    @app_commands.describe(values="die values, e.g. `6 6`", reason="why (posted publicly)")
    async def roll(self, interaction: discord.Interaction[Any], values: str,
                   reason: str) -> None:
        await _override(interaction, override_op("force-dice", values), reason)

    @app_commands.command(name="pause", description=catalogue.describe(
        "discord", "gm pause"))
    @app_commands.describe(reason="why (posted publicly)")
    async def pause(self, interaction: discord.Interaction[Any], reason: str) -> None:
        await defer(interaction, ephemeral=True)
        bot, info, gm = await _gm(interaction)
        result = await bot.port.pause(info.id, gm, reason, f"discord:{interaction.id}")
        await _stored(bot, interaction, info, result)

    @app_commands.command(name="resume", description=catalogue.describe(
        "discord", "gm resume"))
    @app_commands.describe(reason="why (posted publicly)")
    async def resume(self, interaction: discord.Interaction[Any], reason: str) -> None:
        await defer(interaction, ephemeral=True)
        bot, info, gm = await _gm(interaction)
        result = await bot.port.resume(info.id, gm, reason, f"discord:{interaction.id}")
        await _stored(bot, interaction, info, result)

    @app_commands.command(name="seat", description=catalogue.describe(
        "discord", "gm seat"))
    @app_commands.describe(side="the side", player="who plays it from now on",
                           reason="why (posted publicly; kept with the closed seat)",
                           link="re-issue the seat's web link (DM'd to its player; every "
                           "older link stops)")
    async def seat(self, interaction: discord.Interaction[Any], side: str,
                   player: discord.User, reason: str | None = None,
                   link: bool = False) -> None:
        await defer(interaction, ephemeral=True)
        bot, info, gm = await _gm(interaction)
        sides = bot.port.rules(info.game).sides
        if side not in sides:
            raise Refusal(f"unknown side {side!r}; sides are {', '.join(sides)}")
        before = players_of(info, side)
        if before == [str(player.id)] and link:
            sent = await dm_link(bot, info, player.id, side=side, reissue_by=gm)
            await reply(interaction, f"**{side}**'s web link re-issued: every older one has "
                        "stopped" + (f"; the new one was DM'd to {fmt.mention(player.id)}."
                                     if sent else " (no DM could carry the new one: no web "
                                     "URL, or DMs closed)."), ephemeral=True)
            return
        if before == [str(player.id)]:
            raise Refusal(f"{fmt.mention(player.id)} already plays **{side}**.")
        why = (reason or "").strip() or "replaced by the GM"
        if before:
            await bot.port.unseat(info.id, gm, side, why)
        info = await bot.port.seat(info.id, gm, side, Actor.discord(player.id))
        text = f"{fmt.mention(player.id)} now plays **{side}**"
        text += (f", replacing {fmt.mentions(before)} — reason: {why}." if before
                 else " (seated by the GM).")
        view = None
        if info.status == "active" and info.to_act == side:
            public = await bot.port.view(info.id, gm, "public")
            if public.pending is not None:
                text += (f"\n{fmt.mention(player.id)} {public.pending.side} owes a decision: "
                         f"{public.pending.prompt}")
                view = choose_view(info.id, info.head_seq)
            else:
                text += f"\nTo act: **{side}** {fmt.mention(player.id)}"
        await announce(interaction, text, view=view, ping=[str(player.id)])
        await dm_link(bot, info, player.id, side=side)  # the new player's page (docs/web.md)

    @seat.autocomplete("side")
    async def seat_side(self, interaction: discord.Interaction[Any],
                        current: str) -> list[app_commands.Choice[str]]:
        bot = bot_of(interaction)
        try:
            info = await bot.game_of(interaction)
        except Refusal:
            return []
        sides = [s for s in bot.port.rules(info.game).sides
                 if s.casefold().startswith(current.casefold().strip())]
        return [app_commands.Choice(name=s, value=s) for s in sides]

    @app_commands.command(name="reveal-seed", description=catalogue.describe(
        "discord", "gm reveal-seed"))
    async def reveal_seed(self, interaction: discord.Interaction[Any]) -> None:
        await defer(interaction, ephemeral=True)
        bot, info, gm = await _gm(interaction)
        seed = await bot.port.reveal_seed(info.id, gm)
        await reply(interaction, f"Seed of {fmt.game_label(info)}: `{seed}` — check every die "
                    "against the commitment.", ephemeral=True)
