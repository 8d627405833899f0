"""Posting what happened: one public message in the game's thread, each side's DMs,
decision prompts, secret-placement reminders and deadline notices.

Every step fails alone. A thread post Discord refuses (missing permissions, a locked
thread) is logged and reported to whoever acted; a DM a player does not accept (Discord
error 50007) is reported in the game thread, so the player learns to open their DMs.
Nothing here can undo or deny a stored action: callers acknowledge the action first.

Mentions are for whoever must act: a player is pinged when the side to act, or the side
owing a decision, changes — not on every post. Pictures follow the game's setting
(``pictures``: after every order, when the side to act changes, or never).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import io
import json
import logging
from pathlib import Path
from typing import Any, Literal, Protocol

import discord

from adjudicator.kernel.events import GM, PUBLIC
from adjudicator.kernel.game import Game
from adjudicator.kernel.views import View
from bot.discord import formatting as fmt
from bot.discord.components import choose_view, options_of, options_view, shown_options
from bot.discord.port import THREAD_KEY, ServicePort, players_of
from bot.discord.verbs import secret_commands
from bot.messages import Message
from bot.service import Actor, GameInfo, SubmitResult

log = logging.getLogger("umpire.discord")

#: A game's binding for how often the thread gets a picture.
PICTURES_KEY = "discord_pictures"
#: ``meta`` keys (+ the game id) of what every bot process must agree was done once.
PINGED, PICTURED, PROMPTED = "discord:pinged:", "discord:pictured:", "discord:prompted:"
#: A game's latest thread posts after actions, ``[[seq, message id, content], …]``: those a
#: rollback undoes are edited to say so (issue 29).
POSTS = "discord:posts:"
#: How many of a game's latest action posts are remembered (a rollback further back
#: marks those it still finds; the notice lists every order undone anyway).
KEPT_POSTS = 60
Pictures = Literal["order", "turn", "off"]
PICTURES: tuple[str, ...] = ("order", "turn", "off")
#: Discord's error codes the bot expects and handles.
CANNOT_DM = 50007
MISSING_PERMISSIONS = 50013
THREAD_ARCHIVED = 50083


class Renderer(Protocol):
    """``renderer(view, pack) -> PNG bytes``; plugged in when the rendering package provides
    one. ``pack`` is the game's own data pack (a GM's replacement): a game played with the
    shipped pack is drawn with ``renderer(view)``. The picture is the game's usual one
    (zoomed on the last action for Turning Point: Stalingrad); ``renderer(view, pack,
    full=True)`` draws the whole map."""

    def __call__(self, view: View, pack: Path | None = None, /, **options: bool) -> bytes: ...


def extras(file: discord.File | None = None, view: discord.ui.View | None = None
           ) -> dict[str, Any]:
    """The ``file`` and ``view`` keyword arguments of a send, when given."""
    out: dict[str, Any] = {}
    if file is not None:
        out["file"] = file
    if view is not None:
        out["view"] = view
    return out


def describe(error: discord.HTTPException) -> str:
    """What a refused post means, for a person."""
    if error.code == MISSING_PERMISSIONS or error.status == 403:
        return ("Umpire lacks a permission there (it needs View Channel, Send Messages in "
                "Threads and Attach Files)")
    if error.code == THREAD_ARCHIVED:
        return "the game's thread is archived and locked (a moderator can reopen it)"
    return f"Discord refused it ({error.status}, code {error.code})"


#: View fields that are no part of the board drawn (who acts, decisions, the phase's
#: name, the last action's highlight): a post whose board is otherwise unchanged gets no
#: picture.
NOT_BOARD = frozenset({"viewer", "to_act", "pending", "standing", "result", "phase",
                       "phasing", "last_action", "box", "turn", "day", "impulse_origin",
                       "impulse_mf", "advantage_usable", "battle"})


def board_digest(view: View) -> str:
    """A fingerprint of what a picture of ``view`` shows of the board: its JSON as pydantic
    writes it (fields in their declared order), a quarter of the cost of sorting a Python
    dump (issue 26). Two equal boards written in another order would only cost a drawing:
    the picture's own hash then finds it the map posted last (``_new_picture``)."""
    return hashlib.sha256(view.model_dump_json(exclude=set(NOT_BOARD)).encode()).hexdigest()


def shows_more(side: View | None, public: View | None) -> bool:
    """Whether a side's view shows something the public one does not (its hidden units,
    its mines …): only then is its own picture worth a DM."""
    if side is None or public is None:
        return side is not None
    mine = side.model_dump(exclude={"viewer", "pending", "standing"})
    return mine != public.model_dump(exclude={"viewer", "pending", "standing"})


class Early:
    """A stored action's public board, begun as soon as the action is stored: its View
    (a worker thread) and its picture (the renderer) are under way while the actor's
    acknowledgement goes to Discord, and the thread's post takes them if it gets a picture
    (issue 26: the follow-up waited for the acknowledgement, then for the drawing). Made by
    :meth:`Publisher.draw_early`; what the post does not take is dropped (:meth:`drop`)."""

    def __init__(self, view: asyncio.Task[View | None],
                 picture: asyncio.Task[discord.File | None]) -> None:
        self.view = view
        self.picture = picture

    def drop(self) -> None:
        """Cancel what is not finished; an error of what is (a View that failed to build)
        is already the post's, which awaited it, or nobody's: it is not reported again."""
        for task in (self.picture, self.view):
            if not task.done():
                task.cancel()
            elif not task.cancelled():
                task.exception()  # retrieved: no "never retrieved" warning at collection


class Publisher:
    def __init__(self, client: discord.Client, port: ServicePort,
                 renderer: Renderer | None = None) -> None:
        self.client = client
        self.port = port
        self.renderer = renderer
        # Kept in the store's ``meta`` (every bot process publishes, one ping each time):
        # per game, (side to act, side owing a decision, over) when players were last
        # pinged; the side to act when the last picture was posted; the (side, branch) whose
        # secret placement was last prompted.
        #: Per game: users already told in the thread to open their DMs.
        self._told_dms: dict[str, set[str]] = {}

    # ---- the thread and DMs ----------------------------------------------------------------

    def thread_of(self, info: GameInfo) -> discord.abc.Messageable | None:
        thread = info.bindings.get(THREAD_KEY)
        if thread is None:
            return None
        return self.client.get_partial_messageable(int(thread),
                                                   type=discord.ChannelType.public_thread)

    async def post(self, info: GameInfo, content: str, file: discord.File | None = None,
                   view: discord.ui.View | None = None, seq: int | None = None
                   ) -> str | None:
        """Post in the game's thread; None when posted, else what went wrong. ``seq``: the
        action the post tells of, remembered so that a rollback can mark it undone."""
        channel = self.thread_of(info)
        if channel is None:
            return None
        try:
            sent = await channel.send(fmt.clip(content), **extras(file, view))
        except discord.HTTPException as error:
            log.warning("game %s: cannot post in thread %s: %s", info.id,
                        info.bindings.get(THREAD_KEY), error)
            return describe(error)
        if seq is not None:
            posts = await self._posts(info.id)
            posts.append([seq, sent.id, fmt.clip(content)])
            await self.port.set_note(POSTS + info.id, json.dumps(posts[-KEPT_POSTS:]))
        return None

    async def _posts(self, game_id: str) -> list[list[Any]]:
        raw = await self.port.note(POSTS + game_id)
        return list(json.loads(raw)) if raw else []

    async def mark_undone(self, info: GameInfo, to_seq: int) -> int:
        """Edit the thread posts of the actions after ``to_seq`` (a rollback undid them):
        struck through under an "(undone by the GM)" line, their buttons removed. How
        many were edited."""
        thread = info.bindings.get(THREAD_KEY)
        posts = await self._posts(info.id)
        if thread is None or not posts:
            return 0
        channel = self.client.get_partial_messageable(int(thread),
                                                      type=discord.ChannelType.public_thread)
        edited = 0
        for seq, message_id, content in posts:
            if int(seq) <= to_seq:
                continue
            try:
                await channel.get_partial_message(int(message_id)).edit(
                    content=fmt.undone_post(str(content)), view=None)
                edited += 1
            except discord.HTTPException as error:
                log.info("game %s: cannot mark post %s undone: %s", info.id, message_id, error)
        await self.port.set_note(POSTS + info.id,
                                 json.dumps([p for p in posts if int(p[0]) <= to_seq]))
        return edited

    async def dm(self, info: GameInfo | None, user_id: str | int, content: str, *,
                 file: discord.File | None = None, view: discord.ui.View | None = None
                 ) -> bool:
        """DM a user; a refusal is reported in the game's thread (once until a DM to that
        user gets through again, so a run of failures is not told over and over)."""
        try:
            user = self.client.get_user(int(user_id)) or await self.client.fetch_user(
                int(user_id))
            await user.send(fmt.clip(content), **extras(file, view))
        except discord.HTTPException as error:
            log.info("game %s: cannot DM user %s: %s", info.id if info else "-", user_id, error)
            if info is not None:
                await self.tell_dms_closed(info, str(user_id), error)
            return False
        if info is not None:  # DMs work again: a later failure is told again
            self._told_dms.get(info.id, set()).discard(str(user_id))
        return True

    async def tell_dms_closed(self, info: GameInfo, user_id: str,
                              error: discord.HTTPException) -> None:
        told = self._told_dms.setdefault(info.id, set())
        if user_id in told:
            return
        told.add(user_id)
        if error.code == CANNOT_DM:
            text = (f"{fmt.mention(user_id)}: I cannot send you direct messages. Open your "
                    "DMs with Umpire (Privacy Settings of this server → Direct Messages) to "
                    "receive your secret view, your decisions and your set-up; then use "
                    "`/game map private:true` for what you missed.")
        else:
            text = (f"{fmt.mention(user_id)}: a direct message to you failed ({describe(error)}); "
                    "use `/game map private:true` for your own view.")
        await self.post(info, text)

    async def picture(self, view: View | None, name: str = "map.png",
                      info: GameInfo | None = None, full: bool = False
                      ) -> discord.File | None:
        """The map picture of a view of the game ``info``, drawn with the game's own data
        pack, when a renderer is plugged in (``full``: the whole map, not the zoom)."""
        if self.renderer is None or view is None:
            return None
        renderer = self.renderer
        try:
            pack = (await self.port.game_rules(info)).pack if info is not None else None
            args = (view, Path(pack)) if pack is not None else (view,)
            drawn = functools.partial(renderer, *args, full=True) if full else (
                functools.partial(renderer, *args))
            off = getattr(renderer, "picture", None)  # a worker process: awaited, no thread
            data = await (off(*args, full=full) if callable(off) else
                          asyncio.to_thread(drawn))
        except Exception:  # a game without pictures, or a drawing bug: post the text alone
            log.exception("no picture for a %s view", view.game)
            return None
        return discord.File(io.BytesIO(data), filename=name)

    # ---- after an action -------------------------------------------------------------------

    async def mark_pinged(self, info: GameInfo, to_act: str | None, owing: str | None
                          ) -> None:
        """Players of ``to_act`` / ``owing`` were just pinged (e.g. by the start message)."""
        await self.port.set_note(PINGED + info.id,
                                 json.dumps([to_act, owing, info.result is not None]))

    async def _ping_due(self, game_id: str, key: tuple[str | None, str | None, bool]) -> bool:
        """Whether this change of who acts is new (the first process to see it pings)."""
        return await self.port.mark(PINGED + game_id, json.dumps(list(key)))

    async def _picture_due(self, info: GameInfo, view: View | None, to_act: str | None,
                           changed: bool) -> bool:
        """Whether this post gets a picture: as the game's setting says, and only when
        the board differs from the one last pictured (no identical maps, issue 29)."""
        setting = str(info.bindings.get(PICTURES_KEY, "order"))
        if setting == "off" or view is None:
            return False
        if setting == "turn":
            differs = await self.port.mark(PICTURED + info.id, json.dumps(to_act))
            if not (changed or differs):
                return False
        digest = await asyncio.to_thread(board_digest, view)  # a whole View's JSON: off the loop
        return await self.port.mark(PICTURED + "board:" + info.id, digest)

    async def _new_picture(self, info: GameInfo, picture: discord.File) -> bool:
        """Whether ``picture`` differs from the last one posted in the game's thread."""
        data = picture.fp.getvalue() if isinstance(picture.fp, io.BytesIO) else None
        if data is None:
            return True
        return await self.port.mark(PICTURED + "png:" + info.id,
                                    hashlib.sha256(data).hexdigest())

    def draw_early(self, info: GameInfo, result: SubmitResult) -> Early | None:
        """Begin the public board's View and picture of an action just stored (see
        :class:`Early`), when the game gets a picture after every order (``pictures``'
        default): with a picture only when the side to act changes, most actions get none,
        and the drawing would be work thrown away. The post still decides (an unchanged
        board gets no picture); ``info``: the game as the action found it."""
        public = result.messages.get(PUBLIC)
        if (public is None or self.renderer is None or result.duplicate or info.paused
                or str(info.bindings.get(PICTURES_KEY, "order")) != "order"):
            return None
        view = asyncio.create_task(_view_of(public), name=f"umpire-view-{info.id}")

        async def drawn() -> discord.File | None:
            return await self.picture(await view, info=info)

        return Early(view, asyncio.create_task(drawn(), name=f"umpire-picture-{info.id}"))

    async def publish(self, info: GameInfo, result: SubmitResult,
                      actor_id: str | None = None, actor_told: bool = False,
                      early: Early | None = None) -> list[str]:
        """:meth:`_publish`, taking the board ``early`` began if the post gets a picture,
        and dropping it otherwise."""
        try:
            return await self._publish(info, result, actor_id, actor_told, early)
        finally:
            if early is not None:
                early.drop()

    async def _publish(self, info: GameInfo, result: SubmitResult, actor_id: str | None,
                       actor_told: bool, early: Early | None) -> list[str]:
        """After an action: one public message in the thread, then each side's DMs.

        The public message is built from the public audience's message only; each side's
        DM from that side's own message; the GM's DM from the GM's. A change of who must
        act is always posted (even when nothing else is to tell) and pings that side's
        players, never ``actor_id`` (the Discord user who just acted). A DM carries only
        what that side may know beyond the public post, or must decide, once: no DM to
        the actor when their own acknowledgement told them (``actor_told``), a picture
        only when the side's view shows more than the public one. Returns what could not
        be delivered (for the actor's acknowledgement).
        """
        problems: list[str] = []
        info = await self.port.info(info.id)
        public = result.messages.get(PUBLIC)
        if public is None:
            return problems
        if info.paused:  # nobody can act: the notice only, no prompts or buttons
            # whoever must act is pinged again on resume
            await self.port.set_note(PINGED + info.id, "")
            problem = await self.post(info, fmt.public_post(
                public.model_copy(update={"prompt": None, "to_act": None}), None, "", ""))
            if problem:
                problems.append(f"the thread post: {problem}")
            await self.dm_gm_only(info, result)
            return problems
        owing = result.pending_side
        key = (public.to_act, owing, public.result is not None)
        ping = await self._ping_due(info.id, key)
        to_act_ids = self._to_ping(info, public.to_act if ping else None, actor_id)
        owing_ids = self._to_ping(info, owing if ping else None, actor_id)
        # a standing order set while a decision waits changes nothing anyone else sees:
        # no post in the thread, the decision's DM and buttons stay as they are (issue 29)
        quiet = not (public.lines or public.result or ping) and bool(result.applied) and all(
            text.split()[:1] == ["standing"] for text in result.applied)
        if (public.lines or public.result or owing or ping) and not quiet:
            content = fmt.public_post(public, self._given_by(info, result, actor_id),
                                      fmt.mentions(to_act_ids), fmt.mentions(owing_ids))
            view = choose_view(info.id, info.head_seq) if owing and not public.result else None
            board = await (early.view if early is not None else _view_of(public))
            picture = None
            if await self._picture_due(info, board, public.to_act, ping):
                picture = await (early.picture if early is not None
                                 else self.picture(board, info=info))
            if picture is not None and not await self._new_picture(info, picture):
                picture = None  # the very map posted last (a crop the change lies outside)
            problem = await self.post(info, content, picture, view, seq=info.head_seq)
            if problem:
                problems.append(f"the thread post: {problem}")
        label = fmt.game_label(info)
        for side in self.port.rules(info.game).sides:
            message = result.messages.get(side)
            if message is None:
                continue
            text = fmt.private_post(message, label, public.lines)
            owes = owing == side and bool(message.options)
            for user_id in players_of(info, side):
                if owes and quiet:
                    continue
                if owes:
                    buttons = options_view(info.id, info.head_seq, options=await shown_options(
                        self.port, info.id, options_of(message)))
                    await self.dm(info, user_id,
                                  fmt.decision_dm(label, message, buttons is not None),
                                  view=buttons)
                elif text is not None and not (actor_told and user_id == actor_id):
                    mine = await _view_of(message)
                    more = await asyncio.to_thread(shows_more, mine, await _view_of(public))
                    file = await self.picture(mine, f"{side}.png", info) if more else None
                    await self.dm(info, user_id, text, file=file)
        await self.dm_gm_only(info, result)
        await self.prompt_secret_placement(info)
        return problems

    @staticmethod
    def _given_by(info: GameInfo, result: SubmitResult, actor_id: str | None) -> str | None:
        """Who gave the orders, for the post's header: the side when one of its players
        did, "the GM for" the side when a GM did (issue 29); None (Umpire) otherwise."""
        side = result.side
        if side is None or actor_id is None:
            return None
        if actor_id in players_of(info, side):
            return side
        return f"{side}, given by the GM"

    @staticmethod
    def _to_ping(info: GameInfo, side: str | None, actor_id: str | None) -> list[str]:
        """The players of ``side`` to notify: all of them but the one who just acted."""
        return [u for u in players_of(info, side) if u != actor_id] if side else []

    async def to_act_line(self, info: GameInfo) -> str:
        """Who must act now, with a ping to their players if that is news (the first
        process to see this change of who acts pings; the line is shown either way)."""
        if info.result or info.status != "active":
            return ""
        view = await self.port.view(info.id, Actor(), PUBLIC)
        owing = view.pending.side if view.pending else None
        ping = await self._ping_due(info.id, (view.to_act, owing, False))
        if owing is not None and view.pending is not None:
            ids = self._to_ping(info, owing if ping else None, None)
            return f"{fmt.mentions(ids)} {view.pending.prompt}".strip()
        if view.to_act is None:
            return ""
        ids = self._to_ping(info, view.to_act if ping else None, None)
        return f"To act: **{view.to_act}** {fmt.mentions(ids)}".rstrip()

    async def dm_gm_only(self, info: GameInfo, result: SubmitResult) -> None:
        """DM every GM of the game what only the GM's message holds (GM-only events)."""
        gm = result.messages.get(GM)
        if gm is None:
            return
        seen = {line for m in result.messages.values() if m.audience != GM for line in m.lines}
        gm_only = [line for line in gm.lines if line not in seen]
        if gm_only:
            for user_id in await self.port.gm_readers(info):
                await self.dm(info, user_id, f"**{fmt.game_label(info)}** — GM only:\n"
                              + fmt.clip_lines(gm_only, 1800))

    async def prompt_secret_placement(self, info: GameInfo) -> None:
        """DM the side to act, once per turn of set-up, when it may place secretly now."""
        side = info.to_act
        if side is None or info.status != "active":
            return
        rules = self.port.rules(info.game)
        # a game that names the side entering secrets (``private_input``) has no secret
        # verb legal while it names none: its legal orders are not listed (tens of ms for a
        # TP:S position, after every action: issue 26)
        if type(rules).private_input is not Game.private_input and await self.port.private_input(
                info.id) is None:
            return
        key = json.dumps([side, info.branch])
        if await self.port.note(PROMPTED + info.id) == key:
            return
        claimed = False
        for user_id in players_of(info, side):
            legal = await self.port.legal_orders(info, Actor.discord(user_id))
            commands = await asyncio.to_thread(secret_commands, rules, legal)
            if commands:
                if not claimed and not await self.port.mark(PROMPTED + info.id, key):
                    return  # another bot process prompted it meanwhile
                claimed = True
                guide = await self.port.setup_guide(info.id, Actor.discord(user_id))
                await self.dm(info, user_id, fmt.clip(
                    f"**{fmt.game_label(info)}**: your secret placement is due ({side}). Use "
                    f"{', '.join(commands)} here, in this DM — never in the game thread."
                    + (f"\n{fmt.setup_guide(guide)}" if guide is not None else "")))

    async def deadline_notices(self) -> None:
        for notice in await self.port.tick():
            info = await self.port.info(notice.game_id)
            if notice.audience == PUBLIC:
                # a deadline that ran out played a default: say who acts next, and ping them
                after = await self.to_act_line(info) if notice.kind == "expired" else ""
                await self.post(info, f"{notice.text}\n{after}".strip())
            else:
                targets = await self.port.gm_readers(info) if notice.audience == GM else players_of(
                    info, notice.audience)
                for user_id in targets:
                    await self.dm(info, user_id, f"**{fmt.game_label(info)}**: {notice.text}")


async def _view_of(message: Message) -> View | None:
    """A message's View, built (on first use) in a worker thread, off the event loop: a
    TP:S View is a few ms of work, and a burst of orders builds one per post (issue 26)."""
    return await asyncio.to_thread(lambda: message.view)
