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

from adjudicator.kernel.game import Game, order_lines
from adjudicator.kernel.spec import CompiledVerb, Option, OrderSpec


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


def is_secret_order(game: Game[Any], text: str) -> bool:
    """Whether any line of a (multi-line) order text must be given only in a DM.

    Each line is parsed and the game's :meth:`~Game.is_secret` decides (hidden set-up,
    mines, traps). ``standing`` orders are private too, but they are never posted — the
    bot acknowledges them only to their sender — so they may be set anywhere. A line the
    game cannot read counts as secret when its first word could abbreviate one of the
    spec's secret verbs, so a mistyped secret is not echoed either.
    """
    return any(game.secrecy(line).private_only for line in order_lines(text))


def secret_commands(game: Game[Any], legal: list[str]) -> list[str]:
    """The commands (``/tanks hide``) of the secret verbs among ``legal`` orders."""
    return sorted(set(order_commands(game, legal, secret=True)))


def order_commands(game: Game[Any], legal: list[str], secret: bool = False) -> list[str]:
    """The commands (``/stalingrad setup``) of the verbs among ``legal`` orders, in the
    order they first appear (``secret``: only the secret verbs')."""
    spec = game.order_spec
    public_heads: set[str] = set()
    if secret:
        secret_heads = game.secret_heads()
        if not secret_heads:
            return []
        # an order led by the canonical head word of no secret verb is not read (reading
        # every legal order took tens of ms after every action: issue 26)
        public_heads = {word.lower() for word in spec.first_words()} - secret_heads
    commands = {command.verb.name: command for command in verb_commands(game.name, spec)}
    found: list[str] = []
    for order in legal:
        head = order.split(None, 1)[:1]
        if head and head[0].lower() in public_heads:
            continue
        read = spec.read(order)
        if read is not None and (not secret or game.secrecy(order).private_only):
            command = "/" + commands[read[0].name].qualified_name
            if command not in found:
                found.append(command)
    return found
