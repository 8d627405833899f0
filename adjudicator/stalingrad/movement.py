"""Movement (8.1x, 8.2x): costs, who may act, each step with Rubble Entrance (14.4, 14.41)
and Zones (11), occupation limits while moving (7.1), the move itself and what the legal
query may reach. Regrouping, Infiltration and Fortification are
:mod:`adjudicator.stalingrad.special_moves`."""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any

from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.advantage import offer_reroll
from adjudicator.stalingrad.board import area_key_order
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.control import update_control
from adjudicator.stalingrad.orders import Move
from adjudicator.stalingrad.places import EAST, OFF_MAP, OFFBOARD
from adjudicator.stalingrad.sides import RUSSIAN, other
from adjudicator.stalingrad.state import Act

# ---- costs ---------------------------------------------------------------------------------


def fresh_enemy_adjacent(ctx: Ctx, side: str, dest: str) -> bool:
    """8.23B: a Fresh enemy Combat unit in an adjacent Area; Zones and Areas do not
    influence each other (11.3)."""
    dest_zone = ctx.zone(dest)
    return any(ctx.zone(n) == dest_zone and ctx.fresh_enemy(n, side)
               for n in ctx.board.adjacent(dest))


def entry_cost(ctx: Ctx, uid: str, dest: str) -> tuple[int, str]:
    """MF to enter ``dest`` (8.23 A-E, the pack's ``movement_costs``) and the case
    letter(s)."""
    side = ctx.side_of(uid)
    mf = ctx.board.tables.movement_costs
    if ctx.fresh_enemy(dest, side):
        cost, case = mf.fresh_enemy, "D"
    elif ctx.enemy(dest, side):
        cost, case = mf.spent_enemy, "C"
    elif ctx.state.day and fresh_enemy_adjacent(ctx, side, dest):
        cost, case = mf.vacant_adjacent_fresh_enemy_day, "B"
    else:
        cost, case = mf.vacant, "A"
    if ctx.d(uid).mechanized and ctx.state.rubble.get(dest, 0) > 0:
        cost, case = cost + mf.mechanized_rubble_extra, case + "+E"
    return cost, case


def base_mf(ctx: Ctx, uid: str) -> int:
    """Printed MF (lowered by isolation, 12.21) plus the Russian night MF (16.3)."""
    return ctx.movement_factor(uid) + ctx.is_night_russian_bonus(uid)


def may_double(ctx: Ctx, uid: str, act: Act) -> bool:
    """8.25/8.26: no attack, no exit from an enemy-occupied Area, and for motorized units
    no entry of an enemy-controlled or Rubbled Area."""
    d = ctx.d(uid)
    if not (d.mechanized or d.motorized) or act.attacked or act.left_enemy:
        return False
    if act.entered is not None:
        return False
    return not (d.motorized and not d.mechanized and act.no_double)


def allowance(ctx: Ctx, uid: str, act: Act) -> int:
    if may_double(ctx, uid, act):
        # 12.21: the doubling is of the reduced factor.
        return 2 * ctx.movement_factor(uid) + ctx.is_night_russian_bonus(uid)
    return base_mf(ctx, uid)


# ---- who may act -----------------------------------------------------------------------------


def entry_points(ctx: Ctx, side: str) -> list[str]:
    """Where units kept off the board enter by paying entry MF: German reinforcements in
    Zones C-F (6.2, 18.2; a scenario's own Zones, the Sawmill's B); a scenario's Russian
    units entering in an Area (the Sawmill's 272nd NKVD in Area 61)."""
    if side == RUSSIAN:
        listed = ctx.state.options.get("russian_entry", [])
    else:
        listed = ctx.state.options.get("entry_zones") or ["C", "D", "E", "F"]
    keys = [str(k) for k in listed] if isinstance(listed, list) else []
    return [k for k in keys if k in ctx.board.areas]


def start_units(ctx: Ctx, side: str, uids: Sequence[str], rule: str = "8.11",
                regroup: bool = False, firing: bool = False) -> None:
    """Every unit must belong to the impulse's Area (8.1, 8.11), and be able to act; in an
    Artillery/Air impulse nothing else acts (15.2)."""
    imp = ctx.impulse
    if imp.fire_kind is not None and not firing:
        raise RuleError("15.2", "this impulse is an Artillery/Air attack: no other unit moves "
                        "or attacks in it")
    for uid in uids:
        act = imp.acts.get(uid)
        if act is None:
            loc = ctx.loc(uid)
            if loc in OFF_MAP - {EAST, OFFBOARD}:
                raise RuleError(rule, f"{uid} is not on the board")
            if imp.origin is None:
                imp.origin = loc
            elif loc != imp.origin:
                raise RuleError("8.11", f"{uid} is in {ctx.name(loc)}, but this impulse acts "
                                f"from {ctx.name(imp.origin)}: one Area per impulse")
            if not regroup and not ctx.fresh(uid):
                raise RuleError("8.13", f"{uid} is Spent: only Fresh units move or attack"
                                + (" (Spent units may Regroup at night, 8.27)"
                                   if not ctx.state.day else ""))
            continue
        if act.done:
            rule, why = act.stop or ("8.13", "has finished its action this impulse")
            raise RuleError(rule, f"{uid} {why}")
        if act.regroup and not regroup:
            raise RuleError("8.27", f"{uid} is Regrouping: it may not move or attack")


def pay_origin_wait(ctx: Ctx, uid: str, act: Act) -> None:
    """8.34: units leaving (or firing out of) the impulse's Area pay for attacks made
    there against defenders that began the impulse in that Area."""
    act.mf = origin_wait_mf(ctx, act)


def origin_wait_mf(ctx: Ctx, act: Act) -> int:
    """The MF ``act`` has used once it pays :func:`pay_origin_wait` (8.34)."""
    imp = ctx.state.impulse
    if imp is not None and act.start == imp.origin and not act.path:
        return max(act.mf, imp.origin_cost)
    return act.mf


# ---- one step ------------------------------------------------------------------------------------


def check_exit(ctx: Ctx, uid: str, act: Act, cur: str, nxt: str, last: bool) -> None:
    """Area exit restrictions (8.21 and the Area Exit/Entrance chart)."""
    side = ctx.side_of(uid)
    d = ctx.d(uid)
    if not ctx.enemy(cur, side):
        return
    if act.entered == cur:
        raise RuleError("8.21", f"{uid} may not leave {ctx.name(cur)}, an enemy-occupied Area it "
                        "entered this impulse, while enemy units remain there")
    if d.kind == "aa":
        raise RuleError("8.21", f"Fresh AA units may not exit an Area containing enemy Combat "
                        f"units ({uid} in {ctx.name(cur)})")
    if d.kind == "at" and ctx.fresh_enemy(cur, side):
        raise RuleError("8.21", f"Fresh AT units may not exit an Area containing Fresh enemy "
                        f"Combat units ({uid} in {ctx.name(cur)})")
    if d.kind == "armor":
        if ctx.enemy(nxt, side):
            blockers = {"armor", "at", "aa"}
            if ctx.enemy_kinds(cur, side) & blockers or ctx.enemy_kinds(nxt, side) & blockers:
                raise RuleError("8.21", f"Armor may not move directly from {ctx.name(cur)} to "
                                f"{ctx.name(nxt)}: enemy Armor/AT/AA in one of them")
        return
    if not last or act.path:
        raise RuleError("8.21", f"non-Armor units starting in an enemy-occupied Area may move "
                        f"only one Area ({uid} in {ctx.name(cur)})")
    if ctx.enemy(nxt, side):
        raise RuleError("8.21", f"non-Armor units may not move from one enemy-occupied Area "
                        f"({ctx.name(cur)}) into another ({ctx.name(nxt)})")


def check_entry(ctx: Ctx, uid: str, nxt: str, last: bool, companions: Sequence[str]) -> None:
    """Area entrance restrictions (8.22, 8.12)."""
    side = ctx.side_of(uid)
    d = ctx.d(uid)
    imp = ctx.impulse
    if nxt in imp.attacked_areas and nxt not in imp.rubble_overruns:
        raise RuleError("8.12", f"{ctx.name(nxt)} has been attacked this impulse: no more units "
                        "may enter it (only after Engineers Overran its Rubble, 14.6)")
    if not ctx.enemy(nxt, side):
        return
    if d.kind == "aa":
        raise RuleError("8.22", f"AA units may not enter an Area containing an enemy Combat unit "
                        f"({ctx.name(nxt)})")
    if d.kind == "at":
        if ctx.fresh_enemy(nxt, side):
            raise RuleError("8.22", f"AT units may not enter an Area containing Fresh enemy "
                            f"Combat units ({ctx.name(nxt)})")
        helpers = [c for c in companions if c != uid and ctx.d(c).numeric_attack]
        helpers += [u for u, a in ctx.impulse.acts.items()
                    if a.entered == nxt and a.must_attack and ctx.d(u).numeric_attack]
        if not helpers:
            raise RuleError("8.22", f"AT units may enter an Area containing a Spent enemy unit "
                            f"only accompanied by an entering unit with a numerical Attack "
                            f"Factor ({ctx.name(nxt)})")
    if not last:
        raise RuleError("8.2", f"units entering an enemy-occupied Area ({ctx.name(nxt)}) must "
                        "stop there and attack")


def rubble_drm(ctx: Ctx, side: str, dest: str) -> int:
    """14.4: +1 friendly-controlled, +1 no Fresh enemy Combat unit, +1 no enemy Combat unit."""
    table = ctx.board.tables.rubble_entrance
    drm = 0
    if ctx.controller(dest) == side:
        drm += table.drm_friendly_controlled
    if not ctx.fresh_enemy(dest, side):
        drm += table.drm_no_fresh_enemy
    if not ctx.enemy(dest, side):
        drm += table.drm_no_enemy
    return drm


def rubble_need(ctx: Ctx, level: int) -> int:
    """14.4: the Rubble Entrance DR needed for Rubble ``level`` (7 for 1, 9 for 2)."""
    need = ctx.board.tables.rubble_entrance.need
    return need[min(level, len(need)) - 1]


def rubble_entry(ctx: Ctx, uid: str, dest: str, dice: Dice, why: str = "") -> bool:
    """A Mechanized unit's Rubble Entrance DR (14.4): >= 7 (Rubble 1) or >= 9 (Rubble 2)."""
    level = ctx.state.rubble.get(dest, 0)
    if level <= 0 or not ctx.d(uid).mechanized:
        return True
    side = ctx.side_of(uid)
    drm = rubble_drm(ctx, side, dest)
    roll = dice.roll(f"Rubble Entrance DR ({uid} into {dest}{why})")
    need = rubble_need(ctx, level)
    ok = roll.total + drm >= need
    offer_reroll(ctx, dice, roll, loser=other(side) if ok else side)  # 9.4
    ctx.emit("rubble-entry", f"{uid} Rubble Entrance DR {roll.total}+{drm} vs {need} into "
             f"{ctx.name(dest)}: {'passes' if ok else 'fails'}", "14.4", unit=uid, area=dest,
             dr=roll.total, drm=drm, passed=ok)
    return ok


# ---- occupation limits while moving (7.1) ---------------------------------------------------


def overfills(ctx: Ctx, side: str, area: str, arriving: int) -> bool:
    """7.1, 7.2: ``arriving`` more Combat units would put more than ten of ``side``'s
    Combat units in ``area`` (a Zone takes any number)."""
    own = ctx.occupancy(side).own.get(area, 0)
    return not ctx.zone(area) and own + arriving > ctx.board.max_stack


def must_stop(entered_enemy: bool, mf_left: int, one_area: bool) -> bool:
    """7.1, 8.2: a moving Combat unit ends its movement in an Area when it entered an
    enemy-occupied Area (it must attack there, 8.34), has no MF left to go on, or is a
    non-Armor unit that left an enemy-occupied Area (``one_area``: 8.21 allows it one Area
    only). Units may pass through a full Area but not stop there, so a move into an Area
    it :func:`overfills` is refused for such a unit. :func:`do_move` and
    :func:`reachable` (the legal query) both ask this."""
    return entered_enemy or mf_left < 1 or one_area


#: What each MF case of 8.23 charges for, in a refusal's breakdown.
CASE_WHY = {"A": "vacant", "B": "vacant, next to a Fresh enemy Combat unit by day",
            "C": "only Spent enemy Combat units", "D": "a Fresh enemy Combat unit"}


def _case_text(case: str) -> str:
    base, _, rubble = case.partition("+")
    text = f"case {base}: {CASE_WHY.get(base, base)}"
    return text + (", +1 Rubble for a Mechanized unit (E)" if rubble else "")


def allowance_text(ctx: Ctx, uid: str, act: Act) -> str:
    """Why a unit's MF allowance is what it is now (8.25, 8.26, 16.3)."""
    d = ctx.d(uid)
    mf = ctx.movement_factor(uid)
    parts = [f"printed MF {d.mf}" if mf == d.mf else f"MF {mf} (isolated, 12.21)"]
    if ctx.is_night_russian_bonus(uid):
        parts.append("+1 at night (16.3)")
    if may_double(ctx, uid, act):
        parts.append("doubled (8.25/8.26)")
    elif d.mechanized or d.motorized:
        why = ("it attacked" if act.attacked else
               "it left an enemy-occupied Area" if act.left_enemy else
               "it entered an enemy-occupied Area" if act.entered is not None else
               "it entered an enemy-controlled or Rubbled Area (8.26)")
        parts.append(f"not doubled: {why}")
    return ", ".join(parts)


def mf_refusal(ctx: Ctx, uid: str, used: int, steps: list[tuple[str, int, str]],
               act: Act) -> RuleError:
    """8.23: the MF a move would spend, cost by cost, against the unit's allowance."""
    limit = allowance(ctx, uid, act)
    items = ([f"{used} already used"] if used else []) + [
        f"{ctx.name(area)} {cost} ({_case_text(case)})" for area, cost, case in steps]
    total = used + sum(cost for _, cost, _ in steps)
    return RuleError("8.23", f"{uid} lacks the MF to enter {ctx.name(steps[-1][0])}: "
                     + " + ".join(items) + f" = {total} MF, but it has {limit} "
                     f"({allowance_text(ctx, uid, act)})")


def path_order(path: Sequence[str]) -> tuple[int, tuple[tuple[int, int, str], ...]]:
    """The tie-break among paths of equal MF (docs/rulings.md, "Move by destination"):
    fewer Areas entered first, then the path whose Areas come first in map order (Area
    numbers ascending, then Zones by letter), Area by Area."""
    return len(path), tuple(area_key_order(a) for a in path)


def plan_path(ctx: Ctx, side: str, order: Move, uids: Sequence[str], cur0: str
              ) -> tuple[list[str], bool]:
    """The Areas the units enter, and whether the rules chose them.

    With ``via`` the player's path is taken as given. Without it the destination is
    reached by the cheapest legal path for all the units together (8.2: an adjacent Area
    directly when that is legal, since no path costs less), ties broken by
    :func:`path_order`."""
    dest = ctx.area_key(order.to)
    via = [ctx.area_key(a) for a in order.via]
    for key in [*via, dest]:
        if key not in ctx.board.areas:
            raise RuleError("8.2", f"unknown Area {key}")
    if via or dest == cur0:
        return [*via, dest], False
    direct = dest in (entry_points(ctx, side) if cur0 == OFFBOARD else
                      ctx.board.adjacent(cur0))
    if direct:
        try:
            check_path(ctx, side, uids, cur0, [dest])
            return [dest], False
        except RuleError as error:
            refusal: RuleError | None = error
    else:
        refusal = None
    found = [reachable(ctx, uid) for uid in uids]
    paths = sorted({tuple(reach[dest][1]) for reach in found if dest in reach},
                   key=lambda p: (max(_path_mf(ctx, uid, cur0, p) for uid in uids),
                                  path_order(p)))
    for path in paths:
        try:
            check_path(ctx, side, uids, cur0, list(path))
        except RuleError as error:
            refusal = refusal or error
            continue
        return list(path), True
    if refusal is not None:
        raise refusal
    reach = found[0]
    where = ", ".join(f"{k} ({mf} MF)" for k, (mf, _) in
                      sorted(reach.items(), key=lambda kv: area_key_order(kv[0]))[:12])
    raise RuleError("8.2", f"no legal path takes {', '.join(uids)} to {ctx.name(dest)} this "
                    f"impulse" + (f"; {uids[0]} can reach {where}" if where else
                                  f"; {uids[0]} can move nowhere now"),
                    [f"move {uids[0]} to {k}" for k in
                     sorted(reach, key=area_key_order)[:12]])


def _path_mf(ctx: Ctx, uid: str, cur0: str, path: Sequence[str]) -> int:
    """What entering ``path`` costs ``uid`` (8.23), for ranking paths."""
    return sum(entry_cost(ctx, uid, nxt)[0] for nxt in path)


def check_path(ctx: Ctx, side: str, uids: Sequence[str], cur0: str, path: Sequence[str]
               ) -> dict[tuple[str, int], tuple[int, str]]:
    """Whether the units may move along ``path`` now (8.2-8.26, 7.1, 18.51), judged on
    copies: nothing is rolled or moved. Returns each step's (MF, case) per unit."""
    sims = {u: ctx.act(u).model_copy(deep=True) for u in uids}
    costs: dict[tuple[str, int], tuple[int, str]] = {}
    for uid in uids:
        act = sims[uid]
        if act.stay:
            raise RuleError("18.51", f"{uid} was Disrupted landing and must end its move there")
        d = ctx.d(uid)
        if d.kind != "armor" and act.left_enemy:
            raise RuleError("8.21", f"{uid} already left an enemy-occupied Area: one Area only")
        pay_origin_wait(ctx, uid, act)
        used = act.mf
        steps: list[tuple[str, int, str]] = []
        cur = cur0
        for i, nxt in enumerate(path):
            last = i == len(path) - 1
            if cur != OFFBOARD and nxt not in ctx.board.adjacent(cur):
                raise RuleError("8.2", f"{ctx.name(nxt)} is not adjacent to {ctx.name(cur)}; "
                                f"'move {uid} to {nxt}' finds a path",
                                sorted(ctx.board.adjacent(cur), key=area_key_order))
            if cur != OFFBOARD:
                check_exit(ctx, uid, act, cur, nxt, last)
            check_entry(ctx, uid, nxt, last, uids)
            cost, case = entry_cost(ctx, uid, nxt)
            if cur != OFFBOARD and ctx.enemy(cur, side):
                act.left_enemy = True
            if d.motorized and not d.mechanized and (
                    ctx.controller(nxt) == other(side) or ctx.state.rubble.get(nxt, 0)):
                act.no_double = True
            if ctx.enemy(nxt, side) and d.combat:
                act.entered = nxt
            act.mf += cost
            steps.append((nxt, cost, case))
            if act.mf > allowance(ctx, uid, act):
                raise mf_refusal(ctx, uid, used, steps, act)
            costs[(uid, i)] = (cost, case)
            act.path.append(nxt)
            cur = nxt
    end = path[-1]
    arriving = [u for u in uids if ctx.d(u).combat]
    if arriving and overfills(ctx, side, end, len(arriving)):
        for uid in arriving:
            act = sims[uid]
            if must_stop(act.entered == end, allowance(ctx, uid, act) - act.mf,
                         act.left_enemy and ctx.d(uid).kind != "armor"):
                raise RuleError("7.1", f"{uid} would have to stop in {ctx.name(end)}, which "
                                f"cannot take more {side} Combat units")
    return costs


def do_move(ctx: Ctx, side: str, order: Move, dice: Dice) -> None:
    uids = ctx.own(side, order.units)
    locs = {ctx.loc(u) for u in uids}
    if len(locs) != 1:
        raise RuleError("8.2", "units moving together must start from the same Area",
                        [f"{u} in {ctx.loc(u)}" for u in uids])
    cur0 = locs.pop()
    if order.origin is not None and ctx.area_key(order.origin) != cur0:
        raise RuleError("8.2", f"the units are in {ctx.name(cur0)}, not {order.origin}")
    if ctx.area_key(order.to) == cur0 and not order.via:
        start_units(ctx, side, uids)
        for uid in uids:
            act = ctx.act(uid)
            act.done = True
            act.stop = ("8.11", "moved within its Area and is Spent")
            ctx.emit("move", f"{uid} moves within {ctx.name(cur0)} and is Spent", "8.11",
                     unit=uid, area=cur0)
        return
    start_units(ctx, side, uids)
    if cur0 == EAST:
        raise RuleError("18.3", "Russian reinforcements enter by crossing the Volga",
                        [f"cross {' '.join(uids)} to LANDING"])
    path, chosen = plan_path(ctx, side, order, uids, cur0)
    if cur0 == OFFBOARD:
        entries = entry_points(ctx, side)
        if path[0] not in entries:
            raise RuleError("18.2", "units off the board enter through "
                            + (", ".join(entries) or "no entry point"),
                            [f"move {' '.join(uids)} to {z}" for z in entries])
    # Validation on copies: nothing is rolled or moved until the whole order is legal.
    costs = check_path(ctx, side, uids, cur0, path)
    if chosen:
        mf = max(sum(costs[(u, i)][0] for i in range(len(path))) for u in uids)
        ctx.emit("path", f"{', '.join(uids)}: the cheapest path to {ctx.name(path[-1])} is "
                 f"via {' '.join(path[:-1])} ({mf} MF)", "8.2", units=list(uids),
                 path=list(path), mf=mf)
    # Execution pass: step by step, Rubble Entrance DRs for Mechanized units (14.4).
    moving = list(uids)
    cur = cur0
    for i, nxt in enumerate(path):
        stepping = []
        for uid in moving:
            act = ctx.act(uid)
            pay_origin_wait(ctx, uid, act)
            if cur != OFFBOARD and ctx.enemy(cur, side):
                act.left_enemy = True
            d = ctx.d(uid)
            if d.motorized and not d.mechanized and (
                    ctx.controller(nxt) == other(side) or ctx.state.rubble.get(nxt, 0)):
                act.no_double = True
            if not rubble_entry(ctx, uid, nxt, dice):
                rubble_failure(ctx, uid, act)
                continue
            cost, case = costs[(uid, i)]
            act.mf += cost
            if act.mf > base_mf(ctx, uid):
                act.doubled = True
            if ctx.enemy(nxt, side) and d.combat:
                act.entered = nxt
                act.came_from = cur
                act.must_attack = True
            act.entry_paid = nxt
            act.path.append(nxt)
            stepping.append(uid)
            ctx.emit("move", f"{uid} enters {ctx.name(nxt)} ({cost} MF, case {case}; "
                     f"{act.mf} used)", "8.23", unit=uid, area=nxt, cost=cost, case=case,
                     mf=act.mf)
        for uid in stepping:
            ctx.place(uid, nxt)
        if cur not in OFF_MAP:
            update_control(ctx, cur)
        update_control(ctx, nxt)
        moving = stepping
        cur = nxt


def rubble_failure(ctx: Ctx, uid: str, act: Act) -> None:
    """14.41: the unit is Disrupted and stays (retracing to its last legal Area if its
    present Area is over the occupation limit); no further action that Game Turn."""
    act.done = True
    act.stop = ("14.41", "failed its Rubble Entrance DR: it may take no further action this "
                "Game Turn")
    act.penalty = max(act.penalty, ctx.board.tables.disruption.movement)
    here = ctx.loc(uid)
    side = ctx.side_of(uid)
    if ctx.full(here, side):
        for back in reversed([act.start, *act.path[:-1]]):
            if back in OFF_MAP or not ctx.full(back, side, extra=1):
                ctx.place(uid, back)
                ctx.emit("retrace", f"{uid} retraces to {ctx.name(back)} (7.1)", "14.41",
                         unit=uid, area=back)
                break
    ctx.emit("rubble-fail", f"{uid} fails to enter the Rubble and is Disrupted", "14.41",
             unit=uid)


# ---- reachability for the legal query ------------------------------------------------------


def reachable(ctx: Ctx, uid: str, *, accompanied: bool = False
              ) -> dict[str, tuple[int, list[str]]]:
    """Areas ``uid`` could end a move in now (cheapest MF and path), checked step by step
    with the same exit/entry rules as a real move (ignoring Rubble Entrance dice).

    The rules are those of :func:`check_exit`, :func:`check_entry`, :func:`entry_cost`,
    :func:`allowance` and the occupation limit while moving (:func:`overfills`,
    :func:`must_stop`, 7.1), evaluated against the context's occupancy tables (set
    lookups), so a search over the whole map costs a few thousand dictionary probes. A unit
    off the board (6.2, 18.2) enters through :func:`entry_points` as :func:`do_move` lets it.

    Among paths of equal MF the search keeps the one :func:`path_order` puts first (fewer
    Areas, then lower Areas first), so ``move UNIT to AREA`` and this list agree.

    The search runs over (Area, may-still-double) states: a costlier path that keeps a
    Mechanized or Motorized unit's doubled MF (8.25, 8.26) can go further, or stop in a
    full Area with MF to spare, where the cheapest path cannot. An Area the unit may only
    pass through (7.1) is searched beyond but not listed.
    ``test_reachable_agrees_with_moves`` and the random-play tests keep the two in step.

    ``accompanied``: an AT unit is taken to enter beside a unit with a numerical Attack
    Factor (8.22), so an Area holding only Spent enemy units is open to it.
    """
    side = ctx.side_of(uid)
    d = ctx.d(uid)
    start = ctx.loc(uid)
    if start in OFF_MAP and start != OFFBOARD:
        return {}
    occ = ctx.occupancy(side)
    enemy, fresh_enemy, kinds, case_b = occ.enemy, occ.fresh_enemy, occ.kinds, occ.case_b
    state = ctx.state
    imp = ctx.impulse
    rubble = state.rubble
    control = state.control
    foe = other(side)
    day = state.day
    board = ctx.board
    attacked_areas = set(imp.attacked_areas) - set(imp.rubble_overruns)  # 8.12, 14.6
    base = imp.acts[uid].model_copy(deep=True) if uid in imp.acts else Act(start=start)
    pay_origin_wait(ctx, uid, base)
    kind = d.kind
    armor = kind == "armor"
    mech, motor = d.mechanized, d.motorized
    motor_only = motor and not mech
    bonus = ctx.is_night_russian_bonus(uid)
    printed = ctx.movement_factor(uid) + bonus  # 12.21: the reduced factor, doubled too
    doubled_mf = 2 * ctx.movement_factor(uid) + bonus
    can_double = (mech or motor) and not base.attacked and base.entered is None
    at_helpers: set[str] = set()
    if kind == "at":
        at_helpers = {a.entered for u, a in imp.acts.items()
                      if a.entered and a.must_attack and ctx.d(u).numeric_attack}
    blockers = {"armor", "at", "aa"}
    costs = ctx.board.tables.movement_costs
    cost_d, cost_c, cost_b, cost_a = (costs.fresh_enemy, costs.spent_enemy,
                                      costs.vacant_adjacent_fresh_enemy_day, costs.vacant)
    rubble_extra = costs.mechanized_rubble_extra
    entries = entry_points(ctx, side) if start == OFFBOARD else []
    best: dict[str, tuple[int, list[str]]] = {}
    ranks: dict[str, tuple[Any, ...]] = {}
    # the best rank (MF, then :func:`path_order`) per search state (Area, left an
    # enemy-occupied Area, motorized no-double)
    first: tuple[Any, ...] = (base.mf, *path_order([]))
    seen: dict[tuple[str, bool, bool], tuple[Any, ...]] = {
        (start, base.left_enemy, base.no_double): first}
    # (rank, area, path, left_enemy, no_double)
    frontier: list[tuple[tuple[Any, ...], str, list[str], bool, bool]] = [
        (first, start, [], base.left_enemy, base.no_double)]
    while frontier:
        rank, cur, path, left, no_double = heapq.heappop(frontier)
        mf = rank[0]
        if seen.get((cur, left, no_double), rank) < rank:
            continue  # a better path reached this state
        if left and not armor:
            continue  # 8.21: a non-Armor unit that left an enemy-occupied Area goes no further
        cur_enemy = cur in enemy and cur != OFFBOARD
        moved = bool(base.path) or bool(path)
        if cur_enemy:
            # 8.21 exits
            if base.entered == cur or kind == "aa" or (kind == "at" and cur in fresh_enemy):
                continue
            if not armor and moved:
                continue
        for nxt in (entries if cur == OFFBOARD else sorted(board.adjacent(cur))):
            if nxt in path or nxt == start:
                continue
            nxt_enemy = nxt in enemy
            if cur_enemy:
                if armor:
                    if nxt_enemy and (kinds.get(cur, set()) & blockers
                                      or kinds.get(nxt, set()) & blockers):
                        continue
                elif nxt_enemy:
                    continue
            # 8.12, 8.22 entrances
            if nxt in attacked_areas:
                continue
            if nxt_enemy:
                if kind == "aa":
                    continue
                if kind == "at" and (nxt in fresh_enemy
                                     or not (accompanied or nxt in at_helpers)):
                    continue
            # 8.23 costs
            if nxt in fresh_enemy:
                cost = cost_d
            elif nxt_enemy:
                cost = cost_c
            elif day and nxt in case_b:
                cost = cost_b
            else:
                cost = cost_a
            if mech and rubble.get(nxt, 0) > 0:
                cost += rubble_extra
            new_left = left or cur_enemy
            new_no_double = no_double or (motor_only and (
                control.get(nxt) == foe or rubble.get(nxt, 0) > 0))
            entered = nxt_enemy and d.combat
            total = mf + cost
            doubling = can_double and not new_left and not entered \
                and not (motor_only and new_no_double)
            limit = doubled_mf if doubling else printed
            if total > limit:
                continue
            # 7.1: a unit that must stop may not end its move in a full Area
            stops = not (d.combat and must_stop(entered, limit - total, new_left and not armor)
                         and overfills(ctx, side, nxt, 1))
            step = [*path, nxt]
            new_rank = (total, *path_order(step))
            if stops and (nxt not in ranks or ranks[nxt] > new_rank):
                best[nxt] = (total, step)
                ranks[nxt] = new_rank
            key = (nxt, new_left, new_no_double)
            if not nxt_enemy and (key not in seen or seen[key] > new_rank):  # 8.2: stop
                seen[key] = new_rank
                heapq.heappush(frontier, (new_rank, nxt, step, new_left, new_no_double))
    return best

