"""``umpire bench tanks``: what Stalin's Tanks costs the rules engine.

On a full position — every unit of 25.4 Kursk: Counterattack (the largest scenario) placed on
the pack's map, the two sides facing each other across it — it measures, as medians:

* ``LOS, one pair``: line of sight between random hex pairs, as the rules ask it
  (``Ctx.los`` on hex names), with the line profiles already cached (warm) and from an empty
  cache (cold) — budget 50 µs;
* ``LOS, one unit to every hex``: a unit's line of sight to all 806 hexes — budget 20 ms;
* ``apply fire``: ``Game.apply`` of one fire order (state copy, To Hit and Hit Effect dice,
  events) — budget 2 ms;
* ``legal orders``: the whole side's legal orders in the First Movement Phase (every unit's
  reachable hexes) and in the Stationary Fire Phase (every shot);
* ``serialize + hash`` / ``deserialize``: the storage round trip around every order;

and prints the ratios fire apply / serialize and legal orders / fire apply.

Run: ``uv run umpire bench tanks`` (``--actions N`` sets how many samples are timed).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:  # as a script, bench/ must not hide the packages
    sys.path.insert(0, str(ROOT))

from adjudicator.kernel.dice import CommittedDice  # noqa: E402
from adjudicator.kernel.errors import RuleError  # noqa: E402
from adjudicator.tanks import hexgrid  # noqa: E402
from adjudicator.tanks.context import Ctx  # noqa: E402
from adjudicator.tanks.game import TanksGame  # noqa: E402
from adjudicator.tanks.state import TanksState  # noqa: E402
from bench.common import Figures  # noqa: E402

SCENARIO = "kursk-counterattack"
BUDGETS = {"los_us": 50.0, "los_all_ms": 20.0, "fire_ms": 2.0}


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    """Milliseconds per call."""
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        out.append(1000 * (time.perf_counter() - start))
    return out


def full_position(game: TanksGame, phase: str = "move1") -> TanksState:
    """Every unit of the scenario on the map: Germans in the east facing south-west, Soviets
    in the west facing north-east, on clear hexes, German player turn."""
    state = game.setup(SCENARIO)
    ctx = Ctx(game.data, state)
    free = {side: [h for h in ctx.map.all_hexes if ctx.terrain(str(h)) == "clear"
                   and not ctx.is_road(str(h)) and (h.col >= 20 if side == "german"
                                                    else h.col <= 12) and h.row % 2 == 0]
            for side in ("german", "soviet")}
    for side, facing in (("german", "SW"), ("soviet", "NE")):
        spots = iter(sorted(free[side], key=lambda h: (h.row, h.col)))
        for unit in [u for u in state.units if u.side == side]:
            h = next(spots)
            unit.status, unit.hex = "on", str(h)
            unit.facing = facing if ctx.type_of(unit).has_facing else None
            unit.enter_turns = unit.enter_edges = unit.enter_hexes = []
    state.flags.pop("setup_units", None)
    state.setup_sides = []
    state.order = ["german", "soviet"]
    state.player = 0
    state.phase = phase
    return state


def run(actions: int = 200, out: Callable[[str], Any] = print) -> dict[str, float]:
    game = TanksGame()
    rng = random.Random(1)
    state = full_position(game)
    ctx = Ctx(game.data, state)
    names = [str(h) for h in ctx.map.all_hexes]
    samples = max(50, actions)
    out(f"{SCENARIO}: {len(state.units)} units on a {ctx.map.columns} x {ctx.map.rows} map "
        f"({len(names)} hexes)")

    # line of sight: cold (empty profile cache), then warm
    pairs = [(rng.choice(names), rng.choice(names)) for _ in range(samples * 10)]
    hexgrid._offset_profile.cache_clear()
    cold = [1e6 * t for t in timed_pairs(ctx, pairs[:samples])]
    hexgrid.prepare_lines(ctx.map.columns, ctx.map.rows)
    warm = [1e6 * t for t in timed_pairs(ctx, pairs)]
    blocking = ctx.blocking
    sources = [hexgrid.Hex.parse(rng.choice(names)) for _ in range(max(10, samples // 10))]
    every = list(ctx.map.all_hexes)
    los_all = []
    for source in sources:
        los_all += timed(lambda source=source: sum(
            1 for _ in hexgrid.visible_hexes(source, every, blocking)), 1)

    # one fire order, on a position in the Stationary Fire Phase
    fire_state = full_position(game, "stationary")
    dice = CommittedDice(b"bench-tanks".ljust(32, b"."), "bench")
    shots = [o for o in game.legal_orders(fire_state, "german") if o.startswith("fire ")]
    sample = shots[:: max(1, len(shots) // samples)][:samples]
    fire_ms: list[float] = []
    for text in sample:
        order = game.parse(text)
        try:
            game.apply(fire_state, "german", order, dice)
        except RuleError:
            continue
        fire_ms += timed(lambda order=order: game.apply(fire_state, "german", order, dice), 3)

    legal_move = timed(lambda: game.legal_orders(state, "german"), 5)
    legal_fire = timed(lambda: game.legal_orders(fire_state, "german"), 5)
    moves = game.legal_orders(state, "german")
    data = state.to_bytes()
    serialize_ms = timed(state.state_hash, 50)
    deserialize_ms = timed(lambda: game.load_state(data), 50)

    figures = {
        "los_us": statistics.median(warm),
        "los_cold_us": statistics.median(cold),
        "los_all_ms": statistics.median(los_all),
        "fire_ms": statistics.median(fire_ms),
        "fire_max_ms": max(fire_ms),
        "legal_move_ms": statistics.median(legal_move),
        "legal_fire_ms": statistics.median(legal_fire),
        "legal_move_orders": float(len(moves)),
        "legal_fire_orders": float(len(shots)),
        "serialize_hash_ms": statistics.median(serialize_ms),
        "deserialize_ms": statistics.median(deserialize_ms),
    }
    figures["fire_over_serialize"] = figures["fire_ms"] / figures["serialize_hash_ms"]
    figures["legal_over_fire"] = figures["legal_move_ms"] / figures["fire_ms"]

    def line(label: str, value: float, unit: str, budget: float | None = None) -> None:
        verdict = "" if budget is None else ("  ok" if value < budget else "  OVER BUDGET")
        shown = f"{value:9.2f} {unit}" + (f"  (budget {budget:g} {unit}){verdict}"
                                          if budget else "")
        out(f"  {label:<44}{shown}")

    out(f"samples: {len(warm)} LOS pairs, {len(los_all)} all-hex sweeps, "
        f"{len(fire_ms) // 3} fire orders; state size {len(data):,} bytes")
    line("LOS, one pair (median, warm)", figures["los_us"], "µs", BUDGETS["los_us"])
    line("LOS, one pair (median, cold cache)", figures["los_cold_us"], "µs")
    line("LOS, one unit to every hex (median)", figures["los_all_ms"], "ms",
         BUDGETS["los_all_ms"])
    line("apply a fire order (median)", figures["fire_ms"], "ms", BUDGETS["fire_ms"])
    line("apply a fire order (slowest)", figures["fire_max_ms"], "ms")
    line(f"legal orders, movement ({len(moves)} orders)", figures["legal_move_ms"], "ms")
    line(f"legal orders, fire phase ({len(shots)} shots)", figures["legal_fire_ms"], "ms")
    line("serialize + hash (median)", figures["serialize_hash_ms"], "ms")
    line("deserialize (median)", figures["deserialize_ms"], "ms")
    out(f"  {'ratio fire apply / serialize + hash':<44}{figures['fire_over_serialize']:9.2f}")
    out(f"  {'ratio legal orders (movement) / fire apply':<44}"
        f"{figures['legal_over_fire']:9.2f}")
    closing = Figures()
    closing.add("LOS, one pair, median (warm)", figures["los_us"], BUDGETS["los_us"], " µs")
    closing.add("LOS, one unit to every hex, median", figures["los_all_ms"],
                BUDGETS["los_all_ms"], " ms")
    closing.add("apply a fire order, median", figures["fire_ms"], BUDGETS["fire_ms"], " ms")
    closing.report(out)
    return figures


def timed_pairs(ctx: Ctx, pairs: list[tuple[str, str]]) -> list[float]:
    """Seconds per ``Ctx.los`` call for each pair."""
    out = []
    clock = time.perf_counter
    for a, b in pairs:
        start = clock()
        ctx.los(a, b)
        out.append(clock() - start)
    return out


if __name__ == "__main__":
    run()
