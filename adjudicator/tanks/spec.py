"""The rules engine's narrow view of the data pack.

The engine never reads the pack's own models directly: it reads these small, frozen
records (unit types, the map, the tables and the numbered constants). ``from_pack`` builds
them from the shipped pack; conformance cases and tests build them (or override parts of
them) from a ``[position]`` table, so a case can define its own units and terrain.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from adjudicator.tanks.data import PackError, TanksPack, load_pack
from adjudicator.tanks.hexgrid import Direction, EdgeDistances, Hex, neighbours

KINDS = ("tank", "sp_gun", "at_gun", "infantry", "halftrack")
CLASSES = "ABCDEFGHIJ"
PROHIBITED = -1
#: The map edges by letter and the word an order names them by (``exit north``, 6.6).
EDGE_WORDS = {"N": "north", "E": "east", "S": "south", "W": "west"}


class SpecError(ValueError):
    """A pack or a case position that the engine cannot use."""


@dataclass(frozen=True)
class UnitType:
    id: str
    label: str
    side: str
    kind: str
    ap: int
    at: int
    mf: int
    at_circled: bool = False
    armor_class: str | None = None
    armor_circled: bool = False
    defense: int | None = None
    aliases: tuple[str, ...] = ()

    @property
    def armored(self) -> bool:
        return self.armor_class is not None

    @property
    def tank_or_sp_gun(self) -> bool:
        """A tank or an SP gun: what 8.1 (facing) and 10.7 (hill armour) speak of."""
        return self.kind in ("tank", "sp_gun")

    @property
    def has_facing(self) -> bool:
        """8.1: tanks and SP guns face a hexside; other units have no facing."""
        return self.tank_or_sp_gun


@dataclass(frozen=True)
class TerrainEffect:
    terrain: str
    move_cost: Mapping[str, int]  # kind -> cost, PROHIBITED when not allowed
    blocks_los: bool
    at_to_hit_drm: int
    defense_multiplier: int
    armor_class_shift: int
    overrun_need: int | None = None


@dataclass(frozen=True)
class ToHitBand:
    min_range: int
    max_range: int | None
    need: int | None  # None: automatic
    mobile_need: int | None = None


@dataclass(frozen=True)
class Tables:
    to_hit: tuple[ToHitBand, ...]
    drm: Mapping[str, Mapping[str, int]]  # table -> condition -> value
    ap_odds: tuple[tuple[str, int], ...]  # ("1-4", 3) ... ("6-1", 11)
    hit_columns: tuple[str, ...]
    hit_effects: Mapping[str, tuple[str | int, ...]]  # class -> per column
    terrain: Mapping[str, TerrainEffect]
    road_multiplier: Mapping[str, float]
    scatter_on: tuple[int, ...]
    scatter_directions: Mapping[int, Direction]
    barrage_need: Mapping[str, int]  # light/heavy
    constants: Mapping[str, Any]

    def const(self, key: str) -> Any:
        if key not in self.constants:
            raise SpecError(f"the pack has no constant {key!r}")
        return self.constants[key]

    def to_hit_need(self, rng: int, mobile: bool) -> int | None:
        """The To Hit number for a range; None means an automatic hit."""
        for band in self.to_hit:
            if rng >= band.min_range and (band.max_range is None or rng <= band.max_range):
                if band.need is None:
                    return band.mobile_need if mobile else None
                return band.need
        raise SpecError(f"no To Hit band for range {rng}")

    def hit_column(self, at: int) -> int | None:
        """Index of the Hit Effects column for an AT Factor; None below the first column."""
        for index, label in enumerate(self.hit_columns):
            if label.endswith("+"):
                if at >= int(label[:-1]):
                    return index
                continue
            low, high = (int(part) for part in label.split("-"))
            if low <= at <= high:
                return index
        return None


@dataclass(frozen=True)
class MapSpec:
    columns: int
    rows: int
    terrain: Mapping[Hex, str]
    roads: frozenset[Hex]
    bridges: frozenset[Hex]

    def on_map(self, h: Hex) -> bool:
        return 1 <= h.col <= self.columns and 1 <= h.row <= self.rows

    def terrain_of(self, h: Hex) -> str:
        if h in self.bridges:
            return "clear"  # 7.7: a bridge negates the stream
        return self.terrain.get(h, "clear")

    def is_road(self, h: Hex) -> bool:
        return h in self.roads or h in self.bridges

    def edge_of_offmap(self, h: Hex) -> str:
        """The map edge an off-map hex lies beyond."""
        if h.row < 1:
            return "N"
        if h.row > self.rows:
            return "S"
        if h.col < 1:
            return "W"
        return "E"

    def edges_beyond(self, h: Hex) -> frozenset[str]:
        """Every map edge an off-map hex lies beyond: two past a corner (``0000`` is beyond
        the north and the west edge), so a unit leaving through the hexside between them
        names the edge (6.6)."""
        found = {"N"} if h.row < 1 else {"S"} if h.row > self.rows else set()
        if h.col < 1:
            found.add("W")
        elif h.col > self.columns:
            found.add("E")
        return frozenset(found)

    def edges(self, h: Hex) -> frozenset[str]:
        """The map edges ``h`` lies on (empty for inner hexes)."""
        found = self._edge_table.get(h)
        if found is None:
            return frozenset(self.edge_of_offmap(n) for n in neighbours(h)
                             if not self.on_map(n))
        return found

    @cached_property
    def _edge_table(self) -> dict[Hex, frozenset[str]]:
        return {h: frozenset(self.edge_of_offmap(n) for n in neighbours(h)
                             if not self.on_map(n)) for h in self.all_hexes}

    @cached_property
    def _edge_lists(self) -> dict[str, list[Hex]]:
        return {e: [h for h in self.all_hexes if e in self._edge_table[h]] for e in "NESW"}

    @cached_property
    def all_hexes(self) -> tuple[Hex, ...]:
        return tuple(Hex(c, r) for c in range(1, self.columns + 1)
                     for r in range(1, self.rows + 1))

    def edge_hexes(self, edge: str) -> list[Hex]:
        return list(self._edge_lists[edge])

    @cached_property
    def edge_distance(self) -> EdgeDistances:
        """``edge_distance(h, edge)``: hexes from ``h`` to the nearest hex of ``edge``."""
        return EdgeDistances(self.all_hexes, self.edge_hexes)


@dataclass(frozen=True)
class RulesData:
    types: Mapping[str, UnitType]
    map: MapSpec
    tables: Tables
    scenarios: Mapping[str, Any] = field(default_factory=dict)


# ---- reading the pack ------------------------------------------------------------------------


def unit_type_from(record: Mapping[str, Any]) -> UnitType:
    """A unit type from a plain table (a case position's ``types``)."""
    try:
        kind = str(record["kind"])
        if kind not in KINDS:
            raise SpecError(f"unit {record.get('id')}: unknown kind {kind!r}")
        armor = record.get("armor_class")
        return UnitType(
            id=str(record["id"]), label=str(record.get("label", record["id"])),
            side=str(record.get("side", "")), kind=kind, ap=int(record.get("ap", 0)),
            at=int(record.get("at", 0)), mf=int(record["mf"]),
            at_circled=bool(record.get("at_circled", False)),
            armor_class=str(armor) if armor else None,
            armor_circled=bool(record.get("armor_circled", False)),
            defense=int(record["defense"]) if record.get("defense") is not None else None,
            aliases=tuple(record.get("aliases", ())),
        )
    except KeyError as missing:
        raise SpecError(f"unit {record.get('id')}: missing {missing}") from missing


def _cost(value: Any) -> int:
    return PROHIBITED if value == "prohibited" else int(value)


def from_pack(pack: Path | None = None) -> RulesData:
    """The engine's records from a data pack folder (default: the shipped pack)."""
    return _from_loaded(_load(pack))


def _load(pack: Path | None) -> TanksPack:
    try:
        return load_pack(pack)
    except PackError as error:
        raise SpecError(str(error)) from error


def _from_loaded(loaded: TanksPack) -> RulesData:
    types = {
        u.id: UnitType(
            id=u.id, label=u.label, side=u.side.value, kind=u.kind.value, ap=u.ap, at=u.at,
            mf=u.mf, at_circled=u.at_circled, armor_class=u.armor_class,
            armor_circled=u.armor_circled, defense=u.defense, aliases=tuple(u.aliases))
        for u in loaded.units.values()
    }
    m = loaded.map
    the_map = MapSpec(
        columns=m.columns, rows=m.rows,
        terrain={h: t.value for h, t in m.terrain.items() if t.value != "clear"},
        roads=frozenset(m.road_hexes), bridges=frozenset(m.bridges))
    t = loaded.tables
    drm: dict[str, dict[str, int]] = {}
    for record in t.drm:
        drm.setdefault(record.table, {})[record.condition] = record.value
    tables = Tables(
        to_hit=tuple(ToHitBand(b.min_range, b.max_range, b.need, b.mobile_need)
                     for b in t.to_hit),
        drm=drm,
        ap_odds=tuple((c.odds, c.need) for c in t.anti_personnel.column),
        hit_columns=tuple(t.hit_effects.columns),
        hit_effects={r.class_: tuple(r.values) for r in t.hit_effects.row},
        terrain={
            e.terrain.value: TerrainEffect(
                terrain=e.terrain.value,
                move_cost={k.value: _cost(v) for k, v in e.move_cost.items()},
                blocks_los=e.blocks_los, at_to_hit_drm=e.at_to_hit_drm,
                defense_multiplier=e.defense_multiplier,
                armor_class_shift=e.armor_class_shift, overrun_need=e.overrun_need)
            for e in t.terrain_effect
        },
        road_multiplier={k.value: v for k, v in t.road.first_movement_multiplier.items()},
        scatter_on=tuple(t.scatter.scatter_on),
        scatter_directions={k: Direction(v) for k, v in t.scatter.directions.items()},
        barrage_need={"light": t.barrage.light_need, "heavy": t.barrage.heavy_need},
        constants={c.id: c.value for c in t.constant},
    )
    return RulesData(types=types, map=the_map, tables=tables, scenarios=dict(loaded.scenarios))


#: pack folder -> (the loaded pack, the records made from it); the pack object is held, so a
#: pack loaded anew (its files changed) is never mistaken for the one the records came from.
_RULES: dict[Path, tuple[TanksPack, RulesData]] = {}


def rules_data(pack: Path | None = None) -> RulesData:
    """The engine's records of a pack folder (default: the shipped pack), made once per
    loaded pack: when :func:`load_pack` loads the folder anew, so are they."""
    loaded = _load(pack)
    known = _RULES.get(loaded.path)
    if known is None or known[0] is not loaded:
        known = _RULES[loaded.path] = (loaded, _from_loaded(loaded))
    return known[1]
