"""Stalin's Tanks notation.

Every order is declared once, in :data:`SPEC` at the end of this module: its forms,
rules, help and examples. ``parse`` is forgiving — verb prefixes, any case, commas, hexes
written ``24.13`` / ``24-13``, facings N, NE, SE, S, SW, NW or 1-6 clockwise from N — and
``format`` canonical. A move's steps are hexes (``2413``), facing changes (``face SE``,
8.3), ``exit`` (leave the map, 6.6; ``exit north`` names the edge where the hexside leaves a
doubt) and ``overrun HEX`` (23.0, last). Orders whose content
is a secret (``hide``, ``mine``) are marked ``secret`` in the spec: frontends take them
privately and never echo them to anyone but their side.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from pydantic import model_validator

from adjudicator.kernel.errors import NotationError
from adjudicator.kernel.orders import Order
from adjudicator.kernel.spec import Kind, Names, OrderSpec, Verb, plain
from adjudicator.tanks.exits import EDGE_BY_WORD
from adjudicator.tanks.hexgrid import Direction
from adjudicator.tanks.spec import EDGE_WORDS

_HEX = re.compile(r"^([0-9]{1,2})[.\-/:]?([0-9]{2})$")  # ASCII digits only
#: Steps in one move: more than any unit's Movement Factor allows (7.2, 8.3).
MAX_STEPS = 40


class TanksOrder(Order):
    """Base of Stalin's Tanks orders."""


class Move(TanksOrder, verb="move"):
    """A move along ``steps`` (hexes, facing changes, exit, overrun), or to the hex ``to``
    (with the facing ``face``) by the cheapest legal path the rules find."""

    unit: str
    steps: tuple[str, ...] = ()
    to: str | None = None
    face: str | None = None

    @model_validator(mode="after")
    def _one_way(self) -> Move:
        if (self.to is None) == (not self.steps):
            raise ValueError("a move gives its steps, or 'to HEX'")
        if self.face is not None and self.to is None:
            raise ValueError("'face' after 'to HEX' only; among steps write 'face D'")
        return self


class Fire(TanksOrder, verb="fire"):
    """10.0, 13.0, 14.0: units fire at a target (AT, AP or HE; several Infantry combined, 15.2)."""

    units: tuple[str, ...]
    target: str
    mode: Literal["at", "ap", "he"] | None = None


class Assault(TanksOrder, verb="assault"):
    """16.0: a close assault (24.0: a Soviet suicide assault)."""

    unit: str
    target: str
    suicide: bool = False


class Load(TanksOrder, verb="load"):
    """17.1: a unit boards a halftrack (which may then move on)."""

    unit: str
    passenger: str
    steps: tuple[str, ...] = ()


class Unload(TanksOrder, verb="unload"):
    """17.3: a halftrack sets its passenger down (and may then move on)."""

    unit: str
    steps: tuple[str, ...] = ()


class Barrage(TanksOrder, verb="barrage"):
    """18.1: off-board artillery is called on a hex a friendly unit sees."""

    hex: str


class Placement(TanksOrder):
    """A unit set up in a hex: ``place`` in sight of both sides, ``hide`` in secret."""

    unit: str
    hex: str
    facing: str | None = None


class Place(Placement, verb="place"):
    """4.0: a unit set up in sight of both sides."""


class Hide(Placement, verb="hide"):
    """20.0: a unit set up in secret (hidden initial placement)."""


class Mine(TanksOrder, verb="mine"):
    """19.1: a minefield placed in secret."""

    hex: str


class Remove(TanksOrder, verb="remove"):
    """4.0, 19.1, 20.0: before ``done``, take back a unit set up (it waits to be set up
    again) or a mine written down (the hex may be mined again, or another)."""

    unit: str | None = None
    mine: str | None = None

    @model_validator(mode="after")
    def _one_thing(self) -> Remove:
        if (self.unit is None) == (self.mine is None):
            raise ValueError("remove a unit (remove UNIT) or a mine (remove mine HEX)")
        return self


class Enter(TanksOrder, verb="enter"):
    """6.5: every unit of the side still to enter comes on at the map edge hexes from
    the first of ``hexes`` to the last (facing ``face``). The game expands it into
    one ordinary ``move UNIT HEX`` per unit (:mod:`adjudicator.tanks.entry`), each checked
    and stored as if typed."""

    hexes: tuple[str, str]  # the range's first and last hex
    face: str | None = None


class Done(TanksOrder, verb="done"):
    """5.0: the side's phase (or set-up, or Defensive Fire) is over."""


def parse_hex(text: str) -> str:
    match = _HEX.match(text.strip())
    if not match:
        raise NotationError(f"{text!r} is not a hex (four digits, column then row: 2413)")
    return f"{int(match.group(1)):02d}{match.group(2)}"


def parse_facing(text: str) -> str:
    word = text.strip().upper()
    if word in ("1", "2", "3", "4", "5", "6"):
        return Direction(int(word)).name
    if word in Direction.__members__:
        return word
    raise NotationError(f"{text!r} is not a facing", [d.name for d in Direction])


def _unit(text: str) -> str:
    token = text.strip().lower()
    if not token or not re.fullmatch(r"[a-z0-9][a-z0-9_.\-]*", token):
        raise NotationError(f"{text!r} is not a unit id")
    return token


def _steps(tokens: list[str]) -> tuple[str, ...]:
    steps: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index].lower()
        if token in ("face", "facing", "turn"):
            if index + 1 >= len(tokens):
                raise NotationError("'face' needs a direction", [d.name for d in Direction])
            steps.append(f"face {parse_facing(tokens[index + 1])}")
            index += 2
        elif token in ("exit", "off"):
            edge = tokens[index + 1].lower() if index + 1 < len(tokens) else ""
            if edge in EDGE_BY_WORD:  # 6.6: the edge named where the hexside leaves a doubt
                steps.append(f"exit {EDGE_WORDS[EDGE_BY_WORD[edge]]}")
                index += 2
            else:
                steps.append("exit")
                index += 1
        elif token == "overrun":
            if index + 1 >= len(tokens):
                raise NotationError("'overrun' needs the hex overrun")
            steps.append(f"overrun {parse_hex(tokens[index + 1])}")
            index += 2
        else:
            steps.append(parse_hex(token))
            index += 1
    if len(steps) > MAX_STEPS:
        raise NotationError(f"a move has at most {MAX_STEPS} steps; this one has {len(steps)}")
    for position, step in enumerate(steps):
        if step.startswith(("exit", "overrun")) and position != len(steps) - 1:
            raise NotationError(f"'{step.split()[0]}' must be the last step of a move")
    return tuple(steps)


def _split_units(text: str) -> tuple[str, ...]:
    parts = [p for p in re.split(r"[+&]", text) if p]
    if not parts:
        raise NotationError("missing unit")
    return tuple(_unit(p) for p in parts)


_RANGE = re.compile(r"^(\S+?)\s*(?:-|\.\.|\s+to\s+|\s+)\s*(\S+)$", re.IGNORECASE)


def parse_hex_range(text: str) -> tuple[str, str]:
    """``0126-1526`` (or ``0126 to 1526``, ``0126..1526``; one hex alone: that hex only)."""
    word = text.strip()
    try:
        return parse_hex(word), parse_hex(word)
    except NotationError:
        pass
    match = _RANGE.match(word)
    if not match:
        raise NotationError(f"{text!r} is not a range of hexes (first-last, e.g. 0126-1526)")
    return parse_hex(match.group(1)), parse_hex(match.group(2))


def _read(function: Callable[[str], object]) -> Callable[[list[str], Names], object]:
    return lambda words, names: function(" ".join(plain(words)))


UNIT = Kind("unit", "UNIT", "a unit id, e.g. pan-1", read=_read(_unit))
UNITS = Kind("units", "UNIT[+UNIT]", "a unit, or infantry firing together: a+b",
             read=_read(lambda text: _split_units(text.lower())), write="+".join)
HEX = Kind("hex", "HEX", "a hex: column then row, e.g. 2413", read=_read(parse_hex))
FACING = Kind("facing", "D", "a facing: N, NE, SE, S, SW, NW", read=_read(parse_facing))
HEXES = Kind("hexes", "HEX-HEX", "map edge hexes from the first to the last, e.g. 0126-1526",
             read=_read(parse_hex_range), write=lambda pair: "-".join(pair))
STEPS = Kind("steps", "STEP...", "hexes in order; 'face D' turns, 'exit' leaves the map "
             "('exit north': by that edge, where the hexside leaves a doubt), "
             "'overrun HEX' ends it", many=True,
             read=lambda words, names: _steps(plain(words)), write=" ".join)

SPEC = OrderSpec("tanks", [
    Verb(Move, ("move UNIT to HEX:to [[face|facing] FACING:face]", "move UNIT STEPS"),
         "move a unit to a hex by the cheapest legal path (facing D at the end), or hex by "
         "hex; turn with 'face D'", ("6.0", "7.0", "8.2", "8.3", "8.4", "6.6", "23.0"),
         ("move iiij-1 to 1606", "move panther-1 to 2415 face SE",
          "move iiij-1 1601 1602 face SE 1703", "move t34a-1 to 0101 face N",
          "move t34a-1 0101 exit", "move ht-1 3101 exit north"),
         describe={"to": "the hex to end in (the rules find the cheapest path)",
                   "face": "the facing to end with"}),
    Verb(Fire, ("fire UNITS [at] UNIT:target [{at|ap|he}:mode]",),
         "fire at a unit (infantry may combine: a+b)", ("10.0", "13.0", "14.0", "15.2"),
         ("fire ivh-2 at kvia-1", "fire infde-1+infde-2 at infsu-3 ap", "fire ivh-2 at t34c-1 he"),
         describe={"target": "the unit fired at", "mode": "ammunition: AT, AP or HE"}),
    Verb(Assault, ("assault UNIT [at] UNIT:target [suicide]:suicide",),
         "close assault an adjacent unit", ("16.0", "24.0"),
         ("assault infde-1 at t34a-1", "assault infsu-2 at infde-3 suicide"),
         describe={"target": "the unit assaulted", "suicide": "a suicide assault (24.0)"}),
    Verb(Load, ("load UNIT UNIT:passenger [STEPS]",),
         "a halftrack loads a unit, then moves", ("17.1",), ("load ht-1 infde-1 1011 1012",),
         describe={"unit": "the halftrack", "passenger": "the unit it loads",
                   "steps": "hexes the halftrack then moves through"}),
    Verb(Unload, ("unload UNIT [STEPS]",), "a halftrack unloads, then moves", ("17.3",),
         ("unload ht-1", "unload ht-1 1012"),
         describe={"unit": "the halftrack", "steps": "hexes it then moves through"}),
    Verb(Barrage, ("barrage HEX",), "call an artillery barrage on a hex", ("18.1",),
         ("barrage 0918",)),
    Verb(Place, ("place UNIT HEX [[face|facing] FACING]",), "set up a unit in sight of both "
         "sides", ("4.0",), ("place ht-1 0910", "place panther-1 2413 face SE")),
    Verb(Hide, ("hide UNIT HEX [[face|facing] FACING]",), "set up a hidden unit", ("20.0",),
         ("hide pak88-1 1205",), secret=True),
    Verb(Mine, ("mine HEX",), "mine a hex", ("19.1",), ("mine 1418",), secret=True),
    Verb(Remove, ("remove mine HEX:mine", "remove UNIT"), "during your set-up, before "
         "'done': take back a unit set up or a mine written down (then set it up again)",
         ("4.0", "19.1", "20.0"), ("remove pak88-1", "remove mine 1418")),
    Verb(Enter, ("enter all [at] HEXES:hexes [[face|facing] FACING:face]",),
         "enter every unit still to enter this turn, one per free edge hex of the range "
         "from its first; units left over enter again from the first and move one hex in "
         "(6.5 counts the hex double); it becomes one 'move UNIT HEX' per unit, each "
         "checked and stored as if typed",
         ("6.5",), ("enter all at 0126-1526 face N", "enter all at 0101-3101"),
         describe={"hexes": "the map edge hexes to enter on, first to last",
                   "face": "the facing tanks and SP guns end with"}),
    Verb(Done, ("done",), "end your phase, or your set-up", ("5.0",), ("done",)),
], kinds={"UNIT": UNIT, "UNITS": UNITS, "HEX": HEX, "FACING": FACING, "STEPS": STEPS,
                         "HEXES": HEXES})


def parse_order(text: str) -> Order:
    return SPEC.parse(text)


def format_order(order: Order) -> str:
    return SPEC.format(order)

