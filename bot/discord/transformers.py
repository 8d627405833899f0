"""The ``game`` option: a game id typed or picked, read as the game it names.

Autocomplete offers the games the user is seated in (the thread's game first) by their
short id, with a readable name; left empty, commands use the thread's game or, in a DM,
the user's only game (:meth:`UmpireBot.game_of`).
"""

from __future__ import annotations

from typing import Any, cast

import discord
from discord import app_commands

from bot.discord import formatting as fmt
from bot.discord.autocomplete import MAX_CHOICE_LENGTH, rank
from bot.discord.core import UmpireBot
from bot.discord.errors import Refusal
from bot.discord.port import players_of
from bot.service import GameInfo, ServiceError

IN_PROGRESS = ("setup", "active", "paused")


def bot_of(interaction: discord.Interaction[Any]) -> UmpireBot:
    return cast(UmpireBot, interaction.client)


class GameTransformer(app_commands.Transformer):
    async def transform(self, interaction: discord.Interaction[Any], value: str) -> GameInfo:
        try:
            return await bot_of(interaction).port.info(value.strip())
        except ServiceError as error:
            raise Refusal(f"no game `{fmt.clip(value, 40)}`: {error}") from error

    async def autocomplete(self, interaction: discord.Interaction[Any],  # type: ignore[override]
                           value: str) -> list[app_commands.Choice[str]]:
        bot = bot_of(interaction)
        games = [g for g in await bot.port.games_for(bot.actor(interaction))
                 if g.status in IN_PROGRESS]
        uid = str(interaction.user.id)
        waiting = {g.id for g in games if g.to_act and uid in players_of(g, g.to_act)}
        # the games waiting for the user first (issue 29: what a DM command defaults to)
        games.sort(key=lambda g: g.id not in waiting)
        channel = interaction.channel
        if isinstance(channel, discord.Thread):
            here = await bot.port.game_for_thread(channel.id)
            if here is not None:
                games = [here, *(g for g in games if g.id != here.id)]
        labels = {fmt.clip(f"{g.id} — {g.game}, {g.scenario_name} ({g.status}"
                           + (", your turn)" if g.id in waiting else ")"),
                           MAX_CHOICE_LENGTH): g.id for g in games}
        return [app_commands.Choice(name=name, value=labels[name])
                for name in rank(list(labels), value)]


#: The annotation of a ``game`` option.
GameOption = app_commands.Transform[GameInfo, GameTransformer]
GAME_HELP = "game id, if you play several"
