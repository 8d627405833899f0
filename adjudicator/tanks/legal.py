"""The legal orders of a position, for autocomplete, the console and random play.

Everything is judged from what the side to act knows — its own units, enemy units not
hidden, minefields already found — never from a secret, so the list cannot be used to probe
for hidden units or mines (the same property as the refusals of ``movement.plan`` and
``fire.plan_fire``). What the list holds, per phase:

* **movement**: for every unit that may move, one order per reachable destination hex with
  the cheapest legal path (a search over hex and facing within the Movement Factor left:
  8.2 forward moves, 8.3 facing changes, 8.4 backing up, 7.2 road moves as a second search,
  7.8 the one hex always allowed, 6.5 entry with its stacking cost); turning in place; one
  exit per map edge (6.6); overruns (23.0); loading onto a halftrack (17.1) and unloading
  with every destination after it (17.3); barrage hexes (18.1: every hex one of the side's
  units sees). Equal-cost paths avoid known minefields.
* **fire phases**: every legal shot per unit and ammunition (AT/AP by default, HE against
  armour), combined infantry fire (15.2, bounded below), close and suicide assaults.
* **set-up**: every hex of the zone for the next unplaced unit of each type and group (units
  of one type are interchangeable), shown and hidden where allowed, and every mine hex.

Sizes are bounded by the map: at most one order per unit and destination hex (plus one per
edge, overrun target and passenger), and per target at most one combined fire per odds
column. ``umpire bench tanks`` measures the cost.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.listed import Listed, any_of, listed
from adjudicator.kernel.memo import Memo
from adjudicator.kernel.orders import Order
from adjudicator.tanks import artillery, entry, fire, movement, scenario
from adjudicator.tanks.context import Ctx, two_dice_at_most
from adjudicator.tanks.hexgrid import Direction, Hex, distance, line_of_sight, neighbours
from adjudicator.tanks.orders import (
    Assault,
    Enter,
    Fire,
    Hide,
    Load,
    Move,
    Place,
    Unload,
    format_order,
    parse_order,
)
from adjudicator.tanks.paths import (
    Grid,
    Mover,
    Weights,
    _cost_label,
    _costs,
    _knowledge,
    format_move,
    grid_of,
    weights,
)
from adjudicator.tanks.spec import EDGE_WORDS, PROHIBITED
from adjudicator.tanks.state import FIRE_PHASES, PHASE_NAMES, Unit

# ---- movement ----------------------------------------------------------------------------------


def movement_orders(ctx: Ctx, side: str, units: Iterable[Unit] | None = None) -> list[str]:
    """:func:`movement_entries` without their labels."""
    return [order for order, _ in movement_entries(ctx, side, units)]


def movement_entries(ctx: Ctx, side: str, units: Iterable[Unit] | None = None
                     ) -> list[tuple[str, str]]:
    """Moves (one per destination hex, with its cost), turns, exits, overruns, loads and
    unloads of ``side``'s units (or just ``units``).

    Units waiting to enter with the same type, entry rules and bookkeeping have the same
    moves: they are searched once and the orders repeated under each unit's id.
    """
    state = ctx.state
    grid = grid_of(ctx.map)
    known, enemy = _knowledge(ctx, side, grid)
    road_bound = bool(state.flags.get("road_bound") == side
                      and not state.flags.get("road_released"))
    occupied: dict[str, list[Unit]] = {}
    for u in ctx.friends(side):
        assert u.hex is not None
        occupied.setdefault(u.hex, []).append(u)
    out: list[tuple[str, str]] = []
    chosen = [u for u in state.units if u.side == side and u.status in ("on", "waiting")]
    if units is not None:
        wanted = {u.id for u in units}
        chosen = [u for u in chosen if u.id in wanted]
    by_kind: dict[str, Weights] = {}
    shared: dict[tuple[Any, ...], list[tuple[str, str]]] = {}
    for unit in chosen:
        try:
            kind_type = movement.check_mover(ctx, side, unit)
        except RuleError:
            continue
        profile = None
        if unit.status == "waiting":
            profile = (unit.type, tuple(unit.enter_turns), tuple(unit.enter_edges),
                       tuple(unit.enter_hexes), unit.spent, unit.road_spent, unit.off_road,
                       unit.move_open)
            if profile in shared:
                out += [(_renamed(text, unit.id), label) for text, label in shared[profile]]
                continue
        if kind_type.kind not in by_kind:
            by_kind[kind_type.kind] = weights(ctx, grid, kind_type.kind, known, enemy,
                                              road_bound)
        friends = {grid.index[h]: sum(1 for u in us if u.id != unit.id and u.carrier != unit.id)
                   for h, us in occupied.items()}
        mover = Mover(ctx, side, unit, kind_type, grid, by_kind[kind_type.kind], enemy,
                      friends)
        found = mover.orders()
        if kind_type.kind == "halftrack":
            passenger = ctx.passenger_of(unit)
            if state.phase == "move2" and passenger is not None and not unit.spent and (
                    not unit.move_done):
                found.append((f"unload {unit.id}", "and stay"))  # 17.3: or move on after it
                found += [(format_move(unit.id, tokens).replace("move", "unload", 1),
                           _cost_label(key, tokens))
                          for _, (key, tokens) in sorted(mover.destinations().items())]
            if state.phase == "move1" and passenger is None:
                found += [(o, "") for o in _loads(ctx, side, mover, occupied)]
        if profile is not None:
            shared[profile] = found
        out += found
    return out


def _renamed(text: str, unit_id: str) -> str:
    verb, _, rest = text.split(" ", 2)
    return f"{verb} {unit_id} {rest}"


def _loads(ctx: Ctx, side: str, mover: Mover, occupied: dict[str, list[Unit]]) -> list[str]:
    """17.1: the halftrack moves into the hex of an infantry or AT gun unit to carry it."""
    out: list[str] = []
    for hex_name, units in sorted(occupied.items()):
        others = [u for u in units if u.id != mover.unit.id]
        if len(others) != 1:
            continue
        rider = others[0]
        if rider.carrier is not None or ctx.type_of(rider).kind not in ("infantry", "at_gun"):
            continue
        h = mover.grid.index[hex_name]
        tokens = mover.reach_tokens(h) if h != mover.start else None
        if tokens:
            out.append(" ".join(["load", mover.unit.id, rider.id, *tokens]))
    return out


# ---- fire --------------------------------------------------------------------------------------


def fire_options(ctx: Ctx, side: str, include_hidden: bool = True
                 ) -> list[tuple[str, float, str]]:
    """(order, probability of destroying, label) for every legal shot and assault now.

    Single shots for every unit, target and ammunition (HE as well as AT against armour in
    the advanced game, 14.1); combined infantry fire (15.2) on each unarmored target by the
    groups that reach a better odds column than the smaller groups before them (at most one
    group per column, so at most nine per target); close assaults (16.0) and, with the
    optional rule, Soviet suicide assaults (24.0). Hidden units are left out when
    ``include_hidden`` is False (a standing order that keeps them hidden).
    """
    options: list[tuple[str, float, str]] = []
    state = ctx.state
    targets = [u for u in ctx.enemies_seen_by(side) if not u.concealed]
    where = {u.id: Hex.parse(u.hex) for u in targets if u.hex}
    armored = {u.id: ctx.type_of(u).armored for u in targets}
    at_reach = int(ctx.tables.const("infantry_at_max_range"))
    ap_reach = int(ctx.tables.const("infantry_ap_max_range"))
    shooters: list[Unit] = []
    for unit in state.units:
        if unit.side != side or unit.status != "on" or unit.fired:
            continue
        if unit.hidden and not include_hidden:
            continue
        try:
            kind = fire.check_firer(ctx, side, unit).kind
        except RuleError:
            continue
        shooters.append(unit)
        assert unit.hex is not None
        here = Hex.parse(unit.hex)
        for target in targets:
            there = where[target.id]
            if kind == "infantry" and distance(here, there) > (
                    at_reach if armored[target.id] else ap_reach):
                continue  # 15.1, 15.3: out of infantry range (plan_fire would refuse)
            if not line_of_sight(here, there, ctx.blocking):
                continue  # 9.1 (plan_fire would refuse)
            modes: list[str | None] = [None]
            if ctx.type_of(target).armored and kind != "infantry" and state.advanced:
                modes.append("he")
            for mode in modes:
                try:
                    shot = fire.plan_fire(ctx, side, (unit.id,), target.id, mode)
                except RuleError:
                    continue
                p = shot.kill_probability()
                text = format_order(Fire(units=(unit.id,), target=target.id, mode=mode))
                options.append((text, p, f"{p:.0%} to destroy"))
            if kind == "infantry" and state.advanced:
                options += _assaults(ctx, side, unit, target)
    infantry = [u for u in shooters if ctx.type_of(u).kind == "infantry"]
    if len(infantry) > 1 and state.advanced:
        for target in targets:
            if not ctx.type_of(target).armored:
                options += _combined(ctx, side, infantry, target)
    return options


def _assaults(ctx: Ctx, side: str, unit: Unit, target: Unit) -> list[tuple[str, float, str]]:
    out: list[tuple[str, float, str]] = []
    kinds = [False]
    if side == "soviet" and ctx.state.options.get("suicide"):
        kinds.append(True)
    for suicide in kinds:
        try:
            _, _, need = fire.plan_assault(ctx, side, unit.id, target.id, suicide)
        except RuleError:
            return out
        p = two_dice_at_most(need)
        text = format_order(Assault(unit=unit.id, target=target.id, suicide=suicide))
        what = "suicide assault" if suicide else "close assault"
        out.append((text, p, f"{what}, {p:.0%}"))
    return out


def _combined(ctx: Ctx, side: str, infantry: list[Unit], target: Unit
              ) -> list[tuple[str, float, str]]:
    """15.2: groups of infantry firing one combined AP attack on ``target``.

    The candidates are the infantry that could fire at it alone, strongest contribution
    first (doubled at one hex, 15.1); each longer group is offered only when it reaches a
    better odds column than every shorter one.
    """
    able: list[tuple[int, str]] = []
    for unit in infantry:
        try:
            shot = fire.plan_fire(ctx, side, (unit.id,), target.id, None)
        except RuleError:
            continue
        able.append((-shot.factor, unit.id))
    able.sort()
    out: list[tuple[str, float, str]] = []
    if len(able) < 2:
        return out
    best = fire.plan_fire(ctx, side, (able[0][1],), target.id, None).kill_probability()
    for size in range(2, len(able) + 1):
        group = tuple(sorted(unit_id for _, unit_id in able[:size]))
        try:
            shot = fire.plan_fire(ctx, side, group, target.id, None)
        except RuleError:
            continue
        p = shot.kill_probability()
        if p <= best:
            continue
        best = p
        text = format_order(Fire(units=group, target=target.id))
        out.append((text, p, f"combined fire {shot.odds or '-'}, {p:.0%} to destroy"))
    return out


# ---- artillery and set-up ------------------------------------------------------------------------

#: Set-up zones per map and pack data (kept with them).
_ZONES = Memo[tuple[int, ...]](size=256)


def barrage_orders(ctx: Ctx, side: str) -> list[str]:
    """18.1: every hex one of the side's units on the map has a line of sight to."""
    state = ctx.state
    if (state.phase != "move1" or state.moves_started or state.marker is not None
            or side != state.phasing or artillery.available(ctx, side) is None):
        return []
    spotters = sorted({Hex.parse(u.hex) for u in ctx.friends(side) if u.hex})
    if not spotters:
        return []
    blocking = ctx.blocking
    out: list[str] = []
    for h in ctx.map.all_hexes:
        for spot in spotters:
            if line_of_sight(spot, h, blocking):
                out.append(f"barrage {h}")
                break
    return out


def _zone(ctx: Ctx, side: str, group: str, grid: Grid) -> tuple[int, ...]:
    key = (ctx.state.scenario, side, group, bool(ctx.state.flags.get("clear_terrain")))
    return _ZONES.get((ctx.map, ctx.data), key, lambda: tuple(
        i for i, name in enumerate(grid.names) if scenario.zone_allows(ctx, side, group, name)))


def setup_orders(ctx: Ctx, side: str, again: bool = False) -> list[str]:
    """Set-up: every allowed hex for the next unplaced unit of each type and group (4.0,
    20.0 hidden where allowed, 25.2's unhidden minimum kept), and every mine hex (19.1).
    ``again``: the placed units too (one may be set up again elsewhere), and taking back
    a placed unit or a mine (``remove``)."""
    state = ctx.state
    grid = grid_of(ctx.map)
    setup_units = set(state.flags.get("setup_units", []))
    waiting = [u for u in state.units if u.side == side and u.status == "waiting"
               and u.id in setup_units]
    orders: list[str] = [] if waiting else ["done"]
    occupied: dict[str, list[Unit]] = {}
    for u in state.on_map():
        assert u.hex is not None
        occupied.setdefault(u.hex, []).append(u)
    allowed = state.flags.get("mines", {}).get(side)
    mined = set(state.mines.get(side, []))
    if allowed and len(mined) < int(allowed["count"]):
        zone = _zone(ctx, side, "", grid) if allowed["in_setup_zone"] else range(
            len(grid.names))
        orders += [f"mine {grid.names[i]}" for i in zone if grid.names[i] not in mined]
    rules = state.flags.get("hidden", {}).get(side)
    hiding = bool(rules and rules["mode"] == "hidden")
    seen: set[tuple[str, str]] = set()
    hid: set[tuple[str, str]] = set()
    placed = [u for u in state.units if u.side == side and u.status == "on"
              and u.id in setup_units] if again else []
    for unit in [*waiting, *placed]:  # a placed unit may be set up again elsewhere
        group = "" if unit.force == "setup" else unit.force
        key = (unit.type, group)
        # 25.2: whether a unit may hide depends on the others left unhidden, so a hidden
        # unit set up again may hide where the next one of its type may not
        may_hide = hiding and key not in hid and _may_hide(state.units, unit, rules)
        if key in seen and not may_hide:
            continue
        placing_too = key not in seen
        seen.add(key)
        if may_hide:
            hid.add(key)
        kind_type = ctx.type_of(unit)
        costs = _costs(ctx, grid, kind_type.kind)
        for i in _zone(ctx, side, group, grid):
            if costs[i] == PROHIBITED:
                continue
            name = grid.names[i]
            there = [u for u in occupied.get(name, []) if u.id != unit.id]
            placing = unit
            if len(there) == 1 and there[0].id in setup_units and (
                    there[0].type, there[0].force) == (unit.type, unit.force):
                placing, there = there[0], []  # the unit of this type there, set up again
            aboard: bool | None = None  # None: empty hex; else the halftrack's hiddenness
            if there:
                carrier = there[0]
                if len(there) != 1 or carrier.side != side or kind_type.kind not in (
                        "infantry", "at_gun") or ctx.type_of(carrier).kind != "halftrack":
                    continue
                aboard = carrier.hidden
            if aboard is not True and placing_too:
                orders.append(f"place {placing.id} {name}")
            if may_hide and aboard is not False and (
                    not rules["terrain"] or ctx.terrain(name) in rules["terrain"]):
                orders.append(f"hide {placing.id} {name}")
    if again:  # before 'done', a unit set up or a mine written down may be taken back
        orders += [f"remove {u.id}" for u in placed]
        orders += [f"remove mine {h}" for h in sorted(mined)]
    return orders


def _may_hide(units: list[Unit], unit: Unit, rules: dict[str, Any]) -> bool:
    needed = int(rules["unhidden"].get(unit.type, 0))
    visible = sum(1 for u in units if u.side == unit.side and u.type == unit.type
                  and not u.hidden and u.id != unit.id)
    return not needed or visible >= needed


# ---- everything ------------------------------------------------------------------------------


def owed_entries(ctx: Ctx, side: str, orders: list[str] | None = None
                 ) -> tuple[list[Unit], list[Unit], dict[str, list[str]]]:
    """6.5 and the scenario's entry turns: (units that must enter this turn, those of them
    that still can, each one's entry moves). While any can, the First Movement Phase may
    not end (``done`` is refused, and not listed). ``orders``: the side's movement orders,
    if already listed."""
    state = ctx.state
    late = [u for u in state.units if u.side == side and u.status == "waiting"
            and u.enter_turns and max(u.enter_turns) <= state.turn
            and u.id not in state.flags.get("setup_units", [])]
    if state.flags.get("same_edge") == side and state.flags.get(
            f"entry_turn_{side}") == state.turn:
        late += [u for u in state.units if u.side == side and u.status == "waiting"
                 and u not in late]
    moves: dict[str, list[str]] = {}
    ids = {u.id for u in late}
    listed = [] if not late else movement_orders(ctx, side, late) if orders is None else orders
    for text in listed:
        if text.split()[1] in ids:
            moves.setdefault(text.split()[1], []).append(text)
    return late, [u for u in late if moves.get(u.id)], moves


def legal_orders(ctx: Ctx, side: str) -> list[str]:
    """The orders ``side`` may give now (no pending decision; see ``TanksGame``)."""
    return [o for o, _ in legal_entries(ctx, side)]


def legal_entries(ctx: Ctx, side: str, complete: bool = False) -> list[tuple[str, str]]:
    """:func:`legal_orders` with a label each: a move's cost, a shot's odds.
    ``complete``: the set-up of placed units again too."""
    state = ctx.state
    if state.phase == "setup":
        return [(order, "") for order in setup_orders(ctx, side, complete)]
    done = [("done", f"end the {PHASE_NAMES[state.phase]}")]
    if state.phase in FIRE_PHASES:
        return done + [(o, label) for o, _, label in fire_options(ctx, side)]
    moves = movement_entries(ctx, side)
    owed = state.phase == "move1" and side == state.phasing and owed_entries(
        ctx, side, [o for o, _ in moves])[1]
    return [*([] if owed else done), *((o, "") for o in barrage_orders(ctx, side)),
            *entry.entry_orders(ctx, side), *moves]


# ---- the complete listing --------------------------------------------------------------------


def legal_listing(ctx: Ctx, side: str) -> list[Listed]:
    """Every order ``side`` may give now, compactly (:class:`~adjudicator.kernel.listed.
    Listed`): :func:`legal_entries` with the families they stand for — a move to a hex
    by any path and with any facing at the end (the rules judge the path and the turn;
    ``TanksGame.listing_form`` writes a path by its end), combined infantry fire on a
    target by any of the infantry that may fire at it (15.2), a whole entry on any range
    of edge hexes (6.5), a set-up order for any
    unit of the same type and group (4.0, 20.0)."""
    entries = [(order, label, parse_order(order))
               for order, label in legal_entries(ctx, side, complete=True)]
    out: list[Listed] = []
    infantry: dict[str, list[str]] = {}
    for _, _, parsed in entries:
        if isinstance(parsed, Fire) and parsed.mode is None and all(
                _kind(ctx, u) == "infantry" for u in parsed.units):
            infantry.setdefault(parsed.target, [])
            infantry[parsed.target] += [u for u in parsed.units
                                        if u not in infantry[parsed.target]]
    alike = _alike(ctx, side)
    turned: set[str] = set()
    for order, label, parsed in entries:
        if isinstance(parsed, Move) and parsed.to is not None:
            out.append(listed(order, label, face=None))
        elif isinstance(parsed, Move) and len(parsed.steps) == 1 and parsed.steps[
                0].startswith("face "):
            # 8.3: turns in place, one or several ('face NW face S' ends facing S)
            out.append(listed(order, label, steps=[f"face {d.name}" for d in Direction]))
            here = ctx.state.unit(parsed.unit)
            if parsed.unit not in turned and here is not None and here.hex:
                turned.add(parsed.unit)  # 8.3: a turn in place, written "to ITS HEX face D"
                out.append(listed(f"move {parsed.unit} to {here.hex} {parsed.steps[0]}",
                                  label, face=None))
        elif isinstance(parsed, Fire) and parsed.target in infantry and set(
                parsed.units) <= set(infantry[parsed.target]):
            able = sorted(infantry[parsed.target])
            out.append(listed(order, label, f"fire {any_of(able)} at {parsed.target}"
                              if len(able) > 1 else "", units=able, mode=("at", "ap")))
        elif isinstance(parsed, Enter):
            # 6.5: any range of map edge hexes, any facing (a range on another edge
            # through a corner of this one brings the units on at the corner)
            out.append(listed(order, label, f"{order} (or any range of map edge hexes, "
                              "any facing)", face=None,
                              hexes=dict.fromkeys(str(h) for e in EDGE_WORDS
                                                  for h in ctx.map.edge_hexes(e))))
        elif isinstance(parsed, Place | Hide):
            same = alike.get(parsed.unit, [parsed.unit])
            out.append(listed(order, label, f"{order.split()[0]} {any_of(same)} {parsed.hex}"
                              if len(same) > 1 else "", unit=same, facing=None))
        elif isinstance(parsed, Fire) and parsed.mode is None:  # the default, or named
            out.append(listed(order, label, mode=("at", "ap")))
        else:
            out.append(listed(order, label))
    return out + _round_trips(ctx, side, [parsed for _, _, parsed in entries])


def _round_trips(ctx: Ctx, side: str, found: list[Order]) -> list[Listed]:
    """6.1: a move out and back to the hex it began in (``move infsu-8 2024 2125``) is a
    move the rules accept (the unit has moved, its MF spent), though it ends where it
    began: one such path per unit that may move and has no listed order ending there (a
    turn in place, 8.3, already stands for it)."""
    movers: dict[str, set[str]] = {}
    for parsed in found:
        if not isinstance(parsed, Move):
            continue
        ends = listing_form(parsed)
        if isinstance(ends, Move):
            here = ctx.state.unit(parsed.unit)
            turn = all(step.startswith("face ") for step in parsed.steps) and parsed.steps
            end = here.hex if turn and here is not None else ends.to  # a turn in place
            movers.setdefault(parsed.unit, set()).add(end or "")
    out: list[Listed] = []
    for uid, to in movers.items():
        unit = ctx.state.unit(uid)
        if unit is None or unit.hex is None or unit.hex in to:
            continue
        for near in neighbours(Hex.parse(unit.hex)):
            path = (str(near), unit.hex)
            try:
                movement.plan(ctx, side, unit, path)
            except RuleError:
                continue
            out.append(listed(format_order(Move(unit=uid, steps=path)),
                              "out and back: it has moved (6.1)", face=None))
            break
    return out


def _kind(ctx: Ctx, uid: str) -> str:
    unit = ctx.state.unit(uid)
    return ctx.type_of(unit).kind if unit is not None else ""


def _alike(ctx: Ctx, side: str) -> dict[str, list[str]]:
    """Set-up: each unit's interchangeable units (same type and group, 4.0), waiting or
    placed already (a placed unit may be set up again elsewhere)."""
    setup = set(ctx.state.flags.get("setup_units", []))
    groups: dict[tuple[str, str], list[str]] = {}
    for u in ctx.state.units:
        if u.side == side and u.status in ("waiting", "on") and u.id in setup:
            groups.setdefault((u.type, u.force), []).append(u.id)
    return {uid: sorted(ids) for ids in groups.values() for uid in ids}


def listing_form(order: Order) -> Order:
    """A move, load or unload written by where it ends: a path's last hex (``to HEX``,
    the facing left to the mover), its last turn, its exit or overrun."""
    if isinstance(order, Move):
        if order.to is not None:
            return Move(unit=order.unit, to=order.to)
        last = order.steps[-1]
        if last == "exit" or last.startswith("overrun"):
            return Move(unit=order.unit, steps=(last,))
        hexes = [s for s in order.steps if not s.startswith("face")]
        if hexes:
            return Move(unit=order.unit, to=hexes[-1])
        return Move(unit=order.unit, steps=(last,))
    if isinstance(order, Load | Unload) and order.steps:
        return order.model_copy(update={"steps": (order.steps[-1],)})
    return order
