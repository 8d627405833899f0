"""Attacks (8.3-8.38), Casualty Points and retreats, Overrun, Rout, Rubble removal (14.6)
and Rubble creation by Ranged attacks (14.2).

OV and DV are sums of named modifiers (:data:`OV_MODIFIERS`, :data:`DV_MODIFIERS`); part
2 fills the artillery/air hooks (they read ``state.artillery`` and contribute 0 today).
Dice order of one attack: the attacker's DR, then the defender's DR (8.38); an
Advantage reroll (9.2) rolls both again in the same order; retreat dice follow the
defender's decision (14.5), unit by unit in id order: Rubble Entrance DR, then the
Contested retreat DR/dr (8.3552).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from adjudicator.kernel.decisions import Option, PendingDecision
from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.artillery import (
    apply_counter_battery,
    ask_defensive_fire,
    fag_covers,
    mistaken_cp,
    roll_counter_battery,
    strength,
    sweep_observers,
)
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.movement import (
    base_mf,
    origin_wait_mf,
    pay_origin_wait,
    rubble_drm,
    rubble_need,
    start_units,
)
from adjudicator.stalingrad.optional import draw_battle
from adjudicator.stalingrad.orders import Attack, Casualties, Notation, Overflow
from adjudicator.stalingrad.places import BOX, DEAD, EAST, OFFBOARD
from adjudicator.stalingrad.replacements import after_bombardment
from adjudicator.stalingrad.sequence import after_attack_roll, offer_reroll
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN, other
from adjudicator.stalingrad.state import Act, Battle

FMT = Notation.format


# ---- OV / DV as named modifiers --------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """What an OV/DV modifier may look at."""

    ctx: Ctx
    side: str  # attacker
    area: str
    group: str
    attackers: tuple[str, ...]
    ranged: tuple[str, ...]
    defenders: tuple[str, ...]
    fags: tuple[str, ...] = ()  # Russian Artillery joining a Russian attack (15.3)

    @property
    def german_impulse(self) -> bool:
        return self.side == GERMAN

    @property
    def day(self) -> bool:
        return self.ctx.state.day


@dataclass(frozen=True)
class Modifier:
    name: str
    rule: str
    value: Callable[[Spec], int]


def _regimental_integrity(s: Spec) -> int:
    counts: dict[str, int] = {}
    for uid in s.attackers:
        d = s.ctx.d(uid)
        if d.kind == "infantry" and d.battalion and d.regiment \
                and s.ctx.board.regiment_size.get(d.regiment, 0) >= 3:
            counts[d.regiment] = counts.get(d.regiment, 0) + 1
    return sum(n // 3 for n in counts.values())


def _parents(s: Spec) -> int:
    imp = s.ctx.state.impulse
    if imp is not None and any(u in s.ctx.state.sixty_fourth and u in imp.acts
                               and imp.acts[u].start == OFFBOARD for u in s.attackers):
        return 0  # 21.3: suspended in the impulse the 64th Army's units enter
    parents = {s.ctx.d(u).parent for u in s.attackers if s.ctx.d(u).parent}
    return -max(0, len(parents) - 1)


def _russian_artillery_ov(s: Spec) -> int:
    """15.3, 8.351E: Russian Artillery adds its Attack Factor to a Russian attack (on
    defense it is added when the Russian answers, :func:`artillery.ask_defensive_fire`)."""
    return sum(strength(s.ctx, f) for f in s.fags)


OV_MODIFIERS: list[Modifier] = [
    Modifier("extra units", "8.351A", lambda s: len(s.attackers) - 1),
    Modifier("Regimental Integrity", "8.351B", _regimental_integrity),
    Modifier("different Parent", "8.351C", _parents),
    Modifier("German daylight", "8.351D", lambda s: 1 if s.german_impulse and s.day else 0),
    Modifier("Russian Artillery", "8.351E", _russian_artillery_ov),
]


def _tem(s: Spec) -> int:
    tem = s.ctx.board.area(s.area).tem
    return 2 * tem if s.ranged else tem


def _rubble(s: Spec) -> int:
    if s.ranged and len(s.ranged) == len(s.attackers):
        return 0  # NA to a solely Ranged attack (8.352B, 14.7)
    return s.ctx.state.rubble.get(s.area, 0)


def _date(s: Spec) -> int:
    """8.352F from the calendar's ``german_dv_bonus`` steps."""
    if not s.german_impulse:
        return 0
    board = s.ctx.board
    return board.by_date(board.calendar.german_dv_bonus, s.ctx.state.date)


DV_MODIFIERS: list[Modifier] = [
    Modifier("TEM", "8.352A", _tem),
    Modifier("Rubble", "8.352B", _rubble),
    Modifier("German night", "8.352C", lambda s: 1 if s.german_impulse and not s.day else 0),
    Modifier("Russian daylight", "8.352D", lambda s: 1 if not s.german_impulse and s.day else 0),
    Modifier("date", "8.352F", _date),
]


def halve_aa(s: Spec) -> bool:
    """8.352: AA in a Group with no non-AA unit, attacked from within the Area by a Group
    without AFV, defends with half its Defense Factor."""
    if s.ranged or any(s.ctx.d(u).kind == "armor" for u in s.attackers):
        return False
    return all(s.ctx.d(u).kind == "aa" for u in s.defenders)


def defense_factor(ctx: Ctx, uid: str, halve: bool) -> int:
    """The side up's Defense Factor, lowered by isolation (12.21, never below 0), then
    halved for AA without support (8.352: the halving is of the reduced factor)."""
    d = ctx.d(uid)
    value = d.defense if ctx.fresh(uid) else d.spent_defense
    value = max(0, value - ctx.isolation_cut(uid))
    if halve and d.kind == "aa":
        value //= 2
    return value


def offense(s: Spec) -> tuple[int, list[tuple[str, int]]]:
    lead = max(s.ctx.attack_factor(u) or 0 for u in s.attackers
               if s.ctx.d(u).numeric_attack)
    parts = [("lead Attack Factor", lead)]
    parts += [(m.name, m.value(s)) for m in OV_MODIFIERS]
    return sum(v for _, v in parts), [(n, v) for n, v in parts if v or n == "lead Attack Factor"]


def defense(s: Spec) -> tuple[int, list[tuple[str, int]]]:
    halve = halve_aa(s)
    top = max(defense_factor(s.ctx, u, halve) for u in s.defenders)
    parts = [("Defense Factor" + (" (AA halved)" if halve else ""), top)]
    parts += [(m.name, m.value(s)) for m in DV_MODIFIERS]
    return sum(v for _, v in parts), [(n, v) for n, v in parts if v or n.startswith("Defense")]


def rubble_defense(s: Spec) -> tuple[int, list[tuple[str, int]]]:
    """14.6 A-E: the DV of Rubble attacked by Engineers."""
    ctx, side, area = s.ctx, s.side, s.area
    parts = [("Rubble level", ctx.state.rubble.get(area, 0)),
             ("enemy-controlled", 1 if ctx.controller(area) == other(side) else 0),
             ("enemy Combat unit", 1 if ctx.enemy(area, side) else 0),
             ("Fresh enemy Combat unit", 1 if ctx.fresh_enemy(area, side) else 0)]
    return sum(v for _, v in parts), [(n, v) for n, v in parts if v or n == "Rubble level"]


def rubble_offense(s: Spec) -> tuple[int, list[tuple[str, int]]]:
    lead = max(s.ctx.attack_factor(u) or 0 for u in s.attackers)
    parts = [("lead Attack Factor", lead), ("extra Engineers", len(s.attackers) - 1),
             ("different Parent", _parents(s))]
    return sum(v for _, v in parts), [(n, v) for n, v in parts if v or n.startswith("lead")]


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
        return costs.attack_rubble[min(max(ctx.state.rubble.get(area, 0), 1), 2) - 1]
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
        return RuleError("8.24", f"{uid} is Artillery, not a Combat unit: it does not attack")
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


# ---- resolution --------------------------------------------------------------------------------


def capacity(ctx: Ctx, units: Sequence[str]) -> int:
    """Most CP a Group can pay: 3 per Fresh unit, 2 per Spent unit (8.354)."""
    cp = ctx.board.tables.casualty_points
    return sum(cp.eliminate_fresh if ctx.fresh(u) else cp.eliminate_spent for u in units)


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
            ctx.eliminate(uid, "8.36", "Overrun")
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
            ctx.update_control(act.came_from)
            rout_on(ctx, uid, battle.area, act.came_from)
    ctx.update_control(battle.area)


def rout_on(ctx: Ctx, uid: str, src: str, here: str) -> None:
    """7.1/8.355: a Routed unit may not stop in an Area it would overfill; it retreats on
    by the priorities (8.3551, the first Area they allow), or is eliminated."""
    side = ctx.side_of(uid)
    visited = {src, here}
    while ctx.full(here, side):
        choices, _ = retreat_options(ctx, side, here, visited)
        if not choices:
            ctx.eliminate(uid, "8.355", "Routed into a full Area with no retreat open")
            return
        nxt = choices[0]
        ctx.place(uid, nxt)
        ctx.update_control(here)
        ctx.update_control(nxt)
        ctx.emit("retreat", f"{uid} cannot stop in the full {ctx.name(here)}: on to "
                 f"{ctx.name(nxt)}", "8.355", units=[uid], area=nxt, **{"from": here})
        visited.add(nxt)
        here = nxt


def resolve_rubble(ctx: Ctx, battle: Battle, diff: int) -> None:
    """14.6: one layer per three (or fraction) points; more than the Rubble can lose is an
    Overrun."""
    level = ctx.state.rubble.get(battle.area, 0)
    per = ctx.board.tables.constants.rubble_removal_per_cp
    layers = math.ceil(diff / per) if diff > 0 else 0
    overrun = diff > per * level
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


def finish_battle(ctx: Ctx) -> None:
    """The attack is over: Control, Observers left alone (8.3556); then a Mistaken Attack's
    German losses (17.3)."""
    battle = ctx.state.battle
    ctx.state.battle = None
    ctx.state.pending = None
    if battle is None:
        return
    ctx.update_control(battle.area)
    sweep_observers(ctx)
    cp = battle.plan.get("mistaken")
    if isinstance(cp, int) and cp > 0:
        from adjudicator.stalingrad.bombardment import start_mistaken

        start_mistaken(ctx, cp, battle.area)


# ---- the defender's losses -----------------------------------------------------------------------


def tied_highest(ctx: Ctx, battle: Battle, defenders: Sequence[str]) -> list[str]:
    halve = bool(battle.plan.get("halve"))
    top = max(defense_factor(ctx, u, halve) for u in defenders)
    return sorted(u for u in defenders if defense_factor(ctx, u, halve) == top)


def ask_first_loss(ctx: Ctx, battle: Battle, defenders: Sequence[str]) -> None:
    """8.354: at least one CP from the highest Defense Factor unit, attacker's choice on
    ties."""
    tied = tied_highest(ctx, battle, defenders)
    if len(tied) > 1 and battle.cp < capacity(ctx, defenders):
        options = sorted(tied, key=lambda u: (-(ctx.d(u).attack or 0), u))
        battle.stage = "tie"
        ctx.state.pending = PendingDecision(
            kind="tie", side=battle.side, rule="8.354",
            prompt=f"{len(tied)} defenders in {ctx.name(battle.area)} share the highest "
                   "Defense Factor: which must take the first Casualty Point?",
            options=tuple(Option(order=f"decide tie {u}", label=unit_label(ctx, u))
                          for u in options),
            default=f"decide tie {options[0]}",
            data={"area": battle.area, "units": options},
        )
        return
    battle.first_loss = tied[0]
    ask_casualties(ctx, battle)


def unit_label(ctx: Ctx, uid: str) -> str:
    d = ctx.d(uid)
    attack = "*" if d.attack is None else str(d.attack)
    factors = f"{attack}-{d.defense}-{d.mf}" if ctx.fresh(uid) else f"spent {d.spent_defense}"
    return f"{uid} {d.name or d.kind} {factors}".strip()


def ask_casualties(ctx: Ctx, battle: Battle) -> None:
    battle.stage = "casualties"
    defenders = [u for u in battle.defenders if ctx.loc(u) == battle.area]
    options: list[str] = []
    for policy in CASUALTY_POLICIES:
        text = FMT(allocate(ctx, battle, policy))
        if text not in options:
            options.append(text)
    default = options[0]
    side = other(battle.side)
    ctx.state.pending = PendingDecision(
        kind="casualties", side=side, rule="8.354",
        prompt=f"{battle.cp} Casualty Point(s) in {ctx.name(battle.area)}; at least one from "
               f"{battle.first_loss}. Disrupt (Fresh, 1), retreat (Spent 1, Fresh 2), "
               "eliminate (Spent 2, Fresh 3); voluntary retreats may be added",
        options=tuple(Option(order=o, label=o.removeprefix("decide casualties ")) for o in options),
        default=default,
        data={"area": battle.area, "cp": battle.cp, "first_loss": battle.first_loss,
              "group": defenders},
    )


def ask_voluntary(ctx: Ctx, battle: Battle, defenders: Sequence[str]) -> None:
    """8.3554: the defending Group may retreat voluntarily even without a CP."""
    side = other(battle.side)
    alive = [u for u in defenders if ctx.loc(u) == battle.area]
    if not alive or not retreat_options(ctx, side, battle.area, set())[0]:
        finish_battle(ctx)
        return
    battle.stage = "voluntary"
    every = FMT(Casualties(voluntary=tuple(alive)))
    ctx.state.pending = PendingDecision(
        kind="voluntary", side=side, rule="8.3554",
        prompt=f"the attack on {ctx.name(battle.area)} failed: retreat voluntarily "
               "(Duration +1), or stay?",
        options=(Option(order="decide casualties none", label="stay"),
                 Option(order=every, label="retreat the whole Group")),
        default="decide casualties none",
        data={"area": battle.area, "group": alive},
    )


CASUALTY_POLICIES = ("disrupt-first", "hold", "retreat")


def cp_value(ctx: Ctx, uid: str, action: str) -> int:
    """8.354 (the pack's ``casualty_points``): what ``action`` on ``uid`` pays — Disrupt a
    Fresh unit 1; retreat a Spent unit 1 (a Fresh one is Disrupted first: 1 + 1);
    eliminate a Spent unit 2, a Fresh one 3."""
    cp = ctx.board.tables.casualty_points
    fresh = ctx.fresh(uid)
    if action == "disrupt":
        return cp.disrupt_fresh if fresh else 0
    if action == "retreat":
        return cp.retreat_spent + (cp.disrupt_fresh if fresh else 0)
    if action == "eliminate":
        return cp.eliminate_fresh if fresh else cp.eliminate_spent
    return 0


def allocate(ctx: Ctx, battle: Battle, policy: str) -> Casualties:
    """A legal allocation of ``battle.cp`` by a standing policy.

    * ``disrupt-first``: Disrupt Fresh units (the first-loss unit first), then retreat,
      then eliminate the weakest — keeps units alive, may give ground.
    * ``hold``: Disrupt, then eliminate the weakest; never retreat.
    * ``retreat``: like ``disrupt-first``, and the rest of the Group retreats with them.
    """
    need = battle.cp
    area = battle.area
    units = [u for u in battle.defenders if ctx.loc(u) == area]
    first = battle.first_loss or units[0]
    halve = bool(battle.plan.get("halve"))
    order = [first, *sorted((u for u in units if u != first),
                            key=lambda u: (defense_factor(ctx, u, halve), u))]
    side = other(battle.side)
    can_retreat = policy != "hold" and bool(retreat_options(ctx, side, area, set())[0])
    ladders: dict[str, list[str]] = {}
    for u in units:
        if ctx.fresh(u):
            ladders[u] = ["none", "disrupt", "retreat", "eliminate"] if can_retreat \
                else ["none", "disrupt", "eliminate"]
        else:
            ladders[u] = ["none", "retreat", "eliminate"] if can_retreat else ["none", "eliminate"]
    rung = {u: 0 for u in units}

    def paid() -> int:
        return sum(cp_value(ctx, u, ladders[u][rung[u]]) for u in units)

    passes = 0
    while paid() < need:
        before = paid()
        # First pass: the first-loss unit, then the weakest; deeper passes: weakest first.
        for u in order if passes == 0 else [*order[1:], order[0]]:
            if rung[u] + 1 < len(ladders[u]):
                rung[u] += 1
            if paid() >= need:
                break
        passes += 1
        if paid() == before:
            break
    chosen = {u: ladders[u][rung[u]] for u in units}
    disrupt = tuple(u for u in units if chosen[u] == "disrupt")
    retreat = tuple(u for u in units if chosen[u] == "retreat")
    eliminate = tuple(u for u in units if chosen[u] == "eliminate")
    voluntary: tuple[str, ...] = ()
    if policy == "retreat" and can_retreat and retreat:
        voluntary = tuple(u for u in units if chosen[u] in ("none", "disrupt"))
    return Casualties(disrupt=disrupt, retreat=retreat, eliminate=eliminate, voluntary=voluntary)


def answer_tie(ctx: Ctx, unit: str) -> None:
    battle = ctx.state.battle
    pending = ctx.state.pending
    assert battle is not None and pending is not None
    uid = ctx.board.resolve_unit(unit)
    if uid not in pending.data["units"]:
        raise RuleError("8.354", f"{uid} is not one of the tied units", pending.option_orders())
    battle.first_loss = uid
    ctx.emit("tie", f"{battle.side} picks {uid} to take the first Casualty Point", "8.354",
             unit=uid)
    ask_casualties(ctx, battle)


def answer_casualties(ctx: Ctx, order: Casualties, dice: Dice) -> None:
    battle = ctx.state.battle
    assert battle is not None
    side = other(battle.side)
    area = battle.area
    group = [u for u in battle.defenders if ctx.loc(u) == area]

    def ids(values: tuple[str, ...]) -> list[str]:
        return ctx.own(side, values, "8.3541")

    disrupt, retreat, eliminate, voluntary = (ids(order.disrupt), ids(order.retreat),
                                              ids(order.eliminate), ids(order.voluntary))
    listed = [*disrupt, *retreat, *eliminate, *voluntary]
    for uid in listed:
        if uid not in group:
            raise RuleError("8.3541", f"{uid} is not in the attacked Group: all Casualty Points "
                            "come from the Group attacked", [FMT(allocate(ctx, battle, p))
                                                            for p in CASUALTY_POLICIES])
    if set(eliminate) & set(disrupt + retreat + voluntary):
        raise RuleError("8.354", "a unit eliminated to pay losses cannot also retreat")
    if set(retreat) & set(voluntary):
        raise RuleError("8.354", "a unit retreats once: list it under retreat or voluntary")
    spent_disrupt = [u for u in disrupt if not ctx.fresh(u)]
    if spent_disrupt:
        raise RuleError("8.354", f"only Fresh units can be Disrupted ({', '.join(spent_disrupt)})")
    cp = 0
    for uid in disrupt:
        cp += cp_value(ctx, uid, "disrupt") if uid not in retreat else 0
    for uid in retreat:
        cp += cp_value(ctx, uid, "retreat")
    for uid in eliminate:
        cp += cp_value(ctx, uid, "eliminate")
    need = battle.cp if battle.stage == "casualties" else 0
    legal = [FMT(allocate(ctx, battle, p)) for p in CASUALTY_POLICIES] if need else []
    if cp < need:
        raise RuleError("8.3541", f"that pays {cp} of {need} Casualty Points", legal)
    if need and battle.first_loss not in (*disrupt, *retreat, *eliminate):
        raise RuleError("8.354", f"at least one Casualty Point must come from "
                        f"{battle.first_loss}, the highest Defense Factor unit", legal)
    if not need and (disrupt or retreat or eliminate):
        raise RuleError("8.3554", "no Casualty Points are due: only voluntary retreats",
                        ["decide casualties none"])
    movers = sorted(set(retreat) | set(voluntary))
    dest: str | None = None
    if movers:
        choices, why = retreat_options(ctx, side, area, set())
        if order.to is not None:
            dest = ctx.area_key(order.to)
            if dest not in choices:
                raise RuleError("8.3551", f"{ctx.name(dest)} is not a legal retreat ({why})",
                                [f"to {c}" for c in choices])
        elif len(choices) == 1:
            dest = choices[0]
        elif not choices:
            dest = None
    # Apply the losses.
    for uid in eliminate:
        ctx.eliminate(uid, "8.354", "Casualty Points")
    penalties = ctx.board.tables.disruption
    for uid in disrupt:
        if uid not in retreat:
            ctx.disrupt(uid, penalties.defender_casualty)
    for uid in retreat:
        ctx.disrupt(uid, penalties.defender_casualty)  # 8.354 / 10.5: CP paid
    for uid in voluntary:
        if ctx.fresh(uid):
            ctx.disrupt(uid, penalties.voluntary_retreat)  # 10.5: Fresh units retreating
        else:
            ctx.extend(uid, penalties.voluntary_retreat)  # 8.3554: one more date (10.8)
    ctx.emit("casualties", f"{side} pays {cp} CP in {ctx.name(area)}: {FMT(order)}", "8.354",
             area=area, cp=cp, disrupt=disrupt, retreat=retreat, eliminate=eliminate,
             voluntary=voluntary)
    if not movers:
        finish_battle(ctx)
        return
    battle.plan["movers"] = movers
    if dest is None:
        choices, _ = retreat_options(ctx, side, area, set())
        if not choices:
            for uid in movers:
                ctx.eliminate(uid, "8.355", "no Area open to retreat")
            finish_battle(ctx)
            return
        battle.stage = "retreat"
        ctx.state.pending = PendingDecision(
            kind="retreat", side=side, rule="8.3551",
            prompt=f"retreat {', '.join(movers)} from {ctx.name(area)}: the priorities leave a "
                   "choice",
            options=tuple(Option(order=f"decide retreat {c}", label=ctx.name(c))
                          for c in choices),
            default=f"decide retreat {choices[0]}",
            data={"area": area, "units": movers, "choices": choices},
        )
        return
    if do_retreat(ctx, side, movers, area, dest, dice):
        finish_battle(ctx)


def answer_retreat(ctx: Ctx, area_text: str, dice: Dice) -> None:
    battle = ctx.state.battle
    pending = ctx.state.pending
    assert battle is not None and pending is not None
    dest = ctx.area_key(area_text)
    if dest not in pending.data["choices"]:
        raise RuleError("8.3551", f"{ctx.name(dest)} is not a legal retreat",
                        pending.option_orders())
    side = other(battle.side)
    src = str(pending.data.get("from", battle.area))
    visited = {str(v) for v in pending.data.get("visited", [])}
    ctx.state.pending = None
    if do_retreat(ctx, side, list(pending.data["units"]), src, dest, dice, visited):
        finish_battle(ctx)


def answer_overflow(ctx: Ctx, units: tuple[str, ...], dice: Dice) -> None:
    """8.3553: the owner names the units that continue the retreat; the rest stay."""
    battle = ctx.state.battle
    pending = ctx.state.pending
    assert battle is not None and pending is not None
    side = other(battle.side)
    group = [str(u) for u in pending.data["units"]]
    going = ctx.own(side, units, "8.3553")
    need = len(group) - int(pending.data["stay"])
    strays = [u for u in going if u not in group]
    if strays or len(set(going)) != need:
        raise RuleError("8.3553", f"name exactly {need} of {', '.join(group)} to continue the "
                        f"retreat (the maximum number must stay)", pending.option_orders())
    area = str(pending.data["area"])
    staying = [u for u in group if u not in going]
    ctx.state.pending = None
    ctx.emit("retreat", f"{', '.join(staying)} stay(s) in {ctx.name(area)}; "
             f"{', '.join(sorted(going))} continue(s) the retreat", "8.3553", units=staying,
             area=area, going=sorted(going))
    visited = {str(v) for v in pending.data["visited"]}
    if continue_retreat(ctx, side, sorted(going), area, dice, visited):
        finish_battle(ctx)


# ---- retreats ------------------------------------------------------------------------------------


def retreat_options(ctx: Ctx, side: str, src: str, visited: set[str]) -> tuple[list[str], str]:
    """Areas open to a retreat from ``src``, best priority only (8.3551)."""
    enemy = other(side)
    ranked: list[tuple[tuple[int, int], str]] = []
    for key in sorted(ctx.board.adjacent(src)):
        if key in visited or key == src:
            continue
        has_enemy = ctx.enemy(key, side)
        has_friend = bool(ctx.combat(key, side))
        mine = ctx.controller(key) == side
        if mine and not has_enemy:
            around = sum(1 for n in ctx.board.adjacent(key) if ctx.controller(n) == enemy)
            ranked.append(((0, around), key))
        elif mine and has_enemy and has_friend:
            ranked.append(((1, 0), key))
        elif not mine and has_enemy and has_friend:
            ranked.append(((2, 0), key))
        elif not mine and not has_enemy:
            ranked.append(((3, 0), key))
    if not ranked:
        return [], "no Area is open to retreat"
    best = min(rank for rank, _ in ranked)
    names = {0: "A: Free Area", 1: "B: friendly-controlled Contested Area",
             2: "C: enemy-controlled Contested Area", 3: "D: Vacant enemy-controlled Area"}
    return [key for rank, key in ranked if rank == best], f"priority {names[best[0]]}"


def do_retreat(ctx: Ctx, side: str, movers: list[str], src: str, dest: str, dice: Dice,
               visited: set[str] | None = None) -> bool:
    """Move a retreating Group (8.3553 unison) and roll its dangers (14.5, 8.3552).

    Returns False when a decision was left pending (which units continue out of a full
    Area, 8.3553; where a continued retreat goes, 8.3551), True when the retreat is over.
    """
    visited = set(visited or ()) | {src}
    survivors: list[str] = []
    enemies = len(ctx.combat(dest, other(side)))
    for uid in sorted(movers):
        if ctx.loc(uid) != src:
            continue
        level = ctx.state.rubble.get(dest, 0)
        if level and ctx.d(uid).mechanized:
            drm = rubble_drm(ctx, side, dest)
            roll = dice.roll(f"Rubble Entrance DR ({uid} retreating into {dest})")
            need = rubble_need(ctx, level)
            failed = roll.total + drm < need
            offer_reroll(ctx, dice, roll, loser=side if failed else other(side))
            if failed:
                ctx.eliminate(uid, "14.5", f"failed Rubble Entrance DR {roll.total}+{drm}")
                continue
        if enemies:
            friendly = ctx.controller(dest) == side
            roll = dice.roll(f"Contested retreat {'DR' if friendly else 'dr'} ({uid} into {dest})",
                             count=2 if friendly else 1)
            lost = roll.total <= enemies
            offer_reroll(ctx, dice, roll, loser=side if lost else other(side))
            if lost:
                ctx.eliminate(uid, "8.3552", f"Contested retreat roll {roll.total} <= {enemies}")
                continue
        survivors.append(uid)
    room = len(survivors) if ctx.zone(dest) \
        else max(0, ctx.board.max_stack - len(ctx.combat(dest, side)))
    # 7.1: the limit may be exceeded while a retreat passes through an Area.
    for uid in survivors:
        ctx.place(uid, dest)
    ctx.update_control(src)
    ctx.update_control(dest)
    if not survivors:
        return True
    if len(survivors) <= room:
        ctx.emit("retreat", f"{', '.join(survivors)} retreat(s) from {ctx.name(src)} to "
                 f"{ctx.name(dest)}", "8.355", units=survivors, area=dest, **{"from": src})
        return True
    visited.add(dest)
    if room == 0:
        ctx.emit("retreat", f"{', '.join(survivors)} retreat(s) through {ctx.name(dest)}, "
                 "already holding ten", "8.355", units=[], area=dest, going=survivors,
                 **{"from": src})
        return continue_retreat(ctx, side, survivors, dest, dice, visited)
    ctx.emit("retreat", f"{', '.join(survivors)} retreat(s) from {ctx.name(src)} to "
             f"{ctx.name(dest)}, which has room for {room}", "8.3553", units=survivors,
             area=dest, **{"from": src})
    ask_overflow(ctx, side, survivors, dest, room, visited)
    return False


def overflow_choices(ctx: Ctx, units: Sequence[str], stay: int) -> tuple[list[str], list[str]]:
    """(strongest stay, weakest stay): the units that continue under each standing policy."""
    ranked = sorted(units, key=lambda u: (-defense_factor(ctx, u, False), u))
    going = len(units) - stay
    return sorted(ranked[stay:]), sorted(ranked[:going])


def ask_overflow(ctx: Ctx, side: str, units: list[str], area: str, stay: int,
                 visited: set[str]) -> None:
    """8.3553: the maximum number stay; the owner chooses which continue."""
    strongest, weakest = overflow_choices(ctx, units, stay)
    options = [Option(order=FMT(Overflow(units=tuple(strongest))),
                      label="the strongest stay (the default)")]
    if weakest != strongest:
        options.append(Option(order=FMT(Overflow(units=tuple(weakest))),
                              label="the weakest stay"))
    ctx.state.pending = PendingDecision(
        kind="overflow", side=side, rule="8.3553",
        prompt=f"{ctx.name(area)} has room for {stay} of the {len(units)} retreating units "
               f"({', '.join(units)}): name the {len(units) - stay} that continue the retreat",
        options=tuple(options), default=options[0].order,
        data={"area": area, "units": units, "stay": stay, "visited": sorted(visited)},
    )


def continue_retreat(ctx: Ctx, side: str, going: list[str], here: str, dice: Dice,
                     visited: set[str]) -> bool:
    """8.355: units that may not stop in a full Area retreat on, never re-entering an Area
    of this retreat, by the same priorities (8.3551) — the owner's choice on ties."""
    choices, why = retreat_options(ctx, side, here, visited)
    if not choices:
        for uid in going:
            ctx.eliminate(uid, "8.355", "no Area open to continue the retreat")
        return True
    if len(choices) == 1:
        return do_retreat(ctx, side, going, here, choices[0], dice, visited)
    ctx.state.pending = PendingDecision(
        kind="retreat", side=side, rule="8.3551",
        prompt=f"{', '.join(going)} continue the retreat from {ctx.name(here)} ({why}): "
               "the priorities leave a choice",
        options=tuple(Option(order=f"decide retreat {c}", label=ctx.name(c)) for c in choices),
        default=f"decide retreat {choices[0]}",
        data={"area": here, "from": here, "units": going, "choices": choices,
              "visited": sorted(visited)},
    )
    return False


def drop_dead(ctx: Ctx, units: Sequence[str]) -> list[str]:
    return [u for u in units if ctx.loc(u) != DEAD]
