"""The page's click-to-order read (docs/web.md, *The page*), beside the API of
:mod:`bot.web.routes` (whose ``api/geometry`` gives the map's shapes):
``GET /s/TOKEN/api/entries[?side=SIDE]``: the link's side's legal orders read for clicking
(:func:`bot.listing.entries`: each order with its units and places), the same complete
listing every frontend uses; the standing orders its rules offer and those set.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from aiohttp import web

from bot.service import LinkHolder
from bot.service.text import MAX_ID, BadText, check_text
from bot.web.routes import READS, error, read


def compressed(response: web.Response) -> web.Response:
    """``response`` compressed when the browser takes it (a set-up's listing is thousands
    of near-identical orders: a phone fetches it after every action; the map's shapes are
    hundreds of polygons). These answers echo nothing a request sends and hold no token."""
    response.enable_compression()
    return response


def _entries(request: web.Request, holder: LinkHolder, side: str | None) -> dict[str, Any]:
    """The side's legal orders, the standing orders its rules offer (each kind's policies,
    the defaults marked) and those it has set."""
    asked = side if holder.role == "gm" else holder.side
    if holder.role == "observer" or asked is None:
        return {"entries": [], "standing": [], "set": {}}
    service = request.app[READS].service
    entries = service.legal_entries(holder.game_id, holder.actor, asked)
    prompt = service.prompt(holder.game_id, holder.actor, asked)
    policies = service.rules(holder.game_id).standing_policies() \
        if prompt.status == "active" else []
    return {"entries": [dataclasses.asdict(entry) for entry in entries],
            "standing": [policy.model_dump(mode="json") for policy in policies],
            "set": prompt.standing}


async def entries_json(request: web.Request) -> web.StreamResponse:
    """``GET /s/TOKEN/api/entries[?side=SIDE]``: the legal orders with their units and places
    (a GM's link names the side)."""
    side = request.query.get("side")
    try:
        check_text(side, "the side", limit=MAX_ID)
    except BadText as refusal:
        return error(400, str(refusal), "input")
    found = await read(request, lambda holder: _entries(request, holder, side or None))
    return found if isinstance(found, web.Response) else compressed(web.json_response(found[1]))


def add_routes(app: web.Application) -> None:
    app.router.add_get("/s/{token}/api/entries", entries_json)
