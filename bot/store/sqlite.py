"""Umpire's SQLite store: one SQLite file through sqlite-utils.

* WAL journal, a busy timeout, foreign keys on, ``synchronous=FULL`` by default (an
  acknowledged order survives a crash of the process or of the machine).
* Versioned migrations applied when a :class:`Store` opens the file.
* The action log is append-only: triggers refuse ``DELETE`` and every ``UPDATE`` except
  setting ``reverted_by`` once (a rollback marks actions reverted, it never removes them).
* :meth:`Store.append` writes one submitted action (one or more action rows, snapshots,
  the game row, the idempotency key) in ONE ``BEGIN IMMEDIATE`` transaction after checking
  the sequence number the caller computed against: two processes sharing the file cannot
  both apply an action on the same game position.

Each thread gets its own connection (the service runs adjudication in worker threads);
the file is the only shared thing, so separate processes behave exactly like threads.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
from sqlite_utils import Database

#: Environment variable naming the database file.
DB_ENV = "UMPIRE_DB"
#: Seconds a connection waits for another writer before giving up.
BUSY_TIMEOUT_S = 15.0
#: Action kinds of schema version 1; version 2 adds ``pause`` and ``resume``.
KINDS_V1 = ("order", "decision", "gm-override", "rollback", "system")
ACTION_KINDS = (*KINDS_V1, "pause", "resume")


def default_db_path(explicit: str | Path | None = None) -> Path:
    """``--db PATH`` if given, else ``$UMPIRE_DB``, else ``umpire.db`` in the user data dir."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get(DB_ENV)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("umpire", appauthor=False)) / "umpire.db"


def dumps(data: Any) -> str:
    """Stable JSON text for stored columns."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def loads(value: Any, default: Any) -> Any:
    """A stored JSON column read back (or already decoded); ``default`` when empty."""
    if value is None or value == "":
        return default
    return json.loads(value) if isinstance(value, str) else value


class StoreError(Exception):
    """A storage problem worth telling the caller about."""


class Busy(StoreError):
    """Another writer held the file longer than the busy timeout ("database is locked")."""


class Damaged(StoreError):
    """The file is not a readable Umpire database (empty, not SQLite, newer schema...)."""


def is_busy(error: BaseException) -> bool:
    return isinstance(error, sqlite3.OperationalError) and any(
        word in str(error).lower() for word in ("locked", "busy"))


class SequenceConflict(StoreError):
    """The game moved on since the caller loaded it (another thread or process wrote)."""


class DuplicateKey(StoreError):
    """The idempotency key was already used on this game by the same actor; ``result`` is
    the first result, ``request`` the fingerprint of the request it was used for."""

    def __init__(self, result: str, request: str | None = None) -> None:
        super().__init__("idempotency key already used")
        self.result = result
        self.request = request


def scoped_key(actor: str, key: str) -> str:
    """An idempotency key as stored: scoped to the actor who gave it."""
    return f"{actor}\x00{key}"


# ---- migrations ------------------------------------------------------------------------

def _migration_1(db: Database) -> None:
    db.table("games").create(
        {
            "id": str, "game": str, "scenario": str, "options": str,
            "pack_path": str, "pack_hash": str, "status": str, "created": float,
            "created_by": str, "bindings": str, "dice_id": str, "server_seed": bytes,
            "commitment": str, "seed_revealed": int, "branch": int, "head_seq": int,
            "next_roll": int, "forced_dice": str, "state_hash": str, "to_act": str,
            "result": str, "deadline_seconds": float, "reminder_fractions": str,
            "deadline_side": str, "deadline_start": float, "deadline_at": float,
            "reminders_sent": str,
        },
        pk="id",
        not_null=["game", "status", "created", "dice_id", "commitment", "branch",
                  "head_seq", "next_roll", "options", "bindings", "forced_dice"],
        defaults={"options": "{}", "bindings": "{}", "forced_dice": "[]", "branch": 0,
                  "head_seq": 0, "next_roll": 0, "seed_revealed": 0,
                  "reminder_fractions": "[]", "reminders_sent": "[]"},
    )
    db.table("seats").create(
        {"id": int, "game_id": str, "side": str, "role": str, "discord_id": str,
         "email": str, "password_hash": str, "created": float},
        pk="id", not_null=["game_id", "role", "created"],
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("entropy").create(
        {"id": int, "game_id": str, "actor": str, "text": str, "created": float},
        pk="id", not_null=["game_id", "actor", "text", "created"],
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("actions").create(
        {"game_id": str, "seq": int, "branch": int, "actor": str, "side": str, "kind": str,
         "text": str, "order_json": str, "payload": str, "rolls": str, "events": str,
         "applied": str, "next_roll": int, "state_hash": str, "created": float,
         "reverted_by": int},
        pk=("game_id", "seq"),
        not_null=["branch", "actor", "kind", "rolls", "events", "applied", "next_roll",
                  "state_hash", "created"],
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("snapshots").create(
        {"game_id": str, "seq": int, "state": bytes, "state_hash": str, "created": float},
        pk=("game_id", "seq"), not_null=["state", "state_hash", "created"],
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("idempotency").create(
        {"game_id": str, "key": str, "actor": str, "result": str, "created": float},
        pk=("game_id", "key"), not_null=["actor", "result", "created"],
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("meta").create({"key": str, "value": str}, pk="key")
    db.table("seats").create_index(["game_id"])
    db.table("seats").create_index(["discord_id"])
    db.table("seats").create_index(["email"])
    db.executescript(
        f"""
        CREATE TRIGGER actions_kind_check BEFORE INSERT ON actions
        WHEN NEW.kind NOT IN ({", ".join(repr(k) for k in KINDS_V1)})
        BEGIN SELECT RAISE(ABORT, 'unknown action kind'); END;
        CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
        BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END;
        CREATE TRIGGER actions_only_revert BEFORE UPDATE ON actions
        WHEN OLD.reverted_by IS NOT NULL OR NEW.reverted_by IS NULL
          OR NEW.game_id IS NOT OLD.game_id OR NEW.seq IS NOT OLD.seq
          OR NEW.branch IS NOT OLD.branch OR NEW.actor IS NOT OLD.actor
          OR NEW.side IS NOT OLD.side OR NEW.kind IS NOT OLD.kind
          OR NEW.text IS NOT OLD.text OR NEW.order_json IS NOT OLD.order_json
          OR NEW.payload IS NOT OLD.payload OR NEW.rolls IS NOT OLD.rolls
          OR NEW.events IS NOT OLD.events OR NEW.applied IS NOT OLD.applied
          OR NEW.next_roll IS NOT OLD.next_roll OR NEW.state_hash IS NOT OLD.state_hash
          OR NEW.created IS NOT OLD.created
        BEGIN SELECT RAISE(ABORT, 'actions are append-only: only reverted_by may be set'); END;
        CREATE TRIGGER seats_role_check BEFORE INSERT ON seats
        WHEN NEW.role NOT IN ('player', 'gm')
        BEGIN SELECT RAISE(ABORT, 'a seat role is player or gm'); END;
        """
    )


def _migration_2(db: Database) -> None:
    """Pause/resume and seat history.

    * two more action kinds, ``pause`` and ``resume`` (a GM stops and restarts the clock;
      they change no game state and replay as no-ops);
    * ``games.paused_at``, ``paused_by``, ``pause_reason`` while a game is paused;
    * ``seats.removed``, ``removed_by``, ``removed_reason``: a replaced player's seat is
      closed, never deleted, so the record keeps who played which side when.
    """
    db.execute("DROP TRIGGER actions_kind_check")
    db.execute(
        f"""
        CREATE TRIGGER actions_kind_check BEFORE INSERT ON actions
        WHEN NEW.kind NOT IN ({", ".join(repr(k) for k in ACTION_KINDS)})
        BEGIN SELECT RAISE(ABORT, 'unknown action kind'); END;
        """
    )
    games = db.table("games")
    games.add_column("paused_at", float)
    games.add_column("paused_by", str)
    games.add_column("pause_reason", str)
    seats = db.table("seats")
    seats.add_column("removed", float)
    seats.add_column("removed_by", str)
    seats.add_column("removed_reason", str)
    db.executescript(
        """
        CREATE TRIGGER seats_no_delete BEFORE DELETE ON seats
        BEGIN SELECT RAISE(ABORT, 'seats are closed, never deleted'); END;
        """
    )


def _migration_3(db: Database) -> None:
    """The email gateway's bookkeeping (seat secrets live in ``seats.password_hash``).

    * ``mail_inbox``: every mail handled, by Message-ID (a mail delivered twice is
      answered once; a crash before the mail is marked handled re-reads it harmlessly);
    * ``mail_cursors``: per game and address, the last action that address was told of;
    * ``mail_observers``: addresses that follow a game's public mail;
    * ``mail_rate``: mails per address in the current window (flood limit);
    * ``mail_rollbacks``: a GM's previewed rollback waiting for its confirmation code;
    * ``mail_reminders``: deadline reminders already mailed.
    """
    db.table("mail_inbox").create(
        {"message_key": str, "sender": str, "game_id": str, "received": float,
         "outcome": str}, pk="message_key", not_null=["received", "outcome"])
    db.table("mail_cursors").create({"game_id": str, "address": str, "seq": int},
                                    pk=("game_id", "address"), not_null=["seq"])
    db.table("mail_observers").create({"game_id": str, "address": str, "since": float},
                                      pk=("game_id", "address"), not_null=["since"])
    db.table("mail_rate").create({"address": str, "window_start": float, "count": int,
                                  "warned": int}, pk="address",
                                 not_null=["window_start", "count", "warned"])
    db.table("mail_rollbacks").create(
        {"code": str, "game_id": str, "gm": str, "to_seq": int, "reason": str,
         "head_seq": int, "created": float}, pk="code",
        not_null=["game_id", "gm", "to_seq", "reason", "head_seq", "created"])
    db.table("mail_reminders").create(
        {"game_id": str, "deadline_start": float, "fraction": float},
        pk=("game_id", "deadline_start", "fraction"))


def _migration_4(db: Database) -> None:
    """Dice epochs, the audit trail, idempotency keys scoped per actor.

    * ``games.seed_from_branch``: the first dice branch of the game's current server seed.
      A game reopened after its end (its seed revealed) goes on with a new committed seed;
      ``dice_seeds`` keeps every earlier (revealed) seed, its commitment and branch.
    * ``audit``: who read a secret of the game and when (every dice seed read);
      append-only.
    * ``idempotency``: keys are stored scoped to their actor (``ACTOR NUL KEY``), with a
      fingerprint of the request they were first used for (``request``).
    """
    db.table("games").add_column("seed_from_branch", int, not_null_default=0)
    db.table("dice_seeds").create(
        {"game_id": str, "from_branch": int, "seed": bytes, "commitment": str,
         "created": float},
        pk=("game_id", "from_branch"), not_null=["seed", "commitment", "created"],
        foreign_keys=[("game_id", "games", "id")])
    db.table("audit").create(
        {"id": int, "game_id": str, "actor": str, "kind": str, "detail": str,
         "created": float},
        pk="id", not_null=["game_id", "actor", "kind", "created"],
        foreign_keys=[("game_id", "games", "id")])
    db.table("audit").create_index(["game_id"])
    db.executescript(
        """
        CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
        BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
        CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
        BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
        CREATE TRIGGER dice_seeds_no_delete BEFORE DELETE ON dice_seeds
        BEGIN SELECT RAISE(ABORT, 'dice seeds are kept'); END;
        """
    )
    db.table("idempotency").add_column("request", str)
    db.execute("UPDATE idempotency SET key = actor || char(0) || key")


#: Ordered migrations; version N is ``MIGRATIONS[N - 1]``. Never edit a shipped one: append.
MIGRATIONS: list[Callable[[Database], None]] = [_migration_1, _migration_2, _migration_3,
                                                _migration_4]


@dataclass
class NewAction:
    """One action row to append (``seq`` is assigned by the caller, checked by the store)."""

    seq: int
    branch: int
    actor: str
    kind: str
    state_hash: str
    next_roll: int
    created: float
    side: str | None = None
    text: str | None = None
    order_json: Any = None
    payload: Any = None
    rolls: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)

    def row(self, game_id: str) -> dict[str, Any]:
        return {
            "game_id": game_id, "seq": self.seq, "branch": self.branch, "actor": self.actor,
            "side": self.side, "kind": self.kind, "text": self.text,
            "order_json": None if self.order_json is None else dumps(self.order_json),
            "payload": None if self.payload is None else dumps(self.payload),
            "rolls": dumps(self.rolls), "events": dumps(self.events),
            "applied": dumps(self.applied), "next_roll": self.next_roll,
            "state_hash": self.state_hash, "created": self.created, "reverted_by": None,
        }


@dataclass
class Snapshot:
    seq: int
    state: bytes
    state_hash: str


class Store:
    """The SQLite file. Thread-safe: one connection per thread, one transaction per write."""

    def __init__(self, path: str | Path, *, synchronous: str = "FULL",
                 busy_timeout: float = BUSY_TIMEOUT_S) -> None:
        self.path = Path(path)
        self.synchronous = synchronous
        self.busy_timeout = busy_timeout
        self._local = threading.local()
        self._all: list[Database] = []
        self._all_lock = threading.Lock()
        if self.path.exists() and self.path.is_file() and self.path.stat().st_size == 0:
            # Never initialise an existing empty file silently: it was a database once.
            raise Damaged(f"{self.path} is empty (0 bytes), not an Umpire database; nothing "
                          "was written to it. Restore it from a backup, or remove it to "
                          "start a new one.")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.migrate()
        except sqlite3.DatabaseError as error:
            self.close()
            if is_busy(error):
                raise Busy(f"{self.path} is busy (another process holds it): try again"
                           ) from error
            raise Damaged(f"{self.path} is not a readable Umpire database ({error})"
                          ) from error

    # ---- connections ------------------------------------------------------------------

    @property
    def db(self) -> Database:
        db: Database | None = getattr(self._local, "db", None)
        if db is None:
            conn = sqlite3.connect(str(self.path), timeout=self.busy_timeout,
                                   check_same_thread=False, isolation_level=None)
            db = Database(conn)
            db.enable_wal()
            db.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            db.execute("PRAGMA foreign_keys = ON")
            db.execute(f"PRAGMA synchronous = {self.synchronous}")
            self._local.db = db
            with self._all_lock:
                self._all.append(db)
        return db

    def close(self) -> None:
        with self._all_lock:
            for db in self._all:
                db.close()
            self._all.clear()
        self._local = threading.local()

    @contextmanager
    def write(self) -> Iterator[Database]:
        """One ``BEGIN IMMEDIATE`` transaction: all of it is committed, or none of it.
        :class:`Busy` when another writer held the file past the busy timeout."""
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if is_busy(error):
                raise Busy(f"the database is busy: {error}") from error
            raise
        try:
            yield db
            db.execute("COMMIT")
        except BaseException as error:
            if db.conn.in_transaction:
                db.rollback()
            if is_busy(error):
                raise Busy(f"the database is busy: {error}") from error
            raise

    @contextmanager
    def read(self) -> Iterator[Database]:
        """One read transaction: everything read inside it comes from one moment of the
        file (WAL: another process's commit meanwhile is not seen). Nests."""
        db = self.db
        if db.conn.in_transaction:
            yield db
            return
        try:
            db.execute("BEGIN")
            yield db
        except sqlite3.OperationalError as error:
            if is_busy(error):
                raise Busy(f"the database is busy: {error}") from error
            raise
        finally:
            if db.conn.in_transaction:
                db.execute("COMMIT")

    def migrate(self) -> int:
        """Apply pending migrations; returns the schema version."""
        with self.write() as db:
            db.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                       "(version INTEGER PRIMARY KEY, applied REAL NOT NULL)")
            done = {row["version"] for row in db.query("SELECT version FROM schema_migrations")}
            if done and max(done) > len(MIGRATIONS):
                raise Damaged(f"{self.path} has schema version {max(done)}, written by a newer "
                              f"Umpire (this one knows {len(MIGRATIONS)}): upgrade Umpire")
            for number, migration in enumerate(MIGRATIONS, start=1):
                if number not in done:
                    migration(db)
                    db.table("schema_migrations").insert({"version": number,
                                                    "applied": _now()})
        return len(MIGRATIONS)

    def integrity_check(self) -> str:
        row = next(self.db.query("PRAGMA integrity_check"))
        return str(next(iter(row.values())))

    # ---- games and seats --------------------------------------------------------------

    def insert_game(self, row: Mapping[str, Any], seats: Sequence[Mapping[str, Any]] = ()
                    ) -> None:
        with self.write() as db:
            db.table("games").insert(dict(row))
            for seat in seats:
                db.table("seats").insert({**seat, "game_id": row["id"]})

    def game(self, game_id: str) -> dict[str, Any] | None:
        rows = list(self.db.query("SELECT * FROM games WHERE id = ?", [game_id]))
        return rows[0] if rows else None

    def update_game(self, game_id: str, fields: Mapping[str, Any],
                    expected_seq: int | None = None, snapshot: Snapshot | None = None) -> None:
        """Change game columns outside the action log (seating, start, deadlines)."""
        with self.write() as db:
            if expected_seq is not None:
                self._check_seq(db, game_id, expected_seq)
            db.table("games").update(game_id, dict(fields))
            if snapshot is not None:
                self._insert_snapshot(db, game_id, snapshot)

    def add_seat(self, game_id: str, seat: Mapping[str, Any]) -> None:
        with self.write() as db:
            db.table("seats").insert({**seat, "game_id": game_id})

    def seats(self, game_id: str) -> list[dict[str, Any]]:
        """The game's current seats (closed seats are kept, see :meth:`seat_history`)."""
        return list(self.db.query("SELECT * FROM seats WHERE game_id = ? AND removed IS NULL "
                                  "ORDER BY id", [game_id]))

    def seat_history(self, game_id: str) -> list[dict[str, Any]]:
        """Every seat the game ever had, closed ones included, in the order they were taken."""
        return list(self.db.query("SELECT * FROM seats WHERE game_id = ? ORDER BY id",
                                  [game_id]))

    def close_seats(self, game_id: str, seat_ids: Sequence[int], by: str, reason: str,
                    when: float) -> None:
        """Close seats (a replaced player); the rows stay for the record."""
        with self.write() as db:
            for seat_id in seat_ids:
                db.execute("UPDATE seats SET removed = ?, removed_by = ?, removed_reason = ? "
                           "WHERE id = ? AND game_id = ? AND removed IS NULL",
                           [when, by, reason, seat_id, game_id])

    def swap_sides(self, game_id: str, a: str, b: str) -> None:
        """Exchange the open seats of sides ``a`` and ``b`` (a game's side determination)."""
        with self.write() as db:
            db.execute("UPDATE seats SET side = CASE side WHEN ? THEN ? ELSE ? END "
                       "WHERE game_id = ? AND removed IS NULL AND side IN (?, ?)",
                       [a, b, a, game_id, a, b])

    def set_seat_secret(self, game_id: str, seat_ids: Sequence[int], secret_hash: str) -> None:
        """Store a seat secret's hash on open seats (set or reset by the GM)."""
        with self.write() as db:
            for seat_id in seat_ids:
                db.execute("UPDATE seats SET password_hash = ? WHERE id = ? AND game_id = ? "
                           "AND removed IS NULL", [secret_hash, seat_id, game_id])

    def games_of(self, discord_id: str | None, email: str | None) -> list[dict[str, Any]]:
        return list(self.db.query(
            "SELECT DISTINCT g.* FROM games g JOIN seats s ON s.game_id = g.id "
            "WHERE s.removed IS NULL AND ((s.discord_id IS NOT NULL AND s.discord_id = ?) "
            "OR (s.email IS NOT NULL AND lower(s.email) = lower(?))) ORDER BY g.created",
            [discord_id, email]))

    def games_bound(self, key: str, value: str) -> list[dict[str, Any]]:
        """Games whose frontend ``bindings`` hold ``key`` = ``value`` (newest first)."""
        path = "$." + json.dumps(key)
        return list(self.db.query(
            "SELECT * FROM games WHERE CAST(json_extract(bindings, ?) AS TEXT) = ? "
            "ORDER BY created DESC, rowid DESC", [path, str(value)]))

    def games_behind(self, key: str, cursor: str) -> list[dict[str, Any]]:
        """Games a frontend bound with ``key`` (e.g. a Discord thread) whose last action is
        past the one it last published (kept in ``meta`` under ``cursor`` + the game id)."""
        return list(self.db.query(
            "SELECT g.* FROM games g LEFT JOIN meta m ON m.key = ? || g.id "
            "WHERE json_extract(g.bindings, ?) IS NOT NULL "
            "AND g.head_seq > coalesce(CAST(m.value AS INTEGER), 0) ORDER BY g.created",
            [cursor, "$." + json.dumps(key)]))

    def games_with_deadlines(self) -> list[dict[str, Any]]:
        return list(self.db.query(
            "SELECT * FROM games WHERE status = 'active' AND deadline_at IS NOT NULL "
            "ORDER BY deadline_at"))

    def add_entropy(self, game_id: str, actor: str, text: str) -> None:
        with self.write() as db:
            db.table("entropy").insert({"game_id": game_id, "actor": actor, "text": text,
                                  "created": _now()})

    def entropy(self, game_id: str) -> list[dict[str, Any]]:
        return list(self.db.query("SELECT actor, text FROM entropy WHERE game_id = ? "
                                  "ORDER BY id", [game_id]))

    # ---- the action log ---------------------------------------------------------------

    def append(
        self,
        game_id: str,
        expected_seq: int,
        actions: Sequence[NewAction],
        game_fields: Mapping[str, Any],
        snapshots: Sequence[Snapshot] = (),
        revert_after: tuple[int, int] | None = None,
        idempotency: tuple[str, str, str, str] | None = None,
        past_seed: Mapping[str, Any] | None = None,
    ) -> None:
        """Append actions in one transaction, or raise and write nothing.

        ``expected_seq`` is the head sequence the caller computed from; ``revert_after`` is
        (seq, seq of the reverting action): every still-active action after ``seq`` is
        marked reverted by it; ``idempotency`` is (key, actor, result, request), the key
        scoped to its actor; ``past_seed`` a revealed seed the game stops using
        (``from_branch, seed, commitment``) when it goes on with a new one.
        """
        with self.write() as db:
            self._check_seq(db, game_id, expected_seq)
            if idempotency is not None:
                key, actor, result, request = idempotency
                first = self._idempotent(db, game_id, actor, key)
                if first is not None:
                    raise DuplicateKey(*first)
                db.table("idempotency").insert({
                    "game_id": game_id, "key": scoped_key(actor, key), "actor": actor,
                    "result": result, "request": request, "created": _now()})
            if past_seed is not None:
                db.table("dice_seeds").insert({**past_seed, "game_id": game_id,
                                               "created": _now()})
            for action in actions:
                db.table("actions").insert(action.row(game_id))
            if revert_after is not None:
                after, by = revert_after
                db.execute("UPDATE actions SET reverted_by = ? WHERE game_id = ? AND seq > ?"
                           " AND seq < ? AND reverted_by IS NULL", [by, game_id, after, by])
            for snapshot in snapshots:
                self._insert_snapshot(db, game_id, snapshot)
            head = actions[-1].seq if actions else expected_seq
            db.table("games").update(game_id, {**game_fields, "head_seq": head})

    def _check_seq(self, db: Database, game_id: str, expected_seq: int) -> None:
        rows = list(db.query("SELECT head_seq FROM games WHERE id = ?", [game_id]))
        if not rows:
            raise StoreError(f"no game {game_id!r}")
        if int(rows[0]["head_seq"]) != expected_seq:
            raise SequenceConflict(
                f"game {game_id} is at action {rows[0]['head_seq']}, not {expected_seq}")

    def _insert_snapshot(self, db: Database, game_id: str, snapshot: Snapshot) -> None:
        db.table("snapshots").insert({"game_id": game_id, "seq": snapshot.seq,
                                "state": snapshot.state, "state_hash": snapshot.state_hash,
                                "created": _now()}, replace=True)

    def _idempotent(self, db: Database, game_id: str, actor: str, key: str
                    ) -> tuple[str, str | None] | None:
        rows = list(db.query("SELECT result, request FROM idempotency WHERE game_id = ? AND "
                             "key = ?", [game_id, scoped_key(actor, key)]))
        return (str(rows[0]["result"]), rows[0]["request"]) if rows else None

    def idempotent_result(self, game_id: str, actor: str, key: str
                          ) -> tuple[str, str | None] | None:
        """(first result, request fingerprint) of ``actor``'s ``key`` on the game, if used."""
        return self._idempotent(self.db, game_id, actor, key)

    # ---- dice seeds and the audit trail --------------------------------------------------

    def past_seeds(self, game_id: str) -> list[dict[str, Any]]:
        """The game's earlier (revealed) server seeds, oldest first."""
        return list(self.db.query("SELECT from_branch, seed, commitment FROM dice_seeds "
                                  "WHERE game_id = ? ORDER BY from_branch", [game_id]))

    def audit(self, game_id: str, actor: str, kind: str, detail: str = "") -> None:
        """Record that ``actor`` read a secret of the game (append-only)."""
        with self.write() as db:
            db.table("audit").insert({"game_id": game_id, "actor": actor, "kind": kind,
                                      "detail": detail, "created": _now()})

    def audit_trail(self, game_id: str) -> list[dict[str, Any]]:
        return list(self.db.query("SELECT actor, kind, detail, created FROM audit WHERE "
                                  "game_id = ? ORDER BY id", [game_id]))

    def actions(self, game_id: str, *, active_only: bool = False, after: int = 0,
                upto: int | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM actions WHERE game_id = ? AND seq > ?"
        params: list[Any] = [game_id, after]
        if upto is not None:
            sql += " AND seq <= ?"
            params.append(upto)
        if active_only:
            sql += " AND reverted_by IS NULL"
        return list(self.db.query(sql + " ORDER BY seq", params))

    def last_actions(self, game_id: str, n: int, *, active_only: bool = True
                     ) -> list[dict[str, Any]]:
        """The last ``n`` actions, oldest first."""
        sql = "SELECT * FROM actions WHERE game_id = ?"
        if active_only:
            sql += " AND reverted_by IS NULL"
        rows = list(self.db.query(sql + " ORDER BY seq DESC LIMIT ?", [game_id, n]))
        return rows[::-1]

    def action(self, game_id: str, seq: int) -> dict[str, Any] | None:
        rows = list(self.db.query("SELECT * FROM actions WHERE game_id = ? AND seq = ?",
                                  [game_id, seq]))
        return rows[0] if rows else None

    def count_actions(self, game_id: str) -> int:
        return self.db.table("actions").count_where("game_id = ?", [game_id])

    def latest_snapshot(self, game_id: str, upto: int | None = None) -> Snapshot | None:
        """The newest snapshot taken at an action that is still active (or at the start)."""
        sql = ("SELECT s.seq, s.state, s.state_hash FROM snapshots s "
               "LEFT JOIN actions a ON a.game_id = s.game_id AND a.seq = s.seq "
               "WHERE s.game_id = ? AND (s.seq = 0 OR a.reverted_by IS NULL)")
        params: list[Any] = [game_id]
        if upto is not None:
            sql += " AND s.seq <= ?"
            params.append(upto)
        rows = list(self.db.query(sql + " ORDER BY s.seq DESC LIMIT 1", params))
        if not rows:
            return None
        row = rows[0]
        return Snapshot(seq=int(row["seq"]), state=bytes(row["state"]),
                        state_hash=str(row["state_hash"]))

    # ---- service bookkeeping ----------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = list(self.db.query("SELECT value FROM meta WHERE key = ?", [key]))
        return str(rows[0]["value"]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self.write() as db:
            db.table("meta").upsert({"key": key, "value": value}, pk="key")


def _now() -> float:
    return time.time()
