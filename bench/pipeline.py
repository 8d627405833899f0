"""``umpire bench pipeline``: what a player waits for, from order text to the map picture.

For each game it plays long seeded random games through ``GameService.submit`` with the
service's default settings (SQLite store in a temporary folder, an idempotency key per
order as the frontends pass one) and, after every applied order, draws the public View the
result carries with the renderer exactly as the Discord bot calls it (``load_renderer``:
the game's pack, zoomed on the last action, no events). Games:

* Turning Point: Stalingrad, the historical scenario (a new game when one ends);
* Stalin's Tanks, all seven scenarios in turn (an equal share of the actions each).

The process starts as the bot's does: static picture layers built (``prepare_pictures``),
then its garbage-collector settings (``bot.runtime.tune_gc``). Per action it measures, in
CPU and wall time: submit, the public View (built when the bot first reads it), its picture
(draw + PNG), the whole pipeline (their sum), and apart from the pipeline the PNG encoding
alone of the same picture (drawn again, then encoded: its bytes must be the posted ones),
and the rules' apply alone of the same order from the same position with the same dice
(``Game.apply``). It prints p50/p95 of each and of the ratio pipeline / (apply + PNG
encode) per action, the pipeline over its irreducible work (targets: p50 <= 1.5, p95 <=
2); the older ratio pipeline / PNG encode stays printed without a target (an encode of the
zoom is cheaper than the apply). The bot posts both games zoomed on the last action (issue
29.4), a small picture that encodes several times faster than the whole map; every fourth
action the whole map (``/game map full:true``) is drawn and timed as well, with its own
ratio over its PNG encode (same targets).

Run: ``uv run umpire bench pipeline`` (``--actions N`` per game; docs/performance.md has
the figures of a run).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:  # as a script, bench/ must not hide the packages
    sys.path.insert(0, str(ROOT))

from adjudicator.kernel.events import PUBLIC  # noqa: E402
from bench.common import Figures, Out, measure, percentile, played  # noqa: E402

TARGET_P50 = 1.5
TARGET_P95 = 2.0
TANKS_SCENARIOS = ["first-encounter", "pakfront", "kursk-salient", "kursk-counterattack",
                   "close-to-the-end", "high-ground", "gauntlet"]
GAMES: list[tuple[str, str, list[str | None]]] = [
    ("stalingrad", "Turning Point: Stalingrad (historical)", ["historical"]),
    ("tanks", "Stalin's Tanks (all seven scenarios)", list(TANKS_SCENARIOS)),
]


def bot_renderer() -> Callable[..., bytes]:
    """The Discord bot's renderer (``bot.discord.app.load_renderer``)."""
    from bot.discord.app import load_renderer

    renderer = load_renderer()
    if renderer is None:
        raise RuntimeError("no renderer available")
    return renderer


class Series(dict[str, list[float]]):
    """Per-action samples in seconds, by name."""

    def add(self, name: str, value: float) -> None:
        self.setdefault(name, []).append(value)


def measure_game(service: Any, name: str, scenarios: list[str | None], actions: int,
                 renderer: Callable[..., bytes], whole_every: int = 0) -> Series:
    """Per-action samples of one game's random play. ``whole_every``: every so many actions
    the whole map is drawn as well (``/game map full:true``) and its encoding timed."""
    import render
    from render.common import encode_png

    series = Series()
    refused = applied = 0
    for table, actor, text in played(service, name, scenarios, actions):
        game_id = table.game_id
        pack_path = service.rules(game_id).pack
        key = table.key()
        before = service._load(game_id)  # the position the order meets (a cached read)
        submit, result = measure(lambda g=game_id, a=actor, t=text, k=key:
                                 service.submit(g, a, t, k))
        if not result.ok:
            refused += 1
            continue
        applied += 1
        # The rules' apply of the same order from the same position, with the same dice.
        apply = rules_apply(service, before, result.side, text)
        # The public View is built when the bot first reads it (publish), then drawn.
        viewing, view = measure(lambda m=result.messages[PUBLIC]: m.view)
        extra = () if pack_path is None else (pack_path,)
        picture, png = measure(lambda v=view, x=extra: renderer(v, *x))
        # The same picture again (the zoom on the last action, as the bot posts it for both
        # games), drawn then encoded apart: the encoding alone.
        pack = render.load_pack(view.game, pack_path)
        drawing, image = measure(lambda v=view, p=pack: render.draw(v, p, crop=True))
        encode, encoded = measure(lambda i=image: encode_png(i))
        if encoded != png:  # the denominator must be the picture the bot posts
            raise RuntimeError(f"{name}: the picture encoded apart is not the one posted")
        pipeline_cpu = submit.cpu + viewing.cpu + picture.cpu
        series.add("submit_cpu", submit.cpu)
        series.add("submit_wall", submit.wall)
        series.add("view_cpu", viewing.cpu)
        series.add("picture_cpu", picture.cpu)
        series.add("draw_cpu", drawing.cpu)
        series.add("encode_cpu", encode.cpu)
        series.add("pipeline_cpu", pipeline_cpu)
        series.add("pipeline_wall", submit.wall + viewing.wall + picture.wall)
        series.add("ratio", pipeline_cpu / max(encode.cpu, 1e-6))
        series.add("apply_cpu", apply)
        series.add("floor_ratio", pipeline_cpu / max(apply + encode.cpu, 1e-6))
        if whole_every and applied % whole_every == 0:
            whole, _ = measure(lambda v=view, x=extra: renderer(v, *x, full=True))
            image = render.draw(view, pack)
            encode, _ = measure(lambda i=image: encode_png(i))
            whole_cpu = submit.cpu + viewing.cpu + whole.cpu
            series.add("whole_picture_cpu", whole.cpu)
            series.add("whole_encode_cpu", encode.cpu)
            series.add("whole_pipeline_cpu", whole_cpu)
            series.add("whole_ratio", whole_cpu / max(encode.cpu, 1e-6))
    series["refused"] = [float(refused)]
    return series


def rules_apply(service: Any, before: Any, side: str, text: str) -> float:
    """CPU seconds of the rules' apply alone (``Game.apply``) of ``text`` for ``side`` from
    the position ``before`` (the service's :class:`Loaded`), with the dice the service gave
    the order: the irreducible work of a submit, measured in the same run."""
    import json

    game = before.game
    order = game.parse(text)
    dice = service._dice(before, int(before.row["next_roll"]),
                         json.loads(before.row["forced_dice"]))
    clock, _ = measure(lambda: game.apply(before.state, side, order, dice))
    return clock.cpu


def report(title: str, name: str, series: Series, figures: Figures, out: Out) -> None:
    out(f"{title}: {len(series['ratio'])} actions through the service "
        f"({int(series['refused'][0])} refused)")

    def row(label: str, key: str) -> None:
        out(f"  {label:<36} p50 {1000 * percentile(series[key], 0.5):8.2f} ms   "
            f"p95 {1000 * percentile(series[key], 0.95):8.2f} ms")

    def ratio(label: str, key: str, figure: str) -> None:
        p50, p95 = percentile(series[key], 0.5), percentile(series[key], 0.95)
        out(f"  {label:<36} p50 {p50:8.2f}      p95 {p95:8.2f}")
        figures.add(f"{figure} p50", p50, TARGET_P50, "x")
        figures.add(f"{figure} p95", p95, TARGET_P95, "x")

    row("submit (CPU)", "submit_cpu")
    row("  the rules' apply alone (CPU)", "apply_cpu")
    row("submit (wall)", "submit_wall")
    row("public View (CPU)", "view_cpu")
    row("picture as the bot posts it, zoom (CPU)", "picture_cpu")
    row("  draw alone (CPU)", "draw_cpu")
    row("  PNG encode alone (CPU)", "encode_cpu")
    row("whole pipeline (CPU)", "pipeline_cpu")
    row("whole pipeline (wall)", "pipeline_wall")
    old = (percentile(series["ratio"], 0.5), percentile(series["ratio"], 0.95))
    out(f"  {'ratio pipeline / PNG encode':<36} p50 {old[0]:8.2f}      p95 {old[1]:8.2f}"
        f"   (no target)")
    figures.add(f"{name} pipeline (zoom) / PNG encode p50", old[0], None, "x")
    figures.add(f"{name} pipeline (zoom) / PNG encode p95", old[1], None, "x")
    ratio("ratio pipeline / (apply + PNG encode)", "floor_ratio",
          f"{name} pipeline (zoom) / (apply + PNG encode)")
    figures.add(f"{name} pipeline (zoom) CPU p50", 1000 * percentile(series["pipeline_cpu"], 0.5),
                None, " ms")
    if "whole_ratio" in series:
        out(f"  whole map ({len(series['whole_ratio'])} actions: /game map full:true)")
        row("  picture (CPU)", "whole_picture_cpu")
        row("  PNG encode alone (CPU)", "whole_encode_cpu")
        row("  whole pipeline (CPU)", "whole_pipeline_cpu")
        ratio("  ratio pipeline / PNG encode", "whole_ratio",
              f"{name} pipeline (whole map) / PNG encode")


def run(actions: int = 1000, out: Out = print) -> dict[str, float]:
    from bot.discord.app import prepare_pictures
    from bot.runtime import tune_gc
    from bot.service import GameService
    from bot.store import Store

    renderer = bot_renderer()
    figures = Figures()
    # As the Discord bot starts: picture layers built, then its process settings.
    prepare_pictures([name for name, _title, _scenarios in GAMES])
    tune_gc()
    with tempfile.TemporaryDirectory() as folder:
        service = GameService(Store(Path(folder) / "pipeline.db"))
        for name, title, scenarios in GAMES:
            series = measure_game(service, name, scenarios, actions, renderer, whole_every=4)
            report(title, name, series, figures, out)
    figures.report(out)
    return figures.as_dict()


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
