"""The movement search of Stalin's Tanks: every way a unit can move this phase.

A search over hex and facing within the Movement Factor left (8.2 forward moves, 8.3 facing
changes, 8.4 backing up, 7.2 road moves as a second search, 7.8 the one hex always allowed,
6.5 entry with its stacking cost), on the map as integer tables cached per map. It is judged
from what the side knows — its own units, enemy units not hidden, minefields already found —
never from a secret; equal-cost paths avoid known minefields. The legal orders
(:mod:`adjudicator.tanks.legal`) and ``move UNIT to HEX`` (the cheapest path) read it.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.memo import Memo
from adjudicator.tanks import movement
from adjudicator.tanks.context import Ctx
from adjudicator.tanks.exits import exit_token, exit_ways
from adjudicator.tanks.hexgrid import Direction, Hex, distance, neighbour
from adjudicator.tanks.spec import PROHIBITED, MapSpec, UnitType
from adjudicator.tanks.state import Unit

DIRECTIONS = tuple(Direction)
ANY = 6  # node slot: on the hex after a facing change, any facing still to choose
ENTRY = 7  # node slot: just entered at this hex, facing chosen by the next step (6.5, 8.2)
SLOTS = 8
MINE_WEIGHT = 64  # a path's key is cost * MINE_WEIGHT + known minefields entered
#: The note on every move a hidden unit may make (20.0: moving places it on the map).
REVEALS = "reveals it: a hidden unit that moves is placed on the map (20.0)"
#: How many reachable hexes a "cannot reach" refusal lists, the nearest to the target first.
NEAREST = 8

# ---- the map as integer tables (cached per map) -----------------------------------------------


@dataclass(frozen=True)
class Grid:
    names: tuple[str, ...]
    index: dict[str, int]
    nb: tuple[tuple[int, ...], ...]  # per hex, the six neighbours N..NW (-1: off the map)
    exits: tuple[tuple[int, ...], ...]  # per hex, directions (0-5) leading off the map
    entry_dirs: tuple[tuple[int, ...], ...]  # per edge hex: first steps after entering
    entry_face: tuple[int, ...]  # per edge hex: the facing on entry if no step follows


#: Per-map tables, kept with the maps (and tables) they were made from.
_GRIDS = Memo[Grid](size=64)
_COSTS = Memo[tuple[int, ...]](size=256)


def grid_of(m: MapSpec) -> Grid:
    return _GRIDS.get((m,), None, lambda: _make_grid(m))


def _make_grid(m: MapSpec) -> Grid:
    hexes = m.all_hexes
    names = tuple(str(h) for h in hexes)
    index = {name: i for i, name in enumerate(names)}
    position = {h: i for i, h in enumerate(hexes)}
    nb = tuple(tuple(position.get(neighbour(h, d), -1) for d in DIRECTIONS) for h in hexes)
    exits = tuple(tuple(d for d in range(6) if row[d] < 0) for row in nb)
    entry_dirs: list[tuple[int, ...]] = []
    entry_face: list[int] = []
    for h, row in zip(hexes, nb, strict=True):
        # movement.entry_facings / _entry_facing: rear towards the edge, and when the
        # next step is a hex, a facing that has it ahead
        options = [d for d in range(6) if row[(d + 3) % 6] < 0]
        entry_dirs.append(tuple(sorted({(o + k) % 6 for o in options for k in (5, 0, 1)})))
        face = options[0] if options else -1
        for edge in sorted(m.edges(h)):
            inward = movement.EDGE_INWARD[edge].value - 1
            if inward in options:
                face = inward
                break
        entry_face.append(face)
    return Grid(names, index, nb, exits, tuple(entry_dirs), tuple(entry_face))


def _costs(ctx: Ctx, grid: Grid, kind: str) -> tuple[int, ...]:
    """Terrain cost of entering each hex for a unit kind (PROHIBITED where it may not)."""
    key = (bool(ctx.state.flags.get("clear_terrain")), kind)
    return _COSTS.get((ctx.map, ctx.tables), key, lambda: tuple(
        movement.terrain_cost(ctx, name, kind) for name in grid.names))


def _roads(ctx: Ctx, grid: Grid) -> tuple[int, ...]:
    key = (bool(ctx.state.flags.get("clear_terrain")), "road")
    return _COSTS.get((ctx.map,), key, lambda: tuple(
        int(ctx.is_road(name)) for name in grid.names))


# ---- the search ---------------------------------------------------------------------------------


@dataclass
class Search:
    """Cheapest known-safe paths of one unit: node -> (key, parent node, tokens to it)."""

    best: dict[int, int]
    parent: dict[int, tuple[int, tuple[str, ...]]]
    starts: dict[int, tuple[str, ...]]
    road: bool = False  # the 7.2 all-road search: keys count road MF

    def tokens(self, node: int) -> list[str]:
        out: list[str] = []
        while node not in self.starts:
            node, step = self.parent[node]
            out[:0] = step
        return [*self.starts[node], *out]


@dataclass
class Weights:
    """Per hex, the key a step into it adds (cost * MINE_WEIGHT + 1 for a known minefield),
    -1 where the unit may not go: forward and backing (8.4), normal and all-road (7.2)."""

    forward: list[int]
    back: list[int]
    road: list[int]
    road_back: list[int]


def weights(ctx: Ctx, grid: Grid, kind: str, known: frozenset[int], enemy: frozenset[int],
            road_bound: bool) -> Weights:
    cost, roads = _costs(ctx, grid, kind), _roads(ctx, grid)
    back = int(ctx.tables.const("backing_up_multiplier"))
    w = Weights([], [], [], [])
    for h, c in enumerate(cost):
        if c == PROHIBITED or h in enemy or (road_bound and not roads[h]):
            w.forward.append(-1)
            w.back.append(-1)
            w.road.append(-1)
            w.road_back.append(-1)
            continue
        mine = int(h in known)
        w.forward.append(c * MINE_WEIGHT + mine)
        w.back.append(back * c * MINE_WEIGHT + mine)
        w.road.append(MINE_WEIGHT + mine if roads[h] else -1)
        w.road_back.append(back * MINE_WEIGHT + mine if roads[h] else -1)
    return w


class Mover:
    """What one unit may do in the current movement phase, as seen by its side."""

    def __init__(self, ctx: Ctx, side: str, unit: Unit, kind_type: UnitType, grid: Grid,
                 weights: Weights, enemy: frozenset[int], friends: dict[int, int]):
        self.ctx, self.side, self.unit, self.type, self.grid = ctx, side, unit, kind_type, grid
        self.kind = kind_type.kind
        self.facing = kind_type.has_facing
        self.cost = _costs(ctx, grid, self.kind)
        self.roads = _roads(ctx, grid)
        self.w = weights
        self.enemy = enemy  # hexes holding enemy units this side knows of
        self.friends = friends  # hex -> number of this side's other units there (6.2)
        state = ctx.state
        self.face_cost = int(ctx.tables.const("facing_change_cost"))
        self.back = int(ctx.tables.const("backing_up_multiplier"))
        normal, road = movement.allowance(ctx, unit, kind_type)
        self.budget = normal - unit.spent
        started_on_road = unit.hex is None or ctx.is_road(unit.hex)
        self.road_budget = (road - unit.road_spent if road is not None and not unit.off_road
                            and started_on_road else None)
        self.road_bound = (state.flags.get("road_bound") == side
                           and not state.flags.get("road_released"))
        self.single = unit.spent == 0 and not unit.move_open
        self.start = grid.index[unit.hex] if unit.hex is not None else None
        self._searches: list[Search] | None = None

    # -- the searches --

    def enterable(self, h: int) -> bool:
        return self.w.forward[h] >= 0

    def entry_starts(self) -> dict[int, tuple[int, int]]:
        """Entry hex -> (terrain cost, road cost) for a unit entering the map now."""
        ctx, unit = self.ctx, self.unit
        if unit.enter_turns and ctx.state.turn not in unit.enter_turns:
            return {}
        if unit.enter_hexes:
            names = list(unit.enter_hexes)
        else:
            names = []
            for edge in unit.enter_edges or ["N", "S", "E", "W"]:
                names += [str(h) for h in ctx.map.edge_hexes(edge)]
        locked = movement.entry_edges_open(ctx.state, unit.side)
        out: dict[int, tuple[int, int]] = {}
        for name in names:
            h = self.grid.index.get(name)
            if h is None or h in out or not self.enterable(h):
                continue
            edges = ctx.map.edges(Hex.parse(name))
            if not edges or (unit.enter_edges and not edges & set(unit.enter_edges)):
                continue
            if locked is not None and not edges & locked:
                continue
            multiplier = ctx.state.entries.get(name, 0) + 1
            out[h] = (self.cost[h] * multiplier, multiplier)
        return out

    def searches(self) -> list[Search]:
        if self._searches is None:
            self._searches = [s for s in (self.search(False), self.search(True))
                              if s is not None]
        return self._searches

    def search(self, road: bool, budget: int | None = None) -> Search | None:
        """Dijkstra over (hex, facing slot); ``road``: the 7.2 all-road search; ``budget``
        (default the MF the unit has left) bounds it."""
        if budget is None:
            budget = self.road_budget if road else self.budget
        if budget is None or budget < 0:
            return None
        fw = self.w.road if road else self.w.forward
        bw = self.w.road_back if road else self.w.back
        best: dict[int, int] = {}
        parent: dict[int, tuple[int, tuple[str, ...]]] = {}
        starts: dict[int, tuple[str, ...]] = {}
        heap: list[tuple[int, int]] = []
        names = self.grid.names
        if self.start is not None:
            slot = Direction[self.unit.facing].value - 1 if (
                self.facing and self.unit.facing) else 0
            if road and not self.roads[self.start]:
                return None
            node = self.start * SLOTS + slot
            best[node] = 0
            starts[node] = ()
            heap.append((0, node))
        else:
            for h, (terrain, multiplier) in self.entry_starts().items():
                if fw[h] < 0:
                    continue
                cost = multiplier if road else terrain
                if cost > budget:
                    continue
                node = h * SLOTS + (ENTRY if self.facing else 0)
                key = cost * MINE_WEIGHT + fw[h] % MINE_WEIGHT
                best[node] = key
                starts[node] = (names[h],)
                heap.append((key, node))
            heapq.heapify(heap)
        nb = self.grid.nb
        entry_dirs = self.grid.entry_dirs
        limit = (budget + 1) * MINE_WEIGHT
        face = self.face_cost * MINE_WEIGHT
        get = best.get
        push = heapq.heappush
        pop = heapq.heappop
        facing = self.facing
        all_dirs = range(6)
        while heap:
            key, node = pop(heap)
            if key != get(node):
                continue
            h, slot = divmod(node, SLOTS)
            row = nb[h]
            if not facing:
                for n in row:
                    if n < 0 or fw[n] < 0:
                        continue
                    nk = key + fw[n]
                    target = n * SLOTS
                    if nk < limit and nk < get(target, limit):
                        best[target] = nk
                        parent[target] = (node, (names[n],))
                        push(heap, (nk, target))
                continue
            turned = slot == ANY
            if slot < 6:
                forward: Iterable[int] = ((slot + 5) % 6, slot, (slot + 1) % 6)
                backs: Iterable[int] = ((slot + 3) % 6,)
            elif slot == ENTRY:
                forward = entry_dirs[h]
                backs = ()
            else:  # ANY: face first, then step
                forward = backs = all_dirs
            if not turned:
                nk = key + face
                target = h * SLOTS + ANY
                if nk < limit and nk < get(target, limit):
                    best[target] = nk
                    parent[target] = (node, ())
                    push(heap, (nk, target))
            for d in forward:
                n = row[d]
                if n < 0 or fw[n] < 0:
                    continue
                nk = key + fw[n]
                target = n * SLOTS + d
                if nk < limit and nk < get(target, limit):
                    best[target] = nk
                    parent[target] = (node, (f"face {DIRECTIONS[d].name}", names[n])
                                      if turned else (names[n],))
                    push(heap, (nk, target))
            for d in backs:
                n = row[d]
                if n < 0 or bw[n] < 0:
                    continue
                nk = key + bw[n]
                kept = (d + 3) % 6
                target = n * SLOTS + kept
                if nk < limit and nk < get(target, limit):
                    best[target] = nk
                    parent[target] = (node, (f"face {DIRECTIONS[kept].name}", names[n])
                                      if turned else (names[n],))
                    push(heap, (nk, target))
        return Search(best, parent, starts, road)

    def entry_facing(self, h: int) -> int:
        return self.grid.entry_face[h]

    # -- orders --

    def stoppable(self, h: int) -> bool:
        return self.friends.get(h, 0) == 0

    def destinations(self) -> dict[int, tuple[int, list[str]]]:
        """Each hex the unit may end its move in (6.2: no friend there), with the cheapest
        path's key (cost * MINE_WEIGHT + known minefields) and its tokens; 7.8's single
        hex whatever it costs."""
        searches = self.searches()
        dest: dict[int, tuple[int, list[str]]] = {}  # hex -> (key, tokens)
        reached: dict[int, tuple[int, int, Search]] = {}  # hex -> (key, node, search)
        for found in searches:
            for node, key in found.best.items():
                h = node // SLOTS
                if node % SLOTS == ANY:
                    continue  # a facing change with no step after it: its parent is cheaper
                if h not in reached or key < reached[h][0]:
                    reached[h] = (key, node, found)
        for h, (key, node, found) in reached.items():
            if h != self.start and self.stoppable(h):
                dest[h] = (key, found.tokens(node))
        if self.single:  # 7.8: one hex, whatever it costs
            for h, tokens in self._single_steps():
                if h not in dest and self.stoppable(h):
                    dest[h] = (0, tokens)
        return dest

    def orders(self) -> list[tuple[str, str]]:
        """(order, label): a move to each destination once with its cost, turns in place,
        exits and overruns."""
        unit, names = self.unit, self.grid.names
        searches = self.searches()
        out = [(f"move {unit.id} to {names[h]}", _cost_label(key, tokens))
               for h, (key, tokens) in sorted(self.destinations().items(),
                                             key=lambda item: names[item[0]])]
        if self.start is not None and self.facing and self.stoppable(self.start) and (
                self.face_cost <= self.budget):
            out += [(f"move {unit.id} face {d.name}", f"{self.face_cost} MF")
                    for d in DIRECTIONS if d.name != unit.facing]
        if not self.road_bound:
            out += [(o, "") for o in self._exits(searches)]
        if self.kind == "tank" and self.ctx.state.options.get("overrun") and (
                self.ctx.state.phase == "move1") and not self.road_bound:
            out += [(o, "") for o in self._overruns(searches)]
        if unit.hidden and unit.hex is not None:  # 20.0: said before the order is given
            out = [(order, f"{label}; {REVEALS}" if label else REVEALS) for order, label in out]
        return out

    def path_to(self, h: int, face: str | None) -> list[str] | None:
        """The cheapest legal tokens ending in hex ``h`` (facing ``face`` when given: turning
        there last if the path does not arrive so), or None when it cannot end there."""
        if not self.stoppable(h):
            return None
        if h == self.start:
            if face is None or face == self.unit.facing:
                return []
            return [f"face {face}"] if self.face_cost <= self.budget else None
        if face is None:
            found = self.destinations().get(h)
            return found[1] if found else None
        best: tuple[int, list[str]] | None = None
        wanted = DIRECTIONS.index(Direction[face])
        for search in self.searches():
            for slot in range(SLOTS):
                node = h * SLOTS + slot
                key = search.best.get(node)
                if key is None:
                    continue
                for facing, extra in (self._facings_at(search, node) if self.facing
                                      else [(wanted, [])]):
                    rank = key
                    tokens = [*search.tokens(node), *extra]
                    if facing != wanted:
                        rank += self.face_cost * MINE_WEIGHT
                        tokens.append(f"face {face}")
                    budget = self.road_budget if search.road else self.budget
                    if budget is None or rank // MINE_WEIGHT > budget:
                        continue
                    if best is None or rank < best[0]:
                        best = (rank, tokens)
        return best[1] if best else None

    def full_cost(self, h: int) -> int | None:
        """The MF of the cheapest path into hex ``h`` whatever the unit has left (None: no
        path at all): what "cannot reach" explains a refusal with."""
        bound = (self.back * sum(c for c in self.cost if c != PROHIBITED)
                 + self.face_cost * len(self.cost))
        found = self.search(False, bound)
        if found is None:
            return None
        keys = [key for slot in range(SLOTS) if slot != ANY
                and (key := found.best.get(h * SLOTS + slot)) is not None]
        return min(keys) // MINE_WEIGHT if keys else None

    def why_not(self, h: int) -> str:
        """Why the unit cannot end its move in hex ``h`` this phase: the hex is closed to
        it (prohibited terrain, a known enemy, off the road when road-bound), or the
        cheapest path costs more than the MF it has left (6.1)."""
        name = self.grid.names[h]
        terrain = self.ctx.terrain(name)
        if h in self.enemy:
            return f"an enemy unit is in {name} (6.3)"
        if self.cost[h] == PROHIBITED:
            return f"{name} is {terrain}, which a {self.kind.replace('_', ' ')} may not enter"
        if self.road_bound and not self.roads[h]:
            return f"{name} is off the road and the side is road-bound"
        cost = self.full_cost(h)
        if cost is None:
            return f"no path leads to {name}"
        return (f"the cheapest path costs {cost} MF ({name} is {terrain}: {self.cost[h]} MF "
                f"to enter) and it has {self.budget} MF left")

    def reach_tokens(self, h: int) -> list[str] | None:
        """The cheapest legal path ending in hex ``h`` whatever stands there (loading)."""
        best: tuple[int, list[str]] | None = None
        for found in self.searches():
            for slot in range(SLOTS):
                node = h * SLOTS + slot
                key = found.best.get(node)
                if key is None or slot == ANY or (best is not None and key >= best[0]):
                    continue
                best = (key, found.tokens(node))
        if best is None and self.single:
            for n, tokens in self._single_steps():
                if n == h:
                    return tokens
        return best[1] if best else None

    def _single_steps(self) -> list[tuple[int, list[str]]]:
        out: list[tuple[int, list[str]]] = []
        if self.start is None:
            return [(h, [self.grid.names[h]]) for h in self.entry_starts()]
        row = self.grid.nb[self.start]
        if self.facing and self.unit.facing:
            slot = Direction[self.unit.facing].value - 1
            directions = [(slot + 5) % 6, slot, (slot + 1) % 6, (slot + 3) % 6]
        else:
            directions = list(range(6))
        for d in directions:
            n = row[d]
            if n >= 0 and self.enterable(n):
                out.append((n, [self.grid.names[n]]))
        return out

    def _facings_at(self, found: Search, node: int) -> list[tuple[int, list[str]]]:
        """(facing, extra tokens) the unit may have at a node, with what it costs to get it."""
        slot = node % SLOTS
        if slot < 6:
            return [(slot, [])]
        if slot == ENTRY:
            return [(self.entry_facing(node // SLOTS), [])]
        before = found.parent[node][0] % SLOTS
        was = self.entry_facing(node // SLOTS) if before == ENTRY else before
        return [(d, [f"face {DIRECTIONS[d].name}"]) for d in range(6) if d != was]

    def _exits(self, searches: Sequence[Search]) -> list[str]:
        """6.6: the cheapest way off the map across each edge (8.2: ahead or backing up)."""
        best: dict[str, tuple[int, list[str]]] = {}
        names = self.grid.names
        for found in searches:
            for node, key in found.best.items():
                h = node // SLOTS
                ways = self.grid.exits[h]
                if not ways:
                    continue
                cost = key // MINE_WEIGHT
                options = self._facings_at(found, node) if self.facing else [(-1, [])]
                for facing, extra in options:
                    exits = exit_ways(self.ctx.map, Hex.parse(names[h]),
                                      DIRECTIONS[facing] if facing >= 0 else None)
                    if exits is None:
                        continue
                    # an ANY node's key holds its facing change
                    total = cost + (self.back if exits.backing else 1)
                    if total > self.budget:
                        continue
                    rank = total * MINE_WEIGHT + key % MINE_WEIGHT
                    for edge in sorted(exits.edges):
                        if edge not in best or rank < best[edge][0]:
                            best[edge] = (rank, [*found.tokens(node), *extra,
                                                 exit_token(exits, edge)])
        return [format_move(self.unit.id, tokens) for _, (_, tokens) in sorted(best.items())]

    def _overruns(self, searches: Sequence[Search]) -> list[str]:
        """23.0: the cheapest overrun of each hex of unarmored enemies in reach."""
        ctx, names, nb = self.ctx, self.grid.names, self.grid.nb
        extra_cost = int(ctx.tables.const("overrun_extra_cost"))
        targets: dict[int, bool] = {}
        best: dict[int, tuple[int, list[str]]] = {}
        for found in searches:
            for node, key in found.best.items():
                h = node // SLOTS
                for facing, extra in self._facings_at(found, node):
                    for d in ((facing + 5) % 6, facing, (facing + 1) % 6):
                        t = nb[h][d]
                        if t < 0 or t not in self.enemy:
                            continue
                        if t not in targets:
                            targets[t] = self._overrun_target(t)
                        x = nb[t][d]
                        if not targets[t] or x < 0 or (  # any terrain (23.2)
                                self.friends.get(x, 0) or x in self.enemy or x == self.start):
                            continue
                        total = key // MINE_WEIGHT + self.cost[t] + extra_cost
                        if total > self.budget:
                            continue
                        rank = total * MINE_WEIGHT + key % MINE_WEIGHT
                        if t not in best or rank < best[t][0]:
                            best[t] = (rank, [*found.tokens(node), *extra,
                                              f"overrun {names[t]}"])
        return [format_move(self.unit.id, tokens) for _, (_, tokens) in
                sorted(best.items(), key=lambda item: names[item[0]])]

    def _overrun_target(self, t: int) -> bool:
        ctx, name = self.ctx, self.grid.names[t]
        victims = [u for u in ctx.visible_occupants(name, self.side) if u.side != self.side]
        return bool(victims) and not any(ctx.type_of(v).armored for v in victims) and (
            ctx.tables.terrain[ctx.terrain(name)].overrun_need is not None)


def _cost_label(key: int, tokens: Sequence[str]) -> str:
    mines = key % MINE_WEIGHT
    return f"{key // MINE_WEIGHT} MF" + (f", {mines} known minefield(s)" if mines else "")


def format_move(unit_id: str, tokens: Sequence[str]) -> str:
    return " ".join(["move", unit_id, *tokens])


def _knowledge(ctx: Ctx, side: str, grid: Grid) -> tuple[frozenset[int], frozenset[int]]:
    """Hexes of minefields ``side`` has found (others') and of enemies it knows of."""
    state = ctx.state
    known = frozenset(grid.index[h] for h, owner in state.known_mines.items()
                      if owner != side and h in grid.index)
    enemy = frozenset(grid.index[u.hex] for u in ctx.enemies_seen_by(side)
                      if u.hex in grid.index)
    return known, enemy


def mover_for(ctx: Ctx, side: str, unit: Unit) -> Mover:
    """The movement search of one unit as ``side`` knows the map (raises RuleError when it
    may not move now)."""
    kind_type = movement.check_mover(ctx, side, unit)
    grid = grid_of(ctx.map)
    known, enemy = _knowledge(ctx, side, grid)
    road_bound = bool(ctx.state.flags.get("road_bound") == side
                      and not ctx.state.flags.get("road_released"))
    friends: dict[int, int] = {}
    for u in ctx.friends(side):
        if u.hex is not None and u.id != unit.id and u.carrier != unit.id:
            friends[grid.index[u.hex]] = friends.get(grid.index[u.hex], 0) + 1
    return Mover(ctx, side, unit, kind_type, grid,
                 weights(ctx, grid, kind_type.kind, known, enemy, road_bound), enemy, friends)


def path_to(ctx: Ctx, side: str, unit: Unit, dest: str, face: str | None
            ) -> tuple[list[str], str]:
    """The cheapest legal path of hexes and facings that ends ``unit``'s move in ``dest``
    (facing ``face``), and its cost; refused with the hexes it can reach."""
    mover = mover_for(ctx, side, unit)
    h = mover.grid.index.get(dest)
    if h is None:
        raise RuleError("6.1", f"{dest} is not on the map")
    tokens = mover.path_to(h, face)
    if tokens is None:
        where = sorted(mover.grid.names[n] for n in mover.destinations())
        if not mover.stoppable(h):
            raise RuleError("6.2", f"{unit.id} may not end its move in {dest}: a friend is "
                            "there", [f"move {unit.id} to {w}" for w in where[:12]])
        facing = f" facing {face}" if face else ""
        target = Hex.parse(dest)
        where.sort(key=lambda w: (distance(Hex.parse(w), target), w))  # the nearest first
        shown = ", ".join(where[:NEAREST]) + (
            f" and {len(where) - NEAREST} more" if len(where) > NEAREST else "")
        why = mover.why_not(h) if not face or mover.path_to(h, None) is None else (
            f"it cannot also face {face} there")
        raise RuleError("6.1", f"{unit.id} cannot reach {dest}{facing} this phase: {why}"
                        + (f"; nearest it can reach: {shown}" if where
                           else "; it cannot move now"),
                        [f"move {unit.id} to {w}" for w in where[:NEAREST]])
    key = _tokens_cost(mover, tokens)
    return tokens, key


def _tokens_cost(mover: Mover, tokens: list[str]) -> str:
    """The MF the tokens cost, as the move's own plan counts it."""
    if not tokens:
        return "0 MF"
    plan = movement.plan(mover.ctx, mover.side, mover.unit, tuple(tokens))
    spent = plan.cost - mover.unit.spent
    if plan.on_road and plan.cost > movement.allowance(mover.ctx, mover.unit, mover.type)[0]:
        return f"{plan.road_cost - mover.unit.road_spent} MF on the road (7.2)"
    return f"{spent} MF"

