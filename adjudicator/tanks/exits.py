"""Leaving the map (6.6 with 8.2): through which hexside, and so by which edge.

A unit leaves the map through a hexside it may move through: a tank or SP gun ahead,
half-left or half-right, or backing up (8.2, 8.4); a unit without a facing through any
off-map hexside. Moving straight ahead it leaves through its facing hexside. Where the
edge is still open to doubt (a unit without a facing in a corner hex, a facing hexside
between two edges, or two front hexsides on different edges with none straight ahead), the
order names the edge (``exit north``); a named edge must be one of those hexsides' edges.
docs/rulings.md, "Which edge a unit leaves by".
"""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.kernel.errors import RuleError
from adjudicator.tanks.hexgrid import Direction, Hex, neighbour
from adjudicator.tanks.spec import EDGE_WORDS, MapSpec

#: An edge as typed after ``exit``: its word or its letter.
EDGE_BY_WORD = {**{w: e for e, w in EDGE_WORDS.items()}, **{e.lower(): e for e in EDGE_WORDS}}


@dataclass(frozen=True)
class ExitWays:
    """The (hexside, edge) pairs a unit may leave by, and whether it backs up (8.4)."""

    pairs: tuple[tuple[Direction, str], ...]
    backing: bool
    straight: frozenset[str]  # the edges of its facing hexside (moving straight ahead)

    @property
    def edges(self) -> frozenset[str]:
        return frozenset(edge for _, edge in self.pairs)

    def unnamed(self) -> str | None:
        """The edge an ``exit`` that names none leaves by; None where it must be named."""
        candidates = self.straight or self.edges
        return next(iter(candidates)) if len(candidates) == 1 else None


def exit_ways(m: MapSpec, h: Hex, facing: Direction | None) -> ExitWays | None:
    """How a unit in ``h`` (facing ``facing``, None for none) may leave the map; None when
    it may not (8.2: no off-map hexside ahead or behind). Empty pairs: not an edge hex."""
    ways = [d for d in Direction if not m.on_map(neighbour(h, d))]
    backing = False
    if facing is not None and ways:
        forward = [d for d in ways if d in facing.front_hexsides()]
        if forward:
            ways = forward
        elif facing.opposite in ways:
            ways, backing = [facing.opposite], True
        else:
            return None
    pairs = tuple((d, edge) for d in ways for edge in sorted(m.edges_beyond(neighbour(h, d))))
    straight = frozenset(e for d, e in pairs if d == facing and not backing)
    return ExitWays(pairs, backing, straight)


def exit_edge(ways: ExitWays, named: str | None, unit_id: str, here: str) -> str:
    """The edge the unit leaves by, or a refusal citing 6.6 that lists the ways to say it."""
    choices = [f"exit {EDGE_WORDS[e]}" for e in sorted(ways.edges)]
    if named is not None:
        if named not in ways.edges:
            raise RuleError("6.6", f"{unit_id} may not leave {here} by the "
                            f"{EDGE_WORDS[named]} edge; it may leave by the "
                            f"{' or '.join(EDGE_WORDS[e] for e in sorted(ways.edges))} edge",
                            choices)
        return named
    edge = ways.unnamed()
    if edge is None:
        raise RuleError("6.6", f"{unit_id} may leave {here} by the "
                        f"{' or '.join(EDGE_WORDS[e] for e in sorted(ways.edges))} edge: "
                        "name it (" + " / ".join(choices) + ")", choices)
    return edge


def exit_token(ways: ExitWays, edge: str) -> str:
    """The move step that leaves by ``edge``: ``exit`` where that is the unnamed exit's edge,
    else ``exit EDGE``."""
    return "exit" if ways.unnamed() == edge else f"exit {EDGE_WORDS[edge]}"
