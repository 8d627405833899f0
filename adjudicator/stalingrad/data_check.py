"""Checks of a Turning Point: Stalingrad data pack beyond single-record types.

Every function returns messages "file: record: message" and never raises on bad content.
Three groups:

* references and symmetry (borders, Zone links, arrows, unit setup Areas, scenario ids);
* geometry: two Areas share a polygon edge exactly when ``borders`` says so (3.2), River
  Bank Areas are exactly those touching the Volga, no Area touches the east bank;
* rulebook facts: what the rulebook states about the map, counters and schedules (Glossary,
  5.4, 5.6, 5.7, 8.2, 12.1, 13.2, 15.21, 15.212, 17.23, 19.1, the Players Notes examples).
  These are **warnings** (:class:`adjudicator.kernel.packs.PackWarning`): the rulebook's
  transcription may be what is wrong, and a GM with the physical game may correct the pack,
  so a departure is shown by ``umpire data check`` (an error only with ``--strict``) and
  never refuses the pack. The first two groups are errors: the rules cannot read a pack that
  breaks them.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from datetime import date, timedelta

from adjudicator.kernel.packs import PackWarning, warn
from adjudicator.stalingrad.data_models import (
    QUADRANT_KEYS,
    Area,
    Calendar,
    FagBox,
    Formation,
    Point,
    Quadrant,
    Region,
    Scenario,
    Tables,
    Unit,
    Zone,
)
from adjudicator.stalingrad.sides import SIDES

AREAS, ZONES, UNITS, CAL, TABLES, SCEN, MAP = (
    "areas.toml", "zones.toml", "units.toml", "calendar.toml", "tables.toml",
    "scenarios.toml", "map.toml",
)

# ------------------------------------------------------------------- rulebook facts (data)
#: Glossary, 18.3: the Ferry Landings.
FERRY_LANDINGS = frozenset({"31", "62", "63", "64", "67", "68", "70", "71", "H"})
#: 5.7: white Rubble symbols.
RUBBLE_SYMBOLS = frozenset({33, 59, 61, 62, 63, 64, 65, 66})
#: 15.21: triangular IDs (hills).
TRIANGLES = frozenset({23, 56})
#: 12.1: supply Zones.
GERMAN_SUPPLY_ZONES = frozenset("CDEF")
RUSSIAN_SUPPLY_ZONES = frozenset("ABGH")
#: Adjacencies the rules text and the Players Notes examples state, with their source.
STATED_ADJACENT: tuple[tuple[str, str, str], ...] = (
    ("B", "3", "8.2"),
    ("7", "6", "Players Notes Example 1"),
    ("7", "24", "Players Notes Example 1"),
    ("6", "24", "Players Notes Examples 1, 3"),
    ("6", "25", "Players Notes Examples 1, 3"),
    ("24", "25", "Players Notes Example 1"),
    ("24", "35", "Players Notes Example 1"),
    ("24", "36", "Players Notes Example 3"),
    ("25", "34", "Players Notes Example 1"),
    ("25", "35", "Players Notes Examples 1, 2, 3, 5"),
    ("35", "36", "Players Notes Examples 2, 3"),
    ("30", "31", "Players Notes Example 4"),
    ("6", "C", "Players Notes Example 3"),
    ("C", "D", "Players Notes Example 3"),
    ("D", "E", "Players Notes Example 3"),
    ("E", "F", "Players Notes Example 3"),
    ("F", "G", "Players Notes Example 3"),
)
#: TEMs the examples' arithmetic fixes.
STATED_TEM: tuple[tuple[int, int, str], ...] = (
    (6, 2, "Players Notes Example 3 (9 vs 1 + 2 TEM)"),
    (24, 2, "Players Notes Example 1 (5:4 vs a 1-2-4)"),
    (25, 2, "Players Notes Example 3 (8:4 vs a 1-2-4)"),
    (30, 3, "Players Notes Example 4 (3 + 3 TEM + 1)"),
    (35, 2, "Players Notes Example 5 (2 + 1 + 2 TEM)"),
    (36, 1, "Players Notes Example 2 (1 + 2 doubled TEM)"),
    (62, 4, "17.3 example (Stuka 8:7 vs Russian 3s)"),
)
#: 15.212: within / beyond three Areas of Hill 102.
HILL_102_WITHIN = (42, 53, 68)
HILL_102_BEYOND = (43, 52)
#: Kuibyshev Sawmill scenario 1-2: Areas in the South Quadrant.
SOUTH_AREAS = (5, 33, 61, 62)
#: The single numbers the rules text states (tables.toml [constants]), with the rule.
STATED_CONSTANTS: tuple[tuple[str, object, str], ...] = (
    ("stacking_limit", 10, "7.1"),
    ("initial_rubble_threshold", 7, "5.7"),
    ("rubble_creation_threshold", 13, "14.2"),
    ("fortification_threshold", 7, "14.3"),
    ("fortification_infantry", 3, "14.3"),
    ("max_rubble", 2, "14.2"),
    ("rubble_overrun_margin", (4, 7), "14.6"),
    ("rubble_removal_per_cp", 3, "14.6"),
    ("german_artillery_interval_days", 4, "15.1"),
    ("sept13_german_day_impulses", 12, "20.2"),
    ("sept13_russian_day_impulses", 11, "20.2"),
    ("regimental_integrity_units", 3, "Glossary"),
    ("regimental_integrity_min_battalions", 3, "Glossary"),
)


def _edges(poly: Sequence[Point]) -> Iterable[tuple[Point, Point]]:
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        ka = (round(a[0], 6), round(a[1], 6))
        kb = (round(b[0], 6), round(b[1], 6))
        if ka != kb:
            yield (ka, kb) if ka < kb else (kb, ka)


def point_in_polygon(p: Point, poly: Sequence[Point]) -> bool:
    x, y = p
    inside = False
    n = len(poly)
    for i in range(n):
        (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % n]
        if (y0 > y) != (y1 > y):
            xc = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
            if xc > x:
                inside = not inside
    return inside


def polygon_area(poly: Sequence[Point]) -> float:
    s = 0.0
    n = len(poly)
    for i in range(n):
        (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % n]
        s += x0 * y1 - x1 * y0
    return abs(s) / 2


def _cross(o: Point, a: Point, b: Point) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _segments_cross(p1: Point, p2: Point, q1: Point, q2: Point) -> bool:
    """Proper crossing (interiors intersect at one point); shared endpoints don't count."""
    d1, d2 = _cross(q1, q2, p1), _cross(q1, q2, p2)
    d3, d4 = _cross(p1, p2, q1), _cross(p1, p2, q2)
    return (d1 * d2 < 0) and (d3 * d4 < 0)


def self_intersections(poly: Sequence[Point]) -> list[tuple[int, int]]:
    """Pairs of non-adjacent edges of ``poly`` that cross (a simple polygon has none)."""
    n = len(poly)
    out = []
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue
            if _segments_cross(poly[i], poly[(i + 1) % n], poly[j], poly[(j + 1) % n]):
                out.append((i, j))
    return out


# ------------------------------------------------------------------------------- map


def check_map(
    areas: dict[int, Area],
    zones: dict[str, Zone],
    quadrants: Sequence[Quadrant],
    volga: Region | None,
    east_bank: Region | None,
    fag_boxes: Sequence[FagBox],
    known_areas: set[int],
    known_zones: set[str],
) -> list[str]:
    msgs: list[str] = []
    quad_by_key = {q.key: q for q in quadrants}
    for key in QUADRANT_KEYS:
        if key not in quad_by_key:
            msgs.append(f"{MAP}: quadrant {key}: missing (15.31 has four Quadrants)")
    if sorted(b.quadrant for b in fag_boxes) != sorted(QUADRANT_KEYS):
        msgs.append(f"{MAP}: fag_box: need one FAG box per Quadrant (5.3, 15.31)")

    # borders: existence, symmetry
    for n, area in sorted(areas.items()):
        rec = f"{AREAS}: Area {n}"
        for b in area.borders:
            if b == n:
                msgs.append(f"{rec}: borders itself")
            elif b not in known_areas:
                msgs.append(f"{rec}: adjacent to {b}, which does not exist")
            elif b in areas and n not in areas[b].borders:
                msgs.append(f"{rec}: borders {b}, but Area {b} does not border {n}")
        dup = [b for b, c in Counter(area.borders).items() if c > 1]
        if dup:
            msgs.append(f"{rec}: borders lists {', '.join(map(str, dup))} twice")
        if area.quadrant in quad_by_key and not point_in_polygon(
            area.label, quad_by_key[area.quadrant].polygon
        ):
            msgs.append(
                f"{rec}: label (ID) lies outside the {area.quadrant} Quadrant it claims (15.31)"
            )
        if not point_in_polygon(area.label, area.polygon):
            msgs.append(f"{rec}: label {area.label} lies outside its polygon")
    for letter, zone in sorted(zones.items()):
        rec = f"{ZONES}: Zone {letter}"
        for z in zone.zones:
            if z == letter:
                msgs.append(f"{rec}: linked to itself")
            elif z not in known_zones:
                msgs.append(f"{rec}: linked to Zone {z}, which does not exist")
            elif z in zones and letter not in zones[z].zones:
                msgs.append(f"{rec}: linked to Zone {z}, but Zone {z} does not link back")
        for a in zone.arrows:
            if a not in known_areas:
                msgs.append(f"{rec}: arrow to Area {a}, which does not exist")
        want = {areas[a].quadrant for a in zone.arrows if a in areas}
        if want and set(zone.quadrants) != want:
            msgs.append(
                f"{rec}: quadrants {sorted(zone.quadrants)} but its arrows lead to Areas in "
                f"{sorted(want)} (15.31)"
            )
        if not point_in_polygon(zone.label, zone.polygon):
            msgs.append(f"{rec}: label {zone.label} lies outside its polygon")

    # geometry: shared polygon edges <-> borders / zone links
    owners: dict[tuple[Point, Point], list[str]] = defaultdict(list)
    for n, area in areas.items():
        for e in set(_edges(area.polygon)):
            owners[e].append(str(n))
    for letter, zone in zones.items():
        for e in set(_edges(zone.polygon)):
            owners[e].append(letter)
    special = {}
    if volga is not None:
        special["volga"] = volga
    if east_bank is not None:
        special["east"] = east_bank
    for tag, region in special.items():
        for e in set(_edges(region.polygon)):
            owners[e].append(tag)
    touching: dict[str, set[str]] = defaultdict(set)
    for keys in owners.values():
        for k in keys:
            touching[k].update(x for x in keys if x != k)
    for n, area in sorted(areas.items()):
        rec = f"{AREAS}: Area {n}"
        geo = {int(k) for k in touching[str(n)] if k.isdigit()}
        for b in sorted(set(area.borders) - geo):
            if b in areas:
                msgs.append(f"{rec}: borders {b}, but their polygons share no edge")
        for b in sorted(geo - set(area.borders)):
            msgs.append(f"{rec}: polygon shares an edge with Area {b}, which is not in borders")
        for z in sorted(k for k in touching[str(n)] if k.isalpha() and len(k) == 1):
            msgs.append(
                f"{rec}: polygon touches Zone {z}; Zones connect to Areas by arrows only (11.1)"
            )
        if volga is not None:
            on_volga = "volga" in touching[str(n)]
            if on_volga != area.river_bank:
                msgs.append(
                    f"{rec}: river_bank is {str(area.river_bank).lower()} but the polygon "
                    f"{'touches' if on_volga else 'does not touch'} the Volga"
                )
        if "east" in touching[str(n)]:
            msgs.append(f"{rec}: touches the east bank; only the Volga separates them (18.3)")
        if polygon_area(area.polygon) <= 0:
            msgs.append(f"{rec}: polygon has no area")
    for letter, zone in sorted(zones.items()):
        rec = f"{ZONES}: Zone {letter}"
        geo_z = {k for k in touching[letter] if k.isalpha() and len(k) == 1}
        for z in sorted(set(zone.zones) - geo_z):
            if z in zones:
                msgs.append(f"{rec}: linked to Zone {z}, but their polygons share no edge")
        for z in sorted(geo_z - set(zone.zones)):
            msgs.append(f"{rec}: polygon shares an edge with Zone {z}, which is not in zones")

    # connectivity (every space reachable)
    graph: dict[str, set[str]] = defaultdict(set)
    for n, area in areas.items():
        graph[str(n)].update(str(b) for b in area.borders if b in areas)
    for letter, zone in zones.items():
        graph[letter].update(z for z in zone.zones if z in zones)
        for a in zone.arrows:
            if a in areas:
                graph[letter].add(str(a))
                graph[str(a)].add(letter)
    keys = [str(n) for n in areas] + list(zones)
    if keys:
        seen = {keys[0]}
        todo = [keys[0]]
        while todo:
            k = todo.pop()
            for m in graph[k]:
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        cut = sorted(set(keys) - seen, key=lambda k: (not k.isdigit(), k.zfill(3)))
        if cut:
            msgs.append(
                f"{AREAS}: map: not connected; unreachable from {keys[0]}: {', '.join(cut)}"
            )
    return msgs


def check_polygons_simple(areas: dict[int, Area], zones: dict[str, Zone]) -> list[str]:
    """No polygon crosses itself (slow path: used by check_pack, not on every load)."""
    msgs = []
    for n, area in sorted(areas.items()):
        if self_intersections(area.polygon):
            msgs.append(f"{AREAS}: Area {n}: polygon crosses itself")
    for letter, zone in sorted(zones.items()):
        if self_intersections(zone.polygon):
            msgs.append(f"{ZONES}: Zone {letter}: polygon crosses itself")
    return msgs


# ----------------------------------------------------------------------------- units


def check_units(
    formations: Sequence[Formation],
    units: Sequence[Unit],
    areas: dict[int, Area],
    calendar: Calendar | None,
    stacking_limit: int,
) -> list[str]:
    msgs: list[str] = []
    ids = Counter(u.id for u in units)
    for uid, c in sorted(ids.items()):
        if c > 1:
            msgs.append(f"{UNITS}: unit {uid}: id used by {c} counters")
    symbols = {(a.setup_colour, a.id_shape) for a in areas.values() if not a.white}
    per_area: Counter[str] = Counter()
    has_match: dict[str, bool] = {}
    for u in units:
        rec = f"{UNITS}: unit {u.id}"
        for s in u.setup:
            if (s.colour, s.shape) not in symbols:
                msgs.append(f"{rec}: setup symbol {s} matches no Area ID (5.4)")
        if s_wrong := [s for s in u.setup if (u.side == "german") != (s.shape == "square")]:
            msgs.append(PackWarning(
                f"{rec}: setup {s_wrong[0]}: German units set up on squares, Russians on "
                "circles/triangles (5.4)"
            ))
        if u.historical is not None:
            if not u.historical.isdigit() or int(u.historical) not in areas:
                msgs.append(f"{rec}: historical Area {u.historical} does not exist")
            else:
                area = areas[int(u.historical)]
                if not any(s.matches(area) for s in u.setup):
                    msgs.append(
                        f"{rec}: historical Area {area.number} has a {area.setup_colour} "
                        f"{area.id_shape} ID, not the unit's setup symbol (5.4, 21.2)"
                    )
                if u.combat:
                    per_area[area.key] += 1
        if calendar is not None:
            for what, day in (("arrive", u.arrive), ("withdraw", u.withdraw)):
                if day is not None and not calendar.first < day <= calendar.last:
                    msgs.append(f"{rec}: {what} {day} is not a later date of the Turn Record "
                                "Track")
        if u.withdraw is not None and u.side != "german":
            msgs.append(f"{rec}: only German units are withdrawn (21.3)")
        if u.arrive and u.withdraw and u.withdraw <= u.arrive:
            msgs.append(f"{rec}: withdrawn before it arrives")
    for key, count in sorted(per_area.items(), key=lambda kv: int(kv[0])):
        if count > stacking_limit:
            msgs.append(
                f"{UNITS}: historical setup: Area {key}: {count} Combat units, more than "
                f"{stacking_limit} (5.6)"
            )
    for area in areas.values():
        has_match[area.key] = any(
            s.matches(area) for u in units if u.combat for s in u.setup
        ) if not area.white else True
    for key, ok in sorted(has_match.items(), key=lambda kv: int(kv[0])):
        if not ok:
            a = areas[int(key)]
            msgs.append(
                f"{AREAS}: Area {key}: {a.setup_colour} {a.id_shape} ID, but no Combat unit "
                "carries that setup symbol (5.6)"
            )
    for area in areas.values():
        if area.white and per_area.get(area.key):
            msgs.append(f"{UNITS}: historical setup: Area {area.key} has a white ID (5.6)")
    quads = sorted(u.quadrant or "" for u in units if u.type == "fag")
    if quads != sorted(QUADRANT_KEYS):
        msgs.append(f"{UNITS}: FAG units: need one per Quadrant (15.31), found {quads}")
    if sum(1 for u in units if u.type == "luftwaffe") != 1:
        msgs.append(f"{UNITS}: Luftwaffe: exactly one unit represents all German aircraft "
                    "(4.26)")
    for i, f in enumerate(formations):
        if f.type in ("fag", "luftwaffe") and f.factors:
            msgs.append(f"{UNITS}: formation {i + 1}: {f.type} strength comes from the "
                        "calendar, not factors")
    return msgs


# -------------------------------------------------------------------------- calendar


def check_calendar(cal: Calendar) -> list[str]:
    msgs: list[str] = []
    expected = cal.first
    for i, week in enumerate(cal.weeks):
        if week.number != i + 1:
            msgs.append(f"{CAL}: week {week.number}: numbered out of order (expected {i + 1})")
        if week.start != expected:
            msgs.append(f"{CAL}: week {week.number}: starts {week.start}, expected {expected}")
        expected = week.end + timedelta(days=1)
    if cal.weeks and cal.weeks[-1].end != cal.last:
        msgs.append(f"{CAL}: calendar: last week ends {cal.weeks[-1].end}, not {cal.last}")
    for name, steps in (("luftwaffe", cal.luftwaffe), ("fag", cal.fag),
                        ("german_dv_bonus", cal.german_dv_bonus),
                        ("interdiction", cal.interdiction)):
        if not steps or steps[0].start != cal.first:
            msgs.append(f"{CAL}: {name}: the first step must start on {cal.first}")
        for a, b in itertools.pairwise(steps):
            if b.start <= a.start:
                msgs.append(f"{CAL}: {name}: steps out of date order at {b.start}")
    base = [d for d in cal.daylight if d.option is None]
    if not base or base[0].start != cal.first:
        msgs.append(f"{CAL}: daylight: need a step without option starting {cal.first}")
    if not cal.first <= cal.base_counters_until <= cal.last:
        msgs.append(f"{CAL}: calendar: base_counters_until outside the track")
    return msgs


# ------------------------------------------------------------------------- scenarios


def check_scenarios(
    scenarios: dict[str, Scenario],
    areas: dict[int, Area],
    zones: dict[str, Zone],
    units: dict[str, Unit],
    calendar: Calendar | None,
) -> list[str]:
    msgs: list[str] = []
    colours = {a.setup_colour for a in areas.values()}
    for key, sc in scenarios.items():
        rec = f"{SCEN}: scenario {key}"
        for n in sc.rubble_roll_areas:
            if n not in areas:
                msgs.append(f"{rec}: rubble roll in Area {n}, which does not exist")
            elif not areas[n].rubble_symbol:
                msgs.append(f"{rec}: rubble roll in Area {n}, which has no Rubble symbol (5.7)")
            elif areas[n].quadrant not in sc.playable_quadrants:
                msgs.append(f"{rec}: rubble roll in Area {n}, outside the playable Quadrants")
        if calendar is not None and not (
            calendar.first <= sc.start <= sc.end <= calendar.last
        ):
            msgs.append(f"{rec}: dates {sc.start}..{sc.end} outside the Turn Record Track")
        if sc.victory == "vp_at_week_end" and sc.victory_vp is None:
            msgs.append(f"{rec}: victory vp_at_week_end needs victory_vp")
        if sc.interdiction_bonus is not None and sc.interdiction_bonus[0] not in areas:
            msgs.append(f"{rec}: interdiction bonus Area {sc.interdiction_bonus[0]} unknown")
        for side_name in SIDES:
            side = sc.side(side_name)
            for c in side.colours or ():
                if c not in colours:
                    msgs.append(f"{rec}: {side_name} colour {c} is on no Area ID")
            for z in side.entry_zones or ():  # Zones, or Areas (21.3: "Zones A, B, C or Area 30")
                if (z.isdigit() and int(z) not in areas) or (not z.isdigit() and z not in zones):
                    msgs.append(f"{rec}: {side_name} entry point {z} does not exist")
            for p in side.placements:
                if (p.area.isdigit() and int(p.area) not in areas) or (
                    not p.area.isdigit() and p.area not in zones
                ):
                    msgs.append(f"{rec}: {side_name} placement in {p.area}, which does not "
                                "exist")
                for uid in p.units:
                    if uid not in units:
                        msgs.append(f"{rec}: {side_name} placement names unit {uid}, which "
                                    "does not exist")
                    elif units[uid].side != side_name:
                        msgs.append(f"{rec}: unit {uid} is not {side_name}")
    return msgs


# ---------------------------------------------------------------------- rulebook facts


def _distance(areas: dict[int, Area], a: int, b: int) -> int | None:
    seen = {a: 0}
    todo = [a]
    for k in todo:
        if k == b:
            return seen[k]
        for m in areas[k].borders:
            if m in areas and m not in seen:
                seen[m] = seen[k] + 1
                todo.append(m)
    return None


def check_rulebook_facts(
    areas: dict[int, Area],
    zones: dict[str, Zone],
    units: dict[str, Unit],
    calendar: Calendar | None,
    tables: Tables | None,
) -> list[str]:
    """What the rulebook itself says, checked against the pack: warnings, every one."""
    msgs: list[str] = []
    if sorted(areas) != list(range(1, 75)):
        missing = sorted(set(range(1, 75)) - set(areas))
        extra = sorted(set(areas) - set(range(1, 75)))
        msgs.append(f"{AREAS}: map: the board has 74 Areas numbered 1-74 (3.2); missing "
                    f"{missing or 'none'}, extra {extra or 'none'}")
    if sorted(zones) != list("ABCDEFGH"):
        msgs.append(f"{ZONES}: map: eight Zones lettered A-H (3.3); found {sorted(zones)}")

    def space(key: str) -> Area | Zone | None:
        return areas.get(int(key)) if key.isdigit() else zones.get(key)

    ferries = {str(n) for n, a in areas.items() if a.ferry_landing} | {
        k for k, z in zones.items() if z.ferry_landing
    }
    for k in sorted(FERRY_LANDINGS - ferries):
        if space(k) is not None:
            msgs.append(f"{_file(k)}: {_rec(k)}: ferry_landing is false, but the Glossary and "
                        "18.3 name it a Ferry Landing")
    for k in sorted(ferries - FERRY_LANDINGS):
        msgs.append(f"{_file(k)}: {_rec(k)}: ferry_landing is true, but the Glossary names "
                    "only 31, 62, 63, 64, 67, 68, 70, 71 and H")
    for n, a in sorted(areas.items()):
        rec = f"{AREAS}: Area {n}"
        if a.ferry_landing and not a.river_bank:
            msgs.append(f"{rec}: a Ferry Landing lies in the Volga, so it is a River Bank Area "
                        "(Glossary)")
        want_vp = 3 if n == 56 else (2 if a.ferry_landing else (1 if a.river_bank else 0))
        if a.vp != want_vp:
            msgs.append(f"{rec}: vp is {a.vp}, 19.1 gives {want_vp}")
        if a.rubble_symbol != (n in RUBBLE_SYMBOLS):
            msgs.append(f"{rec}: rubble_symbol is {str(a.rubble_symbol).lower()}; 5.7 lists "
                        "33, 59, 61-66")
        if (a.id_shape == "triangle") != (n in TRIANGLES):
            msgs.append(f"{rec}: id_shape {a.id_shape}; only Areas 23 and 56 have triangular "
                        "IDs (15.21)")
        want_supply = "russian" if (a.ferry_landing or n == 30) else "none"
        if a.supply != want_supply:
            msgs.append(f"{rec}: supply {a.supply}; 12.1 gives {want_supply}")
    for k, z in sorted(zones.items()):
        rec = f"{ZONES}: Zone {k}"
        want = "german" if k in GERMAN_SUPPLY_ZONES else "russian"
        if z.supply != want:
            msgs.append(f"{rec}: supply {z.supply}; 12.1 gives {want}")
        want_vp = 2 if z.ferry_landing else 0
        if z.vp != want_vp:
            msgs.append(f"{rec}: vp is {z.vp}, 19.1 gives {want_vp}")
    if "H" in zones and zones["H"].initial_control != "german":
        msgs.append(f"{ZONES}: Zone H: 19.1: the Ferry Landing in Zone H is initially held by "
                    "the Germans")
    total = sum(a.vp for a in areas.values()) + sum(z.vp for z in zones.values())
    if total != 28:
        msgs.append(f"{AREAS}: map: Victory Points total {total}, 19.1 says 28")
    plain_banks = sum(1 for a in areas.values() if a.river_bank and not a.ferry_landing)
    if plain_banks != 7 and len(ferries) == 9:
        msgs.append(f"{AREAS}: map: {plain_banks} River Bank Areas without a Ferry Landing; "
                    "28 VP (19.1) needs 7")
    if 56 in areas and areas[56].observation_range != 3:
        msgs.append(f"{AREAS}: Area 56: observation_range must be 3 (15.212)")
    if 23 in areas and areas[23].observation_range != 2:
        msgs.append(f"{AREAS}: Area 23: observation_range must be 2 (15.211)")
    for n, a in areas.items():
        if n not in (23, 56) and a.observation_range != 1:
            msgs.append(f"{AREAS}: Area {n}: observation_range must be 1 (15.21)")

    def adjacent(x: str, y: str) -> bool:
        sx, sy = space(x), space(y)
        if isinstance(sx, Area) and isinstance(sy, Area):
            return sy.number in sx.borders
        if isinstance(sx, Zone) and isinstance(sy, Zone):
            return sy.letter in sx.zones
        if isinstance(sx, Zone) and isinstance(sy, Area):
            return sy.number in sx.arrows
        if isinstance(sx, Area) and isinstance(sy, Zone):
            return sx.number in sy.arrows
        return False

    for x, y, why in STATED_ADJACENT:
        if space(x) is not None and space(y) is not None and not adjacent(x, y):
            msgs.append(f"{_file(x)}: {_rec(x)}: must connect to {_rec(y)} ({why})")
    for n, tem, why in STATED_TEM:
        if n in areas and areas[n].tem != tem:
            msgs.append(f"{AREAS}: Area {n}: tem {areas[n].tem}, but {why} needs {tem}")
    if 56 in areas:
        for n in HILL_102_WITHIN:
            d = _distance(areas, 56, n) if n in areas else None
            if d is None or d > 3:
                msgs.append(f"{AREAS}: Area {n}: must be within three Areas of Area 56 "
                            f"(15.212); distance {d}")
        for n in HILL_102_BEYOND:
            d = _distance(areas, 56, n) if n in areas else None
            if d is not None and d <= 3:
                msgs.append(f"{AREAS}: Area {n}: must be beyond three Areas of Area 56 "
                            f"(15.212); distance {d}")
    for n in SOUTH_AREAS:
        if n in areas and areas[n].quadrant != "south":
            msgs.append(f"{AREAS}: Area {n}: the Kuibyshev Sawmill scenario puts it in the "
                        "South Quadrant")

    # counters
    def need_unit(uid: str, why: str, **want: object) -> None:
        u = units.get(uid)
        if u is None:
            msgs.append(f"{UNITS}: unit {uid}: missing ({why})")
            return
        for field, value in want.items():
            got = u.factors if field == "factors" else getattr(u, field)
            if got != value:
                msgs.append(f"{UNITS}: unit {uid}: {field} is {got!r}, {why} says {value!r}")

    need_unit("R284:III/1045", "Glossary", factors="4-5-4", regiment="1045")
    need_unit("R10RB:390", "4.32", factors="1-3-4", size="III")
    need_unit("G:Stahel", "5.4", type="pak", arrive=date(1942, 9, 15))
    need_unit("G24Pz:670", "5.5", type="pak", withdraw=date(1942, 9, 27))
    nkvd272 = [u for u in units.values() if u.parent == "10NKVD" and u.regiment == "272"]
    if len(nkvd272) != 3 or any(
        not any(s.colour == "orange" for s in u.setup) for u in nkvd272
    ):
        msgs.append(f"{UNITS}: 10th NKVD 272nd Regiment: three orange-coded units "
                    "(Kuibyshev Sawmill scenario 2)")
    yellow = [u for u in units.values()
              if u.side == "german" and any(s.colour == "yellow" for s in u.setup)]
    if len(yellow) != 3:
        msgs.append(f"{UNITS}: German yellow-coded units: {len(yellow)}, the Kuibyshev "
                    "Sawmill scenario (2) speaks of three")
    for u in units.values():
        if u.type == "artillery" and (u.defense is not None or u.night_attack is None):
            msgs.append(f"{UNITS}: unit {u.id}: German Artillery shows Day OV-X-MF and a night "
                        "OV (4.25)")
    if calendar is not None:
        for day, want_lw in ((date(1942, 9, 26), 8), (date(1942, 9, 27), 5),
                             (date(1942, 10, 13), 5), (date(1942, 10, 14), 9)):
            got = _try(calendar.luftwaffe_attack, day)
            if got != want_lw:
                msgs.append(f"{CAL}: luftwaffe: {day} strength {got}, 17.23 says {want_lw}")
        for day, want_fag in ((date(1942, 9, 26), 1), (date(1942, 9, 27), 2),
                              (date(1942, 10, 31), 2), (date(1942, 11, 1), 3)):
            got = _try(calendar.fag_strength, day)
            if got != want_fag:
                msgs.append(f"{CAL}: fag: {day} strength {got}, 15.3 says {want_fag}")
        ends = [w.end for w in calendar.weeks]
        want_ends = [date(1942, 9, 19) + timedelta(days=7 * i) for i in range(9)]
        if ends != want_ends:
            msgs.append(f"{CAL}: weeks: 6.4 ends weeks on Sept 19, 26, Oct 3, 10, 17, 24, 31, "
                        "Nov 7 and 14")
    if tables is not None:
        for constant, stated, rule in STATED_CONSTANTS:
            value = getattr(tables.constants, constant)
            if value != stated:
                msgs.append(f"{TABLES}: constants: {constant} is {value!r}, {rule} says "
                            f"{stated!r}")
        crossing = [(dr, _try(lambda d: tables.crossing.result(d).duration, dr))
                    for dr in range(2, 30)]
        for dr, dur in crossing:
            want_dur = {12: 1, 13: 2, 14: 1, 15: 2, 16: 3, 17: 4}.get(dr, 0)
            if dur != want_dur:
                msgs.append(f"{TABLES}: crossing: DR {dr} gives Duration {dur}, 18.5 says "
                            f"{want_dur}")
        for dr in range(2, 13):
            got = _try(tables.mistaken_attack.casualty_points, dr)
            want_cp = 1 if dr == 7 else abs(dr - 7) + 1
            if got != want_cp:
                msgs.append(f"{TABLES}: mistaken_attack: equal DR {dr} gives {got} CP, 17.3 "
                            f"says {want_cp}")
    return warn(msgs)


def _try(fn: object, arg: object) -> object:
    try:
        return fn(arg)  # type: ignore[operator]
    except (KeyError, ValueError):
        return None


def _file(key: str) -> str:
    return AREAS if key.isdigit() else ZONES


def _rec(key: str) -> str:
    return f"Area {key}" if key.isdigit() else f"Zone {key}"
