"""Withdrawals (21.3): German units leave the Simulation Game on their dates.

Units with a withdrawal date (units.toml ``withdraw``) are removed before the Dawn of that
date, Fresh or Spent, at no cost — unless isolated: an isolated unit goes the moment its
isolation is relieved. When a unit cannot be withdrawn (eliminated or isolated) or the German
keeps it (his standing order ``withdrawals keep``), the Russian is compensated: he may
recreate from the dead pile two eliminated units whose Attack Factors total at most twice the
German unit's (``recreate UNITS``, in one of his impulses before it acts); they join the 64th
Army off the south edge and enter only in Zones A, B, C or Area 30 (the scenario's Russian
entry points), any number per impulse, with no Parent penalty (8.351C) in the impulse they
enter. The pack's ``withdrawal`` table holds the two units and the factor of two.
"""

from __future__ import annotations

from adjudicator.kernel.decisions import Decision
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.control import update_control
from adjudicator.stalingrad.places import DEAD, GONE, OFF_MAP, OFFBOARD, OUT, POOL
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN


def withdrawal_phase(ctx: Ctx) -> None:
    """21.3: before the Dawn of their date, the scheduled German units leave."""
    state = ctx.state
    if not state.options.get("withdrawals"):
        return
    keep = state.standing.get(GERMAN, {}).get("withdrawals") == "keep"
    for uid in sorted(ctx.board.units):
        d = ctx.d(uid)
        if d.side != GERMAN or d.withdrawal != state.date:
            continue
        unit = state.units[uid]
        if unit.loc in (OUT, GONE):
            continue
        if unit.loc == POOL:
            ctx.place(uid, GONE)  # never arrived
            continue
        if unit.loc == DEAD or unit.isolation or keep:
            why = ("eliminated" if unit.loc == DEAD else "isolated" if unit.isolation
                   else "kept in play by the German")
            compensate(ctx, uid, why)
            if unit.isolation and unit.loc != DEAD and not keep:
                state.withdraw_later.append(uid)
            continue
        withdraw(ctx, uid)


def withdraw(ctx: Ctx, uid: str) -> None:
    area = ctx.loc(uid)
    ctx.place(uid, GONE)
    imp = ctx.state.impulse
    if imp is not None:
        imp.acts.pop(uid, None)
    ctx.emit("withdrawal", f"{uid} is withdrawn from the battle (21.3)", "21.3", unit=uid,
             area=area)
    if area not in OFF_MAP:
        update_control(ctx, area)


def relieved(ctx: Ctx, uid: str) -> None:
    """21.3: an isolated unit due for withdrawal leaves as soon as it is supplied again."""
    if uid in ctx.state.withdraw_later:
        ctx.state.withdraw_later.remove(uid)
        withdraw(ctx, uid)


def compensate(ctx: Ctx, uid: str, why: str) -> None:
    table = ctx.board.tables.withdrawal
    budget = table.compensation_factor * (ctx.d(uid).attack or 0)
    ctx.state.compensation.append(budget)
    ctx.emit("withdrawal", f"{uid} is not withdrawn ({why}): the Russian may recreate "
             f"{table.compensation_units} eliminated units with Attack Factors up to {budget} "
             "for the 64th Army (21.3)", "21.3", unit=uid, budget=budget)


def recreate_error(ctx: Ctx, side: str, uids: list[str]) -> RuleError | None:
    state = ctx.state
    table = ctx.board.tables.withdrawal
    if side != RUSSIAN or not state.compensation:
        return RuleError("21.3", "no withdrawal compensation is due to the Russian")
    if not 1 <= len(uids) <= table.compensation_units:
        return RuleError("21.3", f"recreate one or {table.compensation_units} units")
    for uid in uids:
        d = ctx.d(uid)
        if d.side != RUSSIAN or ctx.loc(uid) != DEAD or not d.combat:
            return RuleError("21.3", f"{uid} is not an eliminated Russian Combat unit")
    total = sum(ctx.d(u).attack or 0 for u in uids)
    if total > max(state.compensation):
        return RuleError("21.3", f"their Attack Factors total {total}; at most "
                         f"{max(state.compensation)}")
    imp = state.impulse
    if imp is not None and (imp.acts or imp.attacked or imp.ferried or imp.recrossed):
        return RuleError("21.3", "recreate units before the impulse's first action")
    return None


def do_recreate(ctx: Ctx, side: str, units: tuple[str, ...]) -> None:
    uids = ctx.own(side, units, "21.3")
    error = recreate_error(ctx, side, uids)
    if error is not None:
        raise error
    total = sum(ctx.d(u).attack or 0 for u in uids)
    budgets = sorted(ctx.state.compensation)
    budget = next(b for b in budgets if b >= total)  # the smallest that pays
    ctx.state.compensation.remove(budget)
    for uid in uids:
        unit = ctx.state.units[uid]
        unit.fresh, unit.recover, unit.marker, unit.isolation = True, None, False, 0
        ctx.place(uid, OFFBOARD)
        ctx.state.sixty_fourth.append(uid)
    ctx.emit("recreate", f"the Russian recreates {', '.join(sorted(uids))} for the 64th Army "
             "(enter in Zones A, B, C or Area 30; 21.3)", "21.3", units=sorted(uids))


def recreate_options(ctx: Ctx, side: str) -> list[str]:
    if side != RUSSIAN or not ctx.state.compensation:
        return []
    dead = sorted(u for u in ctx.units_at(DEAD) if ctx.d(u).side == RUSSIAN and ctx.d(u).combat)
    return [f"recreate {u}" for u in dead if recreate_error(ctx, side, [u]) is None][:4]


#: The German's standing order for his withdrawals (21.3): not a question the game asks, a
#: choice :func:`withdrawal_phase` reads when the dates come.
WITHDRAWALS: Decision[Ctx] = Decision(
    kind="withdrawals", verb="standing withdrawals", rule="21.3",
    policies=(
        ("withdraw", "withdraw the German units due to leave on their dates (21.3, the default)"),
        ("keep", "keep them in play; the Russian is compensated (21.3)"),
    ))
