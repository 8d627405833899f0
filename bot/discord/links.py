"""The web page's secret links on Discord (issue 25, docs/web.md): given in a DM when a
player joins or is seated by the GM, and on request (``/game link``). Links are given only
when the bot knows the pages' base URL (``--web-url``): a link to no page helps nobody."""

from __future__ import annotations

import logging

from bot.discord import formatting as fmt
from bot.discord.core import UmpireBot
from bot.service import Actor, GameInfo, WebLink
from bot.web.settings import link_url

log = logging.getLogger("umpire.discord")


def link_text(bot: UmpireBot, info: GameInfo, link: WebLink) -> str:
    """The message carrying a link (to its holder only: a DM or an ephemeral reply)."""
    who = {"gm": "the GM's page", "observer": "the observers' page (public view)"}.get(
        link.role, f"your page as **{link.side}**")
    url = link_url(bot.config.web_url or "", link.path)
    ended = (f" Your {link.revoked} older link(s) no longer work." if link.revoked else "")
    return (f"**{fmt.game_label(info)}** — {who}: <{url}>\nKeep it secret: whoever has it "
            f"{'watches' if link.role == 'observer' else 'plays'} as you.{ended}")


async def dm_link(bot: UmpireBot, info: GameInfo, user_id: str | int, *,
                  side: str | None = None, reissue_by: Actor | None = None) -> bool:
    """DM a seat's holder a new link to their seat (``reissue_by``: the GM replacing every
    older link of ``side``'s seat); whether it was sent. No web URL: nothing is sent."""
    if not bot.config.web_url:
        return False
    player = Actor.discord(user_id)
    service = bot.port.service
    if reissue_by is not None and side is not None:
        link = await bot.port.call(service.reissue_link, info.id, reissue_by, side)
    else:
        link = await bot.port.call(service.issue_link, info.id, player, side=side)
    return await bot.publisher.dm(info, user_id, link_text(bot, info, link))
