"""Order commands: one per verb (``/move``, ``/fire`` …), ``/order`` for any notation,
``/decide`` for a pending decision. Each builds the canonical order text and submits it.

Secret orders (``/hide``, ``/mine`` and the like) are read only in a DM with the bot; in a
channel they are refused ephemerally without reading or repeating their content.
"""

from __future__ import annotations

import inspect
from typing import Any, Literal, Optional

import discord
from discord import app_commands

from adjudicator.kernel.errors import RuleError
from bot.discord import formatting as fmt
from bot.discord.autocomplete import MAX_CHOICE_LENGTH, rank, suggest, suggest_orders
from bot.discord.core import Refusal, UmpireBot, format_result_ack
from bot.discord.permissions import in_dm
from bot.discord.verbs import VERBS, VERBS_BY_NAME, Verb, is_secret_order, template_for
from bot.service import GameInfo, ServiceError

SECRET_REFUSAL = ("Secret orders are accepted only in a direct message with me; nothing you "
                  "typed was read or kept here. Open a DM with Umpire and use the command "
                  "there.")


def focused_option(data: Any) -> str | None:
    """The name of the option being typed in an autocomplete interaction."""
    options = list((data or {}).get("options", []))
    while options:
        option = options.pop(0)
        if option.get("focused"):
            return str(option["name"])
        options.extend(option.get("options", []))
    return None


async def _game_quietly(bot: UmpireBot, interaction: discord.Interaction[Any]) -> GameInfo | None:
    try:
        return await bot.game_of(interaction, getattr(interaction.namespace, "game", None))
    except (Refusal, ServiceError):
        return None


async def submit_order(bot: UmpireBot, interaction: discord.Interaction[Any], text: str,
                       info: GameInfo | None = None, game_id: str | None = None) -> None:
    """Submit ``text`` (one or more order lines) for the user in the interaction's game."""
    if info is None:
        info = await bot.game_of(interaction, game_id)
    rules = bot.port.rules(info.game)
    if not in_dm(interaction) and is_secret_order(rules, text):
        raise Refusal(SECRET_REFUSAL)
    if not text.strip():
        raise Refusal("no order given")
    await bot.defer(interaction, ephemeral=True)
    result = await bot.port.submit(info.id, bot.actor(interaction), text,
                                   f"discord:{interaction.id}")
    if not result.ok:
        await bot.reply(interaction, fmt.refusal(result.error, result.error_rule, result.legal),
                        ephemeral=True)
        return
    if not result.duplicate:
        await bot.publish(info, result)
    await bot.reply(interaction, format_result_ack(result), ephemeral=True)


def _verb_command(bot: UmpireBot, verb: Verb) -> app_commands.Command[Any, Any, None]:
    async def callback(interaction: discord.Interaction[Any], /, **values: Any) -> None:
        async def work() -> None:
            if verb.secret and not in_dm(interaction):
                raise Refusal(SECRET_REFUSAL)
            info = await bot.game_of(interaction, values.pop("game", None))
            text = template_for(bot.port.rules(info.game), verb).build(values)
            await submit_order(bot, interaction, text, info)

        await bot.handle(interaction, work)

    parameters = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    descriptions: dict[str, str] = {}
    for option in verb.options:
        annotation: Any = Literal[option.choices] if option.choices else str
        if not option.required:
            annotation = Optional[annotation]  # noqa: UP045 - a runtime annotation object
        parameters.append(inspect.Parameter(
            option.name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
            default=inspect.Parameter.empty if option.required else None))
        descriptions[option.name] = option.description
    if verb.secret:
        parameters.append(inspect.Parameter("game", inspect.Parameter.KEYWORD_ONLY,
                                            annotation=Optional[str], default=None))  # noqa: UP045
        descriptions["game"] = "game id (needed only if you play several games)"
    callback.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    callback.__discord_app_commands_param_description__ = descriptions  # type: ignore[attr-defined]
    command: app_commands.Command[Any, Any, None] = app_commands.Command(
        name=verb.name, description=verb.description, callback=callback)

    async def complete(interaction: discord.Interaction[Any],
                       current: str) -> list[app_commands.Choice[str]]:
        name = focused_option(interaction.data)
        info = await _game_quietly(bot, interaction)
        if info is None or name is None:
            return []
        if name == "game":
            return _choices(rank([info.id], current))
        legal = await bot.port.legal_orders(info, bot.actor(interaction))
        template = template_for(bot.port.rules(info.game), verb)
        if name not in template.options:
            return []
        filled = {o: getattr(interaction.namespace, o, None) for o in template.options}
        rules = bot.port.rules(info.game)

        def canonical(text: str) -> str | None:
            try:
                return rules.format(rules.parse(text))
            except (RuleError, ValueError):
                return None

        return _choices(suggest(legal, template, name, filled, current, canonical))

    for option in verb.options:
        if not option.choices:
            command.autocomplete(option.name)(complete)
    return command


def _choices(values: list[str]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=v[:MAX_CHOICE_LENGTH], value=v[:MAX_CHOICE_LENGTH])
            for v in values]


class OrderModal(discord.ui.Modal, title="Orders"):
    text: discord.ui.TextInput[OrderModal] = discord.ui.TextInput(
        label="One order per line", style=discord.TextStyle.paragraph, max_length=1800)

    def __init__(self, bot: UmpireBot, info: GameInfo) -> None:
        super().__init__(custom_id=f"umpire:orders:{info.id}")
        self.bot, self.info = bot, info

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        async def work() -> None:
            await submit_order(self.bot, interaction, self.text.value, self.info)

        await self.bot.handle(interaction, work)


def register(bot: UmpireBot) -> None:
    tree = bot.tree
    for verb in VERBS:
        tree.add_command(_verb_command(bot, verb))

    @tree.command(name="order", description="Orders in the game's notation: several separated "
                  "by ';', or none to type many lines")
    @app_commands.describe(text="e.g. 'move r1 2' — leave empty for a multi-line box",
                           game="game id (needed only if you play several games)")
    async def order(interaction: discord.Interaction[Any], text: str | None = None,
                    game: str | None = None) -> None:
        async def work() -> None:
            info = await bot.game_of(interaction, game)
            if text is None:
                await interaction.response.send_modal(OrderModal(bot, info))
                return
            await submit_order(bot, interaction, text.replace(";", "\n"), info)

        await bot.handle(interaction, work)

    @order.autocomplete("text")
    async def order_text(interaction: discord.Interaction[Any],
                         current: str) -> list[app_commands.Choice[str]]:
        info = await _game_quietly(bot, interaction)
        if info is None:
            return []
        legal = await bot.port.legal_orders(info, bot.actor(interaction))
        head, _, last = current.rpartition(";")
        prefix = head + "; " if head else ""
        return _choices([prefix + o for o in suggest_orders(legal, last.strip())])

    @tree.command(name="decide", description="Answer the decision you owe")
    @app_commands.describe(answer="one of the options (autocompletes)",
                           game="game id (needed only if you play several games)")
    async def decide(interaction: discord.Interaction[Any], answer: str,
                     game: str | None = None) -> None:
        async def work() -> None:
            await submit_order(bot, interaction, answer, game_id=game)

        await bot.handle(interaction, work)

    @decide.autocomplete("answer")
    async def decide_answer(interaction: discord.Interaction[Any],
                            current: str) -> list[app_commands.Choice[str]]:
        info = await _game_quietly(bot, interaction)
        if info is None:
            return []
        try:
            view = await bot.port.view(info.id, bot.actor(interaction))
        except ServiceError:
            return []
        if view.pending is None or not view.pending.options:
            return []
        labels = {o.order: o.label for o in view.pending.options}
        ranked = rank([*labels, *(v for v in labels.values() if v)], current)
        orders = [o for o in labels if o in ranked or labels[o] in ranked]
        return [app_commands.Choice(name=fmt.clip(f"{o} — {labels[o]}" if labels[o] else o,
                                                  100), value=o) for o in orders][:25]


__all__ = ["VERBS_BY_NAME", "register", "submit_order"]
