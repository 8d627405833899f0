"""What a side may do now: for autocomplete and for random legal play.

:func:`legal_info` answers structured questions (which units may act from which Areas,
reachable Areas with their MF cost, attackable Groups); :func:`legal_orders` turns it
into canonical order texts. Moves are found by :func:`~movement.reachable`, which asks
the move rules' own predicates (exits, entrances, MF, the occupation limit while moving,
7.1); 'end' is listed only when :func:`~sequence.check_end` passes. Every listed order is
one the rules accept (the random-play tests hold the engine to it); only its dice may
turn out badly.
"""

from __future__ import annotations

from pydantic import BaseModel

from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.artillery import fag_covers, fags_to_refit
from adjudicator.stalingrad.board import area_key_order
from adjudicator.stalingrad.bombardment import bombard_options, fire_options
from adjudicator.stalingrad.combat import attack_cost, attack_limit_error, attack_mf, attacker_error
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.crossing import BREAKTHROUGH, breakthrough_open
from adjudicator.stalingrad.movement import base_mf, reachable
from adjudicator.stalingrad.orders import Cross, Move, Notation, Regroup
from adjudicator.stalingrad.places import BOX, DEAD, EAST, OFF_MAP, OFFBOARD, OUT, POOL
from adjudicator.stalingrad.replacements import replace_options
from adjudicator.stalingrad.sequence import check_end
from adjudicator.stalingrad.setup import (
    matches,
    setup_done_error,
    setup_gaps,
    setup_room,
    setup_units,
)
from adjudicator.stalingrad.sides import RUSSIAN, other
from adjudicator.stalingrad.special_moves import regroup_error
from adjudicator.stalingrad.withdrawals import recreate_options

FMT = Notation.format
MAX_ORDERS = 400


class Reach(BaseModel):
    area: str
    mf: int
    via: list[str]


class AttackOption(BaseModel):
    area: str
    group: str
    units: list[str]
    cost: int
    ranged: bool


class LegalInfo(BaseModel):
    side: str
    origin: str | None
    units: dict[str, list[str]]  # Area -> units that may act from it
    reach: dict[str, list[Reach]]  # unit -> reachable Areas
    attacks: list[AttackOption]


def actors(ctx: Ctx, side: str, area: str | None = None) -> dict[str, list[str]]:
    imp = ctx.state.impulse
    out: dict[str, list[str]] = {}
    if imp is not None and imp.origin is not None:
        for uid, act in imp.acts.items():
            if not act.done and not act.regroup and ctx.fresh(uid):
                out.setdefault(ctx.loc(uid), []).append(uid)
        for uid in ctx.units_at(imp.origin):
            if ctx.side_of(uid) == side and ctx.fresh(uid) and uid not in imp.acts:
                out.setdefault(imp.origin, []).append(uid)
    else:
        for uid, unit in ctx.state.units.items():
            if unit.fresh and unit.loc not in (POOL, DEAD, OUT, BOX) and ctx.side_of(uid) == side:
                if unit.loc == EAST:
                    continue
                out.setdefault(unit.loc, []).append(uid)
    if area is not None:
        out = {k: v for k, v in out.items() if k == area}
    return {k: sorted(v) for k, v in out.items()}


def legal_info(ctx: Ctx, side: str, area: str | None = None) -> LegalInfo:
    units = actors(ctx, side, area)
    reach: dict[str, list[Reach]] = {}
    merged: dict[tuple[str, str, str], AttackOption] = {}
    profiles: dict[tuple[object, ...], list[Reach]] = {}
    for loc, uids in units.items():
        if loc in OFF_MAP and loc != OFFBOARD:
            continue
        for uid in uids:
            d = ctx.d(uid)
            acted = ctx.state.impulse is not None and uid in ctx.state.impulse.acts
            # Units of one Area with the same movement profile reach the same Areas.
            key = (loc, d.side, d.kind, d.mf, d.mechanized, d.motorized, d.combat,
                   uid if acted else None)
            if key not in profiles:
                found = reachable(ctx, uid)
                profiles[key] = [Reach(area=k, mf=mf, via=path[:-1])
                                 for k, (mf, path) in sorted(
                                     found.items(), key=lambda kv: area_key_order(kv[0]))]
            reach[uid] = profiles[key]
        if loc in OFF_MAP:
            continue
        for target in sorted({loc, *ctx.board.adjacent(loc)}, key=area_key_order):
            ranged = target != loc
            if ranged and (not ctx.state.day or ctx.zone(target) or ctx.zone(loc)):
                continue  # 8.31, 11.4
            if attack_limit_error(ctx, side, target, [loc] if ranged else []) is not None:
                continue  # 7.1
            for group in ("fresh", "spent"):
                if not ctx.combat(target, other(side), fresh=(group == "fresh")):
                    continue
                if ctx.state.impulse and (target, group) in ctx.state.impulse.attacked:
                    continue  # 8.32
                able = []
                for uid in uids:
                    if attacker_error(ctx, uid, target, group) is not None:
                        continue
                    used, cost = attack_mf(ctx, uid, target, group)
                    if used + cost <= base_mf(ctx, uid):
                        able.append(uid)
                if able:
                    # Units of one impulse started in one Area (8.11): before the impulse
                    # begins, each Area's units are a separate choice.
                    origin = ctx.state.impulse.origin if ctx.state.impulse else None
                    option = merged.setdefault((origin or loc, target, group), AttackOption(
                        area=target, group=group, units=[],
                        cost=attack_cost(ctx, target, group), ranged=False))
                    option.units = sorted({*option.units, *able})
                    option.ranged = option.ranged or ranged
    # Units of one impulse may combine an in-Area and a Ranged attack on one Area (8.31).
    attacks = [a for a in merged.values() if any(ctx.d(u).numeric_attack for u in a.units)]
    attacks.sort(key=lambda a: (area_key_order(a.area), a.group))
    return LegalInfo(side=side, origin=ctx.state.impulse.origin if ctx.state.impulse else None,
                     units=units, reach=reach, attacks=attacks)


def legal_orders(ctx: Ctx, side: str) -> list[str]:
    return [order for order, _ in legal_entries(ctx, side)]


def legal_entries(ctx: Ctx, side: str, limit: int | None = MAX_ORDERS
                  ) -> list[tuple[str, str]]:
    """The legal orders, each with a short label for listings: a move once per
    destination with its MF cost (``move g14pz:i/103 to 14``, "3 MF"; the rules find the
    cheapest path, 8.2), an attack with its MF cost. Moves stop after ``limit`` orders
    (a sample for autocomplete; None: every one)."""
    state = ctx.state
    if state.phase == "bids":  # 22.11: any whole number of Victory Points
        return [(f"bid {n}", "secret: Victory Points conceded for the Germans")
                for n in (0, 1, 2, -1)]
    if state.phase == "setup":
        return [(order, "") for order in _setup_orders(ctx, side)]
    if state.phase == "rubble":
        return [("rubble", "the initial Rubble rolls (5.7)")]
    imp = state.impulse
    if imp is not None and imp.fire_kind is not None:
        # 15.2: an Artillery/Air impulse holds only such attacks.
        return [("end", ""), *((order, "Artillery/Air") for order in fire_options(ctx, side))]
    out: list[tuple[str, str]] = [("pass", "")]
    if imp is not None and imp.acts:
        # 'end' is listed only when the impulse may end now (7.1, 8.34).
        try:
            check_end(ctx, side)
            out = [("end", "")]
        except RuleError:
            out = []
    pending_attack = _must_attack(ctx, side)
    legal = legal_info(ctx, side)
    fags = _fag_support(ctx, side)
    for option in legal.attacks:
        leaders = [u for u in option.units if ctx.d(u).numeric_attack]
        if not leaders:
            continue
        label = f"{option.cost} MF" + (", Ranged possible" if option.ranged else "")
        out.append((f"attack {option.area} {option.group} with {' '.join(option.units)}",
                    label))
        # 8.34: units that entered the Area and must attack come along.
        bound = [u for u in option.units if imp is not None and u in imp.acts
                 and imp.acts[u].entered == option.area and imp.acts[u].must_attack]
        few = sorted({leaders[0], *bound})
        if len(few) < len(option.units):
            out.append((f"attack {option.area} {option.group} with {' '.join(few)}", label))
        support = [f for f in fags if fag_covers(ctx, f, option.area)]
        if support:  # 15.3: the Russian's Artillery joins his attack
            out.append((f"attack {option.area} {option.group} with "
                        f"{' '.join(sorted({*option.units, support[0]}))}",
                        label + ", with Russian Artillery"))
    if pending_attack:
        # 8.34: units that entered an enemy-occupied Area must attack before 'end'.
        return [entry for entry in out if entry[0].startswith("attack")] or out
    if imp is None or not (imp.acts or imp.ferried or imp.recrossed):
        out += [(order, "Opening Bombardment (20.4)") for order in bombard_options(ctx)]
        out += [(order, "Artillery/Air (15.2, 17.2)") for order in fire_options(ctx, side)]
        if side == RUSSIAN:
            out += [(f"refit {f}", "Refit dr 1-2 (15.34)") for f in fags_to_refit(ctx)]
            out += [(order, "Armor replacement (13.3)") for order in replace_options(ctx, side)]
            out += [(order, "64th Army (21.3)") for order in recreate_options(ctx, side)]
    for uid, reaches in legal.reach.items():
        act = imp.acts.get(uid) if imp else None
        if act is not None and act.entered:
            continue
        for r in reaches:
            out.append((FMT(Move(units=(uid,), to=r.area)), f"{r.mf} MF"
                        + (f", via {' '.join(r.via)}" if r.via else "")))
            if limit is not None and len(out) > limit:
                return out
    if not state.day:
        out += [(order, "") for order in _night_orders(ctx, side)]
    out += [(order, "") for order in _cross_orders(ctx, side)]
    return out


def _fag_support(ctx: Ctx, side: str) -> list[str]:
    """The Russian's Fresh FAG units (15.3)."""
    if side != RUSSIAN:
        return []
    return sorted(u for u in ctx.units_at(BOX) if ctx.d(u).kind == "fag" and ctx.fresh(u))


def _setup_orders(ctx: Ctx, side: str) -> list[str]:
    """5.4-5.6: a matching Area with room for each waiting unit (an Area still lacking a
    unit of its colour first), the fills of such Areas once all are placed, 'setup auto'
    while units wait and 'setup done' when :func:`setup_done_error` allows it."""
    waiting = [u for u in setup_units(ctx.board, ctx.state, side) if ctx.loc(u) == POOL]
    gaps = setup_gaps(ctx, side)
    empty = {key for key, _ in gaps}
    keys = sorted(ctx.board.areas, key=lambda k: (k not in empty, area_key_order(k)))
    out = []
    for uid in waiting[:20]:
        d = ctx.d(uid)
        for key in keys:
            if matches(d, ctx.board.area(key)) and setup_room(ctx, side, (uid,), key):
                out.append(f"setup {uid} in {key}")
                break
    if waiting:
        out.append("setup auto")
    else:
        out += [f"setup {donors[0]} in {key}" for key, donors in gaps if donors]
    if setup_done_error(ctx, side) is None:
        out.append("setup done")
    return out


def _must_attack(ctx: Ctx, side: str) -> bool:
    imp = ctx.state.impulse
    if imp is None:
        return False
    return any(a.entered and a.must_attack and ctx.loc(u) == a.entered
               and ctx.enemy(a.entered, side) and ctx.d(u).combat
               for u, a in imp.acts.items())


def _night_orders(ctx: Ctx, side: str) -> list[str]:
    state = ctx.state
    imp = state.impulse
    out: list[str] = []
    origin = imp.origin if imp else None
    # Regrouping (8.27): Spent units, one MF, into Free Areas.
    for uid, unit in state.units.items():
        if unit.fresh or unit.loc in OFF_MAP or ctx.side_of(uid) != side:
            continue
        if origin is not None and unit.loc != origin:
            continue
        if imp and uid in imp.acts:
            continue
        for key in sorted(ctx.board.adjacent(unit.loc), key=area_key_order):
            if regroup_error(ctx, side, (uid,), key) is None:
                out.append(FMT(Regroup(units=(uid,), to=key)))
                break
        if len(out) > 40:
            break
    return out


def _cross_orders(ctx: Ctx, side: str) -> list[str]:
    """18.3-18.6: the east bank's Fresh units to a Russian Ferry Landing with room (at
    night), or through a Zone open to a Breakthrough (day or night)."""
    state = ctx.state
    imp = state.impulse
    origin = imp.origin if imp else None
    if side != RUSSIAN or origin not in (None, EAST):
        return []
    east = sorted(u for u in ctx.units_at(EAST) if ctx.fresh(u) and ctx.side_of(u) == side
                  and not (imp and u in imp.acts))
    room = ctx.board.tables.crossing.max_units_per_impulse - (imp.ferried if imp else 0)
    out: list[str] = []
    if not east or room <= 0:
        return out
    for key, info in sorted(ctx.board.areas.items(), key=lambda kv: area_key_order(kv[0])):
        if imp is not None and imp.ferry_area not in (None, key):
            continue
        if info.zone and key in BREAKTHROUGH and breakthrough_open(ctx, key):
            out.append(FMT(Cross(units=tuple(east[:room]), to=key)))
            continue
        space = ctx.board.max_stack - len(ctx.combat(key, side))
        if not state.day and info.ferry and ctx.controller(key) == RUSSIAN and space > 0:
            out.append(FMT(Cross(units=tuple(east[:min(room, space)]), to=key)))
    return out


__all__ = ["LegalInfo", "legal_entries", "legal_info", "legal_orders"]
