"""A small fake Discord: REST + gateway websocket on 127.0.0.1, recording everything.

The real discord.py client connects to it (``Route.BASE`` and
``DiscordWebSocket.DEFAULT_GATEWAY`` pointed here). Tests play users: they send
slash-command, autocomplete and component interactions through the gateway, and read
back every message, embed, attachment, ephemeral reply and DM the bot produced.

Only what the bot under test uses is implemented; anything else answers 404 and is
recorded in :attr:`FakeDiscord.unhandled`, so a test can fail on it.

It refuses what Discord refuses: every request body is validated against the schema of its
route in Discord's own API description (:mod:`tests.fakediscord.schema`), command payloads
against Discord's limits beyond the schemas, and a refused request (400, code 50035) is
recorded in :attr:`FakeDiscord.invalid`. It models command scopes (a server's commands only
in that server; global commands in a DM only when their contexts allow it; a command's
``default_member_permissions``), interaction clocks (a first response after 3 seconds fails
with 10062, follow-ups after 15 minutes with 50027), message and attachment limits, and
failures on demand: Missing Permissions (403, 50013) in a channel, closed DMs (403, 50007),
rate limits (429 with ``retry_after``), archived and locked threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import WSMsgType, web

from bot.discord.limits import check as check_command_limits
from tests.fakediscord import schema
from tests.waiting import GENEROUS

HOST = "127.0.0.1"
API = "/api/v10"
EPHEMERAL = 64
#: A user mention in a message's content (``<@123>`` or ``<@!123>``).
MENTION = re.compile(r"<@!?([0-9]+)>")
COMPONENTS_V2 = 1 << 15
ADMINISTRATOR = 1 << 3
#: Permissions of an ordinary member in the fake guild (view, send, threads, attach).
MEMBER_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 15) | (1 << 35) | (1 << 38) | (1 << 31)
#: Discord's limits the fake enforces itself (the schemas state the rest).
CONTENT_LIMIT = 2000
ATTACHMENTS_LIMIT = 10 * 1024 * 1024
RESPONSE_DEADLINE = 3.0
FOLLOWUP_WINDOW = 15 * 60.0
#: Interaction contexts: a server, the DM with the bot.
GUILD_CONTEXT, BOT_DM_CONTEXT = 0, 1

JSON = dict[str, Any]


def now() -> str:
    return datetime.now(UTC).isoformat()


def json_response(data: Any, status: int = 200,
                  headers: dict[str, str] | None = None) -> web.Response:
    """A JSON response with ``Content-Type: application/json`` exactly (no charset)."""
    return web.Response(body=json.dumps(data).encode(), status=status,
                        headers={"Content-Type": "application/json", **(headers or {})})


class DiscordError(Exception):
    """A request Discord refuses: raised by handlers, answered by the middleware."""

    def __init__(self, status: int, code: int, message: str,
                 extra: JSON | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status, self.code, self.message = status, code, message
        self.extra = extra or {}

    def response(self) -> web.Response:
        return json_response({"message": self.message, "code": self.code, **self.extra},
                             self.status)


class CommandUnavailable(AssertionError):
    """A test used a command Discord would not offer there (wrong scope or context)."""


@dataclass
class Failure:
    """A failure on demand: requests matching ``method`` and ``path`` get this answer."""

    method: str
    path: re.Pattern[str]
    status: int
    body: JSON
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1  # how many requests it refuses; -1: all of them


@dataclass
class Hold:
    """Discord slow to answer, on demand: the next request matching ``method`` and
    ``path`` waits, unanswered, until the test calls :meth:`release` (``reached`` is set
    once it waits)."""

    method: str
    path: re.Pattern[str]
    reached: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)

    def release(self) -> None:
        self.released.set()


@dataclass
class Attachment:
    filename: str
    data: bytes
    content_type: str | None = None


@dataclass
class Message:
    """One message as Discord would store it, with the history of its edits."""

    id: int
    channel_id: int
    author_id: int
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    flags: int = 0
    #: "channel" (bot posted), "interaction" (a reply), "followup", or "dm".
    source: str = "channel"
    interaction_id: int | None = None
    #: Earlier versions (content, embeds, attachments) before each edit.
    history: list[tuple[str, list[JSON], list[Attachment]]] = field(default_factory=list)
    deferred: bool = False
    #: The users this message notified (pinged) when it was posted: the user mentions in
    #: its content that its ``allowed_mentions`` let through; an ephemeral message and an
    #: edit ping nobody, as on Discord.
    pings: list[int] = field(default_factory=list)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    def texts(self) -> list[str]:
        """Every text this message ever showed: content and embeds, all versions."""
        versions = [*self.history, (self.content, self.embeds, self.attachments)]
        out: list[str] = []
        for content, embeds, attachments in versions:
            out.append(content)
            out.extend(json.dumps(embed) for embed in embeds)
            out.extend(a.filename for a in attachments)
        out.extend(self.labels())
        return out

    def labels(self) -> list[str]:
        """Labels of buttons and select-menu options (they are shown to readers too)."""
        labels: list[str] = []
        for row in self.components:
            for item in row.get("components", []):
                if item.get("label"):
                    labels.append(str(item["label"]))
                for option in item.get("options", []):
                    labels.append(f"{option.get('label', '')} {option.get('description', '')}")
                if item.get("placeholder"):
                    labels.append(str(item["placeholder"]))
        return labels

    def all_attachments(self) -> list[Attachment]:
        return [a for _, _, attachments in self.history for a in attachments] + self.attachments

    def custom_ids(self) -> list[str]:
        ids: list[str] = []
        for row in self.components:
            for item in row.get("components", []):
                if "custom_id" in item:
                    ids.append(item["custom_id"])
        return ids

    def component(self, custom_id: str) -> JSON:
        for row in self.components:
            for item in row.get("components", []):
                if item.get("custom_id") == custom_id:
                    return dict(item)
        raise KeyError(f"message {self.id} has no component {custom_id!r}: {self.custom_ids()}")


@dataclass
class InteractionRecord:
    id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    payload: JSON
    #: Callback type Discord received (4 reply, 5 defer, 6 deferred update, 7 update,
    #: 8 autocomplete choices, 9 modal), None until the bot answered.
    response_type: int | None = None
    response_data: JSON = field(default_factory=dict)
    original: Message | None = None
    followups: list[Message] = field(default_factory=list)
    responded: asyncio.Event = field(default_factory=asyncio.Event)
    #: When Discord sent it (the fake's clock), for the 3-second and 15-minute limits.
    created: float = 0.0

    @property
    def choices(self) -> list[JSON]:
        return list(self.response_data.get("choices", []))

    def messages(self) -> list[Message]:
        return ([self.original] if self.original else []) + self.followups


@dataclass
class User:
    id: int
    name: str
    bot: bool = False

    def payload(self) -> JSON:
        return {"id": str(self.id), "username": self.name, "global_name": self.name,
                "discriminator": "0", "avatar": None, "bot": self.bot, "public_flags": 0}


@dataclass
class Channel:
    id: int
    type: int  # 0 text, 1 DM, 11 public thread
    name: str = ""
    guild_id: int | None = None
    parent_id: int | None = None
    owner_id: int | None = None
    recipient_id: int | None = None
    members: set[int] = field(default_factory=set)
    auto_archive_duration: int = 1440
    archived: bool = False
    locked: bool = False

    def payload(self, users: dict[int, User]) -> JSON:
        data: JSON = {"id": str(self.id), "type": self.type, "name": self.name,
                      "last_message_id": None, "flags": 0}
        if self.guild_id is not None:
            data.update(guild_id=str(self.guild_id), position=0, permission_overwrites=[],
                        nsfw=False, rate_limit_per_user=0, topic=None, parent_id=None)
        if self.type == 11:
            data.update(parent_id=str(self.parent_id), owner_id=str(self.owner_id),
                        message_count=0, member_count=len(self.members), total_message_sent=0,
                        thread_metadata={"archived": self.archived,
                                         "auto_archive_duration": self.auto_archive_duration,
                                         "archive_timestamp": now(), "locked": self.locked,
                                         "create_timestamp": now()})
        if self.type == 1 and self.recipient_id is not None:
            data["recipients"] = [users[self.recipient_id].payload()]
        return data


class UnexpectedRequest(AssertionError):
    pass


class FakeDiscord:
    """The fake server. Start with :meth:`start`, stop with :meth:`stop`."""

    def __init__(self, guild_name: str = "Umpire test guild", shards: int = 1) -> None:
        self._ids = itertools.count(1_100_000_000_000_000_000)
        #: The bot's shards, as /gateway/bot recommends them: a guild's events go to the
        #: connection of shard ``(guild_id >> 22) % shards``, direct messages to shard 0.
        self.shard_count = shards
        #: Per gateway connection: its [shard_id, shard_count] from IDENTIFY.
        self.shard_of_socket: dict[web.WebSocketResponse, tuple[int, int]] = {}
        #: Every IDENTIFY's shard, in order; and the guild ids each READY listed.
        self.identified: list[tuple[int, int]] = []
        self.ready_guilds: dict[tuple[int, int], list[int]] = {}
        self.app_id = self.new_id()
        self.bot = User(self.new_id(), "Umpire", bot=True)
        self.owner = User(self.new_id(), "owner")
        self.users: dict[int, User] = {self.bot.id: self.bot, self.owner.id: self.owner}
        self.guild_id = self.new_id()
        self.guild_name = guild_name
        #: Every guild the bot is in: id -> name (the first is ``guild_id``).
        self.guilds: dict[int, str] = {self.guild_id: guild_name}
        self.roles: dict[int, JSON] = {
            self.guild_id: {"id": str(self.guild_id), "name": "@everyone",
                            "permissions": str(MEMBER_PERMISSIONS), "position": 0, "color": 0,
                            "hoist": False, "managed": False, "mentionable": False, "flags": 0},
        }
        self.member_roles: dict[int, list[int]] = {self.bot.id: [], self.owner.id: []}
        self.admins: set[int] = {self.owner.id}
        #: Per command: roles an admin allowed to use it (integration permission overrides).
        self.command_roles: dict[str, set[int]] = {}
        self.channels: dict[int, Channel] = {}
        self.general = self.add_channel("general")
        self.messages: dict[int, Message] = {}
        self.interactions: dict[int, InteractionRecord] = {}
        self.commands: dict[str, list[JSON]] = {}
        self.unhandled: list[str] = []
        #: Requests refused as Discord would refuse them (schema, limits): "ROUTE: why".
        self.invalid: list[str] = []
        self.requests: list[tuple[str, str]] = []
        self.failures: list[Failure] = []
        self.holds: list[Hold] = []
        #: Interactions whose first response came after the deadline (refused, 10062).
        self.late: list[int] = []
        self.closed_dms: set[int] = set()
        self.response_deadline = RESPONSE_DEADLINE
        self.followup_window = FOLLOWUP_WINDOW
        #: Seconds added to the real clock (tests move time on with :meth:`advance`).
        self.skew = 0.0
        self.token_seen: str | None = None
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._sockets: list[web.WebSocketResponse] = []
        self._seq = 0
        self._identified = asyncio.Event()
        self._message_waiters: list[tuple[Callable[[Message], bool], asyncio.Future[Message]]] = []

    # ---- world building -----------------------------------------------------------------

    def new_id(self) -> int:
        return next(self._ids)

    def add_user(self, name: str, *, admin: bool = False, roles: tuple[str, ...] = ()) -> User:
        user = User(self.new_id(), name)
        self.users[user.id] = user
        self.member_roles[user.id] = [self.role_id(role) for role in roles]
        if admin:
            self.admins.add(user.id)
        return user

    def add_role(self, name: str) -> int:
        role_id = self.new_id()
        self.roles[role_id] = {"id": str(role_id), "name": name, "permissions": "0",
                               "position": len(self.roles), "color": 0, "hoist": False,
                               "managed": False, "mentionable": False, "flags": 0}
        return role_id

    def role_id(self, name: str) -> int:
        for role_id, role in self.roles.items():
            if role["name"] == name:
                return role_id
        return self.add_role(name)

    def permit(self, command: str, role: str) -> None:
        """What a server's admin does in Server Settings → Integrations: let members with
        ``role`` use ``command`` whatever its default member permissions."""
        self.command_roles.setdefault(command, set()).add(self.role_id(role))

    def give_role(self, user: User, name: str) -> None:
        self.member_roles[user.id].append(self.role_id(name))

    def add_channel(self, name: str, guild_id: int | None = None) -> Channel:
        channel = Channel(self.new_id(), 0, name, guild_id=guild_id or self.guild_id)
        self.channels[channel.id] = channel
        return channel

    def shard_for(self, guild_id: int | None) -> int:
        """The shard Discord sends a guild's events to (a DM's: shard 0)."""
        return 0 if guild_id is None else (guild_id >> 22) % self.shard_count

    def add_guild(self, name: str, shard: int) -> int:
        """Another guild the bot is in, whose id falls on ``shard``; its members are the
        same users, with the same roles."""
        stamp = (self.new_id() >> 22) + 1
        while stamp % self.shard_count != shard:
            stamp += 1
        guild_id = stamp << 22
        self._ids = itertools.count(guild_id + 1)
        self.guilds[guild_id] = name
        self.roles[guild_id] = {**self.roles[self.guild_id], "id": str(guild_id)}
        self.add_channel("general", guild_id)
        return guild_id

    def member_payload(self, user: User) -> JSON:
        permissions = MEMBER_PERMISSIONS | (ADMINISTRATOR if user.id in self.admins else 0)
        return {"user": user.payload(), "nick": None, "roles": [str(r) for r in
                                                                  self.member_roles[user.id]],
                "joined_at": now(), "deaf": False, "mute": False, "flags": 0,
                "permissions": str(permissions)}

    def guild_payload(self, guild_id: int | None = None) -> JSON:
        guild_id = guild_id or self.guild_id
        return {
            "id": str(guild_id), "name": self.guilds[guild_id], "icon": None,
            "owner_id": str(self.owner.id), "unavailable": False,
            "member_count": len(self.member_roles), "large": False,
            "roles": list(self.roles.values()), "emojis": [], "stickers": [], "features": [],
            "channels": [c.payload(self.users) for c in self.channels.values()
                         if c.type == 0 and c.guild_id == guild_id],
            "threads": [c.payload(self.users) for c in self.channels.values()
                        if c.type == 11 and c.guild_id == guild_id],
            "members": [self.member_payload(self.users[uid]) for uid in self.member_roles],
            "voice_states": [], "presences": [], "stage_instances": [],
            "guild_scheduled_events": [], "soundboard_sounds": [],
            "verification_level": 0, "default_message_notifications": 0,
            "explicit_content_filter": 0, "mfa_level": 0, "premium_tier": 0,
            "system_channel_flags": 0, "preferred_locale": "en-US", "nsfw_level": 0,
            "joined_at": now(), "afk_timeout": 300,
        }

    # ---- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        # Large enough to receive an over-size upload, so it is refused as Discord refuses it.
        app = web.Application(middlewares=[self._record_middleware],
                              client_max_size=32 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        r = app.router
        r.add_get(f"{API}/gateway", self._get_gateway)
        r.add_get(f"{API}/gateway/bot", self._get_gateway)
        r.add_get(f"{API}/users/@me", self._get_me)
        r.add_get(f"{API}/users/{{user_id}}", self._get_user)
        r.add_get(f"{API}/oauth2/applications/@me", self._get_application)
        r.add_put(f"{API}/applications/{{app}}/commands", self._put_commands)
        r.add_put(f"{API}/applications/{{app}}/guilds/{{guild}}/commands", self._put_commands)
        r.add_get(f"{API}/applications/{{app}}/commands", self._get_commands)
        r.add_get(f"{API}/applications/{{app}}/guilds/{{guild}}/commands", self._get_commands)
        r.add_post(f"{API}/interactions/{{iid}}/{{token}}/callback", self._callback)
        r.add_post(f"{API}/webhooks/{{app}}/{{token}}", self._followup)
        r.add_get(f"{API}/webhooks/{{app}}/{{token}}/messages/{{mid}}", self._get_webhook_message)
        r.add_patch(f"{API}/webhooks/{{app}}/{{token}}/messages/{{mid}}",
                    self._edit_webhook_message)
        r.add_post(f"{API}/users/@me/channels", self._create_dm)
        r.add_get(f"{API}/channels/{{cid}}", self._get_channel)
        r.add_post(f"{API}/channels/{{cid}}/messages", self._post_message)
        r.add_patch(f"{API}/channels/{{cid}}/messages/{{mid}}", self._edit_message)
        r.add_post(f"{API}/channels/{{cid}}/threads", self._create_thread)
        r.add_put(f"{API}/channels/{{cid}}/thread-members/{{uid}}", self._add_thread_member)
        r.add_route("*", "/{tail:.*}", self._unhandled)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, HOST, 0)
        await site.start()
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", None)
        assert sockets
        self.port = int(sockets[0].getsockname()[1])

    async def stop(self) -> None:
        for socket in list(self._sockets):
            with contextlib.suppress(Exception):
                await socket.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def rest_base(self) -> str:
        return f"http://{HOST}:{self.port}{API}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{HOST}:{self.port}/gateway"

    @web.middleware
    async def _record_middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        self.requests.append((request.method, request.path))
        if request.path.startswith(API) and "/interactions/" not in request.path \
                and "/webhooks/" not in request.path:
            auth = request.headers.get("Authorization", "")
            if not auth.startswith("Bot "):
                return json_response({"message": "401: Unauthorized", "code": 0}, 401)
            self.token_seen = auth[4:]
        for hold in self.holds:
            if not hold.reached.is_set() and hold.method == request.method \
                    and hold.path.search(request.path):
                hold.reached.set()
                await asyncio.wait_for(hold.released.wait(), GENEROUS)
                break
        for failure in self.failures:
            if failure.times != 0 and failure.method == request.method \
                    and failure.path.search(request.path):
                failure.times -= 1
                return json_response(failure.body, failure.status, failure.headers)
        try:
            return await handler(request)
        except DiscordError as error:
            return error.response()

    # ---- failures on demand and the clock -----------------------------------------------

    def fail(self, method: str, path: str, status: int, code: int, message: str, *,
             times: int = 1, headers: dict[str, str] | None = None,
             extra: JSON | None = None) -> Failure:
        """Answer the next ``times`` requests whose path matches the regex ``path`` with
        this error (``times=-1``: every one)."""
        failure = Failure(method, re.compile(path), status,
                          {"message": message, "code": code, **(extra or {})},
                          dict(headers or {}), times)
        self.failures.append(failure)
        return failure

    def hold(self, method: str, path: str) -> Hold:
        """Keep the next request whose path matches the regex ``path`` waiting until the
        returned hold is released (at most ``GENEROUS`` seconds)."""
        hold = Hold(method, re.compile(path))
        self.holds.append(hold)
        return hold

    def refuse_posts(self, channel: Channel, *, times: int = -1) -> Failure:
        """The bot lacks permission to post in ``channel`` (403, Missing Permissions)."""
        return self.fail("POST", f"^{API}/channels/{channel.id}/messages$", 403, 50013,
                         "Missing Permissions", times=times)

    def rate_limit(self, method: str, path: str, retry_after: float = 0.25,
                   times: int = 1) -> Failure:
        """A 429 as Discord sends it: discord.py must wait ``retry_after`` and retry."""
        headers = {"Via": "1.1 google",  # discord.py takes a 429 without it for a ban
                   "Retry-After": str(retry_after), "X-RateLimit-Limit": "5",
                   "X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": str(retry_after),
                   "X-RateLimit-Bucket": "fake-bucket", "X-RateLimit-Scope": "user"}
        return self.fail(method, path, 429, 0, "You are being rate limited.", times=times,
                         headers=headers, extra={"retry_after": retry_after, "global": False})

    def close_dms(self, user: User) -> None:
        """``user`` accepts no direct messages from the bot (403, code 50007)."""
        self.closed_dms.add(user.id)

    def archive(self, thread: Channel, *, locked: bool = False) -> None:
        """Archive a thread (Discord does after ``auto_archive_duration`` of quiet)."""
        thread.archived, thread.locked = True, locked

    def clock(self) -> float:
        return time.monotonic() + self.skew

    def advance(self, seconds: float) -> None:
        """Move the fake's clock on (interaction deadlines run out)."""
        self.skew += seconds

    def _validate(self, route: str, body: Any) -> None:
        """Refuse ``body`` as Discord would if it breaks the route's schema."""
        found = schema.problems(route, body)
        if found:
            self.invalid.append(f"{route}: {'; '.join(found)}")
            raise DiscordError(400, 50035, "Invalid Form Body",
                               {"errors": {"_errors": [{"code": "BASE_TYPE_INVALID",
                                                        "message": found[0]}]}})

    async def _unhandled(self, request: web.Request) -> web.Response:
        self.unhandled.append(f"{request.method} {request.path}")
        return json_response({"message": "Unknown route (fake Discord)", "code": 0}, 404)

    # ---- REST: identity and commands -------------------------------------------------------

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway_url, "shards": self.shard_count,
                              "session_start_limit": {"total": 1000, "remaining": 1000,
                                                      "reset_after": 0, "max_concurrency": 1}})

    async def _get_me(self, request: web.Request) -> web.Response:
        return json_response({**self.bot.payload(), "verified": True, "mfa_enabled": False,
                              "flags": 0})

    async def _get_user(self, request: web.Request) -> web.Response:
        user = self.users.get(int(request.match_info["user_id"]))
        if user is None:
            return json_response({"message": "Unknown User", "code": 10013}, 404)
        return json_response(user.payload())

    async def _get_application(self, request: web.Request) -> web.Response:
        return json_response({
            "id": str(self.app_id), "name": "Umpire", "icon": None, "description": "",
            "rpc_origins": [], "bot_public": True, "bot_require_code_grant": False,
            "owner": self.owner.payload(), "verify_key": "00", "flags": 0, "team": None,
            "summary": "", "bot": self.bot.payload(),
        })

    def _command_key(self, request: web.Request) -> str:
        return request.match_info.get("guild", "global")

    async def _put_commands(self, request: web.Request) -> web.Response:
        body = await request.json()
        guild = request.match_info.get("guild")
        self._validate("PUT /applications/{application_id}/guilds/{guild_id}/commands" if guild
                       else "PUT /applications/{application_id}/commands", body)
        problems = check_command_limits({self._command_key(request): body})
        if problems:
            self.invalid.append(f"PUT commands: {'; '.join(problems)}")
            raise DiscordError(400, 50035, "Invalid Form Body", {"errors": problems})
        stored = []
        for command in body:
            contexts = command.get("contexts")
            if guild is None and contexts is None:  # Discord's default for global commands
                contexts = [GUILD_CONTEXT, BOT_DM_CONTEXT] if command.get(
                    "dm_permission", True) is not False else [GUILD_CONTEXT]
            stored.append({**command, "id": str(self.new_id()), "application_id": str(self.app_id),
                           "version": str(self.new_id()), "nsfw": False,
                           "default_member_permissions": command.get("default_member_permissions"),
                           **({"guild_id": guild} if guild else {"contexts": contexts})})
        self.commands[self._command_key(request)] = stored
        return json_response(stored)

    async def _get_commands(self, request: web.Request) -> web.Response:
        return json_response(self.commands.get(self._command_key(request), []))

    def command(self, name: str, channel: Channel | None = None,
                user: User | None = None) -> JSON:
        """The command ``name`` as Discord offers it to ``user`` in ``channel``: a server's
        commands only in that server, global ones where their contexts allow, and only to
        members with its ``default_member_permissions`` (administrators always)."""
        if channel is None:
            for commands in self.commands.values():
                for command in commands:
                    if command["name"] == name:
                        return command
            raise KeyError(f"no command {name!r} was synced; have "
                           f"{sorted(c['name'] for cs in self.commands.values() for c in cs)}")
        context = BOT_DM_CONTEXT if channel.guild_id is None else GUILD_CONTEXT
        offered = [c for c in self.commands.get("global", []) if context in c["contexts"]]
        if channel.guild_id is not None:
            offered += self.commands.get(str(channel.guild_id), [])
        for command in offered:
            if command["name"] != name:
                continue
            needed = command.get("default_member_permissions")
            if needed is not None and channel.guild_id is not None and user is not None \
                    and user.id not in self.admins and int(needed) & ~MEMBER_PERMISSIONS \
                    and not set(self.member_roles.get(user.id, [])) & \
                    self.command_roles.get(name, set()):
                raise CommandUnavailable(f"/{name} is hidden from {user.name}: it needs "
                                         f"permissions {needed}")
            return command
        where = "a DM with the bot" if channel.guild_id is None else f"#{channel.name}"
        raise CommandUnavailable(f"Discord offers no /{name} in {where}; offered there: "
                                 f"{sorted(c['name'] for c in offered)}")

    # ---- REST: messages -------------------------------------------------------------------

    async def _read_message_body(self, request: web.Request) -> tuple[JSON, list[Attachment]]:
        if request.content_type.startswith("multipart/"):
            form = await request.post()
            payload = json.loads(str(form.get("payload_json", "{}")))
            files = []
            for key, value in form.items():
                if key.startswith("files[") and isinstance(value, web.FileField):
                    files.append(Attachment(value.filename, value.file.read(), value.content_type))
            return payload, files
        if request.can_read_body:
            return await request.json(), []
        return {}, []

    def message_payload(self, message: Message) -> JSON:
        channel = self.channels.get(message.channel_id)
        data: JSON = {
            "id": str(message.id), "channel_id": str(message.channel_id),
            "author": self.users[message.author_id].payload(), "content": message.content,
            "timestamp": now(), "edited_timestamp": now() if message.history else None,
            "tts": False, "mention_everyone": False, "mentions": [], "mention_roles": [],
            "attachments": [
                {"id": str(index), "filename": a.filename, "size": len(a.data),
                 "url": f"http://{HOST}:{self.port}/attachments/{message.id}/{a.filename}",
                 "proxy_url": f"http://{HOST}:{self.port}/attachments/{message.id}/{a.filename}",
                 "content_type": a.content_type}
                for index, a in enumerate(message.attachments)],
            "embeds": message.embeds, "pinned": False, "type": 0, "flags": message.flags,
            "components": message.components,
        }
        if channel is not None and channel.guild_id is not None:
            data["guild_id"] = str(channel.guild_id)
        if message.interaction_id is not None:
            data["application_id"] = str(self.app_id)
            data["webhook_id"] = str(self.app_id)
        return data

    def _store(self, message: Message) -> Message:
        self.messages[message.id] = message
        for predicate, future in list(self._message_waiters):
            if not future.done() and predicate(message):
                future.set_result(message)
        return message

    @staticmethod
    def _pings(payload: JSON, content: str) -> list[int]:
        """Whom a new message notifies: Discord pings the user mentions in its content
        that ``allowed_mentions`` (absent: all of them) lets through, never from an
        ephemeral message."""
        if int(payload.get("flags") or 0) & EPHEMERAL:
            return []
        mentioned = list(dict.fromkeys(int(found) for found in MENTION.findall(content)))
        allowed = payload.get("allowed_mentions")
        if allowed is None:
            return mentioned
        users = {int(u) for u in allowed.get("users") or []}
        every = "users" in (allowed.get("parse") or [])
        return [user for user in mentioned if every or user in users]

    def _new_message(self, channel_id: int, payload: JSON, files: list[Attachment],
                     source: str, interaction_id: int | None = None) -> Message:
        message = Message(
            id=self.new_id(), channel_id=channel_id, author_id=self.bot.id,
            content=str(payload.get("content") or ""), embeds=list(payload.get("embeds") or []),
            attachments=files, components=list(payload.get("components") or []),
            flags=int(payload.get("flags") or 0), source=source, interaction_id=interaction_id,
        )
        message.pings = self._pings(payload, message.content)
        self._check_limits(message)
        return self._store(message)

    def _check_limits(self, message: Message) -> None:
        """Discord's limits on a message the schemas do not state; a refusal is recorded in
        :attr:`invalid` (the bot may swallow the error, the test must not)."""
        try:
            self._message_limits(message)
        except DiscordError as error:
            self.invalid.append(f"message in channel {message.channel_id}: {error.message}")
            raise

    @staticmethod
    def _message_limits(message: Message) -> None:
        if len(message.content) > CONTENT_LIMIT:
            raise DiscordError(400, 50035, "Invalid Form Body: content longer than 2000")
        if len(message.embeds) > 10 or sum(len(json.dumps(e)) for e in message.embeds) > 6000:
            raise DiscordError(400, 50035, "Invalid Form Body: embeds too large")
        if sum(len(a.data) for a in message.attachments) > ATTACHMENTS_LIMIT:
            raise DiscordError(413, 40005, "Request entity too large")
        if not message.flags & COMPONENTS_V2:  # the classic layout: 5 rows, 5 buttons each
            rows = message.components
            if len(rows) > 5 or any(row.get("type") != 1 for row in rows):
                raise DiscordError(400, 50035, "Invalid Form Body: at most 5 action rows")
            for row in rows:
                items = row.get("components", [])
                selects = [i for i in items if i.get("type") != 2]
                if selects and len(items) > 1:
                    raise DiscordError(400, 50035, "Invalid Form Body: a select menu fills "
                                       "its row")

    def _edit(self, message: Message, payload: JSON, files: list[Attachment]) -> None:
        message.history.append((message.content, message.embeds, message.attachments))
        if "content" in payload:
            message.content = str(payload["content"] or "")
        if "embeds" in payload:
            message.embeds = list(payload["embeds"] or [])
        if "components" in payload:
            message.components = list(payload["components"] or [])
        if "attachments" in payload or files:
            kept = [message.attachments[int(a["id"])] for a in payload.get("attachments", [])
                    if str(a.get("id", "")).isdigit() and int(a["id"]) < len(message.attachments)]
            message.attachments = kept + files
        if "flags" in payload and payload["flags"] is not None:
            message.flags = int(payload["flags"]) | (message.flags & EPHEMERAL)
        self._check_limits(message)

    async def _post_message(self, request: web.Request) -> web.Response:
        channel_id = int(request.match_info["cid"])
        channel = self.channels.get(channel_id)
        if channel is None:
            return json_response({"message": "Unknown Channel", "code": 10003}, 404)
        payload, files = await self._read_message_body(request)
        self._validate("POST /channels/{channel_id}/messages", payload)
        if channel.type == 1 and channel.recipient_id in self.closed_dms:
            raise DiscordError(403, 50007, "Cannot send messages to this user")
        if channel.archived:
            if channel.locked:
                raise DiscordError(400, 50083, "Thread is archived")
            channel.archived = False  # Discord reopens an archived thread on a new message
            await self.dispatch("THREAD_UPDATE", channel.payload(self.users))
        message = self._new_message(channel_id, payload, files,
                                    "dm" if channel.type == 1 else "channel")
        return json_response(self.message_payload(message))

    async def _edit_message(self, request: web.Request) -> web.Response:
        message = self.messages.get(int(request.match_info["mid"]))
        if message is None or message.channel_id != int(request.match_info["cid"]):
            return json_response({"message": "Unknown Message", "code": 10008}, 404)
        payload, files = await self._read_message_body(request)
        self._validate("PATCH /channels/{channel_id}/messages/{message_id}", payload)
        channel = self.channels.get(message.channel_id)
        if channel is not None and channel.archived:
            raise DiscordError(400, 50083, "Thread is archived")
        self._edit(message, payload, files)
        return json_response(self.message_payload(message))

    async def _create_dm(self, request: web.Request) -> web.Response:
        body = await request.json()
        self._validate("POST /users/@me/channels", body)
        recipient = int(body["recipient_id"])
        if recipient not in self.users:
            return json_response({"message": "Unknown User", "code": 10013}, 404)
        for channel in self.channels.values():
            if channel.type == 1 and channel.recipient_id == recipient:
                break
        else:
            channel = Channel(self.new_id(), 1, recipient_id=recipient)
            self.channels[channel.id] = channel
        return json_response(channel.payload(self.users))

    async def _get_channel(self, request: web.Request) -> web.Response:
        channel = self.channels.get(int(request.match_info["cid"]))
        if channel is None:
            return json_response({"message": "Unknown Channel", "code": 10003}, 404)
        return json_response(channel.payload(self.users))

    async def _create_thread(self, request: web.Request) -> web.Response:
        parent = self.channels.get(int(request.match_info["cid"]))
        if parent is None or parent.type != 0:
            return json_response({"message": "Unknown Channel", "code": 10003}, 404)
        body = await request.json()
        self._validate("POST /channels/{channel_id}/threads", body)
        thread = Channel(self.new_id(), int(body.get("type") or 11), str(body["name"]),
                         guild_id=parent.guild_id, parent_id=parent.id, owner_id=self.bot.id,
                         members={self.bot.id},
                         auto_archive_duration=int(body.get("auto_archive_duration") or 4320))
        self.channels[thread.id] = thread
        payload = thread.payload(self.users)
        await self.dispatch("THREAD_CREATE", {**payload, "newly_created": True})
        return json_response(payload)

    async def _add_thread_member(self, request: web.Request) -> web.Response:
        channel = self.channels.get(int(request.match_info["cid"]))
        if channel is None or channel.type != 11:
            return json_response({"message": "Unknown Channel", "code": 10003}, 404)
        channel.members.add(int(request.match_info["uid"]))
        return web.Response(status=204)

    # ---- REST: interaction responses ---------------------------------------------------------

    def _interaction_by_token(self, token: str) -> InteractionRecord:
        for record in self.interactions.values():
            if record.token == token:
                if self.clock() - record.created > self.followup_window:
                    raise DiscordError(401, 50027, "Invalid Webhook Token")
                return record
        raise web.HTTPNotFound(text=json.dumps({"message": "Unknown Webhook", "code": 10015}),
                               content_type="application/json")

    async def _callback(self, request: web.Request) -> web.Response:
        record = self.interactions.get(int(request.match_info["iid"]))
        if record is None or record.token != request.match_info["token"]:
            return json_response({"message": "Unknown interaction", "code": 10062}, 404)
        if record.response_type is not None:
            return json_response({"message": "Interaction has already been acknowledged.",
                                  "code": 40060}, 400)
        if self.clock() - record.created > self.response_deadline:
            self.late.append(record.id)
            return json_response({"message": "Unknown interaction", "code": 10062}, 404)
        body, files = await self._read_message_body(request)
        try:
            self._validate("POST /interactions/{interaction_id}/{interaction_token}/callback",
                           body)
        finally:  # a refused answer is an answer too: whoever waits for one may look now
            record.responded.set()
        kind = int(body["type"])
        data: JSON = dict(body.get("data") or {})
        record.response_type, record.response_data = kind, data
        resource: JSON = {"type": kind}
        if kind == 4:
            record.original = self._new_message(record.channel_id, data, files, "interaction",
                                                record.id)
            resource["message"] = self.message_payload(record.original)
        elif kind == 5:
            record.original = self._new_message(record.channel_id, {"flags": data.get("flags")},
                                                [], "interaction", record.id)
            record.original.deferred = True
        elif kind == 7:
            target = self.messages[int(record.payload["message"]["id"])]
            self._edit(target, data, files)
            resource["message"] = self.message_payload(target)
        record.responded.set()
        reply = {"interaction": {"id": str(record.id), "type": record.type,
                                 "response_message_loading": kind == 5,
                                 "response_message_ephemeral":
                                     bool(int(data.get("flags") or 0) & EPHEMERAL)},
                 "resource": resource}
        if record.original is not None:
            reply["interaction"]["response_message_id"] = str(record.original.id)
        return json_response(reply)

    async def _followup(self, request: web.Request) -> web.Response:
        if int(request.match_info["app"]) != self.app_id:
            return json_response({"message": "Unknown Webhook", "code": 10015}, 404)
        record = self._interaction_by_token(request.match_info["token"])
        if record.response_type is None:
            return json_response({"message": "Unknown Webhook", "code": 10015}, 404)
        payload, files = await self._read_message_body(request)
        self._validate("POST /webhooks/{webhook_id}/{webhook_token}", payload)
        original = record.original
        if original is not None and original.deferred:
            # Discord: the first followup after a "thinking" defer replaces the loading
            # message, and keeps the defer's visibility (ephemeral or not).
            original.deferred = False
            self._edit(original, {k: v for k, v in payload.items() if k != "flags"}, files)
            original.history.clear()
            original.pings = self._pings({**payload, "flags": original.flags},
                                         original.content)
            return json_response(self.message_payload(original))
        message = self._new_message(record.channel_id, payload, files, "followup", record.id)
        record.followups.append(message)
        return json_response(self.message_payload(message))

    def _webhook_message(self, request: web.Request) -> tuple[InteractionRecord, Message]:
        record = self._interaction_by_token(request.match_info["token"])
        mid = request.match_info["mid"]
        if mid == "@original":
            if record.original is None and record.response_type == 6:
                record.original = self.messages[int(record.payload["message"]["id"])]
            if record.original is None:
                raise web.HTTPNotFound(text=json.dumps({"message": "Unknown Message",
                                                        "code": 10008}),
                                       content_type="application/json")
            return record, record.original
        message = self.messages.get(int(mid))
        if message is None:
            raise web.HTTPNotFound(text=json.dumps({"message": "Unknown Message", "code": 10008}),
                                   content_type="application/json")
        return record, message

    async def _get_webhook_message(self, request: web.Request) -> web.Response:
        _, message = self._webhook_message(request)
        return json_response(self.message_payload(message))

    async def _edit_webhook_message(self, request: web.Request) -> web.Response:
        _, message = self._webhook_message(request)
        payload, files = await self._read_message_body(request)
        self._validate("PATCH /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}",
                       payload)
        was_deferred, message.deferred = message.deferred, False
        self._edit(message, payload, files)
        if was_deferred:
            message.history.clear()
        return json_response(self.message_payload(message))

    # ---- gateway -------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self._sockets.append(socket)
        await socket.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41250},
                                          "s": None, "t": None}))
        try:
            async for message in socket:
                if message.type != WSMsgType.TEXT:
                    break
                await self._gateway_op(socket, json.loads(message.data))
        finally:
            if socket in self._sockets:
                self._sockets.remove(socket)
        return socket

    async def _gateway_op(self, socket: web.WebSocketResponse, message: JSON) -> None:
        op = message.get("op")
        if op == 1:
            await socket.send_str(json.dumps({"op": 11, "d": None, "s": None, "t": None}))
        elif op == 2:
            self.token_seen = str(message["d"]["token"]).removeprefix("Bot ")
            shard_id, count = (int(n) for n in message["d"].get("shard") or (0, 1))
            if count != self.shard_count or not 0 <= shard_id < count:
                await socket.close(code=4010, message=b"Invalid shard")  # as Discord does
                return
            self.shard_of_socket[socket] = (shard_id, count)
            self.identified.append((shard_id, count))
            guilds = [g for g in self.guilds if self.shard_for(g) == shard_id]
            self.ready_guilds[(shard_id, count)] = guilds
            await self._send(socket, "READY", {
                "v": 10, "user": {**self.bot.payload(), "verified": True, "mfa_enabled": False},
                "guilds": [{"id": str(g), "unavailable": True} for g in guilds],
                "session_id": f"fake-session-{shard_id}", "resume_gateway_url": self.gateway_url,
                "shard": [shard_id, count], "application": {"id": str(self.app_id), "flags": 0},
                "private_channels": [], "relationships": [],
            })
            for guild in guilds:
                await self._send(socket, "GUILD_CREATE", self.guild_payload(guild))
            self._identified.set()
        elif op == 8:
            guild = message["d"]["guild_id"]
            await self._send(socket, "GUILD_MEMBERS_CHUNK", {
                "guild_id": str(guild), "chunk_index": 0, "chunk_count": 1,
                "members": [self.member_payload(self.users[uid]) for uid in self.member_roles],
                "nonce": message["d"].get("nonce"),
            })
        elif op == 6:
            await self._send(socket, "RESUMED", {})

    async def _send(self, socket: web.WebSocketResponse, event: str, data: JSON) -> None:
        self._seq += 1
        await socket.send_str(json.dumps({"op": 0, "t": event, "s": self._seq, "d": data}))

    async def dispatch(self, event: str, data: JSON) -> None:
        """Send an event to the connections that receive it: a guild's to its shard's, a
        direct message's to shard 0's."""
        guild = data.get("guild_id")
        shard = self.shard_for(int(guild) if guild is not None else None)
        for socket in list(self._sockets):
            if self.shard_of_socket.get(socket, (0, 1))[0] == shard:
                await self._send(socket, event, data)

    async def wait_identified(self, timeout: float = GENEROUS) -> None:
        await asyncio.wait_for(self._identified.wait(), timeout)

    # ---- what tests do as users ------------------------------------------------------------

    def _user_fields(self, user: User, channel: Channel) -> JSON:
        if channel.guild_id is not None:
            return {"member": self.member_payload(user), "guild_id": str(channel.guild_id),
                    "guild": {"id": str(channel.guild_id), "locale": "en-US", "features": []},
                    "guild_locale": "en-US", "context": 0}
        return {"user": user.payload(), "context": 1}

    def dm_channel(self, user: User) -> Channel:
        """The DM channel between ``user`` and the bot (created if needed)."""
        for channel in self.channels.values():
            if channel.type == 1 and channel.recipient_id == user.id:
                return channel
        channel = Channel(self.new_id(), 1, recipient_id=user.id)
        self.channels[channel.id] = channel
        return channel

    async def interact(self, type_: int, user: User, channel: Channel, data: JSON,
                       message: Message | None = None, iid: int | None = None
                       ) -> InteractionRecord:
        """Send an INTERACTION_CREATE; returns the record the bot's answers fill."""
        iid = iid if iid is not None else self.new_id()
        token = f"token-{iid}"
        payload: JSON = {
            "id": str(iid), "type": type_, "token": token, "version": 1,
            "application_id": str(self.app_id), "attachment_size_limit": 10 * 1024 * 1024,
            "channel": channel.payload(self.users), "channel_id": str(channel.id),
            "data": data, "locale": "en-US", "app_permissions": str(MEMBER_PERMISSIONS),
            "entitlements": [],
            # a guild install; "0" when used in the DM with the bot
            "authorizing_integration_owners": {"0": str(channel.guild_id or 0)},
            **self._user_fields(user, channel),
        }
        if message is not None:
            payload["message"] = self.message_payload(message)
        record = InteractionRecord(iid, token, type_, user.id, channel.id, payload,
                                   created=self.clock())
        self.interactions[iid] = record
        await self.dispatch("INTERACTION_CREATE", payload)
        return record

    def command_data(self, path: str, options: JSON, channel: Channel | None = None,
                     user: User | None = None, focused: str | None = None) -> JSON:
        """``data`` of a slash command: ``path`` like "game new" or "move", as ``user``
        invokes it in ``channel`` (which must offer it)."""
        names = path.split()
        command = self.command(names[0], channel, user)
        spec_options = command.get("options", [])
        if focused is None:  # Discord's client asks for every required option
            declared = self._options_at(spec_options, names[1:])
            missing = [o["name"] for o in declared if o.get("required") and o.get("type", 3) > 2
                       and options.get(o["name"]) is None]
            if missing:
                raise CommandUnavailable(f"/{path} needs {missing}")
        leaf: list[JSON] = []
        for name, value in options.items():
            if value is None:
                continue
            option = {"name": name, "type": self._option_type(spec_options, names[1:], name),
                      "value": value}
            if name == focused:
                option["focused"] = True
            leaf.append(option)
        nested: list[JSON] = leaf
        for depth in range(len(names) - 1, 0, -1):
            kind = 1 if depth == len(names) - 1 else 2
            nested = [{"name": names[depth], "type": kind, "options": nested}]
        data: JSON = {"id": command["id"], "name": names[0], "type": 1, "options": nested}
        if "guild_id" in command:  # only a server's own commands carry it
            data["guild_id"] = command["guild_id"]
        # Discord resolves user options (type 6) into the user and, in a guild, the member.
        users = [self.users[int(o["value"])] for o in leaf
                 if o["type"] == 6 and int(o["value"]) in self.users]
        if users:
            data["resolved"] = {
                "users": {str(u.id): u.payload() for u in users},
                "members": {str(u.id): {k: v for k, v in self.member_payload(u).items()
                                        if k != "user"} for u in users},
            }
        return data

    @staticmethod
    def _options_at(spec: list[JSON], path: list[str]) -> list[JSON]:
        options = spec
        for part in path:
            found = [o for o in options if o["name"] == part]
            if not found:
                raise CommandUnavailable(f"no subcommand {part!r}; have "
                                         f"{[o['name'] for o in options]}")
            options = found[0].get("options", [])
        return options

    @classmethod
    def _option_type(cls, spec: list[JSON], path: list[str], name: str) -> int:
        options = cls._options_at(spec, path)
        for option in options:
            if option["name"] == name:
                return int(option["type"])
        raise KeyError(f"command has no option {name!r}: {[o['name'] for o in options]}")

    # ---- reading the record --------------------------------------------------------------

    def channel_messages(self, channel: Channel | int) -> list[Message]:
        cid = channel if isinstance(channel, int) else channel.id
        return [m for m in self.messages.values() if m.channel_id == cid and not m.deferred]

    def public_messages(self) -> list[Message]:
        """Every non-ephemeral message in a guild channel or thread (what anyone can read)."""
        return [m for m in self.messages.values()
                if not m.ephemeral and self.channels[m.channel_id].type != 1]

    def dms_to(self, user: User) -> list[Message]:
        return [m for m in self.messages.values() if self.channels[m.channel_id].type == 1
                and self.channels[m.channel_id].recipient_id == user.id]

    def threads(self) -> list[Channel]:
        return [c for c in self.channels.values() if c.type == 11]

    async def wait_message(self, predicate: Callable[[Message], bool],
                           timeout: float = GENEROUS) -> Message:
        for message in self.messages.values():
            if predicate(message):
                return message
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._message_waiters.append((predicate, future))
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self._message_waiters.remove((predicate, future))
