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
from adjudicator.kernel.game import Game, order_lines
from adjudicator.kernel.orders import SetStanding, words
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


UNITS = _o("units", "unit(s), e.g. 24pz or 24pz 71inf")
UNIT = _o("unit", "the unit")
TARGET = _o("target", "Area, hex or unit attacked")
TO = _o("to", "destination Area, or the hexes of the path")
FACING = _o("facing", "final facing: N, NE, SE, S, SW, NW (Stalin's Tanks)", required=False)

VERBS: tuple[Verb, ...] = (
    Verb("move", "Move units (Stalingrad: to an Area; Stalin's Tanks: along a path, facing)",
         (UNITS, TO, FACING, _o("via", "Areas passed through (Stalingrad)", required=False))),
    Verb("attack", "Attack an Area, cell or unit", (UNITS, TARGET)),
    Verb("ranged", "Ranged attack from an adjacent Area (Turning Point: Stalingrad)",
         (UNITS, TARGET)),
    Verb("fortify", "Fortification attempt (Turning Point: Stalingrad)",
         (_o("area", "the Area"), UNITS)),
    Verb("infiltrate", "Night Infiltration (Turning Point: Stalingrad)", (UNITS, TO)),
    Verb("regroup", "Regroup Spent units at night (Turning Point: Stalingrad)", (UNITS, TO)),
    Verb("cross", "Cross the Volga (Turning Point: Stalingrad)", (UNITS, TO)),
    Verb("recross", "Back to the east bank (Turning Point: Stalingrad)",
         (UNITS, _o("area", "the Area they leave"))),
    Verb("advantage", "Use the Advantage (Turning Point: Stalingrad)",
         (_o("use", "what for", choices=("reroll", "prolong", "decline")),)),
    Verb("artillery", "Artillery support (Turning Point: Stalingrad part 2)", (TARGET,)),
    Verb("stuka", "Stuka strike (Turning Point: Stalingrad part 2)", (TARGET,)),
    Verb("refit", "Refit units (Turning Point: Stalingrad part 2)", (UNITS,)),
    Verb("setup", "Set up units, or 'done' (Turning Point: Stalingrad)",
         (_o("units", "units, or done"), _o("area", "the Area", required=False))),
    Verb("rubble", "The German's initial Rubble rolls (Turning Point: Stalingrad)"),
    Verb("fire", "Fire at a target (Stalin's Tanks; several infantry: a+b)",
         (UNIT, TARGET, _o("ammo", "ammunition", required=False, choices=("AT", "AP", "HE")))),
    Verb("assault", "Close assault (Stalin's Tanks)", (UNIT, TARGET)),
    Verb("load", "A halftrack loads a passenger, then moves (Stalin's Tanks)",
         (_o("carrier", "the halftrack"), _o("unit", "the passenger"),
          _o("to", "hexes the halftrack then moves through", required=False))),
    Verb("unload", "A halftrack unloads, then moves (Stalin's Tanks)",
         (_o("carrier", "the halftrack"),
          _o("to", "hexes it then moves through", required=False))),
    Verb("barrage", "Call a barrage (Stalin's Tanks)", (_o("target", "target hex"),)),
    Verb("place", "Set up a unit openly (Stalin's Tanks)", (UNIT, _o("hex", "hex"), FACING)),
    Verb("pass", "Pass"),
    Verb("end", "End the impulse (Turning Point: Stalingrad)"),
    Verb("done", "End my phase or my set-up (Stalin's Tanks)"),
    Verb("hide", "Place a hidden unit (DM with the bot only)", (UNIT, _o("hex", "hex"), FACING),
         secret=True),
    Verb("mine", "Place a minefield (DM with the bot only)", (_o("hex", "hex"),), secret=True),
    Verb("trap", "Place the trap (Duel test game; DM with the bot only)",
         (_o("cell", "cell"),), secret=True),
)

#: Each game's canonical notation for the verbs whose words differ from the default
#: "verb option option ...". A game class may also declare ``order_templates``.
GAME_TEMPLATES: dict[str, dict[str, str]] = {
    "stalingrad": {
        "move": "move {units} via {via} to {to}",
        "attack": "attack {target} with {units}",
        "ranged": "attack {target} with {units}",
        "fortify": "fortify {area} with {units}",
        "infiltrate": "infiltrate {to} with {units}",
        "regroup": "regroup {units} to {to}",
        "cross": "cross {units} to {to}",
        "recross": "recross {units} from {area}",
        "setup": "setup {units} in {area}",
    },
    "tanks": {
        "move": "move {units} {to} face {facing}",
        "fire": "fire {unit} at {target} {ammo}",
        "assault": "assault {unit} at {target}",
        "load": "load {carrier} {unit} {to}",
        "unload": "unload {carrier} {to}",
        "place": "place {unit} {hex} face {facing}",
        "hide": "hide {unit} {hex} face {facing}",
    },
}

VERBS_BY_NAME = {verb.name: verb for verb in VERBS}

#: The verbs of the DM-only commands. The game's ``is_secret`` hook decides which orders are
#: secret; these names serve only for a line the game cannot read (a mistyped secret).
SECRET_VERBS = frozenset(verb.name for verb in VERBS if verb.secret)


def template_for(game: Any, verb: Verb) -> Template:
    """The template a game uses for ``verb``: its own declaration, ours, or the default."""
    optional = [o.name for o in verb.options if not o.required]
    declared = getattr(game, "order_templates", None)
    if isinstance(declared, dict) and isinstance(declared.get(verb.name), str):
        return Template.parse(declared[verb.name], optional)
    ours = GAME_TEMPLATES.get(str(getattr(game, "name", "")), {}).get(verb.name)
    return Template.parse(ours or verb.default_template, optional)


def is_secret_order(game: Game[Any], text: str) -> bool:
    """Whether any line of a (multi-line) order text must be given only in a DM.

    Each line is parsed and the game's :meth:`~Game.is_secret` decides (hidden set-up,
    mines, traps). ``standing`` orders are private too, but they are never posted — the
    bot acknowledges them only to their sender — so they may be set anywhere. A line the
    game cannot read counts as secret when its first word could abbreviate a secret verb
    (:data:`SECRET_VERBS`), so a mistyped secret is not echoed either.
    """
    for line in order_lines(text):
        try:
            order = game.parse(line)
        except (RuleError, ValueError):  # unreadable: decide from the first word alone
            head = words(line)[0].lower()
            if any(verb.startswith(head) for verb in SECRET_VERBS):
                return True
            continue
        if not isinstance(order, SetStanding) and game.is_secret(order):
            return True
    return False


def secret_commands(game: Game[Any], legal: list[str]) -> list[str]:
    """The verb commands among ``legal`` orders whose orders the game keeps secret.

    A verb's orders are all secret or none, so one legal order per verb is asked about.
    """
    samples: dict[str, str] = {}
    for order in legal:
        head = words(order)
        if head and head[0] in VERBS_BY_NAME:
            samples.setdefault(head[0], order)
    return sorted(verb for verb, sample in samples.items() if game.is_secret_text(sample))
