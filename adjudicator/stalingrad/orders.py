"""The TP:S order notation: canonical, symmetric, forgiving.

Every order is declared once, in :data:`SPEC` at the end of this module: its forms,
rules, help and examples (``umpire`` prints them with ``help VERB``). ``U`` stands for
unit ids, ``A`` for an Area number, Zone letter or name.

Forgiving input: any case, extra spaces, commas or spaces between units, verb prefixes
(``mo``, ``att``, ``decide cas``), ``ranged`` for ``attack``, ``vs`` for ``with``,
``into`` for ``to``; clauses (``from``, ``via``, ``to``, ``with``) in any order; Areas by
number, letter, name or unique prefix ("mamayev"), units by id or unique prefix. Unit
lists are kept sorted, so ``format(parse(t))`` is canonical whatever order the units were
typed in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import field_validator

from adjudicator.kernel.errors import NotationError
from adjudicator.kernel.orders import COMMA, Order
from adjudicator.kernel.spec import Kind, Names, OrderSpec, Verb, plain, resolver

Group = Literal["fresh", "spent", "rubble"]
Resolver = Callable[[str], str]


def _units(value: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted({v.lower() for v in value}))


class Pass(Order, verb="pass"):
    """8.14: the side declines its impulse."""


class End(Order, verb="end"):
    """8.1: the impulse is over (its units Spent, 8.13; the German impulse DR if owed)."""


class Move(Order, verb="move"):
    """8.2: units of one Area move, Area by Area, to ``to`` (``via`` the Areas given)."""

    units: tuple[str, ...]
    to: str
    via: tuple[str, ...] = ()
    origin: str | None = None

    _sort = field_validator("units")(_units)


class Regroup(Order, verb="regroup"):
    """8.27: Spent units move one MF at night into a Free Area."""

    units: tuple[str, ...]
    to: str

    _sort = field_validator("units")(_units)


class Attack(Order, verb="attack"):
    """8.3: units attack a Group (Fresh, Spent or the Rubble, 14.6) in or next to their Area."""

    area: str
    group: Group | None = None
    units: tuple[str, ...]

    _sort = field_validator("units")(_units)


class Infiltrate(Order, verb="infiltrate"):
    """8.28: Fresh Russian Infantry enter an Area of Spent Germans at night without attacking."""

    area: str
    units: tuple[str, ...]

    _sort = field_validator("units")(_units)


class Fortify(Order, verb="fortify"):
    """14.3: an Engineer or three Infantry build (or raise) Rubble as a fortification."""

    area: str
    units: tuple[str, ...]

    _sort = field_validator("units")(_units)


class Cross(Order, verb="cross"):
    """18.5: Russian reinforcements cross the Volga to a Landing Area."""

    units: tuple[str, ...]
    to: str

    _sort = field_validator("units")(_units)


class Recross(Order, verb="recross"):
    """18.7: Russian units ferry back to the east bank at night."""

    units: tuple[str, ...]
    origin: str

    _sort = field_validator("units")(_units)


class Advantage(Order, verb="advantage"):
    """9: the holder declines, rerolls (9.2, 9.4) or prolongs the period (9.3)."""

    action: Literal["reroll", "prolong", "decline"]


class Casualties(Order, verb="casualties"):
    """8.354: the defender pays Casualty Points by Disrupting, retreating, eliminating
    (voluntary retreats: 8.3554)."""

    disrupt: tuple[str, ...] = ()
    retreat: tuple[str, ...] = ()
    eliminate: tuple[str, ...] = ()
    voluntary: tuple[str, ...] = ()
    to: str | None = None

    _sort = field_validator("disrupt", "retreat", "eliminate", "voluntary")(_units)


class Tie(Order, verb="tie"):
    """8.354: the attacker picks which of the tied highest Defense Factors takes the first CP."""

    unit: str

    _lower = field_validator("unit")(lambda v: v.lower())


class RetreatTo(Order, verb="retreat"):
    """8.3551: where a retreat goes when the priorities leave a choice."""

    area: str


class Overflow(Order, verb="overflow"):
    """The units that continue a retreat out of an Area the Group would overfill (8.3553)."""

    units: tuple[str, ...]

    _sort = field_validator("units")(_units)


class Reinforce(Order, verb="reinforcements"):
    """18.2: where the day's reinforcements enter."""

    zone: str | None = None  # None: delay (6.2)
    units: tuple[str, ...] = ()  # () = every reinforcement still to place (6.2, 18.2)

    _sort = field_validator("units")(_units)


class Setup(Order, verb="setup"):
    """5.4: units set up in an Area of their setup symbol."""

    units: tuple[str, ...]
    area: str

    _sort = field_validator("units")(_units)


class SetupDone(Order, verb="setup-done"):
    """5.4: the side's set-up is complete."""


class SetupAuto(Order, verb="setup-auto"):
    """5.4: the rest of the side set up on the historical Areas (21.2)."""


class RollRubble(Order, verb="rubble"):
    """5.7: the German rolls for the initial Rubble."""


class Replace(Order, verb="replace"):
    """13.3: eliminated Russian Armor units placed in Area 70 for replacement factors."""

    units: tuple[str, ...]
    area: str

    _sort = field_validator("units")(_units)


class Recreate(Order, verb="recreate"):
    """21.3: eliminated Russian units recreated for the 64th Army (compensation)."""

    units: tuple[str, ...]

    _sort = field_validator("units")(_units)


class Bid(Order, verb="bid"):
    """22.11: Victory Points conceded for command of the Germans, secret until both bid."""

    value: int


class CardPick(Order, verb="card"):
    """22.22: the card a side secretly plays in an attack (Feints)."""

    value: int


class Refit(Order, verb="refit"):
    """15.34: a Russian impulse spent refitting a Disrupted FAG."""

    unit: str

    _lower = field_validator("unit")(lambda v: v.lower())


class ArtilleryAnswer(Order, verb="artillery"):
    """15.3: the Russian adds a FAG to his defense against a German attack, or not."""

    unit: str | None = None  # None: no artillery

    _lower = field_validator("unit")(lambda v: v.lower() if v else v)


Strike = tuple[str, str, str]  # (Area, Group or "", unit)


class Bombard(Order, verb="bombard"):
    """20.4: the Opening Bombardment's predesignated Artillery/Air attacks."""

    strikes: tuple[Strike, ...]


def _plain_area(text: str) -> str:
    text = text.strip()
    if len(text) == 1 and text.isalpha():
        return text.upper()
    return text


def _plain_unit(text: str) -> str:
    return text.strip().lower()


def _describe(**fields: str) -> dict[str, str]:
    return fields


def _read_strikes(words: list[str], names: Names) -> tuple[Strike, ...]:
    """'35 fresh with g94:arko94, 36 with g:stuka' -> ((35, fresh, g94:arko94), ...)."""
    area_of = resolver(names, "area", _plain_area)
    unit_of = resolver(names, "unit", _plain_unit)
    out: list[Strike] = []
    segment: list[str] = []
    for word in [*words, COMMA]:
        if word != COMMA:
            segment.append(word)
            continue
        if not segment:
            continue
        low = [w.lower() for w in segment]
        cut = next((i for i, w in enumerate(low) if w in ("with", "vs")), None)
        if cut is None or cut == 0 or cut == len(segment) - 1:
            raise NotationError(f"{' '.join(segment)!r}: write 'AREA [fresh|spent] with UNIT'")
        target = segment[:cut]
        group = ""
        if target[-1].lower() in ("fresh", "spent"):
            group = target[-1].lower()
            target = target[:-1]
        if not target:
            raise NotationError("missing Area")
        for unit in plain(segment[cut + 1:]):
            out.append((area_of(" ".join(target)), group, unit_of(unit)))
        segment = []
    if not out:
        raise NotationError("name at least one attack: 'AREA [fresh|spent] with UNIT'")
    return tuple(out)


def _write_strikes(strikes: tuple[Strike, ...]) -> str:
    return ", ".join(f"{area}{' ' + group if group else ''} with {unit}"
                     for area, group, unit in strikes)


STRIKES = Kind("strikes", "ATTACKS", "attacks 'AREA [fresh|spent] with UNIT', separated by "
               "commas", many=True, read=_read_strikes, write=_write_strikes)


SPEC = OrderSpec("stalingrad", [
    Verb(Pass, ("pass",), "declare a Pass impulse", ("8.14",), ("pass",)),
    Verb(End, ("end",), "end the impulse", ("8.1",), ("end",)),
    Verb(Move, ("move UNITS [from AREA:origin] [via PATH:via] to|into AREA:to",),
         "move units to an Area by the cheapest legal path (the reply says which), or along "
         "the path you give with via", ("8.2",),
         ("move i/103 to 14", "move i/103 ii/103 from 4 via 13 to 14", "move pz129 into orlovka"),
         describe=_describe(origin="the Area the units leave (when they are in several)",
                            via="Areas passed through, in order", to="the destination Area")),
    Verb(Regroup, ("regroup UNITS to|into AREA:to",),
         "move Spent units one MF at night", ("8.27",), ("regroup 1rb115 to 19",),
         describe=_describe(to="the destination Area")),
    Verb(Attack, ("attack|ranged AREA [{fresh|spent|rubble}:group] with|vs UNITS",),
         "attack a Group: units in the Area attack there, units next to it make a Ranged "
         "attack", ("8.3", "8.31", "8.32"),
         ("attack 20 with i/8 ii/8 iii/8 pi3", "attack 20 spent with i/8", "ranged 20 vs pi3"),
         describe=_describe(area="the Area attacked", group="which Group (when it is not "
                            "plain)", units="the attacking units")),
    Verb(Infiltrate, ("infiltrate AREA with|vs UNITS",), "Russian night Infiltration",
         ("8.28",), ("infiltrate 21 with 1rb115",),
         describe=_describe(area="the Area infiltrated")),
    Verb(Fortify, ("fortify AREA with|vs UNITS",), "fortification attempt", ("14.3",),
         ("fortify 69 with 1057eng",), describe=_describe(area="the Area fortified")),
    Verb(Cross, ("cross UNITS to|into AREA:to",),
         "Volga crossing to a Landing, or Breakthrough via a Zone", ("18.3", "18.4", "18.5",
                                                                   "18.6"),
         ("cross 2rb42 3rb42 to 70",), describe=_describe(to="the Landing Area or Zone")),
    Verb(Recross, ("recross UNITS from AREA:origin",), "back to the east bank", ("18.7",),
         ("recross 2rb42 from 70",), describe=_describe(origin="the Area they leave")),
    Verb(Advantage, ("advantage {reroll|prolong|decline}:action",), "use the Advantage",
         ("9.2", "9.3", "9.4"), ("advantage reroll",)),
    Verb(Casualties, ("decide casualties none",
                      "decide casualties [disrupt UNITS:disrupt] [retreat UNITS:retreat] "
                      "[eliminate UNITS:eliminate] [voluntary UNITS:voluntary] "
                      "[to|into AREA:to]"),
         "take the losses of a combat", ("8.354", "8.3541", "8.355", "8.3554"),
         ("decide casualties disrupt 1rb115, retreat 2rb115, to 52", "decide casualties none"),
         describe=_describe(disrupt="units disrupted", retreat="units that retreat",
                            eliminate="units eliminated", voluntary="units that retreat "
                            "voluntarily", to="where retreating units go"),
         joiner=", "),
    Verb(Tie, ("decide tie UNIT",), "the attacker picks the first loss among ties",
         ("8.354",), ("decide tie 1rb115",)),
    Verb(RetreatTo, ("decide retreat AREA",), "where the retreat goes", ("8.3551",),
         ("decide retreat 52",), describe=_describe(area="the retreat destination")),
    Verb(Overflow, ("decide overflow UNITS",),
         "the units that continue a retreat out of an Area the Group would overfill",
         ("8.355", "8.3553"), ("decide overflow 1rb115 2rb115",)),
    Verb(Reinforce, ("decide reinforcements delay",
                     "decide reinforcements UNITS delay",
                     "decide reinforcements UNITS in AREA:zone",
                     "decide reinforcements AREA:zone"),
         "German Reinforcement Phase: place all in one Zone, some of them, or delay",
         ("6.2", "18.2"), ("decide reinforcements C", "decide reinforcements i/54 ii/54 in D",
                           "decide reinforcements delay"),
         describe=_describe(units="some of the reinforcements (default: all)",
                            zone="the Zone they enter")),
    Verb(Setup, ("setup UNITS in|to|into AREA",), "free setup: place units", ("5.4", "5.5",
                                                                            "5.6"),
         ("setup 1rb115 2rb115 in 20",), describe=_describe(area="the Area they start in")),
    Verb(SetupDone, ("setup done",), "end your free setup", ("5.4",), ("setup done",)),
    Verb(SetupAuto, ("setup auto",),
         "place your remaining starting units at their historical Areas", ("21.2",),
         ("setup auto",)),
    Verb(RollRubble, ("rubble",), "the German's initial Rubble rolls", ("5.7",),
         ("rubble",)),
    Verb(Replace, ("replace UNITS in|to|into AREA",),
         "place eliminated Russian Armor in Area 70 for Armor replacement factors",
         ("13.2", "13.3"), ("replace 27tb in 70",),
         describe=_describe(area="the Tractor Works (Area 70)")),
    Verb(Recreate, ("recreate UNITS",),
         "recreate eliminated Russian units for the 64th Army, compensation for a German "
         "unit not withdrawn", ("21.3",), ("recreate i/100 ii/100",)),
    Verb(Bid, ("bid NUMBER:value",),
         "your secret bid, in Victory Points, for command of the Germans", ("22.11",
                                                                           "22.12"),
         ("bid 2",), secret=True),
    Verb(CardPick, ("decide card NUMBER:value",),
         "the card you secretly play in this attack (Feints; Jack 11, Queen 12)", ("22.22",),
         ("decide card 7",), secret=True),
    Verb(Refit, ("refit UNIT",), "spend a Russian impulse refitting a Disrupted FAG",
         ("15.34",), ("refit fag-s",)),
    Verb(ArtilleryAnswer, ("decide artillery none", "decide artillery UNIT"),
         "add a FAG to the defense against a German attack, or not", ("15.3", "15.32"),
         ("decide artillery fag-sc", "decide artillery none")),
    Verb(Bombard, ("bombard ATTACKS:strikes",),
         "the German's Opening Bombardment: several Artillery/Air attacks, no Area twice",
         ("20.4",), ("bombard 35 fresh with arko94, 36 with stuka",),
         describe=_describe(strikes="the attacks, 'AREA [fresh|spent] with UNIT', "
                            "separated by commas")),
], kinds={"ATTACKS": STRIKES})

class Notation:
    """Parser/formatter bound to name resolvers (the pack's, or plain keys)."""

    def __init__(self, area: Resolver | None = None, unit: Resolver | None = None) -> None:
        self.area = area or _plain_area
        self.unit = unit or _plain_unit
        self.names = {"area": self.area, "unit": self.unit}

    def parse(self, text: str) -> Order:
        return SPEC.parse(text, self.names)

    @staticmethod
    def format(order: Order) -> str:
        return SPEC.format(order)
