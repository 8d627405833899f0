"""``umpire db copy SRC DST``: every game of one database into another, SQLite to
PostgreSQL or back, verified.

Each game is copied in one transaction of the destination — its row, seats, entropy,
actions, snapshots, idempotency keys, dice seeds and audit trail, exactly as stored — then
verified twice: a digest of all its rows is the same on both sides, and the destination
rebuilds the game's state (nearest snapshot plus the log after it) to the state hash the
game row records. The service's and gateways' bookkeeping (``meta``, the ``mail_*``
tables) follows; leases and held rollbacks belong to running processes and stay behind.

Copying merges two stores: the destination may already hold games. Each source game is
then *copied*, *already there* (the destination holds the same rows: an interrupted copy
run again) or a *conflict* (the destination holds another game with its id: left alone, one
line says so, and its bookkeeping rows stay behind too). The rows' own numbers (``seats``,
``entropy`` and ``audit`` ids, which nothing else refers to) are kept where they are free
and renumbered in order where the destination uses any of them, so two stores' seats never
clash. A game that cannot be written is rolled back whole — never half a game — and said on
one line; the other games go on. The source is only read, and must be at this Umpire's
schema version (``umpire db migrate --db SRC`` first).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.store import Store, StoreError, Tx
from bot.store.migrations import MIGRATIONS

#: A game's tables and the columns each is ordered by (its key).
GAME_TABLES = {"seats": "id", "entropy": "id", "actions": "seq", "snapshots": "seq",
               "idempotency": "key", "dice_seeds": "from_branch", "audit": "id"}
#: A game's tables whose ``id`` is the row's own number (renumbered where it clashes).
NUMBERED = ("seats", "entropy", "audit")
#: Bookkeeping copied after the games (rows already in the destination are kept).
OTHER_TABLES = {"meta": "key", "mail_inbox": "message_key", "mail_cursors": "game_id, address",
                "mail_observers": "game_id, address", "mail_rate": "address",
                "mail_reminders": "game_id, deadline_start, fraction"}


@dataclass
class CopyReport:
    source: str
    target: str
    games: int = 0
    skipped: int = 0
    conflicts: int = 0
    #: Rows given new numbers because the destination used theirs.
    renumbered: int = 0
    actions: int = 0
    snapshots: int = 0
    verified: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    #: Games whose rows were not written (conflicts, failures): their bookkeeping stays too.
    left: set[str] = field(default_factory=set)

    def summary(self) -> str:
        verdict = "ok" if not self.problems else f"{len(self.problems)} problem(s)"
        return (f"{self.source} -> {self.target}: {self.games} games copied"
                + (f", {self.skipped} already there" if self.skipped else "")
                + (f", {self.conflicts} in conflict" if self.conflicts else "")
                + f" ({self.actions} actions, {self.snapshots} snapshots"
                + (f", {self.renumbered} rows renumbered" if self.renumbered else "")
                + f"); {self.verified} verified by state hash — {verdict}")


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
    """A digest of every row the game has, in order, the same on either backend and
    whatever numbers the stores gave the rows of :data:`NUMBERED` tables."""
    digest = hashlib.sha256()
    for table in ("games", *GAME_TABLES):
        for row in _rows(store, table, game_id):
            if table in NUMBERED:
                row.pop("id", None)
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
            try:
                _copy_game(src, dst, service, game_id, report)
            except StoreError as error:  # its transaction was rolled back: none of it
                report.left.add(game_id)
                report.problems.append(f"game {game_id}: not copied, nothing of it written "
                                       f"({' '.join(str(error).split())[:200]})")
            if every and number % every == 0:
                out(f"  {number}/{len(ids)} games")
        for table, key in OTHER_TABLES.items():
            rows = [row for row in src.query(f"SELECT * FROM {table} ORDER BY {key}")
                    if row.get("game_id") not in report.left]
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
            report.conflicts += 1
            report.left.add(game_id)
            report.problems.append(f"game {game_id}: conflict — the destination holds "
                                   "another game with this id; left alone")
        return
    tables = {t: _rows(src, t, game_id) for t in ("games", *GAME_TABLES)}
    with dst.write() as tx:
        for table in NUMBERED:
            report.renumbered += _renumber_if_taken(tx, table, tables[table])
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


def _renumber_if_taken(tx: Tx, table: str, rows: list[dict[str, Any]]) -> int:
    """Drop the ids of ``rows`` (the destination numbers them anew, in order) when the
    destination uses any number between their lowest and highest; how many rows that
    renumbers."""
    ids = [int(row["id"]) for row in rows]
    if not ids:
        return 0
    if not tx.query(f"SELECT 1 AS taken FROM {table} WHERE id BETWEEN ? AND ? LIMIT 1",
                    [min(ids), max(ids)]):
        return 0
    for row in rows:
        del row["id"]
    return len(rows)
