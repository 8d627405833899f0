"""The per-verb order commands: their options, and the order text each one builds.

A command such as ``/move`` exists once and is dispatched by the thread's game. Each game
turns the options into its canonical notation through a template
(``"move {unit} {to} {facing}"``). A game class may declare its own templates in a class
attribute ``order_templates: dict[str, str]``; otherwise the defaults below apply (the verb
followed by the options in order), and the game's forgiving parser does the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adjudicator.kernel.errors import RuleError
from bot.discord.autocomplete import Template


@dataclass(frozen=True)
class VerbOption:
    name: str
    description: str
    required: bool = True
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Verb:
    name: str
    description: str
    options: tuple[VerbOption, ...] = ()
    #: Secret orders (hidden placement, mines) are accepted only in a DM with the bot.
    secret: bool = False

    @property
    def default_template(self) -> str:
        return " ".join([self.name, *("{" + o.name + "}" for o in self.options)])


def _o(name: str, description: str, required: bool = True,
       choices: tuple[str, ...] = ()) -> VerbOption:
    return VerbOption(name, description, required, choices)


UNITS = _o("units", "unit(s), e.g. 24pz or 24pz,71inf")
UNIT = _o("unit", "the unit")
TARGET = _o("target", "Area, hex or unit attacked")
TO = _o("to", "destination Area or hex (or a path of hexes)")

VERBS: tuple[Verb, ...] = (
    Verb("move", "Move units (Stalingrad: to an Area; Stalin's Tanks: along a path, facing)",
         (UNITS, TO, _o("facing", "final facing (Stalin's Tanks)", required=False))),
    Verb("attack", "Attack an adjacent Area or cell", (UNITS, TARGET)),
    Verb("ranged", "Ranged attack (Turning Point: Stalingrad)", (UNITS, TARGET)),
    Verb("fortify", "Fortification attempt (Turning Point: Stalingrad)",
         (_o("area", "the Area"),)),
    Verb("infiltrate", "Infiltration move (Turning Point: Stalingrad)", (UNITS, TO)),
    Verb("regroup", "Regroup (Turning Point: Stalingrad)", (UNITS, TO)),
    Verb("cross", "Cross the Volga (Turning Point: Stalingrad)", (UNITS, TO)),
    Verb("advantage", "Use the Advantage", (_o("use", "what for (e.g. reroll)"),)),
    Verb("artillery", "Artillery support (Turning Point: Stalingrad part 2)", (TARGET,)),
    Verb("stuka", "Stuka strike (Turning Point: Stalingrad part 2)", (TARGET,)),
    Verb("refit", "Refit units (Turning Point: Stalingrad part 2)", (UNITS,)),
    Verb("fire", "Fire at a target (Stalin's Tanks)",
         (UNIT, TARGET, _o("ammo", "ammunition", required=False, choices=("AT", "AP", "HE")))),
    Verb("assault", "Close assault (Stalin's Tanks)", (UNIT, TARGET)),
    Verb("load", "Load onto a carrier (Stalin's Tanks)", (UNIT, _o("carrier", "the carrier"))),
    Verb("unload", "Unload from a carrier (Stalin's Tanks)",
         (UNIT, _o("to", "hex to unload into", required=False))),
    Verb("barrage", "Call a barrage (Stalin's Tanks)", (_o("target", "target hex"),)),
    Verb("pass", "Pass"),
    Verb("end", "End the impulse (Turning Point: Stalingrad)"),
    Verb("done", "End my phase (Stalin's Tanks)"),
    Verb("hide", "Place a hidden unit (DM with the bot only)", (UNIT, _o("hex", "hex")),
         secret=True),
    Verb("mine", "Place a minefield (DM with the bot only)", (_o("hex", "hex"),), secret=True),
    Verb("trap", "Place the trap (Duel test game; DM with the bot only)",
         (_o("cell", "cell"),), secret=True),
)

VERBS_BY_NAME = {verb.name: verb for verb in VERBS}

#: Verbs whose orders are secret in every game (refused outside a DM).
SECRET_VERBS = frozenset(verb.name for verb in VERBS if verb.secret)


def template_for(game: Any, verb: Verb) -> Template:
    """The template a game uses for ``verb``: its own declaration, else the default."""
    declared = getattr(game, "order_templates", None)
    if isinstance(declared, dict) and isinstance(declared.get(verb.name), str):
        return Template.parse(declared[verb.name])
    return Template.parse(verb.default_template)


def secret_verbs(game: Any) -> frozenset[str]:
    """Verbs a game keeps secret: its ``secret_verbs`` declaration, else :data:`SECRET_VERBS`."""
    declared = getattr(game, "secret_verbs", None)
    if isinstance(declared, frozenset | set | tuple | list):
        return frozenset(str(v) for v in declared)
    return SECRET_VERBS


def is_secret_order(game: Any, text: str) -> bool:
    """Whether any line of a (multi-line) order text is a secret order.

    Each line is read with the game's parser; a line it cannot read counts as secret when
    its first word could abbreviate a secret verb, so a mistyped secret is not echoed.
    """
    secret = secret_verbs(game)
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        try:
            verb = getattr(game.parse(line), "verb", None)
        except (RuleError, ValueError):  # unreadable: decide from the first word alone
            verb = None
            if any(v.startswith(words[0].lower()) for v in secret):
                return True
        if verb in secret:
            return True
    return False
