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
from adjudicator.kernel.game import Game
from adjudicator.kernel.spec import Option
from bot.discord import formatting as fmt
from bot.discord.autocomplete import MAX_CHOICE_LENGTH, rank, suggest, suggest_orders
from bot.discord.core import Refusal, UmpireBot, format_result_ack
from bot.discord.permissions import in_dm
from bot.discord.verbs import VerbCommand, is_secret_order, verb_commands
from bot.service import GameInfo, ServiceError

GAME_OPTION = "game id, if you play several"
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
    if not in_dm(interaction) and (
            is_secret_order(rules, text)
            or await bot.port.call(bot.port.service.is_private, info.id, bot.actor(interaction),
                                   text)):
        raise Refusal(SECRET_REFUSAL)  # e.g. a plain placement in a face-down set-up
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


def _annotation(option: Option) -> Any:
    if option.flag:
        annotation: Any = bool
    elif option.choices:
        annotation = Literal[option.choices]
    elif option.kind is not None and option.kind.name == "number":
        annotation = int
    else:
        annotation = str
    return annotation if option.required else Optional[annotation]  # noqa: UP045


def _verb_command(bot: UmpireBot, keys: frozenset[str], rules: Game[Any],
                  command: VerbCommand) -> app_commands.Command[Any, Any, None]:
    """The subcommand of one verb: its options are the verb's slots, plus ``game``.
    ``keys``: the names of the games (variants of ``rules``) it gives orders in."""
    spec = rules.order_spec
    assert spec is not None
    verb = command.verb

    async def callback(interaction: discord.Interaction[Any], /, **values: Any) -> None:
        async def work() -> None:
            if verb.verb.secret and not in_dm(interaction):
                raise Refusal(SECRET_REFUSAL)
            info = await bot.game_of(interaction, values.pop("game", None))
            if info.game not in keys:
                raise Refusal(f"game `{info.id}` is not {rules.title}: use "
                              f"/{bot.port.rules(info.game).name} or /order for it")
            try:
                text = spec.build(verb.name, values)
            except RuleError as error:
                raise Refusal(fmt.refusal(str(error), None, error.legal)) from error
            await submit_order(bot, interaction, text, info)

        await bot.handle(interaction, work)

    parameters = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    descriptions: dict[str, str] = {}
    for option in command.options():
        parameters.append(inspect.Parameter(
            option.field, inspect.Parameter.KEYWORD_ONLY, annotation=_annotation(option),
            default=inspect.Parameter.empty if option.required else None))
        descriptions[option.field] = fmt.clip(verb.description(option), 100)
    parameters.append(inspect.Parameter("game", inspect.Parameter.KEYWORD_ONLY,
                                        annotation=Optional[str], default=None))  # noqa: UP045
    descriptions["game"] = GAME_OPTION
    callback.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    callback.__discord_app_commands_param_description__ = descriptions  # type: ignore[attr-defined]
    rules_text = f" ({', '.join(verb.verb.rules)})" if verb.verb.rules else ""
    secret = " — in a DM with me" if verb.verb.secret else ""
    described = fmt.clip(f"{verb.verb.help}{secret}{rules_text}", 100)
    made: app_commands.Command[Any, Any, None] = app_commands.Command(
        name=command.path[-1], description=described, callback=callback)

    async def complete(interaction: discord.Interaction[Any],
                       current: str) -> list[app_commands.Choice[str]]:
        name = focused_option(interaction.data)
        if name == "game":
            return await game_choices(bot, interaction, current)
        info = await _game_quietly(bot, interaction)
        if info is None or name is None or info.game not in keys:
            return []
        legal = await bot.port.legal_orders(info, bot.actor(interaction))
        filled = {o.field: getattr(interaction.namespace, o.field, None)
                  for o in command.options() if not o.flag}

        def canonical(text: str) -> str | None:
            try:
                return rules.format(rules.parse(text))
            except (RuleError, ValueError):
                return None

        return _choices(suggest(spec, verb, legal, name, filled, current, canonical))

    for option in command.options():
        if not option.choices and not option.flag:
            made.autocomplete(option.field)(complete)
    made.autocomplete("game")(complete)
    return made


class GameOrders(app_commands.Group):
    """``/GAME VERB …``: one subcommand per verb of a game's order spec."""

    def __init__(self, bot: UmpireBot, keys: frozenset[str], rules: Game[Any]) -> None:
        super().__init__(name=rules.name, description=fmt.clip(
            f"Orders of {rules.title} (one per verb; /order takes any notation)", 100))
        groups: dict[str, app_commands.Group] = {}
        spec = rules.order_spec
        assert spec is not None
        for command in verb_commands(rules.name, spec):
            made = _verb_command(bot, keys, rules, command)
            if len(command.path) == 1:
                self.add_command(made)
                continue
            first = command.path[0]
            if first not in groups:
                groups[first] = app_commands.Group(
                    name=first, description=f"{first} … ({rules.title})", parent=self)
            groups[first].add_command(made)


async def game_choices(bot: UmpireBot, interaction: discord.Interaction[Any],
                       current: str) -> list[app_commands.Choice[str]]:
    """The games in progress the user is seated in: short ids as values, names to read."""
    games = [g for g in await bot.port.games_for(bot.actor(interaction))
             if g.status in ("setup", "active")]
    labels = {f"{g.id} — {g.game} ({g.scenario or 'default'})": g.id for g in games}
    return [app_commands.Choice(name=fmt.clip(label, MAX_CHOICE_LENGTH), value=labels[label])
            for label in rank(list(labels), current)]


def _choices(values: list[str]) -> list[app_commands.Choice[str]]:
    """Choices whose value is the whole text: one too long for Discord is left out, never
    cut (a cut value would submit a different order)."""
    return [app_commands.Choice(name=v, value=v) for v in values if len(v) <= MAX_CHOICE_LENGTH]


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
    families: dict[str, list[tuple[str, Game[Any]]]] = {}
    for key, rules in bot.game_rules():
        if rules.order_spec is not None:
            families.setdefault(rules.name, []).append((key, rules))
    for variants in families.values():  # variants of one game share its commands
        keys = frozenset(key for key, _ in variants)
        tree.add_command(GameOrders(bot, keys, variants[0][1]))

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


__all__ = ["GameOrders", "register", "submit_order"]
