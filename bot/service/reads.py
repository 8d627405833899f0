"""What a seated person reads: the view they may have, the orders legal for them now, what
a side enters privately, a secret set-up's guide, the log and the record as their audience
may read them, and what happened since a frontend last told its users."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from adjudicator.kernel.briefing import Briefing
from adjudicator.kernel.decisions import SetupGuide
from adjudicator.kernel.events import GM, PUBLIC
from adjudicator.kernel.game import Game, order_lines
from adjudicator.kernel.views import View
from bot.messages import (
    LogEntry,
    contact_labels,
    events_from_json,
    log_entry,
    redact_label,
    view_record_line,
)
from bot.records import FORMAT, export_lines, redact_contacts
from bot.service.base import ServiceBase
from bot.service.commit import _messages
from bot.service.models import (
    VIEW_FORMAT,
    Actor,
    Export,
    PermissionDenied,
    SubmitResult,
)
from bot.store import loads


class Reads(ServiceBase):
    def view(self, game_id: str, actor: Actor, viewer: str | None = None) -> View:
        """The view ``actor`` may have: their side's, the GM's, or the public one."""
        ctx = self._load(game_id)
        return ctx.game.view(ctx.state, self._audience(ctx.game, ctx.seats, actor, viewer,
                                                       str(ctx.row["status"])))

    @staticmethod
    def _audience(game: Game[Any], seats: Sequence[Mapping[str, Any]], actor: Actor,
                  wanted: str | None, status: str) -> str:
        """The audience ``actor`` reads as: ``wanted`` if allowed, else the richest one
        (GM, then their own side, then public). GM views only with GM powers now
        (:meth:`ServiceBase._gm_powers`: never for a GM who also plays, during play)."""
        mine = [s for s in seats if actor.holds(s)]
        allowed = {PUBLIC} | {s["side"] for s in mine if s["role"] == "player"}
        if ServiceBase._gm_powers(seats, actor, status):
            allowed |= {GM, *game.sides}
        chosen = wanted or next((v for v in (GM, *game.sides) if v in allowed), PUBLIC)
        if chosen not in allowed:
            raise PermissionDenied(f"you may not see the {chosen} view")
        return chosen

    def private_input(self, game_id: str) -> str | None:
        """The side now entering secrets (a hidden or face-down set-up, mines), if any:
        frontends take its lines privately meanwhile (a DM, a prompt without echo)."""
        ctx = self._load(game_id)
        return ctx.game.private_input(ctx.state) if ctx.row["status"] == "active" else None

    def is_private(self, game_id: str, actor: Actor, text: str) -> bool:
        """Whether any line of ``text``, given now by the actor's side, is private
        (:meth:`Game.is_private`): a frontend takes it only privately and never echoes it.
        Standing orders are private too but count not here: frontends acknowledge them to
        their sender alone, wherever given. Unreadable lines are refused, never stored."""
        ctx = self._load(game_id)
        side = self._side_for(ctx, actor, None)
        if isinstance(side, SubmitResult):
            return False
        return any(ctx.game.secrecy(line, ctx.state, side).private_only
                   for line in order_lines(text))

    def legal_orders(self, game_id: str, actor: Actor, side: str | None = None, *,
                     complete: bool = False) -> list[str]:
        """The orders ``side`` may give now, from the game's own rules and data pack
        (``complete``: every one, where the game's list is a sample — each family of the
        complete listing by its whole stack and each unit alone, what autocomplete
        searches, issue 29).

        Without ``side``: the side to act if the actor holds it (a GM: the side to act),
        else the actor's own side (usually nothing until it is their turn). A player may
        ask only for a side they hold; a GM for any. Nothing is legal unless the game is
        in play (set-up, paused, finished and archived games give an empty list).
        """
        if complete:
            return self.complete_orders(game_id, actor, side).result()
        ctx = self._load(game_id)
        side = self._asked_side(ctx, actor, side)
        if side is None or ctx.row["status"] != "active":
            return []
        return list(ctx.game.legal_orders(ctx.state, side))

    def complete_orders(self, game_id: str, actor: Actor, side: str | None = None
                        ) -> Future[list[str]]:
        """:meth:`legal_orders` with ``complete``, as a future: the listing is made by the
        service's lister when it has one (``bot.offload.ListingPool``: in worker
        processes, so that the rules' biggest read never holds this process's interpreter
        lock while other games' orders wait for it; a frontend awaits the future without
        a thread), else here, the future done at once. The side is read and the
        permission checked here first (:meth:`ServiceBase._listing`)."""
        return self._listing(game_id, actor, side, "orders")

    def setup_guide(self, game_id: str, actor: Actor) -> SetupGuide | None:
        """While a side the actor plays enters a secret set-up: what it has left to place,
        where, and what ``done`` would forfeit (its own secrets: for its players only)."""
        ctx = self._load(game_id)
        side = ctx.game.private_input(ctx.state)
        if side is None or ctx.row["status"] != "active" or not any(
                actor.holds(s) and s["role"] == "player" and s["side"] == side
                for s in ctx.seats):
            return None
        return ctx.game.setup_guide(ctx.state, side)

    def briefing(self, game_id: str, viewer: Actor) -> Briefing:
        """The briefing of the game's scenario (:meth:`Game.briefing`): sides, length,
        victory, special rules, features. It comes from the scenario, not the state, so it
        holds no secret and anyone who can name the game may read it (``viewer`` only has
        to be someone); the state is not even loaded."""
        del viewer  # public: every audience reads the same briefing
        with self.store.read():
            row = self._row(game_id)
            game = self._rules_for(row)
        return game.briefing(row["scenario"] or None)

    def log(self, game_id: str, viewer: Actor, n: int = 10, *, audience: str | None = None,
            include_reverted: bool = False) -> list[LogEntry]:
        """The last ``n`` actions as ``viewer`` may read them (oldest first).

        Each entry is rendered only from what that audience may see: the events
        ``visible_to`` it, and the order text unless it is another side's secret or
        decision answer (:func:`bot.messages.text_visible`); a GM override's details only
        for the GM. ``audience`` picks a narrower view than the viewer's richest one. An
        actor's email address is shown only in the GM's log (and to its holder).
        """
        row = self._row(game_id)
        game = self._rules_for(row)
        seats = self.store.seats(game_id)
        chosen = self._audience(game, seats, viewer, audience, str(row["status"]))
        rows = self.store.last_actions(game_id, max(0, n), active_only=not include_reverted)
        entries = [log_entry(game, action, chosen) for action in rows]
        if chosen == GM:
            return entries
        labels = contact_labels(self.store.seat_history(game_id))
        return [entry.model_copy(update={"actor": redact_label(entry.actor, labels,
                                                               viewer.label)})
                for entry in entries]

    def export(self, game_id: str, actor: Actor) -> Export:
        """The game record for ``actor``.

        * A GM, at any time, and anyone once the game is over: the full record
          (:mod:`bot.records`; it verifies; the seed is in it once the game is over).
        * Anyone else while the game is not over: the record redacted for their richest
          audience (their side, else public), tagged ``umpire/1-view``: each action with
          the text, events and rolls that audience may see — no state hashes, no seed,
          no override details, no other side's secrets. It cannot be verified; the full
          record can, after the end.
        """
        row = self._row(game_id)
        seats = self.store.seats(game_id)
        game = self._rules_for(row)
        chosen = self._audience(game, seats, actor, None, str(row["status"]))
        if chosen == GM or row["status"] == "finished":
            lines = export_lines(self.store, game_id)
            if "seed" in lines[0]:
                self.store.audit(game_id, actor.label, "seed-read", "export")
            if chosen != GM:  # the full record, the other players' addresses withheld
                lines = redact_contacts(lines, contact_labels(self.store.seat_history(game_id)),
                                        actor)
            return Export(game_id=game_id, full=True, audience=chosen, lines=lines)
        header: dict[str, Any] = {
            "record": VIEW_FORMAT, "full_record": FORMAT, "game_id": row["id"],
            "game": row["game"], "scenario": row["scenario"],
            "options": json.loads(row["options"]), "pack_hash": row["pack_hash"],
            "commitment": row["commitment"], "dice_id": row["dice_id"], "audience": chosen,
            "seats": [{"side": s["side"], "role": s["role"], "discord_id": s["discord_id"]}
                      for s in seats],
            "status": row["status"], "result": row["result"], "created": row["created"],
        }
        lines = [header, *(view_record_line(game, action, chosen)
                           for action in self.store.actions(game_id))]
        return Export(game_id=game_id, full=False, audience=chosen, lines=lines)
    def updates(self, game_id: str, after: int, *, skip_actor: str | None = None,
                only_actor: str | None = None) -> SubmitResult:
        """What happened after action ``after``, as every audience may read it.

        For a frontend that tells its users of actions taken elsewhere (a move made by
        email, told in a Discord thread): the events of every later action (reverted ones
        too: they were played, and the rollback that reverted them is among the actions),
        and each audience's current view. ``skip_actor`` leaves out actions whose actor
        label starts with it (those the frontend published itself); ``only_actor`` keeps
        only those whose label starts with it.
        """
        ctx = self._load(game_id)
        rows = [r for r in self.store.actions(game_id, after=after, upto=ctx.head)
                if not (skip_actor and str(r["actor"]).startswith(skip_actor))
                and (only_actor is None or str(r["actor"]).startswith(only_actor))]
        events = [e for r in rows for e in events_from_json(loads(r["events"], []))]
        game = ctx.game
        return SubmitResult(status="applied", game_id=game_id, seqs=[int(r["seq"]) for r in rows],
                            to_act=game.acting_side(ctx.state),
                            pending_side=ctx.state.pending.side if ctx.state.pending else None,
                            messages=_messages(game, ctx.state, events,
                                               ctx.views or game.views(ctx.state)))
