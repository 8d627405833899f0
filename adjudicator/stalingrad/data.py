"""The Turning Point: Stalingrad data pack: load, validate, summarise, hash.

A pack is a directory of TOML files (``data/stalingrad`` by default)::

    pack.toml       manifest: game = "stalingrad", name, version, files
    map.toml        board frame, Quadrants (15.31), Volga, east bank, FAG boxes (5.3)
    areas.toml      the 74 Areas (3.2): TEM, ID, supply, Ferry Landing, VP, borders, polygon
    zones.toml      the Zones A-H (3.3, 11): links, entrance arrows
    units.toml      the order of battle (4, 5.4-5.5) as Setup-card lines ("formations")
    calendar.toml   Turn Record Track, weeks and Victory Point numbers, strengths by date
    tables.toml     Crossing, Mistaken Attack, Interdiction, Casualty Points, MF costs, ...
    scenarios.toml  Basic Game, Kuibyshev Sawmill, Simulation Game
    briefings.toml  each scenario's goals and special rules (kernel.briefing)

``load_pack()`` returns the cached default pack; ``load_pack(path)`` loads a GM's
replacement and raises :class:`PackError` listing every error; ``check_pack(path)``
returns those errors as "file: record: message" lines without raising, with the warnings
(values that depart from the rulebook, which a GM's corrected pack may do) under
``.warnings`` (:class:`adjudicator.kernel.packs.Problems`).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from adjudicator.kernel import briefing, packs
from adjudicator.kernel.packs import PackError
from adjudicator.stalingrad import data_check
from adjudicator.stalingrad.data_models import (
    SIDES,
    Area,
    Board,
    Calendar,
    FagBox,
    Formation,
    Manifest,
    Quadrant,
    Region,
    Scenario,
    Sourced,
    StalingradPack,
    Tables,
    Unit,
    Zone,
    expand,
)

__all__ = [
    "DEFAULT_PACK",
    "REQUIRED_FILES",
    "PackError",
    "StalingradPack",
    "check_pack",
    "load_pack",
    "pack_hash",
    "summary",
]

DEFAULT_PACK: Path = Path(__file__).resolve().parents[2] / "data" / "stalingrad"
REQUIRED_FILES: tuple[str, ...] = (
    "map.toml", "areas.toml", "zones.toml", "units.toml", "calendar.toml", "tables.toml",
    "scenarios.toml", briefing.FILE,
)
GAME = "stalingrad"
TITLE = "Turning Point: Stalingrad data pack"
DOCS = "docs/data-stalingrad.md"

M = TypeVar("M", bound=BaseModel)
K = TypeVar("K", int, str)


def _records(
    doc: dict[str, Any] | None,
    file: str,
    table: str,
    problems: list[str],
) -> list[Any]:
    if doc is None:
        return []
    raw = doc.get(table)
    if raw is None:
        problems.append(f"{file}: no [[{table}]] records")
        return []
    if not isinstance(raw, list):
        problems.append(f"{file}: {table} must be an array of tables ([[{table}]])")
        return []
    extra = sorted(set(doc) - {table})
    if extra:
        problems.append(f"{file}: unknown top-level key(s) {', '.join(extra)}")
    return raw


def _label(raw: Any, key: str, what: str, index: int) -> str:
    if isinstance(raw, dict) and isinstance(raw.get(key), int | str):
        return f"{what} {raw[key]}"
    return f"{what} record {index + 1}"


def _keyed(model: type[M], doc: dict[str, Any] | None, file: str, table: str, key: str,
           key_type: type[K], what: str, read: packs.PackFiles) -> tuple[dict[K, M], set[K]]:
    """A file's records by ``key`` (Areas by number, Zones by letter), and every key its
    records state, valid or not (references to a record that fails validation are not
    reported as dangling); a key stated twice is a problem."""
    records: dict[K, M] = {}
    known: set[K] = set()
    problems = read.problems
    for i, raw in enumerate(_records(doc, file, table, problems)):
        label = _label(raw, key, what, i)
        if isinstance(raw, dict) and isinstance(raw.get(key), key_type):
            if raw[key] in known:
                problems.append(f"{file}: {label}: {key} used twice")
            known.add(raw[key])
        record = read.validate(model, raw, f"{file}: {label}")
        if record is not None:
            records[getattr(record, key)] = record
    return records, known


def pack_hash(pack_or_path: StalingradPack | Path | str) -> str:
    """sha256 over the pack's TOML files (name and bytes) in sorted name order."""
    if isinstance(pack_or_path, StalingradPack):
        return pack_or_path.hash
    return packs.hash_pack_dir(Path(pack_or_path))


def _build(path: Path, *, thorough: bool) -> tuple[StalingradPack | None, packs.Problems]:
    """Parse, validate and assemble; return the pack (None on any error) and the errors,
    with the warnings filed aside."""
    read = packs.read_pack(path, docs=DOCS)
    problems = read.problems
    if not path.is_dir():
        return None, problems
    manifest_doc = read.toml("pack.toml")
    manifest = None
    if manifest_doc is not None:
        manifest = read.validate(Manifest, manifest_doc, "pack.toml")
    if manifest is not None:
        if manifest.game != GAME:
            problems.append(f'pack.toml: game is "{manifest.game}", expected "{GAME}"')
        missing = [f for f in REQUIRED_FILES if f not in manifest.files]
        extra = [f for f in manifest.files if f not in REQUIRED_FILES]
        if missing:
            problems.append(f"pack.toml: files does not list {', '.join(missing)}")
        if extra:
            problems.append(f"pack.toml: files lists unknown {', '.join(extra)}")
    docs = {name: read.toml(name) for name in REQUIRED_FILES if name != briefing.FILE}

    # ---- map.toml
    map_doc = docs["map.toml"]
    board = volga = east_bank = None
    quadrants: list[Quadrant] = []
    fag_boxes: list[FagBox] = []
    if map_doc is not None:
        allowed = {"board", "quadrant", "volga", "east_bank", "fag_box"}
        extra_keys = sorted(set(map_doc) - allowed)
        if extra_keys:
            problems.append(f"map.toml: unknown top-level key(s) {', '.join(extra_keys)}")
        board = read.validate(Board, map_doc.get("board"), "map.toml: board")
        volga = read.validate(Region, map_doc.get("volga"), "map.toml: volga")
        east_bank = read.validate(Region, map_doc.get("east_bank"), "map.toml: east_bank")
        for i, raw in enumerate(_records(
            {"quadrant": map_doc.get("quadrant")}, "map.toml", "quadrant", problems)):
            q = read.validate(Quadrant, raw, f"map.toml: {_label(raw, 'key', 'quadrant', i)}")
            if q is not None:
                quadrants.append(q)
        for i, raw in enumerate(_records(
            {"fag_box": map_doc.get("fag_box")}, "map.toml", "fag_box", problems)):
            fb = read.validate(FagBox, raw,
                               f"map.toml: {_label(raw, 'quadrant', 'fag_box', i)}")
            if fb is not None:
                fag_boxes.append(fb)

    # ---- areas.toml / zones.toml
    areas, known_areas = _keyed(Area, docs["areas.toml"], "areas.toml", "area", "number", int,
                                "Area", read)
    zones, known_zones = _keyed(Zone, docs["zones.toml"], "zones.toml", "zone", "letter", str,
                                "Zone", read)

    # ---- calendar.toml (first: the units' date codes are days of its year, 5.1)
    calendar = read.validate(Calendar, docs["calendar.toml"], "calendar.toml") \
        if docs["calendar.toml"] is not None else None
    # Without a calendar the pack is refused for it; the units are still checked, their
    # dates in a placeholder year.
    year = calendar.first.year if calendar is not None else date.min.year

    # ---- units.toml
    formations: list[Formation] = []
    units: dict[str, Unit] = {}
    unit_list: list[Unit] = []
    for i, raw in enumerate(_records(docs["units.toml"], "units.toml", "formation", problems)):
        what = f"formation {i + 1}"
        if isinstance(raw, dict) and isinstance(raw.get("units"), list) and raw["units"]:
            what += f" ({raw.get('parent_name') or raw['units'][0]})"
        f = read.validate(Formation, raw, f"units.toml: {what}")
        if f is not None:
            formations.append(f)
            for u in expand(f, len(formations) - 1, year):
                unit_list.append(u)
                units.setdefault(u.id, u)

    # ---- tables.toml / scenarios.toml
    tables = read.validate(Tables, docs["tables.toml"], "tables.toml") \
        if docs["tables.toml"] is not None else None
    scenarios: dict[str, Scenario] = {}
    for i, raw in enumerate(_records(docs["scenarios.toml"], "scenarios.toml", "scenarios",
                                     problems)):
        label = _label(raw, "key", "scenario", i)
        sc = read.validate(Scenario, raw, f"scenarios.toml: {label}")
        if sc is not None:
            if sc.key in scenarios:
                problems.append(f"scenarios.toml: {label}: key used twice")
            scenarios[sc.key] = sc
    briefings = briefing.read_briefings(read, scenarios, SIDES)

    # ---- cross-checks
    problems += data_check.check_map(areas, zones, quadrants, volga, east_bank, fag_boxes,
                                     known_areas, known_zones)
    if thorough:
        problems += data_check.check_polygons_simple(areas, zones)
    limit = tables.constants.stacking_limit if tables is not None else 10
    problems += data_check.check_units(formations, unit_list, areas, calendar, limit)
    if calendar is not None:
        problems += data_check.check_calendar(calendar)
    problems += data_check.check_scenarios(scenarios, areas, zones, units, calendar)
    problems += data_check.check_rulebook_facts(areas, zones, units, calendar, tables)

    if problems:
        return None, problems
    assert manifest is not None and board is not None and volga is not None
    assert east_bank is not None and calendar is not None and tables is not None
    pack = StalingradPack(
        manifest=manifest,
        board=board,
        quadrants=tuple(quadrants),
        volga=volga,
        east_bank=east_bank,
        fag_boxes=tuple(fag_boxes),
        areas=dict(sorted(areas.items())),
        zones=dict(sorted(zones.items())),
        formations=tuple(formations),
        units=units,
        calendar=calendar,
        tables=tables,
        scenarios=scenarios,
        briefings=briefings,
        hash=read.hash,
    )
    return pack, problems


def check_pack(path: Path | str) -> packs.Problems:
    """Every error of the pack at ``path`` as "file: record: message" ([] when it loads),
    and under ``.warnings`` every value that departs from what the rulebook states (74 Areas,
    28 VP, the Ferry Landings, the examples' TEMs, ...): a GM's corrected pack may do so, so
    a warning never refuses the pack (``umpire data check --strict`` counts them).

    Never raises for bad content: missing files, TOML syntax, wrong types, dangling or
    one-way references and polygons that disagree with adjacency all become messages."""
    try:
        _pack, problems = _build(Path(path), thorough=True)
    except Exception as exc:  # pragma: no cover - a bug here must still not hide the pack
        return packs.Problems(
            [f"{path}: unexpected error while checking: {type(exc).__name__}: {exc}"])
    return problems


def _load(path: Path) -> StalingradPack:
    pack, problems = _build(path, thorough=False)
    if pack is None:
        raise PackError(problems, path, TITLE)
    return pack


_PACKS = packs.PackCache(_load)


def load_pack(path: Path | str | None = None) -> StalingradPack:
    """The pack at ``path`` (default: the repository's ``data/stalingrad``), cached per folder
    and loaded anew when one of its files changes on disk.

    Raises :class:`PackError` listing every error when the pack does not validate (its
    warnings do not refuse it). A GM's replacement should be checked with :func:`check_pack`
    first, which also runs the slower geometric checks and lists the warnings."""
    return _PACKS.get(Path(path) if path is not None else DEFAULT_PACK)


def _value_counts(records: list[tuple[Sourced, int]]) -> tuple[int, int]:
    rule = recon = 0
    for rec, weight in records:
        fields = rec.value_fields()
        cited = sum(1 for f in fields if packs.provenance(rec.source_of(f)) == "rulebook")
        rule += cited * weight
        recon += (len(fields) - cited) * weight
    return rule, recon


def summary(pack: StalingradPack) -> dict[str, int | str]:
    """Counts for ``umpire data show``: spaces, links, units per side, values by provenance.

    A value is one field of one record (for units: of one counter). It counts as "rulebook"
    when its source (``field_sources``, else the record's ``source``) is the rulebook."""
    borders = sum(len(a.borders) for a in pack.areas.values()) // 2
    zone_links = sum(len(z.zones) for z in pack.zones.values()) // 2
    arrows = sum(len(z.arrows) for z in pack.zones.values())
    records: list[tuple[Sourced, int]] = [(pack.manifest, 1), (pack.board, 1), (pack.volga, 1),
                                         (pack.east_bank, 1)]
    records += [(q, 1) for q in pack.quadrants] + [(b, 1) for b in pack.fag_boxes]
    records += [(a, 1) for a in pack.areas.values()] + [(z, 1) for z in pack.zones.values()]
    records += [(f, len(f.units)) for f in pack.formations]
    cal = pack.calendar
    records += [(w, 1) for w in cal.weeks]
    records += [(s, 1) for s in (*cal.luftwaffe, *cal.fag, *cal.german_dv_bonus,
                                 *cal.interdiction, *cal.daylight)]
    t = pack.tables
    records += [(r, 1) for r in (t.crossing, t.mistaken_attack, t.interdiction,
                                 t.casualty_points, t.movement_costs, t.disruption,
                                 t.rubble_entrance, t.retreat_priority, t.constants)]
    records += [(s, 1) for s in pack.scenarios.values()]
    rule, recon = _value_counts(records)
    out: dict[str, int | str] = {
        "game": pack.manifest.game,
        "name": pack.manifest.name,
        "version": pack.manifest.version,
        "hash": pack.hash,
        "areas": len(pack.areas),
        "zones": len(pack.zones),
        "links": borders + zone_links + arrows,
        "area_borders": borders,
        "zone_links": zone_links,
        "zone_arrows": arrows,
    }
    for side in SIDES:
        out[f"units_{side}"] = sum(1 for u in pack.units.values() if u.side == side)
    out["units_extension"] = sum(1 for u in pack.units.values() if pack.extension_unit(u))
    out["scenarios"] = len(pack.scenarios)
    out["records_rulebook"] = sum(1 for r, _ in records if not r.reconstructed)
    out["records_reconstructed"] = sum(1 for r, _ in records if r.reconstructed)
    out["values_rulebook"] = rule
    out["values_reconstructed"] = recon
    return out


