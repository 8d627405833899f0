"""``umpire bench render``: what one map picture costs per action.

For each game it plays a seeded random legal game, then renders every action's View (its
last action highlighted) at the default size, after one warm-up picture that builds the static
layers (built once per data pack, not per action):

* Turning Point: Stalingrad: the historical set-up with every other counter of the pack put
  on the map as well (375 counters, the "full set-up"), then the random game's Views;
* Stalin's Tanks: Kursk: Counterattack (52 units), the largest scenario.

It prints the median and p95 per action (target < 30 ms), the PNG size (target < 400 KB) and
the ratio of a full render to the PNG encoding of the same final image alone (aim <= 1.5:
everything but the encoding should cost at most half as much as the encoding).

Run: ``uv run umpire bench render``.
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
from adjudicator.registry import load_game  # noqa: E402
from bench.common import Figures  # noqa: E402
from render import draw, load_pack  # noqa: E402
from render.common import encode_png  # noqa: E402

TARGET_MS = 30.0
TARGET_KB = 400


def random_views(game_name: str, scenario: str, orders: int, seed: int,
                 viewer: str) -> list[tuple[Any, list[Any]]]:
    game = load_game(game_name)
    rnd = random.Random(seed)
    dice = CommittedDice(bytes([seed]) * 32, game_id="bench")
    state = game.setup(scenario)
    out = [(game.view(state, viewer), [])]
    tries = 0
    while len(out) <= orders and tries < 4 * orders:
        tries += 1
        side = game.acting_side(state)
        if side is None:
            break
        legal = game.legal_orders(state, side)
        if not legal:
            break
        try:
            outcome = game.apply_text(state, side, rnd.choice(legal), dice)
        except RuleError:
            continue
        state = outcome.state
        out.append((game.view(state, viewer), list(outcome.events)))
    return out


def full_setup(view: Any) -> Any:
    """The historical set-up with every waiting counter placed in an Area of its side."""
    by_side: dict[str, list[str]] = {"german": [], "russian": []}
    for area in view.areas:
        if area.key.isdigit():
            by_side.setdefault(area.control, []).append(area.key)
    units = []
    counters = {side: 0 for side in by_side}
    for u in view.units:
        if u.loc in ("pool", "offboard", "east") and by_side.get(u.side):
            areas = by_side[u.side]
            u = u.model_copy(update={"loc": areas[counters[u.side] % len(areas)]})
            counters[u.side] += 1
        units.append(u)
    return view.model_copy(update={"units": units})


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Milliseconds of this process's CPU time (steadier than wall time on a busy machine)."""
    start = time.process_time()
    value = fn()
    return (time.process_time() - start) * 1000, value


def measure(name: str, views: list[tuple[Any, list[Any]]], pack: Any,
            out: Callable[..., None], figures: Figures) -> bool:
    draw(views[0][0], pack)  # static layers: once per pack
    times: list[float] = []
    sizes: list[int] = []
    for view, _events in views:
        ms, data = timed(lambda v=view: encode_png(draw(v, pack)))
        times.append(ms)
        sizes.append(len(data))
    final_view, _final_events = views[-1]
    image = draw(final_view, pack)
    encode = statistics.median(timed(lambda: encode_png(image))[0] for _ in range(7))
    full = statistics.median(timed(lambda: encode_png(draw(final_view, pack)))[0]
                             for _ in range(7))
    median = statistics.median(times)
    p95 = sorted(times)[int(0.95 * (len(times) - 1))]
    units = sum(1 for u in final_view.units
                if getattr(u, "status", "on") == "on"
                and getattr(u, "loc", "") not in ("pool", "dead", "offboard"))
    ok = median < TARGET_MS and max(sizes) < TARGET_KB * 1024 and full / encode <= 1.5
    out(f"{name}: {len(views)} Views, {units} counters on the map, picture "
        f"{image.width}x{image.height}")
    out(f"  per action: median {median:.1f} ms, p95 {p95:.1f} ms (target < {TARGET_MS:.0f} ms)")
    out(f"  PNG: median {statistics.median(sizes) / 1024:.0f} KB, largest "
        f"{max(sizes) / 1024:.0f} KB (target < {TARGET_KB} KB)")
    out(f"  full render {full:.1f} ms / PNG encode alone {encode:.1f} ms = "
        f"{full / encode:.2f} (aim <= 1.5)")
    figures.add(f"{name}: per action, median", median, TARGET_MS, " ms")
    figures.add(f"{name}: largest PNG", max(sizes) / 1024, TARGET_KB, " KB")
    figures.add(f"{name}: full render / PNG encode alone", full / encode, 1.5, "x")
    return ok


def run(out: Callable[..., None] = print) -> bool:
    tps = random_views("stalingrad", "historical", 40, 7, "public")
    tps_pack = load_pack("stalingrad")
    tps = [(full_setup(tps[0][0]), []), *tps]
    tps.append((full_setup(tps[-1][0]), tps[-1][1]))
    figures = Figures()
    ok = measure("Turning Point: Stalingrad, full set-up then a random game", tps, tps_pack,
                 out, figures)
    tanks = random_views("tanks", "kursk-counterattack", 60, 3, "gm")
    ok = measure("Stalin's Tanks, Kursk: Counterattack (GM view)", tanks, load_pack("tanks"),
                 out, figures) and ok
    figures.report(out)
    return ok


if __name__ == "__main__":
    run()
