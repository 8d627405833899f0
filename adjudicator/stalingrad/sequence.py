"""Sequence of play: the end of impulses and Pass (8.1, 8.14), Sunset and Dawn (6.31, 6.32),
Dawn's housekeeping and the new Game Turn (6.2), the Advantage's answers (9).

The Impulse Track itself, the German impulse DR and the Advantage's offers are
:mod:`adjudicator.stalingrad.advantage`; this module is above every procedure it closes
(combat, crossings, supply, victory...).

Dice order of an impulse's end: the German impulse DR (only when the German made no
attack DR this impulse, 8.1), then — if the Advantage is used to reroll it — the new DR.
"""

from __future__ import annotations

from typing import cast

from adjudicator.kernel.decisions import Decision
from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.orders import Order
from adjudicator.stalingrad import advantage
from adjudicator.stalingrad.advantage import (
    advance_box,
    fixed_day,
    offer_advantage,
    roll_impulse_dr,
    sept13_daylight,
    sept13_sunset_after,
    start_box,
    use_advantage,
)
from adjudicator.stalingrad.artillery import clear_fag_markers
from adjudicator.stalingrad.combat import resolve_battle, roll_battle
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.control import update_control
from adjudicator.stalingrad.crossing import reinforcement_phase
from adjudicator.stalingrad.orders import Advantage, Notation
from adjudicator.stalingrad.places import DEAD, EAST, GONE, OFF_MAP, OUT, POOL, REMOVED
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN, SIDES, other
from adjudicator.stalingrad.supply import dawn_supply
from adjudicator.stalingrad.victory import end_of_week
from adjudicator.stalingrad.withdrawals import withdrawal_phase
from adjudicator.stalingrad.works import earn

FMT = Notation.format
BREAKTHROUGH_ZONES = ("A", "B", "G", "H")


def _apply_advantage(ctx: Ctx, side: str, order: Order, dice: Dice) -> None:
    answer_advantage(ctx, side, cast(Advantage, order).action, dice)


#: The Advantage decision (9): answered here (the impulse goes on), its standing orders in
#: :mod:`adjudicator.stalingrad.advantage`.
ADVANTAGE: Decision[Ctx] = Decision(
    kind="advantage", verb="advantage", rule="9", answers=(Advantage,),
    apply=_apply_advantage, policies=advantage.POLICIES, automatic=advantage.HELPS,
    standing=advantage.standing_answer)


def answer_advantage(ctx: Ctx, side: str, action: str, dice: Dice) -> None:
    pending = ctx.state.pending
    assert pending is not None
    if f"advantage {action}" not in pending.option_orders():
        if action == "prolong" and sept13_daylight(ctx):
            raise RuleError("20.3", "the Advantage may not prolong the daylight of September "
                            "13; it may change a DR/dr", pending.option_orders())
        raise RuleError("9.3" if action == "prolong" else "9", f"advantage {action} is not "
                        "possible now", pending.option_orders())
    context = str(pending.data["context"])
    ctx.state.pending = None
    state = ctx.state
    if action == "reroll":
        use_advantage(ctx, side, "reroll")
        if context == "battle":
            assert state.battle is not None
            state.battle.rerolled = True
            if state.battle.impulse_dr:
                ctx.impulse.impulse_dr = None
                state.switch = False
            roll_battle(ctx, dice)  # 9.2: both players roll anew; effects resolved anew
            return
        roll_impulse_dr(ctx, dice, "rerolled")
        close_impulse(ctx, dice)
        return
    if action == "prolong":
        use_advantage(ctx, side, "prolong the " + ("day" if state.day else "night"))
        state.box = start_box(ctx, state.day)
        state.switch = False
        ctx.impulse.prolonged = True
        ctx.emit("prolong", f"the Impulse marker returns to box {state.box}", "9.3",
                 box=state.box)
    if context == "battle":
        resolve_battle(ctx, dice)
    else:
        close_impulse(ctx, dice)


# ---- ending impulses --------------------------------------------------------------------------


def landing_overflow(ctx: Ctx, side: str) -> dict[str, list[str]]:
    """7.1, 18.52: units that landed this impulse and stayed in a Landing Area they overfill
    retrace to the East Bank when the impulse ends — per Area, the ones that go back (the
    last landed first)."""
    imp = ctx.impulse
    out: dict[str, list[str]] = {}
    for loc in {ctx.loc(u) for u, a in imp.acts.items() if a.start == EAST}:
        if loc in OFF_MAP or ctx.zone(loc):
            continue
        excess = len(ctx.combat(loc, side)) - ctx.board.max_stack
        landed = sorted((u for u, a in imp.acts.items() if a.start == EAST and a.path == [loc]
                         and ctx.loc(u) == loc and ctx.d(u).combat), reverse=True)
        if excess > 0 and landed:
            out[loc] = landed[:excess]
    return out


def check_end(ctx: Ctx, side: str) -> None:
    """Units that entered an enemy-occupied Area must have attacked (8.34, 8.28), and no
    Area may hold more than ten of the side's Combat units (7.1)."""
    imp = ctx.impulse
    touched: set[str] = set()
    for uid, act in imp.acts.items():
        loc = ctx.loc(uid)
        touched.add(loc)
        if act.entered and act.must_attack and loc == act.entered and ctx.d(uid).combat \
                and ctx.enemy(loc, side):
            rule = "8.28" if act.tried_infiltration else "8.34"
            groups = [g for g in ("fresh", "spent") if ctx.combat(loc, other(side),
                                                                   fresh=(g == "fresh"))]
            movers = tuple(u for u, a in imp.acts.items()
                           if a.entered == loc and a.must_attack and ctx.loc(u) == loc)
            raise RuleError(rule, f"{uid} entered {ctx.name(loc)} and must attack there",
                            [f"attack {loc} {g} with {' '.join(sorted(movers))}"
                             for g in groups])
    going = landing_overflow(ctx, side)
    for loc in touched:
        if loc in OFF_MAP or ctx.zone(loc):
            continue
        if len(ctx.combat(loc, side)) - len(going.get(loc, ())) > ctx.board.max_stack:
            raise RuleError("7.1", f"more than ten {side} Combat units in {ctx.name(loc)} at "
                            "the end of the impulse")


def do_end(ctx: Ctx, side: str, dice: Dice) -> None:
    if ctx.state.impulse is None or not ctx.state.impulse.acts:
        raise RuleError("8.14", "nothing has moved or attacked: declare 'pass' instead",
                        ["pass"])
    check_end(ctx, side)
    ctx.state.passes = 0
    finish(ctx, side, dice)


def do_pass(ctx: Ctx, side: str, dice: Dice) -> None:
    imp = ctx.state.impulse
    if imp is not None and (imp.acts or imp.ferried or imp.recrossed):
        raise RuleError("8.14", "units have already acted this impulse: 'end' it instead",
                        ["end"])
    ctx.state.passes += 1
    ctx.emit("pass", f"{side} passes", "8.14", side=side)
    ctx.impulse  # noqa: B018 - make sure an impulse record exists
    finish(ctx, side, dice)


def finish(ctx: Ctx, side: str, dice: Dice) -> None:
    state = ctx.state
    imp = ctx.impulse
    if side == GERMAN and imp.impulse_dr is None and not fixed_day(ctx) \
            and state.passes < len(SIDES):
        roll_impulse_dr(ctx, dice, "no attack" if imp.acts else "Pass")
        if offer_advantage(ctx, "impulse"):
            return
    close_impulse(ctx, dice)


def close_impulse(ctx: Ctx, dice: Dice) -> None:
    """Spent the units that acted (8.13, 10.3, 10.4), move the Impulse marker, hand over."""
    state = ctx.state
    imp = ctx.impulse
    side = imp.side
    for loc, going in landing_overflow(ctx, side).items():
        for uid in going:
            ctx.place(uid, EAST)
            ctx.emit("retrace", f"{uid} may not stay in the full {ctx.name(loc)}: it "
                     "retraces to the east bank (7.1, 18.52)", "7.1", unit=uid, area=EAST)
        update_control(ctx, loc)
    for uid, act in imp.acts.items():
        unit = state.units.get(uid)
        if unit is None or unit.loc in (DEAD, POOL):
            continue
        if act.regroup:
            continue  # 8.27: Regrouping does not increase Disruption
        d = ctx.d(uid)
        if d.kind == "fag":
            continue  # 15.3: Russian Artillery suffers no Disruption for attacking
        duration = act.penalty if d.combat or act.attacked else 1  # 8.24, 10.7
        if not d.combat or unit.fresh:
            ctx.disrupt(uid, duration)
        ctx.emit("spent", f"{uid} is Spent (Duration {duration})", "10.2", unit=uid,
                 duration=duration, recover=unit.recover)
    flip = False
    fixed = fixed_day(ctx)
    if side == GERMAN:
        if fixed:
            state.german_impulses_today += 1
            if sept13_sunset_after(ctx, GERMAN):
                flip = True
            else:
                advance_box(ctx)
        elif state.switch:
            flip = True
        elif imp.prolonged:
            pass  # 9.3: the marker stays in the box the Advantage returned it to
        else:
            advance_box(ctx)
    elif sept13_sunset_after(ctx, RUSSIAN):
        flip = True  # 20.2: a pack whose Russian has as many daylight impulses as the German
    if state.passes >= len(SIDES) and not fixed:
        flip = True  # 8.14 "both players"; never before September 13's fixed impulses (20.2)
    state.impulse = None
    state.switch = False
    if flip:
        flip_period(ctx, dice)
    else:
        state.turn = other(side)


def flip_period(ctx: Ctx, dice: Dice) -> None:
    """Sunset (6.31) or Dawn (6.32); the Russian moves first in the new period."""
    state = ctx.state
    state.passes = 0
    state.turn = RUSSIAN
    if state.day:
        state.day = False
        state.box = start_box(ctx, False)
        state.sunset_control = {z: ctx.controller(z) for z in BREAKTHROUGH_ZONES
                                if z in ctx.board.areas}
        ctx.emit("sunset", f"Sunset on {ctx.board.date_label(state.date)}: night impulses begin",
                 "6.31", date=state.date)
        return
    dawn(ctx, dice)


def dawn(ctx: Ctx, dice: Dice) -> None:
    """6.32: advance the date, remove Duration markers, Spent -> Fresh, then the new
    Game Turn's Reinforcement Phase (6.2)."""
    state = ctx.state
    state.day = True
    ends = ctx.board.calendar.week_ends()
    finished = ctx.board.day_of(state.date)
    week = ends.index(finished) + 1 if finished in ends else None
    state.date += 1
    state.box = start_box(ctx, True)
    state.german_impulses_today = 0
    state.advantage_start = state.advantage
    state.advantage_used = False
    ctx.emit("dawn", f"Dawn: {ctx.board.date_label(state.date)}", "6.32", date=state.date)
    clear_fag_markers(ctx)  # 15.34
    withdrawal_phase(ctx)  # 21.3: before the Dawn of their date
    dawn_supply(ctx, dice)  # 12.2, 12.22, 15.22
    earn(ctx)  # 13.2
    recovered = 0
    for uid, unit in state.units.items():
        if unit.fresh or unit.loc in (DEAD, POOL, OUT, GONE, REMOVED):
            continue
        if ctx.d(uid).kind == "fag":
            continue  # 15.34: Russian Artillery returns only by Refit
        if unit.recover is not None and unit.recover <= state.date and ctx.supplied(uid):
            unit.fresh = True
            unit.recover = None
            unit.marker = False
            recovered += 1
    ctx.changed()
    ctx.emit("recover", f"{recovered} Spent unit(s) return to Fresh", "6.32", count=recovered)
    if week is not None:
        end_of_week(ctx, week)
        if state.result is not None:
            return
    reinforcement_phase(ctx, dice)
