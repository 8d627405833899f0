"""Counter sprites built ahead at start-up (``render.stalingrad.prepare``): every unit's
common faces — Fresh, and Spent under a Duration marker of 1 or 2 (4.4) — at each size a
posted picture draws counters, kept for good, pixel for pixel the sprites a picture would
build, so the first picture of a View pastes them instead of drawing them."""

from __future__ import annotations

from typing import Any

import pytest

from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.views import StalingradView
from render import stalingrad as tps
from render.common import SpriteCache, wrap
from render.stalingrad.counters import (
    PREPARED_COUNTS,
    PREPARED_DURATIONS,
    Face,
    common_faces,
    counter_sprite,
    indented,
    stack_lines,
    units_of_pack,
    wrapped_stack_lines,
)
from render.stalingrad.layout import CROP_SCALES, DEFAULT_SCALE
from render.stalingrad.plan import plan
from tests.render.games import stalingrad_views


@pytest.fixture(scope="module")
def views() -> list[StalingradView]:
    return stalingrad_views(60, 44)


def _common(face: Face) -> bool:
    return ((face.count == 1 or face.count in PREPARED_COUNTS) and not face.isolated
            and (face.fresh or face.duration in PREPARED_DURATIONS))


def test_4_4_prepared_counters_are_the_sprites_a_picture_builds() -> None:
    """A kept face (Fresh, or Spent with Duration 1 or 2, 4.4, alone or a stack of like
    counters, 7.5) is the same picture as one built on demand against the same palette."""
    pack = load_pack()
    tps.prepare(pack)
    faces = common_faces(pack)
    spent = [f for f in faces if not f.fresh]
    assert {f.duration for f in spent} == set(PREPARED_DURATIONS)
    assert {f.count for f in faces} == {1, *PREPARED_COUNTS}
    for scale in (DEFAULT_SCALE, CROP_SCALES[-1]):
        st = tps.build_static(pack, scale)
        fresh_cache = SpriteCache(st.palette)
        for face in faces[::37]:
            kept = counter_sprite(st.sprites, face, st.counter)
            built = counter_sprite(fresh_cache, face, st.counter)
            assert kept is not built
            assert kept.tobytes() == built.tobytes()
            assert kept.getpalette() == built.getpalette()


def test_4_4_after_prepare_a_view_builds_no_common_counter(
        views: list[StalingradView], monkeypatch: Any) -> None:
    """The zoom and the whole map of a random game's Views, after prepare: no Fresh face
    and no Spent face with Duration 1 or 2 (4.4), alone or in a stack of up to five like
    counters (7.5), is built; rarer ones still are."""
    pack = load_pack()
    tps.prepare(pack)
    built: list[Face] = []
    asked: list[Face] = []
    real_get = SpriteCache.get

    def spying(self: SpriteCache, key: object, build: object, *, keep: bool = False) -> Any:
        made: list[bool] = []

        def counting() -> Any:
            made.append(True)
            assert callable(build)
            return build()
        item = real_get(self, key, counting, keep=keep)
        if isinstance(key, tuple) and key[0] == "tps-counter":
            asked.append(key[1])
            if made:
                built.append(key[1])
        return item
    monkeypatch.setattr(SpriteCache, "get", spying)
    shown: set[Face] = set()
    for view in views:
        tps.draw(view, pack, crop=True)
        tps.draw(view, pack)
        shown |= {tps.face_of(u, units_of_pack(pack)) for u in view.units}
    assert any(not f.fresh and f.duration for f in shown)  # the game shows Spent faces
    assert any(f.count > 1 for f in asked)  # and stacks of like counters
    assert [f for f in built if _common(f)] == []


def test_the_zoom_key_is_the_stack_lines_wrapped(views: list[StalingradView]) -> None:
    """The key's lines, each stack's made once, are the stacks' lines wrapped and indented."""
    pack = load_pack()
    pack_units = units_of_pack(pack)
    st = tps.build_static(pack, CROP_SCALES[0])
    checked = 0
    for view in views[::6]:
        grouped = [(loc, members) for loc, members, _ in plan(st, view, pack).grouped]
        for fs, width in ((11, 300), (9, 120)):
            plain = [part for line in stack_lines(grouped, pack_units)
                     for part in indented(wrap(line, fs, width))]
            assert wrapped_stack_lines(grouped, pack_units, fs, width) == plain
            assert wrapped_stack_lines(grouped, pack_units, fs, width) == plain
            checked += len(plain)
    assert checked


def test_a_sprite_quantised_without_secrets_never_uses_a_secret_index() -> None:
    """Colours nearest a secret entry (a duplicate of entry 0 in the public palette) are
    remapped to entry 0; a sprite using none is left as quantised."""
    from PIL import Image

    from render.common import FIRST_SECRET, SECRETS, Palette, rgb

    palette = Palette.build()
    plain = Image.new("RGB", (4, 4), rgb("ink"))
    assert palette.quantize(plain).tobytes() == bytes([palette["ink"]]) * 16
    for colour in SECRETS.values():
        near = Image.new("RGB", (4, 4), colour)
        public = palette.quantize(near)
        assert max(public.tobytes()) < FIRST_SECRET
        assert max(palette.quantize(near, secrets=True).tobytes()) >= FIRST_SECRET
