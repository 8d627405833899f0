"""Counters and stacks on a Turning Point: Stalingrad picture: each unit's face (kind, factors,
Fresh or Spent, Duration, isolation), its sprite, mixed and grouped stacks, and the key lines
that name a stack's units."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from PIL import Image, ImageDraw

from adjudicator.kernel.memo import Memo
from adjudicator.stalingrad.data_models import StalingradPack
from adjudicator.stalingrad.views import SIDES, UnitView
from render import static_cache
from render.common import SpriteCache, blend, font, plain, rgb, text_size, wrap
from render.counters import TPS_KIND_SYMBOL, TPS_SYMBOL, draw_symbol
from render.stalingrad.layout import Point, Static

G = TypeVar("G", bound=Sequence[Any])


@dataclass(frozen=True)
class Face:
    """Everything a counter shows; equal faces share one sprite."""

    side: str
    symbol: str
    motorized: bool
    fresh: bool
    factors: str
    duration: int
    isolated: int  # the Isolation marker: 0 none, 1 for "-1", 2 for "-2" (12.2)
    label: str = ""  # the counter's printed designation ("I/267"), its short id
    count: int = 1  # a stack of this many like counters: "x3" shows instead of the label

    @property
    def look(self) -> Face:
        """The face without its label: what units grouped as "identical" share."""
        return Face(self.side, self.symbol, self.motorized, self.fresh, self.factors,
                    self.duration, self.isolated)


#: Faces by what they depend on, kept with the pack's units they were drawn from.
_FACES = Memo[Face](size=20000)


def face_of(u: UnitView, pack_units: Mapping[str, Any]) -> Face:
    """:func:`unit_face`, memoised on what the face depends on."""
    key = (u.id, u.side, u.kind, u.fresh, u.duration, u.attack, u.defense, u.mf, u.isolation)
    return _FACES.get((pack_units,), key, lambda: unit_face(u, pack_units))


def short_label(uid: str, pack_units: Mapping[str, Any]) -> str:
    """The counter's printed designation ("I/267"); without the pack, the id after its
    formation prefix ("g94:i/267" -> "i/267")."""
    pu = pack_units.get(uid)
    designation = getattr(pu, "designation", None) if pu is not None else None
    if designation:
        return str(designation)
    return uid.split(":", 1)[-1]


def unit_face(u: UnitView, pack_units: Mapping[str, Any]) -> Face:
    pu = pack_units.get(u.id)
    if pu is not None:
        symbol = TPS_SYMBOL.get(pu.type, "infantry")
        motorized = bool(pu.motorized) and symbol not in ("motorized",)
        motorized = motorized and symbol in ("at", "aa", "artillery", "recon", "engineer")
    else:
        symbol = TPS_KIND_SYMBOL.get(u.kind, "infantry")
        motorized = False
    if u.fresh:
        attack = "*" if u.attack is None else str(u.attack)
        factors = f"{attack}-{u.defense}-{u.mf}"
    else:
        factors = str(u.defense)
    return Face(u.side, symbol, motorized, u.fresh, factors, int(u.duration or 0), u.isolation,
                short_label(u.id, pack_units))


def counter_font(size: int) -> int:
    """The font size of a counter's texts: :data:`MIN_TEXT` px on a counter of the default
    scale (``counter_size(DEFAULT_SCALE)``), proportionally smaller only on the small
    replay frames."""
    return max(7, round(size * 0.29))


def counter_size(scale: int) -> int:
    return max(14, round(0.6 * scale))


def fitted_text(im: Image.Image, text: str, size: int, box: tuple[float, float, float, float],
                fill: tuple[int, int, int], bg: tuple[int, int, int]) -> None:
    """Write ``text`` centred in ``box`` at ``size`` px, squeezed sideways (never shrunk in
    height) when it is wider than the box, so a long designation stays whole and readable."""
    text = plain(text)
    f = font(size)
    left, top, right, bottom = f.getbbox(text)
    w, h = max(1, int(right - left)), max(1, int(bottom - top))
    x0, y0, x1, y1 = box
    room = max(1, int(x1 - x0))
    strip = Image.new("RGB", (w + 2, h + 2), bg)
    ImageDraw.Draw(strip).text((1 - left, 1 - top), text, font=f, fill=fill)
    if strip.width > room:
        strip = strip.resize((room, strip.height), Image.Resampling.LANCZOS)
    im.paste(strip, (round((x0 + x1 - strip.width) / 2), round((y0 + y1 - strip.height) / 2)))


def counter_sprite(sprites: SpriteCache, face: Face, size: int, *, keep: bool = False
                   ) -> Image.Image:
    """A counter as printed: the designation on top, the unit-type symbol, the factors
    (A-D-M Fresh, D Spent) at the bottom; a yellow Duration box right of the symbol and a
    red Isolation box left of it. Both text lines are :func:`counter_font` px high."""
    def build() -> Image.Image:
        side_key = face.side if face.side in SIDES else "russian"
        fill = rgb(side_key) if face.fresh else rgb(f"{side_key}_spent")
        ink = rgb("white") if face.fresh else rgb("ink")
        im = Image.new("RGB", (size, size), fill)
        d = ImageDraw.Draw(im)
        if not face.fresh:
            # Spent face: a diagonal band in the side colour
            band = blend(fill, rgb(side_key), 0.45)
            d.polygon([(size * 0.62, 0), (size, 0), (size, size * 0.38)], fill=band)
        fs = counter_font(size)
        line = fs + 1
        # a small counter (the replay's frames) has no room for the designation line
        labelled = size - 2 * (line + 2) >= 8
        top_box = (1, 1, size - 1, 1 + line) if labelled else (2, 0, size - 2, 0)
        bottom_box = (2, size - 1 - line, size - 2, size - 1)
        if not labelled:
            pass
        elif face.count > 1:
            text = f"x{face.count}"
            w = text_size(text, fs)[0] + 6
            pill = (size / 2 - w / 2, top_box[1], size / 2 + w / 2, top_box[3])
            d.rectangle(pill, fill=rgb("white"), outline=rgb("ink"))
            fitted_text(im, text, fs, pill, rgb("ink"), rgb("white"))
        elif face.label:
            fitted_text(im, face.label, fs, top_box, ink, fill)
        fitted_text(im, face.factors, fs, bottom_box, ink, fill)
        y0, y1 = top_box[3] + 1, bottom_box[1] - 1
        sw = size * (0.5 if labelled else 0.62)
        x0 = (size - sw) / 2
        draw_symbol(d, (x0, y0, x0 + sw, y1 - (2 if face.motorized else 0)), face.symbol,
                    ink, max(1, size // 26), face.motorized)
        mark = max(6, round(x0) - 2)
        if face.duration:
            d.rectangle((size - mark - 1, y0, size - 1, y1), fill=rgb("duration"),
                        outline=rgb("ink"))
            fitted_text(im, str(face.duration), fs, (size - mark, y0, size - 1, y1),
                        rgb("ink"), rgb("duration"))
        if face.isolated:
            d.rectangle((0, y0, mark, y1), fill=rgb("isolated"), outline=rgb("ink"))
            fitted_text(im, f"-{face.isolated}", fs, (1, y0, mark, y1), rgb("white"),
                        rgb("isolated"))
        d.rectangle((0, 0, size - 1, size - 1), outline=rgb("ink"))
        return im
    return sprites.get(("tps-counter", face, size), build, keep=keep)


def mixed_sprite(sprites: SpriteCache, counts: tuple[tuple[str, int], ...], size: int
                 ) -> Image.Image:
    """One counter standing for the units of both sides in an Area with room for one:
    split corner to corner, each side's colour with its count ("x3")."""
    def build() -> Image.Image:
        im = Image.new("RGB", (size, size), rgb("russian"))
        d = ImageDraw.Draw(im)
        d.polygon([(0, 0), (size, 0), (0, size)], fill=rgb("german"))
        fs = counter_font(size)
        line = fs + 1
        for (side, n), box in zip(counts, ((2, 1, size - 2, 1 + line),
                                           (2, size - 1 - line, size - 2, size - 1)),
                                  strict=False):
            fitted_text(im, f"x{n}", fs, box, rgb("white"), rgb(side))
        d.line([(0, size), (size, 0)], fill=rgb("white"), width=2)
        d.rectangle((0, 0, size - 1, size - 1), outline=rgb("contested"), width=2)
        return im
    return sprites.get(("tps-mixed", counts, size), build)


def stack_sprite(sprites: SpriteCache, members: Sequence[UnitView],
                 faces: Mapping[str, Face], size: int) -> Image.Image:
    """The counter drawn for a stack: the unit itself, a like stack with its count, or
    both sides' counts (:func:`mixed_sprite`)."""
    if len(members) == 1:
        return counter_sprite(sprites, faces[members[0].id], size)
    sides = [side for side in SIDES if any(m.side == side for m in members)]
    if len(sides) > 1:
        counts = tuple((side, sum(m.side == side for m in members)) for side in sides)
        return mixed_sprite(sprites, counts, size)
    first = faces[members[0].id]
    return counter_sprite(sprites, replace(first.look, count=len(members)), size)


def stack_groups(units: list[UnitView], faces: Mapping[str, Face], slots: int
            ) -> list[list[UnitView]]:
    """The stacks to draw for an Area: every unit alone, or grouped until they fit.

    Order: German before Russian, Fresh before Spent. Grouping levels: like faces, then
    side + Fresh/Spent + symbol, then side + Fresh/Spent, then side; with room for one
    counter only, one stack of both sides (drawn by :func:`mixed_sprite`)."""
    ordered = sorted(units, key=lambda u: (u.side != "german", not u.fresh,
                                           faces[u.id].symbol, u.id))
    slots = max(1, slots)
    if len(ordered) <= slots:
        return [[u] for u in ordered]
    keys = (
        lambda u: (u.side, u.fresh, faces[u.id].look),
        lambda u: (u.side, u.fresh, faces[u.id].symbol),
        lambda u: (u.side, u.fresh),
        lambda u: (u.side,),
        lambda u: (),
    )
    grouped: list[list[UnitView]] = []
    for key in keys:
        index: dict[Any, list[UnitView]] = {}
        for u in ordered:
            index.setdefault(key(u), []).append(u)
        grouped = list(index.values())
        if len(grouped) <= slots:
            return grouped
    return grouped


def stacks(st: Static, loc: str, units: list[UnitView], faces: Mapping[str, Face]
           ) -> list[tuple[list[UnitView], Point]]:
    """Each stack drawn in a space and where (its centre, full-picture pixels), read row
    by row."""
    geo = st.spaces[loc]
    slots = geo.slots or [geo.centre]
    groups = stack_groups(units, faces, len(slots))
    chosen = sorted(slots[:len(groups)], key=lambda p: (round(p[1]), p[0]))
    return list(zip(groups, chosen, strict=False))


def indented(lines: list[str]) -> list[str]:
    return [lines[0], *("   " + line for line in lines[1:])] if lines else lines


def stack_lines(grouped: Iterable[tuple[str, Sequence[UnitView]]],
                pack_units: Mapping[str, Any]) -> list[str]:
    """The key to the stacks drawn as one counter: where, how many, and their short ids
    ("59 x3: I/269, II/269, III/269"), by Area number then Zone letter."""
    out = []
    for loc, members in sorted(grouped, key=_by_space):
        where = loc if loc.isdigit() else f"Zone {loc}"
        parts = []
        for side in SIDES:
            labels = [short_label(m.id, pack_units) for m in members if m.side == side]
            if labels:
                parts.append(", ".join(labels))
        out.append(f"{where} x{len(members)}: " + "; ".join(parts))
    return out


#: The Durations a Spent unit's face is built with ahead (:func:`prepare_counters`): the
#: common ones; a rarer face is built when a picture first shows it.
PREPARED_DURATIONS = (1, 2)
#: The counts a stack of like counters ("x3") is built with ahead, for each of those faces.
PREPARED_COUNTS = range(2, 6)


def common_faces(pack: StalingradPack) -> list[Face]:
    """Every unit's common faces, as a View shows them (:func:`unit_face`): Fresh,
    and Spent with each of :data:`PREPARED_DURATIONS`, not isolated; then each of their
    looks as a stack of :data:`PREPARED_COUNTS` like counters (:func:`stack_sprite`)."""
    pack_units = units_of_pack(pack)
    make = UnitView.model_construct
    faces = []
    for uid, unit in pack_units.items():
        # the factors a View shows (the rules' board reads them so from the pack)
        defense = unit.defense or 0
        spent = unit.spent_defense if unit.spent_defense is not None else defense
        for fresh, duration in ((True, None), *((False, n) for n in PREPARED_DURATIONS)):
            u = make(id=uid, name=uid, side=unit.side, kind="", loc="", fresh=fresh,
                     duration=duration, attack=unit.attack,
                     defense=defense if fresh else spent, mf=unit.movement or 0,
                     isolated=False, isolation=0)
            faces.append(unit_face(u, pack_units))
    looks = dict.fromkeys(face.look for face in faces)
    return faces + [replace(look, count=n) for look in looks for n in PREPARED_COUNTS]


def prepare_counters(sprites: SpriteCache, faces: Iterable[Face], sizes: Iterable[int]
                     ) -> None:
    """Build ``faces`` at each of ``sizes`` now (start-up), kept for good in ``sprites``: the
    first picture of a View then pastes them instead of drawing each counter it shows for
    the first time (pixel for pixel the same sprites, built by :func:`counter_sprite`)."""
    faces = list(faces)
    for size in sorted(set(sizes)):
        for face in faces:
            counter_sprite(sprites, face, size, keep=True)


def _by_space(group: Sequence[Any]) -> tuple[bool, int, str]:
    """Area number then Zone letter: the order of the key's lines."""
    loc = group[0]
    return (not loc.isdigit(), int(loc) if loc.isdigit() else 0, loc)


#: Each stack's wrapped key lines, by the pack's units (identity), font size and width, then
#: by its space and units: a stack's lines stay the same from one action to the next, and a
#: zoom asks for them at each window tried (one dict look-up a stack when known).
_KEY_LINES = Memo[dict[tuple[str, ...], tuple[str, ...]]](size=64)
#: Stacks' key lines kept per pack, size and width (all dropped when full).
KEY_LINES_KEPT = 8192


def wrapped_stack_lines(grouped: Iterable[tuple[str, Sequence[UnitView]]],
                        pack_units: Mapping[str, Any], size: int, width: int) -> list[str]:
    """:func:`stack_lines`, each wrapped to ``width`` px at ``size`` px and indented after
    its first line (:func:`indented`), each stack's lines made once."""
    out: list[str] = []
    for lines in key_lines_each(sorted(grouped, key=_by_space), pack_units, size, width):
        out += lines
    return out


def key_lines_each(grouped: Iterable[tuple[str, Sequence[UnitView]]],
                   pack_units: Mapping[str, Any], size: int, width: int
                   ) -> list[tuple[str, ...]]:
    """Each stack's lines of :func:`wrapped_stack_lines`, in the order given."""
    kept = _KEY_LINES.get((pack_units,), (size, width), dict)
    out: list[tuple[str, ...]] = []
    for group in grouped:
        key = (group[0], *[m.id for m in group[1]])
        lines = kept.get(key)
        if lines is None:
            lines = tuple(indented(wrap(stack_lines([group], pack_units)[0], size, width)))
            if len(kept) >= KEY_LINES_KEPT:
                kept.clear()
            kept[key] = lines
        out.append(lines)
    return out


def by_space(grouped: Iterable[G]) -> list[G]:
    """Stacks (space first) in the key's order: Area number then Zone letter (stable)."""
    return sorted(grouped, key=_by_space)


def units_of_pack(pack: StalingradPack) -> Mapping[str, Any]:
    return static_cache.cached(("stalingrad-units", pack.hash),
                               lambda: {u.id.lower(): u for u in pack.units.values()})
