"""6.5: one order for a whole entry (``enter all at 0126-1526 face N``).

``Enter`` is shorthand: :func:`expand` turns it into the ordinary orders it means, one
``move UNIT HEX [face D]`` per unit of the side still to enter on this turn, and each is
then checked and stored exactly as if typed. The documented order of assignment:

* the units in the order of the scenario's roster (the order the board lists them);
* the range's edge hexes from its first hex to its last, one unit per hex not already
  holding one of the side's units (6.2: a unit may not end its move on a friend);
* the units left over (more units than free hexes) then enter again on the range's hexes
  from its first, each moving one hex straight in (``move UNIT 0101 0102``): 6.5 counts
  the edge hex double for the second unit there, triple for a third; when no hex in is
  free either, the order is refused and lists free edge hexes beyond the range;
* a unit whose scenario names its entry hexes or edges (25.x) takes the next hex of the
  range it may use; a unit that may use none of the range is left out (it enters by its
  own order).
"""

from __future__ import annotations

from adjudicator.kernel.errors import RuleError
from adjudicator.tanks import movement
from adjudicator.tanks.context import Ctx
from adjudicator.tanks.hexgrid import Hex, distance, neighbour
from adjudicator.tanks.movement import EDGE_INWARD
from adjudicator.tanks.orders import Enter, Move
from adjudicator.tanks.spec import EDGE_WORDS, MapSpec
from adjudicator.tanks.state import Unit

#: How many edge hexes an error about a range lists: the nearest to what was typed.
NEAR = 12


def near_edge_hexes(the_map: MapSpec, target: str, edges: frozenset[str] | None = None,
                    count: int = NEAR) -> list[str]:
    """The map edge hexes nearest ``target`` (of ``edges`` when given), nearest first."""
    wanted = edges or frozenset("NESW")
    try:
        centre = Hex.parse(target)
    except ValueError:
        centre = Hex(1, 1)
    found = sorted({h for e in sorted(wanted) for h in the_map.edge_hexes(e)},
                   key=lambda h: (distance(h, centre), h.col, h.row))
    return [str(h) for h in found[:count]]


def range_hexes(the_map: MapSpec, first: str, last: str) -> list[str]:
    """The map edge hexes from ``first`` to ``last`` along the edge both lie on, in that
    order (6.5); a :class:`RuleError` naming the hex when one is off the map or on no edge
    they share, listing the edge hexes nearest it."""
    ends = []
    for name in (first, last):
        h = Hex.parse(name)
        if not the_map.on_map(h) or not the_map.edges(h):
            where = "is not a map edge hex" if the_map.on_map(h) else "is off the map"
            raise RuleError("6.5", f"{name} {where}: units enter on map edge hexes; the "
                            f"edge hexes nearest {name} are listed", near_edge_hexes(the_map, name))
        ends.append(h)
    a, b = ends
    shared = the_map.edges(a) & the_map.edges(b)
    if not shared:
        raise RuleError("6.5", f"{first} and {last} lie on no common map edge ({first}: "
                        f"{_edge_names(the_map.edges(a))}; {last}: "
                        f"{_edge_names(the_map.edges(b))}); the "
                        f"{_edge_names(the_map.edges(a))} hexes nearest {last} are listed",
                        near_edge_hexes(the_map, last, the_map.edges(a)))
    edge = sorted(shared)[0]

    def along(h: Hex) -> int:
        return h.col if edge in "NS" else h.row

    low, high = sorted((along(a), along(b)))
    hexes = sorted((h for h in the_map.edge_hexes(edge) if low <= along(h) <= high),
                   key=along, reverse=along(a) > along(b))
    return [str(h) for h in hexes]


def _edge_names(edges: frozenset[str]) -> str:
    return " and ".join(EDGE_WORDS[e] for e in sorted(edges)) + " edge"


def to_enter(ctx: Ctx, side: str) -> list[Unit]:
    """``side``'s units still to enter on this turn, in roster order (carried units come
    on with their halftrack, 17.0)."""
    turn = ctx.state.turn
    return [u for u in ctx.state.units if u.side == side and u.status == "waiting"
            and u.hex is None and u.carrier is None
            and (not u.enter_turns or turn in u.enter_turns)]


def _may_use(ctx: Ctx, unit: Unit, hex_name: str) -> bool:
    if unit.enter_hexes and hex_name not in unit.enter_hexes:
        return False
    return not unit.enter_edges or bool(ctx.map.edges(Hex.parse(hex_name))
                                        & set(unit.enter_edges))


def inward(the_map: MapSpec, hex_name: str) -> str | None:
    """The hex straight in from the edge hex ``hex_name`` (None past a corner)."""
    h = Hex.parse(hex_name)
    edges = sorted(the_map.edges(h))
    if len(edges) != 1:
        return None
    ahead = neighbour(h, EDGE_INWARD[edges[0]])
    return str(ahead) if the_map.on_map(ahead) else None


def _move(ctx: Ctx, unit: Unit, hexes: tuple[str, ...], face: str | None) -> Move:
    """``move UNIT HEX... [face D]``: the facing only for a unit that has one (8.1)."""
    turn = (f"face {face}",) if face and ctx.type_of(unit).has_facing else ()
    return Move(unit=unit.id, steps=hexes + turn)


def expand(ctx: Ctx, side: str, order: Enter) -> list[Move]:
    """The ``move`` orders ``order`` means (see the module's documented order)."""
    if ctx.state.phase not in ("move1", "move2"):
        raise RuleError("5.0", f"units enter in a movement phase; it is the "
                        f"{ctx.state.phase} phase")
    hexes = range_hexes(ctx.map, *order.hexes)
    units = to_enter(ctx, side)
    if not units:
        raise RuleError("6.5", f"no {side} unit is waiting to enter on turn {ctx.state.turn}")
    own = {u.hex for u in ctx.state.units if u.side == side and u.hex is not None}
    free = [h for h in hexes if h not in own]
    moves: list[Move] = []
    later: list[Unit] = []  # no free edge hex left: they enter and move one hex on
    for unit in units:
        pick = next((h for h in free if _may_use(ctx, unit, h)), None)
        if pick is None:
            if any(_may_use(ctx, unit, h) for h in hexes):
                later.append(unit)
            continue
        free.remove(pick)
        moves.append(_move(ctx, unit, (pick,), order.face))
    taken = own | {m.steps[0] for m in moves}
    turn = 0
    for unit in later:  # 6.5: a hex entered again counts double, triple... for later units
        for offset in range(len(hexes)):
            hex_name = hexes[(turn + offset) % len(hexes)]
            ahead = inward(ctx.map, hex_name)
            if ahead is not None and ahead not in taken and _may_use(ctx, unit, hex_name):
                taken.add(ahead)
                moves.append(_move(ctx, unit, (hex_name, ahead), order.face))
                turn += offset + 1
                break
        else:
            left = len(units) - len(moves)
            raise RuleError("6.2", f"{unit.id} has no free hex left in {'-'.join(order.hexes)} "
                            f"nor one hex in from it ({left} units still to place: a unit may "
                            "not end its move on a friend); widen the range: the free edge "
                            "hexes nearest it are listed",
                            [h for h in near_edge_hexes(ctx.map, order.hexes[1],
                                                        ctx.map.edges(Hex.parse(hexes[-1])),
                                                        NEAR + len(hexes))
                             if h not in own and h not in hexes][:NEAR])
    if not moves:
        allowed = sorted({h for u in units for h in u.enter_hexes})
        edges = sorted({e for u in units for e in u.enter_edges})
        where = (", ".join(allowed) if allowed else
                 " or ".join(EDGE_WORDS[e] for e in edges) + " edge")
        raise RuleError("6.5", f"none of {side}'s units waiting to enter may enter on "
                        f"{'-'.join(order.hexes)}: they enter on {where}",
                        allowed[:NEAR])
    return moves


def entry_orders(ctx: Ctx, side: str) -> list[tuple[str, str]]:
    """6.5: the legal orders to list: per map edge the waiting units may enter by, one
    range facing inward — the whole edge (``enter all at 0101-3101 face S``), else the
    longest run of it between hexes holding an enemy unit the side sees (6.3) that
    brings them on — labelled with how many units it brings on; none outside the
    side's movement phases or when none may enter."""
    if ctx.state.phase not in ("move1", "move2") or ctx.state.phasing != side:
        return []
    units = to_enter(ctx, side)
    if not units:
        return []
    edges = sorted({e for u in units for e in (u.enter_edges or "NESW")})
    found: list[tuple[str, str]] = []
    for edge in edges:
        face = EDGE_INWARD[edge].name
        for hexes in _runs(ctx, side, [str(h) for h in ctx.map.edge_hexes(edge)]):
            order = Enter(hexes=(hexes[0], hexes[-1]), face=face)
            try:  # listed only when each move, judged on its own, is legal (25.1's road...)
                moves = expand(ctx, side, order)
                for move in moves:
                    unit = ctx.state.unit(move.unit)
                    assert unit is not None
                    movement.plan(ctx, side, unit, move.steps)
            except RuleError:
                continue
            if moves:
                found.append((f"enter all at {'-'.join(order.hexes)} face {order.face}",
                              f"{len(moves)} units enter by the {EDGE_WORDS[edge]} edge "
                              "(6.5)"))
                break
    return found


def _runs(ctx: Ctx, side: str, edge: list[str]) -> list[list[str]]:
    """The ranges of an edge an entry may try: the whole edge, then its runs between the
    hexes holding an enemy unit ``side`` sees (6.3: none may enter them), longest first."""
    runs: list[list[str]] = [[]]
    for hex_name in edge:
        if any(u.side != side for u in ctx.visible_occupants(hex_name, side)):
            runs.append([])
        else:
            runs[-1].append(hex_name)
    return [edge, *sorted((r for r in runs if r and r != edge), key=len, reverse=True)]
