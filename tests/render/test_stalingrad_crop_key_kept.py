"""The zoom's key to its stacks (issue 26): each plan's stacks are put in the key's order and
given their lines once, and a window's key is those filtered to the window — the same lines
as making the key plainly, window by window (the stacks inside, sorted by space, each
stack's lines written, wrapped and indented, at most four lines)."""

from __future__ import annotations

import random

import pytest

from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.data_models import StalingradPack
from adjudicator.stalingrad.views import StalingradView
from render import stalingrad as tps
from render.common import wrap
from render.stalingrad.counters import indented, stack_lines, units_of_pack
from render.stalingrad.layout import CROP_SCALES, CROP_SIZE, Static
from render.stalingrad.picture import _crop_key, _crop_key_font
from render.stalingrad.plan import plan
from tests.render.games import stalingrad_views


@pytest.fixture(scope="module")
def views() -> list[StalingradView]:
    return stalingrad_views(50, 26)


def plain_key(st: Static, view: StalingradView, pack: StalingradPack,
              box: tuple[int, int, int, int], fs: int, width: int) -> list[str]:
    """The key made plainly: the stacks whose counter lies in ``box``, sorted by space,
    each stack's line wrapped and indented; more than four lines cut to three and a count."""
    inside = [(loc, members) for loc, members, (x, y) in plan(st, view, pack).grouped
              if box[0] <= x <= box[2] and box[1] <= y <= box[3]]
    lines = [part for line in stack_lines(inside, units_of_pack(pack))
             for part in indented(wrap(line, fs, width))]
    if len(lines) > 4:
        lines = [*lines[:3], f"... and {len(lines) - 3} more lines in the full map"]
    return lines


def test_a_windows_key_is_the_plainly_made_key(views: list[StalingradView]) -> None:
    """At each zoom scale, for the crop's own window and windows all over the map, in game
    order, again backwards (kept lines hit) and for Views validated afresh (new objects:
    every kept plan misses)."""
    pack = load_pack()
    rnd = random.Random(26)
    fresh = [StalingradView.model_validate(v.model_dump()) for v in views[::5]]
    checked = cut = 0
    for view in [*views[::2], *reversed(views[::2]), *fresh]:
        for scale in CROP_SCALES:
            st = tps.build_static(pack, scale)
            fs, width = _crop_key_font(st), CROP_SIZE[0] - 8
            boxes = [(0, 0, *st.size)]
            for _ in range(2):
                x, y = rnd.randrange(st.size[0]), rnd.randrange(st.size[1])
                boxes.append((x, y, x + CROP_SIZE[0], y + CROP_SIZE[1] // 2))
            for box in boxes:
                made = _crop_key(st, view, pack, box, fs, width)
                assert made == plain_key(st, view, pack, box, fs, width)
                checked += bool(made)
                cut += bool(made) and made[-1].startswith("... and")
    assert checked and cut  # keys with lines, and keys cut to four lines

