"""Stalin's Tanks pictures: structure and secrets, not golden images."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from adjudicator.tanks.data import load_pack
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.last_action import LastAction
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


def _assert_counters_inside(view: TanksView) -> int:
    """Every drawn counter's corner pixels lie inside its hex, and a counter was drawn there;
    returns the size of the largest stack."""
    pack = load_pack()
    st = tanks.build_static(pack)
    boxes = tanks.counter_boxes(view, pack)
    per_hex: dict[str, int] = {}
    for u in view.units:
        if u.status == "on" and u.hex and not u.carrier:
            per_hex[u.hex] = per_hex.get(u.hex, 0) + 1
    assert boxes
    image = tanks.draw(view, pack)
    for u in view.units:
        if u.id not in boxes:
            continue
        assert u.hex is not None
        (cx, cy), size = boxes[u.id]
        hexagon = tanks.hex_corners(tanks.centre(st.origin, st.radius, u.hex), st.radius)
        left, top = cx - size / 2, cy - size / 2
        assert left == round(left) and top == round(top)  # whole pixels: the pasted box
        for x, y in ((left, top), (left + size - 1, top), (left, top + size - 1),
                     (left + size - 1, top + size - 1)):
            assert point_in_polygon(x + 0.5, y + 0.5, hexagon), (u.id, u.hex, size)
        colours = image.crop((round(left), round(top), round(left) + size,
                              round(top) + size)).histogram()
        assert colours[st.palette[u.side]] + colours[st.palette["hidden_fill"]] > size * 2
    # the counters of a stack are all drawn, up to MAX_SHOWN of them
    drawn = {h: sum(1 for u in view.units if u.id in boxes and u.hex == h) for h in per_hex}
    assert all(drawn[h] == min(n, tanks.MAX_SHOWN) for h, n in per_hex.items()
               if n and drawn[h]), (drawn, per_hex)
    return max(per_hex.values())


def test_counters_lie_inside_their_hex(game: TanksGame) -> None:
    steps = random_game(game, "first-encounter", 30, 2)
    _assert_counters_inside(view_of(game, steps[-1].state, "gm"))


def test_stacked_counters_fit_inside_their_hex(game: TanksGame) -> None:
    view = view_of(game, game.setup("kursk-counterattack"), "gm")
    # stacks of 2 to 6 in a few hexes (a hill, a wood, the map's edge)
    units = [u for u in view.units if u.status != "setup"][:20]
    assert len(units) == 20
    hexes = ["0101", "1206", "1207", "2410", "0915"]
    moved = []
    i = 0
    for n, h in zip((2, 3, 4, 5, 6), hexes, strict=True):
        for u in units[i:i + n]:
            moved.append(u.model_copy(update={"status": "on", "hex": h, "carrier": None}))
        i += n
    stacked = view.model_copy(update={"units": moved})
    assert _assert_counters_inside(stacked) == 6
    # a bigger stack shows its count, and smaller counters than a lone unit's
    pack = load_pack()
    boxes = tanks.counter_boxes(stacked, pack)
    sizes = {u.hex: boxes[u.id][1] for u in moved if u.id in boxes}
    assert sizes["0101"] > sizes["1206"] >= sizes["0915"]
    assert tanks.stack_layout(26, 31, 1)[0] == 31  # a lone counter keeps its full size


@pytest.mark.parametrize(("scenario", "seed"), [("pakfront", 5), ("kursk-salient", 5)])
def test_secrets_only_in_the_owner_and_gm_pictures(game: TanksGame, scenario: str,
                                                   seed: int) -> None:
    pack = load_pack()
    st = tanks.build_static(pack)
    step = secret_step(game, scenario, seed)
    gm = view_of(game, step.state, "gm")
    public_view = view_of(game, step.state, "public")
    public = tanks.draw(public_view, pack)
    secret_indices = st.palette.secret_indices
    assert not uses_any(public, secret_indices)
    owners = {u.side for u in gm.units if u.hidden and u.status == "on"}
    owners |= {owner for h, owner in gm.mines.items() if h not in public_view.mines}
    assert owners
    for side in ("german", "soviet"):
        mine = tanks.draw(view_of(game, step.state, side), pack)
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
    assert uses_any(tanks.draw(gm, pack), secret_indices)


def _hex_box(st: tanks.Static, name: str) -> tuple[int, int, int, int]:
    cx, cy = tanks.centre(st.origin, st.radius, name)
    r = st.radius
    return (int(cx - r * 1.6), int(cy - r * 1.6), int(cx + r * 1.6) + 1, int(cy + r * 1.6) + 1)


def test_same_view_same_bytes(game: TanksGame) -> None:
    steps = random_game(game, "kursk-salient", 30, 8)
    view = view_of(game, steps[-1].state, "soviet")
    assert tanks.render(view) == tanks.render(
        view)


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
    hl = view.last_action
    assert hl is not None and hl.shot is not None
    assert hl.shot.from_ and hl.shot.to and hl.shot.text
    fire = [e for e in shot.events if e.kind == "fire"][-1]
    assert ("HIT" in hl.shot.text) == bool(fire.data["hit"])
    bare = view.model_copy(update={"last_action": None})  # the View carries the last action
    assert tanks.draw(view).tobytes() != tanks.draw(bare).tobytes()


@pytest.mark.parametrize("every_viewer", [False, pytest.param(True, marks=pytest.mark.soak)])
def test_every_view_of_a_random_legal_game_renders(game: TanksGame, every_viewer: bool) -> None:
    """Every position of three random games renders, in turn for each viewer (for every
    viewer in the soak stage), and so does its crop."""
    viewers = ("public", "german", "soviet", "gm")
    for scenario, seed in (("kursk-counterattack", 3), ("gauntlet", 6), ("high-ground", 1)):
        steps = random_game(game, scenario, 30, seed)
        assert len(steps) > 10
        for number, step in enumerate(steps):
            for viewer in viewers if every_viewer else viewers[number % 4:number % 4 + 1]:
                view = view_of(game, step.state, viewer)
                assert tanks.render(view).startswith(PNG)
            assert tanks.draw(view, crop=True).mode == "P"


def test_the_owners_revealed_mines_are_drawn_as_revealed(game: TanksGame) -> None:
    pack = load_pack()
    st = tanks.build_static(pack)
    step = secret_step(game, "kursk-salient", 5)
    gm = view_of(game, step.state, "gm")
    public = view_of(game, step.state, "public")
    secret = sorted(set(gm.mines) - set(public.mines))
    assert secret
    h = secret[0]
    owner = gm.mines[h]
    mine = view_of(game, step.state, owner)
    # the mine in h is revealed: everyone knows it now (19.0)
    known = {**mine.known_mines, h: owner}
    revealed = mine.model_copy(update={"known_mines": known})
    public_now = public.model_copy(update={"mines": {**public.mines, h: owner},
                                           "known_mines": {**public.known_mines, h: owner}})
    box = _hex_box(st, h)
    secret_colours = st.palette.secret_indices
    assert uses_any(tanks.draw(mine, pack).crop(box), secret_colours)
    owner_picture = tanks.draw(revealed, pack)
    public_picture = tanks.draw(public_now, pack)
    assert not uses_any(public_picture, secret_colours)
    # h is drawn as in the public picture; what differs lies in the owner's other secrets
    diff = ImageChops.difference(public_picture.convert("L"), owner_picture.convert("L"))
    assert diff.crop(box).getbbox() is None or any(
        u.hex == h and (u.hidden or u.concealed) for u in revealed.units)
    others = [_hex_box(st, x) for x, o in revealed.mines.items() if o == owner and x not in known]
    others += [_hex_box(st, u.hex) for u in revealed.units
               if u.hex and u.status == "on" and (u.hidden or u.concealed)]
    mask = Image.new("L", diff.size, 255)
    for b in [st.viewer_box, *others]:
        mask.paste(0, b)
    assert ImageChops.multiply(diff.point(lambda v: 255 if v else 0), mask).getbbox() is None


def test_the_shot_line_runs_between_the_real_hexes(game: TanksGame) -> None:
    pack = load_pack()
    st = tanks.build_static(pack)
    view = view_of(game, game.setup("kursk-counterattack"), "public")
    # the target is gone (destroyed): the View still knows both ends of the shot
    shot = LastAction.model_validate(
        {"shot": {"from": ["0805"], "to": "1108", "hit": True, "destroyed": True,
                  "disrupted": False, "text": "HIT - destroyed", "firers": ["x"],
                  "target": "y", "mode": "at"}})
    assert not any(u.hex in ("0805", "1108") for u in view.units if u.status == "on")
    image = tanks.draw(view.model_copy(update={"last_action": shot}), pack)
    a = tanks.centre(st.origin, st.radius, "0805")
    b = tanks.centre(st.origin, st.radius, "1108")
    along = [image.getpixel((round(a[0] + (b[0] - a[0]) * t / 10),
                             round(a[1] + (b[1] - a[1]) * t / 10))) for t in range(2, 9)]
    assert sum(p in (st.palette["los_hit"], st.palette["white"]) for p in along) >= 6
    # and in a played game, the line starts at the firers' hexes of the fire event
    for seed in (1, 2, 3):
        for step in random_game(game, "first-encounter", 80, seed):
            fires = [e for e in step.events if e.kind == "fire" and e.data.get("target_hex")]
            if fires:
                played = view_of(game, step.state, "public").last_action
                assert played is not None and played.shot is not None
                assert played.shot.from_ == fires[-1].data["firer_hexes"]
                assert played.shot.to == fires[-1].data["target_hex"]
                return
    raise AssertionError("no shot in the seeded games")
