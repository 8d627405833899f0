"""One order's working context: the state being changed, the data it is judged by, the dice.

Conformance positions may carry their own terrain, roads, map size and unit types; the
context merges them over the pack so every rule reads one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import Event
from adjudicator.kernel.journal import Journal
from adjudicator.kernel.memo import Memo
from adjudicator.kernel.names import unit_index
from adjudicator.tanks.hexgrid import Hex, distance, line_of_sight, neighbours
from adjudicator.tanks.sides import other
from adjudicator.tanks.spec import CLASSES, MapSpec, RulesData, UnitType, unit_type_from
from adjudicator.tanks.state import TanksState, Unit

DICE_FACES = range(1, 7)


def two_dice_at_most(need: int) -> float:
    """Probability that two dice total ``need`` or less."""
    hits = sum(1 for a in DICE_FACES for b in DICE_FACES if a + b <= need)
    return hits / 36


#: Conformance positions' maps and every map's blocking hexes, kept with the maps they were
#: made from (a pack loaded anew never gets an older pack's map).
_MAPS = Memo[MapSpec](size=256)
_BLOCKING = Memo[frozenset[Hex]](size=64)


def _blank(base: MapSpec) -> MapSpec:
    """A map of the same size, all clear, with no road (conformance positions)."""
    return _MAPS.get((base,), "blank", lambda: MapSpec(
        columns=base.columns, rows=base.rows, terrain={}, roads=frozenset(),
        bridges=frozenset()))


def _local_map(base: MapSpec, terrain: tuple[tuple[str, str], ...],
               roads: tuple[str, ...] | None, size: tuple[int, int] | None) -> MapSpec:
    return _MAPS.get((base,), (terrain, roads, size),
                     lambda: _build_map(base, terrain, roads, size))


def _build_map(base: MapSpec, terrain: tuple[tuple[str, str], ...],
               roads: tuple[str, ...] | None, size: tuple[int, int] | None) -> MapSpec:
    merged = dict(base.terrain)
    for name, kind in terrain:
        merged[Hex.parse(name)] = kind
    return MapSpec(
        columns=size[0] if size else base.columns, rows=size[1] if size else base.rows,
        terrain={h: t for h, t in merged.items() if t != "clear"},
        roads=frozenset(Hex.parse(h) for h in roads) if roads is not None else base.roads,
        bridges=base.bridges if roads is None else frozenset(),
    )


def _blocking(m: MapSpec, blockers: frozenset[str]) -> frozenset[Hex]:
    return _BLOCKING.get((m,), blockers, lambda: frozenset(
        h for h, t in m.terrain.items() if t in blockers and h not in m.bridges))


@dataclass
class Ctx(Journal):
    """One order's context: the rules data, the state it changes, the dice, its events."""

    data: RulesData
    state: TanksState
    dice: Dice | None = None
    events: list[Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        s = self.state
        if s.terrain or s.roads is not None or s.map_size or s.flags.get("blank_map"):
            base = _blank(self.data.map) if s.flags.get("blank_map") else self.data.map
            self.map = _local_map(base, tuple(sorted(s.terrain.items())),
                                  tuple(s.roads) if s.roads is not None else None,
                                  (s.map_size[0], s.map_size[1]) if s.map_size else None)
        else:
            self.map = self.data.map
        self.tables = self.data.tables
        blockers = frozenset(t for t, e in self.tables.terrain.items() if e.blocks_los)
        self.blocking = _blocking(self.map, blockers)
        self._types: dict[str, UnitType] = {}

    # ---- records --------------------------------------------------------------------------

    def type_of(self, unit: Unit) -> UnitType:
        found = self._types.get(unit.type)
        if found is not None:
            return found
        if unit.type in self.state.types:
            found = unit_type_from({"id": unit.type, **self.state.types[unit.type]})
        elif unit.type in self.data.types:
            found = self.data.types[unit.type]
        else:
            raise RuleError("3.0", f"unknown unit type {unit.type!r}")
        self._types[unit.type] = found
        return found

    def terrain(self, hex_name: str) -> str:
        h = Hex.parse(hex_name)
        kind = self.map.terrain_of(h)
        if self.state.flags.get("clear_terrain") and kind in ("stream", "swamp"):
            return "clear"  # 25.3 special rule
        return kind

    def is_road(self, hex_name: str) -> bool:
        if self.state.flags.get("clear_terrain"):
            return False  # 25.3: roads are clear terrain too
        return self.map.is_road(Hex.parse(hex_name))

    def on_map(self, hex_name: str) -> bool:
        return self.map.on_map(Hex.parse(hex_name))

    def roll(self, label: str, count: int = 2) -> int:
        assert self.dice is not None
        return self.dice.roll(label, count=count).total

    # ---- who is where ---------------------------------------------------------------------

    def enemies_seen_by(self, side: str) -> list[Unit]:
        return [u for u in self.state.units
                if u.status == "on" and u.side != side and not u.hidden]

    def find(self, units: list[Unit], text: str, what: str) -> Unit:
        """The unit among ``units`` a player means by ``text``: its id in any case, with or
        without the dash (``pan1``), or a unique prefix (``pan`` when one Panther is
        there); refused with the candidates when several fit, or with the closest ids.
        ``units`` are only those the player may name (never a hidden enemy)."""
        exact = {u.id: u for u in units}
        if text in exact:
            return exact[text]
        names = unit_index((u.id, (u.id.replace("-", ""), f"{self.type_of(u).label} "
                                   f"{u.id.rsplit('-', 1)[-1]}")) for u in units)
        try:
            return exact[names.resolve(text)]
        except RuleError as error:
            ambiguous = error.message.startswith("ambiguous")
            raise RuleError("notation", error.message.replace("unit", what, 1),
                            [] if ambiguous else sorted(exact)[:12]) from None

    def friends(self, side: str) -> list[Unit]:
        return [u for u in self.state.units if u.status == "on" and u.side == side]

    def visible_occupants(self, hex_name: str, side: str) -> list[Unit]:
        """Units in a hex that ``side`` knows about (its own, and revealed enemies)."""
        return [u for u in self.state.at(hex_name) if u.side == side or not u.hidden]

    def passenger_of(self, halftrack: Unit) -> Unit | None:
        for u in self.state.units:
            if u.carrier == halftrack.id and u.status == "on":
                return u
        return None

    def los(self, a: str, b: str) -> bool:
        return line_of_sight(Hex.parse(a), Hex.parse(b), self.blocking)

    @staticmethod
    def range(a: str, b: str) -> int:
        return distance(Hex.parse(a), Hex.parse(b))

    def adjacent(self, hex_name: str) -> list[str]:
        return [str(n) for n in neighbours(Hex.parse(hex_name)) if self.map.on_map(n)]

    # ---- changes --------------------------------------------------------------------------

    def destroy(self, unit: Unit, why: str, rule: str) -> None:
        """Remove a unit; a halftrack takes everything in its hex with it (17.4)."""
        if unit.status != "on":
            return
        where = unit.hex
        unit.status, unit.hex, unit.carrier = "destroyed", None, None
        unit.hidden = False
        self.emit("destroyed", f"{unit.id} is destroyed ({why})", rule, unit=unit.id,
                  hex=where, side=unit.side)
        if self.type_of(unit).kind == "halftrack" and where is not None:
            for other_unit in list(self.state.at(where)):
                self.destroy(other_unit, f"in the hex of the destroyed halftrack {unit.id}",
                             "17.4")

    def reveal(self, unit: Unit, why: str, rule: str = "20.0") -> None:
        if not unit.hidden or unit.status != "on":
            return
        unit.hidden = False
        label = self.type_of(unit).label
        self.emit("revealed", f"hidden {unit.side} {label} {unit.id} revealed in "
                  f"{unit.hex} ({why})", rule, unit=unit.id, hex=unit.hex, side=unit.side)

    def reveal_adjacent_to(self, hex_name: str, enemy_of: str) -> list[Unit]:
        """20.0: hidden units of the other side next to ``hex_name`` are placed on the map."""
        found = []
        near = set(self.adjacent(hex_name))
        for unit in self.state.units:
            if (unit.status == "on" and unit.hidden and unit.side == other(enemy_of)
                    and unit.hex in near):
                self.reveal(unit, f"an enemy unit entered {hex_name}, next to it")
                found.append(unit)
        return found


def shift_class(letter: str, levels: int) -> str:
    """Armor Class moved ``levels`` towards A (positive) or towards J (negative), clamped."""
    index = CLASSES.index(letter) - levels
    return CLASSES[max(0, min(len(CLASSES) - 1, index))]
