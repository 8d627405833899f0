"""``legal`` is complete: every order the rules accept is one of the complete listing's
families, and every listed order is accepted — over random positions of both games.

Positions are reached by random play from several scenarios; in each, orders of every
verb of the game's order spec are drawn without the listing (``tests/kernel/
legal_property.py``) and tried. The figure (positions x orders tried, accepted) is printed;
the default run plays a short version, the soak stage (``@pytest.mark.soak``) more games,
longer.
"""

from __future__ import annotations

import random

import pytest

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.places import EAST
from adjudicator.stalingrad.state import StalingradState
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.hexgrid import Direction, Hex, neighbours
from adjudicator.tanks.state import FIRE_PHASES, TanksState
from tests.kernel.legal_property import Tally, World, check_position, wander

STALINGRAD = StalingradGame()
TANKS = TanksGame()


# ---- Turning Point: Stalingrad ---------------------------------------------------------------


def stalingrad_world(state: StalingradState) -> World:
    board = STALINGRAD.board_for(state)
    areas = sorted(board.areas)
    landings = [k for k, a in board.areas.items() if a.ferry or a.zone]

    def near(place: str) -> list[str]:
        if place in board.areas:
            return [place, *sorted(board.adjacent(place))]
        return landings if place == EAST else areas

    def strikes(rng: random.Random, anchor: str) -> tuple[tuple[str, str, str], ...]:
        gunners = [u for u in state.units if board.units[u].kind in ("artillery", "air")]
        out = []
        for _ in range(rng.choice((1, 1, 2, 3))):
            uid = rng.choice(gunners or [anchor])
            loc = state.units[uid].loc
            area = rng.choice(near(loc) if loc in board.areas else areas)
            out.append((area, rng.choice(("", "fresh", "spent")), uid))
        return tuple(out)

    places: dict[str, str | None] = {u: unit.loc for u, unit in state.units.items()}
    answers = {e.name for e in STALINGRAD.order_spec.verbs if e.path[0] == "decide"}
    rare = {e.name for e in STALINGRAD.order_spec.verbs
            if (e.name in answers) != (state.pending is not None)}
    phases = {"setup": {"setup", "setup-auto", "setup-done"}, "bids": {"bid"},
              "rubble": {"rubble"}}
    for phase, verbs in phases.items():
        rare |= verbs if state.phase != phase else set()
    return World(places_of=places, side_of={u: board.units[u].side for u in state.units},
                 near=near, places=areas, extra={"strikes": strikes}, rare=rare,
                 anchors=stalingrad_anchors(state))


def stalingrad_anchors(state: StalingradState) -> list[str]:
    """The units of an impulse under way, else the Fresh units on the board (and those
    waiting to set up or to cross)."""
    imp = state.impulse
    if imp is not None and (imp.acts or imp.origin):
        return [*imp.acts, *(u for u, unit in state.units.items() if unit.loc == imp.origin)]
    board = STALINGRAD.board_for(state)
    return [u for u, unit in state.units.items()
            if unit.fresh and (unit.loc in board.areas or unit.loc == EAST)]


def stalingrad_positions(scenario: str, seed: int, steps: int, every: int
                         ) -> list[StalingradState]:
    """Positions of a random game of ``scenario``: one every ``every`` orders."""
    rng = random.Random(seed)
    dice = CommittedDice(bytes([seed]) * 8, f"legal-{scenario}-{seed}")
    return wander(STALINGRAD, STALINGRAD.setup(scenario),
                  lambda state, side: stalingrad_world(state), rng, dice, steps, every,
                  ("end", "pass", "setup auto", "setup done", "rubble"))


def run_stalingrad(games: list[tuple[str, int]], steps: int, every: int, draws: int
                   ) -> Tally:
    tally = Tally()
    for scenario, seed in games:
        rng = random.Random(seed * 7919)
        dice = CommittedDice(bytes([seed, 1]) * 8, f"probe-{scenario}-{seed}")
        for state in stalingrad_positions(scenario, seed, steps, every):
            check_position(STALINGRAD, state, stalingrad_world(state), rng, dice,
                           draws, tally)
    return tally


needs_pack = pytest.mark.skipif(not STALINGRAD.has_pack(), reason="needs the shipped data pack")


@needs_pack
def test_stalingrad_legal_lists_every_accepted_order_8_1_8_2_8_3_14_3_18_5() -> None:
    """8.1-8.3 (moves, attacks), 14.3 (fortification), 18.5 (crossing), 8.354 (the
    casualties decision), 5.4 (set-up): accepted orders are covered by ``legal``."""
    tally = run_stalingrad([("historical", 1), ("sawmill", 3)], 40, 5, 60)
    print(tally.line("stalingrad"))
    assert tally.positions >= 12 and tally.accepted >= 40, tally.line("stalingrad")
    assert "move" in tally.verbs, tally.line("stalingrad")


@pytest.mark.soak
@needs_pack
def test_stalingrad_legal_lists_every_accepted_order_soak() -> None:
    """The same property (8.1-18.7) over longer games of every scenario."""
    games = [(s, seed) for s in STALINGRAD.scenarios() for seed in (4, 5, 6)]
    tally = run_stalingrad(games, 300, 5, 150)
    print(tally.line("stalingrad (soak)"))
    assert tally.positions >= 100, tally.line("stalingrad (soak)")


# ---- Stalin's Tanks ------------------------------------------------------------------------------


def tanks_world(state: TanksState, side: str) -> World:
    ctx = TANKS.ctx(state)
    hexes = [str(h) for h in ctx.map.all_hexes]
    known = [u for u in state.units if u.side == side or (
        u.status == "on" and not u.hidden and not u.concealed)]

    def near(place: str) -> list[str]:
        try:
            here = Hex.parse(place)
        except (RuleError, ValueError):
            return hexes
        return [place, *(str(n) for n in neighbours(here) if ctx.map.on_map(n))]

    def steps(rng: random.Random, anchor: str) -> tuple[str, ...]:
        unit = state.unit(anchor)
        here = unit.hex if unit is not None and unit.hex else rng.choice(hexes)
        out: list[str] = []
        for _ in range(rng.randint(1, 5)):
            roll = rng.random()
            if roll < 0.15:
                out.append(f"face {rng.choice(list(Direction)).name}")
                continue
            if roll < 0.2:
                out.append("exit")
                break
            here = rng.choice(near(here)[1:] or hexes)
            out.append(here)
        return tuple(out)

    def edge_range(rng: random.Random, anchor: str) -> tuple[str, str]:
        """6.5's HEX-HEX: mostly two hexes of one map edge (either way round), now and
        then any two hexes of the map."""
        if rng.random() < 0.1:
            return rng.choice(hexes), rng.choice(hexes)
        edge = [str(h) for h in ctx.map.edge_hexes(rng.choice("NESW"))]
        first, last = rng.choice(edge), rng.choice(edge)
        if rng.random() < 0.3:  # the whole edge or a wide part of it
            first, last = edge[0], rng.choice(edge[len(edge) // 2:])
        return first, last

    def facing(rng: random.Random, anchor: str) -> str:
        return rng.choice(list(Direction)).name

    phases = {"setup": {"place", "hide", "mine", "remove"}, "move": {"move", "enter", "load",
                                                                    "unload", "barrage"},
              "fire": {"fire", "assault"}}
    now = "setup" if state.phase == "setup" else "fire" if state.phase in FIRE_PHASES else "move"
    rare = {verb for phase, verbs in phases.items() if phase != now for verb in verbs}
    anchors = [u.id for u in state.units if u.side == side and (
        u.status == "on" or (u.status == "waiting" and now != "fire"))]
    return World(places_of={u.id: u.hex for u in known},
                 side_of={u.id: u.side for u in known}, near=near, places=hexes,
                 extra={"steps": steps, "facing": facing, "hexes": edge_range}, rare=rare,
                 anchors=anchors,
                 enemy_fields={"target"})


def past_setup(state: TanksState, rng: random.Random, dice: CommittedDice) -> TanksState:
    """The set-up (4.0, 19.1, 20.0) played by random listed orders, each side's units
    placed (now and then one hidden or a mine laid) until it is done: play then starts in
    turn 1."""
    while state.phase == "setup" and state.result is None:
        side = TANKS.acting_side(state)
        assert side is not None
        orders = TANKS.legal_orders(state, side)
        placing = [o for o in orders if o != "done"]
        text = "done" if "done" in orders and (not placing or rng.random() < 0.5) \
            else rng.choice(placing)
        state = TANKS.apply_text(state, side, text, dice).state
    return state


def tanks_positions(scenario: str, seed: int, steps: int, every: int,
                    skip_setup: bool = False) -> list[TanksState]:
    """Positions of a random game of ``scenario``, one every ``every`` orders;
    ``skip_setup``: from turn 1 on (the set-up played first, unrecorded)."""
    rng = random.Random(seed)
    dice = CommittedDice(bytes([seed]) * 8, f"legal-{scenario}-{seed}")
    state = TANKS.setup(scenario)
    if not skip_setup:
        return wander(TANKS, state, tanks_world, rng, dice, steps, every)
    return play(past_setup(state, rng, dice), rng, dice, steps, every)


def play(state: TanksState, rng: random.Random, dice: CommittedDice, steps: int,
         every: int, done: float = 0.2) -> list[TanksState]:
    """Random legal play (moves, fire, assaults, the Defensive Fire decision): each step
    one listed order, ``done`` with probability ``done`` (so phases and turns pass);
    a position every ``every`` steps."""
    out: list[TanksState] = []
    for number in range(steps):
        if state.result is not None:
            break
        side = TANKS.acting_side(state)
        assert side is not None
        if number % every == every - 1:
            out.append(state)
        orders = TANKS.legal_orders(state, side)
        acting = [o for o in orders if o != "done"]
        text = rng.choice(acting) if acting and ("done" not in orders
                                                  or rng.random() >= done) else "done"
        state = TANKS.apply_text(state, side, text, dice).state
    return out


def run_tanks(games: list[tuple[str, int]], steps: int, every: int, draws: int,
              skip_setup: bool = False, tally: Tally | None = None) -> Tally:
    tally = tally or Tally()
    for scenario, seed in games:
        rng = random.Random(seed * 7919)
        dice = CommittedDice(bytes([seed, 1]) * 8, f"probe-{scenario}-{seed}")
        for state in tanks_positions(scenario, seed, steps, every, skip_setup):
            side = TANKS.acting_side(state)
            assert side is not None
            check_position(TANKS, state, tanks_world(state, side), rng, dice,
                           draws, tally)
    return tally


def tanks_scenarios() -> list[str]:
    return list(TANKS.scenarios())


def test_tanks_legal_lists_every_accepted_order_6_0_8_2_15_2_19_1() -> None:
    """6.0-8.4 (moves), 15.2 (combined fire), 16.0 (assault), 18.1 (barrage), 19.1-20.0
    (mines, hidden set-up): accepted orders are covered by ``legal``."""
    names = tanks_scenarios()
    tally = run_tanks([(names[0], 1)], 10, 5, 30)  # the set-up
    run_tanks([(names[0], 1), (names[-1], 2)], 32, 4, 50, skip_setup=True, tally=tally)
    print(tally.line("tanks"))
    assert tally.positions >= 16 and tally.accepted >= 100, tally.line("tanks")
    assert {"move", "fire"} <= set(tally.verbs), tally.line("tanks")


@pytest.mark.soak
def test_tanks_legal_lists_every_accepted_order_soak() -> None:
    """The same property (5.0-25.0) over longer games of every scenario."""
    names = tanks_scenarios()
    tally = run_tanks([(s, seed) for s in names for seed in (4, 5)], 200, 4, 150)
    run_tanks([(s, 6) for s in names], 120, 4, 150, skip_setup=True, tally=tally)
    print(tally.line("tanks (soak)"))
    assert tally.positions >= 60, tally.line("tanks (soak)")

