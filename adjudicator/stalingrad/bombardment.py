"""Attacks by Artillery and aircraft alone: German Observers (15.2-15.25), the Luftwaffe's
Stuka attacks with Mistaken Attack (17.2-17.3), Russian Artillery attacking alone (15.3),
and the Opening Bombardment of September 13 (20.4).

Such an attack is written like any other (``attack 35 fresh with g94:arko94``) with one
support unit. It is the impulse's action (15.2; 17.2 "in the same manner"): no other unit
moves or attacks in that impulse; two Observers of one Area may fire into one Area, one at
each Group; the Stuka attacks once per day by day (the Sawmill: odd dates only); a Russian
FAG attacks alone in its Quadrant an Area holding a Russian unit. The OV is the unit's
Attack Factor (15.23: no modifiers), the DV the strongest defender's Defense Factor plus the
TEM. German Artillery is Disrupted for Duration 4 whatever happens, the Stuka for Duration
1, the FAGs not at all (10.7, 15.3); German Artillery and air attacks make Rubble (14.2).

Dice order: the attacker's DR, the defender's DR, then a Counter-Battery dr for each FAG
(15.32); a Mistaken Attack's German losses follow the Russian's.
"""

from __future__ import annotations

from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.artillery import (
    SUPPORT,
    fag_covers,
    luftwaffe,
    observer_targets,
    strength,
)
from adjudicator.stalingrad.combat import group_units, roll_battle
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.movement import start_units
from adjudicator.stalingrad.odds import defense_factor
from adjudicator.stalingrad.orders import Attack, Bombard, Notation
from adjudicator.stalingrad.places import BOX
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN
from adjudicator.stalingrad.state import Act, Battle

KIND_NAMES = {"artillery": "Artillery", "air": "Luftwaffe", "fag": "Russian Artillery"}
OPENING = "opening"  # the impulse's fire kind once the Opening Bombardment is given (20.4)


def support_kind(ctx: Ctx, uid: str) -> str:
    return ctx.d(uid).kind


def luftwaffe_day(ctx: Ctx) -> bool:
    """17.22 by day; the Sawmill's rule 5: Stuka attacks on odd-numbered days only."""
    if not ctx.state.day:
        return False
    if ctx.state.options.get("luftwaffe_days") == "odd":
        return ctx.board.day_of(ctx.state.date).day % 2 == 1
    return True


def pick_group(ctx: Ctx, side: str, area: str, group: str | None, text: str) -> str:
    fresh = group_units(ctx, area, side, "fresh")
    spent = group_units(ctx, area, side, "spent")
    if group == "rubble":
        raise RuleError("15.23", "Artillery and aircraft attack a Group of Combat units, not "
                        "Rubble (only Engineers attack Rubble, 14.6)")
    if group is None:
        options = [g for g, units in (("fresh", fresh), ("spent", spent)) if units]
        if not options:
            raise RuleError("8.3", f"{ctx.name(area)} holds no enemy Combat units to attack")
        if len(options) > 1:
            raise RuleError("8.33", f"{ctx.name(area)} holds a Fresh and a Spent Group: name one",
                            [text.replace(f" {area} ", f" {area} {g} ", 1) for g in options])
        return options[0]
    if not (fresh if group == "fresh" else spent):
        raise RuleError("8.33", f"{ctx.name(area)} holds no {group} enemy Group")
    return group


def fire_error(ctx: Ctx, side: str, uid: str, area: str,
               opening: bool = False) -> RuleError | None:
    """Why ``uid`` may not fire at ``area`` now (the impulse aside), or None."""
    d = ctx.d(uid)
    unit = ctx.state.units[uid]
    if d.side != side:
        return RuleError("15.2", f"{uid} is not a {side} unit")
    if not unit.fresh:
        return RuleError("8.13", f"{uid} is Spent: only Fresh units attack"
                         + (" (the Luftwaffe attacks once per day, 17.22)"
                            if d.kind == "air" else ""))
    if area not in ctx.board.areas:
        return RuleError("8.3", f"unknown Area {area}")
    if d.kind == "artillery":
        imp = ctx.state.impulse
        act = imp.acts.get(uid) if imp is not None else None
        if act is not None and (act.path or act.mf):
            return RuleError("15.2", f"{uid} has moved this impulse: Observers may not move "
                             "and fire in the same impulse")
        if area not in observer_targets(ctx, uid):
            loc = ctx.loc(uid)
            if ctx.zone(area) or ctx.zone(loc):
                return RuleError("15.25", "fire into a Zone only by an Observer in that Zone "
                                 "(11.4)")
            if any(ctx.side_of(u) == side for u in ctx.units_at(area)):
                return RuleError("15.21", f"{ctx.name(area)} holds friendly units: an Observer "
                                 "may not fire into it")
            return RuleError("15.21", f"{ctx.name(area)} is out of {uid}'s range from "
                             f"{ctx.name(loc)}", observer_targets(ctx, uid)[:12])
    elif d.kind == "air":
        if not ctx.state.day:
            return RuleError("17.22", "the Luftwaffe attacks only in day impulses (16.2)")
        if not luftwaffe_day(ctx):
            return RuleError("Sawmill 5", "Stuka attacks are made only on odd-numbered days")
    elif d.kind == "fag":
        if opening:
            return RuleError("20.4", "the Opening Bombardment is German")
        if not fag_covers(ctx, uid, area):
            return RuleError("15.31", f"{uid} fires only into its own Quadrant "
                             f"({d.quadrant})")
        if not any(ctx.side_of(u) == RUSSIAN and ctx.d(u).combat for u in ctx.units_at(area)):
            return RuleError("15.3", "Russian Artillery attacking alone fires into an Area "
                             "holding a Russian unit")
    else:
        return RuleError("15.2", f"{uid} is not Artillery or aircraft")
    return None


def impulse_error(ctx: Ctx, uid: str, area: str) -> RuleError | None:
    """15.2: an Artillery/Air attack is the impulse's only action — one Area, at most two
    Observers of one Area (one per Group), the Stuka once."""
    imp = ctx.state.impulse
    if imp is None:
        return None
    kind = ctx.d(uid).kind
    others = [u for u, a in imp.acts.items() if ctx.d(u).kind not in SUPPORT
              or (imp.fire_kind is None and (a.path or a.mf))]
    if others or imp.ferried or imp.recrossed:
        return RuleError("15.2", "an Artillery or air attack replaces the impulse's movement "
                         "and attacks: other units have acted this impulse")
    if imp.fire_kind is None:
        return None
    if imp.fire_kind == OPENING:
        return RuleError("20.4", "the Opening Bombardment's attacks must be predesignated "
                         "although they are resolved one at a time: no further Artillery or "
                         "air attack joins this impulse")
    if imp.fire_kind != kind:
        return RuleError("15.2", f"this impulse is a {KIND_NAMES[imp.fire_kind]} attack")
    if uid in imp.fired:
        return RuleError("8.13", f"{uid} has already attacked this impulse")
    if kind == "air":
        return RuleError("17.22", "the Luftwaffe attacks once per day")
    if kind == "artillery":
        if area != imp.fire_area:
            return RuleError("15.2", f"German Artillery attacks one Area per impulse "
                             f"({ctx.name(str(imp.fire_area))})")
        limit = ctx.board.tables.artillery.observers_per_area
        if len(imp.fired) >= limit:
            return RuleError("15.2", f"no more than {limit} Artillery units from one Area "
                             "attack an Area in an impulse")
    return None


def do_fire(ctx: Ctx, side: str, order: Attack, dice: Dice) -> None:
    """An attack by one Observer, the Luftwaffe or one Russian FAG alone."""
    area = ctx.area_key(order.area)
    uids = ctx.own(side, order.units, "15.2")
    if ctx.state.battle is not None:
        raise RuleError("8.12", "finish the attack in progress first")
    if len(uids) != 1 or any(ctx.d(u).kind not in SUPPORT for u in uids):
        raise RuleError("15.2", "Artillery and aircraft attack alone, one unit per attack: "
                        "Combat units do not join them (two Observers attack the two Groups "
                        "in two attacks)")
    uid = uids[0]
    error = fire_error(ctx, side, uid, area) or impulse_error(ctx, uid, area)
    if error is not None:
        raise error
    group = pick_group(ctx, side, area, order.group, f"attack {area} with {uid}")
    imp = ctx.impulse
    if (area, group) in imp.attacked:
        raise RuleError("8.32", f"the {group} Group in {ctx.name(area)} has already been "
                        "attacked this impulse")
    kind = ctx.d(uid).kind
    if kind == "artillery":
        start_units(ctx, side, [uid], "15.2", firing=True)
    if imp.fire_kind is None:
        imp.fire_kind, imp.fire_area = kind, area
    declare(ctx, side, uid, area, group, dice)


def declare(ctx: Ctx, side: str, uid: str, area: str, group: str, dice: Dice) -> None:
    """Set up and roll one support attack (15.23)."""
    imp = ctx.impulse
    kind = ctx.d(uid).kind
    act = imp.acts.get(uid)
    if act is None:
        act = imp.acts[uid] = Act(start=ctx.loc(uid))
    act.attacked = act.done = True
    tables = ctx.board.tables
    # 15.1: one German Artillery attack every so many days: the Observer's Duration (10.7)
    act.penalty = {"artillery": tables.constants.german_artillery_interval_days,
                   "air": tables.disruption.aircraft}.get(kind, 0)
    act.stop = ("15.2", "has fired this impulse")
    imp.fired.append(uid)
    imp.attacked.append((area, group))
    if area not in imp.attacked_areas:
        imp.attacked_areas.append(area)
    defenders = group_units(ctx, area, side, group)
    top = max(defense_factor(ctx, u, False) for u in defenders)
    tem = ctx.board.area(area).tem
    value = strength(ctx, uid)
    ov_parts = [(f"{KIND_NAMES[kind]} Attack Factor", value)]
    dv_parts = [("Defense Factor", top), ("TEM", tem)]
    battle = Battle(area=area, group=group, side=side, kind=kind, attackers=[uid], ranged=[],
                    entering=[], defenders=defenders, ov=value, dv=top + tem,
                    ov_parts=ov_parts, dv_parts=dv_parts, plan={"halve": False},
                    fags=[uid] if kind == "fag" else [])
    ctx.state.battle = battle
    ctx.emit("attack", f"{side} {KIND_NAMES[kind]} attack on the {group} Group in "
             f"{ctx.name(area)} at {battle.ov}:{battle.dv} with {uid}", "15.23", area=area,
             group=group, ov=battle.ov, dv=battle.dv, odds=f"{battle.ov}:{battle.dv}",
             side=side, units=[uid], ranged_from=[], fire=kind,
             ov_parts=[list(p) for p in ov_parts], dv_parts=[list(p) for p in dv_parts])
    roll_battle(ctx, dice)


# ---- Mistaken Attack (17.3) ----------------------------------------------------------------------


# ---- the Opening Bombardment (20.4) --------------------------------------------------------------


def opening(ctx: Ctx) -> bool:
    """20.4: the first German impulse of September 13, before anything else in it."""
    state = ctx.state
    imp = state.impulse
    return (state.date == 0 and state.day and state.turn == GERMAN
            and state.german_impulses_today == 0
            and (imp is None or not (imp.acts or imp.attacked)))


def do_bombard(ctx: Ctx, side: str, order: Bombard, dice: Dice) -> None:
    """20.4: as many predesignated Artillery/Air attacks as the German wishes, no Area
    attacked twice, resolved one at a time (each may need the Russian's decisions)."""
    if side != GERMAN or not opening(ctx):
        raise RuleError("20.4", "the Opening Bombardment is the German's first impulse of "
                        "September 13, before any other action")
    strikes: list[tuple[str, str, str]] = []
    seen_areas: set[str] = set()
    seen_units: set[str] = set()
    for area_text, group_text, unit_text in order.strikes:
        area = ctx.area_key(area_text)
        uid = ctx.own(side, (unit_text,), "20.4")[0]
        if ctx.d(uid).kind not in ("artillery", "air"):
            raise RuleError("20.4", f"{uid} is not German Artillery or the Luftwaffe")
        if area in seen_areas:
            raise RuleError("20.4", f"{ctx.name(area)} may be attacked only once in the Opening "
                            "Bombardment")
        if uid in seen_units:
            raise RuleError("20.4", f"{uid} fires once")
        error = fire_error(ctx, side, uid, area, opening=True)
        if error is not None:
            raise error
        group = pick_group(ctx, side, area, group_text or None,
                           f"bombard {area} with {uid}")
        seen_areas.add(area)
        seen_units.add(uid)
        strikes.append((area, group, uid))
    if not strikes:
        raise RuleError("20.4", "name at least one attack")
    imp = ctx.impulse
    imp.fire_kind = OPENING  # Observers of any Area (no single origin, 20.4)
    ctx.emit("opening-bombardment", f"Opening Bombardment: {len(strikes)} attack(s): "
             + "; ".join(f"{u} on the {g} Group in {ctx.name(a)}" for a, g, u in strikes),
             "20.4", strikes=[list(s) for s in strikes])
    imp.queue = [list(s) for s in strikes[1:]]
    area, group, uid = strikes[0]
    declare(ctx, side, uid, area, group, dice)


def next_strike(ctx: Ctx, dice: Dice) -> None:
    """20.4: resolve the next predesignated attack once the previous one is over."""
    imp = ctx.state.impulse
    while imp is not None and imp.queue and ctx.state.battle is None \
            and ctx.state.pending is None:
        area, group, uid = imp.queue.pop(0)
        if not group_units(ctx, area, GERMAN, group):
            ctx.emit("opening-bombardment", f"{uid}: no {group} Group left in "
                     f"{ctx.name(area)}", "20.4", unit=uid, area=area)
            continue
        declare(ctx, GERMAN, uid, area, group, dice)


def bombard_targets(ctx: Ctx) -> list[tuple[str, list[str]]]:
    """20.4: the Fresh Observers (and the Luftwaffe, by day) with the Areas each may
    strike in the Opening Bombardment."""
    candidates = sorted(u for u, unit in ctx.state.units.items()
                        if ctx.d(u).side == GERMAN and ctx.d(u).kind == "artillery"
                        and unit.fresh and unit.loc in ctx.board.areas)
    air = luftwaffe(ctx)
    if air is not None and ctx.fresh(air) and luftwaffe_day(ctx):
        candidates.append(air)
    return [(uid, observer_targets(ctx, uid) if ctx.d(uid).kind == "artillery"
             else sorted(ctx.board.areas)) for uid in candidates]


def bombard_options(ctx: Ctx) -> list[str]:
    """Opening Bombardments the legal query offers: every Fresh Observer at its first
    target Area (no Area twice), with the Luftwaffe too."""
    if not opening(ctx):
        return []
    strikes: list[tuple[str, str, str]] = []
    used: set[str] = set()
    for uid, targets in bombard_targets(ctx):
        for area in targets:
            if area in used:
                continue
            groups = [g for g in ("fresh", "spent") if group_units(ctx, area, GERMAN, g)]
            if not groups:
                continue
            strikes.append((area, groups[0], uid))
            used.add(area)
            break
    if not strikes:
        return []
    return [Notation.format(Bombard(strikes=tuple(strikes))),
            Notation.format(Bombard(strikes=tuple(strikes[:1])))]


def fire_options(ctx: Ctx, side: str) -> list[str]:
    """Artillery/Air attacks the legal query offers now."""
    imp = ctx.state.impulse
    if imp is not None and (imp.fire_kind == OPENING or any(
            ctx.d(u).kind not in SUPPORT for u in imp.acts) or imp.ferried or imp.recrossed):
        return []
    out: list[str] = []
    units: list[str] = []
    if side == GERMAN:
        units = sorted(u for u, unit in ctx.state.units.items()
                       if ctx.d(u).side == GERMAN and ctx.d(u).kind == "artillery"
                       and unit.fresh and unit.loc in ctx.board.areas
                       and (imp is None or imp.origin in (None, unit.loc)))
        air = luftwaffe(ctx)
        if air is not None:
            units.append(air)
    else:
        units = sorted(u for u in ctx.units_at(BOX) if ctx.d(u).kind == "fag")
    for uid in units:
        if not ctx.fresh(uid):
            continue
        if ctx.d(uid).kind == "artillery":
            targets = observer_targets(ctx, uid)
        else:
            targets = sorted(ctx.board.areas)
        for area in targets:
            if fire_error(ctx, side, uid, area) or impulse_error(ctx, uid, area):
                continue
            for group in ("fresh", "spent"):
                if not group_units(ctx, area, side, group):
                    continue
                if imp is not None and (area, group) in imp.attacked:
                    continue
                out.append(f"attack {area} {group} with {uid}")
    return out


def is_fire(ctx: Ctx, order: Attack) -> bool:
    """Whether an attack order is an Artillery/Air attack (no Combat unit in it)."""
    kinds = set()
    for text in order.units:
        try:
            uid = ctx.board.resolve_unit(text)
        except RuleError:
            return False
        if uid not in ctx.board.units:
            return False
        kinds.add(ctx.d(uid).kind)
    return bool(kinds) and kinds <= SUPPORT and kinds != set()


