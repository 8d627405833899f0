"""``umpire bench autocomplete``: what one Discord autocomplete call costs.

On a full Turning Point: Stalingrad position (the historical setup) and a full Stalin's
Tanks position (Kursk: Counterattack, every unit entered) it measures, as medians:

* ``legal orders``: the game's whole legal-order list for the side to act (the bot caches
  it per position, so a user pays it once per position);
* ``suggest``: one autocomplete call on the cached list — unit, destination and target
  options, with nothing typed, one character and a longer prefix — budget 20 ms;

and prints the ratio suggest / legal orders.

Run: ``uv run umpire bench autocomplete``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:  # as a script, bench/ must not hide the packages
    sys.path.insert(0, str(ROOT))

from adjudicator.kernel.dice import CommittedDice  # noqa: E402
from adjudicator.kernel.errors import RuleError  # noqa: E402
from adjudicator.kernel.spec import CompiledVerb, OrderSpec  # noqa: E402
from adjudicator.registry import load_game  # noqa: E402
from bench.common import Figures  # noqa: E402
from bot.discord.autocomplete import suggest  # noqa: E402


def _median_ms(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _position(name: str, scenario: str, orders: int) -> tuple[Any, Any, str]:
    """A busy position: seeded random legal play (preferring moves and shots over ending
    phases) until at least ``orders`` orders were given and many moves are legal."""
    import random

    game = load_game(name)
    state = game.setup(scenario)
    dice = CommittedDice(b"bench-autocomplete", name)
    rnd = random.Random(7)
    for step in range(orders * 10):
        side = game.acting_side(state)
        if side is None:
            break
        legal = game.legal_orders(state, side)
        moves = [order for order in legal if order.startswith("move ")]
        if step >= orders and len(moves) >= 20:
            return game, state, side
        busy = [order for order in legal if order != "done"]
        if not busy or rnd.random() < 0.1:
            busy = legal
        try:
            state = game.apply_text(state, side, rnd.choice(busy), dice).state
        except RuleError:
            continue
    raise RuntimeError(f"no busy {name} position found")


def _suggest_ms(spec: OrderSpec, verb: CompiledVerb, legal: list[str], first: str,
                second: str) -> float:
    """Median of one autocomplete call over a few typical prefixes."""
    timings = []
    for typed in ("", "1", "2", "r"):
        timings.append(_median_ms(partial(suggest, spec, verb, legal, first, {}, typed), 5))
        timings.append(_median_ms(partial(suggest, spec, verb, legal, second, {first: typed},
                                          ""), 5))
    return statistics.median(timings)


def run(actions: int = 20, out: Callable[[str], object] = print) -> None:
    """``actions``: orders played before the measured position (at most 60)."""
    actions = min(actions, 60)
    closing = Figures()
    cases = [("stalingrad", "historical", "move", ("units", "to")),
             ("tanks", "kursk-counterattack", "move", ("unit", "steps"))]
    for name, scenario, verb, options in cases:
        game, state, side = _position(name, scenario, actions)
        legal_ms = _median_ms(lambda g=game, s=state, d=side: g.legal_orders(s, d), 5)
        legal = game.legal_orders(state, side)
        spec = game.order_spec
        suggest_ms = _suggest_ms(spec, spec.verb(verb), legal, *options)
        out(f"{name} ({scenario}, {side} to act, {len(legal)} legal orders)")
        out(f"  legal orders        {legal_ms:8.2f} ms median")
        out(f"  suggest (one call)  {suggest_ms:8.2f} ms median   budget 20 ms")
        out(f"  ratio suggest / legal orders: {suggest_ms / legal_ms:.2f}")
        closing.add(f"{name} suggest, one call, median", suggest_ms, 20.0, " ms")
    closing.report(out)


if __name__ == "__main__":
    run()
