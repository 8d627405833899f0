"""``umpire db copy SRC DST``: every game of one database into another, SQLite to
PostgreSQL or back, verified.

Each game is copied in one transaction of the destination — its row, seats, entropy,
actions, snapshots, idempotency keys, dice seeds and audit trail, exactly as stored — then
verified twice: a digest of all its rows is the same on both sides, and the destination
rebuilds the game's state (nearest snapshot plus the log after it) to the state hash the
game row records. The service's and gateways' bookkeeping (``meta``, the ``mail_*``
tables) follows; leases and held rollbacks belong to running processes and stay behind.

A game already in the destination with the same rows is skipped (an interrupted copy is
run again), one that differs is a problem and is left alone. The source is only read,
and must be at this Umpire's schema version (``umpire db migrate --db SRC`` first).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.store import Store, StoreError
from bot.store.migrations import MIGRATIONS

#: A game's tables and the columns each is ordered by (its key).
GAME_TABLES = {"seats": "id", "entropy": "id", "actions": "seq", "snapshots": "seq",
               "idempotency": "key", "dice_seeds": "from_branch", "audit": "id"}
#: Bookkeeping copied after the games (rows already in the destination are kept).
OTHER_TABLES = {"meta": "key", "mail_inbox": "message_key", "mail_cursors": "game_id, address",
                "mail_observers": "game_id, address", "mail_rate": "address",
                "mail_rollbacks": "code", "mail_reminders": "game_id, deadline_start, fraction"}


@dataclass
class CopyReport:
    source: str
    target: str
    games: int = 0
    skipped: int = 0
    actions: int = 0
    snapshots: int = 0
    verified: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        verdict = "ok" if not self.problems else f"{len(self.problems)} problem(s)"
        return (f"{self.source} -> {self.target}: {self.games} games copied"
                + (f", {self.skipped} already there" if self.skipped else "")
                + f" ({self.actions} actions, {self.snapshots} snapshots); {self.verified} "
                f"verified by state hash — {verdict}")


def _canonical(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {"bytes": bytes(value).hex()}
    if isinstance(value, float) and value.is_integer():
        return value  # JSON keeps 1.0 apart from 1
    return value


def _rows(store: Store, table: str, game_id: str) -> list[dict[str, Any]]:
    rows = store.query(f"SELECT * FROM {table} WHERE game_id = ? ORDER BY "
                       f"{GAME_TABLES.get(table, 'id')}", [game_id]) if table != "games" \
        else store.query("SELECT * FROM games WHERE id = ?", [game_id])
    for row in rows:
        row.pop("rowid", None)  # PostgreSQL's stand-in for SQLite's implicit row id
    return rows


def game_digest(store: Store, game_id: str) -> str:
    """A digest of every row the game has, the same on either backend."""
    digest = hashlib.sha256()
    for table in ("games", *GAME_TABLES):
        for row in _rows(store, table, game_id):
            digest.update(json.dumps({k: _canonical(v) for k, v in sorted(row.items())},
                                     sort_keys=True, ensure_ascii=False).encode())
        digest.update(f"|{table}|".encode())
    return digest.hexdigest()


def copy_database(source: str | Path, target: str | Path, out: Callable[[str], object] = print,
                  every: int = 100) -> CopyReport:
    """Copy every game of ``source`` into ``target`` (paths or URLs), verifying each."""
    from bot.service import GameService  # the replay check needs the rules

    src = Store(source, migrate=False)
    try:
        version = src.schema_version()
        if version != len(MIGRATIONS):
            raise StoreError(f"{src.label} is at schema version {version}, this Umpire writes "
                             f"{len(MIGRATIONS)}: run `umpire db migrate --db SOURCE` first")
        dst = Store(target)
    except BaseException:
        src.close()
        raise
    report = CopyReport(src.label, dst.label)
    try:
        if src.label == dst.label:
            raise StoreError("the source and the destination are the same database")
        service = GameService(dst, state_cache_bytes=0)
        ids = [str(r["id"]) for r in src.query("SELECT id FROM games ORDER BY rowid")]
        for number, game_id in enumerate(ids, start=1):
            _copy_game(src, dst, service, game_id, report)
            if every and number % every == 0:
                out(f"  {number}/{len(ids)} games")
        for table, key in OTHER_TABLES.items():
            rows = src.query(f"SELECT * FROM {table} ORDER BY {key}")
            with dst.write() as tx:
                report.rows[table] = sum(tx.insert(table, row, ignore=True) for row in rows)
    finally:
        src.close()
        dst.close()
    return report


def _copy_game(src: Store, dst: Store, service: Any, game_id: str, report: CopyReport) -> None:
    digest = game_digest(src, game_id)
    if dst.game(game_id) is not None:
        if game_digest(dst, game_id) == digest:
            report.skipped += 1
        else:
            report.problems.append(f"game {game_id}: the destination holds another game "
                                   "with this id; left alone")
        return
    tables = {t: _rows(src, t, game_id) for t in ("games", *GAME_TABLES)}
    with dst.write() as tx:
        for table, rows in tables.items():
            for row in rows:
                tx.insert(table, row)
        dst.restart_identities(tx)
    report.games += 1
    report.actions += len(tables["actions"])
    report.snapshots += len(tables["snapshots"])
    if game_digest(dst, game_id) != digest:
        report.problems.append(f"game {game_id}: its rows differ after the copy")
        return
    row = tables["games"][0]
    if row.get("state_hash") and tables["snapshots"]:
        try:
            rebuilt = service.load_state(game_id).state_hash()
        except Exception as error:  # a game whose rules cannot load: said, not fatal
            report.problems.append(f"game {game_id}: cannot be rebuilt ({error})")
            return
        if rebuilt != row["state_hash"]:
            report.problems.append(f"game {game_id}: rebuilds to another state than recorded")
            return
    report.verified += 1
