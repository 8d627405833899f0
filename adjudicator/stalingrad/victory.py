"""Victory (19, 21.1, 22.12, the Sawmill's rule 3): the German's Victory Points and the
result at the end of each week (6.4).

19.1: the German scores the VP of every Victory Point Area (and Zone H) he controls and can
trace supply to at the end of the week. 19.2 (blue numbers, the Basic Game): fewer than the
week's blue number loses, more wins, equal plays on. 21.1 (red ranges, the Long Game): inside
the range (inclusive) the game plays on, below it the German loses, above it he wins. 19.3
(the Tie-Breaker option, or the last week of the track): a tie is decided by the
Tie-Breaker number — eliminated Russian units minus eliminated German units (the dead piles
at the end of the week) — against the week's small black number: greater, the German wins;
otherwise the Russian. 22.12: the winning side-determination bid is subtracted from the
German score before the comparison. The Sawmill (its rule 3): at least ``victory_vp`` at the
end of its one week wins for the German, else the Russian wins.

The result is recorded in the state (``state.result``); the service then marks the game
finished. Result texts begin with the winner: ``german wins: ...``, ``russian wins: ...``.
"""

from __future__ import annotations

from typing import Any

from adjudicator.stalingrad.board import Board, area_key_order
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.places import DEAD
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN
from adjudicator.stalingrad.state import StalingradState
from adjudicator.stalingrad.supply import supply_reach


def german_vp(board: Board, state: StalingradState) -> tuple[int, list[str]]:
    """19.1: the German's Victory Points now — the VP Areas/Zones he controls and can
    trace supply to — and those spaces, in key order."""
    reach = supply_reach(board, state, GERMAN)
    areas = sorted((k for k, a in board.areas.items()
                    if a.vp and state.control.get(k, RUSSIAN) == GERMAN and k in reach),
                   key=area_key_order)
    return sum(board.areas[k].vp for k in areas), areas


def bid(state: StalingradState) -> int:
    """22.12: the successful side-determination bid (0 without the option)."""
    value = state.options.get("german_bid", 0)
    return value if isinstance(value, int) else 0


def tie_breaker(board: Board, state: StalingradState) -> int:
    """19.3: eliminated Russian units minus eliminated German units, counted in the dead
    piles (a Russian armor unit taken back as a replacement counts only if eliminated
    again)."""
    dead = {GERMAN: 0, RUSSIAN: 0}
    for uid, unit in state.units.items():
        if unit.loc == DEAD:
            dead[board.units[uid].side] += 1
    return dead[RUSSIAN] - dead[GERMAN]


def last_week(ctx: Ctx) -> int:
    """The last week to be played: the Tie-Breaker option's week (19.3), else the week of
    the scenario's last date (without one, the Turn Record Track's last date)."""
    chosen = ctx.state.options.get("tie_breaker")
    if isinstance(chosen, int) and not isinstance(chosen, bool):
        return chosen
    calendar = ctx.board.calendar
    last = ctx.state.options.get("last_date")
    day = ctx.board.day_of(last) if isinstance(last, int) else calendar.last
    return calendar.week_of(day).number


def victory_vp(ctx: Ctx) -> int:
    """The Sawmill's 3: the Victory Points the German needs — the game's setting, else its
    pack scenario's ``victory_vp``."""
    need = ctx.state.options.get("victory_vp")
    if isinstance(need, int):
        return need
    spec = ctx.board.scenarios.get(ctx.state.scenario)
    if spec is None or spec.victory_vp is None:
        raise ValueError("a vp_at_week_end victory needs victory_vp (the scenario's, "
                         "scenarios.toml)")
    return int(spec.victory_vp)


def end_of_week(ctx: Ctx, week: int) -> None:
    """6.4: after the last night impulse of ``week`` (1 = Sept 13-19), total the German
    Victory Points and decide whether the game is won, lost or goes on."""
    state = ctx.state
    board = ctx.board
    vp, areas = german_vp(board, state)
    where = ", ".join(areas) or "none"
    when = f"end of week {week} ({board.date_label(state.date - 1)})"
    paid = bid(state)
    score = vp - paid
    counted = f"German {vp} VP (Areas {where})" + (f" - bid {paid} = {score}" if paid else "")
    mode = state.options.get("victory", "blue")
    data: dict[str, Any] = {"week": week, "vp": vp, "score": score, "areas": areas}
    winner: str | None
    if mode == "vp_at_week_end":
        need = victory_vp(ctx)
        winner = GERMAN if score >= need else RUSSIAN
        state.result = (f"german wins: {counted} >= {need}" if winner == GERMAN else
                        f"russian wins: {counted}, fewer than {need}")
        ctx.emit("end-of-week", f"{when}: {counted} vs {need} needed — {state.result}",
                 "Sawmill 3", need=need, winner=winner, **data)
        return
    record = next((w for w in board.calendar.weeks if w.number == week), None)
    if record is None:
        ctx.emit("end-of-week", f"{when}: {counted}", "6.4", **data)
        return
    final = week >= last_week(ctx)
    if mode == "red":
        low, high = record.red
        rule = "21.1"
        target = f"red {low}-{high}"
        data.update(red=[low, high])
        winner = RUSSIAN if score < low else GERMAN if score > high else None
    else:
        rule = "19.2"
        target = f"blue {record.blue}"
        data.update(blue=record.blue)
        winner = RUSSIAN if score < record.blue else GERMAN if score > record.blue else None
    if winner is not None:
        state.result = f"{winner} wins: {counted} vs {target} ({rule})"
        ctx.emit("end-of-week", f"{when}: {counted} vs {target} — {state.result}", rule,
                 winner=winner, **data)
        return
    if not final:
        ctx.emit("end-of-week", f"{when}: {counted} vs {target} — the game goes on another "
                 f"week ({rule})", rule, winner=None, **data)
        return
    how = str(state.options.get("final_tie", "tie_breaker"))
    if how == "tie_breaker":
        number = tie_breaker(board, state)
        winner = GERMAN if number > record.tie_breaker else RUSSIAN
        state.result = (f"{winner} wins: {counted} vs {target}, a tie in the last week; "
                        f"Tie-Breaker {number} vs {record.tie_breaker} (19.3)")
        data.update(tie_breaker=number, black=record.tie_breaker)
    elif how == "draw":
        winner = None
        state.result = f"draw: {counted} vs {target} in the last week"
    else:
        winner = RUSSIAN if how == RUSSIAN else GERMAN
        state.result = f"{winner} wins: {counted} vs {target} in the last week"
    ctx.emit("end-of-week", f"{when}: {state.result}", "19.3", winner=winner, **data)
