"""Moves other than an ordinary move (8.2): Regrouping (8.27, 16.5), Infiltration (8.28,
11.5) and Fortification (14.3, 10.6). Each is one unit's (or a Group's) whole part of an
impulse, judged with the costs and steps of :mod:`adjudicator.stalingrad.movement`.
"""

from __future__ import annotations

from collections.abc import Sequence

from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.advantage import offer_reroll
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.control import update_control
from adjudicator.stalingrad.movement import (
    base_mf,
    check_exit,
    entry_cost,
    overfills,
    pay_origin_wait,
    rubble_entry,
    start_units,
)
from adjudicator.stalingrad.orders import Fortify, Infiltrate, Regroup
from adjudicator.stalingrad.places import EAST
from adjudicator.stalingrad.sides import RUSSIAN, other

# ---- Regrouping (8.27, 16.5) -------------------------------------------------------------------


def regroup_error(ctx: Ctx, side: str, uids: Sequence[str], dest: str) -> RuleError | None:
    """Why ``uids`` may not Regroup into ``dest`` now, or None (8.27, 8.12, 7.1)."""
    if ctx.state.day:
        return RuleError("8.27", "Spent units may Regroup only during night impulses")
    imp = ctx.state.impulse
    for uid in uids:
        if ctx.fresh(uid):
            return RuleError("8.27", f"{uid} is Fresh: Regrouping is for Spent units")
        if ctx.state.units[uid].isolation:
            return RuleError("12.21", f"{uid} is isolated: isolated Spent units may not Regroup")
        act = imp.acts.get(uid) if imp is not None else None
        if act is not None and act.regroup:
            return RuleError("8.27", f"{uid} has already Regrouped this impulse (one MF)")
        cur = ctx.loc(uid)
        if dest not in ctx.board.adjacent(cur):
            return RuleError("8.27", f"Regrouping is one MF: {ctx.name(dest)} is not adjacent",
                             sorted(ctx.board.adjacent(cur)))
        if not ctx.free(dest, side):
            return RuleError("8.27", f"Regrouping units may enter only Free Areas; "
                             f"{ctx.name(dest)} is not Free")
        if imp is not None and dest in imp.attacked_areas:
            return RuleError("8.12", f"{ctx.name(dest)} has been attacked this impulse")
    arriving = [u for u in uids if ctx.d(u).combat and ctx.loc(u) != dest]
    if arriving and overfills(ctx, side, dest, len(arriving)):
        # 7.1: a Regrouping unit ends its one-MF move there, so it may not overfill it.
        return RuleError("7.1", f"{ctx.name(dest)} cannot take {len(arriving)} more {side} "
                         "Combat unit(s): a Regrouping unit must stop there")
    return None


def do_regroup(ctx: Ctx, side: str, order: Regroup, dice: Dice) -> None:
    uids = ctx.own(side, order.units)
    dest = ctx.area_key(order.to)
    error = regroup_error(ctx, side, uids, dest)
    if error is not None:
        raise error
    start_units(ctx, side, uids, "8.27", regroup=True)
    for uid in uids:
        act = ctx.act(uid)
        act.regroup = True
        if not rubble_entry(ctx, uid, dest, dice, " regrouping"):
            ctx.emit("regroup-fail", f"{uid} fails its Rubble Entrance DR and stays", "14.41",
                     unit=uid)
            continue
        cur = ctx.loc(uid)
        ctx.place(uid, dest)
        act.path.append(dest)
        update_control(ctx, cur)
        update_control(ctx, dest)
        ctx.emit("regroup", f"{uid} regroups to {ctx.name(dest)}", "8.27", unit=uid, area=dest)


# ---- Infiltration (8.28, 11.5) ------------------------------------------------------------------


def do_infiltrate(ctx: Ctx, side: str, order: Infiltrate, dice: Dice) -> None:
    if side != RUSSIAN:
        raise RuleError("8.28", "only Fresh Russian Infantry may attempt Infiltration")
    if ctx.state.day:
        raise RuleError("8.28", "Infiltration is possible only during night impulses")
    uids = ctx.own(side, order.units)
    dest = ctx.area_key(order.area)
    start_units(ctx, side, uids, "8.28")
    for uid in uids:
        d = ctx.d(uid)
        act = ctx.act(uid)
        cur = ctx.loc(uid)
        if d.kind != "infantry":
            raise RuleError("8.28", f"{uid} is not Infantry")
        if act.path or act.attacked or cur != act.start:
            raise RuleError("8.28", f"{uid} must infiltrate from the Area it started in")
        if cur == EAST:
            raise RuleError("8.28", "reinforcements may not infiltrate while crossing the Volga")
        if ctx.zone(cur) or ctx.zone(dest):
            raise RuleError("11.5", "Infiltration is not allowed into or from Zones")
        if ctx.controller(cur) != RUSSIAN:
            raise RuleError("8.28", f"{uid} must start in a Russian-controlled Area")
        if dest not in ctx.board.adjacent(cur):
            raise RuleError("8.28", f"{ctx.name(dest)} is not adjacent to {ctx.name(cur)}")
        if ctx.fresh_enemy(dest, side) or not ctx.enemy(dest, side):
            raise RuleError("8.28", f"{ctx.name(dest)} must contain only Spent German Combat "
                            "units")
        if dest in ctx.impulse.attacked_areas:
            raise RuleError("8.12", f"{ctx.name(dest)} has been attacked this impulse")
        check_exit(ctx, uid, act, cur, dest, True)
        cost, _ = entry_cost(ctx, uid, dest)
        pay_origin_wait(ctx, uid, act)
        if act.mf + cost > base_mf(ctx, uid):
            raise RuleError("8.23", f"{uid} lacks the MF to enter {ctx.name(dest)}")
    target = ctx.board.area(dest).tem + ctx.state.rubble.get(dest, 0)
    for uid in uids:
        act = ctx.act(uid)
        cur = ctx.loc(uid)
        pay_origin_wait(ctx, uid, act)
        cost, _ = entry_cost(ctx, uid, dest)
        act.mf += cost
        act.left_enemy = act.left_enemy or ctx.enemy(cur, side)
        act.path.append(dest)
        roll = dice.roll(f"Infiltration dr ({uid} into {dest})", count=1)
        ok = roll.total < target
        offer_reroll(ctx, dice, roll, loser=other(side) if ok else side)  # 9.4
        act.tried_infiltration = True
        ctx.place(uid, dest)
        if ok:
            act.infiltrated = True
            act.done = True
            act.stop = ("8.28", "infiltrated: its impulse is over")
            act.penalty = ctx.board.tables.disruption.movement  # 8.28: Duration 1
        else:
            act.entered = dest
            act.came_from = cur
            act.must_attack = True
        ctx.emit("infiltration", f"{uid} Infiltration dr {roll.total} vs < {target}: "
                 + ("infiltrates" if ok else "fails and must attack"), "8.28", unit=uid,
                 area=dest, dr=roll.total, passed=ok)
        update_control(ctx, cur)


# ---- Fortification (14.3, 10.6) ---------------------------------------------------------------


def do_fortify(ctx: Ctx, side: str, order: Fortify, dice: Dice) -> None:
    uids = ctx.own(side, order.units)
    area = ctx.area_key(order.area)
    start_units(ctx, side, uids, "14.3")
    for uid in uids:
        d = ctx.d(uid)
        if d.kind != "infantry":
            raise RuleError("14.3", f"{uid} is not Infantry: only Fresh Infantry fortify")
        if ctx.loc(uid) != area:
            raise RuleError("14.3", f"{uid} is not in {ctx.name(area)}")
        act = ctx.act(uid)
        if act.no_attack:
            raise RuleError("18.51", f"{uid} was Disrupted landing: no fortification")
        if act.attacked:
            raise RuleError("14.3", f"{uid} has attacked this impulse")
    engineers = [u for u in uids if ctx.d(u).engineer]
    constants = ctx.board.tables.constants
    if not (len(uids) == 1 and engineers) and len(uids) != constants.fortification_infantry:
        raise RuleError("14.3", "a fortification attempt takes one Engineer or three Infantry "
                        "units")
    if ctx.units_at(area) and any(ctx.side_of(u) != side for u in ctx.units_at(area)):
        raise RuleError("14.3", f"{ctx.name(area)} contains enemy units: no fortification")
    level = ctx.state.rubble.get(area, 0)
    if level >= constants.max_rubble:
        raise RuleError("14.2", f"{ctx.name(area)} already has Rubble {level}, the maximum")
    if overfills(ctx, side, area, 0):
        # 7.1: an attempt ends the units' movement (14.3), and no unit may end its
        # movement in an overfull Area: the impulse could never end (docs/rulings.md)
        raise RuleError("7.1", f"more than ten {side} Combat units are in {ctx.name(area)}: "
                        "a fortification attempt ends the units' movement there; move "
                        "units out first")
    spent_mf = max(ctx.act(u).mf for u in uids)
    tem = ctx.board.area(area).tem
    roll = dice.roll(f"Fortification dr ({area})", count=1)
    total = roll.total + tem - spent_mf
    ok = total >= constants.fortification_threshold
    offer_reroll(ctx, dice, roll, loser=other(side) if ok else side)  # 9.4
    for uid in uids:
        act = ctx.act(uid)
        act.done = True
        act.stop = ("14.3", "attempted to fortify: it may move no further")
        act.fortified = True
        act.penalty = max(act.penalty, ctx.board.tables.disruption.fortification)
    if ok:
        ctx.state.rubble[area] = level + 1
    ctx.emit("fortify", f"fortification in {ctx.name(area)}: dr {roll.total} + TEM {tem} - "
             f"{spent_mf} MF = {total} vs {constants.fortification_threshold}: "
             + (f"Rubble {level + 1}" if ok else "fails"),
             "14.3", area=area, dr=roll.total, total=total, passed=ok,
             rubble=ctx.state.rubble.get(area, 0))

