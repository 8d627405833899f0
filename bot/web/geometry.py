"""Two reads of the page's click-to-order layer (docs/web.md, *The page*), beside the API of
:mod:`bot.web.routes`, from the link's View only:

* ``GET /s/TOKEN/api/geometry``: the map's shapes in the picture's pixels
  (:func:`render.geometry.geometry`: Areas and Zones, hexes, the View's set-up zones and
  counters) — what the page draws as its SVG layer;
* ``GET /s/TOKEN/api/entries[?side=SIDE]``: the link's side's legal orders read for
  clicking (:func:`bot.listing.entries`: each order with its units and places), the same
  complete listing every frontend uses; the standing orders its rules offer and those set.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from aiohttp import web

from bot.service import LinkHolder, ServiceError
from bot.service.text import MAX_ID, BadText, check_text
from bot.web.routes import READS, error, holder_of


def _geometry(request: web.Request, holder: LinkHolder) -> dict[str, Any] | None:
    import render
    from render.geometry import geometry

    service = request.app[READS].service
    view = service.seat_view(holder).view
    rules = service.rules(holder.game_id)
    try:
        return geometry(view, render.load_pack(rules.name, rules.pack)).as_json()
    except render.NoPicture:
        return None


async def geometry_json(request: web.Request) -> web.StreamResponse:
    """``GET /s/TOKEN/api/geometry``: the shapes of the link's picture."""
    holder = await holder_of(request)
    if isinstance(holder, web.Response):
        return holder
    try:
        data = await asyncio.to_thread(_geometry, request, holder)
    except ServiceError as refusal:
        return error(403, str(refusal), "permission")
    if data is None:
        return error(404, "this game has no map picture", "picture")
    return _compressed(web.json_response(data))


def _compressed(response: web.Response) -> web.Response:
    """``response`` compressed when the browser takes it (a set-up's listing is thousands
    of near-identical orders: a phone fetches it after every action). These answers echo
    nothing a request sends and hold no token."""
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
    holder = await holder_of(request)
    if isinstance(holder, web.Response):
        return holder
    side = request.query.get("side")
    try:
        check_text(side, "the side", limit=MAX_ID)
        found = await asyncio.to_thread(_entries, request, holder, side or None)
    except BadText as refusal:
        return error(400, str(refusal), "input")
    except ServiceError as refusal:
        return error(403, str(refusal), "permission")
    return _compressed(web.json_response(found))


def add_routes(app: web.Application) -> None:
    app.router.add_get("/s/{token}/api/geometry", geometry_json)
    app.router.add_get("/s/{token}/api/entries", entries_json)
