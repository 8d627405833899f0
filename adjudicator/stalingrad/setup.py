"""Prepare for play (5): Control markers (5.2), colour-coded free setup with the Russian
first (5.4-5.6), the historical setup (21.2) and the initial Rubble drs (5.7).

Dice order of the initial Rubble: one dr per white-Rubble-symbol Area, in Area order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.advantage import offer_reroll
from adjudicator.stalingrad.board import AreaInfo, Board, UnitDef, area_key_order
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.orders import Setup
from adjudicator.stalingrad.places import BOX, OFFBOARD, OUT, POOL
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN
from adjudicator.stalingrad.state import StalingradState, UnitState
from adjudicator.stalingrad.works import earn

SETUP = POOL  # units waiting to be set up share the pool with future reinforcements
#: 12.1 / 19.1: Germans trace supply to Zones C-F and start holding Zone H; the other
#: Zones are Russian. Used only when the pack gives a Zone no initial control.
ZONE_CONTROL = {"C": GERMAN, "D": GERMAN, "E": GERMAN, "F": GERMAN, "H": GERMAN}


def initial_control(info: AreaInfo) -> str:
    """5.2: German Control in square-ID Areas, Russian in the rest."""
    if info.control is not None:
        return info.control
    if info.zone:
        return ZONE_CONTROL.get(info.key, RUSSIAN)
    return GERMAN if info.id_shape == "square" else RUSSIAN


def on_start(d: UnitDef) -> bool:
    return d.arrival is None or d.arrival <= 0


#: Optional rules a game may be created with (22, 19.3, 21.2), by option key: the rule
#: number a scenario must list in its ``options`` to allow it, and what the value means.
OPTIONAL_RULES: dict[str, tuple[str, str]] = {
    "historical": ("21.2", "true: every unit at its historical Area instead of the free setup"),
    "tie_breaker": ("19.3", "the last week to be played (1-9): a tie then goes by the "
                    "Tie-Breaker number"),
    "bids": ("22.1", "true: secret bids for command of the Germans before play"),
    "cards": ("22.2", "true: two 36-card decks instead of the attack dice"),
    "feints": ("22.22", "true: each side secretly picks its card for every attack (with cards)"),
}


def allowed_options(spec: Any) -> dict[str, str]:
    """The optional rules a scenario allows (its ``options`` in scenarios.toml; 21.2 where
    it has both set-ups): key -> "rule: what it does"."""
    allowed = {ref.rule for ref in spec.options}
    if "free" in spec.setup_modes and "historical" in spec.setup_modes:
        allowed.add("21.2")
    return {key: f"{rule}: {text}" for key, (rule, text) in sorted(OPTIONAL_RULES.items())
            if rule in allowed}


def check_options(spec: Any, options: Mapping[str, Any], weeks: int) -> dict[str, Any]:
    """The players' optional rules, checked against what the scenario allows (its
    ``options`` in scenarios.toml; the Tie-Breaker's week one of the track's ``weeks``); a
    ValueError names what is wrong and what is allowed."""
    legal = sorted(allowed_options(spec))
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key not in legal:
            raise ValueError(f"option {key!r} is not available in {spec.key!r}; choose from "
                             + (", ".join(f"{k} ({OPTIONAL_RULES[k][0]}: "
                                          f"{OPTIONAL_RULES[k][1]})" for k in legal)
                                or "none"))
        if key == "tie_breaker":
            if isinstance(value, bool) or not isinstance(value, int) \
                    or not 1 <= value <= weeks:
                raise ValueError(f"option 'tie_breaker' is the last week to play, 1-{weeks} "
                                 "(19.3)")
        elif not isinstance(value, bool):
            raise ValueError(f"option {key!r} is true or false")
        out[key] = value
    if out.get("feints") and not out.get("cards"):
        out["cards"] = True  # 22.22 is a variation of 22.2
    return out


def scenario_settings(full: Board, spec: Any) -> dict[str, Any]:
    """What the rules read from a scenario record (scenarios.toml) during play."""
    settings: dict[str, Any] = {
        "box_step": spec.impulse_advance,
        "box_max": spec.impulse_max,
        "rubble_areas": [str(a) for a in spec.rubble_roll_areas],  # 5.7
        "victory": spec.victory,
        "final_tie": spec.final_tie,
        "last_date": (spec.end - spec.start).days,
    }
    if spec.sept13_automatic_sunset_after is not None:
        # The Sawmill's 4: Sunset after the German impulse on that space.
        settings["fixed_impulses"] = \
            (spec.sept13_automatic_sunset_after - 1) // spec.impulse_advance + 1
    elif spec.sept13_fixed_day_impulses is not None:
        settings["fixed_impulses"] = spec.sept13_fixed_day_impulses  # 20.2
    if spec.victory_vp is not None:
        settings["victory_vp"] = spec.victory_vp
    if spec.reinforcement_max_dr is not None:
        settings["reinforcement_max_dr"] = spec.reinforcement_max_dr
    if spec.german.entry_zones:
        settings["entry_zones"] = list(spec.german.entry_zones)
    entering = sorted({p.area for p in spec.russian.placements if p.when == "any_impulse"}
                      | set(spec.russian.entry_zones or ()))  # the Sawmill's 2; 21.3
    if entering:
        settings["russian_entry"] = entering
    if spec.luftwaffe_days != "all":
        settings["luftwaffe_days"] = spec.luftwaffe_days
    if spec.withdrawals:
        settings["withdrawals"] = True
    if spec.diminishing_daylight:
        settings["diminishing_daylight"] = True
    if spec.extension_units:
        settings["extension_units"] = True
    if spec.interdiction_bonus is not None:
        area, points, start = spec.interdiction_bonus
        settings["mamayev_kurgan"] = str(area)
        settings["mk_bonus"] = points
        settings["mk_bonus_from"] = (start - spec.start).days
    keys = full.playable.get(spec.key)
    if keys is not None and spec.supply_from_border_areas:
        # The Sawmill's 8: the Areas beyond the cut still feed supply to the side their ID
        # shape gives them (5.2): recorded against the playable spaces next to them.
        border: dict[str, list[str]] = {}
        for key, info in full.areas.items():
            if key in keys or info.zone:
                continue
            owner = initial_control(info)
            for n in full.adjacent(key):
                if n in keys and owner not in border.get(n, []):
                    border.setdefault(n, []).append(owner)
        settings["supply_border"] = {k: sorted(v) for k, v in sorted(border.items())}
    return settings


def initial_state(full: Board, scenario: str, options: Mapping[str, Any]) -> StalingradState:
    """A new game of a pack scenario: its settings, the players' optional rules, Control
    (5.2), the FAG and Luftwaffe boxes, and the units — set up freely by the players
    (5.4-5.6), at their historical Areas (21.2), or as the scenario places them (the
    Sawmill's 2); reinforcements the scenario does not use are ``out``."""
    spec = full.scenarios[scenario]
    chosen = check_options(spec, options, len(full.calendar.weeks))
    settings = scenario_settings(full, spec)
    settings.update(chosen)
    keys = full.playable.get(scenario)
    board = full.restricted(keys) if keys is not None else full
    state = StalingradState(scenario=scenario, options=settings)
    state.control = {k: initial_control(a) for k, a in board.areas.items()}
    historical = "free" not in spec.setup_modes or bool(chosen.get("historical"))
    placed: dict[str, str] = {}
    entering: set[str] = set()
    for side in (GERMAN, RUSSIAN):
        for placement in spec.side(side).placements:
            for pid in placement.units:
                if placement.when == "any_impulse":
                    entering.add(pid.lower())
                else:
                    placed[pid.lower()] = placement.area
    colours = {side: spec.side(side).colours for side in (GERMAN, RUSSIAN)}
    fags = spec.russian.fag
    last = settings["last_date"]
    extension = bool(settings.get("extension_units"))
    cutoff = (full.calendar.base_counters_until - full.calendar.first).days
    for uid, d in full.units.items():
        loc = POOL
        wanted = colours[d.side]
        if d.kind == "fag":
            loc = BOX if fags is None or d.quadrant in fags else OUT  # 5.3
        elif d.kind == "air":
            loc = BOX  # 4.26
        elif uid in entering:
            loc = OFFBOARD
        elif uid in placed:
            loc = placed[uid]
        elif on_start(d):
            if wanted is not None and not {c.split("-")[0] for c in d.setup} & set(wanted):
                loc = OUT
            elif historical:
                loc = d.historical or OUT
        elif d.arrival is None or d.arrival > last or (d.arrival > cutoff and not extension):
            loc = OUT  # 21.1: the extension counters only in the Long Game
        if loc not in (OUT, OFFBOARD, POOL, BOX) and loc not in board.areas:
            loc = OUT
        state.units[uid] = UnitState(loc=loc)
    state.phase = "rubble" if historical else "setup"
    if chosen.get("bids"):  # 22.1: the players bid for the Germans first
        state.options["after_bids"] = state.phase
        state.phase = "bids"
    return state


def setup_units(board: Board, state: StalingradState, side: str) -> list[str]:
    return sorted(u for u, d in board.units.items()
                  if d.side == side and on_start(d) and d.setup)


def matches(d: UnitDef, info: AreaInfo) -> bool:
    """5.4: same colour and shape; Germans on square IDs, Russians on circles/triangles."""
    if info.zone or info.id_colour in (None, "white"):
        return False
    shapes = ("square",) if d.side == GERMAN else ("circle", "triangle")
    if info.id_shape not in shapes:
        return False
    for code in d.setup:
        parts = code.lower().replace("_", "-").split("-")
        colour = parts[0]
        shape = parts[1] if len(parts) > 1 else None
        if colour == info.id_colour and (shape is None or shape == info.id_shape):
            return True
    return False


def do_setup(ctx: Ctx, side: str, order: Setup) -> None:
    area = ctx.area_key(order.area)
    info = ctx.board.area(area)
    uids = ctx.own(side, order.units, "5.4")
    for uid in uids:
        d = ctx.d(uid)
        if not on_start(d) or not d.setup:
            raise RuleError("5.4", f"{uid} is a reinforcement, not a starting unit")
        if info.id_colour in (None, "white"):
            raise RuleError("5.6", f"{ctx.name(area)} has a white ID: no units start there")
        if not matches(d, info):
            legal = sorted((k for k, a in ctx.board.areas.items() if matches(d, a)),
                           key=area_key_order)
            raise RuleError("5.4", f"{uid} ({', '.join(d.setup)}) does not match "
                            f"{ctx.name(area)} ({info.id_colour} {info.id_shape})", legal)
    if not setup_room(ctx, side, uids, area):
        raise RuleError("5.6", f"no more than ten Combat units may set up in {ctx.name(area)}")
    for uid in uids:
        ctx.place(uid, area)
    ctx.emit("setup", f"{side} sets up {', '.join(uids)} in {ctx.name(area)}", "5.4",
             area=area, units=uids)


def setup_room(ctx: Ctx, side: str, uids: Sequence[str], area: str) -> bool:
    """5.6: no more than ten Combat units set up in an Area."""
    combat = {*ctx.combat(area, side), *(u for u in uids if ctx.d(u).combat)}
    return len(combat) <= ctx.board.max_stack


def _room(ctx: Ctx, uid: str, area: str, side: str) -> bool:
    return setup_room(ctx, side, (uid,), area)


def setup_areas(board: Board, side: str) -> list[str]:
    """5.4, 5.6: the Areas whose ID colour and shape ``side`` sets up on, in key order."""
    shapes = ("square",) if side == GERMAN else ("circle", "triangle")
    return sorted((k for k, a in board.areas.items() if not a.zone
                   and a.id_colour not in (None, "white") and a.id_shape in shapes),
                  key=area_key_order)


def setup_gaps(ctx: Ctx, side: str) -> list[tuple[str, list[str]]]:
    """5.6: the side's free-setup Areas without a unit of their ID colour, each with the
    units that could fill it from an Area holding two or more matching units."""
    board = ctx.board
    keys = setup_areas(board, side)

    def mine(area: str) -> list[str]:
        return sorted(u for u in ctx.combat(area, side) if matches(ctx.d(u), board.area(area)))

    out = []
    for key in keys:
        info = board.area(key)
        if any(matches(ctx.d(u), info) for u in ctx.units_at(key) if ctx.side_of(u) == side):
            continue
        out.append((key, [u for k in keys if k != key and len(mine(k)) > 1
                          for u in mine(k) if matches(ctx.d(u), info)]))
    return out


def do_setup_auto(ctx: Ctx, side: str) -> None:
    """Place every starting unit of ``side`` not yet set up: at its historical Area
    (21.2) when that is a legal free-setup Area with room (5.4, 5.6), else in the matching
    Area with the fewest of the side's units; then make sure every matching Area holds at
    least one matching unit (5.6) by moving a unit from an Area that has two or more."""
    board = ctx.board
    waiting = [u for u in setup_units(board, ctx.state, side) if ctx.loc(u) == POOL]
    if not waiting:
        raise RuleError("5.4", f"every {side} starting unit is already set up", ["setup done"])
    keys = setup_areas(board, side)
    for uid in waiting:
        d = ctx.d(uid)
        home = d.historical
        if home in board.areas and matches(d, board.area(home)) and _room(ctx, uid, home, side):
            ctx.place(uid, home)
            continue
        fits = [k for k in keys if matches(d, board.area(k)) and _room(ctx, uid, k, side)]
        if not fits:
            raise RuleError("5.4", f"no Area matches {uid} ({', '.join(d.setup)}) with room")
        ctx.place(uid, min(fits, key=lambda k: (len(ctx.combat(k, side)), area_key_order(k))))
    for key, donors in setup_gaps(ctx, side):
        if donors:
            ctx.place(donors[0], key)
    ctx.emit("setup", f"{side} sets up {len(waiting)} unit(s) automatically; "
             "type 'setup done' to finish (or adjust with 'setup UNITS in AREA' first)",
             "5.4", units=waiting, auto=True)


def setup_done_error(ctx: Ctx, side: str) -> RuleError | None:
    """Why ``side`` may not finish its setup yet (5.4, 5.6), or None."""
    waiting = [u for u in setup_units(ctx.board, ctx.state, side) if ctx.loc(u) == POOL]
    if waiting:
        return RuleError("5.4", f"{len(waiting)} starting unit(s) not yet placed",
                         [f"setup {u} in AREA" for u in waiting[:12]])
    gaps = setup_gaps(ctx, side)
    if gaps:
        return RuleError("5.6", f"{ctx.name(gaps[0][0])} must contain at least one unit with "
                         "a matching ID colour")
    return None


def do_setup_done(ctx: Ctx, side: str) -> None:
    error = setup_done_error(ctx, side)
    if error is not None:
        raise error
    ctx.state.setup_done.append(side)
    ctx.emit("setup-done", f"{side} has finished setting up", "5.4", side=side)
    if GERMAN in ctx.state.setup_done and RUSSIAN in ctx.state.setup_done:
        ctx.state.phase = "rubble"


def do_rubble(ctx: Ctx, dice: Dice) -> None:
    """5.7: a dr per white-Rubble-symbol Area; Rubble 1 where dr + TEM reaches the pack's
    ``initial_rubble_threshold`` (7)."""
    listed = ctx.state.options.get("rubble_areas")
    keys = [str(k) for k in listed] if isinstance(listed, list) else \
        [k for k, a in ctx.board.areas.items() if a.rubble_symbol]
    need = ctx.board.tables.constants.initial_rubble_threshold
    for key in sorted(keys, key=area_key_order):
        tem = ctx.board.area(key).tem
        roll = dice.roll(f"initial Rubble dr ({key})", count=1)
        made = roll.total + tem >= need
        # 9.4: Rubble in the city's Areas hinders the German attacker.
        offer_reroll(ctx, dice, roll, loser=GERMAN if made else RUSSIAN, setup=True)
        if made:
            ctx.state.rubble[key] = 1
        ctx.emit("initial-rubble", f"{ctx.name(key)}: dr {roll.total} + TEM {tem}"
                 + (" -> Rubble 1" if made else ": no Rubble"), "5.7", area=key,
                 dr=roll.total, rubble=made)
    state = ctx.state
    state.phase = "play"
    state.turn = GERMAN
    ctx.emit("start", "the game begins: German impulse 1 of September 13", "6.1")
    earn(ctx)  # 13.2: September 13 counts
