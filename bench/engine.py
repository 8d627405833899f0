"""``umpire bench engine``: what one Turning Point: Stalingrad order costs the rules engine.

On the full historical setup (21.2, every starting counter on the map, initial Rubble
rolled) it measures, as medians:

* ``apply``: ``Game.apply`` of typical impulse orders (moves from the legal list, every
  listed attack, a Pass) — the budget is 5 ms;
* ``legal (one Area)``: the structured legal query for one Area's units (reachable Areas
  with MF, attackable Groups), for every Area holding units of the side to act — budget
  5 ms; the full ``legal_orders`` list for the whole side is printed for comparison;
* ``Dawn``: the German Pass whose impulse DR ends the night, with the whole Dawn — supply
  traced for every unit on the map (12.1), Isolation and Attrition (12.2, 12.22), recovery,
  Armor replacements, the Reinforcement Phase — budget 5 ms; the supply trace alone is
  printed for comparison;
* ``serialize + hash``: canonical bytes and their SHA-256 — budget 5 ms;
* ``deserialize``: bytes back to a state;

and prints the ratio apply / (deserialize + serialize): how much an order costs next to
the storage round trip the service does around it.

Run: ``uv run umpire bench engine`` (``--actions N`` sets how many orders are timed).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:  # as a script, bench/ must not hide the packages
    sys.path.insert(0, str(ROOT))

from adjudicator.kernel.dice import CommittedDice, FixedDice  # noqa: E402
from adjudicator.kernel.errors import RuleError  # noqa: E402
from adjudicator.stalingrad.context import Ctx  # noqa: E402
from adjudicator.stalingrad.game import StalingradGame  # noqa: E402
from adjudicator.stalingrad.legal import legal_info  # noqa: E402
from adjudicator.stalingrad.places import OFF_MAP  # noqa: E402
from adjudicator.stalingrad.state import StalingradState  # noqa: E402
from adjudicator.stalingrad.supply import supplied_units  # noqa: E402
from bench.common import Figures  # noqa: E402

BUDGET_MS = 5.0


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        out.append(1000 * (time.perf_counter() - start))
    return out


def full_setup(game: StalingradGame) -> StalingradState:
    """The historical setup after its initial Rubble. The Advantage stays out of the way of
    the Rubble drs (9.4) but is usable in play, so orders are timed with its checks."""
    state = game.setup("historical")
    state = game.apply_text(state, "german", "standing advantage never", FixedDice()).state
    state = game.apply_text(state, "german", "rubble", FixedDice([4] * 8)).state
    return game.apply_text(state, "german", "standing advantage off", FixedDice()).state


def run(actions: int = 200, out: Callable[[str], Any] = print) -> dict[str, float]:
    game = StalingradGame()
    state = full_setup(game)
    side = game.acting_side(state)
    assert side is not None
    board = game.board_for(state)
    on_map = sum(1 for u in state.units.values() if u.loc not in OFF_MAP)
    out(f"full historical setup: {on_map} units on the map, {side} to act")
    dice = CommittedDice(b"bench-engine".ljust(32, b"."), "bench")

    legal = game.legal_orders(state, side)
    moves = [o for o in legal if o.startswith("move")]
    attacks = [o for o in legal if o.startswith("attack")]
    step = max(1, len(moves) // max(1, actions))
    sample = ["pass", *attacks, *moves[::step]][:max(3, actions)]
    apply_ms: list[float] = []
    for text in sample:
        order = game.parse(text)
        try:
            game.apply(state, side, order, dice)
        except RuleError:
            continue
        apply_ms += timed(lambda order=order: game.apply(state, side, order, dice), 3)

    areas = sorted({u.loc for uid, u in state.units.items()
                    if board.units[uid].side == side and u.loc in board.areas})
    legal_ms: list[float] = []
    for area in areas:
        legal_ms += timed(lambda area=area: legal_info(Ctx(board, state), side, area), 3)
    full_ms = timed(lambda: game.legal_orders(state, side), 5)

    # A night ending: the Pass's impulse DR 1 + 1 brings Dawn (6.32); the Advantage is spent
    # so that no question stops the order before the Dawn.
    night = state.model_copy(update={"day": False, "box": 12, "turn": "german",
                                     "german_impulses_today": 12, "impulse": None,
                                     "advantage_used": True})
    pass_order = game.parse("pass")
    check = game.apply(night, "german", pass_order, FixedDice([1, 1]))
    assert check.state.day and check.state.date == night.date + 1, "the Pass brings Dawn"
    dawn_ms = timed(lambda: game.apply(night, "german", pass_order, FixedDice([1, 1])), 20)
    supply_ms = timed(lambda: supplied_units(board, state), 50)

    data = state.to_bytes()
    serialize_ms = timed(state.state_hash, 50)
    deserialize_ms = timed(lambda: game.load_state(data), 50)

    figures = {
        "apply_ms": statistics.median(apply_ms),
        "apply_max_ms": max(apply_ms),
        "legal_area_ms": statistics.median(legal_ms),
        "legal_area_max_ms": max(legal_ms),
        "legal_all_ms": statistics.median(full_ms),
        "dawn_ms": statistics.median(dawn_ms),
        "supply_ms": statistics.median(supply_ms),
        "serialize_hash_ms": statistics.median(serialize_ms),
        "deserialize_ms": statistics.median(deserialize_ms),
    }
    figures["ratio"] = figures["apply_ms"] / (figures["deserialize_ms"]
                                              + figures["serialize_hash_ms"])

    def line(label: str, value: float, budget: float | None = BUDGET_MS) -> None:
        verdict = "" if budget is None else ("  ok" if value < budget else "  OVER BUDGET")
        shown = f"{value:8.2f} ms" + (f"  (budget {budget:.0f} ms){verdict}" if budget else "")
        out(f"  {label:<42}{shown}")

    out(f"orders timed: {len(apply_ms) // 3} ({len(attacks)} attacks listed); "
        f"Areas queried: {len(areas)}; state size {len(data):,} bytes")
    line("apply (median)", figures["apply_ms"])
    line("apply (slowest)", figures["apply_max_ms"], None)
    line("legal query, one Area (median)", figures["legal_area_ms"])
    line("legal query, one Area (slowest)", figures["legal_area_max_ms"], None)
    line("legal orders, whole side", figures["legal_all_ms"], None)
    line("Dawn with supply tracing (median)", figures["dawn_ms"])
    line("supply trace, every unit (median)", figures["supply_ms"], None)
    line("serialize + hash (median)", figures["serialize_hash_ms"])
    line("deserialize (median)", figures["deserialize_ms"], None)
    out(f"  {'ratio apply / (deserialize + serialize)':<42}{figures['ratio']:8.2f}")
    closing = Figures()
    closing.add("apply, median", figures["apply_ms"], BUDGET_MS, " ms")
    closing.add("legal query, one Area, median", figures["legal_area_ms"], BUDGET_MS, " ms")
    closing.add("Dawn with supply tracing, median", figures["dawn_ms"], BUDGET_MS, " ms")
    closing.add("serialize + hash, median", figures["serialize_hash_ms"], BUDGET_MS, " ms")
    closing.report(out)
    return figures


if __name__ == "__main__":
    run()
