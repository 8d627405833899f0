"""The routes of one link (``/s/TOKEN``): the page, its JSON API, its pictures, its replay
and its event stream (docs/web.md, *API*). Each handler resolves the token first (an
unknown, revoked or closed link: 404, the same answer for each), applies the rate limits,
and reads only that link's View through :class:`bot.web.seat.SeatReads`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from aiohttp import web

from bot.service import LinkHolder, NotFound, ServiceError
from bot.service.links import token_hash
from bot.service.text import MAX_ID, BadText, check_text
from bot.web.events import Watchers, wait_changed
from bot.web.seat import SeatReads
from bot.web.security import RateLimiter, too_many
from bot.web.settings import WebSettings
from bot.web.tokens import CSRF_HEADER, csrf_for, csrf_ok

#: The application's keys (aiohttp's typed keys).
READS = web.AppKey("reads", SeatReads)
SETTINGS = web.AppKey("settings", WebSettings)
WATCHERS = web.AppKey("watchers", Watchers)
PER_LINK = web.AppKey("per_link", RateLimiter)
PER_ADDRESS = web.AppKey("per_address", RateLimiter)
SUBMITS = web.AppKey("submits", RateLimiter)
#: The threads storing orders (``WebSettings.orders_at_once``); the orders wait their turn
#: in its queue, in arrival order (issue 26).
ORDERS = web.AppKey("orders", ThreadPoolExecutor)
#: Event streams open per link (by its token's hash).
STREAMS = web.AppKey("streams", dict[str, int])

T = TypeVar("T")

#: The longest order text a submit carries (the service bounds it again, rule-cited).
MAX_ORDER = 8_000


def error(status: int, message: str, rule: str = "web") -> web.Response:
    """A refusal as JSON: what was wrong (``error``) and the rule or guard (``rule``)."""
    return web.json_response({"error": message, "rule": rule}, status=status)


def _address(request: web.Request) -> str:
    return request.remote or "?"


def limited(request: web.Request) -> web.Response | None:
    """The per-address and per-link rate limits (the link counted by its token's hash,
    known or not: guessing is limited too); a refusal when over one."""
    app = request.app
    address = _address(request)
    if not app[PER_ADDRESS].allow(address):
        return too_many(app[PER_ADDRESS], address, "this address")
    hashed = token_hash(request.match_info["token"])
    if not app[PER_LINK].allow(hashed):
        return too_many(app[PER_LINK], hashed, "this link")
    return None


async def holder_of(request: web.Request) -> LinkHolder | web.Response:
    """The link the request's path names, after the rate limits (:func:`limited`); a
    refusal (a :class:`web.Response`) when it is not valid or over a limit."""
    refused = limited(request)
    if refused is not None:
        return refused
    try:
        return await asyncio.to_thread(request.app[READS].service.resolve_link,
                                       request.match_info["token"])
    except ServiceError as refusal:
        return error(404, str(refusal), "link")


def _csrf(request: web.Request) -> str:
    return csrf_for(request.match_info["token"], request.app[SETTINGS].secret)


def _base(request: web.Request) -> str:
    return f"/s/{request.match_info['token']}"


async def read(request: web.Request, what: Callable[..., T], *args: Any
               ) -> tuple[LinkHolder, T] | web.Response:
    """Resolve the request's link (:func:`holder_of`), then ``what(holder, *args)`` in a
    worker thread: (the link, its answer), or the refusal (the service's: 403)."""
    holder = await holder_of(request)
    if isinstance(holder, web.Response):
        return holder
    try:
        return holder, await asyncio.to_thread(what, holder, *args)
    except ServiceError as refusal:
        return error(403, str(refusal), "permission")


async def page(request: web.Request) -> web.StreamResponse:
    """``GET /s/TOKEN``: the page (its script and styles from ``/static``)."""
    holder = await holder_of(request)
    if isinstance(holder, web.Response):
        return holder
    template = request.app[SETTINGS].templates.get_template("page.html")
    html = template.render(csrf=_csrf(request), base=_base(request), role=holder.role,
                           side=holder.side or "", game_id=holder.game_id)
    return web.Response(text=html, content_type="text/html")


async def state(request: web.Request) -> web.StreamResponse:
    """``GET /s/TOKEN/api/state``: the state JSON of the link's view."""
    found = await read(request, request.app[READS].state, _csrf(request), _base(request))
    return found if isinstance(found, web.Response) else web.json_response(found[1])


async def map_picture(request: web.Request) -> web.StreamResponse:
    """``GET /s/TOKEN/api/map.png``: the picture of the link's view now."""
    return _picture(request, await read(request, request.app[READS].picture))


def _picture(request: web.Request, found: Any) -> web.Response:
    """A read's answer of (tag, PNG bytes or None) as the picture, or its refusal."""
    if isinstance(found, web.Response):
        return found
    tag, data = found[1]
    if data is None:
        return error(404, "this game has no map picture", "picture")
    return _png(request, data, f'"{tag}"')


def _png(request: web.Request, data: bytes, etag: str) -> web.Response:
    headers = {"ETag": etag, "Cache-Control": "private, no-cache"}
    if request.headers.get("If-None-Match") == etag:
        return web.Response(status=304, headers=headers)
    return web.Response(body=data, content_type="image/png", headers=headers)


async def geometry(request: web.Request) -> web.StreamResponse:
    """``GET /s/TOKEN/api/geometry``: the map's geometry in the picture's pixels."""
    found = await read(request, request.app[READS].geometry)
    if isinstance(found, web.Response):
        return found
    response = web.json_response(found[1])
    response.enable_compression()  # hundreds of polygons; nothing of the request echoed
    return response


async def legal(request: web.Request) -> web.StreamResponse:
    """``GET /s/TOKEN/api/legal[?unit=ID][&side=SIDE]``: the orders the link may give now."""
    holder = await holder_of(request)
    if isinstance(holder, web.Response):
        return holder
    unit, side = request.query.get("unit"), request.query.get("side")
    try:
        check_text([unit, side], "the unit or side", limit=MAX_ID)
        orders = await asyncio.to_thread(request.app[READS].legal, holder, unit or None,
                                         side or None)
    except BadText as refusal:
        return error(400, str(refusal), "input")
    except ServiceError as refusal:
        return error(403, str(refusal), "permission")
    return web.json_response({"unit": unit, "orders": orders})


async def submit(request: web.Request) -> web.StreamResponse:
    """``POST /s/TOKEN/api/submit`` (JSON ``{"text", "key"[, "side"]}``, the CSRF header):
    the order through the service's submit call; the outcome as the link's audience reads
    it."""
    refused = limited(request)
    if refused is not None:
        return refused
    app, token = request.app, request.match_info["token"]
    if not csrf_ok(token, app[SETTINGS].secret, request.headers.get(CSRF_HEADER)):
        return error(403, f"missing or wrong {CSRF_HEADER} header: reload the page", "csrf")
    if not app[SUBMITS].allow(token_hash(token)):
        return too_many(app[SUBMITS], token_hash(token), "this link (orders)")
    if request.content_type != "application/json":
        return error(415, "send the order as JSON (Content-Type: application/json)", "input")
    try:
        body = json.loads(await request.text())
    except (ValueError, UnicodeDecodeError):
        return error(400, 'the body is not JSON: send {"text": "...", "key": "..."}', "input")
    if not isinstance(body, dict) or not isinstance(body.get("text"), str):
        return error(400, 'send {"text": ORDER, "key": IDEMPOTENCY-KEY}', "input")
    text, key, side = body["text"], body.get("key"), body.get("side")
    if (key is not None and not isinstance(key, str)) or (
            side is not None and not isinstance(side, str)):
        return error(400, '"key" and "side" are strings', "input")
    if len(text) > MAX_ORDER:
        return error(413, f"an order holds at most {MAX_ORDER} characters", "input")
    try:
        check_text([key, side], "the key or side", limit=MAX_ID)
        # the link resolved and the order submitted in one call to the order threads (one
        # hop), in turn
        holder, result, audience = await asyncio.get_running_loop().run_in_executor(
            app[ORDERS], functools.partial(app[READS].submit_as, token, text, key, side))
    except BadText as refusal:
        return error(400, str(refusal), "input")
    except NotFound as refusal:
        return error(404, str(refusal), "link")
    except ServiceError as refusal:
        return error(403, str(refusal), "permission")
    if result.seqs:  # this process stored it: the game's streams are told at once
        await app[WATCHERS].advance(holder.game_id, result.seqs[-1])
    told = result.messages.get(audience) or result.messages.get("public")
    return web.json_response({
        "status": result.status, "error": result.error, "rule": result.error_rule,
        "legal": result.legal, "applied": result.applied if audience != "public" else [],
        "seqs": result.seqs, "stopped_at": result.stopped_at, "to_act": result.to_act,
        "duplicate": result.duplicate, "lines": told.lines if told else [],
        "prompt": told.prompt if told else None,
        "options": told.options if told else []})


def _by_step(request: web.Request) -> bool | web.Response:
    """``?by=action`` (the default) or ``?by=step`` (an impulse or a phase)."""
    by = request.query.get("by", "action")
    if by not in ("action", "step"):
        return error(400, "by=action (one position per action) or by=step (per impulse "
                     "or phase)", "input")
    return by == "step"


async def replay(request: web.Request) -> web.StreamResponse:
    """``GET /s/TOKEN/api/replay[?by=step]``: how many positions the replay has, and their
    captions."""
    by_step = _by_step(request)
    if isinstance(by_step, web.Response):
        return by_step
    answer = await read(request, request.app[READS].replay, by_step)
    if isinstance(answer, web.Response):
        return answer
    found, base = answer[1], _base(request)
    by = "step" if by_step else "action"
    return web.json_response({
        "count": len(found.frames), "full": found.full, "seq": found.key[2], "by": by,
        "captions": [frame.caption for frame in found.frames],
        "picture": f"{base}/api/replay/{{n}}.png?seq={found.key[2]}&by={by}"})


async def replay_picture(request: web.Request) -> web.StreamResponse:
    """``GET /s/TOKEN/api/replay/N.png[?by=step]``: position N of the replay."""
    number, by_step = request.match_info["n"], _by_step(request)
    if isinstance(by_step, web.Response):
        return by_step
    if not number.isdigit() or len(number) > 9:
        return error(400, "a replay position is a number from 0", "input")
    try:
        found = await read(request, request.app[READS].replay_picture, int(number), by_step)
    except IndexError:
        return error(404, f"the replay has no position {number}", "replay")
    return _picture(request, found)


async def verify(request: web.Request) -> web.StreamResponse:
    """``GET /s/TOKEN/api/verify``: the dice commitment and how to check the game."""
    holder = await holder_of(request)
    if isinstance(holder, web.Response):
        return holder
    info = await asyncio.to_thread(request.app[READS].service.info, holder.game_id)
    over = info.status in ("finished", "archived")
    return web.json_response({
        "game_id": info.id, "commitment": info.commitment, "status": info.status,
        "record": f"{_base(request)}/api/record", "full_record": over,
        "instructions": [
            "Download the record (the link above): while the game runs it is your view's "
            "record; once it is over it is the full record, with the dice seed.",
            f"Run: umpire verify {info.id}.jsonl",
            "It replays every action from the set-up and checks every state hash; with the "
            "seed (the full record holds it after the end) it checks every die against the "
            f"commitment {info.commitment}, published when the game was created."]})


async def record(request: web.Request) -> web.StreamResponse:
    """``GET /s/TOKEN/api/record``: the game's record as this link may have it (JSON lines)."""
    found = await read(request, request.app[READS].service.seat_record)
    if isinstance(found, web.Response):
        return found
    holder, export = found
    return web.Response(body=export.jsonl(), content_type="application/x-ndjson", headers={
        "Content-Disposition": f'attachment; filename="{holder.game_id}.jsonl"'})


async def events(request: web.Request) -> web.StreamResponse:
    """``GET /s/TOKEN/events``: Server-Sent Events. ``seq`` (data ``{"seq": N}``) when an
    action is stored (first the current one), ``revoked`` when the link stops (then the
    stream ends); a comment line every keep-alive period."""
    holder = await holder_of(request)
    if isinstance(holder, web.Response):
        return holder
    app, token = request.app, request.match_info["token"]
    open_streams = app[STREAMS]
    if open_streams.get(holder.token_hash, 0) >= app[SETTINGS].streams_per_link:
        return error(429, f"this link has {app[SETTINGS].streams_per_link} pages open "
                     "already: close one", "rate")
    open_streams[holder.token_hash] = open_streams.get(holder.token_hash, 0) + 1
    try:
        return await _stream(request, holder, token)
    finally:
        open_streams[holder.token_hash] -= 1
        if not open_streams[holder.token_hash]:
            del open_streams[holder.token_hash]


async def _stream(request: web.Request, holder: LinkHolder, token: str
                  ) -> web.StreamResponse:
    """The event stream of :func:`events`, once admitted."""
    app = request.app
    watchers, service = app[WATCHERS], app[READS].service
    watch = await watchers.subscribe(holder.game_id)
    response = web.StreamResponse(headers={
        "Content-Type": "text/event-stream", "Cache-Control": "no-store",
        "X-Accel-Buffering": "no"})
    try:
        await response.prepare(request)
        sent, ended = -1, watch.ended
        keepalive = app[SETTINGS].keepalive
        while not watchers.closed:
            if watch.ended != ended:
                ended = watch.ended
                try:
                    await asyncio.to_thread(service.resolve_link, token)
                except ServiceError:
                    await response.write(b"event: revoked\ndata: {}\n\n")
                    break
            if watch.head != sent:
                sent = watch.head
                await response.write(
                    f"event: seq\nid: {sent}\ndata: {json.dumps({'seq': sent})}\n\n".encode())
                continue
            async with watch.changed:
                if (watch.head == sent and watch.ended == ended and not watchers.closed
                        and not await wait_changed(watch, keepalive)):
                    await response.write(b": keep-alive\n\n")
                    ended = -1  # check the link again now and then
    except ConnectionResetError:  # the page went away
        return response
    finally:
        watchers.unsubscribe(holder.game_id, watch)
    with contextlib.suppress(ConnectionResetError, RuntimeError):
        await response.write_eof()
    return response


def add_routes(app: web.Application) -> None:
    app.router.add_get("/s/{token}", page)
    app.router.add_get("/s/{token}/api/state", state)
    app.router.add_get("/s/{token}/api/map.png", map_picture)
    app.router.add_get("/s/{token}/api/legal", legal)
    app.router.add_get("/s/{token}/api/geometry", geometry)
    app.router.add_post("/s/{token}/api/submit", submit)
    app.router.add_get("/s/{token}/api/replay", replay)
    app.router.add_get("/s/{token}/api/replay/{n}.png", replay_picture)
    app.router.add_get("/s/{token}/api/verify", verify)
    app.router.add_get("/s/{token}/api/record", record)
    app.router.add_get("/s/{token}/events", events)
