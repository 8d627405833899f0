"""The interactions the bot is handling: one log line each when done (game, actor, verb,
outcome, ms: :func:`bot.logs.handled`), the process's health record (:mod:`bot.health`),
and the drain of a stop — those still in flight when the bot must stop are given a few
seconds to finish, then answered "restarting, try again", so nobody is left at
"thinking…".

Autocomplete requests are not tracked: Discord drops them after 3 seconds anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from typing import Any, cast

import discord

from bot.discord import formatting as fmt
from bot.gate import Gate
from bot.logs import handled, since
from bot.service import Actor

log = logging.getLogger("umpire.discord")

#: The answer to an interaction the stop could not wait for.
RESTARTING = ("Umpire is restarting and could not finish this. Try again in a minute "
              "(check `/game status` first: an order that was stored shows there).")
#: Seconds to send that answer to each interaction left, at most.
ANSWER_SECONDS = 2.0
#: Least seconds between two writes of the health record while only the times of the last
#: interaction and tick change: under a burst it was written after every few interactions
#: (a write transaction each, beside the orders'); ``umpire status`` shows seconds.
HEALTH_SECONDS = 1.0
#: Times written at most every :data:`HEALTH_SECONDS`; any other change (connected,
#: stopped, an error) is written at once.
ROUTINE = frozenset({"last_interaction", "last_tick"})

TRACKED = (discord.InteractionType.application_command, discord.InteractionType.component,
           discord.InteractionType.modal_submit)


def _verb_and_game(interaction: discord.Interaction[Any]) -> tuple[str, str | None]:
    if interaction.command is not None:
        game = getattr(interaction.namespace, "game", None)
        return interaction.command.qualified_name, str(game) if game else None
    data = cast(dict[str, Any], interaction.data or {})
    custom = str(data.get("custom_id", ""))
    parts = custom.split(":")
    if len(parts) >= 2 and parts[0] == "umpire":
        return f"button {parts[1]}", parts[2] if len(parts) > 2 and parts[1] != "rb" else None
    return "component", None


class InFlight:
    """What one bot is handling now (see the module docstring)."""

    def __init__(self, client: Any, working_at_once: int = 2) -> None:
        self.client = client  # an UmpireBot (not imported: it imports this module)
        #: The places for the work after the acknowledgement (``BotConfig.working_at_once``).
        self.gate = Gate(working_at_once)
        self.started: dict[int, tuple[discord.Interaction[Any], float]] = {}
        self.outcomes: dict[int, str] = {}
        self._done_early: set[int] = set()
        self._empty = asyncio.Event()
        self._empty.set()
        self.stopping = False
        #: The game each interaction was found to be about (noted by ``game_of``).
        self.games: dict[int, str] = {}
        self._changes: dict[str, Any] = {}
        self._dirty = asyncio.Event()
        self._hurry = asyncio.Event()  # a change to write now, or a flush
        self._written = -math.inf  # when the record was last written (monotonic)
        self._writer: asyncio.Task[None] | None = None

    # ---- one interaction ----------------------------------------------------------------

    def begin(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.type not in TRACKED:
            return
        if interaction.id in self._done_early:  # finished before its start was seen
            self._done_early.discard(interaction.id)
            return
        self.started[interaction.id] = (interaction, time.monotonic())
        self._empty.clear()

    def note(self, interaction: discord.Interaction[Any], outcome: str) -> None:
        """How the interaction ended when not "ok" ("refused", "error")."""
        self.outcomes[interaction.id] = outcome

    async def done(self, interaction: discord.Interaction[Any]) -> None:
        self.gate.leave(interaction.id)
        entry = self.started.pop(interaction.id, None)
        outcome = self.outcomes.pop(interaction.id, "ok")
        if not self.started:
            self._empty.set()
        if entry is None:
            if interaction.type in TRACKED:
                self._done_early.add(interaction.id)
            return
        verb, game = _verb_and_game(interaction)
        game = self.games.pop(interaction.id, game)
        handled(log, game=game, actor=Actor.discord(interaction.user.id).label, verb=verb,
                outcome=outcome, ms=since(entry[1]),
                level=logging.ERROR if outcome == "error" else logging.INFO)
        self.health(last_interaction=time.time())

    # ---- health ---------------------------------------------------------------------------

    def health(self, **changes: Any) -> None:
        """Update this process's health record (written by one task, never blocking; the
        times of the last interaction and tick at most every :data:`HEALTH_SECONDS`)."""
        self._changes.update(changes)
        self._dirty.set()
        if not changes.keys() <= ROUTINE:
            self._hurry.set()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write(), name="umpire-health")

    def error(self, text: str) -> None:
        self.health(last_error=text, last_error_at=time.time())

    async def _write(self) -> None:
        while self._dirty.is_set():
            wait = self._written + HEALTH_SECONDS - time.monotonic()
            if wait > 0 and not self._hurry.is_set():  # the times alone: once an interval
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._hurry.wait(), wait)
            self._dirty.clear()
            self._hurry.clear()
            changes, self._changes = self._changes, {}
            try:
                await self.client.port.record_health("discord", **changes)
            except Exception as error:  # health is never worth failing the bot for
                log.warning("health record not written: %s", error)
            self._written = time.monotonic()

    async def flush(self, seconds: float = ANSWER_SECONDS) -> None:
        """Wait (bounded) until the health record is written: before the store closes."""
        self._hurry.set()
        if self._writer is not None and not self._writer.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._writer), seconds)

    # ---- the stop -----------------------------------------------------------------------

    async def drain(self, seconds: float) -> int:
        """Wait up to ``seconds`` for the interactions in flight, then answer those left
        with :data:`RESTARTING`; how many were left."""
        self.stopping = True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._empty.wait(), seconds)
        self.gate.close()  # those still waiting for their turn never start their work
        left = list(self.started.values())
        if left:
            log.warning("stopping with %d interaction(s) unfinished: answered 'restarting'",
                        len(left))
            await asyncio.gather(*(self._answer(interaction) for interaction, _ in left))
        return len(left)

    async def _answer(self, interaction: discord.Interaction[Any]) -> None:
        try:
            async with asyncio.timeout(ANSWER_SECONDS):
                if interaction.response.is_done():
                    await interaction.followup.send(fmt.clip(RESTARTING), ephemeral=True)
                else:
                    await interaction.response.send_message(fmt.clip(RESTARTING),
                                                            ephemeral=True)
        except (TimeoutError, discord.HTTPException) as error:
            log.warning("could not tell a user the bot is restarting: %s", error)
        self.gate.leave(interaction.id)
        verb, game = _verb_and_game(interaction)
        entry = self.started.pop(interaction.id, None)
        handled(log, game=game, actor=Actor.discord(interaction.user.id).label, verb=verb,
                outcome="restarting", ms=since(entry[1]) if entry else 0.0,
                level=logging.WARNING)
