"""Artillery and air support shared by every attack (15, 17): strengths by date and time
of day, Observer ranges, the Russian FAG units' Quadrants, Counter-Battery (15.32, 15.33,
17.4), Refit (15.34), the Russian's artillery on defense, and Observers removed and
returned (15.22, 8.3556).

German Observers (kind ``artillery``) stand on the map; the Luftwaffe (``air``, 4.26) and
the four Russian Front Artillery Groups (``fag``, 5.3) stay in their printed boxes (``box``).
Their strengths come from the pack: an Observer's printed day and night Attack Factors
(15.24), the calendar's Luftwaffe (17.23) and FAG (15.3) steps.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from adjudicator.kernel.decisions import Option, PendingDecision
from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.advantage import offer_reroll
from adjudicator.stalingrad.board import area_key_order
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.places import BOX, OFF_MAP, REMOVED
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN, other
from adjudicator.stalingrad.state import Battle

#: Units that fire from outside the attacked Area without being Combat units.
SUPPORT = frozenset({"artillery", "air", "fag"})


def strength(ctx: Ctx, uid: str) -> int:
    """The Attack Factor a support unit fires with now: the Luftwaffe's and the FAGs' by
    date (17.23, 15.3; day or night alike for the FAGs), an Observer's day or night factor
    (15.24), lowered by isolation (12.21)."""
    board = ctx.board
    d = ctx.d(uid)
    if d.kind == "air":
        return board.by_date(board.calendar.luftwaffe, ctx.state.date)
    if d.kind == "fag":
        return board.by_date(board.calendar.fag, ctx.state.date)
    printed = d.attack if ctx.state.day or d.night_attack is None else d.night_attack
    return (printed or 0) - ctx.isolation_cut(uid)


def quadrants_of(ctx: Ctx, key: str) -> tuple[str, ...]:
    """15.31: an Area's Quadrant; a Zone's Quadrants (those its arrows lead into)."""
    info = ctx.board.areas.get(key)
    if info is None:
        return ()
    return info.quadrants or ((info.quadrant,) if info.quadrant else ())


def fag_covers(ctx: Ctx, fag: str, area: str) -> bool:
    """15.31: a FAG fires only into its own Quadrant."""
    return ctx.d(fag).quadrant in quadrants_of(ctx, area)


def fags_for(ctx: Ctx, area: str) -> list[str]:
    """The Fresh Russian FAG units whose Quadrant holds ``area``."""
    return sorted(u for u in ctx.units_at(BOX) if ctx.d(u).kind == "fag" and ctx.fresh(u)
                  and fag_covers(ctx, u, area))


def luftwaffe(ctx: Ctx) -> str | None:
    """The Luftwaffe unit, if the game has one (in its box)."""
    return next((u for u in sorted(ctx.units_at(BOX)) if ctx.d(u).kind == "air"), None)


def counter_battery_units(ctx: Ctx, fag: str) -> int:
    """15.33, 17.4: German Artillery in the FAG's Quadrant at the start of the impulse,
    Fresh or Spent, plus the Luftwaffe in daylight impulses."""
    quadrant = ctx.d(fag).quadrant
    imp = ctx.state.impulse
    count = 0
    for uid, unit in ctx.state.units.items():
        d = ctx.d(uid)
        if d.side != GERMAN or d.kind != "artillery":
            continue
        start = imp.acts[uid].start if imp is not None and uid in imp.acts else unit.loc
        if start not in OFF_MAP and quadrant in quadrants_of(ctx, start):
            count += 1
    if ctx.state.day and luftwaffe(ctx) is not None:
        count += 1
    return count


def roll_counter_battery(ctx: Ctx, battle: Battle, dice: Dice) -> None:
    """15.32: every use of Russian Artillery gives the German a Counter-Battery dr, the
    fifth die of the attack: a FAG is Disrupted (Duration 1) on a 1 or on a dr no higher
    than the Counter-Battery units in its Quadrant. Rolled with the attack (and anew with
    an Advantage reroll, 9.2); applied when the attack is resolved."""
    rolls = {}
    for fag in sorted(battle.fags):
        rolls[fag] = dice.roll(f"Counter-Battery dr ({fag})", count=1).total
    battle.plan["counter_battery"] = rolls


def apply_counter_battery(ctx: Ctx, battle: Battle) -> None:
    rolls = battle.plan.get("counter_battery") or {}
    for fag, dr in sorted(rolls.items()):
        units = counter_battery_units(ctx, fag)
        hit = dr <= ctx.board.tables.artillery.counter_battery_always or dr <= units
        ctx.emit("counter-battery", f"Counter-Battery dr {dr} vs {units} unit(s) in the "
                 f"{ctx.d(fag).quadrant} Quadrant: {fag} "
                 + ("is Disrupted (Duration 1)" if hit else "fires on"), "15.32",
                 unit=fag, dr=dr, units=units, disrupted=hit)
        if hit:
            ctx.disrupt(fag, ctx.board.tables.artillery.fag_counter_battery_duration)


def mistaken_cp(ctx: Ctx, battle: Battle) -> int:
    """17.3: a Stuka attack on an Area (not a Zone) also holding German Combat units with
    equal unmodified DRs costs the Germans the table's Casualty Points."""
    if battle.kind != "air" or battle.attack_dr != battle.defense_dr or ctx.zone(battle.area):
        return 0
    if not ctx.combat(battle.area, GERMAN):
        return 0
    return ctx.board.tables.mistaken_attack.casualty_points(battle.attack_dr)


# ---- the Russian's artillery on defense (15.3) --------------------------------------------------


def ask_defensive_fire(ctx: Ctx, battle: Battle) -> bool:
    """15.3: a German attack (not Air/Artillery) on Russian units lets the Russian add a
    Fresh FAG of the Quadrant to the DV; he answers before the dice."""
    if battle.side != GERMAN or battle.kind != "combat":
        return False
    fags = fags_for(ctx, battle.area)
    if not fags:
        return False
    battle.stage = "artillery"
    options = [Option(order=f"decide artillery {f}", label=f"add {f} "
                      f"(+{strength(ctx, f)}; Counter-Battery dr follows)") for f in fags]
    options.append(Option(order="decide artillery none", label="no artillery"))
    ctx.state.pending = PendingDecision(
        kind="artillery", side=RUSSIAN, rule="15.3",
        prompt=f"the German attacks {ctx.name(battle.area)} at {battle.ov}:{battle.dv}: add "
               "Russian Artillery to the defense?",
        options=tuple(options), default=options[0].order,
        data={"area": battle.area, "fags": fags},
    )
    return True


# ---- Refit (15.34) ----------------------------------------------------------------------------


def refit_error(ctx: Ctx, side: str, fag: str) -> RuleError | None:
    if side != RUSSIAN or ctx.d(fag).kind != "fag":
        return RuleError("15.34", f"{fag} is not a Russian Artillery (FAG) unit")
    unit = ctx.state.units[fag]
    if unit.loc != BOX:
        return RuleError("15.34", f"{fag} is not in play")
    if unit.fresh:
        return RuleError("15.34", f"{fag} is Fresh: only Disrupted Artillery is refitted")
    if unit.recover is not None:
        return RuleError("15.34", f"{fag} is still under its Duration marker: it may be "
                         "refitted once the marker is removed (at Dawn)")
    imp = ctx.state.impulse
    if imp is not None and (imp.acts or imp.ferried or imp.recrossed or imp.attacked):
        return RuleError("15.34", "Refit is the impulse's sole action")
    return None


def do_refit(ctx: Ctx, side: str, unit: str, dice: Dice) -> None:
    """15.34: a Refit dr of 1-2 (the pack's ``refit_max_dr``) returns the FAG to Fresh;
    either way the attempt is the Russian's whole impulse (the game then ends it)."""
    fag = ctx.board.resolve_unit(unit)
    if fag not in ctx.state.units:
        raise RuleError("15.34", f"{fag} is not in this game")
    error = refit_error(ctx, side, fag)
    if error is not None:
        raise error
    need = ctx.board.tables.constants.refit_max_dr
    roll = dice.roll(f"Refit dr ({fag})", count=1)
    ok = roll.total <= need
    offer_reroll(ctx, dice, roll, loser=other(side) if ok else side)  # 9.4
    if ok:
        state = ctx.state.units[fag]
        state.fresh, state.recover, state.marker = True, None, False
        ctx.changed()
    ctx.emit("refit", f"{fag} Refit dr {roll.total} vs 1-{need}: "
             + ("Fresh again" if ok else "still Disrupted"), "15.34", unit=fag, dr=roll.total,
             refitted=ok)
    imp = ctx.impulse
    imp.acted = True
    ctx.state.passes = 0


def fags_to_refit(ctx: Ctx) -> list[str]:
    return sorted(u for u in ctx.units_at(BOX) if ctx.d(u).kind == "fag"
                  and refit_error(ctx, RUSSIAN, u) is None)


def clear_fag_markers(ctx: Ctx) -> None:
    """6.32, 15.34: at Dawn the FAGs' Duration markers of the day come off; the unit stays
    Disrupted until refitted."""
    for uid in ctx.units_at(BOX):
        unit = ctx.state.units[uid]
        if ctx.d(uid).kind == "fag" and not unit.fresh and unit.recover is not None \
                and unit.recover <= ctx.state.date:
            unit.recover, unit.marker = None, False


# ---- Observers (15.21, 15.22, 8.3556) -----------------------------------------------------------


def observer_targets(ctx: Ctx, uid: str) -> list[str]:
    """15.21, 15.211, 15.212, 15.25: the Areas an Observer may fire into — adjacent ones,
    within two of Hill 126.3, within three of Hill 102 (counted through Areas), never one
    holding friendly units; from a Zone only that Zone (11.4, 15.25)."""
    loc = ctx.loc(uid)
    info = ctx.board.areas.get(loc)
    if info is None:
        return []
    if info.zone:
        return [loc]
    reach = {loc: 0}
    queue = deque([loc])
    while queue:
        key = queue.popleft()
        if reach[key] >= info.observation:
            continue
        for n in ctx.board.adjacent(key):
            if n not in reach and not ctx.zone(n):
                reach[n] = reach[key] + 1
                queue.append(n)
    side = ctx.side_of(uid)
    return sorted((k for k in reach if k != loc and not any(
        ctx.side_of(u) == side for u in ctx.units_at(k))), key=area_key_order)


def sweep_observers(ctx: Ctx) -> None:
    """8.3556: an Observer in an enemy-occupied Area without a friendly Combat unit is
    removed at once (it returns at the next Dawn, 15.22)."""
    observers = [u for u, unit in ctx.state.units.items() if unit.loc not in OFF_MAP
                 and ctx.d(u).kind == "artillery"]
    for uid in sorted(observers):
        loc = ctx.loc(uid)
        if loc in OFF_MAP:
            continue
        side = ctx.side_of(uid)
        if ctx.enemy(loc, side) and not ctx.combat(loc, side):
            remove_observer(ctx, uid, "8.3556")


def remove_observer(ctx: Ctx, uid: str, rule: str) -> None:
    """15.22: removed, to be placed again at the next Dawn as it was (Fresh or Spent)."""
    area = ctx.loc(uid)
    ctx.place(uid, REMOVED)
    ctx.state.units[uid].isolation = 0
    imp = ctx.state.impulse
    if imp is not None:
        imp.acts.pop(uid, None)
    ctx.emit("observer-removed", f"{uid} is removed from {ctx.name(area)}; it returns at "
             "the next Dawn (15.22)", rule, unit=uid, area=area)


def return_observers(ctx: Ctx, supplied: dict[str, bool]) -> None:
    """15.22: at Dawn a removed Observer is placed with a supplied unit of its Parent
    Organization in a friendly-controlled Area — the Area holding most such units, the
    lowest-numbered on ties — else in the first supplied, friendly-controlled Area (a German
    supply source first). A Contested Area stays friendly-controlled (7.4: Contesting "does
    not alter his opponent's Control"), so a Parent unit there counts; the fallback skips
    only an Area the Observer would leave again at once, enemy-occupied without a German
    Combat unit (8.3556)."""
    removed = sorted(u for u in ctx.units_at(REMOVED) if ctx.side_of(u) == GERMAN)
    if not removed:
        return
    board = ctx.board
    mine = [k for k in board.areas if ctx.controller(k) == GERMAN]
    for uid in removed:
        parent = ctx.d(uid).parent
        counts: dict[str, int] = {}
        for other_uid, ok in supplied.items():
            d = ctx.d(other_uid)
            where = ctx.loc(other_uid)
            if ok and d.side == GERMAN and d.combat and parent and d.parent == parent \
                    and where in mine:
                counts[where] = counts.get(where, 0) + 1
        if counts:
            dest = min(counts, key=lambda k: (-counts[k], area_key_order(k)))
        else:
            free = [k for k in mine if not ctx.enemy(k, GERMAN) or ctx.combat(k, GERMAN)]
            sources = [k for k in free if board.areas[k].supply == GERMAN]
            pool = sources or [k for k in free if any(
                ok and ctx.loc(u) == k for u, ok in supplied.items())]
            if not pool:
                continue  # nowhere to go yet: it waits for a later Dawn
            dest = min(pool, key=area_key_order)
        ctx.place(uid, dest)
        ctx.emit("observer-returns", f"{uid} returns to play in {ctx.name(dest)} (15.22)",
                 "15.22", unit=uid, area=dest)


def support_units(uids: Iterable[str], ctx: Ctx) -> list[str]:
    return [u for u in uids if ctx.d(u).kind in SUPPORT]
