"""Control (7.3) and what follows from it, and eliminations, which change it.

The last side to be sole occupant of an Area with a supplied Combat unit controls it (7.3).
When the German takes the Tractor Works' Area, the Armor replacement capacity ends for good
(13.2, :mod:`adjudicator.stalingrad.works`).
"""

from __future__ import annotations

from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.places import DEAD
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN
from adjudicator.stalingrad.works import after_control


def update_control(ctx: Ctx, key: str) -> None:
    """The last side to be sole occupant with a supplied Combat unit controls (7.3)."""
    if key not in ctx.board.areas:
        return
    german = [u for u in ctx.combat(key, GERMAN) if ctx.supplied(u)]
    russian = [u for u in ctx.combat(key, RUSSIAN) if ctx.supplied(u)]
    owner = GERMAN if german and not russian else RUSSIAN if russian and not german else None
    if owner is not None and ctx.controller(key) != owner:
        ctx.state.control[key] = owner
        ctx.emit("control", f"{ctx.board.area(key).label} is now {owner}-controlled", "7.3",
                 area=key, side=owner)
        after_control(ctx, key, owner)  # 13.2


def eliminate(ctx: Ctx, uid: str, rule: str, why: str) -> None:
    """``uid`` goes to the dead pile; Control of the Area it left is looked at again."""
    area = ctx.loc(uid)
    ctx.place(uid, DEAD)
    unit = ctx.state.units[uid]
    unit.fresh, unit.recover = False, None
    ctx.state.eliminated[ctx.side_of(uid)] += 1
    if ctx.state.impulse is not None:
        ctx.state.impulse.acts.pop(uid, None)
    ctx.emit("eliminated", f"{uid} is eliminated ({why})", rule, unit=uid, area=area)
    update_control(ctx, area)
