"""The Stalin's Tanks pack's checks beyond each record's own: what the files must agree on.

Every problem is one line, ``"file: record: message"``, like the kernel's validation lines
(:mod:`adjudicator.kernel.packs`). Most are errors: the rules cannot read a pack that breaks
them. The shape the rulebook's printed tables and map have — a better-armoured row never
easier to destroy and a row's values never falling left to right (10.5), better
Anti-Personnel odds never needing a lower roll (13.4), a bridge on a road (7.7) — is a
:class:`~adjudicator.kernel.packs.PackWarning`: a GM correcting a cell from the physical game
may depart from it, so ``umpire data check`` shows it (an error only with ``--strict``) and
the pack still loads.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from itertools import pairwise

from adjudicator.kernel.packs import PackWarning
from adjudicator.tanks.data_models import (
    ARMOR_CLASSES,
    HitCell,
    Kind,
    MapFile,
    Scenario,
    ScenariosFile,
    Side,
    TablesFile,
    TanksMap,
    Terrain,
    UnitsFile,
    UnitType,
    build_map,
)
from adjudicator.tanks.hexgrid import Hex, distance

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


def cross_check(mf: MapFile, uf: UnitsFile, tf: TablesFile, sf: ScenariosFile) -> list[str]:
    """Every problem between and within the validated files: the terrain grid, roads and
    bridges, duplicate unit names, inconsistent tables, scenarios naming what does not exist."""
    problems = _check_map(mf) + _check_units(uf) + _check_tables(tf)
    if any(p.startswith("map.toml: terrain") for p in problems):
        return problems
    used = {t for t in mf.terrain.codes.values()}
    have = {e.terrain for e in tf.terrain_effect}
    for t in sorted(used - have):
        problems.append(f"tables.toml: terrain_effect: no entry for map terrain {t.value}")
    tanks_map = build_map(mf, (e.terrain for e in tf.terrain_effect if e.blocks_los))
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
            # A map fact, not a structural one: the rules count a bridge hex as a road hex
            # on their own (7.7), so a corrected map whose bridge is off the printed road
            # net still plays; warned, as the shipped map has every bridge on a road.
            p.append(PackWarning(f"map.toml: bridge {b.hex}: not on a road (7.7)"))
        if terrain[b.hex] is not Terrain.STREAM:
            # Structural: the rules read a bridge as the stream it negates made clear (7.7);
            # on any other terrain it would silently erase that terrain (woods, a hill).
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
        # Structural: the rules shift a target's Armour Class along this order (8.5, 10.7).
        p.append(f"tables.toml: hit_effects: rows must be {', '.join(wanted)} in order, "
                 f"found {', '.join(classes)}")
    for row in he.row:
        if len(row.values) != len(he.columns):
            p.append(f"tables.toml: hit_effects row {row.class_}: {len(row.values)} values for "
                     f"{len(he.columns)} columns")
            continue
        ranks = [_cell_rank(v) for v in row.values]
        if ranks != sorted(ranks):
            # The printed table's shape (10.5), not its structure: the rules read each cell
            # on its own, so a GM's cell corrected from the physical game may break it.
            p.append(PackWarning(
                f"tables.toml: hit_effects row {row.class_}: a stronger AT factor never "
                "needs a lower roll; values must not fall left to right (10.5)"))
        bad = sorted(set(row.cell_sources) - set(he.columns))
        if bad:
            p.append(f"tables.toml: hit_effects row {row.class_}: cell_sources name unknown "
                     f"columns {', '.join(bad)}")
    rows = [r for r in he.row if len(r.values) == len(he.columns)]
    for upper, lower in pairwise(rows):
        for i, col in enumerate(he.columns):
            if _cell_rank(lower.values[i]) < _cell_rank(upper.values[i]):
                p.append(PackWarning(
                    f"tables.toml: hit_effects row {lower.class_}: column {col} is harder to "
                    f"destroy than the better-armoured row {upper.class_} (10.5)"))
    ratios = [c.ratio[0] / c.ratio[1] for c in tf.anti_personnel.column]
    needs = [c.need for c in tf.anti_personnel.column]
    if ratios != sorted(ratios) or len(set(ratios)) != len(ratios):
        p.append("tables.toml: anti_personnel: odds columns must rise from left to right")
    if needs != sorted(needs):
        p.append(PackWarning("tables.toml: anti_personnel: better odds never need a lower "
                             "roll (13.4)"))
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
