"""Armor replacements (13.3): spending the Tractor Works' factors (13.2,
:mod:`adjudicator.stalingrad.works`).

In a Russian impulse he may spend factors to place eliminated Russian Armor units
with that Attack Factor in Area 70 (``replace UNITS in 70``). The placement costs one MF and
is the start of that impulse (other units already in Area 70 may act in it too); German
Combat units there must be attacked as part of it, for the attack's MF on top; the placed
units end the impulse Spent. The record of factors earned and spent is public.
"""

from __future__ import annotations

from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.control import update_control
from adjudicator.stalingrad.places import DEAD
from adjudicator.stalingrad.sides import RUSSIAN
from adjudicator.stalingrad.works import available, works


def replace_error(ctx: Ctx, side: str, uids: list[str], area: str) -> RuleError | None:
    """Why ``uids`` may not be placed in ``area`` now (13.3), or None."""
    if side != RUSSIAN:
        return RuleError("13.3", "only the Russian receives Armor replacements")
    if area != works(ctx) or area not in ctx.board.areas:
        return RuleError("13.3", f"replacements are placed in Area {works(ctx)}")
    record = ctx.state.replacements
    if record.stopped:
        return RuleError("13.2", f"the Tractor Works no longer produce tanks ({record.reason})")
    for uid in uids:
        d = ctx.d(uid)
        if d.side != RUSSIAN or d.kind != "armor" or ctx.loc(uid) != DEAD:
            return RuleError("13.3", f"{uid} is not an eliminated Russian Armor unit")
    cost = sum(ctx.d(u).attack or 0 for u in uids)
    if cost > available(ctx):
        return RuleError("13.3", f"{', '.join(uids)} cost {cost} Armor replacement factor(s); "
                         f"{available(ctx)} available")
    imp = ctx.state.impulse
    if imp is not None and imp.origin not in (None, area):
        return RuleError("8.11", f"this impulse acts from {ctx.name(str(imp.origin))}: the "
                         "placement begins an impulse in Area " + area)
    if imp is not None and imp.fire_kind is not None:
        return RuleError("15.2", "this impulse is an Artillery attack")
    return None


def do_replace(ctx: Ctx, side: str, units: tuple[str, ...], area_text: str) -> None:
    area = ctx.area_key(area_text)
    uids = ctx.own(side, units, "13.3")
    error = replace_error(ctx, side, uids, area)
    if error is not None:
        raise error
    imp = ctx.impulse
    imp.origin = area
    record = ctx.state.replacements
    cost = sum(ctx.d(u).attack or 0 for u in uids)
    record.spent += cost
    enemy = ctx.enemy(area, side)
    mf = ctx.board.tables.movement_costs.replacement_placement_mf
    for uid in sorted(uids):
        unit = ctx.state.units[uid]
        unit.fresh, unit.recover, unit.marker, unit.isolation = True, None, False, 0
        ctx.place(uid, area)
        act = ctx.act(uid)
        act.start = area
        act.mf = mf
        act.placed = True
        if enemy:
            act.entered, act.must_attack = area, True  # 13.3: they must attack
    update_control(ctx, area)
    ctx.emit("replace", f"the Russian places {', '.join(sorted(uids))} in {ctx.name(area)} for "
             f"{cost} Armor replacement factor(s) ({available(ctx)} left)", "13.3",
             units=sorted(uids), area=area, cost=cost, available=available(ctx))


def replace_options(ctx: Ctx, side: str) -> list[str]:
    """One placement per eliminated Russian Armor unit the factors pay for."""
    if side != RUSSIAN:
        return []
    area = works(ctx)
    dead = sorted(u for u in ctx.units_at(DEAD) if ctx.d(u).side == RUSSIAN
                  and ctx.d(u).kind == "armor")
    return [f"replace {u} in {area}" for u in dead
            if replace_error(ctx, side, [u], area) is None][:6]
