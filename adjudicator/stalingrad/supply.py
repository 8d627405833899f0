"""Supply (12): tracing at Dawn, Isolation markers and their effects, Attrition.

12.1: units trace supply through friendly-controlled Areas to their side's supply sources —
the spaces with the side's supply symbol (German: Zones C-F; Russian: Zones A, B, G, H, the
Ferry Landings and Area 30), when the side controls them. Enemy Control blocks supply
through or from a space (even a Vacant one); contesting does not. A unit in an
enemy-controlled Area traces out of it into a neighbour that is in supply. In a scenario
played on part of the map (the Sawmill's rule 8) the Areas beyond the cut still feed supply
to the side their ID shape gives them (``supply_border`` in the state's settings).

12.2, 6.32: at Dawn, units that can trace lose their Isolation marker; isolated units
already under "-2" make an Attrition dr (12.22: 1-2 eliminates a Spent unit and Disrupts a
Fresh one for Duration 4); the others are marked "-1" or flipped to "-2". Duration markers
on isolated units stay until the unit is supplied and their colour comes round again;
isolated Spent units do not turn Fresh.

12.21: the printed Attack, Defense and Movement Factors of an isolated unit are one lower
under "-1" and two lower under "-2" (:func:`reduction`); doubled MF and the AA halving use the
reduced factor; isolated Spent units may not Regroup.

The pack's ``isolation`` table holds the reductions and the Attrition dr; its
``duration_markers`` table how many dates a marker's colour takes to come round.

Dice order at Dawn: one Attrition dr per unit under "-2" that is still out of supply, in
unit id order.
"""

from __future__ import annotations

from collections import deque

from adjudicator.kernel.dice import Dice
from adjudicator.stalingrad.advantage import offer_reroll
from adjudicator.stalingrad.artillery import remove_observer, return_observers
from adjudicator.stalingrad.board import Board
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.control import eliminate
from adjudicator.stalingrad.places import OFF_MAP
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN, SIDES, other
from adjudicator.stalingrad.state import StalingradState
from adjudicator.stalingrad.withdrawals import relieved as after_relief


def border_sources(state: StalingradState, side: str) -> set[str]:
    """Playable spaces next to an Area beyond a scenario's cut that feeds ``side``."""
    border = state.options.get("supply_border")
    if not isinstance(border, dict):
        return set()
    return {str(k) for k, sides in border.items() if side in sides}


def supply_reach(board: Board, state: StalingradState, side: str) -> set[str]:
    """The spaces in supply for ``side``: its controlled supply sources and every
    friendly-controlled space joined to one through friendly-controlled spaces (12.1)."""
    control = state.control
    mine = {k for k in board.areas if control.get(k, RUSSIAN) == side}
    seeds = {k for k in mine if board.areas[k].supply == side}
    seeds |= border_sources(state, side) & mine
    reach = set(seeds)
    queue = deque(seeds)
    while queue:
        key = queue.popleft()
        for n in board.adjacent(key):
            if n in mine and n not in reach:
                reach.add(n)
                queue.append(n)
    return reach


def traces(board: Board, state: StalingradState, side: str, loc: str,
           reach: set[str]) -> bool:
    """Whether a unit of ``side`` in ``loc`` can trace supply (12.1): from a space in
    supply, or out of an enemy-controlled Area into one (or into a border source)."""
    if loc in reach:
        return True
    if state.control.get(loc, RUSSIAN) == side:
        return False  # friendly-controlled but cut off
    if loc in border_sources(state, side):
        return True
    return any(n in reach for n in board.adjacent(loc))


def supplied_units(board: Board, state: StalingradState) -> dict[str, bool]:
    """Every on-map unit (Combat units and Observers) -> whether it traces supply now."""
    reach: dict[str, set[str]] = {side: supply_reach(board, state, side) for side in SIDES}
    out: dict[str, bool] = {}
    for uid, unit in state.units.items():
        if unit.loc in OFF_MAP or unit.loc not in board.areas:
            continue
        side = board.units[uid].side
        out[uid] = traces(board, state, side, unit.loc, reach[side])
    return out


def reduction(state: StalingradState, uid: str, board: Board) -> int:
    """12.21: how much an isolated unit's printed factors are lowered (0 when supplied)."""
    level = state.units[uid].isolation
    if level <= 0:
        return 0
    table = board.tables.isolation.factor_reduction
    return table[min(level, len(table)) - 1]


def dawn_supply(ctx: Ctx, dice: Dice) -> None:
    """6.32, 12.2, 12.22: the Dawn's supply check, before Spent units turn Fresh."""
    state = ctx.state
    board = ctx.board
    table = board.tables.isolation
    cycle = board.tables.duration_markers.colours
    supplied = supplied_units(board, state)
    relieved: list[str] = []
    newly: list[str] = []
    deeper: list[str] = []
    for uid in sorted(supplied):
        unit = state.units[uid]
        if supplied[uid]:
            if unit.isolation:
                unit.isolation = 0
                relieved.append(uid)
                after_relief(ctx, uid)  # 21.3
            continue
        # 12.22: Duration markers stay while isolated, until their colour comes round.
        if not unit.fresh and unit.recover is not None and unit.recover <= state.date:
            if unit.marker:
                while unit.recover <= state.date:
                    unit.recover += cycle
            else:
                unit.recover = state.date + 1
    if relieved:
        ctx.emit("supply", f"{len(relieved)} unit(s) in supply again: Isolation markers "
                 f"removed ({', '.join(relieved)})", "12.2", units=relieved)
    # 12.22: Attrition for units already under "-2" before the Russian Dawn impulse.
    for uid in sorted(u for u, ok in supplied.items() if not ok
                      and state.units[u].isolation >= len(table.factor_reduction)):
        if state.units[uid].loc in OFF_MAP:
            continue
        side = ctx.side_of(uid)
        roll = dice.roll(f"Attrition dr ({uid})", count=1)
        lost = roll.total <= board.tables.constants.attrition_max_dr
        offer_reroll(ctx, dice, roll, loser=side if lost else other(side))  # 9.4
        unit = state.units[uid]
        if not lost:
            ctx.emit("attrition", f"{uid} Attrition dr {roll.total}: no effect", "12.22",
                     unit=uid, dr=roll.total, result="none")
        elif unit.fresh:
            ctx.disrupt(uid, board.tables.disruption.maximum)
            ctx.emit("attrition", f"{uid} Attrition dr {roll.total}: Disrupted (Duration 4)",
                     "12.22", unit=uid, dr=roll.total, result="disrupted")
        else:
            ctx.emit("attrition", f"{uid} Attrition dr {roll.total}: eliminated", "12.22",
                     unit=uid, dr=roll.total, result="eliminated")
            if ctx.d(uid).combat:
                eliminate(ctx, uid, "12.22", "Attrition")
            else:
                remove_observer(ctx, uid, "12.22")  # 15.22
    for uid in sorted(u for u, ok in supplied.items() if not ok):
        unit = state.units[uid]
        if unit.loc in OFF_MAP:
            continue
        if unit.isolation < len(table.factor_reduction):
            unit.isolation += 1
            (newly if unit.isolation == 1 else deeper).append(uid)
    if newly:
        ctx.emit("isolation", f"{len(newly)} unit(s) out of supply: Isolation -1 "
                 f"({', '.join(newly)})", "12.2", units=newly, level=1)
    if deeper:
        ctx.emit("isolation", f"{len(deeper)} unit(s) still out of supply: Isolation -2 "
                 f"({', '.join(deeper)})", "12.2", units=deeper,
                 level=max(ctx.state.units[u].isolation for u in deeper))
    ctx.changed()
    return_observers(ctx, supplied)  # 15.22


def german_vp_reach(board: Board, state: StalingradState) -> set[str]:
    """19.1: the German claims the Victory Points of the Areas he controls and can trace
    supply to."""
    return supply_reach(board, state, GERMAN)
