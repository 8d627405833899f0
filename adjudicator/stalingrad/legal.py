"""What a side may do now: every order the rules accept, compactly, and a sample of
single orders for autocomplete and random legal play.

:func:`legal_info` answers structured questions (which units may act from which Areas,
reachable Areas with their MF cost, attackable Groups); :func:`legal_listing` turns it
into the complete listing (:class:`~adjudicator.kernel.listed.Listed` families: an attack
per target and Group with the units that may join, a move per Area and destination with
the units that reach it, fortification, infiltration, regrouping, crossing per Area;
:func:`decision_listing`, a decision's answers); :func:`legal_orders` into single
canonical order texts (a sample: the moves stop after ``MAX_ORDERS``). Rules that check
everything before their first roll are asked directly (``ProbeDice``).

Moves are found by :func:`~movement.reachable`, which asks
the move rules' own predicates (exits, entrances, MF, the occupation limit while moving,
7.1); 'end' is listed only when :func:`~sequence.check_end` passes. Every listed order is
one the rules accept (the random-play tests hold the engine to it); only its dice may
turn out badly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from adjudicator.kernel.decisions import PendingDecision
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.listed import Listed, Probed, ProbeDice, any_of, listed
from adjudicator.kernel.orders import Order
from adjudicator.stalingrad.artillery import (
    fag_covers,
    fags_to_refit,
)
from adjudicator.stalingrad.board import area_key_order
from adjudicator.stalingrad.bombardment import bombard_options, bombard_targets, fire_options
from adjudicator.stalingrad.combat import (
    attack_cost,
    attack_limit_error,
    attack_mf,
    attacker_error,
    group_units,
)
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.crossing import BREAKTHROUGH, breakthrough_open, do_recross
from adjudicator.stalingrad.losses import retreat_options
from adjudicator.stalingrad.movement import base_mf, reachable, start_units
from adjudicator.stalingrad.orders import (
    Cross,
    Fortify,
    Infiltrate,
    Move,
    Notation,
    Recross,
    Regroup,
)
from adjudicator.stalingrad.places import BOX, DEAD, EAST, OFF_MAP, OFFBOARD, OUT, POOL
from adjudicator.stalingrad.replacements import replace_error, replace_options
from adjudicator.stalingrad.sequence import check_end
from adjudicator.stalingrad.setup import (
    matches,
    setup_done_error,
    setup_gaps,
    setup_room,
    setup_units,
)
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN, other
from adjudicator.stalingrad.special_moves import do_fortify, do_infiltrate, regroup_error
from adjudicator.stalingrad.withdrawals import recreate_error, recreate_options
from adjudicator.stalingrad.works import works

FMT = Notation.format
GROUPS = ("fresh", "spent")
MAX_ORDERS = 400
#: Orders a refusal names.
HINT = 12
#: Waiting units the sampled set-up listing places (one Area each).
SETUP_SAMPLE = 20


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


def reach_of(ctx: Ctx, units: dict[str, list[str]]) -> dict[str, list[Reach]]:
    """Each unit's reachable Areas with their MF cost and path (8.2)."""
    reach: dict[str, list[Reach]] = {}
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
    return reach


def legal_info(ctx: Ctx, side: str, area: str | None = None, moves: bool = True
               ) -> LegalInfo:
    """``moves``: find every unit's reachable Areas too (the costly part)."""
    units = actors(ctx, side, area)
    reach = reach_of(ctx, units) if moves else {}
    merged: dict[tuple[str, str, str], AttackOption] = {}
    for loc, uids in units.items():
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
    """The legal orders one by one, each with a short label: every family of
    :func:`legal_listing` by its own order, a move once per unit and destination with its
    MF cost (``move g14pz:i/103 to 14``, "3 MF"; the rules find the cheapest path, 8.2).
    The moves come last and stop after ``limit`` orders (a sample for autocomplete; None:
    every one)."""
    out: list[tuple[str, str]] = []
    moves: list[tuple[str, str]] = []
    for entry in _listing(ctx, side, each_unit=True, limit=limit):
        (moves if entry.order.startswith("move ") else out).append((entry.order, entry.label))
    out += moves
    return out if limit is None else out[:limit + 1]


def legal_listing(ctx: Ctx, side: str) -> list[Listed]:
    """Every order ``side`` may give now, compactly (:class:`~adjudicator.kernel.listed.
    Listed`): one entry per attack target and Group with the units that may join it, per
    move destination with the units that reach it, per Area with the units that may
    fortify, infiltrate, regroup, cross or recross. Each entry's own order is accepted;
    every order the rules accept is one of an entry's family."""
    return _listing(ctx, side, each_unit=False, limit=None)


def _listing(ctx: Ctx, side: str, each_unit: bool, limit: int | None) -> list[Listed]:
    state = ctx.state
    if state.phase == "bids":  # 22.11: any whole number of Victory Points
        return [listed("bid 0", "secret: Victory Points conceded for the Germans",
                       "bid N (any whole number)", value=None)]
    if state.phase == "setup":
        return _setup_listing(ctx, side, each_unit)
    if state.phase == "rubble":
        return [listed("rubble", "the initial Rubble rolls (5.7)")]
    imp = state.impulse
    if imp is not None and imp.fire_kind is not None:
        # 15.2: an Artillery/Air impulse holds only such attacks.
        return [listed("end"), *_fire_listing(ctx, side, "Artillery/Air")]
    out: list[Listed] = [listed("pass")]
    if imp is not None and imp.acts:
        # 'end' is listed only when the impulse may end now (7.1, 8.34).
        try:
            check_end(ctx, side)
            out = [listed("end")]
        except RuleError:
            out = []
    legal = legal_info(ctx, side, moves=False)
    out += _attack_listing(ctx, side, legal)
    if each_unit and _must_attack(ctx, side):
        # 8.34: units that entered an enemy-occupied Area must attack before 'end': the
        # sample offers those attacks (other units may still act: the complete listing).
        return [entry for entry in out if entry.order.startswith("attack")] or out
    if imp is None or not (imp.acts or imp.ferried or imp.recrossed):
        out += _bombard_listing(ctx)
        out += _fire_listing(ctx, side, "Artillery/Air (15.2, 17.2)")
        if side == RUSSIAN:
            out += [listed(f"refit {f}", "Refit dr 1-2 (15.34)") for f in fags_to_refit(ctx)]
            out += _family("replace", replace_options(ctx, side), "Armor replacement (13.3)",
                           lambda u: replace_error(ctx, side, [u], works(ctx)) is None,
                           _dead_armor(ctx))
            out += _family("recreate", recreate_options(ctx, side), "64th Army (21.3)",
                           lambda u: recreate_error(ctx, side, [u]) is None,
                           _dead_combat(ctx) if state.compensation else [])
    out += _fortify_listing(ctx, side, legal)
    if not state.day:
        out += _night_listing(ctx, side, legal)
    out += [listed(order, "", f"cross {any_of(units)} to {to}", units=units)
            for order, units, to in _cross_orders(ctx, side)]
    if limit is None or len(out) <= limit:
        out += _move_listing(ctx, legal, each_unit, limit)
    return out


def decision_listing(ctx: Ctx, pending: PendingDecision) -> list[Listed]:
    """A pending decision's options, each with the family of answers it stands for: the
    casualties of a combat paid by any units of the Group, retreating to any legal Area
    (8.354, 8.3551, 8.3554); any of the retreating units continuing (8.3553); any of the
    reinforcements placed (18.2)."""
    data = pending.data
    free: dict[str, list[str]] = {}
    if pending.kind in ("casualties", "voluntary"):
        group = [str(u) for u in data.get("group", [])]
        side = pending.side
        choices = retreat_options(ctx, side, str(data["area"]), set())[0]
        kinds = ("voluntary",) if pending.kind == "voluntary" else (
            "disrupt", "retreat", "eliminate", "voluntary")
        free = {**{k: group for k in kinds}, "to": choices}
    elif pending.kind in ("overflow", "reinforcements"):
        free = {"units": [str(u) for u in data.get("units", [])]}
    return [Listed(order=o.order, label=o.label,
                   free={k: tuple(v) for k, v in free.items()}) for o in pending.options]


def _attack_listing(ctx: Ctx, side: str, legal: LegalInfo) -> list[Listed]:
    """8.3: one entry per target Area and Group: its order has every unit that may join
    (the Russian's FAGs too, 15.3, in the family)."""
    out: list[Listed] = []
    fags = _fag_support(ctx, side)
    for option in legal.attacks:
        if not any(ctx.d(u).numeric_attack for u in option.units):
            continue
        label = f"{option.cost} MF" + (", Ranged possible" if option.ranged else "")
        support = [f for f in fags if fag_covers(ctx, f, option.area)]
        if support:
            label += ", Russian Artillery may join"
        joining = sorted({*option.units, *support})
        out.append(listed(f"attack {option.area} {option.group} with {' '.join(option.units)}",
                          label, f"attack {option.area} {option.group} with "
                          f"{any_of(joining)}", units=joining, group=(option.group,)))
    return out


def _fire_listing(ctx: Ctx, side: str, label: str) -> list[Listed]:
    """15.2, 17.2: Artillery/Air attacks, each naming its Group (which may go unsaid when
    the Area holds one)."""
    return [listed(order, label, group=(order.split()[2],)) for order in fire_options(ctx, side)]


def _bombard_listing(ctx: Ctx) -> list[Listed]:
    """20.4: the Opening Bombardment's strikes, any of them (no Area twice)."""
    options = bombard_options(ctx)
    if not options:
        return []
    strikes: list[str] = []
    for uid, targets in bombard_targets(ctx):
        for area in targets:
            groups = [g for g in GROUPS if group_units(ctx, area, GERMAN, g)]
            strikes += [str((area, g, uid)) for g in (*groups, "") if groups]
    return [listed(options[0], "Opening Bombardment (20.4)",
                   "bombard any of the Observers' and the Luftwaffe's strikes",
                   strikes=strikes)]


def _family(verb: str, orders: list[str], label: str, ok: Callable[[str], bool],
            candidates: list[str]) -> list[Listed]:
    """One entry for ``verb``'s orders: the first listed, any of the ``candidates`` that
    ``ok`` accepts alone in its family."""
    if not orders:
        return []
    able = [u for u in candidates if ok(u)]
    return [listed(orders[0], label, f"{verb} {any_of(able)}", units=able)]


def _dead_armor(ctx: Ctx) -> list[str]:
    return sorted(u for u in ctx.units_at(DEAD) if ctx.d(u).side == RUSSIAN
                  and ctx.d(u).kind == "armor")


def _dead_combat(ctx: Ctx) -> list[str]:
    return sorted(u for u in ctx.units_at(DEAD) if ctx.d(u).side == RUSSIAN
                  and ctx.d(u).combat)


def _move_listing(ctx: Ctx, legal: LegalInfo, each_unit: bool, limit: int | None
                  ) -> list[Listed]:
    """8.2: per Area and destination, the units that reach it (any path, ``via`` or not,
    the rules accept; a stack of them moves when each may); 8.11: the units that may
    "move" within their Area (they stay and are Spent). ``each_unit``: one entry per
    unit and destination, with its MF cost, the first ``limit`` of them."""
    imp = ctx.state.impulse
    reach = {uid: reaches for uid, reaches in reach_of(ctx, legal.units).items()
             if not (imp and uid in imp.acts and imp.acts[uid].entered)}
    out: list[Listed] = []
    if each_unit:
        for uid, reaches in reach.items():
            if limit is not None and len(out) > limit:
                break
            out += [listed(FMT(Move(units=(uid,), to=r.area)), f"{r.mf} MF"
                           + (f", via {' '.join(r.via)}" if r.via else ""))
                    for r in reaches]
        return out
    families: dict[tuple[str, str], list[tuple[str, Reach]]] = {}
    for uid, reaches in reach.items():
        for r in reaches:
            families.setdefault((ctx.loc(uid), r.area), []).append((uid, r))
    for uid, reaches in reach.items():
        # 8.22: an AT unit enters an Area of Spent enemy units beside a unit with a
        # numerical Attack Factor: it joins such a unit's family (never listed alone)
        if ctx.d(uid).kind != "at":
            continue
        own = {r.area for r in reaches}
        for area, (mf, path) in reachable(ctx, uid, accompanied=True).items():
            members = families.get((ctx.loc(uid), area))
            if area not in own and members and any(
                    ctx.d(other_uid).numeric_attack for other_uid, _ in members):
                members.append((uid, Reach(area=area, mf=mf, via=path[:-1])))
    for (_, to), members in families.items():
        units = sorted(uid for uid, _ in members)
        costs = sorted({r.mf for _, r in members})
        first = members[0][1]
        label = (f"{costs[0]}-{costs[-1]} MF" if len(costs) > 1 else f"{costs[0]} MF") + (
            f", via {' '.join(first.via)}" if first.via and len(members) == 1 else "")
        out.append(listed(FMT(Move(units=(members[0][0],), to=to)), label,
                          f"move {any_of(units)} to {to}" if len(units) > 1 else "",
                          units=units, via=None, origin=None))
    for area, uids in legal.units.items():
        staying = [u for u in uids if area in ctx.board.areas]
        if staying and _probe(ctx, ctx.side_of(staying[0]),
                              Move(units=(staying[0],), to=area), _may_start):
            out.append(listed(FMT(Move(units=(staying[0],), to=area)), "stays, Spent (8.11)",
                              f"move {any_of(staying)} to {area} (stays, or a round trip)",
                              units=staying, origin=(area,), via=None))
    return out


def _probe(ctx: Ctx, side: str, order: Order,
           rule: Callable[[Ctx, str, Any, ProbeDice], None]) -> bool:
    """Whether ``rule`` accepts ``order`` now: run until its first roll. Before it the
    rules touch only the impulse record, which is put back."""
    state = ctx.state
    saved = state.impulse.model_copy(deep=True) if state.impulse is not None else None
    try:
        rule(Ctx(ctx.board, state), side, order, ProbeDice())
    except Probed:
        return True
    except RuleError:
        return False
    finally:
        state.impulse = saved
    return True


def _may_start(ctx: Ctx, side: str, order: Move, dice: ProbeDice) -> None:
    start_units(ctx, side, order.units)


def _fortify_listing(ctx: Ctx, side: str, legal: LegalInfo) -> list[Listed]:
    """14.3: per Area, an Engineer alone or three Infantry of the units that may act."""
    out: list[Listed] = []
    need = ctx.board.tables.constants.fortification_infantry
    for area, uids in legal.units.items():
        if area not in ctx.board.areas:
            continue
        infantry = [u for u in uids if ctx.d(u).kind == "infantry"]
        tries: list[tuple[str, ...]] = [(u,) for u in infantry if ctx.d(u).engineer]
        tries += [tuple(infantry[:need])] if len(infantry) >= need else []
        for units in tries:
            order = Fortify(area=area, units=units)
            if _probe(ctx, side, order, do_fortify):
                engineers = [u for u in infantry if ctx.d(u).engineer]
                ways = [f"an Engineer ({any_of(engineers)})"] if engineers else []
                ways += [f"{need} of {' '.join(infantry)}"] if len(infantry) >= need else []
                out.append(listed(FMT(order), "Fortification dr (14.3)",
                                  f"fortify {area} with {' or '.join(ways)}", units=infantry))
                break
    return out


def _night_listing(ctx: Ctx, side: str, legal: LegalInfo) -> list[Listed]:
    """Night: Regrouping (8.27), Infiltration (8.28) and Recrossing (18.7), per Area and
    destination with the units that may go."""
    state = ctx.state
    imp = state.impulse
    origin = imp.origin if imp else None
    out: list[Listed] = []
    regroups: dict[tuple[str, str], list[str]] = {}
    for uid, unit in state.units.items():
        if unit.fresh or unit.loc in OFF_MAP or ctx.side_of(uid) != side:
            continue
        if origin is not None and unit.loc != origin:
            continue
        if imp and uid in imp.acts:
            continue
        for key in sorted(ctx.board.adjacent(unit.loc), key=area_key_order):
            if regroup_error(ctx, side, (uid,), key) is None:
                regroups.setdefault((unit.loc, key), []).append(uid)
    for (_, to), units in regroups.items():
        out.append(listed(FMT(Regroup(units=(units[0],), to=to)), "1 MF (8.27)",
                          f"regroup {any_of(units)} to {to}", units=units))
    if side != RUSSIAN:
        return out
    for area, uids in legal.units.items():
        if area not in ctx.board.areas:
            continue
        infantry = [u for u in uids if ctx.d(u).kind == "infantry"]
        for key in sorted(ctx.board.adjacent(area) if infantry else (), key=area_key_order):
            able = [u for u in infantry
                    if _probe(ctx, side, Infiltrate(area=key, units=(u,)), do_infiltrate)]
            if able:
                out.append(listed(FMT(Infiltrate(area=key, units=(able[0],))),
                                  "Infiltration dr (8.28)",
                                  f"infiltrate {key} with {any_of(able)}", units=able))
    for key, info in sorted(ctx.board.areas.items(), key=lambda kv: area_key_order(kv[0])):
        if not info.ferry:
            continue
        able = [u for u in ctx.units_at(key) if ctx.side_of(u) == side
                and _probe(ctx, side, Recross(units=(u,), origin=key), do_recross)]
        if able:
            out.append(listed(FMT(Recross(units=(able[0],), origin=key)),
                              "Recrossing DR (18.7)",
                              f"recross {any_of(able)} from {key}", units=able))
    return out


def _fag_support(ctx: Ctx, side: str) -> list[str]:
    """The Russian's Fresh FAG units (15.3)."""
    if side != RUSSIAN:
        return []
    return sorted(u for u in ctx.units_at(BOX) if ctx.d(u).kind == "fag" and ctx.fresh(u))


def _setup_listing(ctx: Ctx, side: str, sample: bool) -> list[Listed]:
    """5.4-5.6: per Area, the side's units of its setup symbol that fit there (an Area
    still lacking a unit of its colour first); 'setup auto' while units wait and 'setup
    done' when :func:`setup_done_error` allows it. ``sample``: one Area for each of the
    first waiting units (then the fills of Areas still lacking a unit) instead."""
    waiting = [u for u in setup_units(ctx.board, ctx.state, side) if ctx.loc(u) == POOL]
    placed = [u for u in setup_units(ctx.board, ctx.state, side) if ctx.loc(u) != POOL]
    gaps = setup_gaps(ctx, side)
    empty = {key for key, _ in gaps}
    keys = sorted(ctx.board.areas, key=lambda k: (k not in empty, area_key_order(k)))
    out: list[Listed] = []
    if sample:
        for uid in waiting[:SETUP_SAMPLE]:
            key = next((k for k in keys if matches(ctx.d(uid), ctx.board.area(k))
                        and setup_room(ctx, side, (uid,), k)), None)
            if key is not None:
                out.append(listed(f"setup {uid} in {key}"))
        if not waiting:
            out += [listed(f"setup {donors[0]} in {key}") for key, donors in gaps if donors]
    else:
        for key in keys:
            area = ctx.board.area(key)
            able = [u for u in (*waiting, *placed) if matches(ctx.d(u), area)
                    and (ctx.loc(u) == key or setup_room(ctx, side, (u,), key))]
            if able:  # the first one not there yet, when one is not
                able.sort(key=lambda u: ctx.loc(u) == key)
                out.append(listed(f"setup {able[0]} in {key}", "",
                                  f"setup {any_of(able)} in {key}", units=able))
    if waiting:
        out.append(listed("setup auto"))
    if setup_done_error(ctx, side) is None:
        out.append(listed("setup done"))
    return out


def _must_attack(ctx: Ctx, side: str) -> bool:
    imp = ctx.state.impulse
    if imp is None:
        return False
    return any(a.entered and a.must_attack and ctx.loc(u) == a.entered
               and ctx.enemy(a.entered, side) and ctx.d(u).combat
               for u, a in imp.acts.items())


def _cross_orders(ctx: Ctx, side: str) -> list[tuple[str, list[str], str]]:
    """18.3-18.6: the east bank's Fresh units to a Russian Ferry Landing with room (at
    night), or through a Zone open to a Breakthrough (day or night): per destination, an
    order that fits and the units that may cross."""
    state = ctx.state
    imp = state.impulse
    origin = imp.origin if imp else None
    if side != RUSSIAN or origin not in (None, EAST):
        return []
    east = sorted(u for u in ctx.units_at(EAST) if ctx.fresh(u) and ctx.side_of(u) == side
                  and not (imp and u in imp.acts))
    room = ctx.board.tables.crossing.max_units_per_impulse - (imp.ferried if imp else 0)
    out: list[tuple[str, list[str], str]] = []
    if not east or room <= 0:
        return out
    for key, info in sorted(ctx.board.areas.items(), key=lambda kv: area_key_order(kv[0])):
        if imp is not None and imp.ferry_area not in (None, key):
            continue
        if info.zone and key in BREAKTHROUGH and breakthrough_open(ctx, key):
            out.append((FMT(Cross(units=tuple(east[:room]), to=key)), east, key))
            continue
        space = ctx.board.max_stack - len(ctx.combat(key, side))
        if not state.day and info.ferry and ctx.controller(key) == RUSSIAN and space > 0:
            out.append((FMT(Cross(units=tuple(east[:min(room, space)]), to=key)), east, key))
    return out


__all__ = ["HINT", "MAX_ORDERS", "LegalInfo", "decision_listing", "legal_entries",
           "legal_info", "legal_listing", "legal_orders", "reach_of"]
