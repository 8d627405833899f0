"""Every text in a picture is written in characters the default font has: no missing-glyph
box, whatever string a game produces (dashes, arrows, accents, symbols)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PIL import ImageDraw

from adjudicator.stalingrad.game import StalingradGame
from adjudicator.tanks.game import TanksGame
from render import stalingrad as tps
from render import static_cache, tanks
from render.common import PlainFont, font, has_glyph, plain
from render.replay import Frame, animate
from tests.render.games import random_game

ODD = "Pérez — 5 VP → ×2 ≥ 3 ☃ ½ Ä"


def test_plain_maps_what_the_font_lacks() -> None:
    assert not has_glyph("—") and not has_glyph("é") and not has_glyph("☃")
    assert has_glyph("a") and has_glyph("-") and has_glyph(" ")
    assert plain(ODD) == "Perez - 5 VP > x2 >= 3 ? ? A"
    assert all(has_glyph(c) for c in plain(ODD))
    # the font writes through plain: a dash, not the missing-glyph box
    f = font(20)
    assert bytes(f.getmask("—")) == bytes(f.getmask("-"))
    assert f.getbbox("a — b") == f.getbbox("a - b")


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, Any]]]:
    """Every text drawn (and the font it was drawn with) while the test runs."""
    seen: list[tuple[str, Any]] = []
    original = ImageDraw.ImageDraw.text

    def text(self: ImageDraw.ImageDraw, xy: Any, text: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append((str(text), kwargs.get("font", args[1] if len(args) > 1 else None)))
        return original(self, xy, text, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", text)
    static_cache.clear()  # the static layers' texts too
    yield seen
    static_cache.clear()


def test_every_text_of_a_random_game_is_in_the_font(drawn: list[tuple[str, Any]]) -> None:
    frames = []
    for game, scenario, seed in ((StalingradGame(), "historical", 3),
                                 (TanksGame(), "kursk-salient", 5)):
        steps = random_game(game, scenario, 40, seed)
        for step in steps[::4] + steps[-1:]:
            for viewer in ("public", "gm", *game.sides):
                view = game.view(step.state, viewer)
                module: Any = tps if view.game == "stalingrad" else tanks
                module.draw(view)
                module.draw(view, crop=True)
            frames.append(Frame(game.view(step.state, "public"), f"{step.side}: {step.order}"))
        # a result, a caption and a decision with characters the font does not have
        odd = game.view(steps[-1].state, "gm").model_copy(update={"result": ODD})
        module = tps if odd.game == "stalingrad" else tanks
        module.draw(odd)
        animate([frames[-1], Frame(odd, ODD)])
    texts = [t for t, _ in drawn]
    assert any("VP" in t for t in texts) and any(plain(ODD)[:12] in t for t in texts)
    for text, used in drawn:
        assert isinstance(used, PlainFont), (text, used)
        missing = {c for c in plain(text) if not has_glyph(c)}
        assert not missing, (text, missing)
