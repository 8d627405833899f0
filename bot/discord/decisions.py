"""Buttons and select menus: answering decisions, confirming a GM rollback.

The state of each control lives in its ``custom_id`` (game id, the action number it was
made for, the option's index), so buttons keep working after a restart
(:class:`discord.ui.DynamicItem`). A click is honoured only for the player who owes the
decision, and only while the game is still at that action.

In the public thread the decision prompt carries one "Choose" button: the options
themselves can reveal secrets (kernel: only the owing side sees them), so pressing it
shows them to the owing player alone, ephemerally. The owing player also gets the
option buttons in a DM.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from adjudicator.kernel.decisions import Option
from adjudicator.kernel.events import PUBLIC
from bot.discord import formatting as fmt
from bot.discord.core import Refusal, UmpireBot, format_result_ack
from bot.discord.port import players_of
from bot.messages import Message
from bot.service import Actor, GameInfo

#: Discord limits: 25 buttons (5 rows of 5), 25 select options, 80-character labels.
MAX_BUTTONS = 20
MAX_SELECT = 25
LABEL = 80

_ID = r"[A-Za-z0-9_-]+"


def _options_of(message: Message) -> list[Option]:
    if message.view is not None and message.view.pending is not None:
        return list(message.view.pending.options)
    out = []
    for line in message.options:
        order, _, label = line.partition("   ")
        out.append(Option(order=order.strip(), label=label.strip()))
    return out


def _label(option: Option) -> str:
    text = f"{option.label} ({option.order})" if option.label else option.order
    return fmt.clip(text, LABEL)


def choose_view(game_id: str, seq: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ChooseButton(game_id, seq))
    return view


def options_view(game_id: str, seq: int, message: Message | None = None,
                 options: list[Option] | None = None) -> discord.ui.View | None:
    """Buttons (or a select menu) for each legal answer; None if there are too many."""
    options = options if options is not None else _options_of(message) if message else []
    if not options or len(options) > MAX_SELECT:
        return None
    view = discord.ui.View(timeout=None)
    if len(options) <= MAX_BUTTONS:
        for index, option in enumerate(options):
            view.add_item(OptionButton(game_id, seq, index, _label(option)))
    else:
        view.add_item(OptionSelect(game_id, seq, options))
    return view


def _bot(interaction: discord.Interaction[Any]) -> UmpireBot:
    client = interaction.client
    assert isinstance(client, UmpireBot)
    return client


async def _owing(bot: UmpireBot, interaction: discord.Interaction[Any], game_id: str,
                 seq: int) -> tuple[GameInfo, str, Actor]:
    """The game and the owing side, if the clicking user owes this (still open) decision."""
    info = await bot.port.info(game_id)
    if info.paused:
        raise Refusal(f"The game is paused by the GM ({info.pause_reason}): decisions wait "
                      "until the GM resumes it.")
    actor = bot.actor(interaction)
    public = await bot.port.view(game_id, actor, PUBLIC)
    if info.head_seq != seq or public.pending is None:
        raise Refusal("This decision is no longer open (it was answered, or the game moved "
                      "on).")
    side = public.pending.side
    owners = players_of(info, side)
    if str(interaction.user.id) not in owners:
        who = fmt.mentions(owners) or side
        raise Refusal(f"Only {who} ({side}) can answer this decision.")
    return info, side, actor


async def answer(interaction: discord.Interaction[Any], game_id: str, seq: int,
                 index: int) -> None:
    bot = _bot(interaction)

    async def work() -> None:
        info, side, actor = await _owing(bot, interaction, game_id, seq)
        view = await bot.port.view(game_id, actor, side)
        options = list(view.pending.options) if view.pending else []
        if not 0 <= index < len(options):
            raise Refusal("That option no longer exists.")
        await interaction.response.defer()
        chosen = options[index]
        result = await bot.port.submit(game_id, actor, chosen.order,
                                       f"discord:{interaction.id}", side)
        if not result.ok:
            await bot.reply(interaction, fmt.refusal(result.error, result.error_rule,
                                                     result.legal), ephemeral=True)
            return
        content = interaction.message.content if interaction.message else ""
        await interaction.edit_original_response(
            content=fmt.clip(f"{content}\nAnswered: **{_label(chosen)}**"), view=None)
        await bot.publish(info, result)

    await bot.handle(interaction, work)


class ChooseButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=rf"umpire:choose:(?P<gid>{_ID}):(?P<seq>\d+)"):
    def __init__(self, game_id: str, seq: int) -> None:
        super().__init__(discord.ui.Button(label="Choose…", style=discord.ButtonStyle.primary,
                                           custom_id=f"umpire:choose:{game_id}:{seq}"))
        self.game_id, self.seq = game_id, seq

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]
                             ) -> ChooseButton:
        return cls(match["gid"], int(match["seq"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = _bot(interaction)

        async def work() -> None:
            _, side, actor = await _owing(bot, interaction, self.game_id, self.seq)
            view = await bot.port.view(self.game_id, actor, side)
            pending = view.pending
            assert pending is not None
            buttons = options_view(self.game_id, self.seq, options=list(pending.options))
            text = f"{pending.prompt}" + (f" (rule {pending.rule})" if pending.rule else "")
            if buttons is None:
                text += "\nToo many options for buttons: use /decide (it autocompletes)."
                await bot.reply(interaction, text, ephemeral=True)
            else:
                await bot.reply(interaction, text, ephemeral=True, view=buttons)

        await bot.handle(interaction, work)


class OptionButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=rf"umpire:dec:(?P<gid>{_ID}):(?P<seq>\d+):(?P<index>\d+)"):
    def __init__(self, game_id: str, seq: int, index: int, label: str = "option") -> None:
        super().__init__(discord.ui.Button(
            label=label, style=discord.ButtonStyle.secondary,
            custom_id=f"umpire:dec:{game_id}:{seq}:{index}"))
        self.game_id, self.seq, self.index = game_id, seq, index

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]
                             ) -> OptionButton:
        return cls(match["gid"], int(match["seq"]), int(match["index"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await answer(interaction, self.game_id, self.seq, self.index)


class OptionSelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                   template=rf"umpire:decsel:(?P<gid>{_ID}):(?P<seq>\d+)"):
    def __init__(self, game_id: str, seq: int, options: list[Option] | None = None) -> None:
        choices = [discord.SelectOption(label=_label(o)[:100], value=str(i))
                   for i, o in enumerate(options or [])] or [
                       discord.SelectOption(label="option", value="0")]
        super().__init__(discord.ui.Select(custom_id=f"umpire:decsel:{game_id}:{seq}",
                                           placeholder="Choose your answer", options=choices))
        self.game_id, self.seq = game_id, seq

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]
                             ) -> OptionSelect:
        return cls(match["gid"], int(match["seq"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        index = int(values[0]) if values and values[0].isdigit() else -1
        await answer(interaction, self.game_id, self.seq, index)


class RollbackConfirm(discord.ui.DynamicItem[discord.ui.Button[Any]],
                      template=rf"umpire:rb:(?P<token>{_ID})"):
    """Confirms a previewed GM rollback. Pending previews live in the bot's memory; after a
    restart the GM previews again."""

    def __init__(self, token: str) -> None:
        super().__init__(discord.ui.Button(label="Confirm rollback",
                                           style=discord.ButtonStyle.danger,
                                           custom_id=f"umpire:rb:{token}"))
        self.token = token

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]
                             ) -> RollbackConfirm:
        return cls(match["token"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = _bot(interaction)

        async def work() -> None:
            entry = bot.pending_rollbacks.get(self.token)
            if entry is None:
                raise Refusal("This preview has expired; run /gm rollback again.")
            game_id, to_seq, reason, gm_id, head = entry
            if str(interaction.user.id) != str(gm_id):
                raise Refusal("Only the GM who asked for this rollback can confirm it.")
            info = await bot.port.info(game_id)
            if info.head_seq != head:
                del bot.pending_rollbacks[self.token]
                raise Refusal("The game moved on since the preview; run /gm rollback again.")
            await interaction.response.defer()
            del bot.pending_rollbacks[self.token]
            result = await bot.port.rollback(game_id, bot.actor(interaction), to_seq, reason)
            if not result.ok:
                await bot.reply(interaction, fmt.refusal(result.error, result.error_rule,
                                                         result.legal), ephemeral=True)
                return
            await interaction.edit_original_response(
                content=f"Rolled back to action {to_seq}. {format_result_ack(result)}",
                view=None)
            await bot.publish(info, result)

        await bot.handle(interaction, work)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    ChooseButton, OptionButton, OptionSelect, RollbackConfirm)
