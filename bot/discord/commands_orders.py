"""Order commands: one group per game with one subcommand per verb of its order spec
(``/stalingrad move``, ``/tanks hide`` …), ``/order`` for any notation, ``/decide`` for a
pending decision, ``/help`` for the commands and each verb.

Secret orders (``/tanks hide``, ``/tanks mine`` and the like) are read only in a DM with
the bot; in a channel they are refused ephemerally without reading or repeating their
content.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, Literal, Optional

import discord
from discord import app_commands

from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.game import Game
from adjudicator.kernel.spec import Option
from bot import commands as catalogue
from bot.discord import formatting as fmt
from bot.discord.autocomplete import (
    LISTING_WAIT,
    MAX_CHOICE_LENGTH,
    MAX_CHOICES,
    choice_key,
    expand_key,
    is_key,
    labelled,
    matches,
    rank,
    suggest,
    suggest_orders,
    typed_value,
    unlisted_slots,
)
from bot.discord.components import shown_options
from bot.discord.core import UmpireBot, defer
from bot.discord.errors import Refusal
from bot.discord.transformers import GAME_HELP, GameOption, bot_of
from bot.discord.verbs import VerbCommand, verb_commands
from bot.listing import canonical_order
from bot.service import GameInfo, ServiceError

#: The ``game`` option of every order subcommand (short: a game's command repeats it for
#: each verb, and Discord counts every character of a command, see bot.discord.limits).
ORDER_GAME_HELP = "game id, if several"
#: Rule numbers a subcommand's description quotes (more are on /help GAME VERB).
#: How many values of a slot are asked of the rules, at most, when the legal list cannot
#: filter them (a move's final facing): each check applies the order to a copy (~3 ms).
CHECKED_VALUES = 120
DESCRIPTION_RULES = 2
#: Most characters of a subcommand's description (Discord allows 100; the whole of a
#: game's command must stay within bot.discord.limits.COMMAND_BUDGET). /help GAME VERB
#: gives the whole text.
DESCRIPTION_CHARS = 80
#: Where the order commands may be used: servers and the DM with the bot.
ANYWHERE = app_commands.AppCommandContext(guild=True, dm_channel=True)
GUILD_INSTALL = app_commands.AppInstallationType(guild=True)


def focused_option(data: Any) -> str | None:
    """The name of the option being typed in an autocomplete interaction."""
    options = list((data or {}).get("options", []))
    while options:
        option = options.pop(0)
        if option.get("focused"):
            return str(option["name"])
        options.extend(option.get("options", []))
    return None


async def game_quietly(bot: UmpireBot, interaction: discord.Interaction[Any]
                       ) -> GameInfo | None:
    """The game an autocomplete is about, or None (autocomplete never refuses)."""
    typed = getattr(interaction.namespace, "game", None)
    try:
        if isinstance(typed, GameInfo):
            return typed
        if isinstance(typed, str) and typed.strip():
            return await bot.port.info(typed.strip())
        return await bot.game_of(interaction)
    except (Refusal, ServiceError):
        return None


def choices(values: list[str], names: Mapping[str, str] | None = None
            ) -> list[app_commands.Choice[str]]:
    """Choices whose value is the whole text: one too long for Discord is left out, never
    cut (a cut value would submit a different order). ``names``: a place's printed name
    shown after its key ("3 Yellow House"); the value stays the key."""
    return [app_commands.Choice(name=labelled(v, names) if names else v, value=v)
            for v in values if len(v) <= MAX_CHOICE_LENGTH]


async def submit_order(bot: UmpireBot, interaction: discord.Interaction[Any], text: str,
                       info: GameInfo) -> None:
    """Submit ``text`` (one or more order lines) for the user in the game ``info``: the
    service decides whether it is too secret for a thread (:meth:`UmpireBot.submit`)."""
    if not text.strip():
        raise Refusal("no order given")
    await bot.submit(interaction, info, text)


# ---- one group per game --------------------------------------------------------------------


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


def verb_command(keys: frozenset[str], rules: Game[Any], command: VerbCommand
                 ) -> app_commands.Command[Any, Any, None]:
    """The subcommand of one verb: its options are the verb's slots, plus ``game``.
    ``keys``: the names of the games (variants of ``rules``) it gives orders in."""
    spec = rules.order_spec
    verb = command.verb

    async def callback(interaction: discord.Interaction[Any], /, **values: Any) -> None:
        bot = bot_of(interaction)
        await defer(interaction, ephemeral=True)  # before any look-up: Discord's 3 s
        info = await bot.game_of(interaction, values.pop("game", None))
        if info.game not in keys:
            raise Refusal(f"game `{info.id}` is not {rules.title}: use "
                          f"/{bot.port.rules(info.game).name} or /order for it")
        try:
            text = spec.build(verb.name, values)
        except RuleError as error:
            raise Refusal(fmt.refusal(error.message, None, error.legal)) from error
        await submit_order(bot, interaction, text, info)

    parameters = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    descriptions: dict[str, str] = {"game": ORDER_GAME_HELP}
    game = inspect.Parameter("game", inspect.Parameter.KEYWORD_ONLY,
                             annotation=Optional[GameOption],  # noqa: UP045
                             default=None)
    for option in command.options():
        if not option.required and game not in parameters:
            parameters.append(game)  # the first optional one: Discord wants required first
        parameters.append(inspect.Parameter(
            option.field, inspect.Parameter.KEYWORD_ONLY, annotation=_annotation(option),
            default=inspect.Parameter.empty if option.required else None))
        descriptions[option.field] = fmt.clip(verb.description(option), 100)
    if game not in parameters:
        parameters.append(game)
    callback.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    callback.__discord_app_commands_param_description__ = descriptions  # type: ignore[attr-defined]
    quoted = list(verb.verb.rules[:DESCRIPTION_RULES])
    if len(verb.verb.rules) > DESCRIPTION_RULES:
        quoted[-1] += " …"
    rules_text = f" ({', '.join(quoted)})" if quoted else ""
    secret = " — DM only" if verb.verb.secret else ""
    tail = f"{secret}{rules_text}"
    made: app_commands.Command[Any, Any, None] = app_commands.Command(
        name=command.path[-1], description=_words(verb.verb.help, DESCRIPTION_CHARS - len(tail))
        + tail, callback=callback)

    area_slots = {o.field for o in command.options()
                  if o.kind is not None and o.kind.name == "area"}

    async def complete(interaction: discord.Interaction[Any],
                       current: str) -> list[app_commands.Choice[str]]:
        bot = bot_of(interaction)
        name = focused_option(interaction.data)
        info = await game_quietly(bot, interaction)
        if info is None or name is None or info.game not in keys:
            return []
        # every legal order, never a sample: what is typed is searched (issue 29)
        legal = await bot.port.legal_orders(info, bot.actor(interaction), complete=True,
                                            within=LISTING_WAIT)
        filled = {o.field: getattr(interaction.namespace, o.field, None)
                  for o in command.options() if not o.flag}

        def canonical(text: str) -> str | None:
            return canonical_order(rules, text)

        places = rules.place_names() if name in area_slots else None
        loose = unlisted_slots(spec, verb, legal, name, filled)
        if not loose:
            return choices(suggest(spec, verb, legal, name, filled, current, canonical,
                                   names=places), places)
        # a part the legal list leaves out (a move's final facing, 8.3): the values that fit
        # the rest, each asked of the rules with it
        kept = {k: v for k, v in filled.items() if k not in loose}
        values = suggest(spec, verb, legal, name, kept, current, canonical, CHECKED_VALUES,
                         places)
        given = {k: v for k, v in filled.items() if v and k != name}
        orders: dict[str, str] = {}
        for value in values:
            try:
                orders[spec.build(verb.name, {**given, name: value})] = value
            except RuleError:
                continue
        accepted = await bot.port.accepted(info.id, bot.actor(interaction), list(orders),
                                           MAX_CHOICES)
        return choices([orders[order] for order in accepted], places)

    for option in command.options():
        if not option.choices and not option.flag:
            made.autocomplete(option.field)(complete)
    return made


def _words(text: str, limit: int) -> str:
    """``text`` cut at a word to at most ``limit`` characters (marked "…")."""
    if len(text) <= limit:
        return text
    cut = text[:limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:—(")
    return cut + "…"


class GameOrders(app_commands.Group):
    """``/GAME VERB …``: one subcommand per verb of a game's order spec."""

    def __init__(self, keys: frozenset[str], rules: Game[Any]) -> None:
        super().__init__(name=rules.name, description=fmt.clip(
            f"{rules.title} orders, one per verb (/order takes any)", 100),
            allowed_contexts=ANYWHERE, allowed_installs=GUILD_INSTALL)
        spec = rules.order_spec
        groups: dict[str, app_commands.Group] = {}
        for command in verb_commands(rules.name, spec):
            made = verb_command(keys, rules, command)
            if len(command.path) == 1:
                self.add_command(made)
                continue
            first = command.path[0]
            if first not in groups:
                groups[first] = app_commands.Group(
                    name=first, description=fmt.clip(f"{first} … ({rules.name})", 100),
                    parent=self)
            groups[first].add_command(made)


def game_groups(games: list[tuple[str, Game[Any]]]) -> list[GameOrders]:
    """One group per game with an order spec; variants of one game (the same name)
    share it."""
    families: dict[str, list[tuple[str, Game[Any]]]] = {}
    for key, rules in games:
        families.setdefault(rules.name, []).append((key, rules))
    return [GameOrders(frozenset(key for key, _ in variants), variants[0][1])
            for variants in families.values()]


# ---- /order, /decide, /help ------------------------------------------------------------------


class OrderModal(discord.ui.Modal, title="Orders"):
    text: discord.ui.TextInput[OrderModal] = discord.ui.TextInput(
        label="One order per line", style=discord.TextStyle.paragraph, max_length=1800)

    def __init__(self, info: GameInfo) -> None:
        super().__init__(custom_id=f"umpire:orders:{info.id}")
        self.info = info

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)

        async def work() -> None:
            await submit_order(bot, interaction, self.text.value, self.info)

        await bot.guarded(interaction, work)


@app_commands.command(name="order", description=catalogue.describe(
        "discord", "order"))
@app_commands.describe(text="e.g. 'move r1 2' — leave empty for a multi-line box",
                       game=GAME_HELP)
@app_commands.allowed_contexts(guilds=True, dms=True)
@app_commands.allowed_installs(guilds=True)
async def order(interaction: discord.Interaction[Any], game: GameOption | None = None,
                text: str | None = None) -> None:
    bot = bot_of(interaction)
    if text is None:
        await interaction.response.send_modal(OrderModal(await bot.game_of(interaction, game)))
        return
    await defer(interaction, ephemeral=True)  # before any look-up: Discord's 3 s
    info = await bot.game_of(interaction, game)
    lines = [part.strip() for part in text.split(";")]
    if any(is_key(line) for line in lines):
        legal = await bot.port.legal_orders(info, bot.actor(interaction), complete=True)
        expanded = [expand_key(line, legal) if is_key(line) else line for line in lines]
        if None in expanded:
            raise Refusal("that order is no longer legal (the game moved on); type it again")
        lines = [line for line in expanded if line is not None]
    await submit_order(bot, interaction, "\n".join(lines), info)


@order.autocomplete("text")
async def order_text(interaction: discord.Interaction[Any],
                     current: str) -> list[app_commands.Choice[str]]:
    bot = bot_of(interaction)
    info = await game_quietly(bot, interaction)
    if info is None:
        return []
    legal = await bot.port.legal_orders(info, bot.actor(interaction), complete=True,
                                        within=LISTING_WAIT)
    head, _, last = typed_value(current).rpartition(";")
    prefix = head + "; " if head else ""
    out = []
    for found in suggest_orders(legal, last.strip()):
        whole = prefix + found
        if len(whole) <= MAX_CHOICE_LENGTH:
            out.append(app_commands.Choice(name=whole, value=whole))
        elif not prefix:  # one long order: its key, read back when submitted
            out.append(app_commands.Choice(name=fmt.clip(found, MAX_CHOICE_LENGTH),
                                           value=choice_key(found)))
    return out


@app_commands.command(name="decide", description=catalogue.describe(
        "discord", "decide"))
@app_commands.describe(answer="one of the options (autocompletes), or its order text",
                       game=GAME_HELP)
@app_commands.allowed_contexts(guilds=True, dms=True)
@app_commands.allowed_installs(guilds=True)
async def decide(interaction: discord.Interaction[Any], answer: str,
                 game: GameOption | None = None) -> None:
    bot = bot_of(interaction)
    await defer(interaction, ephemeral=True)  # before any look-up: Discord's 3 s
    info = await bot.game_of(interaction, game)
    if is_key(answer):
        view = await bot.port.view(info.id, bot.actor(interaction))
        if view.pending is not None and not view.pending.options:
            raise Refusal(f"waiting for {view.pending.side} to decide: {view.pending.prompt}")
        options = [o.order for o in view.pending.options] if view.pending else []
        found = expand_key(answer, options)
        if found is None:
            raise Refusal("that option is no longer open (it was answered, or the game moved "
                          "on)")
        answer = found
    await submit_order(bot, interaction, answer, info)


@decide.autocomplete("answer")
async def decide_answer(interaction: discord.Interaction[Any],
                        current: str) -> list[app_commands.Choice[str]]:
    bot = bot_of(interaction)
    info = await game_quietly(bot, interaction)
    if info is None:
        return []
    try:
        view = await bot.port.view(info.id, bot.actor(interaction))
    except ServiceError:
        return []
    if view.pending is None or not view.pending.options:
        return []
    scored = []
    current = typed_value(current)
    # shown as players type them (short unit names); the value is the stored option's key
    shown = await shown_options(bot.port, info.id, view.pending.options)
    for index, (option, short) in enumerate(zip(view.pending.options, shown, strict=True)):
        text = f"{short.order} — {short.label}" if short.label else short.order
        score = matches(text, current)
        if score is not None:
            scored.append((score, index, option.order, text))
    return [app_commands.Choice(name=fmt.clip(text, MAX_CHOICE_LENGTH), value=choice_key(order))
            for _, _, order, text in sorted(scored)[:MAX_CHOICES]]


@app_commands.command(name="help", description=catalogue.describe(
        "discord", "help"))
@app_commands.describe(topic="a game (stalingrad), or one of its verbs (tanks move)")
@app_commands.allowed_contexts(guilds=True, dms=True)
@app_commands.allowed_installs(guilds=True)
async def help_(interaction: discord.Interaction[Any], topic: str | None = None) -> None:
    bot = bot_of(interaction)
    games = {rules.name: rules for _, rules in bot.game_rules()}
    if not topic:
        text = HELP + "\n\nGames: " + ", ".join(
            f"`/{name}` ({rules.title})" for name, rules in games.items())
        await interaction.response.send_message(fmt.clip(text), ephemeral=True)
        return
    named = catalogue.command(topic)
    if named is not None and topic.strip().lower() not in games:  # /help map: the command
        shown = named.names.get("discord")
        await interaction.response.send_message(fmt.clip(
            named.help() + (f" — here `/{shown}`" if shown else " — not on Discord")),
            ephemeral=True)
        return
    name, _, verb = topic.strip().partition(" ")
    rules = games.get(name.lower())
    if rules is None:
        raise Refusal(f"no game {name!r} or command; games: {', '.join(games)}")
    try:
        body = rules.help(verb.strip() or None)
    except RuleError as error:
        raise Refusal(fmt.refusal(error.message, None, error.legal)) from error
    first, *rest = fmt.code_pages(f"**{rules.title}** — `/{rules.name} VERB` or `/order`",
                                  body)
    await interaction.response.send_message(first, ephemeral=True)
    for page in rest:  # long help in pages, never cut mid-word (issue 29)
        await interaction.followup.send(page, ephemeral=True)


@help_.autocomplete("topic")
async def help_topic(interaction: discord.Interaction[Any],
                     current: str) -> list[app_commands.Choice[str]]:
    topics: list[str] = []
    for _, rules in bot_of(interaction).game_rules():
        topics.append(rules.name)
        topics += [f"{rules.name} {word}" for word in rules.order_spec.first_words()]
    return choices(rank(list(dict.fromkeys(topics)), current))


HELP = """\
**Umpire** referees board wargames: each game lives in its own thread.
`/game new` a game in a channel · `/game open` games with a free side · `/game join` a side
`/GAME VERB` an order (e.g. `/stalingrad move`) · `/order` any orders in the notation
`/decide` answer a decision (or press **Choose…**) · `/game map`, `/game status`, `/game log`
Secret orders (hidden units, mines) only in a DM with me. `/game leave` before the start,
`/game resign` to give up. GMs: `/gm`. `/help GAME VERB` explains one order."""
