"""Sequence of play: impulses and Pass (8.1, 8.14), the German impulse DR and the
Day/Night Impulse Track (6.31, 6.32), Dawn housekeeping, September 13 (20.2, 20.3) and
the Advantage (9).

Dice order of an impulse's end: the German impulse DR (only when the German made no
attack DR this impulse, 8.1), then — if the Advantage is used to reroll it — the new DR.
"""

from __future__ import annotations

from adjudicator.kernel.decisions import Option, PendingDecision
from adjudicator.kernel.dice import Dice, Roll
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.board import date_label, day_of
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.orders import Notation
from adjudicator.stalingrad.places import DEAD, EAST, GONE, OFF_MAP, OUT, POOL, REMOVED
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN, other

FMT = Notation.format
BREAKTHROUGH_ZONES = ("A", "B", "G", "H")


def opt(state_options: dict[str, object], key: str, default: int) -> int:
    value = state_options.get(key, default)
    return int(value) if isinstance(value, int | str) else default


def fixed_impulses(ctx: Ctx) -> int:
    """20.2: September 13's German daylight impulses without impulse DR (the scenario's,
    else the pack's constant)."""
    return opt(ctx.state.options, "fixed_impulses",
               ctx.board.tables.constants.sept13_german_day_impulses)


def fixed_day(ctx: Ctx) -> bool:
    """20.2: September 13's first German daylight impulses need no impulse DR."""
    state = ctx.state
    return state.date == 0 and state.day and state.german_impulses_today < fixed_impulses(ctx)


def start_box(ctx: Ctx, day: bool) -> int:
    """The Impulse Track box a day (6.32) or night (6.31) starts in on the current date:
    the calendar's ``daylight`` steps (21.4's only with Diminishing Daylight)."""
    board, state = ctx.board, ctx.state
    dim = bool(state.options.get("diminishing_daylight"))
    boxes = board.calendar.daylight_boxes(day_of(state.date), dim)
    return opt(state.options, "day_box" if day else "night_box", boxes[0 if day else 1])


def advance_box(ctx: Ctx) -> None:
    """6.1: the Impulse marker moves on after a German impulse (two spaces in the Sawmill,
    never past its last space)."""
    state = ctx.state
    last = opt(state.options, "box_max", ctx.board.tables.constants.impulse_track_spaces)
    state.box = min(state.box + opt(state.options, "box_step", 1), last)


# ---- the German impulse DR ----------------------------------------------------------------------


def set_switch(ctx: Ctx, dr: int, source: str) -> None:
    state = ctx.state
    state.switch = dr <= state.box
    change = ("Sunset" if state.day else "Dawn") if state.switch else "no change"
    ctx.emit("impulse-dr", f"German impulse DR {dr} ({source}) vs box {state.box}: {change}",
             "6.31" if state.day else "6.32", dr=dr, box=state.box, switch=state.switch)


def after_attack_roll(ctx: Ctx, dice: Dice) -> None:
    """The first German attack DR of an impulse is its impulse DR (8.1); then the
    Advantage holder may reroll (9.2) or prolong (9.3); then the attack is resolved."""
    from adjudicator.stalingrad.combat import resolve_battle

    battle = ctx.state.battle
    assert battle is not None
    imp = ctx.impulse
    if battle.side == GERMAN and (imp.impulse_dr is None or battle.impulse_dr) \
            and not fixed_day(ctx):
        imp.impulse_dr = battle.attack_dr
        battle.impulse_dr = True
        set_switch(ctx, battle.attack_dr, "first attack DR")
    if offer_advantage(ctx, "battle"):
        return
    resolve_battle(ctx, dice)


# ---- the Advantage (9) ---------------------------------------------------------------------------


def advantage_holder(ctx: Ctx) -> str | None:
    """9.5: once per date, only by the side holding it at the start of the date."""
    state = ctx.state
    if state.advantage_used or state.advantage_start != state.advantage:
        return None
    return state.advantage


def sept13_daylight(ctx: Ctx) -> bool:
    """20.3: the Advantage may not prolong the daylight of September 13."""
    return ctx.state.date == 0 and ctx.state.day


def may_prolong(ctx: Ctx, context: str) -> bool:
    """9.3: right after a German impulse DR that calls for Sunset/Dawn; never to prolong
    the daylight of September 13 (20.3)."""
    state = ctx.state
    if not state.switch:
        return False
    if context == "battle" and not (state.battle and state.battle.impulse_dr):
        return False
    return not sept13_daylight(ctx)


def offer_advantage(ctx: Ctx, context: str) -> bool:
    holder = advantage_holder(ctx)
    if holder is None:
        return False
    if context == "battle" and ctx.state.battle is not None and ctx.state.battle.rerolled:
        return False
    options = [Option(order="advantage decline", label="keep the roll"),
               Option(order="advantage reroll", label="reroll (9.2, 9.4)")]
    if may_prolong(ctx, context):
        period = "day" if ctx.state.day else "night"
        options.append(Option(order="advantage prolong", label=f"prolong the {period} (9.3)"))
    what = "the attack DRs" if context == "battle" else "the German impulse DR"
    ctx.state.pending = PendingDecision(
        kind="advantage", side=holder, rule="9",
        prompt=f"use the Advantage on {what}?", options=tuple(options),
        default="advantage decline", data={"context": context},
    )
    return True


# ---- 9.4: the Advantage on any other DR/dr ------------------------------------------------------
#
# A Rubble Entrance DR, a Crossing DR, a retreat's Contested DR/dr, a Fortification or
# Infiltration dr... is rolled in the middle of a procedure. Rather than freeze every
# procedure half-way, the engine runs an order's procedure with :class:`RerollDice`; when a
# roll the holder may change comes up, :func:`offer_reroll` stops the procedure
# (:class:`RollPause`), the game puts the state back as it was before the order, and asks
# the holder. The answer re-runs the same order on the same state with the earlier rolls
# replayed: "decline" keeps the roll (later rolls may still be offered), "reroll" draws
# that one roll anew and forfeits the Advantage (9.4). The procedure is deterministic, so
# the re-run reaches the same roll with the same history.


class RollPause(Exception):
    """The holder of the Advantage may reroll the roll just made (9.4)."""

    def __init__(self, index: int, roll: Roll, loser: str, holder: str) -> None:
        super().__init__(roll.label)
        self.index = index
        self.roll = roll
        self.loser = loser
        self.holder = holder


class RerollDice:
    """The dice one order's procedure sees: earlier rolls replayed, then live ones.

    ``values`` records every roll of this run in order (replayed or live); a roll whose
    index is ``reroll_at`` is drawn anew, labelled as the Advantage reroll.
    """

    def __init__(self, inner: Dice, replay: list[tuple[int, ...]] | None = None,
                 offer_from: int = 0, reroll_at: int | None = None,
                 enabled: bool = True) -> None:
        self.inner = inner
        self.rolls = inner.rolls
        self.replay = list(replay or [])
        self.offer_from = offer_from
        self.reroll_at = reroll_at
        self.enabled = enabled
        self.values: list[tuple[int, ...]] = []

    def roll(self, label: str, count: int = 2, sides: int = 6,
             audience: str = "public") -> Roll:
        index = len(self.values)
        if index < len(self.replay):
            roll = Roll(index=-1, label=label, values=self.replay[index], sides=sides,
                        audience=audience)
        elif index == self.reroll_at:
            roll = self.inner.roll(f"{label} (Advantage reroll, 9.4)", count, sides, audience)
        else:
            roll = self.inner.roll(label, count, sides, audience)
        self.values.append(tuple(roll.values))
        return roll


#: Standing policies that never reroll a DR/dr other than an attack's (9.4).
NO_REROLL = ("never", "prolong-mine")


def offer_reroll(ctx: Ctx, dice: Dice, roll: Roll, loser: str) -> None:
    """9.4: after a DR/dr whose result goes against ``loser``, offer the Advantage to its
    eligible holder (9.5) when the result goes against the holder — a roll in his favour
    is not worth a round trip — unless his standing order already says no."""
    if not isinstance(dice, RerollDice) or not dice.enabled:
        return
    index = len(dice.values) - 1
    if index < dice.offer_from or index == dice.reroll_at:
        return
    holder = advantage_holder(ctx)
    if holder is None or loser != holder:
        return
    if ctx.state.standing.get(holder, {}).get("advantage") in NO_REROLL:
        return
    raise RollPause(index, roll, loser, holder)


def reroll_decision(pause: RollPause, order: str, by: str, values: list[tuple[int, ...]],
                    resume: PendingDecision | None) -> PendingDecision:
    total = pause.roll.total
    return PendingDecision(
        kind="advantage", side=pause.holder, rule="9.4",
        prompt=f"use the Advantage to reroll the {pause.roll.label}: {total}, against you?",
        options=(Option(order="advantage decline", label="keep the roll"),
                 Option(order="advantage reroll", label="reroll it (9.4)")),
        default="advantage decline",
        data={"context": "roll", "order": order, "by": by, "index": pause.index,
              "values": [list(v) for v in values], "label": pause.roll.label,
              "total": total, "loser": pause.loser,
              "resume": resume.model_dump(mode="json") if resume is not None else None},
    )


def use_advantage(ctx: Ctx, side: str, why: str) -> None:
    state = ctx.state
    state.advantage_used = True
    state.advantage = other(side)
    ctx.emit("advantage", f"{side} uses the Advantage: {why}; it passes to {other(side)}", "9",
             side=side, use=why)


def answer_advantage(ctx: Ctx, side: str, action: str, dice: Dice) -> None:
    from adjudicator.stalingrad.combat import resolve_battle, roll_battle

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


def roll_impulse_dr(ctx: Ctx, dice: Dice, why: str) -> None:
    roll = dice.roll("German impulse DR")
    ctx.impulse.impulse_dr = roll.total
    set_switch(ctx, roll.total, why)


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
    if side == GERMAN and imp.impulse_dr is None and not fixed_day(ctx) and state.passes < 2:
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
        ctx.update_control(loc)
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
            if state.german_impulses_today >= fixed_impulses(ctx):
                flip = True
            else:
                advance_box(ctx)
        elif state.switch:
            flip = True
        elif imp.prolonged:
            pass  # 9.3: the marker stays in the box the Advantage returned it to
        else:
            advance_box(ctx)
    if state.passes >= 2 and not fixed:
        flip = True  # 8.14; never before September 13's fixed impulses are done (20.2)
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
        ctx.emit("sunset", f"Sunset on {date_label(state.date)}: night impulses begin",
                 "6.31", date=state.date)
        return
    dawn(ctx, dice)


def dawn(ctx: Ctx, dice: Dice) -> None:
    """6.32: advance the date, remove Duration markers, Spent -> Fresh, then the new
    Game Turn's Reinforcement Phase (6.2)."""
    from adjudicator.stalingrad.artillery import clear_fag_markers
    from adjudicator.stalingrad.crossing import reinforcement_phase
    from adjudicator.stalingrad.replacements import earn
    from adjudicator.stalingrad.supply import dawn_supply
    from adjudicator.stalingrad.victory import end_of_week
    from adjudicator.stalingrad.withdrawals import withdrawal_phase

    state = ctx.state
    state.day = True
    ends = ctx.board.calendar.week_ends()
    finished = day_of(state.date)
    week = ends.index(finished) + 1 if finished in ends else None
    state.date += 1
    state.box = start_box(ctx, True)
    state.german_impulses_today = 0
    state.advantage_start = state.advantage
    state.advantage_used = False
    ctx.emit("dawn", f"Dawn: {date_label(state.date)}", "6.32", date=state.date)
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
