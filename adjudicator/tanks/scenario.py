"""Scenarios (25.1-25.7): forces, set-up, entry, artillery, mines, victory — from the pack."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from adjudicator.kernel.decisions import SetupGuide
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.memo import Memo
from adjudicator.tanks.context import Ctx
from adjudicator.tanks.data_models import Requirement, Tally
from adjudicator.tanks.hexgrid import Hex, connected_groups
from adjudicator.tanks.hidden import commit
from adjudicator.tanks.sides import SIDES, other
from adjudicator.tanks.spec import PROHIBITED, RulesData
from adjudicator.tanks.state import TanksState, Unit

OPTIONS = {
    "basic": "play 25.4 as a basic game (no artillery, no advanced rules)",
    "attenuation": "21.0 range attenuation",
    "fff": "22.0 60 degrees full frontal face",
    "overrun": "23.0 overrun",
    "suicide": "24.0 Soviet suicide assault",
}
DEFAULT_FACING = {"german": "S", "soviet": "N"}
#: The flags ``build`` sets that are a scenario's rules rather than its forces' set-up:
#: road-bound entry and same-edge entry (25.1), terrain treated as clear (25.7).
SCENARIO_RULE_FLAGS = ("road_bound", "same_edge", "clear_terrain")


def unit_base(type_id: str) -> str:
    return type_id.replace("-", "")


def build(data: RulesData, scenario_id: str, options: Mapping[str, Any] | None = None
          ) -> TanksState:
    if scenario_id not in data.scenarios:
        raise ValueError(f"unknown scenario {scenario_id!r}; known: {', '.join(data.scenarios)}")
    sc: Any = data.scenarios[scenario_id]
    opts = {k: bool(v) for k, v in (options or {}).items()}
    unknown = set(opts) - set(OPTIONS)
    if unknown:
        raise ValueError(f"unknown options {sorted(unknown)}; known: {sorted(OPTIONS)}")
    first = sc.first_player.value
    state = TanksState(scenario=sc.id, last_turn=sc.turns, order=[first, other(first)],
                       options=opts)
    state.advanced = sc.level == "advanced" or (sc.level == "basic-or-advanced"
                                                and not opts.get("basic"))
    counters: Counter[str] = Counter()
    setup_groups = {(z.side.value, z.group): z for z in sc.setup}
    entries = {(e.side.value, e.group): e for e in sc.entry}
    for force in sc.force:
        side, group = force.side.value, force.group
        for _ in range(force.count):
            base = unit_base(force.unit)
            counters[base] += 1
            unit = Unit(id=f"{base}-{counters[base]}", side=side, type=force.unit, force=group)
            if (side, group) in setup_groups:
                unit.force = group or "setup"
                unit.enter_turns = []
                state.flags.setdefault("setup_units", []).append(unit.id)
            elif (side, group) in entries:
                entry = entries[(side, group)]
                unit.enter_turns = list(entry.turns)
                unit.enter_edges = [e.value for e in entry.edges]
                unit.enter_hexes = [str(h) for h in entry.hexes]
            state.units.append(unit)
    for entry in sc.entry:
        if entry.road_only_until_enemy_enters:
            state.flags["road_bound"] = entry.side.value
        if entry.same_edge_and_turn:
            state.flags["same_edge"] = entry.side.value
    state.setup_sides = [s for s in SIDES if any(z.side.value == s for z in sc.setup)]
    state.setup_sides.sort(key=lambda s: s != first)
    for hidden in sc.hidden:
        state.flags.setdefault("hidden", {})[hidden.side.value] = {
            "mode": hidden.mode, "terrain": [t.value for t in hidden.terrain],
            "unhidden": {u.unit: u.count for u in hidden.unhidden},
        }
    for mines in sc.mines:
        state.flags.setdefault("mines", {})[mines.side.value] = {
            "count": mines.count, "in_setup_zone": mines.in_setup_zone}
    if state.advanced:
        for art in sc.artillery:
            state.barrages[art.side.value] = {
                "weight": art.weight, "per_turn": art.per_turn, "turns": list(art.turns),
                "total": art.total, "from_turn": art.from_turn}
    for special in sc.special:
        if special.treat_as_clear:
            state.flags["clear_terrain"] = True
    state.phase = "setup" if state.setup_sides else "move1"
    return state


# ---- set-up ------------------------------------------------------------------------------------


def zone_allows(ctx: Ctx, side: str, group: str, hex_name: str) -> bool:
    sc: Any = ctx.data.scenarios.get(ctx.state.scenario)
    if sc is None:
        return ctx.on_map(hex_name)
    zones = [z.zone for z in sc.setup if z.side.value == side and z.group in (group, "")]
    h = Hex.parse(hex_name)
    if not ctx.map.on_map(h):
        return False
    for zone in zones:
        inside = zone.anywhere or h in set(zone.hexes) or any(
            r.cols[0] <= h.col <= r.cols[1] and r.rows[0] <= h.row <= r.rows[1]
            for r in zone.rects)
        for edge, least in zone.min_edge_distance.items():
            inside = inside and ctx.map.edge_distance(h, edge.value) >= least
        if zone.terrain:
            inside = inside and ctx.terrain(hex_name) in {t.value for t in zone.terrain}
        if inside:
            return True
    return False


#: The hexes of each set-up zone per map and pack data (kept with them).
_ZONE_HEXES = Memo[tuple[str, ...]](size=256)


def setup_zone(ctx: Ctx) -> tuple[str, tuple[str, ...]] | None:
    """While a side sets up (4.0): that side and every hex where one of its set-up units
    may go (the union of its groups' zones) — the scenario's rules, known to everyone."""
    side = setup_side(ctx.state)
    if side is None:
        return None
    setup_units = set(ctx.state.flags.get("setup_units", []))
    groups = sorted({"" if u.force == "setup" else u.force for u in ctx.state.units
                     if u.side == side and u.id in setup_units})
    key = (ctx.state.scenario, side, tuple(groups),
           bool(ctx.state.flags.get("clear_terrain")))
    return side, _ZONE_HEXES.get((ctx.map, ctx.data), key, lambda: tuple(
        h.name for h in ctx.map.all_hexes
        if any(zone_allows(ctx, side, group, h.name) for group in groups or [""])))


def zone_text(ctx: Ctx, side: str, group: str = "") -> str:
    """The set-up zone of ``side`` (a group of its units) in words: "columns 01-08, rows
    01-26", "hexes 1205, 1206 ...", "anywhere", with its edge distances and terrain."""
    sc: Any = ctx.data.scenarios.get(ctx.state.scenario)
    if sc is None:
        return "anywhere on the map"
    parts = []
    for setup in sc.setup:
        if setup.side.value != side or setup.group not in (group, ""):
            continue
        zone = setup.zone
        where: list[str] = []
        if zone.anywhere:
            where.append("anywhere on the map")
        where += [f"columns {r.cols[0]:02d}-{r.cols[1]:02d}, rows {r.rows[0]:02d}-"
                  f"{r.rows[1]:02d}" for r in zone.rects]
        if zone.hexes:
            hexes = [str(h) for h in zone.hexes]
            where.append("hexes " + ", ".join(hexes[:12])
                         + (f" and {len(hexes) - 12} more" if len(hexes) > 12 else ""))
        text = " or ".join(where)
        for edge, least in zone.min_edge_distance.items():
            text += f", at least {least} hexes from the {edge.value} edge"
        if zone.terrain:
            text += ", in " + " or ".join(t.value for t in zone.terrain)
        parts.append(text)
    return "; ".join(parts) or "anywhere on the map"


def setup_guide(ctx: Ctx, side: str) -> SetupGuide:
    """What ``side`` has left to set up (4.0, 20.0, 19.1), where, and what ``done`` now
    would forfeit or why it is refused."""
    state = ctx.state
    waiting = [u for u in state.units if u.side == side and u.status == "waiting"
               and u.id in state.flags.get("setup_units", [])]
    rules = state.flags.get("hidden", {}).get(side)
    how = {"hidden": "hide or place", "face-down": "place, face down"}.get(
        rules["mode"] if rules else "", "place")
    left: list[str] = []
    where: list[str] = []
    groups: dict[str, list[str]] = {}
    for unit in waiting:
        groups.setdefault("" if unit.force == "setup" else unit.force, []).append(unit.id)
    for group, ids in groups.items():
        left.append(f"{len(ids)} unit(s) to {how}: {', '.join(ids)}")
        where.append(("units" + (f" of {group}" if group else "")) + ": "
                     + zone_text(ctx, side, group))
    if rules and rules["mode"] == "hidden" and rules["terrain"]:
        where.append("hidden units only in " + " or ".join(rules["terrain"]) + " (20.0)")
    if rules:
        for type_id, count in rules["unhidden"].items():
            where.append(f"at least {count} {type_id} set up unhidden (25.2)")
    forfeit: list[str] = []
    mines = state.flags.get("mines", {}).get(side)
    if mines:
        placed = len(state.mines.get(side, []))
        count = int(mines["count"])
        if placed < count:
            left.append(f"{count - placed} of {count} mined hexes to write down (mine HEX)")
            forfeit.append(f"{count - placed} mined hex(es) not written down are lost (19.1)")
        where.append("mines: " + (zone_text(ctx, side) if mines["in_setup_zone"]
                                  else "any hex of the map"))
    blocked = (f"{len(waiting)} unit(s) must still set up (4.0): "
               + ", ".join(u.id for u in waiting)) if waiting else None
    return SetupGuide(left=left or ["nothing: type 'done' to end your set-up"], where=where,
                      forfeit=forfeit, blocked=blocked, placed=placed_lines(ctx, side))


def placed_lines(ctx: Ctx, side: str) -> list[str]:
    """What ``side`` has set up so far in its set-up, one line each, in hex order: each
    unit with its hex, facing, aboard what, hidden (20.0), face-down (25.7) or in sight
    (4.0); then its mined hexes (19.1). The side's own secrets: for its players only."""
    state = ctx.state
    setup_units = set(state.flags.get("setup_units", []))
    units = sorted((u for u in state.units if u.side == side and u.id in setup_units
                    and u.status == "on" and u.hex is not None),
                   key=lambda u: (u.hex or "", u.id))
    lines = []
    for unit in units:
        how = ("hidden (20.0)" if unit.hidden else "face-down (25.7)" if unit.concealed
               else "in sight (4.0)")
        facing = f", facing {unit.facing}" if unit.facing else ""
        aboard = f", aboard {unit.carrier}" if unit.carrier else ""
        lines.append(f"{unit.hex} {unit.id} ({ctx.type_of(unit).label}){facing}{aboard}, {how}")
    mines = state.mines.get(side, [])
    if mines:
        lines.append(f"mines (19.1): {', '.join(mines)}")
    return lines


def sets_up_secrets(state: TanksState, side: str) -> bool:
    """Whether ``side``'s set-up holds secrets: hidden units (20.0), face-down units (25.7)
    or mines (19.1). Such a set-up is private input and is committed when it is done."""
    rules = state.flags.get("hidden", {}).get(side)
    return bool(rules and rules["mode"] in ("hidden", "face-down")) or (
        side in state.flags.get("mines", {}))


def setup_side(state: TanksState) -> str | None:
    return state.setup_sides[0] if state.phase == "setup" and state.setup_sides else None


def _setup_unit(ctx: Ctx, side: str, unit_id: str, hex_name: str, rule: str) -> Unit:
    state = ctx.state
    if setup_side(state) != side:
        raise RuleError(rule, f"it is not {side}'s set-up")
    unit = state.unit(unit_id)
    if unit is None or unit.side != side or unit.id not in state.flags.get("setup_units", []):
        raise RuleError(rule, f"{unit_id!r} is not one of {side}'s units that set up",
                        [u for u in state.flags.get("setup_units", [])
                         if (found := state.unit(u)) and found.side == side
                         and found.status == "waiting"])
    if unit.status == "on":  # placed earlier in this set-up: pick it up and place again
        unit.status, unit.hex, unit.hidden, unit.carrier = "waiting", None, False, None
        for rider in state.units:
            if rider.carrier == unit.id:
                rider.status, rider.hex, rider.hidden, rider.carrier = "waiting", None, False, None
    elif unit.status != "waiting":
        raise RuleError(rule, f"{unit.id} is already placed")
    if not zone_allows(ctx, side, unit.force if unit.force != "setup" else "", hex_name):
        raise RuleError("4.0", f"{hex_name} is outside {side}'s set-up zone")
    kind = ctx.type_of(unit).kind
    if ctx.tables.terrain[ctx.terrain(hex_name)].move_cost.get(kind) == PROHIBITED:
        raise RuleError("7.6", f"a {kind} may not be in {ctx.terrain(hex_name)} hex {hex_name}")
    return unit


def place(ctx: Ctx, side: str, unit_id: str, hex_name: str, facing: str | None,
          hidden: bool) -> None:
    state = ctx.state
    rule = "20.0" if hidden else "4.0"
    unit = _setup_unit(ctx, side, unit_id, hex_name, rule)
    kind_type = ctx.type_of(unit)
    rules = state.flags.get("hidden", {}).get(side)
    face_down = bool(rules and rules["mode"] == "face-down")
    if hidden:
        if not rules or rules["mode"] != "hidden":
            raise RuleError("20.0", f"{side} units may not set up hidden in this scenario")
        if rules["terrain"] and ctx.terrain(hex_name) not in rules["terrain"]:
            raise RuleError("20.0", f"hidden units set up in {' or '.join(rules['terrain'])} "
                            f"hexes only; {hex_name} is {ctx.terrain(hex_name)}")
        needed = rules["unhidden"].get(unit.type, 0)
        visible = sum(1 for u in state.units if u.side == side and u.type == unit.type
                      and not u.hidden and u.id != unit.id)
        if needed and visible < needed:
            raise RuleError("25.2", f"at least {needed} {kind_type.label} units must set up "
                            "unhidden")
    carrier = None
    for other_unit in state.at(hex_name):
        if other_unit.side != side:
            raise RuleError("6.3", f"{hex_name} holds an enemy unit")
        other_type = ctx.type_of(other_unit)
        if (other_type.kind == "halftrack" and kind_type.kind in ("infantry", "at_gun")
                and ctx.passenger_of(other_unit) is None and carrier is None):
            carrier = other_unit
        else:
            raise RuleError("6.2", f"{hex_name} already holds {other_unit.id}")
    if carrier is not None and carrier.hidden != hidden:
        raise RuleError("17.1", "a passenger is hidden exactly when its halftrack is")
    unit.status, unit.hex = "on", hex_name
    unit.facing = (facing or DEFAULT_FACING[side]) if kind_type.has_facing else None
    if facing and not kind_type.has_facing:  # 8.1: said, never silently dropped
        ctx.emit("note", f"{unit.id} ({kind_type.label}) has no facing (8.1): '{facing}' is "
                 "ignored", "8.1", audience=side, unit=unit.id)
    unit.hidden = hidden
    unit.concealed = face_down
    unit.carrier = carrier.id if carrier else None
    where = f" aboard {carrier.id}" if carrier else ""
    if hidden:
        ctx.emit("hidden-placed", f"{unit.id} set up hidden in {hex_name}{where}", "20.0",
                 audience=side, unit=unit.id, hex=hex_name)
    elif face_down:
        ctx.emit("placed", f"{unit.id} set up face-down in {hex_name}", "25.7", audience=side,
                 unit=unit.id, hex=hex_name)
        ctx.emit("placed-face-down", f"a face-down {side} unit is set up in {hex_name}",
                 "25.7", hex=hex_name)
    else:
        ctx.emit("placed", f"{unit.id} set up in {hex_name}{where}"
                 + (f" facing {unit.facing}" if unit.facing else ""), "4.0", unit=unit.id,
                 hex=hex_name)


def place_mine(ctx: Ctx, side: str, hex_name: str) -> None:
    state = ctx.state
    if setup_side(state) != side:
        raise RuleError("19.1", f"mines are written down during {side}'s set-up")
    allowed = state.flags.get("mines", {}).get(side)
    if not allowed:
        raise RuleError("19.1", f"{side} has no mines in this scenario")
    mine_list = state.mines.setdefault(side, [])
    if hex_name in mine_list:
        raise RuleError("19.1", f"{hex_name} is already mined")
    if len(mine_list) >= int(allowed["count"]):
        raise RuleError("19.1", f"{side} has only {allowed['count']} mined hexes")
    if not ctx.on_map(hex_name) or (allowed["in_setup_zone"]
                                    and not zone_allows(ctx, side, "", hex_name)):
        raise RuleError("19.1", f"{hex_name} is outside {side}'s set-up zone")
    mine_list.append(hex_name)
    mine_list.sort()
    ctx.emit("mine-placed", f"{side} mines {hex_name}", "19.1", audience=side, hex=hex_name)


def remove(ctx: Ctx, side: str, unit_id: str | None, mine: str | None) -> None:
    """Take back, before ``done``, a unit ``side`` set up (with any passenger aboard it: both
    wait to be set up again) or a hex it mined. The rules have each player set up (4.0) and
    write hidden hexes (20.0) and mines (19.1) down before play; nothing is in play, and no
    commitment is published, until the set-up is done (see docs/rulings.md)."""
    state = ctx.state
    rule = "19.1" if mine is not None else "4.0"
    if setup_side(state) != side:
        raise RuleError(rule, f"it is not {side}'s set-up: a placement is taken back only "
                        "before its side's 'done'")
    if mine is not None:
        mined = state.mines.get(side, [])
        if mine not in mined:
            raise RuleError("19.1", f"{side} has not mined {mine}", [f"remove mine {h}"
                                                                     for h in mined])
        mined.remove(mine)
        ctx.emit("mine-removed", f"{side} no longer mines {mine}", "19.1", audience=side,
                 hex=mine)
        return
    assert unit_id is not None
    placed = [u for u in state.units if u.side == side and u.status == "on"
              and u.id in state.flags.get("setup_units", [])]
    unit = ctx.find(placed, unit_id, f"{side} unit set up") if placed else None
    if unit is None:
        raise RuleError("4.0", f"{side} has set up no unit yet")
    riders = [u for u in state.units if u.carrier == unit.id]
    secret, face_down = unit.hidden or unit.concealed, unit.concealed
    where = unit.hex
    for each in (unit, *riders):
        each.status, each.hex, each.hidden, each.concealed, each.carrier = (
            "waiting", None, False, False, None)
    names = ", ".join(u.id for u in (unit, *riders))
    if secret:
        ctx.emit("unplaced", f"{names} taken back from {where}; to set up again", "20.0",
                 audience=side, unit=unit.id, hex=where)
        if face_down:
            ctx.emit("unplaced-face-down", f"the face-down {side} unit in {where} is taken "
                     "back", "25.7", hex=where)
    else:
        ctx.emit("unplaced", f"{names} taken back from {where}", "4.0", unit=unit.id,
                 hex=where)


def finish_setup(ctx: Ctx, side: str) -> None:
    state = ctx.state
    if setup_side(state) != side:
        raise RuleError("4.0", f"it is not {side}'s set-up")
    missing = [u for u in state.units
               if u.side == side and u.id in state.flags.get("setup_units", [])
               and u.status == "waiting"]
    if missing:
        raise RuleError("4.0", f"{side} still has units to set up",
                        [f"place {u.id} HEX" for u in missing])
    rules = state.flags.get("hidden", {}).get(side)
    if rules:
        for type_id, count in rules["unhidden"].items():
            shown = sum(1 for u in state.units if u.side == side and u.type == type_id
                        and u.status == "on" and not u.hidden)
            if shown < count:
                raise RuleError("25.2", f"at least {count} {type_id} must set up unhidden")
    if sets_up_secrets(state, side):
        commit(ctx, side)
    state.setup_sides.pop(0)
    ctx.emit("setup-done", f"{side} has finished setting up", "4.0", side=side)
    if not state.setup_sides:
        state.phase = "move1"


# ---- victory -----------------------------------------------------------------------------------


def _matches(ctx: Ctx, unit: Unit, tally: Tally, exclude: list[str]) -> bool:
    kind = ctx.type_of(unit).kind
    if tally.kinds and kind not in {k.value for k in tally.kinds}:
        return False
    if tally.units and unit.type not in tally.units:
        return False
    return unit.type not in exclude


def _count(ctx: Ctx, tally: Tally, exclude: list[str], loaded: bool) -> int:
    total = 0
    for unit in ctx.state.units:
        if unit.side != tally.units_of.value or not _matches(ctx, unit, tally, exclude):
            continue
        if tally.event == "exit":
            edge_ok = tally.edge is None or unit.exited_edge == tally.edge.value
            if unit.status == "exited" and edge_ok and (not loaded or _left_loaded(ctx, unit)):
                total += 1
        elif unit.status == "destroyed":
            total += 1
    return total


def _left_loaded(ctx: Ctx, unit: Unit) -> bool:
    """A halftrack that exited with infantry aboard (25.7), or a unit that exited aboard a
    halftrack (25.5: "each infantry unit that exits ... loaded on a halftrack")."""
    if unit.exited_loaded:
        return True
    carrier = ctx.state.unit(unit.carrier) if unit.carrier else None
    return (carrier is not None and carrier.status == "exited"
            and carrier.exited_edge == unit.exited_edge)


def score(ctx: Ctx) -> dict[str, int]:
    sc: Any = ctx.data.scenarios[ctx.state.scenario]
    points = {s: 0 for s in SIDES}
    for award in sc.victory.award:
        n = _count(ctx, award, award.exclude_units, award.loaded)
        points[award.side.value] += n * award.points
    return points


def hill_control(ctx: Ctx) -> dict[str, int]:
    groups = connected_groups(h for h in ctx.map.all_hexes if ctx.terrain(str(h)) == "hill")
    control = {s: 0 for s in SIDES}
    for group in groups:
        present = {u.side for u in ctx.state.on_map() if u.hex and Hex.parse(u.hex) in group}
        if len(present) == 1:
            control[present.pop()] += 1
    return control


def victory(ctx: Ctx) -> str:
    sc: Any = ctx.data.scenarios[ctx.state.scenario]
    v = sc.victory
    if v.kind in ("units-on-board", "hill-groups"):
        if v.kind == "units-on-board":
            counts = {s: sum(1 for u in ctx.state.on_map() if u.side == s) for s in SIDES}
            what = "units on the board"
        else:
            counts = hill_control(ctx)
            what = "hill groups controlled"
        shown = ", ".join(f"{s} {n}" for s, n in counts.items())
        if counts["german"] == counts["soviet"]:
            tie = v.tie if isinstance(v.tie, str) else v.tie.value
            return f"draw ({what}: {shown})" if tie == "draw" else f"{tie} wins ({what}: {shown})"
        winner = max(counts, key=lambda s: counts[s])
        return f"{winner} wins ({what}: {shown})"
    if v.kind == "points":
        points = score(ctx)
        value = points["soviet"] - points["german"] if v.score == "soviet-minus-german" \
            else points[v.score]
        for level in v.level:
            if (level.min is None or value >= level.min) and (
                    level.max is None or value <= level.max):
                if level.winner is None:
                    return f"draw ({value} points)"
                degree = "" if level.degree == "victory" else f"{level.degree} "
                return f"{level.winner.value} {degree}victory ({value} points)"
        raise AssertionError("victory levels cover every score")
    for alternative in v.alternative:
        if all(_requirement(ctx, r) for r in alternative.requires):
            return f"{v.winner.value} wins (condition {alternative.label})"
    return f"{v.otherwise.value} wins ({v.winner.value} met no victory condition)"


def _requirement(ctx: Ctx, r: Requirement) -> bool:
    n = _count(ctx, r, [], bool(r.loaded_with))
    if r.all:
        pool = [u for u in ctx.state.units
                if u.side == r.units_of.value and _matches(ctx, u, r, [])]
        return n == len(pool)
    return r.at_least is not None and n >= r.at_least
