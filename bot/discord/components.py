"""Buttons and select menus: answering decisions, confirming a GM rollback.

The state of each control lives in its ``custom_id`` (game id, the action number it was
made for, the option's index), so buttons keep working after a restart
(:class:`discord.ui.DynamicItem`). A click is honoured only for the player who owes the
decision, and only while the game is still at that action.

In the public thread the decision prompt carries one "Choose" button: the options
themselves can reveal secrets (kernel: only the owing side sees them), so pressing it
shows them to the owing player alone, ephemerally. The owing player also gets the
option buttons in a DM.

Controls reach the bot through :class:`Host` — what a control needs of it — so this
module imports no client and the client may import it.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

import discord

from adjudicator.kernel.decisions import Option
from adjudicator.kernel.events import PUBLIC
from bot.discord import formatting as fmt
from bot.discord.errors import Refusal
from bot.discord.port import ServicePort, players_of
from bot.messages import Message
from bot.service import Actor, GameInfo, SubmitResult

log = logging.getLogger("umpire.discord")

#: Discord limits: 25 buttons (5 rows of 5), 25 select options, 80-character labels.
MAX_BUTTONS = 20
MAX_SELECT = 25
LABEL = 80
#: How long a rollback preview may be confirmed.
ROLLBACK_TTL = 15 * 60.0

_ID = r"[A-Za-z0-9_-]+"


class Host(Protocol):
    """What a control needs of the bot."""

    port: ServicePort
    rollbacks: PendingRollbacks

    def actor(self, interaction: discord.Interaction[Any]) -> Actor: ...

    async def guarded(self, interaction: discord.Interaction[Any],
                      work: Callable[[], Awaitable[None]]) -> None: ...

    async def after_action(self, interaction: discord.Interaction[Any], info: GameInfo,
                           result: SubmitResult) -> None: ...

    async def acknowledge_and_publish(self, interaction: discord.Interaction[Any],
                                      info: GameInfo, result: SubmitResult,
                                      acknowledgement: Awaitable[None], told: bool = False
                                      ) -> None: ...

    async def mark_undone(self, info: GameInfo, to_seq: int) -> int: ...


def host(interaction: discord.Interaction[Any]) -> Host:
    return cast(Host, interaction.client)


@dataclass(frozen=True)
class PendingRollback:
    game_id: str
    to_seq: int
    reason: str
    gm_id: int
    head: int
    made: float


class PendingRollbacks:
    """Rollback previews waiting for their GM's confirmation; they expire. Kept in the
    store, so a preview made through one bot process is confirmed through any other."""

    def __init__(self, port: ServicePort, ttl: float = ROLLBACK_TTL,
                 clock: Callable[[], float] = time.time) -> None:
        self.port, self.ttl, self.clock = port, ttl, clock

    def add(self, token: str, game_id: str, to_seq: int, reason: str, gm_id: int,
            head: int) -> None:
        self.port.hold_rollback(token, game_id, str(gm_id), to_seq, reason, head,
                                expires=self.clock() + self.ttl)

    def take(self, token: str) -> PendingRollback | None:
        row = self.port.take_rollback(token, now=self.clock())
        if row is None:
            return None
        return PendingRollback(str(row["game_id"]), int(row["to_seq"]), str(row["reason"]),
                               int(row["gm"]), int(row["head_seq"]),
                               float(row["expires"]) - self.ttl)

    def __len__(self) -> int:
        return self.port.held_rollbacks(now=self.clock())


def options_of(message: Message) -> list[Option]:
    if message.view is not None and message.view.pending is not None:
        return list(message.view.pending.options)
    out = []
    for line in message.options:
        order, _, label = line.partition("   ")
        out.append(Option(order=order.strip(), label=label.strip()))
    return out


async def shown_options(port: ServicePort, game_id: str, options: Sequence[Option]
                        ) -> list[Option]:
    """``options`` as players type them, for display only: unit ids by their short names
    (``decide tie r115rb:1rb115`` -> ``decide tie 1rb115``). The stored option texts do not
    change: a button or menu entry answers by its index into the live decision."""
    if not options:
        return []
    texts = [o.order for o in options] + [o.label for o in options]
    short = await port.short_texts(game_id, texts)
    return [o.model_copy(update={"order": order, "label": text}) for o, order, text in zip(
        options, short[:len(options)], short[len(options):], strict=True)]


def label(option: Option, limit: int = LABEL) -> str:
    text = f"{option.label} ({option.order})" if option.label else option.order
    return fmt.clip(text, limit)


def choose_view(game_id: str, seq: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ChooseButton(game_id, seq))
    return view


def options_view(game_id: str, seq: int, message: Message | None = None,
                 options: list[Option] | None = None) -> discord.ui.View | None:
    """Buttons (or a select menu) for each legal answer; None if there are too many."""
    options = options if options is not None else options_of(message) if message else []
    if not options or len(options) > MAX_SELECT:
        return None
    view = discord.ui.View(timeout=None)
    if len(options) <= MAX_BUTTONS:
        for index, option in enumerate(options):
            view.add_item(OptionButton(game_id, seq, index, label(option)))
    else:
        view.add_item(OptionSelect(game_id, seq, options))
    return view


def rollback_view(token: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(RollbackConfirm(token))
    return view


#: How many actions after a decision's post its buttons look back through.
STILL_OPEN_LOOKBACK = 20


async def _still_open(bot: Host, game_id: str, actor: Actor, seq: int, head: int,
                      owing: str) -> bool:
    """Whether the decision posted at action ``seq`` is still the one pending: nothing
    but standing orders (the owing side's, read; another side's, withheld) came since."""
    if head == seq:
        return True
    if not 0 < head - seq <= STILL_OPEN_LOOKBACK:
        return False
    since = [e for e in await bot.port.log(game_id, actor, head - seq) if e.seq > seq]
    return len(since) == head - seq and all(
        (e.text or "").split()[:1] == ["standing"] or (e.withheld and e.side != owing)
        for e in since)


async def _owing(bot: Host, interaction: discord.Interaction[Any], game_id: str,
                 seq: int) -> tuple[GameInfo, str, Actor]:
    """The game and the owing side, if the clicking user owes this (still open) decision."""
    info = await bot.port.info(game_id)
    if info.paused:
        raise Refusal(f"The game is paused by the GM ({info.pause_reason}): decisions wait "
                      "until the GM resumes it.")
    actor = bot.actor(interaction)
    public = await bot.port.view(game_id, actor, PUBLIC)
    if public.pending is None or not await _still_open(bot, game_id, actor, seq,
                                                         info.head_seq, public.pending.side):
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
    bot = host(interaction)

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
            raise Refusal(fmt.refusal(result.error, result.error_rule, result.legal))
        content = interaction.message.content if interaction.message else ""

        async def acknowledge() -> None:
            try:
                await interaction.edit_original_response(
                    content=fmt.clip(f"{content}\nAnswered: **{label(chosen)}**"), view=None)
            except discord.HTTPException:  # stored all the same; the thread post says so
                log.info("could not mark the decision message answered")

        await bot.acknowledge_and_publish(interaction, info, result, acknowledge())

    await bot.guarded(interaction, work)


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
        bot = host(interaction)

        async def work() -> None:
            _, side, actor = await _owing(bot, interaction, self.game_id, self.seq)
            view = await bot.port.view(self.game_id, actor, side)
            pending = view.pending
            assert pending is not None
            buttons = options_view(self.game_id, self.seq, options=await shown_options(
                bot.port, self.game_id, pending.options))
            text = f"{pending.prompt}" + (f" (rule {pending.rule})" if pending.rule else "")
            if buttons is None:
                text += "\nToo many options for buttons: use /decide (it autocompletes)."
                await interaction.response.send_message(fmt.clip(text), ephemeral=True)
            else:
                await interaction.response.send_message(fmt.clip(text), ephemeral=True,
                                                        view=buttons)

        await bot.guarded(interaction, work)


class OptionButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=rf"umpire:dec:(?P<gid>{_ID}):(?P<seq>\d+):(?P<index>\d+)"):
    def __init__(self, game_id: str, seq: int, index: int, text: str = "option") -> None:
        super().__init__(discord.ui.Button(
            label=text, style=discord.ButtonStyle.secondary,
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
        choices = [discord.SelectOption(label=label(o, 100), value=str(i))
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
    """Confirms a previewed GM rollback. Previews are kept in the store and expire
    (:data:`ROLLBACK_TTL`): a restart or another bot process confirms them alike."""

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
        bot = host(interaction)

        async def work() -> None:
            entry = bot.rollbacks.take(self.token)
            if entry is None:
                raise Refusal("This preview has expired; run /gm rollback again.")
            if str(interaction.user.id) != str(entry.gm_id):
                bot.rollbacks.add(self.token, entry.game_id, entry.to_seq, entry.reason,
                                  entry.gm_id, entry.head)
                raise Refusal("Only the GM who asked for this rollback can confirm it.")
            info = await bot.port.info(entry.game_id)
            if info.head_seq != entry.head:
                raise Refusal("The game moved on since the preview; run /gm rollback again.")
            await interaction.response.defer()
            gm = bot.actor(interaction)
            # what the thread is told was undone: the public log of those actions
            undone = [e for e in await bot.port.log(
                entry.game_id, gm, info.head_seq - entry.to_seq, audience=PUBLIC)
                if e.seq > entry.to_seq]
            result = await bot.port.rollback(entry.game_id, gm, entry.to_seq, entry.reason)
            if not result.ok:
                raise Refusal(fmt.refusal(result.error, result.error_rule, result.legal))
            # players never see action numbers: the notice says where the game is again
            where = fmt.moment(await bot.port.view(entry.game_id, gm, PUBLIC))
            result = result.model_copy(update={"messages": {
                audience: message.model_copy(update={
                    "lines": [fmt.rollback_line(line, where) for line in message.lines]})
                for audience, message in result.messages.items()}})
            try:
                await interaction.edit_original_response(
                    content=f"Rolled back to {where}. {fmt.result_ack(result)}", view=None)
            except discord.HTTPException:
                log.info("could not mark the rollback preview done")
            await bot.mark_undone(info, entry.to_seq)
            await bot.after_action(interaction, info, result)
            if undone:
                await interaction.followup.send(fmt.clip(
                    "**Undone by the rollback** (these no longer stand):\n"
                    + fmt.clip_lines(fmt.undone_lines(undone), 1800, more="/game log")),
                    ephemeral=False)

        await bot.guarded(interaction, work)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    ChooseButton, OptionButton, OptionSelect, RollbackConfirm)
