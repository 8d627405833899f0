"""Animated replays: a sequence of Views -> an animated GIF (or APNG), one frame per step.

A *step* is an impulse in Turning Point: Stalingrad (date, day/night, impulse box, side) and
a phase in Stalin's Tanks (turn, phasing side, phase). :func:`frames_by_step` keeps the last
View of each step and joins the orders of the step into its caption; :func:`animate` draws
each frame at a small scale with a caption strip (date and what happened) and encodes them.
All frames of one game share one palette, so the GIF needs no per-frame quantisation and the
bytes are deterministic.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from adjudicator.kernel.views import View
from render.common import font, plain, wrap

STALINGRAD_SCALE = 22
TANKS_RADIUS = 14


@dataclass
class Frame:
    view: View
    caption: str = ""


def step_key(view: View) -> tuple[Any, ...]:
    """What identifies an impulse (TP:S) or a phase (Stalin's Tanks)."""
    if view.game == "stalingrad":
        return tuple(getattr(view, k, None) for k in ("phase", "date", "day", "box", "turn"))
    if view.game == "tanks":
        return tuple(getattr(view, k, None) for k in ("turn", "phasing", "phase"))
    return (view.to_act,)


def frames_by_step(items: Iterable[Frame]) -> list[Frame]:
    """One frame per step: the step's last View, its orders joined in the caption.

    The step's last View carries the last action, so the highlight shows how the step ended
    (the last move, attack or shot)."""
    out: list[Frame] = []
    key: tuple[Any, ...] | None = None
    captions: list[str] = []
    last: Frame | None = None
    for item in items:
        k = step_key(item.view)
        if last is not None and k != key:
            out.append(Frame(last.view, "; ".join(c for c in captions if c)))
            captions = []
        key = k
        captions.append(item.caption)
        last = item
    if last is not None:
        out.append(Frame(last.view, "; ".join(c for c in captions if c)))
    return out


def heading(view: View) -> str:
    if view.game == "stalingrad":
        label = getattr(view, "date_label", "")
        day = "day" if getattr(view, "day", True) else "night"
        return f"{label} {getattr(view, 'year', '')}, {day}, impulse box {getattr(view, 'box', '')}"
    if view.game == "tanks":
        return (f"turn {getattr(view, 'turn', '')}/{getattr(view, 'last_turn', '')}, "
                f"{getattr(view, 'phasing', '')}, {getattr(view, 'phase', '')}")
    return ""


def frame_image(frame: Frame, pack: Any = None) -> Image.Image:
    """One frame: the small map with a caption strip underneath."""
    if frame.view.game == "stalingrad":
        from adjudicator.stalingrad.views import StalingradView
        from render import stalingrad

        assert isinstance(frame.view, StalingradView)
        im = stalingrad.draw(frame.view, pack, scale=STALINGRAD_SCALE)
    elif frame.view.game == "tanks":
        from adjudicator.tanks.views import TanksView
        from render import tanks

        assert isinstance(frame.view, TanksView)
        im = tanks.draw(frame.view, pack, radius=TANKS_RADIUS)
    else:
        from render import NoPicture

        raise NoPicture(f"no map picture for the game {frame.view.game!r}")
    size = 13
    text = plain(f"{heading(frame.view)}: {frame.caption}" if frame.caption
                 else heading(frame.view))
    lines = wrap(text, size, im.width - 12)[:3]
    strip = (size + 4) * len(lines) + 10
    out = Image.new("P", (im.width, im.height + strip), 0)
    out.putpalette(im.getpalette() or [])
    out.paste(im, (0, 0))
    d = ImageDraw.Draw(out)
    ink = _index(im, (24, 24, 28))
    paper = _index(im, (255, 255, 255))
    d.rectangle((0, im.height, im.width, im.height + strip), fill=paper)
    for i, line in enumerate(lines):
        d.text((6, im.height + 5 + i * (size + 4)), line, font=font(size), fill=ink)
    return out


def _index(im: Image.Image, colour: tuple[int, int, int]) -> int:
    pal = im.getpalette() or []
    for i in range(len(pal) // 3):
        if tuple(pal[3 * i:3 * i + 3]) == colour:
            return i
    return 0


def animate(frames: Sequence[Frame], pack: Any = None, *, fmt: str = "gif",
            duration_ms: int = 1200, last_ms: int = 4000) -> bytes:
    """An animated GIF (``fmt="gif"``) or APNG (``"png"``) of ``frames``."""
    if not frames:
        raise ValueError("no frames to animate")
    images = [frame_image(f, pack) for f in frames]
    width = max(im.width for im in images)
    height = max(im.height for im in images)
    fitted = []
    for im in images:
        if im.size != (width, height):
            canvas = Image.new("P", (width, height), _index(im, (255, 255, 255)))
            canvas.putpalette(im.getpalette() or [])
            canvas.paste(im, (0, 0))
            im = canvas
        fitted.append(im)
    durations = [duration_ms] * (len(fitted) - 1) + [last_ms]
    buf = io.BytesIO()
    if fmt == "gif":
        fitted[0].save(buf, "GIF", save_all=True, append_images=fitted[1:], duration=durations,
                       loop=0, optimize=False, disposal=1)
    elif fmt in ("png", "apng"):
        fitted[0].save(buf, "PNG", save_all=True, append_images=fitted[1:],
                       duration=durations, loop=0, compress_level=6)
    else:
        raise ValueError(f"unknown format {fmt!r}; use gif or png")
    return buf.getvalue()

