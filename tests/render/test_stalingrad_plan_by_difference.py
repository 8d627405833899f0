"""A Turning Point: Stalingrad plan made by difference from the View planned last (issue 26):
the spaces none of whose units changed keep the last plan's stacks, the others are planned
— the same plan, and the same pictures byte for byte, as planning each View afresh."""

from __future__ import annotations

import pytest

from adjudicator.kernel.memo import Memo
from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.views import StalingradView
from render import stalingrad as tps
from render.common import encode_png
from render.stalingrad import plan as plan_module
from render.stalingrad.layout import CROP_SCALES, DEFAULT_SCALE
from render.stalingrad.plan import Plan, _changed_spaces, _Kept, _plan
from tests.render.games import stalingrad_views


@pytest.fixture(scope="module")
def views() -> list[StalingradView]:
    """Two random games' Views in game order, then the first game's again after the
    second's (a View far from the one planned last)."""
    first, second = stalingrad_views(40, 31), stalingrad_views(30, 32)
    return [*first, *second, *first[::7]]


def _contents(the_plan: Plan) -> tuple[object, ...]:
    return (the_plan.board_key,
            [(*op[:6], op[6].tobytes(), op[7] is None) for op in the_plan.counters],
            [(loc, [m.id for m in members], point)
             for loc, members, point in the_plan.grouped],
            the_plan.contested, list(the_plan.spaces))


def test_a_plan_made_by_difference_is_the_plan_made_afresh(
        views: list[StalingradView]) -> None:
    pack = load_pack()
    for scale in (DEFAULT_SCALE, CROP_SCALES[0]):
        st = tps.build_static(pack, scale)
        kept = _Kept()
        last: tuple[StalingradView, Plan] | None = None
        by_difference = 0
        for view in views:
            made = _plan(st, kept, view, pack, last)
            assert _contents(made) == _contents(_plan(st, _Kept(), view, pack))
            changed = _changed_spaces(view, last)
            by_difference += changed is not None and len(changed) < len(made.spaces)
            last = (view, made)
        assert by_difference > len(views) // 2


def test_pictures_of_plans_made_by_difference_are_the_fresh_ones(
        views: list[StalingradView], monkeypatch: pytest.MonkeyPatch) -> None:
    """The zoom and the whole map of each View in game order (each plan made from the
    last), byte for byte the pictures drawn with nothing kept from the View before."""
    pack = load_pack()
    chosen = views[:12]
    kept = [(encode_png(tps.draw(v, pack, crop=True)), encode_png(tps.draw(v, pack)))
            for v in chosen]
    for view, pictures in zip(chosen, kept, strict=True):
        monkeypatch.setattr(plan_module, "_KEPT", Memo[_Kept](size=16))  # nothing kept
        assert (encode_png(tps.draw(view, pack, crop=True)),
                encode_png(tps.draw(view, pack))) == pictures
