"""What a frontend that prompts a seated side reads (the console; any text frontend): the
moment as that side meets it (:class:`~bot.service.models.Prompt`), its legal orders as a
person reads them (:mod:`bot.listing`: grouped, filtered, short unit names), and texts with
unit ids written as players type them.

Each call reads the game once through the service's cache: prompting again while the game
stands still replays nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from adjudicator.kernel.dice import DiceExhausted, FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.names import short_ids
from bot import listing
from bot.service.base import ServiceBase
from bot.service.models import Actor, InvalidOperation, Prompt


class Prompts(ServiceBase):
    def prompt(self, game_id: str, actor: Actor, side: str | None = None) -> Prompt:
        """The moment as ``side`` meets it (without ``side``: the side to act if the actor
        holds it, a GM: the side to act; else the actor's own side): who is to act, the
        decision ``side`` owes, whether it now enters secrets, its standing orders."""
        ctx = self._load(game_id)
        side = self._asked_side(ctx, actor, side)
        state, game = ctx.state, ctx.game
        pending = state.pending if state.pending is not None and side is not None \
            and state.pending.side == side else None
        active = ctx.row["status"] == "active"
        return Prompt(
            game_id=ctx.id, head=ctx.head, status=str(ctx.row["status"]), side=side,
            to_act=game.acting_side(state), result=state.result, pending=pending,
            private_input=active and side is not None and game.private_input(state) == side,
            standing=dict(state.standing.get(side, {})) if side is not None else {})

    def legal_entries(self, game_id: str, actor: Actor, side: str) -> list[listing.Entry]:
        """Every order ``side`` may give now, read for listing (:func:`bot.listing.entries`:
        verb, units by their short names, places); nothing unless the game is in play. The
        permissions of :meth:`legal_orders`; made by the service's lister when it has one
        (:meth:`ServiceBase._listing`)."""
        return self._listing(game_id, actor, side, "entries").result()

    def legal_filter(self, game_id: str, actor: Actor, side: str,
                     words: Sequence[str]) -> listing.Filter:
        """A ``legal`` line's filter words read against the game now (units ``side`` may
        name, places, verbs); a word that is none of them: :class:`InvalidOperation` with
        the game's own "did you mean"."""
        ctx = self._load(game_id)
        asked = self._asked_side(ctx, actor, side) or side
        try:
            return listing.read_filter(words, ctx.game.order_spec.first_words(),
                                       ctx.game.name_resolvers(ctx.state, asked))
        except RuleError as error:
            raise InvalidOperation(str(error)) from error

    def short_texts(self, game_id: str, texts: Sequence[str]) -> list[str]:
        """``texts`` with unit ids written by their short names (``g14pz:i/103`` ->
        ``i/103``), as a player types them (a unit's designation is public)."""
        ctx = self._load(game_id)
        game, state = ctx.game, ctx.state
        return [short_ids(text, lambda uid: game.short_unit(state, uid)) for text in texts]

    def accepted(self, game_id: str, actor: Actor, texts: Sequence[str], *,
                 limit: int) -> list[str]:
        """The first ``limit`` of ``texts`` the rules would accept from the actor's side now
        (tried on a copy of the state: nothing is stored, no die is rolled — an order that
        gets as far as asking for a die is accepted). For autocomplete of a value the legal
        list does not spell out, e.g. a Stalin's Tanks ``move UNIT to HEX face D`` (8.3):
        only what the submission would accept; what a refusal says is not returned."""
        ctx = self._load(game_id)
        side = self._asked_side(ctx, actor, None)
        if side is None or ctx.row["status"] != "active":
            return []
        out: list[str] = []
        for text in texts:
            try:
                ctx.game.apply_text(ctx.state, side, text, FixedDice())
            except DiceExhausted:
                pass
            except (RuleError, ValueError):
                continue
            out.append(text)
            if len(out) >= limit:
                break
        return out
