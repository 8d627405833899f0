"""Duel variants for the service and Discord tests (the kernel's Duel stays as it is).

* :class:`PackedDuel` reads where red's r2 starts from its data pack (``start.json``), so
  a test can tell whether the service used the game's own pack.
* :class:`PostsDuel` replaces blue's casualty decision after a hit by a choice among
  :data:`POSTS` fall-back posts — more options than a message's buttons can hold, so the
  bot must offer a select menu.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from adjudicator.kernel.decisions import Option, PendingDecision
from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import Event
from adjudicator.kernel.orders import Order
from adjudicator.kernel.spec import OrderSpec, Verb
from adjudicator.registry import register
from tests.kernel.duel import SPEC, DuelGame, DuelState

PACKED = "tests.bot.duel_variants:PackedDuel"
POSTS_GAME = "tests.bot.duel_variants:PostsDuel"
ROUTES_GAME = "tests.bot.duel_variants:RoutesDuel"
#: Options of PostsDuel's decision: more than the 20 buttons a prompt may carry.
POSTS = 22


class PackedDuel(DuelGame):
    def setup(self, scenario: str | None = None,
              options: Mapping[str, Any] | None = None) -> DuelState:
        state = super().setup(scenario, options)
        if self.pack is not None:
            start = json.loads((self.pack / "start.json").read_text(encoding="utf-8"))
            for unit in state.units:
                unit.cell = str(start.get(unit.id, unit.cell))
        return state


class Post(Order):
    verb: Literal["post"] = "post"
    number: int


class Route(Order):
    verb: Literal["route"] = "route"
    cells: tuple[str, ...]


class PostsDuel(DuelGame):
    name: ClassVar[str] = "posts-duel"
    order_spec: ClassVar[OrderSpec] = SPEC.extend(
        Verb(Post, ("post NUMBER",), "the post a hit unit falls back to", ("P1",), ("post 3",)))

    def fall_back_options(self) -> tuple[Option, ...]:
        return tuple(Option(order=f"post {n}", label=f"fall back to post {n}")
                     for n in range(1, POSTS + 1))

    def resolve(self, state: DuelState, side: str, order: Order, dice: Dice) -> list[Event]:
        pending = state.pending
        if pending is not None and pending.kind == "post":
            if self.format(order) not in pending.option_orders():
                raise RuleError("P1", "choose one of the options", pending.option_orders())
            state.pending = None
            state.turn = side
            unit = str(pending.data["unit"])
            return [Event(kind="post", text=f"{unit} falls back: {self.format(order)}",
                          rule="P1")]
        events = super().resolve(state, side, order, dice)
        hit = state.pending
        if hit is not None and hit.kind == "casualty":
            unit = str(hit.data["unit"])
            options = self.fall_back_options()
            state.pending = PendingDecision(
                kind="post", side=hit.side, rule="P1",
                prompt=f"{unit} is hit: choose where it falls back", options=options,
                default=options[0].order, data={"unit": unit})
        return events


#: The long way back: route orders longer than a Discord choice's 100 characters, equal
#: in their first 100 (a cut one would be another order, or none).
DETOUR = ("hill", "mill", "ford") * 12


class RoutesDuel(PostsDuel):
    name: ClassVar[str] = "routes-duel"
    order_spec: ClassVar[OrderSpec] = SPEC.extend(
        Verb(Route, ("route UNITS:cells",), "the way a hit unit falls back", ("P1",),
             ("route hill wood",)))

    def fall_back_options(self) -> tuple[Option, ...]:
        return tuple(Option(order=" ".join(["route", *DETOUR, end]), label=f"ends in the {end}")
                     for end in ("bridge", "wood"))


register(PACKED, PackedDuel)
register(POSTS_GAME, PostsDuel)
register(ROUTES_GAME, RoutesDuel)
