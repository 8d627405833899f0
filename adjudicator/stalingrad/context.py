"""One order's working context: the board, the state, and an occupancy index.

The index (location -> unit ids) is built once per order in O(units) and kept up to date
by :meth:`Ctx.place`, so rules never scan every unit to ask "who is in Area 35?".
"""

from __future__ import annotations

from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.journal import Journal
from adjudicator.stalingrad.board import Board, UnitDef
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN, other
from adjudicator.stalingrad.state import Act, Impulse, StalingradState


class Occupancy:
    """Who is where, seen by one side: enemy-occupied Areas, Areas with Fresh enemies,
    the enemy unit kinds per Area, the Areas next to a Fresh enemy (8.23B, 11.3), and the
    side's own Combat units per Area (7.1).

    Built in O(units) on first use and dropped whenever a unit moves or changes side up,
    so a legal query answers every step of its searches with set lookups.
    """

    __slots__ = ("case_b", "enemy", "fresh_enemy", "kinds", "own")

    def __init__(self, ctx: Ctx, side: str) -> None:
        units, states, board = ctx.board.units, ctx.state.units, ctx.board
        self.enemy: set[str] = set()
        self.fresh_enemy: set[str] = set()
        self.kinds: dict[str, set[str]] = {}
        self.own: dict[str, int] = {}  # the side's own Combat units per place (7.1)
        for loc, here in ctx.at.items():
            for uid in here:
                d = units[uid]
                if not d.combat:
                    continue
                if d.side == side:
                    self.own[loc] = self.own.get(loc, 0) + 1
                    continue
                self.enemy.add(loc)
                self.kinds.setdefault(loc, set()).add(d.kind)
                if states[uid].fresh:
                    self.fresh_enemy.add(loc)
        self.case_b: set[str] = set()
        for loc in self.fresh_enemy:
            info = board.areas.get(loc)
            if info is None:
                continue
            for n in board.adjacent(loc):
                other_info = board.areas.get(n)
                if other_info is not None and other_info.zone == info.zone:
                    self.case_b.add(n)


class Ctx(Journal):
    """One order's context: the board it is judged on, the state it changes, its events."""

    def __init__(self, board: Board, state: StalingradState) -> None:
        super().__init__()
        self.board = board
        self.state = state
        self.at: dict[str, set[str]] = {}
        for uid, unit in state.units.items():
            self.at.setdefault(unit.loc, set()).add(uid)
        self._occupancy: dict[str, Occupancy] = {}

    def occupancy(self, side: str) -> Occupancy:
        """The occupancy tables as ``side`` sees them (cached until something changes)."""
        table = self._occupancy.get(side)
        if table is None:
            table = self._occupancy[side] = Occupancy(self, side)
        return table

    def changed(self) -> None:
        """Forget the occupancy tables after a change made outside :meth:`place`."""
        self._occupancy.clear()

    # ---- units -------------------------------------------------------------------------

    def d(self, uid: str) -> UnitDef:
        return self.board.units[uid]

    def side_of(self, uid: str) -> str:
        return self.board.units[uid].side

    def loc(self, uid: str) -> str:
        return self.state.units[uid].loc

    def fresh(self, uid: str) -> bool:
        return self.state.units[uid].fresh

    def place(self, uid: str, loc: str) -> None:
        old = self.state.units[uid].loc
        self.at.get(old, set()).discard(uid)
        self.at.setdefault(loc, set()).add(uid)
        self.state.units[uid].loc = loc
        self._occupancy.clear()

    def disrupt(self, uid: str, duration: int) -> None:
        """Spent with Duration ``duration`` from today, never beyond four dates (10.8)."""
        unit = self.state.units[uid]
        date = self.state.date
        most = self.board.tables.disruption.maximum
        target = date + max(1, min(duration, most))
        if unit.fresh or unit.recover is None:
            unit.recover = target
        else:
            unit.recover = min(max(unit.recover, target), date + most)
        unit.marker = unit.recover > date + 1  # Duration 1 has no marker (10.21)
        unit.fresh = False
        self._occupancy.clear()

    def extend(self, uid: str, days: int = 1) -> None:
        """Extend a Spent unit's Disruption by ``days`` dates, capped at four (10.5, 10.8)."""
        unit = self.state.units[uid]
        date = self.state.date
        if unit.fresh or unit.recover is None:
            self.disrupt(uid, days)
            return
        unit.recover = min(unit.recover + days, date + self.board.tables.disruption.maximum)
        unit.marker = unit.recover > date + 1

    def units_at(self, loc: str) -> set[str]:
        return self.at.get(loc, set())

    def combat(self, loc: str, side: str, fresh: bool | None = None) -> list[str]:
        out = []
        for uid in self.at.get(loc, ()):
            d = self.board.units[uid]
            if d.side != side or not d.combat:
                continue
            if fresh is not None and self.state.units[uid].fresh != fresh:
                continue
            out.append(uid)
        return sorted(out)

    def enemy(self, loc: str, side: str) -> bool:
        units, defs = self.board.units, self.at.get(loc, ())
        return any(units[u].side != side and units[u].combat for u in defs)

    def fresh_enemy(self, loc: str, side: str) -> bool:
        units, states = self.board.units, self.state.units
        return any(units[u].side != side and units[u].combat and states[u].fresh
                   for u in self.at.get(loc, ()))

    def enemy_kinds(self, loc: str, side: str) -> set[str]:
        return {self.board.units[u].kind for u in self.combat(loc, other(side))}

    # ---- Areas -------------------------------------------------------------------------

    def zone(self, key: str) -> bool:
        info = self.board.areas.get(key)
        return bool(info and info.zone)

    def controller(self, key: str) -> str:
        return self.state.control.get(key, RUSSIAN)

    def contested(self, key: str) -> bool:
        """Combat units of both sides (7.4)."""
        return bool(self.combat(key, GERMAN)) and bool(self.combat(key, RUSSIAN))

    def free(self, key: str, side: str) -> bool:
        """Friendly-controlled and no enemy Combat units (Glossary)."""
        return self.controller(key) == side and not self.enemy(key, side)

    def full(self, key: str, side: str, extra: int = 0) -> bool:
        return not self.zone(key) and len(self.combat(key, side)) + extra > self.board.max_stack

    def supplied(self, uid: str) -> bool:
        """Not under an Isolation marker (12.2): what Control needs (7.3)."""
        return self.state.units[uid].isolation == 0

    def name(self, key: str) -> str:
        info = self.board.areas.get(key)
        return info.label if info else key

    # ---- impulse -----------------------------------------------------------------------

    @property
    def impulse(self) -> Impulse:
        if self.state.impulse is None:
            self.state.impulse = Impulse(side=self.state.turn)
        return self.state.impulse

    def act(self, uid: str) -> Act:
        acts = self.impulse.acts
        if uid not in acts:
            acts[uid] = Act(start=self.loc(uid),
                            penalty=self.board.tables.disruption.movement)  # 10.3
        return acts[uid]

    # ---- checks ------------------------------------------------------------------------

    def own(self, side: str, units: tuple[str, ...], rule: str = "8.11") -> list[str]:
        out = []
        for text in units:
            uid = self.board.resolve_unit(text)
            if uid not in self.state.units:
                raise RuleError(rule, f"{uid} is not in this game")
            if self.side_of(uid) != side:
                raise RuleError(rule, f"{uid} is not a {side} unit")
            out.append(uid)
        return out

    def area_key(self, text: str) -> str:
        return self.board.resolve_area(text)

    def isolation_cut(self, uid: str) -> int:
        """12.21: how much an isolated unit's printed factors are lowered."""
        level = self.state.units[uid].isolation
        if level <= 0:
            return 0
        table = self.board.tables.isolation.factor_reduction
        return table[min(level, len(table)) - 1]

    def attack_factor(self, uid: str) -> int | None:
        """The Attack Factor as it counts now: printed, lowered by isolation (12.21); None
        for "*". It may fall to 0 or below (8.351: such a unit may still attack)."""
        attack = self.board.units[uid].attack
        return None if attack is None else attack - self.isolation_cut(uid)

    def movement_factor(self, uid: str) -> int:
        """The printed MF lowered by isolation (12.21), never below 0."""
        return max(0, self.board.units[uid].mf - self.isolation_cut(uid))

    def is_night_russian_bonus(self, uid: str) -> int:
        """16.3: each Fresh Russian unit has one extra MF during night impulses."""
        extra = self.board.tables.movement_costs.night_russian_extra_mf
        return extra if (not self.state.day and self.side_of(uid) == RUSSIAN
                     and self.fresh(uid)) else 0
