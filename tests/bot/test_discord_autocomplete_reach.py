"""Every legal order can be reached through autocomplete, field by field (issue 29).

A player fills a verb command's options in order. For each option they look at the
suggestions for what they typed so far: the value they want is offered, or a suggestion
is the start of their stack (they pick it and type on), or they type one more character.
For random positions of Turning Point: Stalingrad (the small test map, seeded random play)
and Duel, every legal order — the complete list, never a sample — is reached so.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from adjudicator.kernel.game import Game
from adjudicator.kernel.spec import CompiledVerb, OrderSpec
from bot.discord.autocomplete import MAX_CHOICE_LENGTH, read_order, suggest
from tests.kernel.duel import DuelGame
from tests.stalingrad.test_legal_query import positions
from tests.stalingrad.test_rules_random_play import GAME


def reach(spec: OrderSpec, verb: CompiledVerb, legal: list[str], values: dict[str, str]
          ) -> list[str]:
    """The options of ``values`` the simulated player could not reach (none: all)."""
    filled: dict[str, str | None] = {}
    missed: list[str] = []
    for option in (o.field for o in verb.options() if o.kind is not None):
        if option not in values:
            continue
        target, typed = values[option], ""
        for _ in range(4 * len(target) + 4):
            offered = suggest(spec, verb, legal, option, filled, typed)
            if target in offered:
                break
            picked = [s for s in offered if target.startswith(s + " ")]
            if picked and len(picked[0]) + 1 > len(typed):
                typed = max(picked, key=len) + " "
            elif len(typed) < len(target) and target.startswith(typed):
                typed = target[:len(typed) + 1]
            else:
                missed.append(f"{option}={target!r} (typed {typed!r}: {offered[:5]})")
                break
        else:
            missed.append(f"{option}={target!r}: no end")
        filled[option] = target
    return missed


def check_every_order(game: Game[Any], state: Any, side: str, rng: random.Random,
                      sample: int) -> int:
    spec = game.order_spec
    legal = game.complete_orders(state, side)
    verbs = {v.name: v for v in spec.verbs}
    chosen = legal if len(legal) <= sample else rng.sample(legal, sample)
    checked = 0
    for order in chosen:
        found = read_order(spec, order)
        assert found is not None, order
        verb = verbs[found[0]]
        missed = reach(spec, verb, legal, dict(found[1]))
        assert not missed, (order, missed)
        checked += 1
    return checked


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_29_every_legal_stalingrad_order_is_reached_field_by_field(seed: int) -> None:
    """Issue 29: moves, stacks, attacks, crossings, regroups … of random positions (7.1,
    8.2, 8.3): each is offered option by option as the player types it."""
    rng = random.Random(seed)
    checked = 0
    for state in positions(seed, 12)[::3]:
        side = GAME.acting_side(state)
        assert side is not None
        checked += check_every_order(GAME, state, side, rng, 40)
    assert checked > 20


def test_29_every_legal_duel_order_is_reached_field_by_field() -> None:
    """Issue 29 with Duel's moves and attacks (D2, D3) at the start of play."""
    game = DuelGame()
    state = game.setup()
    from adjudicator.kernel.dice import CommittedDice

    dice = CommittedDice(b"d" * 32, "reach")
    state = game.apply_text(state, "red", "trap 1", dice).state
    assert check_every_order(game, state, "red", random.Random(0), 100) > 2


def opening() -> tuple[Game[Any], Any]:
    """The Basic Game's first German impulse on the real map (every unit where 21.2
    puts it, the initial Rubble rolled): about 4,000 legal orders."""
    from adjudicator.kernel.dice import CommittedDice
    from adjudicator.stalingrad.game import StalingradGame
    from tests.bot.test_discord_stalingrad import setup_lines

    game = StalingradGame()
    dice = CommittedDice(b"q" * 32, "opening")
    state = game.setup("basic")
    for side in ("russian", "german"):
        for line in [*setup_lines(side), "setup done"]:
            state = game.apply_text(state, side, line, dice).state
    return game, game.apply_text(state, "german", "rubble", dice).state


def test_29_the_opening_offers_every_order_not_the_first_400() -> None:
    """Issue 29: at the opening (7.1) the German's ~4,000 legal orders are all searched:
    attacks with their whole stacks (8.3) and moves of units outside Area 2 are reached
    field by field (a sample of each, seeded)."""
    game, state = opening()
    spec = game.order_spec
    legal = game.complete_orders(state, "german")
    assert len(legal) > 400 and "move g94:i/267 to 3" in legal
    verbs = {v.name: v for v in spec.verbs}
    rng = random.Random(29)
    attacks = [o for o in legal if o.startswith("attack") and len(o.split()) > 5]
    late = legal[400:]
    for order in [*rng.sample(attacks, 4), *rng.sample(late, 4), "move g94:i/267 to 3"]:
        found = read_order(spec, order)
        assert found is not None
        assert not reach(spec, verbs[found[0]], legal, dict(found[1])), order
    typed = suggest(spec, verbs["move"], legal, "units", {}, "i/2")
    assert "g94:i/267" in typed


def test_29_a_stack_is_kept_while_typed_and_to_offers_its_common_destinations() -> None:
    """Issue 29 (8.1, a stack moves together): with one unit typed and a space, the choices
    keep it and add one more, units of its own Area first; ``to`` offers for several units
    typed the destinations each of them may reach."""
    game, state = opening()
    spec = game.order_spec
    legal = game.complete_orders(state, "german")
    move = next(v for v in spec.verbs if v.name == "move")
    stacked = suggest(spec, move, legal, "units", {}, "g94:i/267 ")
    assert stacked[:4] == [f"g94:i/267 {u}" for u in
                           ("g94:aa194", "g94:arko94", "g94:ii/267", "g94:iii/267")]
    assert "g94:i/267 g94:iii/267" in suggest(spec, move, legal, "units", {},
                                               "g94:i/267 iii/267")

    def reachable(unit: str) -> set[str]:
        return {o.split(" to ")[1] for o in legal
                if o.startswith(f"move {unit} to ") and " via " not in o}

    common = reachable("g94:i/267") & reachable("g94:ii/267")
    offered = suggest(spec, move, legal, "to", {"units": "i/267 ii/267"}, "")
    assert offered and set(offered) <= common and "3" in offered


def test_29_every_legal_crossing_and_regroup_is_reached_with_area_names_18_5_8_27() -> None:
    """Issue 29: ``/stalingrad cross`` (18.5) and ``regroup`` (8.27) offer every legal
    crossing and regroup of random Sawmill positions (the real map), field by field — the
    whole stack, each unit alone, by part of its id — and an Area is found by the start of
    its printed name (3.2). A stack longer than a Discord option's 100 characters cannot
    be typed in one and is left out (it is given as several orders)."""
    from tests.kernel.test_legal_complete import STALINGRAD, stalingrad_positions

    spec = STALINGRAD.order_spec
    verbs = {v.name: v for v in spec.verbs}
    names = STALINGRAD.place_names()
    reached: dict[str, int] = {"cross": 0, "regroup": 0}
    by_name = 0
    for state in stalingrad_positions("sawmill", 3, 120, 3):
        side = STALINGRAD.acting_side(state)
        if side is None or state.pending is not None:
            continue
        legal = STALINGRAD.complete_orders(state, side)
        for order in legal:
            verb = order.split()[0]
            if verb not in reached:
                continue
            found = read_order(spec, order)
            assert found is not None, order
            values = dict(found[1])
            if any(len(v) > MAX_CHOICE_LENGTH for v in values.values()):
                continue  # a stack longer than a Discord option holds: given in parts
            assert not reach(spec, verbs[found[0]], legal, values), order
            reached[verb] += 1
            to = values.get("to", "")
            if to in names and by_name < 20:
                typed = names[to][:3]
                offered = suggest(spec, verbs[found[0]], legal, "to",
                                  {"units": values["units"]}, typed, names=names)
                assert to in offered, (order, typed, offered)
                by_name += 1
    assert reached["cross"] >= 20 and reached["regroup"] >= 10, reached
    assert by_name >= 5
