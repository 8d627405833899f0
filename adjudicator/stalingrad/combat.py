"""Attacks (8.3-8.38): who may attack what, declaring, the Russian Artillery's defensive
fire (15.3), the dice and the Advantage (8.38, 8.1, 9.2), the result, Overrun, Rout (8.37),
Rubble removal (14.6) and Rubble creation by Ranged attacks (14.2).

OV and DV are :mod:`adjudicator.stalingrad.odds`; the defender's losses and retreats, and
the end of the battle, :mod:`adjudicator.stalingrad.losses`. Dice order of one attack: the
attacker's DR, then the defender's DR (8.38); an Advantage reroll (9.2) rolls both again in
the same order; retreat dice follow the defender's decision (14.5), unit by unit in id
order: Rubble Entrance DR, then the Contested retreat DR/dr (8.3552).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import cast

from adjudicator.kernel.decisions import Decision, PendingDecision
from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.orders import Order
from adjudicator.stalingrad.advantage import fixed_day, offer_advantage, set_switch
from adjudicator.stalingrad.artillery import (
    apply_counter_battery,
    ask_defensive_fire,
    fag_covers,
    mistaken_cp,
    roll_counter_battery,
    strength,
)
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.control import eliminate, update_control
from adjudicator.stalingrad.losses import (
    ask_first_loss,
    ask_voluntary,
    capacity,
    finish_battle,
    retreat_options,
)
from adjudicator.stalingrad.movement import (
    base_mf,
    origin_wait_mf,
    pay_origin_wait,
    start_units,
)
from adjudicator.stalingrad.odds import (
    Spec,
    defense,
    halve_aa,
    offense,
    rubble_defense,
    rubble_offense,
)
from adjudicator.stalingrad.optional import answer_card, draw_battle
from adjudicator.stalingrad.orders import ArtilleryAnswer, Attack, CardPick, Notation
from adjudicator.stalingrad.places import BOX, EAST
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN, other
from adjudicator.stalingrad.state import Act, Battle
from adjudicator.stalingrad.works import after_bombardment

FMT = Notation.format


# ---- declaring an attack -------------------------------------------------------------------


def group_units(ctx: Ctx, area: str, side: str, group: str) -> list[str]:
    """The defending Group (8.33) facing attacker ``side``."""
    if group == "rubble":
        return []
    return ctx.combat(area, other(side), fresh=(group == "fresh"))


def attack_cost(ctx: Ctx, area: str, group: str) -> int:
    """8.34 / 14.6: 1 MF vs a Spent Group or Rubble 1, 2 MF vs a Fresh Group or Rubble 2."""
    costs = ctx.board.tables.movement_costs
    if group == "rubble":
        level = ctx.state.rubble.get(area, 0)
        return costs.attack_rubble[min(max(level, 1), len(costs.attack_rubble)) - 1]
    return costs.attack_fresh_group if group == "fresh" else costs.attack_spent_group


# ---- who may attack what (shared by do_attack and the legal query) ---------------------------


def attacker_error(ctx: Ctx, uid: str, area: str, group: str | None = None) -> RuleError | None:
    """Why ``uid`` may not take part in an attack on ``area`` (``group`` once it is known),
    or None: Combat units only (8.24), not Disrupted landing (18.51), not after doubled MF
    (8.25), in or adjacent to the Area (8.3), not firing out of an Area it entered and must
    attack (8.34), and true to a predesignated Group (8.12)."""
    imp = ctx.state.impulse
    act = imp.acts.get(uid) if imp is not None else None
    if not ctx.d(uid).combat:
        name = ctx.board.short_unit(uid)
        what, rule = ("the Luftwaffe", "17.2") if ctx.d(uid).kind == "air" else (
            "Artillery", "15.2")
        return RuleError("8.24", f"{name} is {what}, not a Combat unit: it does not join an "
                         f"attack by Combat units (8.24); it attacks on its own, as the "
                         f"impulse's action ({rule}): attack {area} with {name}")
    if act is not None and act.no_attack:
        return RuleError("18.51", f"{uid} was Disrupted landing in a Free Area: no attack")
    if act is not None and act.doubled:
        return RuleError("8.25", f"{uid} used doubled MF this impulse: no attack")
    loc = ctx.loc(uid)
    if loc != area:
        if area not in ctx.board.adjacent(loc):
            return RuleError("8.3", f"{uid} in {ctx.name(loc)} is neither in nor adjacent to "
                             f"{ctx.name(area)}")
        if act is not None and act.must_attack and act.entered == loc:
            return RuleError("8.34", f"{uid} entered {ctx.name(loc)} and must attack there")
    elif group is not None and act is not None and act.designated not in (None, group):
        return RuleError("8.12", f"{uid} is designated to attack the {act.designated} Group")
    return None


def attack_mf(ctx: Ctx, uid: str, area: str, group: str) -> tuple[int, int]:
    """(MF used before, MF this attack costs) for ``uid`` attacking ``group`` in ``area``
    (8.34): a Ranged attacker first pays for the attacks made in its Area (origin wait);
    the first attack of units that entered the Area was paid with the entrance."""
    imp = ctx.state.impulse
    act = imp.acts.get(uid) if imp is not None else None
    if act is None:
        act = Act(start=ctx.loc(uid))
    used = origin_wait_mf(ctx, act) if ctx.loc(uid) != area else act.mf
    # 8.34: the entrance paid the first attack; 14.6: so it pays an Engineer's Rubble
    # attack in the Area it just entered, even with no enemy unit there.
    first = (act.must_attack and act.entered == area and not act.placed) or (
        group == "rubble" and act.entry_paid == area)
    return used, 0 if first else attack_cost(ctx, area, group)


def attack_limit_error(ctx: Ctx, side: str, area: str,
                       ranged_from: Iterable[str]) -> RuleError | None:
    """7.1: at the instant of attack the attacked Area and every Area a Ranged attack is
    made from hold at most ten of the attacker's Combat units."""
    for where in sorted({area, *ranged_from}):
        if not ctx.zone(where) and len(ctx.combat(where, side)) > ctx.board.max_stack:
            return RuleError("7.1", f"more than ten {side} Combat units in {ctx.name(where)} "
                             "at the instant of attack")
    return None


def fag_support_error(ctx: Ctx, side: str, fags: Sequence[str], area: str) -> RuleError | None:
    """15.3, 15.31: Russian Artillery joins a Russian attack in its own Quadrant, Fresh."""
    for fag in fags:
        if side != RUSSIAN:
            return RuleError("15.3", f"{fag} is Russian Artillery")
        if not ctx.fresh(fag) or ctx.loc(fag) != BOX:
            return RuleError("15.34", f"{fag} is Disrupted: it fires again once refitted")
        if not fag_covers(ctx, fag, area):
            return RuleError("15.31", f"{fag} fires only into its own Quadrant "
                             f"({ctx.d(fag).quadrant})")
    return None


def do_attack(ctx: Ctx, side: str, order: Attack, dice: Dice) -> None:
    area = ctx.area_key(order.area)
    listed = ctx.own(side, order.units, "8.3")
    if ctx.state.battle is not None:
        raise RuleError("8.12", "finish the attack in progress first")
    fags = sorted(u for u in listed if ctx.d(u).kind == "fag")
    uids = [u for u in listed if u not in fags]
    if order.group == "rubble" and fags:
        raise RuleError("14.6", "the attacking forces on Rubble are limited exclusively to "
                        f"Engineers: {', '.join(fags)} may not join (attack {area} rubble "
                        "with the Engineers alone)")
    error = fag_support_error(ctx, side, fags, area)
    if error is not None:
        raise error
    start_units(ctx, side, uids, "8.3")
    imp = ctx.impulse
    in_area: list[str] = []
    ranged: list[str] = []
    for uid in uids:
        error = attacker_error(ctx, uid, area)
        if error is not None:
            raise error
        ctx.act(uid)
        (in_area if ctx.loc(uid) == area else ranged).append(uid)
    if ranged:
        if not ctx.state.day:
            raise RuleError("8.31", "Ranged attacks may only be made during the day")
        if ctx.zone(area) or any(ctx.zone(ctx.loc(u)) for u in ranged):
            raise RuleError("11.4", "no Ranged attack into or out of a Zone")
    fresh_group = group_units(ctx, area, side, "fresh")
    spent_group = group_units(ctx, area, side, "spent")
    group: str | None = order.group
    designated = {ctx.act(u).designated for u in in_area if ctx.act(u).designated}
    if group is None:
        options = [g for g, units in (("fresh", fresh_group), ("spent", spent_group)) if units]
        if len(designated) == 1:
            group = designated.pop()
        elif len(options) == 1:
            group = options[0]
        elif not options:
            raise RuleError("8.3", f"{ctx.name(area)} holds no enemy Combat units to attack")
        else:
            raise RuleError("8.33", f"{ctx.name(area)} holds a Fresh and a Spent Group: name one",
                            [f"attack {area} {g} with {' '.join(uids)}" for g in options])
    assert group is not None
    if group == "rubble":
        if ranged or any(not ctx.d(u).engineer for u in uids):
            raise RuleError("14.6", "only Engineers in the Area may attack Rubble")
        if ctx.state.rubble.get(area, 0) <= 0:
            raise RuleError("14.6", f"{ctx.name(area)} has no Rubble")
        defenders: list[str] = []
    else:
        defenders = fresh_group if group == "fresh" else spent_group
        if not defenders:
            raise RuleError("8.33", f"{ctx.name(area)} holds no {group} enemy Group")
        if not any(ctx.d(u).numeric_attack for u in uids):
            raise RuleError("8.351", "AA and AT units (\"*\") may not lead an attack: add a unit "
                            "with a numerical Attack Factor")
    if (area, group) in imp.attacked:
        raise RuleError("8.32", f"the {group} Group in {ctx.name(area)} has already been "
                        "attacked this impulse")
    for uid in in_area:
        error = attacker_error(ctx, uid, area, group)
        if error is not None:
            raise error
    error = attack_limit_error(ctx, side, area, (ctx.loc(u) for u in ranged))
    if error is not None:
        raise error
    cost = attack_cost(ctx, area, group)
    prepaid = [u for u in in_area if ctx.act(u).must_attack and ctx.act(u).entered == area]
    costs: dict[str, int] = {}
    totals: dict[str, int] = {}
    for uid in uids:
        used, costs[uid] = attack_mf(ctx, uid, area, group)
        totals[uid] = used + costs[uid]
    # 14.6, 8.12: units that entered after the Engineers Overran the Rubble join by matching
    # the Engineers' total MF expenditure.
    engineers = imp.rubble_overruns.get(area, []) if group != "rubble" else []
    if engineers:
        match = max(totals.get(e, ctx.act(e).mf) for e in engineers)
        for uid in uids:
            if uid not in engineers and ctx.act(uid).entered == area:
                totals[uid] = max(totals[uid], match)
    for uid in uids:
        if totals[uid] > base_mf(ctx, uid):
            used = totals[uid] - costs[uid]
            raise RuleError("8.34", f"{uid} lacks the MF to attack: {used} used, attack costs "
                            f"{costs[uid]}, MF {base_mf(ctx, uid)}"
                            + (" (joining after the Engineers' Rubble Overrun, it matches "
                               "their MF, 14.6)" if engineers else ""))
    for uid in ranged:
        pay_origin_wait(ctx, uid, ctx.act(uid))
    # 8.34: units that entered the Area must attack one of its Groups; if this attack takes
    # the only Group left to them, they must be part of it.
    untouched = [g for g, units in (("fresh", fresh_group), ("spent", spent_group))
                 if units and g != group and (area, g) not in imp.attacked]
    bound = sorted(u for u, a in imp.acts.items()
                   if a.entered == area and a.must_attack and u not in uids
                   and ctx.loc(u) == area and (a.designated == group
                                               or (a.designated is None and not untouched)))
    if bound and group != "rubble":
        raise RuleError("8.34", f"{', '.join(bound)} entered {ctx.name(area)} and must attack "
                        f"this Group: include them", [FMT(Attack(area=area, group=group,
                                                                 units=(*uids, *bound)))])
    # The attack is legal: commit it.
    imp.attacked.append((area, group))
    if area not in imp.attacked_areas:
        imp.attacked_areas.append(area)
    if area == imp.origin:
        imp.origin_cost += cost
    if group != "rubble":
        imp.rubble_overruns.pop(area, None)  # 8.12: no more units enter after this attack
    for uid in uids:
        act = ctx.act(uid)
        act.mf = totals[uid]
        act.attacked = True
        act.must_attack = False
        act.entry_paid = None
    others = [g for g, units in (("fresh", fresh_group), ("spent", spent_group))
              if units and g != group]
    for uid, act in imp.acts.items():
        if act.entered == area and act.must_attack and uid not in uids and others \
                and act.designated is None:
            act.designated = others[0]
    spec = Spec(ctx, side, area, group, tuple(uids), tuple(ranged), tuple(defenders),
                tuple(fags))
    if group == "rubble":
        ov, ov_parts = rubble_offense(spec)
        dv, dv_parts = rubble_defense(spec)
    else:
        ov, ov_parts = offense(spec)
        dv, dv_parts = defense(spec)
    battle = Battle(area=area, group=group, side=side, attackers=list(uids), ranged=ranged,
                    entering=[u for u in in_area if u in prepaid],
                    defenders=defenders, ov=ov, dv=dv, ov_parts=ov_parts, dv_parts=dv_parts,
                    plan={"halve": halve_aa(spec) if group != "rubble" else False},
                    fags=list(fags))
    ctx.state.battle = battle
    ctx.emit("attack", f"{side} attacks the {group} {'Rubble' if group == 'rubble' else 'Group'}"
             f" in {ctx.name(area)} at {ov}:{dv} with {', '.join(uids)}"
             + (f" (Ranged from {', '.join(sorted({ctx.loc(u) for u in ranged}))})"
                 if ranged else ""),
             "8.35", area=area, group=group, ov=ov, dv=dv, odds=f"{ov}:{dv}", side=side,
             units=list(uids), ranged_from=sorted({ctx.loc(u) for u in ranged}),
             ov_parts=[list(p) for p in ov_parts], dv_parts=[list(p) for p in dv_parts],
             fags=list(fags))
    if ask_defensive_fire(ctx, battle):
        return  # 15.3: the Russian first says whether his Artillery joins the defense
    roll_battle(ctx, dice)


def roll_battle(ctx: Ctx, dice: Dice) -> None:
    """8.38: the attacker's DR, then the defender's."""
    battle = ctx.state.battle
    assert battle is not None
    attacker = battle.side.capitalize()
    defender = other(battle.side).capitalize()
    if ctx.state.options.get("cards"):
        if not draw_battle(ctx, battle, dice):
            return  # 22.22: the attacker chooses his card first
    else:
        battle.attack_dr = dice.roll(f"{attacker} attack DR ({battle.area})").total
        battle.defense_dr = dice.roll(f"{defender} defense DR ({battle.area})").total
    after_draw(ctx, dice)


def after_draw(ctx: Ctx, dice: Dice) -> None:
    """The attack's two DRs (dice or cards) are known: the Counter-Battery dr, the impulse
    DR and the Advantage (8.1, 9.2), then the result."""
    battle = ctx.state.battle
    assert battle is not None
    ctx.emit("attack-dice", f"attack DR {battle.attack_dr}, defense DR {battle.defense_dr}",
             "8.38", attack_dr=battle.attack_dr, defense_dr=battle.defense_dr)
    if battle.fags:
        roll_counter_battery(ctx, battle, dice)  # 15.32: the fifth die
    after_attack_roll(ctx, dice)


def after_attack_roll(ctx: Ctx, dice: Dice) -> None:
    """The first German attack DR of an impulse is its impulse DR (8.1); then the
    Advantage holder may reroll (9.2) or prolong (9.3); then the attack is resolved."""
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



def answer_defensive_fire(ctx: Ctx, unit: str | None, dice: Dice) -> None:
    battle = ctx.state.battle
    pending = ctx.state.pending
    assert battle is not None and pending is not None
    if unit is not None:
        fag = ctx.board.resolve_unit(unit)
        if fag not in pending.data["fags"]:
            raise RuleError("15.31", f"{fag} may not fire into {ctx.name(battle.area)}",
                            pending.option_orders())
        value = strength(ctx, fag)
        battle.fags = [fag]
        battle.dv += value
        battle.dv_parts = [*battle.dv_parts, ("Russian Artillery", value)]
        ctx.emit("artillery", f"{fag} adds {value} to the defense: {battle.ov}:{battle.dv}",
                 "15.3", unit=fag, value=value, odds=f"{battle.ov}:{battle.dv}")
    ctx.state.pending = None
    battle.stage = "rolled"
    roll_battle(ctx, dice)



# ---- resolution --------------------------------------------------------------------------------


def resolve_battle(ctx: Ctx, dice: Dice) -> None:
    """Apply an attack's dice (8.353): CP, Overrun, attacker Disruption, Rout, Rubble."""
    battle = ctx.state.battle
    assert battle is not None
    offense_total = battle.ov + battle.attack_dr
    defense_total = battle.dv + battle.defense_dr
    diff = offense_total - defense_total
    battle.plan["offense_total"], battle.plan["defense_total"] = offense_total, defense_total
    if battle.fags:
        apply_counter_battery(ctx, battle)
    if battle.side == GERMAN and battle.group != "rubble" and (
            battle.ranged or battle.kind in ("artillery", "air")):
        create_rubble(ctx, battle)  # 14.2: Ranged, Artillery and Air attacks
    if battle.kind == "air":
        battle.plan["mistaken"] = mistaken_cp(ctx, battle)  # 17.3
    if battle.group == "rubble":
        resolve_rubble(ctx, battle, diff)
        return
    defenders = [u for u in battle.defenders if ctx.loc(u) == battle.area]
    cap = capacity(ctx, defenders)
    overrun = diff > cap
    cp = max(diff, 0)
    battle.cp = cp
    result = "overrun" if overrun else "cp" if diff > 0 else "equal" if diff == 0 else "repulsed"
    ctx.emit("attack-result", f"{offense_total}:{defense_total} — "
             + (f"{cp} Casualty Points, an Overrun" if overrun
                 else f"{cp} Casualty Points" if diff > 0 else "no effect on the defender"),
             "8.353", area=battle.area, offense_total=offense_total,
             defense_total=defense_total, total=f"{offense_total}:{defense_total}", cp=cp,
             result=result)
    attacker_penalty(ctx, battle, diff, overrun)
    if overrun:
        for uid in defenders:
            eliminate(ctx, uid, "8.36", "Overrun")
        finish_battle(ctx)
        return
    if diff <= -ctx.board.tables.constants.rout_margin and battle.entering:
        rout(ctx, battle)
    if diff > 0:
        ask_first_loss(ctx, battle, defenders)
    else:
        ask_voluntary(ctx, battle, defenders)


def create_rubble(ctx: Ctx, battle: Battle) -> None:
    """14.2: a German Ranged/Artillery/Air attack creates (or raises) Rubble when the
    German Attack DR plus the TEM reaches the pack's threshold (13), never past Rubble 2."""
    constants = ctx.board.tables.constants
    tem = ctx.board.area(battle.area).tem
    state = ctx.state
    level = state.rubble.get(battle.area, 0)
    made = battle.attack_dr + tem >= constants.rubble_creation_threshold \
        and level < constants.max_rubble
    after_bombardment(ctx, battle.area, battle.attack_dr, level, level + 1 if made else level)
    if not made:
        return
    state.rubble[battle.area] = level + 1
    ctx.emit("rubble", f"the bombardment creates Rubble {level + 1} in "
             f"{ctx.name(battle.area)} (DR {battle.attack_dr} + TEM {tem} >= "
             f"{constants.rubble_creation_threshold})", "14.2", area=battle.area,
             level=level + 1)


def attacker_penalty(ctx: Ctx, battle: Battle, diff: int, overrun: bool) -> None:
    """10.3/10.4: Overrun keeps the attackers going (Duration 1 unless a later attack
    fails); otherwise their impulse is over with Duration 2/3/4, one less for Ranged fire.
    Artillery and aircraft keep the Duration they were given when they fired (10.7)."""
    if overrun or battle.kind != "combat":
        return
    table = ctx.board.tables.disruption
    level = table.attack_won if diff > 0 else table.attack_tied if diff == 0 \
        else table.attack_lost
    for uid in battle.attackers:
        act = ctx.impulse.acts.get(uid)
        if act is None:
            continue
        penalty = max(table.ranged_minimum, level - table.ranged_reduction) \
            if uid in battle.ranged else level
        act.penalty = max(act.penalty, penalty)
        act.done = True
        act.stop = ("8.36", "attacked without an Overrun: its impulse is over")


def rout(ctx: Ctx, battle: Battle) -> None:
    """8.37: entering attackers beaten by ten or more retreat into the Area they came from."""
    for uid in battle.entering:
        act = ctx.impulse.acts.get(uid)
        if act is None or act.came_from is None or ctx.loc(uid) != battle.area:
            continue
        ctx.place(uid, act.came_from)
        ctx.emit("rout", f"{uid} is Routed back to {ctx.name(act.came_from)}", "8.37",
                 unit=uid, area=act.came_from)
        act.entered = None
        if act.came_from != EAST:
            update_control(ctx, act.came_from)
            rout_on(ctx, uid, battle.area, act.came_from)
    update_control(ctx, battle.area)


def rout_on(ctx: Ctx, uid: str, src: str, here: str) -> None:
    """7.1/8.355: a Routed unit may not stop in an Area it would overfill; it retreats on
    by the priorities (8.3551, the first Area they allow), or is eliminated."""
    side = ctx.side_of(uid)
    visited = {src, here}
    while ctx.full(here, side):
        choices, _ = retreat_options(ctx, side, here, visited)
        if not choices:
            eliminate(ctx, uid, "8.355", "Routed into a full Area with no retreat open")
            return
        nxt = choices[0]
        ctx.place(uid, nxt)
        update_control(ctx, here)
        update_control(ctx, nxt)
        ctx.emit("retreat", f"{uid} cannot stop in the full {ctx.name(here)}: on to "
                 f"{ctx.name(nxt)}", "8.355", units=[uid], area=nxt, **{"from": here})
        visited.add(nxt)
        here = nxt


def resolve_rubble(ctx: Ctx, battle: Battle, diff: int) -> None:
    """14.6: one layer per three (or fraction) points; an Overrun by 4 or more against Rubble
    1, 7 or more against Rubble 2 (the pack's ``rubble_removal_per_cp`` and
    ``rubble_overrun_margin``)."""
    level = ctx.state.rubble.get(battle.area, 0)
    constants = ctx.board.tables.constants
    per = constants.rubble_removal_per_cp
    margins = constants.rubble_overrun_margin
    layers = math.ceil(diff / per) if diff > 0 else 0
    overrun = level > 0 and diff >= margins[min(level, len(margins)) - 1]
    removed = min(layers, level)
    if removed:
        ctx.state.rubble[battle.area] = level - removed
        if ctx.state.rubble[battle.area] == 0:
            del ctx.state.rubble[battle.area]
    if overrun:
        # 14.6, 8.12: the other units of the impulse may still enter and join.
        ctx.impulse.rubble_overruns[battle.area] = list(battle.attackers)
    ctx.emit("attack-result", f"{battle.ov + battle.attack_dr}:{battle.dv + battle.defense_dr}"
             f" vs Rubble — {removed} layer(s) removed" + (", an Overrun" if overrun else ""),
             "14.6", area=battle.area, removed=removed, result="overrun" if overrun else
             "cp" if diff > 0 else "equal" if diff == 0 else "repulsed",
             total=f"{battle.ov + battle.attack_dr}:{battle.dv + battle.defense_dr}")
    attacker_penalty(ctx, battle, diff, overrun)
    finish_battle(ctx)




# ---- the decisions of an attack, with their standing orders -----------------------------------


def _apply_artillery(ctx: Ctx, side: str, order: Order, dice: Dice) -> None:
    answer_defensive_fire(ctx, cast(ArtilleryAnswer, order).unit, dice)


def _apply_card(ctx: Ctx, side: str, order: Order, dice: Dice) -> None:
    if answer_card(ctx, side, cast(CardPick, order).value, dice):
        after_draw(ctx, dice)


def _card_standing(ctx: Ctx, decision: PendingDecision, policy: str) -> str | None:
    """22.22: the card nearest 7 (the decision's default), the highest or the lowest."""
    values = [int(v) for v in decision.data.get("values", [])]
    if policy == "middle" or not values:
        return decision.default
    return f"decide card {max(values) if policy == 'highest' else min(values)}"


ARTILLERY: Decision[Ctx] = Decision(
    kind="artillery", verb="decide artillery", rule="15.3", answers=(ArtilleryAnswer,),
    apply=_apply_artillery,
    policies=(
        ("always",
         "add a Fresh FAG of the Quadrant to every defense against a German attack "
         "(the default)"),
        ("never", "never add Russian Artillery to a defense"),
    ),
    standing=lambda ctx, decision, policy: (decision.default if policy == "always"
                                            else "decide artillery none"))

CARD: Decision[Ctx] = Decision(
    kind="card", verb="decide card", rule="22.22", answers=(CardPick,), apply=_apply_card,
    policies=(
        ("middle", "play the card nearest 7 (Feints, 22.22; the default)"),
        ("highest", "play my highest card"),
        ("lowest", "play my lowest card"),
    ), standing=_card_standing)
