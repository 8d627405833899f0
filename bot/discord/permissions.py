"""Who may do what, as far as Discord knows it: GMs and DM-only commands.

Seats (which side a player holds) are the service's business. Discord decides only who
counts as a GM: the game's creator, holders of the GM role (default "Umpire GM",
configurable), and server administrators.
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


def is_gm(interaction: discord.Interaction[Any], creator_id: str | None,
          gm_role: str = DEFAULT_GM_ROLE) -> bool:
    """GM of a game: its creator, a holder of ``gm_role``, or a server administrator.

    Role and administrator rights count only inside a server; in a DM only the creator is
    recognised (roles cannot be checked there).
    """
    if creator_id is not None and str(interaction.user.id) == str(creator_id):
        return True
    return is_admin(interaction) or has_role(interaction, gm_role)
