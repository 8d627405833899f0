"""Each game's order commands, derived from its order spec.

A game with an :class:`~adjudicator.kernel.spec.OrderSpec` gets one command group named
after it (``/stalingrad``, ``/tanks``) with one subcommand per verb. Verbs that share a
first word and each have a second (``decide casualties``, ``decide tie``…) become a
subcommand group (``/stalingrad decide casualties``); other verbs are named by the order
they make (``setup``, ``setup-done``). A subcommand's options are the verb's slots —
required ones first, as Discord requires — and the order text is built by the spec from
whatever the player typed, then read by the game's forgiving parser like any other line.

The bot keeps no per-game table: a game that adds a verb to its spec gets its command.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adjudicator.kernel.game import Game
from adjudicator.kernel.spec import CompiledVerb, Option, OrderSpec
from bot.listing import order_verbs


@dataclass(frozen=True)
class VerbCommand:
    """One verb of a game's spec as a Discord subcommand."""

    game: str
    verb: CompiledVerb
    #: Names under the game's group: ("move",) or ("decide", "casualties").
    path: tuple[str, ...]

    @property
    def qualified_name(self) -> str:
        return " ".join((self.game, *self.path))

    def options(self) -> list[Option]:
        """The verb's options, required ones first (Discord refuses the other order)."""
        options = self.verb.options()
        return [o for o in options if o.required] + [o for o in options if not o.required]


def verb_commands(game: str, spec: OrderSpec) -> list[VerbCommand]:
    """The subcommands of ``spec``'s verbs, in the spec's order."""
    by_word: dict[str, list[CompiledVerb]] = {}
    for verb in spec.verbs:
        by_word.setdefault(verb.path[0], []).append(verb)
    out = []
    for verb in spec.verbs:
        siblings = by_word[verb.path[0]]
        nested = len(siblings) > 1 and all(len(v.path) >= 2 for v in siblings)
        out.append(VerbCommand(game, verb, verb.path[:2] if nested else (verb.name,)))
    return out


def secret_commands(game: Game[Any], legal: list[str]) -> list[str]:
    """The commands (``/tanks hide``) of the secret verbs among ``legal`` orders."""
    return sorted(set(order_commands(game, legal, secret=True)))


def order_commands(game: Game[Any], legal: list[str], secret: bool = False) -> list[str]:
    """The commands (``/stalingrad setup``) of the verbs among ``legal`` orders, in the
    order they first appear (``secret``: only the secret verbs', as
    :func:`bot.listing.order_verbs` reads them)."""
    commands = {command.verb.name: command
                for command in verb_commands(game.name, game.order_spec)}
    return ["/" + commands[name].qualified_name
            for name in order_verbs(game, legal, secret=secret)]
