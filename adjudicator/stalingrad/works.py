"""The Tractor Works' tanks (13.2): the Armor replacement capacity and how it ends.

The Russian earns one Attack Factor of Armor replacements at Dawn of each date — September
13 included — on which he controls Area 70 (the pack's ``armor_replacement_*`` constants);
the factors accumulate, and are lost with the whole capacity, for good, the instant the
German controls Area 70 or a German Air/Artillery/Ranged attack puts Rubble 2 there (or,
with Rubble 2 already there, makes an attack DR of 9 or more against it). Spending the
factors (13.3) is :mod:`adjudicator.stalingrad.replacements`.
"""

from __future__ import annotations

from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN


def works(ctx: Ctx) -> str:
    """The Area of the Tractor Works (13.2)."""
    return str(ctx.board.tables.constants.armor_replacement_area)


def available(ctx: Ctx) -> int:
    record = ctx.state.replacements
    return 0 if record.stopped else record.earned - record.spent


def earn(ctx: Ctx) -> None:
    """13.2: at Dawn (and on September 13 when play begins), while Area 70 is Russian."""
    record = ctx.state.replacements
    area = works(ctx)
    if record.stopped or area not in ctx.board.areas or ctx.controller(area) != RUSSIAN:
        return
    gain = ctx.board.tables.constants.armor_replacement_per_day
    record.earned += gain
    ctx.emit("armor-replacements", f"the Tractor Works ({ctx.name(area)}) give the Russian "
             f"{gain} Armor replacement factor(s): {available(ctx)} available", "13.2",
             earned=record.earned, spent=record.spent, available=available(ctx))


def stop(ctx: Ctx, why: str) -> None:
    """13.2: the capacity ends for good, with every unclaimed factor."""
    record = ctx.state.replacements
    if record.stopped or works(ctx) not in ctx.board.areas:
        return
    lost = available(ctx)
    record.stopped = True
    record.reason = why
    ctx.emit("armor-replacements", f"the Tractor Works stop producing tanks: {why} "
             f"({lost} unclaimed factor(s) lost)", "13.2", stopped=True, lost=lost,
             earned=record.earned, spent=record.spent, available=0)


def after_control(ctx: Ctx, area: str, owner: str) -> None:
    if area == works(ctx) and owner == GERMAN:
        stop(ctx, f"the German controls {ctx.name(area)}")


def after_bombardment(ctx: Ctx, area: str, attack_dr: int, before: int, after: int) -> None:
    """13.2: a German Air/Artillery/Ranged attack that puts Rubble 2 in Area 70, or that
    rolls 9 or more there when Rubble 2 was already in place."""
    if area != works(ctx):
        return
    constants = ctx.board.tables.constants
    top = constants.max_rubble  # Rubble 2, the highest level (14.2)
    if before < top <= after:
        stop(ctx, f"a German bombardment leaves Rubble 2 in {ctx.name(area)}")
    elif before >= top and attack_dr >= constants.armor_replacement_rubble_dr:
        stop(ctx, f"a German attack DR of {attack_dr} on the Rubble 2 of {ctx.name(area)}")

