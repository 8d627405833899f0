"""Off-board artillery (18.0): target marker, scatter, barrage on seven hexes.

Dice order when a barrage falls: the scatter dr (one die); if it scatters, the direction
dr (one die); then one DR (two dice) per unit in the barrage hexes, taking the hexes in the
order target, N, NE, SE, S, SW, NW and the units in each hex by id.
"""

from __future__ import annotations

from adjudicator.kernel.errors import RuleError
from adjudicator.tanks.context import Ctx
from adjudicator.tanks.hexgrid import Hex, barrage_hexes, neighbour
from adjudicator.tanks.state import Marker


def available(ctx: Ctx, side: str) -> str | None:
    """The barrage weight ``side`` may call this turn, or None."""
    state = ctx.state
    allot = state.barrages.get(side)
    if not allot or (allot.get("advanced_only") and not state.advanced):
        return None
    turn = state.turn
    if allot.get("per_turn") is not None:
        turns = allot.get("turns") or []
        if turns and turn not in turns:
            return None
        used = state.barrages_used.get(f"{side}:{turn}", 0)
        return str(allot["weight"]) if used < int(allot["per_turn"]) else None
    if turn < int(allot.get("from_turn", 1)):
        return None
    used = state.barrages_used.get(side, 0)
    return str(allot["weight"]) if used < int(allot["total"]) else None


def place(ctx: Ctx, side: str, hex_name: str) -> None:
    state = ctx.state
    if state.phase != "move1" or side != state.phasing:
        raise RuleError("18.1", "the target marker is placed at the beginning of your own "
                        "First Movement Phase")
    if state.moves_started:
        raise RuleError("18.1", "the target marker is placed before any unit has moved")
    if state.marker is not None:
        raise RuleError("18.1", f"a target marker is already in {state.marker.hex}")
    weight = available(ctx, side)
    if weight is None:
        raise RuleError("18.1", f"{side} has no barrage available this turn")
    if not ctx.on_map(hex_name):
        raise RuleError("18.1", f"{hex_name} is not on the map")
    spotters = [u for u in ctx.friends(side) if u.hex and ctx.los(u.hex, hex_name)]
    if not spotters:
        raise RuleError("18.1", f"no {side} unit has a line of sight to {hex_name}")
    state.marker = Marker(side=side, hex=hex_name, weight=weight)
    allot = state.barrages[side]
    key = f"{side}:{state.turn}" if allot.get("per_turn") is not None else side
    state.barrages_used[key] = state.barrages_used.get(key, 0) + 1
    ctx.emit("barrage-marker", f"{side} places a {weight} barrage target marker in {hex_name}",
             "18.1", side=side, hex=hex_name, weight=weight)


def fall(ctx: Ctx) -> None:
    """18.2-18.3: at the end of the Mobile Fire Phase."""
    state = ctx.state
    marker = state.marker
    if marker is None:
        return
    state.marker = None
    target = Hex.parse(marker.hex)
    scatter = ctx.roll(f"{marker.side} barrage scatter dr", count=1)
    if scatter in ctx.tables.scatter_on:
        face = ctx.roll(f"{marker.side} barrage scatter direction dr", count=1)
        direction = ctx.tables.scatter_directions[face]
        target = neighbour(target, direction)
        ctx.emit("scatter", f"the barrage scatters {direction.name} to {target}", "18.2",
                 hex=str(target), direction=direction.name, marker=marker.hex)
    need = ctx.tables.barrage_need[marker.weight]
    ctx.emit("barrage", f"a {marker.weight} barrage falls on {target} and the hexes around it "
             f"(destroys on {need} or less)", "18.3", hex=str(target), weight=marker.weight,
             marker=marker.hex, side=marker.side,
             hexes=[str(h) for h in barrage_hexes(target) if ctx.map.on_map(h)])
    for h in barrage_hexes(target):
        if not ctx.map.on_map(h):
            continue
        for unit in sorted(ctx.state.at(str(h)), key=lambda u: u.id):
            if unit.status != "on":
                continue
            if unit.hidden:
                ctx.reveal(unit, "it is under an artillery barrage", "18.3")
            total = ctx.roll(f"barrage on {unit.id} in {h}")
            destroyed = total <= need
            ctx.emit("barrage-attack", f"barrage on {unit.id} in {h}: {total} — "
                     + ("destroyed" if destroyed else "survives"), "18.3", unit=unit.id,
                     hex=str(h), roll=total, need=need, destroyed=destroyed)
            if destroyed:
                ctx.destroy(unit, "artillery barrage", "18.3")
