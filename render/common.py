"""Shared drawing machinery: fonts, the palette, sprites and PNG encoding.

Every picture is a palette ("P") image. The static layers are drawn once in RGB with
anti-aliasing and quantised to a fixed palette; everything dynamic is either pasted from a
cached, already-quantised sprite (counters, tags, labels) or drawn straight onto the palette
image with palette indices (lines, arrows, outlines). Nothing is quantised per action, so an
action costs little more than copying the cached base and encoding the PNG.

Palette layout (256 entries):

* ``0 .. len(NAMED)-1`` — the named colours below (side colours, ink, highlights ...);
* then adaptive colours learnt from the game's static layer (terrain, tints, anti-aliased
  text edges);
* the last :data:`SECRET_SLOTS` entries — the *secret* colours used only for hidden units
  and minefields. Anything that is not a secret is quantised against a palette in which those
  entries are unusable, so a public picture can never contain a pixel with a secret index:
  tests check exactly that.

Fonts: Pillow's default scalable font (``ImageFont.load_default(size=...)``) only — no
system fonts, so the output is the same on every machine with the same Pillow.
"""

from __future__ import annotations

import io
import math
import threading
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

RGB = tuple[int, int, int]

#: Named colours. Side colours are the blue/orange pair readable with the common forms of
#: colour blindness; highlights use black, white and yellow.
NAMED: dict[str, RGB] = {
    "paper": (244, 240, 228),
    "panel": (236, 232, 220),
    "ink": (24, 24, 28),
    "white": (255, 255, 255),
    "grey": (128, 128, 128),
    "light_grey": (200, 200, 200),
    "dark_grey": (80, 80, 84),
    "german": (36, 92, 170),
    "german_light": (170, 196, 232),
    "german_spent": (196, 210, 230),
    "german_tint": (214, 226, 244),
    "russian": (222, 104, 30),
    "russian_light": (246, 196, 158),
    "russian_spent": (246, 222, 200),
    "russian_tint": (250, 228, 208),
    "vp_red": (200, 20, 30),
    "highlight": (255, 208, 0),
    "highlight_dark": (150, 110, 0),
    "attack": (190, 0, 60),
    "water": (120, 170, 215),
    "water_dark": (50, 100, 160),
    "east_bank": (214, 222, 200),
    "contested": (120, 0, 140),
    "rubble": (110, 90, 70),
    "rubble_light": (196, 180, 160),
    "supply": (20, 120, 50),
    "fresh": (30, 140, 60),
    "spent": (150, 150, 150),
    "duration": (255, 236, 120),
    "isolated": (150, 20, 20),
    "los_hit": (200, 0, 0),
    "los_miss": (60, 60, 60),
    "mine": (60, 60, 60),
    "setup_white": (250, 250, 250),
    "setup_grey": (160, 160, 160),
    "setup_purple": (150, 110, 190),
    "setup_orange": (240, 150, 60),
    "setup_yellow": (240, 220, 70),
    "setup_green": (110, 180, 90),
    "setup_brown": (160, 110, 70),
    "setup_pink": (240, 160, 190),
    "setup_tan": (215, 190, 140),
    "setup_red": (220, 60, 60),
    "setup_blue": (90, 140, 220),
    "setup_black": (40, 40, 40),
    "clear": (226, 232, 196),
    "hill1": (214, 190, 140),
    "hill2": (190, 160, 110),
    "woods": (96, 150, 80),
    "woods_dark": (50, 100, 50),
    "swamp": (170, 200, 180),
    "building": (150, 140, 135),
    "road": (150, 110, 70),
    "hexline": (180, 180, 150),
}

#: Other names for named colours (Stalin's Tanks calls the Russian side "soviet").
ALIASES = {"soviet": "russian", "soviet_light": "russian_light", "soviet_spent": "russian_spent",
           "soviet_tint": "russian_tint"}

#: Secret colours: only hidden units and minefields in an owner's or the GM's picture.
SECRETS: dict[str, RGB] = {
    "hidden": (160, 40, 220),
    "hidden_fill": (232, 208, 250),
    "hidden_ink": (90, 0, 140),
    "mine_secret": (200, 60, 240),
}
SECRET_SLOTS = len(SECRETS)
FIRST_SECRET = 256 - SECRET_SLOTS
#: Every secret index mapped to 0 (``Image.point``), every other kept.
_NO_SECRETS = [*range(FIRST_SECRET), *([0] * SECRET_SLOTS)]


class PlainFont(ImageFont.FreeTypeFont):
    """Pillow's default scalable font, writing every text through :func:`plain`, so no
    picture ever shows a missing-glyph box whatever string reaches it."""

    def getmask2(self, text: str | bytes, *args: Any, **kwargs: Any) -> Any:
        return super().getmask2(plain(text) if isinstance(text, str) else text, *args,
                                **kwargs)

    def getbbox(self, text: str | bytes | bytearray, *args: Any,
                **kwargs: Any) -> tuple[float, float, float, float]:
        return super().getbbox(plain(text) if isinstance(text, str) else text, *args,
                               **kwargs)

    def getlength(self, text: str | bytes, *args: Any, **kwargs: Any) -> float:
        return super().getlength(plain(text) if isinstance(text, str) else text, *args,
                                 **kwargs)


@lru_cache(maxsize=64)
def _default_font(size: int) -> ImageFont.FreeTypeFont:
    loaded = ImageFont.load_default(size=size)
    assert isinstance(loaded, ImageFont.FreeTypeFont), "Pillow without FreeType"
    return loaded


@lru_cache(maxsize=64)
def font(size: int) -> PlainFont:
    """Pillow's default scalable font at ``size`` pixels (see :class:`PlainFont`)."""
    base = _default_font(max(6, int(size)))
    return PlainFont(io.BytesIO(base.font_bytes), base.size, layout_engine=base.layout_engine)


#: The characters the pictures' texts use that the font lacks, and what is written instead.
_PLAIN = str.maketrans({"—": "-", "–": "-", "→": ">", "←": "<", "×": "x", "⚔": "X",
                        "≤": "<=", "≥": ">=", "−": "-", "•": "."})
_GLYPH_SIZE = 20


def _signature(ch: str) -> tuple[tuple[int, int], bytes]:
    mask = _default_font(_GLYPH_SIZE).getmask(ch)
    return mask.size, bytes(mask)


@lru_cache(maxsize=4096)
def has_glyph(ch: str) -> bool:
    """Whether the default font draws ``ch`` (not its missing-glyph box)."""
    if ch.isascii():
        return ch.isprintable() or ch in " \n"
    return _signature(ch) != _signature("\ue000")  # a private-use character: never there


def plain(text: str) -> str:
    """``text`` in the characters the default font has (basic Latin and a little more):
    dashes and arrows as "-" and ">", accented letters without their accents (é -> e), and
    anything else the font lacks as "?"."""
    text = text.translate(_PLAIN)
    if text.isascii():
        return text
    out = []
    for ch in text:
        if has_glyph(ch):
            out.append(ch)
            continue
        bare = "".join(c for c in unicodedata.normalize("NFD", ch)
                       if not unicodedata.combining(c))
        out.append(bare if bare != ch and all(has_glyph(b) for b in bare) else "?")
    return "".join(out)


def text_size(text: str, size: int) -> tuple[int, int]:
    """The pixel size of ``text`` at ``size`` (:func:`text_box`)."""
    left, top, right, bottom = text_box(plain(text), size)
    return int(right - left), int(bottom - top)


@lru_cache(maxsize=8192)
def text_box(text: str, size: int) -> tuple[float, float, float, float]:
    """The ink box of ``text`` (in the font's characters: :func:`plain`) at ``size``, kept:
    the same texts are measured for every picture, and a text wrapped (measured) is then
    drawn (:meth:`SpriteCache.tag`), which measures it again."""
    left, top, right, bottom = font(size).getbbox(text)
    return left, top, right, bottom


def rgb(name: str) -> RGB:
    name = ALIASES.get(name, name)
    if name in NAMED:
        return NAMED[name]
    return SECRETS[name]


def blend(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t),
            round(a[2] + (b[2] - a[2]) * t))


@dataclass
class Palette:
    """The 256-colour palette of one game's pictures; see the module docstring."""

    colours: list[RGB]
    index: dict[str, int] = field(default_factory=dict)

    @classmethod
    def build(cls, reference: Image.Image | None = None) -> Palette:
        colours: list[RGB] = list(NAMED.values())
        index = {name: i for i, name in enumerate(NAMED)}
        room = FIRST_SECRET - len(colours)
        if reference is not None and room > 0:
            learnt = reference.convert("RGB").quantize(
                room, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
            raw = learnt.getpalette() or []
            hist = learnt.histogram()
            used = [i for i in range(room) if hist[i]]
            seen = set(colours)
            for i in used:
                c = (raw[3 * i], raw[3 * i + 1], raw[3 * i + 2])
                if c not in seen and len(colours) < FIRST_SECRET:
                    colours.append(c)
                    seen.add(c)
        while len(colours) < FIRST_SECRET:
            colours.append(colours[0])
        for name, colour in SECRETS.items():
            index[name] = len(colours)
            colours.append(colour)
        return cls(colours, index)

    def __getitem__(self, name: str) -> int:
        return self.index[ALIASES.get(name, name)]

    def flat(self) -> list[int]:
        return [v for c in self.colours for v in c]

    @property
    def secret_indices(self) -> range:
        return range(FIRST_SECRET, 256)

    def _image(self, secrets: bool) -> Image.Image:
        """The palette to quantise against (kept: read only)."""
        made: dict[bool, Image.Image] = self.__dict__.setdefault("_images", {})
        pal = made.get(secrets)
        if pal is None:
            colours = list(self.colours)
            if not secrets:
                # make the secret entries unreachable: duplicates of entry 0, remapped below
                colours[FIRST_SECRET:] = [colours[0]] * SECRET_SLOTS
            pal = made[secrets] = Image.new("P", (1, 1))
            pal.putpalette(bytes(v for c in colours for v in c))
        return pal

    @cached_property
    def flat_bytes(self) -> bytes:
        """:meth:`flat` as bytes (what ``putpalette`` takes without converting)."""
        return bytes(self.flat())

    def quantize(self, image: Image.Image, *, secrets: bool = False) -> Image.Image:
        """``image`` (RGB) as a P image on this palette, without dithering.

        With ``secrets`` False the result never uses a secret index."""
        out = image.convert("RGB").quantize(palette=self._image(secrets),
                                           dither=Image.Dither.NONE)
        # a secret entry (a duplicate of entry 0) may have been nearest: remap it; an image
        # using none is left as it is (the remap's table is built in Python on every call)
        if not secrets and not _below(out, FIRST_SECRET):
            out = out.point(_NO_SECRETS)
        out.putpalette(self.flat_bytes)
        return out

    def new(self, size: tuple[int, int], colour: str = "paper") -> Image.Image:
        im = Image.new("P", size, self[colour])
        im.putpalette(self.flat_bytes)
        return im


def _below(image: Image.Image, index: int) -> bool:
    """Whether every pixel of a P image has an index below ``index``."""
    highest = image.getextrema()[1]
    return isinstance(highest, int) and highest < index


def encode_png(image: Image.Image, level: int = 5) -> bytes:
    """PNG bytes of a P image: deterministic (no timestamps, fixed zlib level).

    Level 5: on these flat-coloured maps it is about as fast as level 3 and 15% smaller."""
    buf = io.BytesIO()
    image.save(buf, "PNG", compress_level=level)
    return buf.getvalue()


def optional(model: Any, name: str, default: Any = None) -> Any:
    """A View field that may not exist yet (read without pydantic's slow miss path)."""
    value = model.__dict__.get(name, default)
    if value is default:
        extra = getattr(model, "__pydantic_extra__", None) or {}
        value = extra.get(name, default)
    return value


# ---- sprites --------------------------------------------------------------------------------


class SpriteCache:
    """Quantised sprites keyed by what they show; bounded, per palette."""

    def __init__(self, palette: Palette, limit: int = 4096) -> None:
        self.palette = palette
        self.limit = limit
        self._items: dict[object, Image.Image] = {}
        #: sprites built ahead at start-up (:meth:`get` with ``keep``): never dropped, so
        #: the texts and faces a post makes cannot push them out when the cache fills
        self._kept: dict[object, Image.Image] = {}

    def get(self, key: object, build: object, *, keep: bool = False) -> Image.Image:
        item = self._items.get(key)
        if item is None:
            item = self._kept.get(key)
        if item is None:
            assert callable(build)
            rgb_image = build()
            secret = isinstance(key, tuple) and bool(key) and key[0] == "secret"
            item = self.palette.quantize(rgb_image, secrets=secret)
            if keep:
                self._kept[key] = item
                return item
            if len(self._items) >= self.limit:
                self._items.clear()
            self._items[key] = item
        return item

    def tag(self, text: str, size: int, fg: str = "ink", bg: str = "white",
            border: str | None = "ink", pad: int = 2) -> Image.Image:
        """A text label on an opaque box."""
        text = plain(text)

        def build() -> Image.Image:
            f = font(size)
            left, top, right, bottom = text_box(text, size)  # text_size's measure, kept
            w, h = int(right - left), int(bottom - top)
            im = Image.new("RGB", (w + 2 * pad + 2, h + 2 * pad + 2), rgb(bg))
            d = ImageDraw.Draw(im)
            d.text((pad + 1 - left, pad + 1 - top), text, font=f, fill=rgb(fg))
            if border is not None:
                d.rectangle((0, 0, im.width - 1, im.height - 1), outline=rgb(border))
            return im
        return self.get(("tag", text, size, fg, bg, border, pad), build)


def paste_centred(target: Image.Image, sprite: Image.Image, x: float, y: float,
                  mask: Image.Image | None = None) -> tuple[int, int, int, int]:
    left = round(x - sprite.width / 2)
    top = round(y - sprite.height / 2)
    target.paste(sprite, (left, top), mask)
    return (left, top, left + sprite.width, top + sprite.height)


# ---- geometry ----------------------------------------------------------------------------------


def point_in_polygon(x: float, y: float, poly: Sequence[tuple[float, float]]) -> bool:
    inside = False
    n = len(poly)
    j = n - 1
    for i in range(n):
        xi, yi = poly[i]
        xj, yj = poly[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            inside = not inside
        j = i
    return inside


def distance_to_polygon_edge(x: float, y: float, poly: Sequence[tuple[float, float]]) -> float:
    best = math.inf
    n = len(poly)
    for i in range(n):
        ax, ay = poly[i]
        bx, by = poly[(i + 1) % n]
        dx, dy = bx - ax, by - ay
        length2 = dx * dx + dy * dy
        t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy)
                                                  / length2))
        px, py = ax + t * dx, ay + t * dy
        best = min(best, math.hypot(x - px, y - py))
    return best


def centroid(poly: Sequence[tuple[float, float]]) -> tuple[float, float]:
    area = cx = cy = 0.0
    n = len(poly)
    for i in range(n):
        x0, y0 = poly[i]
        x1, y1 = poly[(i + 1) % n]
        cross = x0 * y1 - x1 * y0
        area += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    if abs(area) < 1e-9:
        xs = [p[0] for p in poly]
        ys = [p[1] for p in poly]
        return (sum(xs) / n, sum(ys) / n)
    area *= 0.5
    return (cx / (6 * area), cy / (6 * area))


def arrow(draw: ImageDraw.ImageDraw, points: Sequence[tuple[float, float]], fill: int,
          width: int, head: float, outline: int | None = None) -> None:
    """A polyline with an arrowhead at its last point, drawn with palette indices."""
    pts = [(round(x), round(y)) for x, y in points]
    if len(pts) < 2:
        return
    (x0, y0), (x1, y1) = pts[-2], pts[-1]
    angle = math.atan2(y1 - y0, x1 - x0)
    base = (x1 - head * math.cos(angle), y1 - head * math.sin(angle))
    left = (base[0] + head * 0.55 * math.sin(angle), base[1] - head * 0.55 * math.cos(angle))
    right = (base[0] - head * 0.55 * math.sin(angle), base[1] + head * 0.55 * math.cos(angle))
    shaft = [*pts[:-1], (round(base[0]), round(base[1]))]
    if outline is not None:
        draw.line(shaft, fill=outline, width=width + 2, joint="curve")
        draw.polygon([(x1, y1), left, right], fill=outline)
    draw.line(shaft, fill=fill, width=width, joint="curve")
    draw.polygon([(x1, y1), left, right], fill=fill, outline=outline)


_scratch = threading.local()


def outline_polygon(canvas: Image.Image, draw: ImageDraw.ImageDraw,
                    xy: Sequence[tuple[float, float]], ink: int, width: int) -> None:
    """``draw.polygon(xy, outline=ink, width=width)``, the same pixels, without a mask of
    the whole canvas made and thrown away for each polygon: a kept blank mask per thread
    and size gets the polygon, lends it to the outline and is blanked again (the same
    polygon filled with 0 clears exactly the pixels it set)."""
    if width <= 1:
        draw.polygon(xy, outline=ink, width=width)
        return
    masks: dict[tuple[int, int], Image.Image] = _scratch.__dict__.setdefault("masks", {})
    mask = masks.get(canvas.size)
    if mask is None:
        if len(masks) >= 4:
            masks.clear()
        mask = masks[canvas.size] = Image.new("1", canvas.size)
    pen = ImageDraw.Draw(mask)
    pen.polygon(xy, fill=1)
    try:
        draw.draw.draw_polygon(xy, draw.draw.draw_ink(ink), 0, width * 2 - 1, mask.im)
    finally:
        pen.polygon(xy, fill=0)


def dashed_line(draw: ImageDraw.ImageDraw, a: tuple[float, float], b: tuple[float, float],
                fill: int, width: int, dash: float = 6.0, gap: float = 4.0) -> None:
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    if length == 0:
        return
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    t = 0.0
    while t < length:
        e = min(length, t + dash)
        draw.line([(a[0] + ux * t, a[1] + uy * t), (a[0] + ux * e, a[1] + uy * e)],
                  fill=fill, width=width)
        t = e + gap


def wrap(text: str, size: int, width: int) -> list[str]:
    """Greedy word wrap to ``width`` pixels: each line takes words while it fits (one word
    at least). A line's width only grows with each word added (its ink box holds the box
    of every shorter run), so the longest run that fits is found by halving, a few
    measures a line instead of one a word (text measured anew costs a FreeType layout)."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        words = paragraph.split()
        start = 0
        while True:
            fits, over = start + 1, len(words) + 1  # words[start:fits] is taken
            if over - fits > 1 and text_size(" ".join(words[start:over - 1]), size)[0] <= width:
                fits = over - 1  # the rest fits: the usual case
            while over - fits > 1:
                middle = (fits + over) // 2
                if text_size(" ".join(words[start:middle]), size)[0] > width:
                    over = middle
                else:
                    fits = middle
            lines.append(" ".join(words[start:fits]))
            start = fits
            if start >= len(words):
                break
    return lines


def uses_any(image: Image.Image, indices: Iterable[int]) -> bool:
    """Whether a P image has any pixel with one of ``indices``."""
    hist = image.histogram()
    return any(hist[i] for i in indices)
