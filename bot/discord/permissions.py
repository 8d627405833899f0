"""Who may do what, as far as Discord knows it: GMs and DM-only commands.

Seats (which side a player holds) are the service's business, and so is being GM: a GM
is a seat. Discord decides only who may *take* a GM seat (with a ``/gm`` command, never
silently): the holders of a GM seat already, the holders of the GM role (default "Umpire
GM", configurable) and server administrators — unless they play in the game: a player never
gets GM rights over their own game from their server role (security round 3, issue 27.3).
"""

from __future__ import annotations

from typing import Any

import discord

DEFAULT_GM_ROLE = "Umpire GM"


def in_dm(interaction: discord.Interaction[Any]) -> bool:
    """Whether the interaction happened in a direct message with the bot."""
    return interaction.guild_id is None or isinstance(
        interaction.channel, discord.DMChannel | discord.GroupChannel)


def is_admin(interaction: discord.Interaction[Any]) -> bool:
    """Administrator in the server (Discord resolves the member's rights in the payload)."""
    return interaction.guild_id is not None and interaction.permissions.administrator


def has_role(interaction: discord.Interaction[Any], role_name: str) -> bool:
    member = interaction.user
    if not isinstance(member, discord.Member):
        return False
    wanted = role_name.casefold()
    return any(role.name.casefold() == wanted for role in member.roles)


def is_gm(interaction: discord.Interaction[Any], seated_gm: bool, plays: bool,
          gm_role: str = DEFAULT_GM_ROLE) -> bool:
    """Whether the user may act as a GM of a game: ``seated_gm`` (they hold one of its GM
    seats; the service decides what that seat may do now), or — when they do not play in
    it (``plays``) — a holder of ``gm_role`` or a server administrator.

    Role and administrator rights count only inside a server; in a DM only a GM seat is
    recognised (roles cannot be checked there).
    """
    if seated_gm:
        return True
    if plays:
        return False
    return is_admin(interaction) or has_role(interaction, gm_role)
