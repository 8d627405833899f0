"""Unit-type symbols drawn inside a counter's symbol box (the usual map symbols).

``draw_symbol(draw, box, kind, colour, width)`` draws the frame and the symbol of ``kind``:

=================  ==========================================
infantry           a cross (X) corner to corner
armor / tank       an oval (track)
mech_infantry      cross + oval (panzergrenadier)
motorized          cross + two wheels under the frame
recon              one diagonal
armored_recon      oval + one diagonal
engineer           the bridge sign (a "E" laid on its side)
at                 an upward chevron
td                 chevron + oval
aa                 a dome on the bottom edge
artillery          a filled dot
mg                 two short bars
halftrack          oval + wheels
sp_gun             oval + dot
unknown            a question mark
=================  ==========================================
"""

from __future__ import annotations

from PIL import ImageDraw

from render.common import RGB, font

Box = tuple[float, float, float, float]

#: Stalingrad pack unit types -> symbol kinds.
TPS_SYMBOL = {
    "infantry": "infantry", "motorized_infantry": "motorized", "recon": "recon",
    "pioneer": "engineer", "engineer": "engineer", "tank": "armor",
    "panzergrenadier": "mech_infantry", "armored_recon": "armored_recon",
    "pak": "at", "td": "td", "atr": "at", "mg": "mg", "aa": "aa", "flak": "aa",
    "artillery": "artillery", "fag": "artillery", "luftwaffe": "air",
}
#: Engine kinds (when the pack does not know the unit, e.g. a conformance case's counter).
TPS_KIND_SYMBOL = {"armor": "armor", "infantry": "infantry", "at": "at", "aa": "aa",
                   "artillery": "artillery"}
#: Stalin's Tanks kinds -> symbol kinds.
TANKS_SYMBOL = {"tank": "armor", "sp_gun": "sp_gun", "at_gun": "at", "infantry": "infantry",
                "halftrack": "halftrack"}


def draw_symbol(draw: ImageDraw.ImageDraw, box: Box, kind: str, colour: RGB,
                width: int = 1, motorized: bool = False) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    draw.rectangle(box, outline=colour, width=width)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2

    def cross() -> None:
        draw.line([(x0, y0), (x1, y1)], fill=colour, width=width)
        draw.line([(x0, y1), (x1, y0)], fill=colour, width=width)

    def oval() -> None:
        draw.ellipse((x0 + w * 0.18, y0 + h * 0.22, x1 - w * 0.18, y1 - h * 0.22),
                     outline=colour, width=width)

    def slash() -> None:
        draw.line([(x0, y1), (x1, y0)], fill=colour, width=width)

    def wheels() -> None:
        r = max(1.5, h * 0.16)
        for fx in (0.3, 0.7):
            wx = x0 + w * fx
            draw.ellipse((wx - r, y1 + 1, wx + r, y1 + 1 + 2 * r), outline=colour, width=1)

    if kind == "infantry":
        cross()
    elif kind == "motorized":
        cross()
        wheels()
    elif kind == "mech_infantry":
        cross()
        oval()
    elif kind == "armor":
        oval()
    elif kind == "recon":
        slash()
    elif kind == "armored_recon":
        oval()
        slash()
    elif kind == "engineer":
        ey = cy + h * 0.05
        draw.line([(x0 + w * 0.22, ey), (x1 - w * 0.22, ey)], fill=colour, width=width)
        for fx in (0.22, 0.5, 0.78):
            ex = x0 + w * fx
            draw.line([(ex, ey), (ex, y1 - h * 0.18)], fill=colour, width=width)
        draw.line([(x0 + w * 0.22, ey), (x0 + w * 0.22, y0 + h * 0.22)], fill=colour,
                  width=width)
        draw.line([(x1 - w * 0.22, ey), (x1 - w * 0.22, y0 + h * 0.22)], fill=colour,
                  width=width)
    elif kind in ("at", "td"):
        draw.line([(x0, y1), (cx, y0), (x1, y1)], fill=colour, width=width)
        if kind == "td":
            oval()
    elif kind == "aa":
        draw.arc((x0 + w * 0.15, cy - h * 0.1, x1 - w * 0.15, y1 + h * 0.9), 180, 360,
                 fill=colour, width=width)
    elif kind == "artillery":
        r = min(w, h) * 0.22
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour)
    elif kind == "mg":
        for fy in (0.38, 0.62):
            draw.line([(x0 + w * 0.25, y0 + h * fy), (x1 - w * 0.25, y0 + h * fy)],
                      fill=colour, width=width)
    elif kind == "halftrack":
        oval()
        wheels()
    elif kind == "sp_gun":
        oval()
        r = min(w, h) * 0.16
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour)
    elif kind == "air":
        draw.line([(x0 + w * 0.2, cy), (x1 - w * 0.2, cy)], fill=colour, width=width)
        draw.line([(cx, y0 + h * 0.2), (cx, y1 - h * 0.2)], fill=colour, width=width)
    else:
        f = font(max(6, int(h)))
        draw.text((cx, cy), "?", font=f, fill=colour, anchor="mm")
    if motorized and kind not in ("motorized", "halftrack"):
        wheels()
