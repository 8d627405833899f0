"""Attack and Defense Values (8.35, 8.352, 14.6) as sums of named modifiers.

OV and DV are sums of named modifiers (:data:`OV_MODIFIERS`, :data:`DV_MODIFIERS`), each
with its rule; the attack's declaration (:mod:`adjudicator.stalingrad.combat`), a Rubble
attack and a Mistaken Attack read them here, and so do the legal query and the losses'
highest Defense Factor (8.354).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from adjudicator.stalingrad.artillery import strength
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.places import OFFBOARD
from adjudicator.stalingrad.sides import GERMAN, other


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
    """Glossary: +1 for each three attacking Infantry battalions of one Regiment/Brigade,
    not for one of fewer than three battalions (both numbers from the pack)."""
    constants = s.ctx.board.tables.constants
    counts: dict[str, int] = {}
    for uid in s.attackers:
        d = s.ctx.d(uid)
        if d.kind == "infantry" and d.battalion and d.regiment \
                and s.ctx.board.regiment_size.get(d.regiment, 0) \
                >= constants.regimental_integrity_min_battalions:
            counts[d.regiment] = counts.get(d.regiment, 0) + 1
    return sum(n // constants.regimental_integrity_units for n in counts.values())


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

