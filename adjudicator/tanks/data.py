"""The Stalin's Tanks data pack: load, validate, summarise and fingerprint it.

A pack is a directory of TOML files (``pack.toml`` manifest, ``map.toml``, ``units.toml``,
``tables.toml``, ``scenarios.toml``); the shipped one is ``DEFAULT_PACK``. A GM may replace it:
``check_pack`` lists every problem of a candidate pack as ``"file: record: message"`` without
raising, and ``load_pack`` refuses an invalid pack with ``PackError``. Reading, messages,
provenance and the cache are the kernel's (:mod:`adjudicator.kernel.packs`); the models are in
:mod:`adjudicator.tanks.data_models`, the cross-file checks in :mod:`adjudicator.tanks.data_check`.

This module reads files only; the rules engine receives a ready ``TanksPack``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel

from adjudicator.kernel import briefing, packs
from adjudicator.kernel.packs import PackError, Sourced, provenance
from adjudicator.tanks.data_check import REQUIRED_CONSTANTS, cross_check
from adjudicator.tanks.data_models import (
    Manifest,
    MapFile,
    ScenariosFile,
    Side,
    TablesFile,
    TanksMap,
    TanksPack,
    Terrain,
    UnitsFile,
    anti_personnel_need,
    build_map,
    hit_effect,
    shift_armor_class,
    to_hit_need,
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
TITLE = "Stalin's Tanks data pack"
DOCS = "docs/data-tanks.md"
MANIFEST = "pack.toml"

_MODELS: dict[str, type[BaseModel]] = {
    MANIFEST: Manifest,
    "map.toml": MapFile,
    "units.toml": UnitsFile,
    "tables.toml": TablesFile,
    "scenarios.toml": ScenariosFile,
}


def _read(path: Path) -> tuple[packs.PackFiles, dict[str, BaseModel]]:
    """Every file read and validated as a whole; the cross-file checks when all validate."""
    read = packs.read_pack(path, docs=DOCS)
    models: dict[str, BaseModel] = {}
    if read.problems:
        return read, models
    for name, model in _MODELS.items():
        raw = read.toml(name)
        if raw is not None:
            valid = read.validate(model, raw, name)
            if valid is not None:
                models[name] = valid
    files = [models.get(name) for name in _MODELS if name != MANIFEST]
    mf, uf, tf, sf = files
    if (isinstance(mf, MapFile) and isinstance(uf, UnitsFile) and isinstance(tf, TablesFile)
            and isinstance(sf, ScenariosFile)):
        read.problems += cross_check(mf, uf, tf, sf)
    if isinstance(sf, ScenariosFile):
        notes = briefing.read_briefings(read, [s.id for s in sf.scenario], [s.value for s in Side])
        models[briefing.FILE] = briefing.BriefingsFile(briefing=list(notes.values()))
    return read, models


def _assemble(path: Path, read: packs.PackFiles, models: dict[str, BaseModel]) -> TanksPack:
    mf, uf = models["map.toml"], models["units.toml"]
    tf, sf = models["tables.toml"], models["scenarios.toml"]
    man = models[MANIFEST]
    assert isinstance(mf, MapFile) and isinstance(uf, UnitsFile)
    assert isinstance(tf, TablesFile) and isinstance(sf, ScenariosFile)
    brief = models[briefing.FILE]
    assert isinstance(man, Manifest) and isinstance(brief, briefing.BriefingsFile)
    tanks_map = build_map(mf, (e.terrain for e in tf.terrain_effect if e.blocks_los))
    return TanksPack(
        path=path,
        manifest=man,
        map=tanks_map,
        units={u.id: u for u in uf.unit},
        tables=tf,
        scenarios={s.id: s for s in sf.scenario},
        content_hash=read.hash,
        _map_file=mf,
        briefings={n.scenario: n for n in brief.briefing},
    )


# -- public entry points -----------------------------------------------------------------------


def check_pack(path: Path) -> list[str]:
    """Every problem of the pack at ``path`` as ``"file: record: message"``; [] if valid.

    Never raises on bad content: missing files, TOML syntax, wrong types, unknown unit types,
    hexes off the map and inconsistent tables all come back as problems.
    """
    try:
        return _read(Path(path))[0].problems
    except Exception as error:  # a checker must report, not crash
        return [f"{path}: unexpected error while checking: {type(error).__name__}: {error}"]


def _load(path: Path) -> TanksPack:
    read, models = _read(path)
    if read.problems:
        raise PackError(read.problems, path, TITLE)
    return _assemble(path, read, models)


_PACKS = packs.PackCache(_load)


def load_pack(path: Path | None = None) -> TanksPack:
    """The validated pack at ``path`` (default ``DEFAULT_PACK``), cached per folder and loaded
    anew when one of its files changes on disk. Raises ``PackError`` listing every problem
    when the pack is invalid.
    """
    return _PACKS.get(Path(path) if path is not None else DEFAULT_PACK)


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
