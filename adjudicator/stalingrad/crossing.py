"""Reinforcements (6.2, 18.1, 18.2), Ferry Landings (18.3), Interdiction (18.4), the
Crossing Table (18.5, 18.51, 18.52), Breakthrough (18.6) and Recrossing (18.7).

Dice order of a crossing: one Crossing DR per unit, in unit id order; a Mechanized unit
landing safely in a Rubbled Area then makes its Rubble Entrance DR.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from adjudicator.kernel.decisions import Decision, Option, PendingDecision
from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.advantage import offer_reroll
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.control import eliminate, update_control
from adjudicator.stalingrad.movement import (
    base_mf,
    entry_cost,
    rubble_entry,
    start_units,
)
from adjudicator.stalingrad.orders import Cross, Recross, Reinforce
from adjudicator.stalingrad.places import EAST, OFFBOARD, OUT, POOL
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN, other

GERMAN_ENTRY = ("C", "D", "E", "F")  # 6.2, 18.2
BREAKTHROUGH = ("A", "B", "G", "H")  # 18.6


# ---- the Reinforcement Phase ---------------------------------------------------------------


def german_entry_zones(ctx: Ctx) -> tuple[str, ...]:
    """6.2/18.2: Zones C-F (a scenario may name others: the Sawmill's Zone B)."""
    zones = ctx.state.options.get("entry_zones")
    return tuple(str(z) for z in zones) if isinstance(zones, list) else GERMAN_ENTRY


def reinforcement_phase(ctx: Ctx, dice: Dice | None = None) -> None:
    """6.2/18.1: this date's reinforcements become available. Russians wait on the east
    bank; the German places his in friendly-controlled Zones C-F (split as he likes), or
    delays them. A scenario may make each arrival roll first (the Sawmill's rule 6)."""
    state = ctx.state
    arriving: dict[str, list[str]] = {GERMAN: [], RUSSIAN: []}
    for uid, unit in state.units.items():
        arrival = ctx.d(uid).arrival
        if unit.loc == POOL and arrival is not None and arrival <= state.date:
            arriving[ctx.side_of(uid)].append(uid)
    limit = state.options.get("reinforcement_max_dr")
    if isinstance(limit, int) and dice is not None:
        for side in (GERMAN, RUSSIAN):
            kept = []
            for uid in sorted(arriving[side]):
                roll = dice.roll(f"reinforcement dr ({uid})", count=1)
                ok = roll.total <= limit
                offer_reroll(ctx, dice, roll, loser=other(side) if ok else side)
                ctx.emit("reinforcement-dr", f"{uid} reinforcement dr {roll.total}: "
                         + ("arrives" if ok else "is sent to another sector"),
                         "Sawmill 6", unit=uid, dr=roll.total, arrives=ok)
                if ok:
                    kept.append(uid)
                else:
                    ctx.place(uid, OUT)
            arriving[side] = kept
    for uid in sorted(arriving[RUSSIAN]):
        ctx.place(uid, EAST)
    if arriving[RUSSIAN]:
        ctx.emit("reinforcements", f"{len(arriving[RUSSIAN])} Russian reinforcement(s) reach "
                 "the east bank", "18.2", side=RUSSIAN, units=sorted(arriving[RUSSIAN]))
    german = sorted(arriving[GERMAN])
    if not german:
        return
    for uid in german:
        ctx.place(uid, OFFBOARD)
    zones = [z for z in german_entry_zones(ctx)
             if z in ctx.board.areas and ctx.controller(z) == GERMAN]
    if not zones:
        ctx.emit("reinforcements", "German reinforcements wait off the board: every entry "
                 "Zone is Russian-controlled", "6.2", side=GERMAN, units=german)
        return
    ask_reinforcements(ctx, german, zones, [])


def ask_reinforcements(ctx: Ctx, units: list[str], zones: list[str], used: list[str]) -> None:
    """The German's Reinforcement Phase decision (6.2, 18.2): all the units still to place
    in one Zone, some of them (``decide reinforcements UNITS in ZONE``, then the rest are
    asked again), or delay."""
    ctx.state.pending = PendingDecision(
        kind="reinforcements", side=GERMAN, rule="6.2",
        prompt=f"place {len(units)} German reinforcement(s) ({', '.join(units)}) in friendly "
               f"Zone(s) {', '.join(zones)} — all in one, or 'decide reinforcements UNITS in "
               "ZONE' to split them — or delay them",
        options=(*(Option(order=f"decide reinforcements {z}", label=f"all in Zone {z}")
                   for z in zones),
                 Option(order="decide reinforcements delay", label="keep them off the board")),
        default=f"decide reinforcements {zones[0]}",
        data={"units": units, "zones": zones, "used": used},
    )


def answer_reinforce(ctx: Ctx, zone: str | None, chosen: tuple[str, ...] = ()) -> None:
    pending = ctx.state.pending
    assert pending is not None
    units = list(pending.data["units"])
    zones = list(pending.data["zones"])
    used = list(pending.data.get("used", []))
    picked = ctx.own(GERMAN, chosen, "18.2") if chosen else units
    strays = [u for u in picked if u not in units]
    if strays:
        raise RuleError("18.2", f"{', '.join(strays)} not among the reinforcements to place",
                        pending.option_orders())
    key = None if zone is None else ctx.area_key(zone)
    if key is not None and key not in zones:
        raise RuleError("18.2", "German reinforcements are placed in a friendly-controlled Zone"
                        f" ({', '.join(zones)})", pending.option_orders())
    ctx.state.pending = None
    if key is None:
        ctx.emit("reinforcements", f"the German delays {len(picked)} reinforcement(s)", "6.2",
                 side=GERMAN, units=picked)
    else:
        for uid in picked:
            ctx.place(uid, key)
        ctx.emit("reinforcements", f"{len(picked)} German reinforcement(s) placed in Zone "
                 f"{key}", "18.2", side=GERMAN, units=picked, area=key)
        used = [*used, key] if key not in used else used
    rest = [u for u in units if u not in picked]
    if rest:
        ask_reinforcements(ctx, rest, zones, used)


def spread_answer(data: dict[str, object]) -> str:
    """Standing policy ``spread``: the units still to place, shared out over the friendly
    Zones not yet used this phase, in Zone order."""
    units = [str(u) for u in data["units"]]  # type: ignore[attr-defined]
    zones = [str(z) for z in data["zones"]]  # type: ignore[attr-defined]
    used = [str(z) for z in data.get("used", [])]  # type: ignore[attr-defined]
    free = [z for z in zones if z not in used] or zones[-1:]
    share = -(-len(units) // len(free))
    chunk = units[:share]
    if len(chunk) == len(units):
        return f"decide reinforcements {free[0]}"
    return f"decide reinforcements {' '.join(chunk)} in {free[0]}"


# ---- Interdiction (18.4) ------------------------------------------------------------------------


def max_ferry(ctx: Ctx) -> int:
    """18.3, 18.6, 18.7: units per impulse (the Crossing Table's limit in the pack)."""
    return ctx.board.tables.crossing.max_units_per_impulse


def category_points(ctx: Ctx, landing: str,
                    counts: Callable[[str], bool]) -> list[tuple[str, int]]:
    """18.4's categories A-C against ``landing``, the pack's Interdiction table deciding
    each category's points; ``counts(unit)`` says whether a German unit earns points (all
    of them, or only the supplied ones)."""
    table = ctx.board.tables.interdiction
    state = ctx.state
    mk = str(state.options.get("mamayev_kurgan", ctx.board.tables.constants.mamayev_kurgan))
    parts: list[tuple[str, int]] = []

    def present(area: str) -> bool:
        return any(counts(u) for u in ctx.combat(area, GERMAN))

    def best(category: str, met: list[str]) -> int:
        return max((table.points(category, c) for c in met), default=0)

    if mk in ctx.board.areas:
        observer = any(ctx.side_of(u) == GERMAN and ctx.d(u).kind == "artillery" and counts(u)
                       for u in ctx.units_at(mk))
        met = []
        if ctx.controller(mk) == GERMAN:
            met.append("control_observer" if observer else "control")
        elif present(mk):
            met.append("contest_observer" if observer else "contest")
        parts.append(("A Mamayev Kurgan", best("A", met)))
    banks = [k for k, a in ctx.board.areas.items() if a.river_bank and not a.zone]
    met = []
    if any(ctx.controller(k) == GERMAN for k in banks):
        met.append("control")
    if any(ctx.controller(k) != GERMAN and present(k) for k in banks):
        met.append("contest")
    parts.append(("B River Bank", best("B", met)))
    near = [k for k in ctx.board.adjacent(landing) if k in banks and k != landing]
    controls = sum(1 for k in near if ctx.controller(k) == GERMAN)
    contests = sum(1 for k in near if ctx.controller(k) != GERMAN and present(k))
    met = []
    if controls >= 2:
        met.append("control_both")
    if controls == 1 and contests:
        met.append("contest_one_control_other")
    if controls:
        met.append("control")
    if contests:
        met.append("contest")
    parts.append(("C Proximity to Landing", best("C", met)))
    return parts


def interdiction(ctx: Ctx, landing: str) -> tuple[int, list[tuple[str, int]]]:
    """18.4: the German Interdiction Points against a crossing at ``landing``.

    German units need not be supplied to earn points, but the points earned solely by
    isolated units are reduced by the table's ``isolated_only_reduction`` (one). Then a
    scenario's bonus (the Sawmill's rule 7) and the month penalty of the calendar."""
    state = ctx.state
    table = ctx.board.tables.interdiction

    def anyone(uid: str) -> bool:
        return True

    def supplied(uid: str) -> bool:
        return state.units[uid].isolation == 0

    everyone = category_points(ctx, landing, anyone)
    total = sum(v for _, v in everyone)
    parts = list(everyone)
    with_supply = sum(v for _, v in category_points(ctx, landing, supplied))
    if total > with_supply:
        cut = min(table.isolated_only_reduction, total - with_supply)
        parts.append(("earned solely by isolated units", -cut))
    bonus_from = state.options.get("mk_bonus_from")
    if isinstance(bonus_from, int) and state.date >= bonus_from:
        # The Sawmill's rule 7: an extra IP for Mamayev Kurgan from September 15 (the
        # Area itself lies outside the scenario's map).
        bonus = state.options.get("mk_bonus", 1)
        bonus = bonus if isinstance(bonus, int) else 1
        if parts and parts[0][0] == "A Mamayev Kurgan":
            parts[0] = (parts[0][0], parts[0][1] + bonus)
        else:
            parts.insert(0, ("A Mamayev Kurgan", bonus))
    month = ctx.board.by_date(ctx.board.calendar.interdiction, state.date)
    if month:
        parts.append(("month", month))
    parts = [(name, value) for name, value in parts if value or name[0] in "ABC"]
    return max(0, sum(v for _, v in parts)), parts


def crossing_result(ctx: Ctx, total: int) -> tuple[str, int]:
    """The Crossing Table (18.5, the pack's rows): (outcome, Duration)."""
    row = ctx.board.tables.crossing.result(total)
    if row.eliminated:
        return "eliminated", 0
    if not row.landed:
        return "returned", row.duration
    return ("landed-disrupted", row.duration) if row.duration else ("landed", 0)


# ---- crossing the Volga (18.3-18.6) --------------------------------------------------------------


def breakthrough_open(ctx: Ctx, zone: str) -> bool:
    """18.6: the Zone is Russian-controlled now and was during the last daylight impulse of
    the current date (by day: the current one; at night: as Sunset found it)."""
    if ctx.controller(zone) != RUSSIAN:
        return False
    return ctx.state.day or ctx.state.sunset_control.get(zone) == RUSSIAN


def do_cross(ctx: Ctx, side: str, order: Cross, dice: Dice) -> None:
    if side != RUSSIAN:
        raise RuleError("18.2", "German reinforcements enter through Zones C-F: "
                        "'move UNITS to C'")
    uids = ctx.own(side, order.units, "18.3")
    dest = ctx.area_key(order.to)
    info = ctx.board.areas.get(dest)
    if info is None:
        raise RuleError("18.3", f"unknown Area {dest}")
    breakthrough = info.zone and dest in BREAKTHROUGH and breakthrough_open(ctx, dest)
    if info.zone and not breakthrough and not info.ferry:
        raise RuleError("18.6", f"Breakthrough needs Zone {dest} Russian-controlled now and "
                        "during the last daylight impulse")
    if ctx.state.day and not breakthrough:
        raise RuleError("18.3", "barring a Breakthrough (18.6), Russian reinforcements cross "
                        "the Volga only at night")
    for uid in uids:
        if ctx.loc(uid) != EAST:
            raise RuleError("18.3", f"{uid} is not on the east bank")
        if not ctx.fresh(uid):
            raise RuleError("18.7", f"{uid} is Spent: it may not cross before its Disruption is "
                            "removed")
    start_units(ctx, side, uids, "18.5")
    imp = ctx.impulse
    if imp.ferry_area is not None and imp.ferry_area != dest:
        raise RuleError("18.3", f"all units crossing this impulse land in {imp.ferry_area}")
    if imp.ferried + len(uids) > max_ferry(ctx):
        raise RuleError("18.3", f"no more than three units per impulse ({imp.ferried} already)")
    if not breakthrough:
        if not info.ferry:
            raise RuleError("18.3", f"{ctx.name(dest)} has no Ferry Landing",
                            sorted(k for k, a in ctx.board.areas.items() if a.ferry))
        if ctx.controller(dest) != RUSSIAN:
            raise RuleError("18.3", f"{ctx.name(dest)} must be Russian-controlled to land")
    for uid in uids:
        cost, _ = entry_cost(ctx, uid, dest)
        if cost > base_mf(ctx, uid):
            raise RuleError("18.3", f"{uid} lacks the MF to land in {ctx.name(dest)}")
    imp.ferried += len(uids)
    imp.ferry_area = dest
    ip, parts = (0, []) if breakthrough else interdiction(ctx, dest)
    if not breakthrough:
        ctx.emit("interdiction", f"German Interdiction Points vs {ctx.name(dest)}: {ip}", "18.4",
                 ip=ip, parts=[list(p) for p in parts], area=dest)
    for uid in sorted(uids):
        act = ctx.act(uid)
        cost, _ = entry_cost(ctx, uid, dest)
        if breakthrough:
            land(ctx, uid, dest, cost, dice, "18.6")
            continue
        roll = dice.roll(f"Crossing DR ({uid} to {dest})")
        total = roll.total + ip * ctx.board.tables.crossing.drm_per_interdiction_point
        outcome, duration = crossing_result(ctx, total)
        offer_reroll(ctx, dice, roll, loser=GERMAN if outcome == "landed" else RUSSIAN)
        ctx.emit("crossing", f"{uid} Crossing DR {roll.total}+{ip} = {total}: {outcome}"
                 + (f" (Duration {duration})" if duration else ""), "18.5", unit=uid,
                 dr=roll.total, total=total, outcome=outcome, duration=duration, area=dest)
        if outcome == "eliminated":
            eliminate(ctx, uid, "18.5", "lost crossing the Volga")
            continue
        if outcome == "returned":
            act.done, act.penalty = True, duration
            act.stop = ("18.5", "was returned to the East Bank by the Crossing Table")
            continue
        if outcome == "landed-disrupted":
            if ctx.contested(dest) or ctx.enemy(dest, side) or ctx.full(dest, side, extra=1):
                act.done, act.penalty = True, duration  # 18.52: back to the east bank
                act.stop = ("18.52", "was Disrupted landing in a Contested or fully stacked "
                            "Area and returned to the East Bank")
                ctx.emit("crossing", f"{uid} returns to the east bank (18.52)", "18.52",
                         unit=uid)
                continue
            land(ctx, uid, dest, cost, dice, "18.51")
            act.done, act.stay, act.no_attack = True, True, True
            act.stop = ("18.51", "was Disrupted landing: it ends its move in the Landing Area "
                        "without attacking or fortifying")
            act.penalty = duration
            continue
        if ctx.enemy(dest, side) and ctx.full(dest, side, extra=1):
            # 7.1, 18.52: it would have to stop and attack in an Area it overfills.
            act.done = True
            act.stop = ("7.1", "landed in a fully stacked enemy-occupied Area where it could "
                        "not attack, and retraced to the East Bank")
            ctx.emit("crossing", f"{uid} cannot stop in the full {ctx.name(dest)}: it returns "
                     "to the east bank (7.1)", "7.1", unit=uid)
            continue
        land(ctx, uid, dest, cost, dice, "18.5")


def land(ctx: Ctx, uid: str, dest: str, cost: int, dice: Dice, rule: str) -> None:
    act = ctx.act(uid)
    side = ctx.side_of(uid)
    if not rubble_entry(ctx, uid, dest, dice, " landing"):
        act.done = True  # 18.5: retraces to the east bank
        act.stop = ("14.41", "failed its Rubble Entrance DR landing and retraced to the East "
                    "Bank")
        return
    act.mf += cost
    act.path.append(dest)
    if ctx.enemy(dest, side):
        act.entered, act.came_from, act.must_attack = dest, EAST, True
    ctx.place(uid, dest)
    update_control(ctx, dest)
    ctx.emit("land", f"{uid} lands in {ctx.name(dest)} ({cost} MF)", rule, unit=uid, area=dest,
             mf=act.mf)


def do_recross(ctx: Ctx, side: str, order: Recross, dice: Dice) -> None:
    """18.7: up to three units per night impulse back to the east bank, one MF each."""
    if side != RUSSIAN or ctx.state.day:
        raise RuleError("18.7", "only the Russian recrosses the Volga, at night")
    src = ctx.area_key(order.origin)
    info = ctx.board.areas.get(src)
    if info is None or not info.ferry or ctx.controller(src) != RUSSIAN:
        raise RuleError("18.7", f"{order.origin} is not a Russian-controlled Ferry Landing")
    uids = ctx.own(side, order.units, "18.7")
    imp = ctx.impulse
    if imp.recrossed + len(uids) > max_ferry(ctx):
        raise RuleError("18.7", "no more than three units per impulse recross")
    for uid in uids:
        if ctx.loc(uid) != src:
            raise RuleError("18.7", f"{uid} is not in {ctx.name(src)}")
    fresh = [u for u in uids if ctx.fresh(u)]
    spent = [u for u in uids if not ctx.fresh(u)]
    if fresh:
        start_units(ctx, side, fresh, "18.7")
    if spent:
        start_units(ctx, side, spent, "18.7", regroup=True)
    for uid in fresh:
        if ctx.act(uid).mf + ctx.board.tables.movement_costs.recross_mf > base_mf(ctx, uid):
            raise RuleError("18.7", f"{uid} lacks the MF to recross")
    imp.recrossed += len(uids)
    ip, _ = interdiction(ctx, src)
    for uid in sorted(uids):
        act = ctx.act(uid)
        if uid in spent:
            act.regroup = True
        else:
            act.mf += ctx.board.tables.movement_costs.recross_mf
            act.done = True
            act.stop = ("18.7", "recrossed the Volga")
        roll = dice.roll(f"Recrossing DR ({uid} from {src})")
        total = roll.total + ip * ctx.board.tables.crossing.drm_per_interdiction_point
        outcome, duration = crossing_result(ctx, total)
        offer_reroll(ctx, dice, roll, loser=GERMAN if outcome == "landed" else RUSSIAN)
        ctx.emit("recross", f"{uid} Recrossing DR {roll.total}+{ip} = {total}: {outcome}",
                 "18.7", unit=uid, dr=roll.total, total=total, outcome=outcome, area=src)
        if outcome == "eliminated":
            eliminate(ctx, uid, "18.7", "lost recrossing the Volga")
            continue
        if outcome != "returned":
            ctx.place(uid, EAST)
        if uid in spent:
            if duration:
                ctx.disrupt(uid, duration)
        else:
            act.penalty = max(duration, 1)
    update_control(ctx, src)


# ---- the reinforcements decision (6.2, 18.2), with its standing orders ----------------------


def _reinforcements_standing(ctx: Ctx, decision: PendingDecision, policy: str) -> str | None:
    if policy == "spread":
        return spread_answer(decision.data)
    return "decide reinforcements delay" if policy == "delay" else decision.default


REINFORCEMENTS: Decision[Ctx] = Decision(
    kind="reinforcements", verb="decide reinforcements", rule="6.2", answers=(Reinforce,),
    apply=lambda ctx, side, order, dice: answer_reinforce(
        ctx, cast(Reinforce, order).zone, cast(Reinforce, order).units),
    policies=(
        ("first-zone",
         "place German reinforcements in the first friendly Zone of C-F (the default)"),
        ("delay", "keep German reinforcements off the board"),
        ("spread", "share German reinforcements out over the friendly Zones of C-F"),
    ), standing=_reinforcements_standing)
