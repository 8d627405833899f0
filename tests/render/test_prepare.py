"""Static picture layers are built ahead of the first picture when a frontend asks
(``render.prepare``, called by the Discord bot at start-up): afterwards no picture the bot
posts builds one."""

from __future__ import annotations

import pytest

import render
from adjudicator.registry import load_game
from bot.discord.app import prepare_pictures
from render import static_cache, tanks


@pytest.mark.parametrize(("game", "crops"), [("stalingrad", (True, False)),
                                             ("tanks", (True, False))])
def test_prepared_layers_serve_every_posted_picture(game: str, crops: tuple[bool, ...]) -> None:
    static_cache.clear()
    render.prepare(game)
    built = static_cache.stats["builds"]
    rules = load_game(game)
    view = rules.view(rules.setup(), "public")
    pack = render.load_pack(game)
    for crop in crops:
        render.draw(view, pack, crop=crop)
    assert static_cache.stats["builds"] == built


def test_games_without_pictures_are_skipped() -> None:
    render.prepare("tests.kernel.duel:DuelGame")
    prepare_pictures(["tests.kernel.duel:DuelGame", "no-such-game"])


def test_every_scenarios_set_up_is_drawn_at_start_up() -> None:
    """A set-up's first picture does not outline its zone (4.0) for the first time: the bot
    draws every scenario's set-up when it starts."""
    static_cache.clear()
    prepare_pictures(["tanks"])
    pack = render.load_pack("tanks")
    layers = [tanks.build_static(pack, radius)
              for radius in (tanks.DEFAULT_RADIUS, tanks.CROP_RADIUS)]
    kept = [dict(st.zones) for st in layers]
    rules = load_game("tanks")
    for scenario in rules.scenarios():
        view = rules.view(rules.setup(scenario), "public")
        for crop in (True, False):
            render.draw(view, pack, crop=crop)
    assert [dict(st.zones) for st in layers] == kept
    assert sum(len(zones) for zones in kept) >= 6  # three distinct zones, two scales
