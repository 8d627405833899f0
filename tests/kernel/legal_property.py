"""The completeness property of ``legal``, for any game: every order the rules accept is
one of the complete listing's families, and every listed order is accepted.

Orders are drawn from the game's own order spec, never from the listing: for every verb,
its fields filled from what the position holds (the acting side's units, grouped by place,
other units, places near them, the spec's own choices and flags, numbers), sampled. A game
tells the generator only where its units stand and which places are near
(:class:`World`). ``standing`` and ``resign`` are no rule's orders (the kernel takes them
at any time) and are not drawn.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.game import Game
from adjudicator.kernel.listed import Families
from adjudicator.kernel.orders import Order
from adjudicator.kernel.spec import CompiledVerb


@dataclass
class World:
    """What the generator reads of a position: each unit's place (None: off the map),
    the side of each unit, the places near a place, every place, and how a kind the
    kernel does not know is drawn (``extra``: kind name -> draw(rng, anchor unit))."""

    places_of: dict[str, str | None]
    side_of: dict[str, str]
    near: Callable[[str], list[str]]
    places: list[str]
    extra: dict[str, Callable[[random.Random, str], Any]] = field(default_factory=dict)
    #: Verbs the position makes unlikely (a decision's answer when none is pending, a
    #: set-up order in play): drawn a tenth as often, never left out.
    rare: set[str] = field(default_factory=set)
    #: Units the position makes likely actors (e.g. Fresh units on the board, the units of
    #: an impulse under way): most draws start from one of them.
    anchors: list[str] = field(default_factory=list)
    #: Unit fields that name an enemy (e.g. a shot's ``target``): drawn mostly from the
    #: other side's units.
    enemy_fields: set[str] = field(default_factory=set)


@dataclass
class Tally:
    positions: int = 0
    tried: int = 0
    accepted: int = 0
    listed: int = 0
    idle: int = 0
    verbs: dict[str, int] = field(default_factory=dict)  # accepted orders per verb

    def line(self, game: str) -> str:
        return (f"{game}: {self.positions} positions x {self.tried} orders tried, "
                f"{self.accepted} accepted (all matched by legal), {self.idle} taken but "
                f"changing nothing, {self.listed} listed "
                f"entries accepted; accepted per verb {dict(sorted(self.verbs.items()))}")


def draw(rng: random.Random, entry: CompiledVerb, world: World, side: str,
         attempts: int = 4) -> Order | None:
    """One order of ``entry``'s verb with fields drawn from ``world``, drawn again up to
    ``attempts`` times while the fields make no valid model (e.g. a move with both a path
    and a destination); None when none did."""
    for _ in range(attempts):
        order = _draw_once(rng, entry, world, side)
        if order is not None:
            return order
    return None


def _draw_once(rng: random.Random, entry: CompiledVerb, world: World, side: str
               ) -> Order | None:
    own = [u for u, s in world.side_of.items() if s == side]
    if not own:
        return None
    likely = [u for u in world.anchors if u in own]
    anchor = rng.choice(likely if likely and rng.random() < 0.85 else own)
    here = world.places_of.get(anchor)
    mates = [u for u in own if world.places_of.get(u) == here]
    values: dict[str, Any] = {}
    for option in entry.options():
        if not option.required and rng.random() < 0.4:
            continue
        if option.kind is None:
            values[option.field] = (rng.random() < 0.5) if option.flag else rng.choice(
                option.choices)
            continue
        name = option.kind.name
        if name in world.extra:
            values[option.field] = world.extra[name](rng, anchor)
        elif name == "unit" and option.field in world.enemy_fields:
            enemies = [u for u, s in world.side_of.items() if s != side]
            values[option.field] = rng.choice(enemies if enemies and rng.random() < 0.9
                                              else list(world.side_of))
        elif name == "unit":
            pool = own if rng.random() < 0.7 else list(world.side_of)
            values[option.field] = anchor if rng.random() < 0.5 else rng.choice(pool)
        elif name == "units":
            pool = [u for u in (mates if rng.random() < 0.85 else own) if u != anchor]
            count = min(len(pool), rng.choice((0, 0, 1, 2, 3)))
            values[option.field] = tuple(sorted({anchor, *rng.sample(pool, count)}))
        elif name in ("area", "hex"):
            near = world.near(here) if here is not None and rng.random() < 0.8 else []
            values[option.field] = rng.choice(near or world.places)
            if option.field == "origin" and here is not None and rng.random() < 0.7:
                values[option.field] = here  # where the units are, most often
        elif name == "path":
            near = world.near(here) if here is not None else world.places
            values[option.field] = tuple(rng.sample(near, min(len(near), rng.choice(
                (0, 0, 1, 1, 2)))))
        elif name == "number":
            values[option.field] = rng.randint(-2, 14)
        else:
            raise AssertionError(f"{entry.name}: no draw for the kind {name!r}")
    try:
        return entry.verb.model(**values)
    except (ValidationError, TypeError, ValueError):
        return None


def check_position(game: Game[Any], state: Any, world: World, rng: random.Random,
                   dice: Dice, draws: int, tally: Tally,
                   listed_sample: int = 8) -> None:
    """Draw ``draws`` orders for the side to act and hold the property; try a sample of
    the listed entries' own orders."""
    side = game.acting_side(state)
    if side is None:
        return
    tally.positions += 1
    entries = game.legal_options(state, side, complete=True)
    families = Families(entries, game.parse, game.listing_form)
    verbs = list(game.order_spec.verbs)
    weights = [0.1 if entry.name in world.rare else 1.0 for entry in verbs]
    for _ in range(draws):
        order = draw(rng, rng.choices(verbs, weights)[0], world, side)
        if order is None:
            continue
        tally.tried += 1
        try:
            outcome = game.apply(state, side, order, dice)
        except RuleError:
            continue
        if outcome.state.state_hash() == state.state_hash():
            tally.idle += 1  # taken, and nothing happens ("already in 1710"): no order
            continue
        tally.accepted += 1
        tally.verbs[str(order.verb)] = tally.verbs.get(str(order.verb), 0) + 1  # type: ignore[attr-defined]
        assert families.find(order) is not None, (
            f"{side} {game.format(order)!r} is accepted but no legal entry covers it; "
            f"legal: {[e.order for e in entries][:30]}")
    for entry in rng.sample(entries, min(listed_sample, len(entries))):
        try:
            game.apply_text(state, side, entry.order, dice)
        except RuleError as error:
            raise AssertionError(f"listed but refused: {side} {entry.order!r} -> {error}"
                                 ) from error
        tally.listed += 1


def verbs_drawn(game: Game[Any]) -> Sequence[str]:
    return [entry.name for entry in game.order_spec.verbs]


def wander(game: Game[Any], state: Any, world_of: Callable[[Any, str], World],
           rng: random.Random, dice: Dice, steps: int, every: int,
           quiet: Sequence[str] = ("end", "pass", "done")) -> list[Any]:
    """Positions of a random game from ``state``: one every ``every`` orders (and often
    where a decision is pending). Each step answers a pending decision with one of its
    options, tries a quiet order now and then (so that days pass), else orders drawn
    like the property's, and the game's listed sample only when none of those is
    accepted (listing a whole side is the slow part)."""
    out: list[Any] = []
    for number in range(steps):
        if state.result is not None:
            break
        side = game.acting_side(state)
        assert side is not None
        if number % every == every - 1 or (state.pending is not None and rng.random() < 0.3):
            out.append(state)
        tries: list[str] = []
        if state.pending is not None:
            tries = [rng.choice(state.pending.option_orders())]
        else:
            if rng.random() < 0.3:
                tries += list(quiet)
            world = world_of(state, side)
            verbs = [e for e in game.order_spec.verbs if e.name not in world.rare]
            for _ in range(15):
                order = draw(rng, rng.choice(verbs), world, side)
                if order is not None:
                    tries.append(game.format(order))
        for text in tries:
            try:
                state = game.apply_text(state, side, text, dice).state
                break
            except RuleError:
                continue
        else:
            listed = game.legal_orders(state, side)
            state = game.apply_text(state, side, rng.choice(listed), dice).state
    return out
