"""The picture of a set-up under way (4.0): the side's set-up zone outlined for everyone
(scenario rules), what is placed there as each viewer may see it — hidden units (20.0) and
written mines (19.1) in the owner's picture only."""

from __future__ import annotations

from PIL import ImageChops, ImageDraw

from adjudicator.kernel.dice import CommittedDice
from adjudicator.tanks.data import load_pack
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.state import TanksState
from adjudicator.tanks.views import TanksView
from render import tanks
from render.common import uses_any

GAME = TanksGame()


def after(scenario: str, side: str, *orders: str) -> TanksState:
    state = GAME.setup(scenario)
    for text in orders:
        state = GAME.apply_text(state, side, text, CommittedDice(b"\x03" * 32, "zone")).state
    return state


def view(state: TanksState, viewer: str) -> TanksView:
    found = GAME.view(state, viewer)
    assert isinstance(found, TanksView)
    return found


def test_the_set_up_zone_is_outlined_for_every_viewer_4_0() -> None:
    state = after("kursk-salient", "soviet", "place su76-1 1213 face N")
    public = view(state, "public")
    zone = public.setup_zone["soviet"]
    assert "1213" in zone and "1212" not in zone  # rows 13-26 only (25.3's zone)
    assert view(state, "soviet").setup_zone == public.setup_zone
    pack = load_pack()
    st = tanks.build_static(pack)
    plain = tanks.draw(public.model_copy(update={"setup_zone": {}}), pack)
    outlined = tanks.draw(public, pack)
    diff = ImageChops.difference(plain.convert("L"), outlined.convert("L"))
    cx, cy = tanks.centre(st.origin, st.radius, "2020")  # an empty hex of the zone
    r = st.radius
    assert diff.crop((int(cx - r), int(cy - r), int(cx + r), int(cy + r))).getbbox()
    cx, cy = tanks.centre(st.origin, st.radius, "0505")  # outside it
    assert not diff.crop((int(cx - r / 2), int(cy - r / 2), int(cx + r / 2),
                          int(cy + r / 2))).getbbox()
    hidden = ["pak75-1", "pak75-2", "flak88-1", "flak88-2", "pak88-1", "pak88-2",
              *(f"infde-{n}" for n in range(5, 10))]
    done = after("pakfront", "german",
                 *(f"hide {u} {c:02d}20" for u, c in zip(hidden, range(3, 30, 2),
                                                         strict=False)),
                 *(f"place infde-{n} {c:02d}22" for n, c in zip(range(1, 5), range(3, 30, 4),
                                                                strict=False)), "done")
    assert done.phase != "setup"
    assert view(done, "public").setup_zone == {}  # the zone goes once the set-up is over


def test_what_is_placed_in_secret_is_in_the_owners_picture_only_20_0_19_1() -> None:
    state = after("pakfront", "german", "hide pak88-1 0505", "place infde-1 1112")
    pack = load_pack()
    st = tanks.build_static(pack)
    secret = st.palette.secret_indices
    owner = view(state, "german")
    assert any(u.id == "pak88-1" and u.hidden for u in owner.units)
    assert uses_any(tanks.draw(owner, pack), secret)
    for other in ("public", "soviet"):
        seen = view(state, other)
        assert not any(u.id == "pak88-1" for u in seen.units)
        assert not uses_any(tanks.draw(seen, pack), secret)
    mined = after("kursk-salient", "soviet", "mine 1418")
    assert uses_any(tanks.draw(view(mined, "soviet"), pack), secret)
    assert not uses_any(tanks.draw(view(mined, "german"), pack), secret)


SET_UPS = [("kursk-salient", "soviet", ("place su76-1 1213 face N", "mine 1418")),
           ("pakfront", "german", ("hide pak88-1 0505", "place infde-1 1112")),
           ("pakfront", "german", ("place infde-1 0303",))]


def test_the_zone_outline_is_each_hexs_outline_drawn_on_the_picture_4_0() -> None:
    """The zone's outline, kept as one mask per zone, is what drawing each hex's outline on
    the picture makes, at the whole map's scale and the zoom's."""
    pack = load_pack()
    zones = [(scenario, side, zone) for scenario in GAME.scenarios()
             for side, zone in view(GAME.setup(scenario), "public").setup_zone.items()]
    assert len(zones) >= 5
    for scenario, side, zone in zones:
        for radius in (tanks.DEFAULT_RADIUS, tanks.CROP_RADIUS):
            st = tanks.build_static(pack, radius)
            drawn = st.base.copy()
            draw = ImageDraw.Draw(drawn)
            for h in zone:
                draw.polygon(tanks.hex_corners(tanks.centre(st.origin, radius, h), radius * 0.86),
                             outline=st.palette[side], width=max(2, radius // 9))
            pasted = st.base.copy()
            pasted.paste(st.palette[side], (0, 0, *st.size), tanks.zone_outline(st, zone))
            assert pasted.tobytes() == drawn.tobytes(), (scenario, radius)


def test_the_zoom_on_a_set_up_is_the_whole_picture_cut_out_4_0() -> None:
    """The posted zoom of a set-up is the whole picture at the zoom's scale, cut out at its
    window, with its caption: the zone's hexes that the window cuts are outlined as on the
    whole map (drawn on the cut-out, they were clipped at its edges)."""
    pack = load_pack()
    st = tanks.build_static(pack, tanks.CROP_RADIUS)
    for scenario, side, orders in SET_UPS:
        state = after(scenario, side, *orders)
        for viewer in ("public", side, "gm"):
            seen = view(state, viewer)
            zoom = tanks.draw(seen, pack, crop=True)
            whole = tanks.draw(seen, pack, radius=tanks.CROP_RADIUS)
            cut = whole.crop(tanks.crop_box(seen, st, seen.last_action))
            cut.paste(st.sprites.tag(tanks.crop_caption(seen, seen.last_action),
                                     max(10, st.radius // 3), pad=4), (4, 4))
            assert zoom.tobytes() == cut.tobytes(), (scenario, viewer)
