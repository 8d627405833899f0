"""Stalin's Tanks pictures: structure and secrets, not golden images."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from adjudicator.tanks.data import load_pack
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.views import TanksView
from render import tanks
from render.common import point_in_polygon, uses_any
from tests.render.games import Step, random_game

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def game() -> TanksGame:
    return TanksGame()


def view_of(game: TanksGame, state: object, viewer: str) -> TanksView:
    view = game.view(state, viewer)  # type: ignore[arg-type]
    assert isinstance(view, TanksView)
    return view


def secret_step(game: TanksGame, scenario: str, seed: int) -> Step:
    """The last step, past set-up, at which some unit is hidden or a mine is secret."""
    found = None
    for step in random_game(game, scenario, 80, seed):
        gm = view_of(game, step.state, "gm")
        public = view_of(game, step.state, "public")
        hidden = any(u.hidden and u.status == "on" for u in gm.units)
        if step.state.phase != "setup" and (hidden or set(gm.mines) - set(public.mines)):
            found = step
    assert found is not None, f"{scenario} seed {seed}: no secret after set-up"
    return found


def test_picture_size_and_png(game: TanksGame) -> None:
    pack = load_pack()
    view = view_of(game, game.setup("kursk-counterattack"), "public")
    data = tanks.render(view, pack)
    assert data.startswith(PNG) and len(data) < 400 * 1024
    image = Image.open(io.BytesIO(data))
    assert image.size == tanks.build_static(pack).size and image.mode == "P"
    assert tanks.draw(view, pack, crop=True).width < image.width


def test_counters_lie_inside_their_hex(game: TanksGame) -> None:
    pack = load_pack()
    steps = random_game(game, "first-encounter", 30, 2)
    view = view_of(game, steps[-1].state, "gm")
    st = tanks.build_static(pack)
    boxes = tanks.counter_boxes(view, pack)
    per_hex: dict[str, int] = {}
    for u in view.units:
        if u.status == "on" and u.hex:
            per_hex[u.hex] = per_hex.get(u.hex, 0) + 1
    assert boxes
    image = tanks.draw(view, pack)
    for u in view.units:
        if u.id not in boxes:
            continue
        assert u.hex is not None
        (cx, cy), size = boxes[u.id]
        hexagon = tanks.hex_corners(tanks.centre(st.origin, st.radius, u.hex), st.radius)
        corners = [(cx, cy)]
        if per_hex[u.hex] == 1 and not u.carrier:
            h = size / 2 - 0.5
            corners += [(cx - h, cy - h), (cx + h, cy - h), (cx - h, cy + h), (cx + h, cy + h)]
        for x, y in corners:
            assert point_in_polygon(x, y, hexagon), (u.id, u.hex)
        colours = image.crop((round(cx - size / 2), round(cy - size / 2),
                              round(cx + size / 2), round(cy + size / 2))).histogram()
        assert colours[st.palette[u.side]] + colours[st.palette["hidden_fill"]] > size * 2


@pytest.mark.parametrize(("scenario", "seed"), [("pakfront", 5), ("kursk-salient", 5)])
def test_secrets_only_in_the_owner_and_gm_pictures(game: TanksGame, scenario: str,
                                                   seed: int) -> None:
    pack = load_pack()
    st = tanks.build_static(pack)
    step = secret_step(game, scenario, seed)
    gm = view_of(game, step.state, "gm")
    public_view = view_of(game, step.state, "public")
    public = tanks.draw(public_view, pack, events=step.events)
    secret_indices = st.palette.secret_indices
    assert not uses_any(public, secret_indices)
    owners = {u.side for u in gm.units if u.hidden and u.status == "on"}
    owners |= {owner for h, owner in gm.mines.items() if h not in public_view.mines}
    assert owners
    for side in ("german", "soviet"):
        mine = tanks.draw(view_of(game, step.state, side), pack, events=step.events)
        if side not in owners:
            assert not uses_any(mine, secret_indices)
            continue
        assert uses_any(mine, secret_indices)
        # the owner's picture differs from the public one only where the secrets are
        allowed = [st.viewer_box]
        view = view_of(game, step.state, side)
        for u in view.units:
            if u.status == "on" and u.hex and (u.hidden or u.concealed) and u.side == side:
                allowed.append(_hex_box(st, u.hex))
        for h, owner in view.mines.items():
            if owner == side and h not in public_view.mines:
                allowed.append(_hex_box(st, h))
        diff = ImageChops.difference(public.convert("L"), mine.convert("L"))
        mask = Image.new("L", public.size, 255)
        for box in allowed:
            mask.paste(0, box)
        outside = ImageChops.multiply(diff.point(lambda v: 255 if v else 0), mask)
        assert outside.getbbox() is None, f"{side}: differs outside its secrets"
        assert diff.getbbox() is not None
    assert uses_any(tanks.draw(gm, pack, events=step.events), secret_indices)


def _hex_box(st: tanks.Static, name: str) -> tuple[int, int, int, int]:
    cx, cy = tanks.centre(st.origin, st.radius, name)
    r = st.radius
    return (int(cx - r * 1.6), int(cy - r * 1.6), int(cx + r * 1.6) + 1, int(cy + r * 1.6) + 1)


def test_same_view_same_bytes(game: TanksGame) -> None:
    steps = random_game(game, "kursk-salient", 30, 8)
    view = view_of(game, steps[-1].state, "soviet")
    assert tanks.render(view, events=steps[-1].events) == tanks.render(
        view, events=steps[-1].events)


def test_the_last_shot_is_drawn_with_its_result(game: TanksGame) -> None:
    shot = None
    for seed in (1, 2, 3, 4):
        for step in random_game(game, "first-encounter", 80, seed):
            if any(e.kind == "fire" for e in step.events):
                shot = step
        if shot:
            break
    assert shot is not None, "a seeded game should contain a shot"
    view = view_of(game, shot.state, "public")
    hl = tanks.last_action(view, shot.events)
    assert hl.shot_from and hl.shot_to and hl.shot_text
    fire = [e for e in shot.events if e.kind == "fire"][-1]
    assert ("HIT" in hl.shot_text) == bool(fire.data["hit"])
    bare = view.model_copy(update={"last_action": None})  # the View carries the last action
    assert tanks.draw(view, events=shot.events).tobytes() != tanks.draw(bare).tobytes()


def test_every_view_of_a_random_legal_game_renders(game: TanksGame) -> None:
    for scenario, seed in (("kursk-counterattack", 3), ("gauntlet", 6), ("high-ground", 1)):
        steps = random_game(game, scenario, 30, seed)
        assert len(steps) > 10
        for step in steps:
            for viewer in ("public", "german", "soviet", "gm"):
                view = view_of(game, step.state, viewer)
                assert tanks.render(view, events=step.events).startswith(PNG)
            assert tanks.draw(view, events=step.events, crop=True).mode == "P"
