"""Movement (6.0-7.0), facing (8.0), transport moves (17.0), mines (19.0), overrun (23.0).

A move is judged in two passes. ``plan`` checks it against what the moving side knows
(its own units, revealed enemies, known mines) and raises :class:`RuleError` for anything
illegal. ``execute`` then carries it out hex by hex and never refuses: a mine attack or a
hidden unit revealed on the way halts the move there (the unit may continue with another
``move`` order, with the Movement Factor it has left). Refusals never depend on a secret,
so an illegal order cannot be used to probe for hidden units or mines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adjudicator.kernel.errors import RuleError
from adjudicator.tanks.context import Ctx
from adjudicator.tanks.exits import EDGE_BY_WORD, exit_edge, exit_ways
from adjudicator.tanks.hexgrid import Direction, Hex, direction_to, neighbour
from adjudicator.tanks.sides import other
from adjudicator.tanks.spec import EDGE_WORDS, PROHIBITED, UnitType
from adjudicator.tanks.state import TanksState, Unit

EDGE_INWARD = {"N": Direction.S, "S": Direction.N, "W": Direction.SE, "E": Direction.NW}


@dataclass
class Step:
    kind: str  # hex | face | exit | overrun
    hex: str | None = None
    facing: str | None = None
    cost: int = 0
    road_cost: int = 0
    road: bool = False
    backing: bool = False
    entering: bool = False
    edge: str | None = None
    target: str | None = None  # overrun: the hex overrun


@dataclass
class Plan:
    unit: Unit
    steps: list[Step]
    cost: int
    road_cost: int
    on_road: bool


def allowance(ctx: Ctx, unit: Unit, kind_type: UnitType) -> tuple[int, int | None]:
    """(normal allowance, road allowance or None) for the current movement phase."""
    if ctx.state.phase == "move2":
        fraction = float(ctx.tables.const("second_movement_fraction"))
        return int(kind_type.mf * fraction), None  # 6.4: round down; 7.2: no road bonus
    multiplier = ctx.tables.road_multiplier.get(kind_type.kind, 1.0)
    return kind_type.mf, int(kind_type.mf * multiplier)  # 7.2: round fractions down


def terrain_cost(ctx: Ctx, hex_name: str, kind: str) -> int:
    return ctx.tables.terrain[ctx.terrain(hex_name)].move_cost.get(kind, 1)


def _prohibited_rule(terrain: str) -> str:
    return {"building": "7.6", "swamp": "7.5", "stream": "7.5"}.get(terrain, "7.1")


def entry_facings(ctx: Ctx, hex_name: str) -> list[Direction]:
    """Facings a unit may have on entering at ``hex_name``: its rear towards the map edge."""
    h = Hex.parse(hex_name)
    return [d for d in Direction if not ctx.map.on_map(neighbour(h, d.opposite))]


def check_mover(ctx: Ctx, side: str, unit: Unit) -> UnitType:
    state = ctx.state
    if state.phase not in ("move1", "move2"):
        raise RuleError("5.0", f"units move only in movement phases; it is the "
                        f"{state.phase} phase")
    if unit.side != side:
        raise RuleError("6.1", f"{unit.id} is not {side}'s")
    if unit.status in ("destroyed", "exited"):
        raise RuleError("6.6", f"{unit.id} has left play ({unit.status}) and may not re-enter")
    if unit.carrier is not None:
        raise RuleError("17.2", f"{unit.id} is carried by {unit.carrier} and moves with it")
    if unit.no_move:
        raise RuleError("14.3", f"{unit.id} is disrupted and may not move this phase")
    if unit.move_done and not unit.move_open:
        raise RuleError("6.1", f"{unit.id} has already moved this phase")
    return ctx.type_of(unit)


def plan(ctx: Ctx, side: str, unit: Unit, tokens: tuple[str, ...],
         loading: Unit | None = None) -> Plan:
    state = ctx.state
    kind_type = check_mover(ctx, side, unit)
    if not tokens:
        raise RuleError("6.1", "a move needs at least one step")
    kind = kind_type.kind
    cur = unit.hex
    facing = Direction[unit.facing] if unit.facing else None
    steps: list[Step] = []
    face_cost = int(ctx.tables.const("facing_change_cost"))
    back_mult = int(ctx.tables.const("backing_up_multiplier"))
    entered_here: dict[str, int] = {}
    for index, token in enumerate(tokens):
        if cur is None and unit.status == "exited":
            raise RuleError("6.6", f"{unit.id} has left the map")
        if token.startswith("face "):
            if not kind_type.has_facing:
                raise RuleError("8.1", f"{unit.id} ({kind_type.label}) has no facing")
            if cur is None:
                raise RuleError("6.5", "a unit changes facing only once it is on the map")
            new = Direction[token.split()[1]]
            if facing == new:
                continue  # already facing so: nothing to turn, nothing to pay (8.3)
            facing = new
            steps.append(Step("face", hex=cur, facing=new.name, cost=face_cost,
                              road_cost=face_cost, road=True))
            continue
        if token == "exit" or token.startswith("exit "):
            if cur is None:
                raise RuleError("6.6", "a unit must be on the map to exit it")
            ways = exit_ways(ctx.map, Hex.parse(cur), facing)
            if ways is None:
                assert facing is not None
                raise RuleError("8.2", f"{unit.id} faces {facing.name}: it may leave the "
                                "map only ahead, half-left/right or backing up")
            if not ways.pairs:
                raise RuleError("6.6", f"{cur} is not a map edge hex")
            named = EDGE_BY_WORD[token.split()[1]] if " " in token else None
            edge = exit_edge(ways, named, unit.id, cur)
            backing = ways.backing
            cost = back_mult if backing else 1
            steps.append(Step("exit", hex=None, cost=cost, road_cost=cost, edge=edge,
                              backing=backing))
            cur = None
            continue
        if token.startswith("overrun "):
            steps.append(_plan_overrun(ctx, unit, kind_type, cur, facing, token.split()[1]))
            cur = steps[-1].hex
            facing = Direction[steps[-1].facing] if steps[-1].facing else facing
            continue
        # a hex
        if not ctx.on_map(token):
            raise RuleError("6.1", f"{token} is not on the map")
        entering = cur is None
        backing = False
        if entering:
            _check_entry(ctx, unit, token)
            options = entry_facings(ctx, token)
            if kind_type.has_facing:
                facing = _entry_facing(ctx, token, options, tokens[index + 1:])
        else:
            assert cur is not None
            direction = direction_to(Hex.parse(cur), Hex.parse(token))
            if direction is None:
                raise RuleError("6.1", f"{token} is not adjacent to {cur}")
            if facing is not None:
                if direction in facing.front_hexsides():
                    facing = direction
                elif direction == facing.opposite:
                    backing = True
                else:
                    legal = [str(neighbour(Hex.parse(cur), d)) for d in facing.front_hexsides()]
                    raise RuleError("8.2", f"{unit.id} faces {facing.name}: from {cur} it may "
                                    f"move to {', '.join(legal)} or back up to "
                                    f"{neighbour(Hex.parse(cur), facing.opposite)}", legal)
        terrain = ctx.terrain(token)
        base = terrain_cost(ctx, token, kind)
        if base == PROHIBITED:
            raise RuleError(_prohibited_rule(terrain),
                            f"{kind_type.label} may not enter {terrain} hex {token}")
        if any(u.side != side for u in ctx.visible_occupants(token, side)):
            raise RuleError("6.3", f"{token} holds an enemy unit")
        multiplier = 1
        if entering:
            multiplier = state.entries.get(token, 0) + entered_here.get(token, 0) + 1
            entered_here[token] = entered_here.get(token, 0) + 1
        cost = base * (back_mult if backing else 1) * multiplier
        road = ctx.is_road(token) and (entering or (cur is not None and ctx.is_road(cur)))
        road_cost = (back_mult if backing else 1) * multiplier
        steps.append(Step("hex", hex=token, facing=facing.name if facing else None, cost=cost,
                          road_cost=road_cost, road=road, backing=backing, entering=entering))
        cur = token
    return _finish_plan(ctx, side, unit, kind_type, steps, cur, loading)


def _finish_plan(ctx: Ctx, side: str, unit: Unit, kind_type: UnitType, steps: list[Step],
                 end: str | None, loading: Unit | None) -> Plan:
    state = ctx.state
    normal, road_allow = allowance(ctx, unit, kind_type)
    cost = unit.spent + sum(s.cost for s in steps)
    started_on_road = unit.hex is None or ctx.is_road(unit.hex)
    on_road = (road_allow is not None and not unit.off_road and started_on_road
               and all(s.road for s in steps if s.kind in ("hex", "face"))
               and all(s.kind in ("hex", "face") for s in steps))
    road_cost = unit.road_spent + sum(s.road_cost for s in steps)
    fits = cost <= normal or (on_road and road_allow is not None and road_cost <= road_allow)
    single = (len(steps) == 1 and steps[0].kind == "hex" and unit.spent == 0
              and not unit.move_open)
    if not fits and not single:  # 7.8: a unit may always move one hex
        rule = "6.4" if state.phase == "move2" else "6.1"
        raise RuleError(rule, _mf_breakdown(ctx, unit, kind_type, steps, cost, normal,
                                            road_allow, on_road, road_cost, started_on_road))
    if end is not None:
        others = [u for u in ctx.friends(side) if u.hex == end and u.id != unit.id
                  and u.carrier != unit.id]
        if loading is not None:
            if end != loading.hex:
                raise RuleError("17.1", f"{unit.id} must end its move in {loading.hex} to "
                                f"load {loading.id}")
            others = [u for u in others if u.id != loading.id]
        if others:
            raise RuleError("6.2", f"{unit.id} may not end its move in {end}, which holds "
                            f"{', '.join(u.id for u in others)}")
    if state.flags.get("road_bound") == side and not state.flags.get("road_released"):
        for step in steps:  # 25.1: stay on the road until a Soviet unit enters
            if step.kind == "hex" and step.hex is not None and not ctx.is_road(step.hex):
                raise RuleError("25.1", f"{side} units must stay on the road until a "
                                f"{other(side)} unit enters the map ({step.hex} is off it)")
            if step.kind == "exit":
                raise RuleError("25.1", "units must stay on the road until the enemy enters")
    return Plan(unit=unit, steps=steps, cost=cost, road_cost=road_cost, on_road=on_road)


def _step_text(ctx: Ctx, step: Step, kind: str) -> str:
    """One step's Movement Factor cost, and why (7.x terrain, 8.3, 8.4, 6.5, 23.2)."""
    back = int(ctx.tables.const("backing_up_multiplier"))
    if step.kind == "face":
        return f"face {step.facing} {step.cost} (8.3)"
    if step.kind == "exit":
        return f"exit {step.cost}" + (" backing up (8.4)" if step.backing else "")
    if step.kind == "overrun":
        return f"overrun {step.target} {step.cost} (terrain + 1, 23.2)"
    assert step.hex is not None
    terrain = ctx.terrain(step.hex)
    base = terrain_cost(ctx, step.hex, kind)
    text = f"{step.hex} {terrain} {base}"
    factor = step.cost // max(1, base * (back if step.backing else 1))
    if step.backing:
        text += f" x{back} backing up (8.4)"
    if step.entering and factor > 1:
        text += f" x{factor}: the {factor}th unit to enter there this phase (6.5)"
    return text


def _mf_breakdown(ctx: Ctx, unit: Unit, kind_type: UnitType, steps: list[Step], cost: int,
                  normal: int, road_allow: int | None, on_road: bool, road_cost: int,
                  started_on_road: bool) -> str:
    """A Movement Factor refusal naming each cost, the allowance and, for the road rate
    (7.2), why it did not apply."""
    items = ([f"{unit.spent} already spent"] if unit.spent else []) + [
        _step_text(ctx, step, kind_type.kind) for step in steps]
    second = ctx.state.phase == "move2"
    limit = f"{normal}" + (" (half its MF, 6.4)" if second else "")
    text = (f"{unit.id} would spend " + " + ".join(items)
            + f" = {cost}, more than its Movement Factor of {limit}")
    if second:
        return text + "; no road rate in the Second Movement Phase (7.2)"
    if road_allow is None:
        return text
    if on_road:
        return text + f" ({road_allow} on the road, 7.2): {road_cost} on the road"
    if not started_on_road and not any(s.road for s in steps if s.kind == "hex"):
        return text  # no road anywhere near this move: the road rate is beside the point
    if unit.off_road:
        why = "it has left the road this phase"
    elif not started_on_road:
        why = f"it did not start on a road ({unit.hex})"
    else:
        off = next((s for s in steps if s.kind in ("hex", "face") and not s.road), None)
        why = (f"{off.hex} is not a road hex" if off is not None and off.kind == "hex" else
               "an exit or overrun is no road move")
    return text + f"; the road rate ({road_allow}, 7.2) does not apply: {why}"


def _check_entry(ctx: Ctx, unit: Unit, hex_name: str) -> None:
    state = ctx.state
    if unit.status != "waiting":
        raise RuleError("6.6", f"{unit.id} has left the map and may not re-enter")
    if unit.enter_turns and state.turn not in unit.enter_turns:
        raise RuleError("6.5", f"{unit.id} may enter only on turn(s) "
                        f"{', '.join(map(str, unit.enter_turns))}")
    edges = ctx.map.edges(Hex.parse(hex_name))
    if unit.enter_hexes and hex_name not in unit.enter_hexes:
        raise RuleError("6.5", f"{unit.id} enters on {', '.join(unit.enter_hexes)} only",
                        list(unit.enter_hexes))
    if unit.enter_edges and not edges & set(unit.enter_edges):
        raise RuleError("6.5", f"{unit.id} enters on the {'/'.join(unit.enter_edges)} map "
                        f"edge; {hex_name} is not on it")
    if not edges:
        raise RuleError("6.5", f"{hex_name} is not a map edge hex")
    locked = entry_edges_open(state, unit.side)
    if locked is not None and not edges & locked:
        raise RuleError("25.1", f"all {unit.side} units enter on the "
                        f"{' or '.join(EDGE_WORDS[e] for e in sorted(locked))} edge this turn")


def entry_edges_open(state: TanksState, side: str) -> frozenset[str] | None:
    """25.1 (all on the same edge): the edges ``side`` may still enter by, None while no
    unit has entered. A first unit entering on a corner hex leaves both its edges open
    until one enters on a hex of only one of them."""
    locked = state.flags.get(f"entry_edge_{side}")
    return frozenset(locked) if locked else None  # a list of edges (an older game: "E")


def _entry_facing(ctx: Ctx, hex_name: str, options: list[Direction],
                  rest: tuple[str, ...]) -> Direction:
    """The facing on entry: rear to the edge, and if possible straight on to the next hex."""
    for token in rest[:1]:
        if token[:1].isdigit():
            direction = direction_to(Hex.parse(hex_name), Hex.parse(token))
            if direction in options:
                return direction
            for option in options:
                if direction in option.front_hexsides():
                    return option
    for edge in sorted(ctx.map.edges(Hex.parse(hex_name))):
        if EDGE_INWARD[edge] in options:
            return EDGE_INWARD[edge]
    return options[0]


def _plan_overrun(ctx: Ctx, unit: Unit, kind_type: UnitType, cur: str | None,
                  facing: Direction | None, target: str) -> Step:
    if not ctx.state.options.get("overrun"):
        raise RuleError("23.0", "overrun is an optional rule not in use in this game")
    if ctx.state.phase != "move1":
        raise RuleError("23.1", "overruns happen only in the First Movement Phase")
    if kind_type.kind != "tank":
        raise RuleError("23.1", "only tanks overrun (not SP guns or other units)")
    if cur is None or facing is None:
        raise RuleError("23.2", "the tank must be on the map")
    direction = direction_to(Hex.parse(cur), Hex.parse(target))
    if direction is None:
        raise RuleError("23.2", f"{target} is not adjacent to {cur}")
    if direction not in facing.front_hexsides():
        raise RuleError("8.2", f"{unit.id} may overrun only a hex ahead of it")
    victims = [u for u in ctx.visible_occupants(target, unit.side) if u.side != unit.side]
    if not victims:
        raise RuleError("23.1", f"no enemy unit is known to be in {target}")
    if any(ctx.type_of(v).armored for v in victims):
        raise RuleError("23.1", "only unarmored targets may be overrun")
    terrain = ctx.terrain(target)
    if ctx.tables.terrain[terrain].overrun_need is None:
        raise RuleError("23.1", f"overruns happen in clear or woods hexes only, not {terrain}")
    exit_hex = neighbour(Hex.parse(target), direction)
    if not ctx.map.on_map(exit_hex):
        raise RuleError("23.2", "the hex beyond the target is off the map")
    exit_name = str(exit_hex)
    # 23.2 "The exit hex may be of any terrain": a Building too, though 7.6 bars tanks from
    # entering one by movement (docs/rulings.md, "The overrun's exit hex").
    if ctx.visible_occupants(exit_name, unit.side):
        raise RuleError("23.2", f"the exit hex {exit_name} is occupied")
    cost = terrain_cost(ctx, target, kind_type.kind) + int(ctx.tables.const("overrun_extra_cost"))
    return Step("overrun", hex=exit_name, facing=direction.name, cost=cost, road_cost=cost,
                target=target)


# ---- carrying the move out ---------------------------------------------------------------------


def may_stop(ctx: Ctx, unit: Unit, hex_name: str, loading: Unit | None = None) -> bool:
    """6.2: whether ``unit`` may end a move in ``hex_name`` (no other friend there, apart
    from its own passenger, or the unit it is moving in to load, 17.1)."""
    for other_unit in ctx.state.at(hex_name):
        if other_unit.side != unit.side or other_unit.id == unit.id:
            continue
        if other_unit.carrier == unit.id or (loading is not None and other_unit.id == loading.id):
            continue
        return False
    return True


def execute(ctx: Ctx, move: Plan, loading: Unit | None = None) -> bool:
    """Carry out a planned move. Returns False when it halted before its end.

    A move halts where a mine is found or a hidden unit is revealed (19.2, 20.0), so the
    player may decide again — but never in a hex where the unit may not end a move (6.2: a
    friend is there). It then goes on along its written path and halts at the first hex
    where it may stop. If the way on is blocked by an enemy just revealed (or an overrun's
    exit hex is), it goes back to the last hex of its path where it could stop
    (docs/rulings.md, "Halts in a friend's hex").
    """
    state = ctx.state
    unit = move.unit
    if unit.hidden:
        ctx.emit("note", f"{unit.id} was hidden: moving places it on the map, in view of the "
                 "enemy (20.0)", "20.0", audience=unit.side, unit=unit.id)
        ctx.reveal(unit, "it moves")
    passenger = ctx.passenger_of(unit)
    start = unit.hex or "off the map"
    entered_from = unit.hex
    path: list[str] = []
    hexes: list[str] = [unit.hex] if unit.hex else []
    taken: list[Step] = []
    halted = False
    completed = True
    deferred: str | None = None  # where a halt was due but the unit could not stop
    last_stop: tuple[str, str | None] | None = (
        (unit.hex, unit.facing) if unit.hex is not None else None)
    for number, step in enumerate(move.steps):
        more = number < len(move.steps) - 1
        if step.kind == "face":
            unit.facing = step.facing
            path.append(f"face {step.facing}")
            taken.append(step)
            if unit.hex is not None and may_stop(ctx, unit, unit.hex, loading):
                last_stop = (unit.hex, unit.facing)
        elif step.kind == "exit":
            unit.status, unit.hex, unit.exited_edge = "exited", None, step.edge
            unit.exited_loaded = (passenger is not None
                                  and ctx.type_of(passenger).kind == "infantry")
            if passenger is not None:
                passenger.status, passenger.hex = "exited", None
                passenger.exited_edge = step.edge
            path.append(f"exit by the {EDGE_WORDS.get(step.edge or '', step.edge)} edge")
            taken.append(step)
        elif step.kind == "overrun":
            assert step.target is not None and step.hex is not None
            if not _execute_overrun(ctx, unit, step):
                if unit.status == "on":  # 23.2: blocked before the tank moved: no MF spent
                    halted, completed = True, False
                else:
                    taken.append(step)
                    completed = False
                break
            taken.append(step)
            path.append(f"overrun {step.target} to {step.hex}")
            hexes += [step.target, step.hex]
        else:
            assert step.hex is not None
            enemies = [u for u in state.at(step.hex) if u.side != unit.side]
            if enemies:  # hidden when the move was planned (or revealed on the way): 6.3
                for enemy in enemies:
                    ctx.reveal(enemy, f"{unit.id} tried to enter its hex")
                halted, completed = True, False
                break
            unit.hex = step.hex
            if step.facing:
                unit.facing = step.facing
            if passenger is not None:
                passenger.hex = step.hex
            if step.entering:
                unit.status = "on"
                state.entries[step.hex] = state.entries.get(step.hex, 0) + 1
                if passenger is not None:
                    passenger.status = "on"
                _on_entry(ctx, unit)
            path.append(step.hex + (" (backing up)" if step.backing else ""))
            hexes.append(step.hex)
            taken.append(step)
            survived, fresh = mine_attacks(ctx, unit, passenger, step.hex)
            if not survived:
                completed = False
                break
            revealed = ctx.reveal_adjacent_to(step.hex, unit.side)
            stoppable = may_stop(ctx, unit, step.hex, loading)
            if stoppable:
                last_stop = (step.hex, unit.facing)
            if (revealed or fresh or deferred) and more:
                if stoppable:
                    halted, completed = True, False
                    break
                deferred = deferred or step.hex
    moved_back: str | None = None
    if unit.status == "on" and unit.hex is not None and not may_stop(ctx, unit, unit.hex,
                                                                     loading):
        moved_back = _step_back(ctx, unit, passenger, last_stop)
        halted, completed = unit.status == "on", False
    unit.spent += sum(s.cost for s in taken)
    unit.road_spent += sum(s.road_cost for s in taken)
    if not all(s.road for s in taken):
        unit.off_road = True
    if path and state.phase == "move1":
        unit.moved = True
        state.moves_started = True
    if unit.status != "destroyed":
        unit.move_done = True
        unit.move_open = halted
    text = f"{unit.id} moves from {start}: " + (" ".join(path) if path else "no step taken")
    if deferred and not moved_back:
        text += (f" — it could not stop in {deferred}, where a friend stands (6.2), and "
                 "went on")
    if moved_back:
        text += f" — it may not stop where a friend stands (6.2) and goes back to {moved_back}"
        if unit.hex is not None:
            hexes.append(unit.hex)
    if halted:
        text += " — halted; it may continue with the Movement Factor it has left"
    exited: dict[str, Any] = {"edge": unit.exited_edge} if unit.status == "exited" else {}
    ctx.emit("move", text, "6.0", unit=unit.id, path=path, hex=unit.hex, facing=unit.facing,
             halted=halted, start=entered_from, hexes=hexes, **exited)
    if loading is not None and completed and unit.status == "on" and unit.hex == loading.hex:
        loading.carrier = unit.id
        unit.loaded_now = True
        unit.move_open = False
        ctx.emit("load", f"{unit.id} loads {loading.id} in {unit.hex}", "17.1",
                 unit=unit.id, passenger=loading.id)
    return completed


def _step_back(ctx: Ctx, unit: Unit, passenger: Unit | None,
               last_stop: tuple[str, str | None] | None) -> str:
    """Put a unit that may not stay where it is back in the last hex it could stop in."""
    if last_stop is None:  # it entered the map this move and had nowhere to stop: off again
        unit.status, unit.hex = "waiting", None
        if passenger is not None:
            passenger.status, passenger.hex = "waiting", None
        return "off the map"
    unit.hex, unit.facing = last_stop
    if passenger is not None:
        passenger.hex = last_stop[0]
    return last_stop[0]


def mine_attacks(ctx: Ctx, unit: Unit, passenger: Unit | None,
                 hex_name: str) -> tuple[bool, bool]:
    """19.2: each enemy unit entering a mined hex is attacked. (mover survived, newly revealed)."""
    state = ctx.state
    fresh = False
    for owner, hexes in state.mines.items():
        if owner == unit.side or hex_name not in hexes:
            continue  # never by mines of its own side
        if hex_name not in state.known_mines:
            state.known_mines[hex_name] = owner
            fresh = True
            ctx.emit("mine-revealed", f"{hex_name} is mined ({owner} mines)", "19.2",
                     hex=hex_name, owner=owner)
        need = int(ctx.tables.const("mine_attack"))
        for target in [unit, passenger]:
            if target is None or target.status != "on":
                continue
            total = ctx.roll(f"mine attack on {target.id} in {hex_name}")
            destroyed = total <= need
            ctx.emit("mine-attack", f"mine attack on {target.id} in {hex_name}: {total} — "
                     + ("destroyed" if destroyed else "survives"), "19.2", unit=target.id,
                     hex=hex_name, roll=total, need=need, destroyed=destroyed)
            if destroyed:
                ctx.destroy(target, f"mine in {hex_name}", "19.2")
    return unit.status == "on", fresh


def _on_entry(ctx: Ctx, unit: Unit) -> None:
    state = ctx.state
    if state.flags.get("road_bound") == other(unit.side):
        state.flags["road_released"] = True  # 25.1
    if state.flags.get("same_edge") == unit.side and unit.hex is not None:
        edges = ctx.map.edges(Hex.parse(unit.hex)) & set(unit.enter_edges or EDGE_WORDS)
        locked = entry_edges_open(state, unit.side)
        key = f"entry_edge_{unit.side}"
        if edges and locked is None:
            state.flags[key] = sorted(edges)
            state.flags[f"entry_turn_{unit.side}"] = state.turn
        elif edges and locked is not None and len(locked & edges) < len(locked):
            state.flags[key] = sorted(locked & edges)  # 25.1: the corner's doubt is settled


def _execute_overrun(ctx: Ctx, unit: Unit, step: Step) -> bool:
    """23.2: the tank is moved through the target hex — entering it, so an enemy minefield
    there attacks it first (19.2; the turn sequence resolves mine attacks, then overruns)
    and a destroyed tank overruns nothing — then the overrun is rolled (23.3) and the tank
    exits into the hex opposite, where a minefield attacks it too."""
    assert step.target is not None and step.hex is not None
    ctx.reveal_adjacent_to(step.target, unit.side)
    if any(u.side != unit.side or u.id != unit.id for u in ctx.state.at(step.hex)):
        return False  # a revealed unit blocks the exit hex
    unit.hex = step.target  # passing through, among the units it overruns
    survived, _ = mine_attacks(ctx, unit, None, step.target)
    if not survived:
        return False
    terrain = ctx.terrain(step.target)
    need = ctx.tables.terrain[terrain].overrun_need
    assert need is not None
    for victim in [u for u in ctx.state.at(step.target) if u.side != unit.side]:
        total = ctx.roll(f"overrun of {victim.id} by {unit.id}")
        destroyed = total <= need
        ctx.emit("overrun", f"{unit.id} overruns {victim.id} in {step.target} ({terrain}): "
                 f"{total} — " + ("destroyed" if destroyed else "survives"), "23.3",
                 unit=unit.id, target=victim.id, roll=total, need=need, destroyed=destroyed)
        if destroyed:
            ctx.destroy(victim, f"overrun by {unit.id}", "23.3")
    unit.hex, unit.facing, unit.overran = step.hex, step.facing, True
    survived, _ = mine_attacks(ctx, unit, None, step.hex)
    if survived:
        ctx.reveal_adjacent_to(step.hex, unit.side)
    return survived
