"""The TP:S order notation: canonical, symmetric, forgiving.

Grammar (canonical form; ``U`` = unit ids, ``A`` = an Area number, Zone letter or name)::

    pass                                   declare a Pass impulse (8.14)
    end                                    end the impulse (8.1)
    move U.. [from A] [via A..] to A       move units along a path (8.2)
    regroup U.. to A                       Spent units at night, one MF (8.27)
    attack A [fresh|spent|rubble] with U.. attack a Group; units in A attack in the Area,
                                           units in an adjacent Area make a Ranged attack
    infiltrate A with U..                  Russian night Infiltration (8.28)
    fortify A with U..                     fortification attempt (14.3)
    cross U.. to A                         Volga crossing to a Landing, or Breakthrough
                                           via a Zone (18.3-18.6)
    recross U.. from A                     back to the east bank (18.7)
    advantage reroll|prolong|decline       the Advantage (9.2-9.4)
    decide casualties disrupt U.., retreat U.., eliminate U.., voluntary U.., to A
    decide casualties none
    decide tie U                           attacker picks the first loss among ties (8.354)
    decide retreat A                       retreat destination (8.3551)
    decide overflow U..                    units continuing a retreat out of an Area the
                                           Group would overfill (8.355, 8.3553)
    decide reinforcements A|delay          German Reinforcement Phase (6.2): all in one
    decide reinforcements U.. in A|delay   Zone, or some of them (the rest are asked again)
    setup U.. in A  /  setup done          free setup (5.4-5.6)
    setup auto                             place the side's remaining starting units at
                                           their historical Areas (21.2), legally
    rubble                                 the German's initial Rubble drs (5.7)

Forgiving input: any case, extra spaces, commas or spaces between units, verb prefixes
(``mo``, ``att``), ``ranged`` for ``attack``, ``vs`` for ``with``; Areas by number,
letter, name or unique prefix ("mamayev"), units by id or unique prefix. Unit lists are
kept sorted, so ``format(parse(t))`` is canonical whatever order the units were typed in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import field_validator

from adjudicator.kernel.errors import NotationError
from adjudicator.kernel.orders import Order, words

Group = Literal["fresh", "spent", "rubble"]
GROUPS: tuple[str, ...] = ("fresh", "spent", "rubble")


def _units(value: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted({v.lower() for v in value}))


class Pass(Order):
    verb: Literal["pass"] = "pass"


class End(Order):
    verb: Literal["end"] = "end"


class Move(Order):
    verb: Literal["move"] = "move"
    units: tuple[str, ...]
    to: str
    via: tuple[str, ...] = ()
    origin: str | None = None

    _sort = field_validator("units")(_units)


class Regroup(Order):
    verb: Literal["regroup"] = "regroup"
    units: tuple[str, ...]
    to: str

    _sort = field_validator("units")(_units)


class Attack(Order):
    verb: Literal["attack"] = "attack"
    area: str
    group: Group | None = None
    units: tuple[str, ...]

    _sort = field_validator("units")(_units)


class Infiltrate(Order):
    verb: Literal["infiltrate"] = "infiltrate"
    area: str
    units: tuple[str, ...]

    _sort = field_validator("units")(_units)


class Fortify(Order):
    verb: Literal["fortify"] = "fortify"
    area: str
    units: tuple[str, ...]

    _sort = field_validator("units")(_units)


class Cross(Order):
    verb: Literal["cross"] = "cross"
    units: tuple[str, ...]
    to: str

    _sort = field_validator("units")(_units)


class Recross(Order):
    verb: Literal["recross"] = "recross"
    units: tuple[str, ...]
    origin: str

    _sort = field_validator("units")(_units)


class Advantage(Order):
    verb: Literal["advantage"] = "advantage"
    action: Literal["reroll", "prolong", "decline"]


class Casualties(Order):
    verb: Literal["casualties"] = "casualties"
    disrupt: tuple[str, ...] = ()
    retreat: tuple[str, ...] = ()
    eliminate: tuple[str, ...] = ()
    voluntary: tuple[str, ...] = ()
    to: str | None = None

    _sort = field_validator("disrupt", "retreat", "eliminate", "voluntary")(_units)


class Tie(Order):
    verb: Literal["tie"] = "tie"
    unit: str

    _lower = field_validator("unit")(lambda v: v.lower())


class RetreatTo(Order):
    verb: Literal["retreat"] = "retreat"
    area: str


class Overflow(Order):
    """The units that continue a retreat out of an Area the Group would overfill (8.3553)."""

    verb: Literal["overflow"] = "overflow"
    units: tuple[str, ...]

    _sort = field_validator("units")(_units)


class Reinforce(Order):
    verb: Literal["reinforcements"] = "reinforcements"
    zone: str | None = None  # None: delay (6.2)
    units: tuple[str, ...] = ()  # () = every reinforcement still to place (6.2, 18.2)

    _sort = field_validator("units")(_units)


class Setup(Order):
    verb: Literal["setup"] = "setup"
    units: tuple[str, ...]
    area: str

    _sort = field_validator("units")(_units)


class SetupDone(Order):
    verb: Literal["setup-done"] = "setup-done"


class SetupAuto(Order):
    verb: Literal["setup-auto"] = "setup-auto"


class RollRubble(Order):
    verb: Literal["rubble"] = "rubble"


VERBS = ("pass", "end", "move", "regroup", "attack", "ranged", "infiltrate", "fortify", "cross",
         "recross", "advantage", "decide", "setup", "rubble")
KEYWORDS = frozenset({"from", "to", "via", "with", "vs", "in", "into"})
CASUALTY_WORDS = ("disrupt", "retreat", "eliminate", "voluntary")

TEMPLATES = [
    "pass", "end", "move UNITS [from AREA] [via AREAS] to AREA", "regroup UNITS to AREA",
    "attack AREA [fresh|spent|rubble] with UNITS", "infiltrate AREA with UNITS",
    "fortify AREA with UNITS", "cross UNITS to AREA", "recross UNITS from AREA",
    "advantage reroll|prolong|decline",
    "decide casualties disrupt UNITS, retreat UNITS, eliminate UNITS, voluntary UNITS, to AREA",
    "decide casualties none", "decide tie UNIT", "decide retreat AREA", "decide overflow UNITS",
    "decide reinforcements [UNITS in] ZONE|delay", "setup UNITS in AREA", "setup auto",
    "setup done", "rubble",
]

Resolver = Callable[[str], str]


def _plain_area(text: str) -> str:
    text = text.strip()
    if len(text) == 1 and text.isalpha():
        return text.upper()
    return text


def _plain_unit(text: str) -> str:
    return text.strip().lower()


class Notation:
    """Parser/formatter bound to name resolvers (the pack's, or plain keys)."""

    def __init__(self, area: Resolver | None = None, unit: Resolver | None = None) -> None:
        self.area = area or _plain_area
        self.unit = unit or _plain_unit

    # ---- parsing ---------------------------------------------------------------------

    def parse(self, text: str) -> Order:
        parts = words(text.replace(",", " , "))
        if not parts:
            raise NotationError("empty order", TEMPLATES)
        head = parts[0].lower()
        verbs = [v for v in VERBS if v == head] or [v for v in VERBS if v.startswith(head)]
        if len(verbs) != 1:
            raise NotationError(f"unknown verb {parts[0]!r}", list(VERBS))
        verb, args = verbs[0], parts[1:]
        try:
            return self._parse(verb, args, text)
        except NotationError:
            raise
        except (IndexError, ValueError) as error:
            raise NotationError(f"cannot read {text.strip()!r}: {error}", TEMPLATES) from error

    def _units(self, tokens: Sequence[str]) -> tuple[str, ...]:
        units = tuple(self.unit(t) for t in tokens if t != ",")
        if not units:
            raise NotationError("no units given")
        return units

    def _area(self, tokens: Sequence[str]) -> str:
        words_ = [t for t in tokens if t != ","]
        if not words_:
            raise NotationError("missing Area")
        return self.area(" ".join(words_))

    def _areas(self, tokens: Sequence[str]) -> tuple[str, ...]:
        # Path Areas are separated by commas or spaces; try each token as an Area, and
        # fall back to comma-separated multi-word names.
        joined = " ".join(tokens)
        if "," in tokens:
            return tuple(self.area(p.strip()) for p in joined.split(",") if p.strip())
        return tuple(self.area(t) for t in tokens)

    @staticmethod
    def _split(args: Sequence[str], keys: Sequence[str]) -> dict[str, list[str]]:
        """Split ``args`` at keywords: the leading part is under ``""``."""
        out: dict[str, list[str]] = {"": []}
        current = ""
        aliases = {"vs": "with", "into": "to", "in": "in"}
        for token in args:
            low = token.lower()
            key = aliases.get(low, low)
            if key in keys and key not in out:
                current = key
                out[current] = []
            else:
                out[current].append(token)
        return out

    def _parse(self, verb: str, args: list[str], text: str) -> Order:
        low = [a.lower() for a in args]
        if verb == "pass" and not args:
            return Pass()
        if verb == "end" and not args:
            return End()
        if verb == "rubble" and not args:
            return RollRubble()
        if verb == "move":
            parts = self._split(args, ("from", "via", "to"))
            if "to" not in parts:
                raise NotationError("a move needs 'to AREA'", TEMPLATES[2:3])
            return Move(units=self._units(parts[""]), to=self._area(parts["to"]),
                        via=self._areas(parts.get("via", [])),
                        origin=self._area(parts["from"]) if "from" in parts else None)
        if verb == "regroup":
            parts = self._split(args, ("to",))
            return Regroup(units=self._units(parts[""]), to=self._area(parts["to"]))
        if verb in ("attack", "ranged", "infiltrate", "fortify"):
            parts = self._split(args, ("with",))
            if "with" not in parts:
                raise NotationError(f"'{verb} AREA ... with UNITS'", TEMPLATES)
            target = [t for t in parts[""] if t != ","]
            group: str | None = None
            if verb in ("attack", "ranged") and target and target[-1].lower() in GROUPS:
                group = target[-1].lower()
                target = target[:-1]
            area = self._area(target)
            units = self._units(parts["with"])
            if verb == "infiltrate":
                return Infiltrate(area=area, units=units)
            if verb == "fortify":
                return Fortify(area=area, units=units)
            return Attack(area=area, group=group, units=units)
        if verb == "cross":
            parts = self._split(args, ("to",))
            return Cross(units=self._units(parts[""]), to=self._area(parts["to"]))
        if verb == "recross":
            parts = self._split(args, ("from",))
            return Recross(units=self._units(parts[""]), origin=self._area(parts["from"]))
        if verb == "advantage" and len(low) == 1:
            action = [a for a in ("reroll", "prolong", "decline") if a.startswith(low[0])]
            if len(action) == 1:
                return Advantage(action=action[0])
        if verb == "setup":
            if low == ["done"]:
                return SetupDone()
            if low == ["auto"]:
                return SetupAuto()
            parts = self._split(args, ("in", "to"))
            where = parts.get("in") or parts.get("to")
            if where is None:
                raise NotationError("'setup UNITS in AREA' or 'setup done'")
            return Setup(units=self._units(parts[""]), area=self._area(where))
        if verb == "decide" and args:
            return self._decide(low[0], args[1:])
        raise NotationError(f"cannot read {text.strip()!r}", TEMPLATES)

    def _decide(self, kind: str, args: list[str]) -> Order:
        known = ("casualties", "tie", "retreat", "reinforcements", "overflow")
        kinds = [k for k in known if k.startswith(kind)]
        if len(kinds) != 1:
            raise NotationError(f"unknown decision {kind!r}",
                                list(known))
        kind = kinds[0]
        if kind == "tie":
            return Tie(unit=self.unit(args[0]))
        if kind == "retreat":
            return RetreatTo(area=self._area(args))
        if kind == "overflow":
            return Overflow(units=self._units(args))
        if kind == "reinforcements":
            lows = [a.lower() for a in args]
            if "in" in lows:
                cut = lows.index("in")
                return Reinforce(units=self._units(args[:cut]), zone=self._area(args[cut + 1:]))
            if lows and lows[-1] == "delay":
                units = self._units(args[:-1]) if len(args) > 1 else ()
                return Reinforce(zone=None, units=units)
            return Reinforce(zone=self._area(args))
        if [a.lower() for a in args if a != ","] == ["none"]:
            return Casualties()
        lists: dict[str, list[str]] = {}
        current: str | None = None
        for token in args:
            low = token.lower()
            match = [w for w in (*CASUALTY_WORDS, "to") if w == low]
            if match:
                current = match[0]
                lists.setdefault(current, [])
            elif token == ",":
                continue
            elif current is None:
                raise NotationError("casualties: start with disrupt/retreat/eliminate/voluntary",
                                    TEMPLATES[10:12])
            else:
                lists[current].append(token)
        to = self._area(lists["to"]) if lists.get("to") else None
        return Casualties(
            disrupt=tuple(self.unit(u) for u in lists.get("disrupt", [])),
            retreat=tuple(self.unit(u) for u in lists.get("retreat", [])),
            eliminate=tuple(self.unit(u) for u in lists.get("eliminate", [])),
            voluntary=tuple(self.unit(u) for u in lists.get("voluntary", [])),
            to=to,
        )

    # ---- formatting ------------------------------------------------------------------

    @staticmethod
    def format(order: Order) -> str:
        match order:
            case Pass():
                return "pass"
            case End():
                return "end"
            case RollRubble():
                return "rubble"
            case Move(units=units, to=to, via=via, origin=origin):
                text = "move " + " ".join(units)
                if origin:
                    text += f" from {origin}"
                if via:
                    text += " via " + " ".join(via)
                return text + f" to {to}"
            case Regroup(units=units, to=to):
                return f"regroup {' '.join(units)} to {to}"
            case Attack(area=area, group=group, units=units):
                return f"attack {area}{' ' + group if group else ''} with {' '.join(units)}"
            case Infiltrate(area=area, units=units):
                return f"infiltrate {area} with {' '.join(units)}"
            case Fortify(area=area, units=units):
                return f"fortify {area} with {' '.join(units)}"
            case Cross(units=units, to=to):
                return f"cross {' '.join(units)} to {to}"
            case Recross(units=units, origin=origin):
                return f"recross {' '.join(units)} from {origin}"
            case Advantage(action=action):
                return f"advantage {action}"
            case Casualties():
                return format_casualties(order)
            case Tie(unit=unit):
                return f"decide tie {unit}"
            case RetreatTo(area=area):
                return f"decide retreat {area}"
            case Overflow(units=units):
                return f"decide overflow {' '.join(units)}"
            case Reinforce(zone=zone, units=units):
                if units:
                    return (f"decide reinforcements {' '.join(units)} "
                            + (f"in {zone}" if zone else "delay"))
                return f"decide reinforcements {zone or 'delay'}"
            case Setup(units=units, area=area):
                return f"setup {' '.join(units)} in {area}"
            case SetupDone():
                return "setup done"
            case SetupAuto():
                return "setup auto"
        raise TypeError(f"not a Stalingrad order: {order!r}")


def format_casualties(order: Casualties) -> str:
    clauses = [f"{word} {' '.join(getattr(order, word))}" for word in CASUALTY_WORDS
               if getattr(order, word)]
    if order.to:
        clauses.append(f"to {order.to}")
    return "decide casualties " + (", ".join(clauses) if clauses else "none")
