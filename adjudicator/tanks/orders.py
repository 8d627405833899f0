"""Stalin's Tanks notation.

Canonical forms (``format``); ``parse`` also accepts verb prefixes, any case, commas, and
hexes written ``24.13`` / ``24-13``::

    move UNIT STEP...            STEP: a hex (2413), "face D" (a facing change, 8.3),
                                 "exit" (leave the map, 6.6), "overrun HEX" (23.0, last)
    fire UNIT[+UNIT...] at TARGET [at|ap|he]      (combined fire: infantry only, 15.2)
    assault UNIT at TARGET [suicide]             (16.0; suicide: optional 24.0)
    load HALFTRACK PASSENGER STEP...              (17.1: the halftrack moves into its hex)
    unload HALFTRACK [STEP...]                   (17.3: unload, then move)
    barrage HEX                                  (18.1)
    place UNIT HEX [face D]                      (set-up, seen by both sides)
    hide UNIT HEX [face D]                       (20.0: secret set-up)
    mine HEX                                     (19.1: secret)
    done                                         (end the phase, or the set-up)

Facings D are N, NE, SE, S, SW, NW (or 1-6 clockwise from N). Orders whose content is a
secret (``hide``, ``mine``) have ``secret = True``: frontends must take them privately
and never echo them to anyone but their side.
"""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from adjudicator.kernel.errors import NotationError
from adjudicator.kernel.orders import Order, words
from adjudicator.tanks.hexgrid import Direction

_HEX = re.compile(r"^(\d{1,2})[.\-/:]?(\d{2})$")


class TanksOrder(Order):
    secret: ClassVar[bool] = False


class Move(TanksOrder):
    verb: Literal["move"] = "move"
    unit: str
    steps: tuple[str, ...]


class Fire(TanksOrder):
    verb: Literal["fire"] = "fire"
    units: tuple[str, ...]
    target: str
    mode: Literal["at", "ap", "he"] | None = None


class Assault(TanksOrder):
    verb: Literal["assault"] = "assault"
    unit: str
    target: str
    suicide: bool = False


class Load(TanksOrder):
    verb: Literal["load"] = "load"
    unit: str
    passenger: str
    steps: tuple[str, ...] = ()


class Unload(TanksOrder):
    verb: Literal["unload"] = "unload"
    unit: str
    steps: tuple[str, ...] = ()


class Barrage(TanksOrder):
    verb: Literal["barrage"] = "barrage"
    hex: str


class Placement(TanksOrder):
    """A unit set up in a hex: ``place`` in sight of both sides, ``hide`` in secret."""

    unit: str
    hex: str
    facing: str | None = None


class Place(Placement):
    verb: Literal["place"] = "place"


class Hide(Placement):
    secret: ClassVar[bool] = True
    verb: Literal["hide"] = "hide"


class Mine(TanksOrder):
    secret: ClassVar[bool] = True
    verb: Literal["mine"] = "mine"
    hex: str


class Done(TanksOrder):
    verb: Literal["done"] = "done"


VERBS = ("move", "fire", "assault", "load", "unload", "barrage", "place", "hide", "mine", "done")
FORMS = (
    "move UNIT HEX... [face D] [exit]", "fire UNIT[+UNIT] at TARGET [at|ap|he]",
    "assault UNIT at TARGET [suicide]", "load HALFTRACK UNIT HEX...", "unload HALFTRACK [HEX...]",
    "barrage HEX", "place UNIT HEX [face D]", "hide UNIT HEX [face D]", "mine HEX", "done",
)


def parse_hex(text: str) -> str:
    match = _HEX.match(text.strip())
    if not match:
        raise NotationError(f"{text!r} is not a hex (four digits, column then row: 2413)")
    return f"{int(match.group(1)):02d}{match.group(2)}"


def parse_facing(text: str) -> str:
    word = text.strip().upper()
    if word.isdigit() and 1 <= int(word) <= 6:
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
    for position, step in enumerate(steps):
        if step.startswith(("exit", "overrun")) and position != len(steps) - 1:
            raise NotationError(f"'{step.split()[0]}' must be the last step of a move")
    return tuple(steps)


def _split_units(text: str) -> tuple[str, ...]:
    parts = [p for p in re.split(r"[+&]", text) if p]
    if not parts:
        raise NotationError("missing unit")
    return tuple(_unit(p) for p in parts)


def parse_order(text: str) -> TanksOrder:
    parts = words(text.replace(",", " "))
    if not parts:
        raise NotationError("empty order", list(FORMS))
    head = parts[0].lower()
    verbs = [v for v in VERBS if v == head] or [v for v in VERBS if v.startswith(head)]
    if len(verbs) != 1:
        raise NotationError(f"unknown verb {parts[0]!r}", list(FORMS))
    verb, args = verbs[0], parts[1:]
    lowered = [a.lower() for a in args]
    try:
        if verb == "done" and not args:
            return Done()
        if verb == "move" and len(args) >= 2:
            return Move(unit=_unit(args[0]), steps=_steps(args[1:]))
        if verb == "fire" and len(args) >= 2:
            rest = args[1:]
            if rest[0].lower() == "at":
                rest = rest[1:]
            mode = None
            if len(rest) == 2 and rest[1].lower() in ("at", "ap", "he"):
                mode = rest[1].lower()
            elif len(rest) != 1:
                raise NotationError("fire UNIT at TARGET [at|ap|he]")
            return Fire(units=_split_units(args[0].lower()), target=_unit(rest[0]),
                        mode=mode)
        if verb == "assault" and len(args) >= 2:
            rest = args[1:]
            if rest[0].lower() == "at":
                rest = rest[1:]
            suicide = len(rest) == 2 and rest[1].lower() == "suicide"
            if len(rest) != 1 and not suicide:
                raise NotationError("assault UNIT at TARGET [suicide]")
            return Assault(unit=_unit(args[0]), target=_unit(rest[0]), suicide=suicide)
        if verb == "load" and len(args) >= 2:
            return Load(unit=_unit(args[0]), passenger=_unit(args[1]), steps=_steps(args[2:]))
        if verb == "unload" and args:
            return Unload(unit=_unit(args[0]), steps=_steps(args[1:]))
        if verb == "barrage" and len(args) == 1:
            return Barrage(hex=parse_hex(args[0]))
        if verb in ("place", "hide") and len(args) in (2, 3, 4):
            facing = None
            if len(args) == 4 and lowered[2] in ("face", "facing"):
                facing = parse_facing(args[3])
            elif len(args) == 3:
                facing = parse_facing(args[2])
            elif len(args) != 2:
                raise NotationError(f"{verb} UNIT HEX [face D]")
            model = Place if verb == "place" else Hide
            return model(unit=_unit(args[0]), hex=parse_hex(args[1]), facing=facing)
        if verb == "mine" and len(args) == 1:
            return Mine(hex=parse_hex(args[0]))
    except NotationError as error:
        raise NotationError(f"cannot read {text.strip()!r}: {error.message}",
                            error.legal or [f for f in FORMS if f.startswith(verb)]) from None
    raise NotationError(f"cannot read {text.strip()!r}", [f for f in FORMS if f.startswith(verb)])


def format_order(order: Order) -> str:
    match order:
        case Move(unit=unit, steps=steps):
            return " ".join(["move", unit, *steps])
        case Fire(units=units, target=target, mode=mode):
            return f"fire {'+'.join(units)} at {target}" + (f" {mode}" if mode else "")
        case Assault(unit=unit, target=target, suicide=suicide):
            return f"assault {unit} at {target}" + (" suicide" if suicide else "")
        case Load(unit=unit, passenger=passenger, steps=steps):
            return " ".join(["load", unit, passenger, *steps])
        case Unload(unit=unit, steps=steps):
            return " ".join(["unload", unit, *steps])
        case Barrage(hex=where):
            return f"barrage {where}"
        case Place(unit=unit, hex=where, facing=facing) | Hide(unit=unit, hex=where,
                                                                facing=facing):
            return f"{order.verb} {unit} {where}" + (f" face {facing}" if facing else "")
        case Mine(hex=where):
            return f"mine {where}"
        case Done():
            return "done"
    raise TypeError(f"not a Stalin's Tanks order: {order!r}")


def is_secret(order: Order) -> bool:
    """Whether an order's text is a secret of the side that gives it (20.0, 19.1)."""
    return bool(getattr(order, "secret", False))
