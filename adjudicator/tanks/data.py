"""The Stalin's Tanks data pack: load, validate, summarise and fingerprint it.

A pack is a directory of TOML files (``pack.toml`` manifest, ``map.toml``, ``units.toml``,
``tables.toml``, ``scenarios.toml``); the shipped one is ``DEFAULT_PACK``. A GM may replace it:
``check_pack`` lists every problem of a candidate pack as ``"file: record: message"`` without
raising, and ``load_pack`` refuses an invalid pack with ``PackError``.

This module reads files only; the rules engine receives a ready ``TanksPack``.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from adjudicator.kernel import packs
from adjudicator.tanks.data_models import (
    ARMOR_CLASSES,
    ArmorClass,
    Edge,
    HitCell,
    Kind,
    Manifest,
    MapFile,
    Scenario,
    ScenariosFile,
    Side,
    Sourced,
    TablesFile,
    Terrain,
    UnitsFile,
    UnitType,
    Zone,
    provenance,
)
from adjudicator.tanks.hexgrid import (
    Blocking,
    Hex,
    connected_groups,
    distance,
    line_of_sight,
    neighbours,
    prepare_lines,
)

__all__ = [
    "DEFAULT_PACK",
    "REQUIRED_CONSTANTS",
    "PackError",
    "TanksMap",
    "TanksPack",
    "anti_personnel_need",
    "check_pack",
    "hit_effect",
    "load_pack",
    "pack_hash",
    "shift_armor_class",
    "summary",
    "to_hit_need",
]

DEFAULT_PACK: Path = Path(__file__).resolve().parents[2] / "data" / "tanks"

MANIFEST = "pack.toml"

#: Constants the rules engine looks up by id; a replacement pack must define each.
REQUIRED_CONSTANTS = (
    "second_movement_fraction",
    "facing_change_cost",
    "backing_up_multiplier",
    "flank_shift_plain",
    "flank_shift_circled",
    "best_armor_class",
    "fff_shift",
    "snake_eyes",
    "he_destroy_roll",
    "infantry_ap_max_range",
    "infantry_ap_adjacent_multiplier",
    "infantry_at_max_range",
    "close_assault_german",
    "close_assault_soviet",
    "suicide_assault",
    "overrun_extra_cost",
    "mine_attack",
    "halftrack_capacity",
    "attenuation_base_range",
    "attenuation_step",
    "attenuation_base_range_circled_german",
    "attenuation_step_circled_german",
)


class PackError(packs.PackError):
    """An invalid Stalin's Tanks data pack."""

    title = "Stalin's Tanks data pack"


# -- the map -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TanksMap:
    """The battlefield: terrain per hex, road and bridge features, edges, blocking hexes."""

    columns: int
    rows: int
    terrain: Mapping[Hex, Terrain]
    roads: tuple[tuple[Hex, ...], ...]
    bridges: frozenset[Hex]
    blocking: frozenset[Hex]
    hex_metres: int = 50

    @cached_property
    def hexes(self) -> tuple[Hex, ...]:
        return tuple(sorted(self.terrain))

    @cached_property
    def road_hexes(self) -> frozenset[Hex]:
        return frozenset(h for road in self.roads for h in road)

    def __contains__(self, h: object) -> bool:
        return h in self.terrain

    def on_map(self, h: Hex) -> bool:
        return h in self.terrain

    def neighbours(self, h: Hex) -> tuple[Hex, ...]:
        """Adjacent hexes that are on the map."""
        return tuple(n for n in neighbours(h) if n in self.terrain)

    def edge_hexes(self, edge: Edge | str) -> tuple[Hex, ...]:
        """Hexes along an edge: N row 1, S the last row, W column 1, E the last column."""
        e = Edge(edge)
        if e is Edge.N:
            return tuple(Hex(c, 1) for c in range(1, self.columns + 1))
        if e is Edge.S:
            return tuple(Hex(c, self.rows) for c in range(1, self.columns + 1))
        if e is Edge.W:
            return tuple(Hex(1, r) for r in range(1, self.rows + 1))
        return tuple(Hex(self.columns, r) for r in range(1, self.rows + 1))

    def edges_of(self, h: Hex) -> frozenset[Edge]:
        out = set()
        if h.row == 1:
            out.add(Edge.N)
        if h.row == self.rows:
            out.add(Edge.S)
        if h.col == 1:
            out.add(Edge.W)
        if h.col == self.columns:
            out.add(Edge.E)
        return frozenset(out) if h in self.terrain else frozenset()

    def edge_distance(self, h: Hex, edge: Edge | str) -> int:
        """Hexes from ``h`` to the nearest hex of ``edge``, counted like range (10.4)."""
        return min(distance(h, e) for e in self.edge_hexes(edge))

    def hexes_of(self, terrain: Terrain | str) -> frozenset[Hex]:
        t = Terrain(terrain)
        return frozenset(h for h, v in self.terrain.items() if v is t)

    @cached_property
    def hill_groups(self) -> tuple[frozenset[Hex], ...]:
        """25.6: each hill hex alone or with every hill hex continuous with it."""
        return connected_groups(self.hexes_of(Terrain.HILL))

    def prepare_lines(self) -> None:
        """Precompute every line of sight profile of this map's size (once per process)."""
        prepare_lines(self.columns, self.rows)

    def line_of_sight(self, a: Hex, b: Hex, blocking: Blocking | None = None) -> bool:
        """9.0 on this map (``blocking`` defaults to the map's woods, buildings and hills)."""
        prepare_lines(self.columns, self.rows)
        return line_of_sight(a, b, self.blocking if blocking is None else blocking)

    def visible_from(self, a: Hex, blocking: Blocking | None = None) -> frozenset[Hex]:
        """Every hex of the map a unit in ``a`` can see (9.0)."""
        prepare_lines(self.columns, self.rows)
        block = self.blocking if blocking is None else blocking
        return frozenset(h for h in self.hexes if line_of_sight(a, h, block))

    def zone_hexes(self, zone: Zone) -> frozenset[Hex]:
        """The map hexes a scenario zone allows."""
        if zone.anywhere:
            hexes = set(self.terrain)
        else:
            hexes = {h for h in zone.hexes if h in self.terrain}
            for rect in zone.rects:
                (c0, c1), (r0, r1) = rect.cols, rect.rows
                hexes |= {
                    h for h in self.terrain if c0 <= h.col <= c1 and r0 <= h.row <= r1
                }
        for edge, least in zone.min_edge_distance.items():
            hexes = {h for h in hexes if self.edge_distance(h, edge) >= least}
        if zone.terrain:
            allowed = set(zone.terrain)
            hexes = {h for h in hexes if self.terrain[h] in allowed}
        return frozenset(hexes)


# -- table look-ups ----------------------------------------------------------------------------


def shift_armor_class(cls: str, levels: int, best: str = "A", lowest: str = "J") -> ArmorClass:
    """Raise (positive ``levels``) or lower an Armor Class, kept within ``best``..``lowest``.

    10.7: +1 on a hill; 8.5: -2 (-1 if circled) for a side or rear shot; 22.0: never above A.
    A class lowered past the table's last row is read on that row (docs/rulings.md).
    """
    i = ARMOR_CLASSES.index(cls) - levels
    i = max(ARMOR_CLASSES.index(best), min(ARMOR_CLASSES.index(lowest), i))
    out: ArmorClass = ARMOR_CLASSES[i]  # type: ignore[assignment]
    return out


def to_hit_need(tables: TablesFile, range_: int, mobile: bool = False) -> int | None:
    """The modified roll needed to hit at ``range_`` (None: automatic hit), To Hit Table."""
    for band in tables.to_hit:
        if band.min_range <= range_ and (band.max_range is None or range_ <= band.max_range):
            if band.automatic:
                return band.mobile_need if mobile else None
            return band.need
    raise ValueError(f"no To Hit band covers range {range_}")


def hit_effect(tables: TablesFile, at: int, armor_class: str) -> HitCell:
    """Hit Effects Table cell for an AT factor against an Armor Class ("-", "X" or a number)."""
    if at <= 0:
        return "-"
    he = tables.hit_effects
    cls = shift_armor_class(armor_class, 0, lowest=he.lowest_class)
    row = next(r for r in he.row if r.class_ == cls)
    for i, col in enumerate(he.columns):
        if col.endswith("+"):
            return row.values[i]
        lo, hi = (int(x) for x in col.split("-"))
        if lo <= at <= hi:
            return row.values[i]
    raise AssertionError("unreachable: the last column is open")  # pragma: no cover


def anti_personnel_need(tables: TablesFile, ap: int, defense: int) -> tuple[str, int] | None:
    """13.3: the odds column (rounded in the defender's favour) and the roll needed.

    None when the odds are below the table's first column (no effect).
    """
    best: tuple[str, int] | None = None
    for col in tables.anti_personnel.column:
        a, d = col.ratio
        if ap * d >= a * defense:
            best = (col.odds, col.need)
    return best


# -- the pack ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TanksPack:
    path: Path
    manifest: Manifest
    map: TanksMap
    units: Mapping[str, UnitType]
    tables: TablesFile
    scenarios: Mapping[str, Scenario]
    content_hash: str
    _map_file: MapFile = field(repr=False)

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def version(self) -> str:
        return self.manifest.version

    def unit(self, name: str, side: Side | str | None = None) -> UnitType:
        """A unit type by id, counter label or alias (``side`` settles "Inf")."""
        if name in self.units:
            return self.units[name]
        want = Side(side) if side is not None else None
        found = [
            u
            for u in self.units.values()
            if (name == u.label or name in u.aliases) and (want is None or u.side is want)
        ]
        if len(found) == 1:
            return found[0]
        if not found:
            raise KeyError(f"no unit type {name!r}")
        raise KeyError(f"{name!r} is ambiguous: {', '.join(u.id for u in found)}; give a side")

    def scenario(self, scenario_id: str) -> Scenario:
        if scenario_id in self.scenarios:
            return self.scenarios[scenario_id]
        for s in self.scenarios.values():
            if scenario_id in (s.section, s.title):
                return s
        raise KeyError(f"no scenario {scenario_id!r}; known: {', '.join(self.scenarios)}")

    def constant(self, constant_id: str) -> int | float | str | bool:
        for c in self.tables.constant:
            if c.id == constant_id:
                return c.value
        raise KeyError(f"no constant {constant_id!r}")

    def terrain_effect(self, terrain: Terrain | str) -> Any:
        t = Terrain(terrain)
        return next(e for e in self.tables.terrain_effect if e.terrain is t)

    def to_hit_need(self, range_: int, mobile: bool = False) -> int | None:
        return to_hit_need(self.tables, range_, mobile)

    def hit_effect(self, at: int, armor_class: str) -> HitCell:
        return hit_effect(self.tables, at, armor_class)

    def anti_personnel_need(self, ap: int, defense: int) -> tuple[str, int] | None:
        return anti_personnel_need(self.tables, ap, defense)


# -- reading and checking ----------------------------------------------------------------------

_MODELS: dict[str, type[BaseModel]] = {
    MANIFEST: Manifest,
    "map.toml": MapFile,
    "units.toml": UnitsFile,
    "tables.toml": TablesFile,
    "scenarios.toml": ScenariosFile,
}


def _label(item: Any, index: int) -> str:
    if isinstance(item, dict):
        for key in ("id", "class", "terrain", "condition", "name", "odds"):
            value = item.get(key)
            if isinstance(value, str | int) and not isinstance(value, bool):
                return str(value)
    return f"#{index + 1}"


def _format_error(file: str, raw: Any, err: Mapping[str, Any]) -> str:
    loc: Sequence[Any] = err.get("loc", ())
    record: list[str] = []
    fields: list[str] = []
    node = raw
    for i, part in enumerate(loc):
        if isinstance(part, int) and isinstance(node, list):
            item = node[part] if 0 <= part < len(node) else None
            key = str(loc[i - 1]) if i else "record"
            label = _label(item, part)
            if fields and fields[-1] == key:
                fields.pop()
            if not record:
                record.append(label)
            else:
                record.append(f"{key} {label}")
            node = item
            fields = []
        else:
            fields.append(str(part))
            node = node.get(part) if isinstance(node, dict) else None
    msg = str(err.get("msg", "invalid"))
    msg = msg.removeprefix("Value error, ")
    if err.get("type") == "extra_forbidden":
        msg = "unknown field (not part of the pack schema; see docs/data-tanks.md)"
    where = ", ".join(record) if record else "top level"
    field_text = ".".join(fields)
    return f"{file}: {where}: {field_text + ': ' if field_text else ''}{msg}"


@dataclass
class _Read:
    problems: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)
    models: dict[str, BaseModel] = field(default_factory=dict)
    data: dict[str, bytes] = field(default_factory=dict)


def _read(path: Path) -> _Read:
    out = _Read()
    if not path.is_dir():
        out.problems.append(f"{path}: not a directory holding a data pack")
        return out
    for name, model in _MODELS.items():
        file = path / name
        try:
            data = file.read_bytes()
        except FileNotFoundError:
            out.problems.append(f"{name}: file missing")
            continue
        except OSError as error:
            out.problems.append(f"{name}: cannot read: {error}")
            continue
        out.data[name] = data
        try:
            raw = tomllib.loads(data.decode("utf-8"))
        except UnicodeDecodeError as error:
            out.problems.append(f"{name}: not UTF-8 text: {error}")
            continue
        except tomllib.TOMLDecodeError as error:
            out.problems.append(f"{name}: TOML syntax: {error}")
            continue
        out.raw[name] = raw
        try:
            out.models[name] = model.model_validate(raw)
        except ValidationError as error:
            for err in error.errors():
                out.problems.append(_format_error(name, raw, err))
    if all(name in out.models for name in _MODELS if name != MANIFEST):
        out.problems += _cross_check(out)
    return out


def _build_map(mf: MapFile, blocking_terrain: Iterable[Terrain]) -> TanksMap:
    codes = mf.terrain.codes
    terrain: dict[Hex, Terrain] = {}
    for r, line in enumerate(mf.terrain.rows, start=1):
        for c, ch in enumerate(line, start=1):
            terrain[Hex(c, r)] = codes[ch]
    blockers = set(blocking_terrain)
    return TanksMap(
        columns=mf.map.columns,
        rows=mf.map.rows,
        terrain=terrain,
        roads=tuple(tuple(road.hexes) for road in mf.road),
        bridges=frozenset(b.hex for b in mf.bridge),
        blocking=frozenset(h for h, t in terrain.items() if t in blockers),
        hex_metres=mf.map.hex_metres,
    )


def _cross_check(read: _Read) -> list[str]:
    mf = read.models["map.toml"]
    uf = read.models["units.toml"]
    tf = read.models["tables.toml"]
    sf = read.models["scenarios.toml"]
    assert isinstance(mf, MapFile)
    assert isinstance(uf, UnitsFile)
    assert isinstance(tf, TablesFile)
    assert isinstance(sf, ScenariosFile)
    problems = _check_map(mf) + _check_units(uf) + _check_tables(tf)
    if any(p.startswith("map.toml: terrain") for p in problems):
        return problems
    used = {t for t in mf.terrain.codes.values()}
    have = {e.terrain for e in tf.terrain_effect}
    for t in sorted(used - have):
        problems.append(f"tables.toml: terrain_effect: no entry for map terrain {t.value}")
    tanks_map = _build_map(mf, (e.terrain for e in tf.terrain_effect if e.blocks_los))
    units = {u.id: u for u in uf.unit}
    problems += _check_scenarios(sf, tanks_map, units)
    return problems


def _check_map(mf: MapFile) -> list[str]:
    p: list[str] = []
    spec, grid = mf.map, mf.terrain
    if len(grid.rows) != spec.rows:
        p.append(f"map.toml: terrain: {len(grid.rows)} rows of terrain for a map of {spec.rows}")
    for r, line in enumerate(grid.rows, start=1):
        if len(line) != spec.columns:
            p.append(
                f"map.toml: terrain: row {r:02d} has {len(line)} hexes, the map has "
                f"{spec.columns} columns"
            )
        unknown = sorted(set(line) - set(grid.codes))
        if unknown:
            p.append(f"map.toml: terrain: row {r:02d} uses unknown codes {''.join(unknown)!r}")
    if p:
        return p
    terrain = {
        Hex(c, r): grid.codes[ch]
        for r, line in enumerate(grid.rows, start=1)
        for c, ch in enumerate(line, start=1)
    }
    road_hexes: set[Hex] = set()
    for road in mf.road:
        prev: Hex | None = None
        for h in road.hexes:
            if h not in terrain:
                p.append(f"map.toml: road {road.name}: hex {h} is off the map")
            elif terrain[h] in (Terrain.BUILDING,):
                p.append(f"map.toml: road {road.name}: hex {h} is a building hex")
            if prev is not None and distance(prev, h) != 1:
                p.append(f"map.toml: road {road.name}: {prev} and {h} are not adjacent")
            prev = h
        dup = [str(h) for h, n in Counter(road.hexes).items() if n > 1]
        if dup:
            p.append(f"map.toml: road {road.name}: hexes repeated: {', '.join(dup)}")
        road_hexes |= set(road.hexes)
    for b in mf.bridge:
        if b.hex not in terrain:
            p.append(f"map.toml: bridge {b.hex}: off the map")
            continue
        if b.hex not in road_hexes:
            p.append(f"map.toml: bridge {b.hex}: not on a road (7.7)")
        if terrain[b.hex] is not Terrain.STREAM:
            p.append(f"map.toml: bridge {b.hex}: the hex is {terrain[b.hex].value}, not stream")
    return p


def _check_units(uf: UnitsFile) -> list[str]:
    p: list[str] = []
    for uid, n in Counter(u.id for u in uf.unit).items():
        if n > 1:
            p.append(f"units.toml: {uid}: id used {n} times")
    seen: dict[tuple[Side, str], str] = {}
    for u in uf.unit:
        for name in (u.label, *u.aliases):
            other = seen.get((u.side, name))
            if other is not None and other != u.id:
                p.append(f"units.toml: {u.id}: name {name!r} also names {other}")
            seen[(u.side, name)] = u.id
    return p


def _cell_rank(v: HitCell) -> int:
    return 1 if v == "-" else 12 if v == "X" else int(v)


def _check_tables(tf: TablesFile) -> list[str]:
    p: list[str] = []
    expect = 1
    for i, band in enumerate(tf.to_hit):
        if band.min_range != expect:
            p.append(f"tables.toml: to_hit #{i + 1}: starts at range {band.min_range}, "
                     f"expected {expect}")
        if band.max_range is None:
            if i != len(tf.to_hit) - 1:
                p.append(f"tables.toml: to_hit #{i + 1}: only the last band is open-ended")
            break
        expect = band.max_range + 1
    else:
        p.append("tables.toml: to_hit: the last band must be open-ended (no max_range)")
    he = tf.hit_effects
    classes = [r.class_ for r in he.row]
    wanted = list(ARMOR_CLASSES[: ARMOR_CLASSES.index(he.lowest_class) + 1])
    if classes != wanted:
        p.append(f"tables.toml: hit_effects: rows must be {', '.join(wanted)} in order, "
                 f"found {', '.join(classes)}")
    for row in he.row:
        if len(row.values) != len(he.columns):
            p.append(f"tables.toml: hit_effects row {row.class_}: {len(row.values)} values for "
                     f"{len(he.columns)} columns")
            continue
        ranks = [_cell_rank(v) for v in row.values]
        if ranks != sorted(ranks):
            p.append(f"tables.toml: hit_effects row {row.class_}: a stronger AT factor never "
                     "needs a lower roll; values must not fall left to right")
        bad = sorted(set(row.cell_sources) - set(he.columns))
        if bad:
            p.append(f"tables.toml: hit_effects row {row.class_}: cell_sources name unknown "
                     f"columns {', '.join(bad)}")
    rows = [r for r in he.row if len(r.values) == len(he.columns)]
    for upper, lower in pairwise(rows):
        for i, col in enumerate(he.columns):
            if _cell_rank(lower.values[i]) < _cell_rank(upper.values[i]):
                p.append(f"tables.toml: hit_effects row {lower.class_}: column {col} is harder "
                         f"to destroy than the better-armoured row {upper.class_}")
    ratios = [c.ratio[0] / c.ratio[1] for c in tf.anti_personnel.column]
    needs = [c.need for c in tf.anti_personnel.column]
    if ratios != sorted(ratios) or len(set(ratios)) != len(ratios):
        p.append("tables.toml: anti_personnel: odds columns must rise from left to right")
    if needs != sorted(needs):
        p.append("tables.toml: anti_personnel: better odds never need a lower roll")
    counts = Counter(e.terrain for e in tf.terrain_effect)
    for t in Terrain:
        if counts[t] != 1:
            p.append(f"tables.toml: terrain_effect: {t.value} has {counts[t]} entries, needs 1")
    for (table, cond), n in Counter((d.table, d.condition) for d in tf.drm).items():
        if n > 1:
            p.append(f"tables.toml: drm {cond}: listed {n} times for table {table}")
    ids = Counter(c.id for c in tf.constant)
    for cid, n in ids.items():
        if n > 1:
            p.append(f"tables.toml: constant {cid}: defined {n} times")
    for cid in REQUIRED_CONSTANTS:
        if cid not in ids:
            p.append(f"tables.toml: constant {cid}: missing (the rules engine needs it)")
    missing_kinds = [k.value for k in Kind if k not in tf.road.first_movement_multiplier]
    if missing_kinds:
        p.append(f"tables.toml: road: first_movement_multiplier lacks {', '.join(missing_kinds)}")
    return p


def _check_scenarios(
    sf: ScenariosFile, tanks_map: TanksMap, units: Mapping[str, UnitType]
) -> list[str]:
    p: list[str] = []
    for sid, n in Counter(s.id for s in sf.scenario).items():
        if n > 1:
            p.append(f"scenarios.toml: {sid}: id used {n} times")
    for sec, n in Counter(s.section for s in sf.scenario).items():
        if n > 1:
            p.append(f"scenarios.toml: section {sec}: used by {n} scenarios")
    for s in sf.scenario:
        p += [f"scenarios.toml: {s.id}: {msg}" for msg in _scenario_problems(s, tanks_map, units)]
    return p


def _scenario_problems(
    s: Scenario, tanks_map: TanksMap, units: Mapping[str, UnitType]
) -> list[str]:
    p: list[str] = []
    groups: dict[Side, set[str]] = {Side.GERMAN: set(), Side.SOVIET: set()}
    for i, f in enumerate(s.force, start=1):
        u = units.get(f.unit)
        if u is None:
            p.append(f"force {i}: unknown unit type {f.unit!r}")
        elif u.side is not f.side:
            p.append(f"force {i}: {f.unit} is a {u.side.value} unit, listed for {f.side.value}")
        groups[f.side].add(f.group)

    def group_ok(what: str, side: Side, group: str) -> None:
        if group and group not in groups[side]:
            p.append(f"{what}: no {side.value} force group {group!r}")

    def check_unit(what: str, uid: str) -> None:
        if uid not in units:
            p.append(f"{what}: unknown unit type {uid!r}")

    def check_turns(what: str, turns: Iterable[int]) -> None:
        for t in turns:
            if not 1 <= t <= s.turns:
                p.append(f"{what}: turn {t} is outside the game's {s.turns} turns")

    placed: dict[Side, set[str]] = {Side.GERMAN: set(), Side.SOVIET: set()}
    for i, st in enumerate(s.setup, start=1):
        what = f"set-up {i}"
        group_ok(what, st.side, st.group)
        placed[st.side].add(st.group)
        z = st.zone
        for h in [*z.hexes, *z.boundary]:
            if h not in tanks_map:
                p.append(f"set-up hex {h} is off the map")
        for rect in z.rects:
            (c0, c1), (r0, r1) = rect.cols, rect.rows
            if not (1 <= c0 <= c1 <= tanks_map.columns and 1 <= r0 <= r1 <= tanks_map.rows):
                p.append(f"{what}: rectangle columns {c0}-{c1}, rows {r0}-{r1} is not on the "
                         f"{tanks_map.columns}x{tanks_map.rows} map")
        zone = tanks_map.zone_hexes(z)
        if not zone:
            p.append(f"{what}: the zone holds no map hex")
        for h in z.boundary:
            if h in tanks_map and h not in zone:
                p.append(f"{what}: boundary hex {h} named by the rulebook lies outside the zone")
    for i, e in enumerate(s.entry, start=1):
        what = f"entry {i}"
        group_ok(what, e.side, e.group)
        placed[e.side].add(e.group)
        check_turns(what, e.turns)
        for h in e.hexes:
            if h not in tanks_map:
                p.append(f"{what}: entry hex {h} is off the map")
            elif not tanks_map.edges_of(h) & set(e.edges):
                p.append(f"{what}: entry hex {h} is not on the "
                         f"{'/'.join(x.value for x in e.edges)} edge")
    for side, side_groups in groups.items():
        for g in sorted(side_groups):
            if g not in placed[side] and "" not in placed[side]:
                p.append(f"{side.value} forces{' ' + repr(g) if g else ''} neither set up "
                         "nor enter the map")
    for i, hid in enumerate(s.hidden, start=1):
        what = f"hidden {i}"
        group_ok(what, hid.side, hid.group)
        for uc in hid.unhidden:
            check_unit(what, uc.unit)
            have = sum(f.count for f in s.forces(hid.side) if f.unit == uc.unit)
            if uc.count > have:
                p.append(f"{what}: {uc.count} {uc.unit} must stay unhidden but the force "
                         f"has {have}")
    for i, a in enumerate(s.artillery, start=1):
        check_turns(f"artillery {i}", [*a.turns, a.from_turn])
    for i, m in enumerate(s.mines, start=1):
        if m.in_setup_zone and not any(st.side is m.side for st in s.setup):
            p.append(f"mines {i}: placed in the set-up zone but {m.side.value} has none")
    for sp in s.special:
        for name in sp.treat_as_clear:
            if name not in {t.value for t in Terrain} | {"road", "bridge"}:
                p.append(f"special {sp.id}: {name!r} is not a terrain or feature")
    v = s.victory
    for i, aw in enumerate(v.award, start=1):
        for uid in (*aw.units, *aw.exclude_units):
            check_unit(f"victory award {i}", uid)
    for alt in v.alternative:
        for req in alt.requires:
            for uid in req.units:
                check_unit(f"victory alternative {alt.label}", uid)
    if v.kind == "hill-groups" and not tanks_map.hill_groups:
        p.append("victory: hill-groups victory on a map without hills")
    return p


def _assemble(path: Path, read: _Read) -> TanksPack:
    mf = read.models["map.toml"]
    uf = read.models["units.toml"]
    tf = read.models["tables.toml"]
    sf = read.models["scenarios.toml"]
    man = read.models[MANIFEST]
    assert isinstance(mf, MapFile) and isinstance(uf, UnitsFile)
    assert isinstance(tf, TablesFile) and isinstance(sf, ScenariosFile)
    assert isinstance(man, Manifest)
    tanks_map = _build_map(mf, (e.terrain for e in tf.terrain_effect if e.blocks_los))
    return TanksPack(
        path=path,
        manifest=man,
        map=tanks_map,
        units={u.id: u for u in uf.unit},
        tables=tf,
        scenarios={s.id: s for s in sf.scenario},
        content_hash=packs.hash_files(read.data),
        _map_file=mf,
    )


# -- public entry points -----------------------------------------------------------------------


def check_pack(path: Path) -> list[str]:
    """Every problem of the pack at ``path`` as ``"file: record: message"``; [] if valid.

    Never raises on bad content: missing files, TOML syntax, wrong types, unknown unit types,
    hexes off the map and inconsistent tables all come back as problems.
    """
    try:
        return _read(Path(path)).problems
    except Exception as error:  # a checker must report, not crash
        return [f"{path}: unexpected error while checking: {type(error).__name__}: {error}"]


_CACHE: dict[tuple[Path, tuple[tuple[str, int, int], ...]], TanksPack] = {}


def _signature(path: Path) -> tuple[tuple[str, int, int], ...]:
    sig = []
    for name in _MODELS:
        try:
            st = (path / name).stat()
            sig.append((name, st.st_mtime_ns, st.st_size))
        except OSError:
            sig.append((name, -1, -1))
    return tuple(sig)


def load_pack(path: Path | None = None) -> TanksPack:
    """The validated pack at ``path`` (default ``DEFAULT_PACK``), cached per resolved path.

    The cache is refreshed when a pack file changes on disk. Raises ``PackError`` listing
    every problem when the pack is invalid.
    """
    resolved = Path(path if path is not None else DEFAULT_PACK).resolve()
    key = (resolved, _signature(resolved))
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    read = _read(resolved)
    if read.problems:
        raise PackError(read.problems, resolved)
    pack = _assemble(resolved, read)
    for old in [k for k in _CACHE if k[0] == resolved]:
        del _CACHE[old]
    _CACHE[key] = pack
    return pack


def pack_hash(pack_or_path: TanksPack | Path | str) -> str:
    """sha256 over the pack's ``*.toml`` files in sorted name order (name, length, bytes).

    For a loaded pack this is the hash of the bytes it was loaded from.
    """
    if isinstance(pack_or_path, TanksPack):
        return pack_or_path.content_hash
    return packs.hash_pack_dir(Path(pack_or_path))


def _count_sourced(counter: Counter[str], record: Sourced, values: Iterable[str] = ()) -> None:
    names = list(values)
    if names:
        for name in names:
            counter[provenance(record.source_of(name))] += 1
        return
    counter[provenance(record.source)] += 1
    for src in record.field_sources.values():
        counter[provenance(src)] += 1


def summary(pack: TanksPack) -> dict[str, int | str]:
    """Counts for a GM: hexes by terrain, unit types per side, scenarios, value provenance."""
    out: dict[str, int | str] = {
        "name": pack.name,
        "version": pack.version,
        "hash": pack.content_hash[:16],
        "map": f"{pack.map.columns}x{pack.map.rows}",
        "hexes": len(pack.map.hexes),
    }
    terrain = Counter(pack.map.terrain.values())
    for t in Terrain:
        out[f"hexes.{t.value}"] = terrain[t]
    out["hexes.road"] = len(pack.map.road_hexes)
    out["hexes.bridge"] = len(pack.map.bridges)
    out["hill_groups"] = len(pack.map.hill_groups)
    for side in Side:
        out[f"units.{side.value}"] = sum(1 for u in pack.units.values() if u.side is side)
    out["scenarios"] = len(pack.scenarios)

    prov: Counter[str] = Counter()
    mf = pack._map_file
    _count_sourced(prov, mf.map, ("columns", "rows", "orientation", "hex_metres"))
    prov[provenance(mf.terrain.source)] += len(pack.map.hexes)
    for road in mf.road:
        _count_sourced(prov, road)
    for bridge in mf.bridge:
        _count_sourced(prov, bridge)
    for u in pack.units.values():
        for src in u.value_sources().values():
            prov[provenance(src)] += 1
    tb = pack.tables
    for band in tb.to_hit:
        _count_sourced(prov, band)
    for d in tb.drm:
        _count_sourced(prov, d)
    prov[provenance(tb.anti_personnel.source)] += len(tb.anti_personnel.column)
    for row in tb.hit_effects.row:
        for col in tb.hit_effects.columns:
            prov[provenance(row.cell_sources.get(col, row.source))] += 1
    for eff in tb.terrain_effect:
        _count_sourced(prov, eff, ("move_cost", "blocks_los", "at_to_hit_drm",
                                   "defense_multiplier", "armor_class_shift"))
    for rec in (tb.road, tb.bridge, tb.scatter, tb.barrage, *tb.constant):
        _count_sourced(prov, rec)
    for s in pack.scenarios.values():
        _count_sourced(prov, s)
        for item in (*s.force, *s.setup, *s.hidden, *s.entry, *s.artillery, *s.mines,
                     *s.special, s.victory):
            _count_sourced(prov, item)
    out["values.rulebook"] = prov["rulebook"]
    out["values.reconstructed"] = prov["reconstructed"]
    return out
