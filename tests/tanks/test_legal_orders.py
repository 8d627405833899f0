"""Legal orders: complete, every one accepted, judged on what the mover knows (5.0-25.0).

Completeness is checked against an oracle that knows nothing of the search: it tries every
sequence of steps (hexes, facing changes, exit, overrun) and keeps what ``movement.plan``
accepts.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.tanks import fire, movement, paths
from adjudicator.tanks.context import Ctx
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.hexgrid import Direction, Hex, neighbours
from adjudicator.tanks.orders import Assault, Fire, Move, parse_order
from adjudicator.tanks.spec import EDGE_WORDS
from adjudicator.tanks.state import TanksState
from tests.tanks.test_rules_play import choose

GAME = TanksGame()


# ---- the oracle ---------------------------------------------------------------------------------


def oracle(state: TanksState, unit_id: str, max_tokens: int = 10) -> dict[str, set[str]]:
    """Every destination hex, exit edge and overrun target ``movement.plan`` accepts."""
    ctx = Ctx(GAME.data, state)
    unit = state.unit(unit_id)
    assert unit is not None
    side = unit.side
    found: dict[str, set[str]] = {"hex": set(), "exit": set(), "overrun": set()}
    seen: set[tuple[Any, ...]] = set()

    def accepted(tokens: list[str]) -> movement.Plan | None:
        try:
            return movement.plan(ctx, side, unit, tuple(tokens))
        except RuleError:
            return None

    def passing(tokens: list[str], hex_name: str) -> movement.Plan | None:
        """The plan of a path that may not end on the friends in its last hex (6.2) but
        may go on through them: judged with those friends lifted off for a moment."""
        friends = [u for u in state.at(hex_name) if u.side == side and u.id != unit.id]
        if not friends:
            return None
        for friend in friends:
            friend.status = "exited"
        try:
            return accepted(tokens)
        finally:
            for friend in friends:
                friend.status = "on"

    def walk(tokens: list[str], here: str | None) -> None:
        if len(tokens) >= max_tokens:
            return
        steps: list[str] = []
        if here is None:
            steps += list(dict.fromkeys(unit.enter_hexes or [
                str(h) for e in (unit.enter_edges or "NESW") for h in ctx.map.edge_hexes(e)]))
        else:
            steps += [str(n) for n in neighbours(Hex.parse(here)) if ctx.map.on_map(n)]
            if ctx.type_of(unit).has_facing:
                steps += [f"face {d.name}" for d in Direction]
        for step in steps:
            seq = [*tokens, step]
            end = here if step.startswith("face") else step
            assert end is not None
            plan = accepted(seq)
            if plan is not None and end != unit.hex:
                found["hex"].add(end)
            plan = plan or passing(seq, end)
            if plan is None or not plan.steps:  # a turn to the facing it has: no step
                continue
            key = (end, plan.steps[-1].facing, plan.cost, plan.road_cost, plan.on_road)
            if key in seen:
                continue
            seen.add(key)
            for tail in ("exit", *(f"exit {word}" for word in EDGE_WORDS.values()),
                         *(f"overrun {n}" for n in neighbours(Hex.parse(end))
                           if ctx.map.on_map(n))):
                extended = accepted([*seq, tail])
                if extended is not None:
                    kind = tail.split()[0]
                    value = extended.steps[-1].edge if kind == "exit" else tail.split()[1]
                    found[kind].add(str(value))
            walk(seq, end)

    walk([], unit.hex)
    return found


def listed(state: TanksState, unit_id: str) -> dict[str, set[str]]:
    side = GAME.acting_side(state)
    assert side is not None
    out: dict[str, set[str]] = {"hex": set(), "exit": set(), "overrun": set()}
    ctx = Ctx(GAME.data, state)
    for text in GAME.legal_orders(state, side):
        order = parse_order(text)
        if not isinstance(order, Move) or order.unit != unit_id:
            continue
        if order.to is not None:  # one entry per destination: the rules find the path
            out["hex"].add(order.to)
            continue
        last = order.steps[-1]
        if last.split()[0] == "exit":
            plan = movement.plan(ctx, side, state.unit(unit_id), order.steps)  # type: ignore[arg-type]
            out["exit"].add(str(plan.steps[-1].edge))
        elif last.startswith("overrun"):
            out["overrun"].add(last.split()[1])
        elif not last.startswith("face"):
            out["hex"].add(last)
    return out


# ---- positions ------------------------------------------------------------------------------

ROAD_AND_HILLS = {
    "scenario": "high-ground", "phasing": "german", "phase": "move1",
    "options": {"overrun": True},
    "known_mines": {"1605": "soviet"},
    "mines": {"soviet": ["1605"]},
    "units": [
        {"id": "pan", "side": "german", "type": "panther", "hex": "1603", "facing": "S"},
        {"id": "friend", "side": "german", "type": "ivh", "hex": "1604", "facing": "S"},
        {"id": "tank", "side": "german", "type": "ivh", "hex": "0604", "facing": "SE"},
        {"id": "inf", "side": "german", "type": "inf-de", "hex": "1011"},
        {"id": "ht", "side": "german", "type": "ht", "hex": "1209"},
        {"id": "rinf", "side": "soviet", "type": "inf-su", "hex": "0806"},
        {"id": "kv", "side": "soviet", "type": "kvia", "hex": "1707", "facing": "N"},
    ],
}


@pytest.mark.parametrize("unit_id", ["pan", "tank", "inf", "ht"])
def test_every_reachable_hex_exit_and_overrun_is_listed_6_0_to_8_4_23_0(unit_id: str) -> None:
    state = GAME.case_position(ROAD_AND_HILLS)
    assert listed(state, unit_id) == oracle(state, unit_id)


def test_the_road_move_of_7_2_and_the_known_minefield_are_in_the_panther_s_list() -> None:
    state = GAME.case_position(ROAD_AND_HILLS)
    orders = GAME.legal_orders(state, "german")
    assert "move pan to 1605" in orders, "ending on a known minefield is legal (19.2)"
    # 7.2: nine road hexes for a Panther (MF 6), through the friend in 1604 (6.2)
    assert "move pan to 1712" in orders and "move pan to 1713" not in orders
    ctx = Ctx(GAME.data, state)
    pan = state.unit("pan")
    assert pan is not None
    tokens, cost = paths.path_to(ctx, "german", pan, "1712", None)
    assert tokens == ["1604", "1605", "1606", "1607", "1708", "1709", "1710", "1711", "1712"]
    assert cost == "9 MF on the road (7.2)"
    labels = {o.order: o.label for o in GAME.legal_options(state, "german")}
    assert labels["move pan to 1712"].startswith("9 MF")


def test_entering_units_and_the_second_movement_phase_are_complete_6_4_6_5() -> None:
    state = GAME.case_position({
        "blank_map": True, "phasing": "soviet", "phase": "move1",
        "terrain": {"0302": "woods", "0402": "hill"},
        "units": [
            {"id": "t34", "side": "soviet", "type": "t34a",
             "enter_hexes": ["0301", "0401", "0501"]},
            {"id": "kv", "side": "soviet", "type": "kvia", "hex": "1010", "facing": "N",
             "spent": 0},
        ],
    })
    assert listed(state, "t34") == oracle(state, "t34", max_tokens=7)
    state.phase = "move2"
    assert listed(state, "kv") == oracle(state, "kv")


def test_exits_in_a_corner_are_listed_by_edge_named_where_in_doubt_6_6_8_2() -> None:
    """6.6 with 8.2: each edge a unit may leave by is listed once; a plain ``exit`` where
    the hexside decides the edge, ``exit north`` / ``exit east`` where it does not."""
    state = GAME.case_position({
        "blank_map": True, "phasing": "german", "phase": "move1",
        "units": [{"id": "ht", "side": "german", "type": "ht", "hex": "3101"},
                  {"id": "pz", "side": "german", "type": "ivh", "hex": "0101",
                   "facing": "N"}],
    })
    orders = GAME.legal_orders(state, "german")
    assert "move ht exit north" in orders and "move ht exit east" in orders
    assert "move ht exit" not in orders  # the edge is in doubt: it must be named
    assert "move pz exit" in orders  # straight ahead through its N hexside: north
    assert listed(state, "ht") == oracle(state, "ht")
    assert listed(state, "pz") == oracle(state, "pz")


def test_a_halted_move_continues_with_what_is_left_19_2() -> None:
    state = GAME.case_position({
        "blank_map": True, "phasing": "german", "phase": "move1",
        "units": [{"id": "a", "side": "german", "type": "ivh", "hex": "1012", "facing": "S",
                   "spent": 3, "move_open": True}],
    })
    unit = state.unit("a")
    assert unit is not None
    unit.move_done = True
    assert listed(state, "a") == oracle(state, "a")
    assert max(Ctx(GAME.data, state).range("1012", h) for h in listed(state, "a")["hex"]) == 2


# ---- every listed order is accepted -----------------------------------------------------------


def accepted_by_the_rules(state: TanksState, side: str, text: str,
                          dice: CommittedDice) -> None:
    """Moves and shots are judged by the plans (fast, no copy); the rest by ``apply``."""
    ctx = Ctx(GAME.data, state)
    order = parse_order(text)
    if isinstance(order, Move):
        unit = state.unit(order.unit)
        assert unit is not None
        steps = order.steps
        if order.to is not None:
            steps = tuple(paths.path_to(ctx, side, unit, order.to, order.face)[0])
        movement.plan(ctx, side, unit, steps)
    elif isinstance(order, Fire):
        fire.plan_fire(ctx, side, order.units, order.target, order.mode)
    elif isinstance(order, Assault):
        fire.plan_assault(ctx, side, order.unit, order.target, order.suicide)
    else:
        GAME.apply_text(state, side, text, dice)


SCENARIOS = [("kursk-salient", 2), ("close-to-the-end", 3), ("pakfront", 4),
             ("first-encounter", 5)]


#: Sampled (150 moves, shots and assaults a position) in the default run; the soak stage
#: plays all four sampled and all four checking every listed order.
SAMPLED = ("pakfront", "first-encounter")


@pytest.mark.parametrize("scenario,seed,most", [
    *(pytest.param(scenario, seed, 150, marks=() if scenario in SAMPLED else pytest.mark.soak)
      for scenario, seed in SCENARIOS),
    *(pytest.param(scenario, seed, None, marks=pytest.mark.soak, id=f"{scenario}-{seed}-all")
      for scenario, seed in SCENARIOS)])
def test_every_listed_order_is_accepted(scenario: str, seed: int, most: int | None) -> None:
    """Random games: every twelfth position, the listed moves, shots and assaults and a
    sample of the other orders are accepted by the rules — at most ``most`` of the first
    (a position may list thousands of moves), every one of them in the soak stage (which
    also plays the sampled games of the two scenarios the default run leaves to it)."""
    rng = random.Random(seed)
    state = GAME.setup(scenario)
    dice = CommittedDice(bytes([seed]) * 32, scenario)
    checked = 0
    kinds: set[str] = set()
    for number in range(360):
        if state.result is not None:
            break
        side = GAME.acting_side(state)
        assert side is not None
        orders = GAME.legal_orders(state, side)
        assert len(orders) == len(set(orders)), "no order is listed twice"
        if number % 12 == 0:
            others = [o for o in orders if o.split()[0] not in ("move", "fire", "assault")]
            sample = [o for o in orders if o.split()[0] in ("move", "fire", "assault")]
            if most is not None and len(sample) > most:
                sample = rng.sample(sample, most)
            sample += rng.sample(others, min(len(others), 12))
            for text in sample:
                try:
                    accepted_by_the_rules(state, side, text, dice)
                except RuleError as error:
                    if text != "done":
                        raise AssertionError(f"{text!r} is listed but refused: {error}") \
                            from error
                kinds.add(text.split()[0])
                checked += 1
        for text in choose(GAME, state, side, rng, orders):
            try:
                state = GAME.apply_text(state, side, text, dice).state
                break
            except RuleError:
                assert text == "done"
    assert checked > 300
    assert {"move", "done", "fire"} <= kinds, kinds


def test_loads_unloads_and_every_destination_after_unloading_17_1_17_3() -> None:
    position = {
        "blank_map": True, "phasing": "german", "phase": "move1",
        "units": [
            {"id": "ht", "side": "german", "type": "ht", "hex": "1010"},
            {"id": "inf", "side": "german", "type": "inf-de", "hex": "1012"},
            {"id": "gun", "side": "german", "type": "pak-75", "hex": "2020"},
        ],
    }
    state = GAME.case_position(position)
    orders = GAME.legal_orders(state, "german")
    assert "load ht inf 1011 1012" in orders
    assert not [o for o in orders if o.startswith("load ht gun")]  # 2020 is out of reach
    state = GAME.apply_text(state, "german", "load ht inf 1011 1012", CommittedDice(
        b"l" * 32, "l")).state
    state.phase = "move2"
    for unit in state.units:
        unit.spent, unit.move_done = 0, False
    orders = GAME.legal_orders(state, "german")
    moves = {o.split()[-1] for o in orders if o.startswith("move ht to ")}
    unloads = {o.split()[-1] for o in orders if o.startswith("unload ht ")}
    assert "unload ht" in orders and moves and unloads == moves  # 17.3: unload, then move
    for text in ["unload ht", *sorted(o for o in orders if o.startswith("unload ht "))[:5]]:
        GAME.apply_text(state, "german", text, CommittedDice(b"u" * 32, "u"))


def test_barrage_hexes_are_every_hex_a_unit_of_the_side_sees_18_1() -> None:
    state = GAME.case_position({
        "scenario": "pakfront", "phasing": "german", "phase": "move1",
        "barrages": {"german": {"weight": "light", "per_turn": 1}},
        "units": [
            {"id": "a", "side": "german", "type": "inf-de", "hex": "2014"},
            {"id": "b", "side": "german", "type": "pak-88", "hex": "0405"},
        ],
    })
    ctx = Ctx(GAME.data, state)
    seen = {str(h) for h in ctx.map.all_hexes
            if ctx.los("2014", str(h)) or ctx.los("0405", str(h))}
    listed_hexes = {o.split()[1] for o in GAME.legal_orders(state, "german")
                    if o.startswith("barrage ")}
    assert listed_hexes == seen
    assert 0 < len(seen) < len(ctx.map.all_hexes)  # the hills and woods hide some hexes


def test_set_up_lists_every_hex_of_the_zone_for_each_kind_of_unit_4_0_20_0() -> None:
    state = GAME.setup("pakfront")
    ctx = Ctx(GAME.data, state)
    orders = GAME.legal_orders(state, "german")
    places = [o for o in orders if o.startswith("place ")]
    hides = [o for o in orders if o.startswith("hide ")]
    types = {u.type for u in state.units if u.side == "german"}
    assert {o.split()[1].rsplit("-", 1)[0] for o in places} == {
        u.id.rsplit("-", 1)[0] for u in state.units if u.side == "german"}
    for unit_type in types:  # the next unplaced unit of each type, in every allowed hex
        first = next(u for u in state.units if u.type == unit_type and u.side == "german")
        kind = ctx.type_of(first).kind
        allowed = {str(h) for h in ctx.map.all_hexes
                   if movement.terrain_cost(ctx, str(h), kind) != -1}
        assert {o.split()[2] for o in places if o.split()[1] == first.id} == allowed
        assert {o.split()[2] for o in hides if o.split()[1] == first.id} == allowed
    assert "done" not in orders  # units are still to set up (4.0)


# ---- judged on what the mover knows -------------------------------------------------------------


def test_legal_orders_do_not_depend_on_the_enemy_s_secrets_20_0_19_1() -> None:
    base = {
        "blank_map": True, "phasing": "soviet", "phase": "move1",
        "barrages": {"soviet": {"weight": "light", "per_turn": 1}},
        "units": [
            {"id": "t34", "side": "soviet", "type": "t34a", "hex": "1010", "facing": "S"},
            {"id": "ri", "side": "soviet", "type": "inf-su", "hex": "1210"},
            {"id": "seen", "side": "german", "type": "pak-75", "hex": "1016"},
        ],
    }
    plain = GAME.case_position(base)
    secret = GAME.case_position({
        **base, "mines": {"german": ["1012", "1111"]},
        "units": [*base["units"],
                  {"id": "gun", "side": "german", "type": "pak-88", "hex": "1013",
                   "hidden": True},
                  {"id": "gun2", "side": "german", "type": "pak-88", "hex": "1211",
                   "hidden": True}],
    })
    orders = GAME.legal_orders(plain, "soviet")
    assert orders == GAME.legal_orders(secret, "soviet")
    assert "move t34 to 1013" in orders  # into the hidden gun's hex: it may try
    for state in (plain, secret):  # and the path found does not depend on the secrets
        t34 = state.unit("t34")
        assert t34 is not None
        assert paths.path_to(Ctx(GAME.data, state), "soviet", t34, "1013", None)[0] == [
            "1011", "1012", "1013"]
    assert "barrage 1013" in orders


# ---- Defensive Fire options (15.2, 16.1, 24.0) ---------------------------------------------------

DEFENSIVE = {
    "blank_map": True, "phasing": "german", "phase": "defensive",
    "options": {"suicide": True},
    "terrain": {"1012": "woods"},
    "units": [
        {"id": "r1", "side": "soviet", "type": "inf-su", "hex": "1011"},
        {"id": "r2", "side": "soviet", "type": "inf-su", "hex": "1112"},
        {"id": "r3", "side": "soviet", "type": "inf-su", "hex": "0911"},
        {"id": "r4", "side": "soviet", "type": "inf-su", "hex": "1014"},
        {"id": "g", "side": "german", "type": "inf-de", "hex": "1012"},
        {"id": "pz", "side": "german", "type": "ivh", "hex": "1020", "facing": "N"},
    ],
}


def test_the_defensive_fire_decision_offers_combined_fire_and_assaults_15_2_16_1_24_0() -> None:
    state = GAME.case_position(DEFENSIVE)
    assert state.pending is not None
    options = state.pending.option_orders()
    # g in woods: DF 6 doubled to 12 (12.1); r1 and r2 adjacent fire 6 x 2 = 12 each (15.1)
    assert "fire r1 at g" in options and "fire r4 at g" in options  # 12 vs 12: 1-1
    assert "fire r1+r2 at g" in options  # 24 vs 12: 2-1
    assert "fire r1+r2+r3 at g" not in options  # 30 vs 12: still 2-1, one squad for nothing
    assert "fire r1+r2+r3+r4 at g" in options  # 36 vs 12: 3-1
    assert "assault r1 at g" in options and "assault r1 at g suicide" in options
    assert "assault r3 at g" not in options  # not adjacent (16.1)
    combined = [o for o in options if "+" in o]
    assert len(combined) <= 9 * len([u for u in state.units if u.side == "german"])
    labels = {o.order: o.label for o in state.pending.options}
    assert "2-1" in labels["fire r1+r2 at g"] and "3-1" in labels["fire r1+r2+r3+r4 at g"]
    for text in options:  # every option is a legal order
        if text != "done":
            accepted_by_the_rules(state, "soviet", text, CommittedDice(b"x" * 32, "d"))


def test_best_shot_takes_combined_fire_with_no_more_infantry_than_it_needs_15_2() -> None:
    state = GAME.case_position({**DEFENSIVE, "standing": {"soviet": {
        "defensive-fire": "best-shot"}}})
    answer = GAME.standing_answer(state, state.pending, "best-shot")  # type: ignore[arg-type]
    # 3-1 combined fire and a suicide assault both destroy on 8 or less (72%): the assault
    # uses one squad, not four
    assert answer == "assault r1 at g suicide"
    state = GAME.case_position({**DEFENSIVE, "options": {}})
    answer = GAME.standing_answer(state, state.pending, "best-shot")  # type: ignore[arg-type]
    assert answer == "fire r1+r2+r3+r4 at g"  # 72% beats a close assault's 6 or less (42%)
    hidden = GAME.case_position({**DEFENSIVE, "options": {}, "units": [
        {**u, "hidden": u["id"] == "r4"} for u in DEFENSIVE["units"]]})
    answer = GAME.standing_answer(hidden, hidden.pending, "best-shot-stay-hidden")  # type: ignore[arg-type]
    assert answer == "fire r1+r2 at g"  # r4 keeps hidden: the 2-1 group is the best left
