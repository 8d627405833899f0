"""The Impulse Track (6.31, 6.32, 20.2) and the Advantage (9): what every procedure that
rolls may need in the middle of an impulse.

The German impulse DR switches the period when it is at most the Impulse marker's box;
September 13's first German daylight impulses need none (20.2). The side holding the
Advantage at the start of a date may use it once that date (9.5): to reroll both attack DRs
(9.2), to prolong the period right after a German impulse DR that ends it (9.3; never the
daylight of September 13, 20.3), or to change any other DR/dr against it (9.4).

Nothing here ends an impulse or resolves an attack: those are
:mod:`adjudicator.stalingrad.sequence` and :mod:`adjudicator.stalingrad.combat`, which
call down to this module.
"""

from __future__ import annotations

from adjudicator.kernel.decisions import Option, PendingDecision
from adjudicator.kernel.dice import Dice, Roll
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.sides import GERMAN, other
from adjudicator.stalingrad.state import StalingradState

# ---- the Impulse Track and the German impulse DR (6.31, 6.32, 20.2) -------------------------


def opt(state_options: dict[str, object], key: str, default: int) -> int:
    value = state_options.get(key, default)
    return int(value) if isinstance(value, int | str) else default


def fixed_impulses(ctx: Ctx) -> int:
    """20.2: September 13's German daylight impulses without impulse DR (the scenario's,
    else the pack's constant)."""
    return opt(ctx.state.options, "fixed_impulses",
               ctx.board.tables.constants.sept13_german_day_impulses)


def russian_fixed_impulses(ctx: Ctx) -> int:
    """20.2: September 13's Russian daylight impulses — fewer than the German's by as many as
    the pack's ``sept13_german_day_impulses`` and ``sept13_russian_day_impulses`` differ (12
    and 11: Sunset follows the German's last daylight impulse; equal counts: it follows the
    Russian's matching one)."""
    constants = ctx.board.tables.constants
    fewer = constants.sept13_german_day_impulses - constants.sept13_russian_day_impulses
    return fixed_impulses(ctx) - max(0, fewer)


def sept13_sunset_after(ctx: Ctx, side: str) -> bool:
    """20.2: whether Sunset follows the daylight impulse ``side`` is closing on September 13
    (the German's count already includes the impulse being closed)."""
    state = ctx.state
    done = state.german_impulses_today
    if state.date != 0 or not state.day or done < fixed_impulses(ctx):
        return False
    if side == GERMAN:
        return russian_fixed_impulses(ctx) < done
    return done <= russian_fixed_impulses(ctx)


def fixed_day(ctx: Ctx) -> bool:
    """20.2: September 13's first German daylight impulses need no impulse DR."""
    state = ctx.state
    return state.date == 0 and state.day and state.german_impulses_today < fixed_impulses(ctx)


def start_box(ctx: Ctx, day: bool) -> int:
    """The Impulse Track box a day (6.32) or night (6.31) starts in on the current date:
    the calendar's ``daylight`` steps (21.4's only with Diminishing Daylight)."""
    board, state = ctx.board, ctx.state
    dim = bool(state.options.get("diminishing_daylight"))
    boxes = board.calendar.daylight_boxes(board.day_of(state.date), dim)
    return opt(state.options, "day_box" if day else "night_box", boxes[0 if day else 1])


def advance_box(ctx: Ctx) -> None:
    """6.1: the Impulse marker moves on after a German impulse (two spaces in the Sawmill,
    never past its last space)."""
    state = ctx.state
    last = opt(state.options, "box_max", ctx.board.tables.constants.impulse_track_spaces)
    state.box = min(state.box + opt(state.options, "box_step", 1), last)


def set_switch(ctx: Ctx, dr: int, source: str) -> None:
    state = ctx.state
    state.switch = dr <= state.box
    change = ("Sunset" if state.day else "Dawn") if state.switch else "no change"
    ctx.emit("impulse-dr", f"German impulse DR {dr} ({source}) vs box {state.box}: {change}",
             "6.31" if state.day else "6.32", dr=dr, box=state.box, switch=state.switch)


def roll_impulse_dr(ctx: Ctx, dice: Dice, why: str) -> None:
    roll = dice.roll("German impulse DR")
    ctx.impulse.impulse_dr = roll.total
    set_switch(ctx, roll.total, why)



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


# ---- when the Advantage is worth asking about (docs/rulings.md, "The Advantage asked when
# it helps") ---------------------------------------------------------------------------------

#: The policy answering for a holder who has set none: ask, but only when the Advantage can
#: turn a roll his way (:func:`offer_advantage`, :func:`offer_reroll`).
HELPS = "helps"
#: The policy that asks whenever the rules allow the Advantage (the holder chose it).
ASK = "ask"
#: The policy that never uses it: no question, no message.
NEVER = "never"


def policy_of(state: StalingradState, holder: str) -> str:
    """The holder's standing order for the Advantage, or :data:`HELPS` when he set none."""
    return state.standing.get(holder, {}).get("advantage", HELPS)


def battle_against(state: StalingradState, holder: str) -> bool:
    """8.353: the attack's dice go against ``holder``: his attack fails (OV + DR no higher
    than DV + DR), or the attack on him succeeds."""
    b = state.battle
    assert b is not None
    diff = (b.ov + b.attack_dr) - (b.dv + b.defense_dr)
    return diff <= 0 if holder == b.side else diff > 0


def period_ends_against(state: StalingradState, holder: str) -> bool:
    """6.31, 6.32: the German impulse DR calls Sunset on the German's day or Dawn on the
    Russian's night (the time of day each side plays best in)."""
    return state.switch and (holder == GERMAN) == state.day


def why_offered(ctx: Ctx, context: str, holder: str) -> str | None:
    """How the Advantage could turn things ``holder``'s way now; None when it could not
    (9.2 an attack that went against him; 9.3/9.4 an impulse DR ending his time of day)."""
    state = ctx.state
    period = "day" if state.day else "night"
    if context == "battle":
        b = state.battle
        assert b is not None
        totals = f"{b.ov}+{b.attack_dr} against {b.dv}+{b.defense_dr}"
        if battle_against(state, holder):
            return (f"your attack fails ({totals})" if holder == b.side
                    else f"the {b.side} attack succeeds ({totals})")
        if b.impulse_dr and period_ends_against(state, holder):
            return f"the attack DR {b.attack_dr} ends your {period}"
        return None
    if period_ends_against(state, holder):
        return f"the German impulse DR ends your {period}"
    return None


def offer_advantage(ctx: Ctx, context: str) -> bool:
    """9.2, 9.3: after an attack's dice or a German impulse DR, ask the eligible holder
    (9.5) whether he uses the Advantage — only when it could help him (:func:`why_offered`),
    unless his standing order is ``ask``; never with ``never``. True when a decision waits."""
    holder = advantage_holder(ctx)
    if holder is None:
        return False
    if context == "battle" and ctx.state.battle is not None and ctx.state.battle.rerolled:
        return False
    policy = policy_of(ctx.state, holder)
    why = why_offered(ctx, context, holder)
    if policy == NEVER or (why is None and policy != ASK):
        return False
    options = [Option(order="advantage decline", label="keep the roll"),
               Option(order="advantage reroll", label="reroll (9.2, 9.4)")]
    if may_prolong(ctx, context):
        period = "day" if ctx.state.day else "night"
        options.append(Option(order="advantage prolong", label=f"prolong the {period} (9.3)"))
    what = "the attack DRs" if context == "battle" else "the German impulse DR"
    ctx.state.pending = PendingDecision(
        kind="advantage", side=holder, rule="9",
        prompt=(f"{why}: " if why else "") + f"use the Advantage on {what}?",
        options=tuple(options), default="advantage decline", data={"context": context},
    )
    return True


def use_advantage(ctx: Ctx, side: str, why: str) -> None:
    state = ctx.state
    state.advantage_used = True
    state.advantage = other(side)
    ctx.emit("advantage", f"{side} uses the Advantage: {why}; it passes to {other(side)}", "9",
             side=side, use=why)


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
NO_REROLL = (NEVER, "prolong-mine")


def offer_reroll(ctx: Ctx, dice: Dice, roll: Roll, loser: str, *, setup: bool = False
                 ) -> None:
    """9.4: after a DR/dr whose result goes against ``loser``, offer the Advantage to its
    eligible holder (9.5) when the result goes against the holder — a roll in his favour
    is not worth a round trip — unless his standing order already says no. A roll of the
    set-up (``setup``: the initial Rubble, 5.7) is offered only to a holder who asked for
    every chance (``standing advantage ask`` or a reroll policy), not by default."""
    if not isinstance(dice, RerollDice) or not dice.enabled:
        return
    index = len(dice.values) - 1
    if index < dice.offer_from or index == dice.reroll_at:
        return
    holder = advantage_holder(ctx)
    if holder is None or loser != holder:
        return
    policy = policy_of(ctx.state, holder)
    if policy in NO_REROLL or (setup and policy == HELPS):
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


# ---- the Advantage's standing orders ---------------------------------------------------------

#: The Advantage decision's standing policies, as players read them (:data:`HELPS` answers
#: for a holder who has set none).
POLICIES = (
    (NEVER, "never use the Advantage: you are not asked"),
    (HELPS,
     "ask me only when the Advantage can turn a roll my way: my attack failed, an attack on "
     "me succeeded, the impulse DR ends my time of day, a DR/dr went against me in play "
     "(the default)"),
    (ASK, "ask me each time the Advantage may be used"),
    ("reroll-bad", "reroll an attack, or any other DR/dr (9.4), that goes against me"),
    ("prolong-mine", "prolong my time of day (German day, Russian night)"),
    ("both", "prolong my time of day, else reroll a roll that goes against me"),
)


def standing_answer(ctx: Ctx, decision: PendingDecision, policy: str) -> str | None:
    """A standing order's answer to an Advantage decision (9.2-9.4); None for the
    policies that ask (``helps``, ``ask``)."""
    if policy in (HELPS, ASK):
        return None
    state = ctx.state
    holder = decision.side
    context = decision.data.get("context")
    if context == "roll":  # 9.4
        bad = decision.data.get("loser") == holder
        return "advantage reroll" if bad and policy in ("reroll-bad", "both") \
            else "advantage decline"
    ends_mine = period_ends_against(state, holder)
    if policy in ("prolong-mine", "both") and ends_mine \
            and "advantage prolong" in decision.option_orders():
        return "advantage prolong"
    if policy in ("reroll-bad", "both") and (
            (context == "battle" and state.battle is not None
             and battle_against(state, holder))
            or (context == "impulse" and ends_mine)):
        return "advantage reroll"
    return "advantage decline"
