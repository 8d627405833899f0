"""Umpire's SQLite store: one SQLite file through sqlite-utils (the embedded default).

* WAL journal, a busy timeout, foreign keys on, ``synchronous=FULL`` by default (an
  acknowledged order survives a crash of the process or of the machine).
* The migrations of :mod:`bot.store.migrations` applied when a store opens the file.
* The action log is append-only: triggers refuse ``DELETE`` and every ``UPDATE`` except
  setting ``reverted_by`` once (a rollback marks actions reverted, it never removes them).
* A write is one ``BEGIN IMMEDIATE`` transaction: the whole file has one writer at a time,
  so the sequence check in :meth:`~bot.store.base.Store.append` cannot race and two
  processes sharing the file cannot both apply an action on the same game position.

Each thread gets its own connection (the service runs adjudication in worker threads);
the file is the only shared thing, so separate processes behave exactly like threads.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, ClassVar

from sqlite_utils import Database

from bot.store import migrations
from bot.store.base import (
    BUSY_TIMEOUT_S,
    Busy,
    Damaged,
    Refused,
    Store,
    StoreError,
    Tx,
    _now,
    params_of,
    parse_store_target,
)


def is_busy(error: BaseException) -> bool:
    return isinstance(error, sqlite3.OperationalError) and any(
        word in str(error).lower() for word in ("locked", "busy"))


def translate(error: sqlite3.Error | UnicodeDecodeError) -> StoreError:
    """SQLite's error as the store's: a constraint is :class:`Refused`, a lock held too long
    :class:`Busy`; a damaged file (a malformed page, text that is not UTF-8, a schema
    entry gone) :class:`Damaged`; anything else a :class:`StoreError`. Nothing of
    ``sqlite3`` leaves the store."""
    text = " ".join(str(error).split())[:200]
    if isinstance(error, sqlite3.IntegrityError):
        return Refused(text)
    if is_busy(error):
        return Busy(f"the database is busy: {text}")
    if "unable to open" in text:  # a path, a permission, a full disk: not the file's fault
        return StoreError(f"the database file cannot be opened ({text})")
    if isinstance(error, sqlite3.DatabaseError | UnicodeDecodeError):
        return Damaged(f"the database file is damaged ({text}); `umpire db check` names "
                       "what is wrong")
    return StoreError(text)


@contextmanager
def translated() -> Iterator[None]:
    """The store's edge: SQLite's errors raised in the block leave it translated
    (:func:`translate`); UTF-8 errors too (SQLite decoding a damaged text column)."""
    try:
        yield
    except (sqlite3.Error, UnicodeDecodeError) as error:
        raise translate(error) from error


class SqliteTx(Tx):
    def __init__(self, db: Database, store: Store) -> None:
        self.db = db
        self.store = store

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        values = params_of(params)
        self.store.round_trips += 1
        with translated():
            return list(self.db.query(sql, values))

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        values = params_of(params)
        self.store.round_trips += 1
        with translated():
            cursor = self.db.execute(sql, values)
        return max(cursor.rowcount, 0)


class SqliteStore(Store):
    """The SQLite file. Thread-safe: one connection per thread, one transaction per write."""

    backend: ClassVar[str] = "sqlite"

    def __init__(self, path: str | Path, *, synchronous: str = "FULL",
                 busy_timeout: float = BUSY_TIMEOUT_S, migrate: bool = True,
                 **_options: Any) -> None:
        """``migrate=False`` opens the file as it is (``umpire db migrate`` and ``copy``
        read its version first); options of other backends are ignored."""
        where = parse_store_target(path)
        if where.path is None:
            raise StoreError(f"{where.label} is not a SQLite file")
        self.path = where.path
        self.label = str(self.path)
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
            if migrate:
                self.migrate()
            else:
                self.integrity_check()  # reads the file: not SQLite is said here
        except (sqlite3.DatabaseError, UnicodeDecodeError, StoreError) as error:
            self.close()
            if isinstance(error, Busy) or is_busy(error):
                raise Busy(f"{self.path} is busy (another process holds it): try again"
                           ) from error
            if isinstance(error, Damaged) and error.__cause__ is None:
                raise  # said already (a newer schema)
            said = " ".join(str(error.__cause__ or error).split())[:200]  # one line
            raise Damaged(f"{self.path} is not a readable Umpire database ({said})"
                          ) from error
        except BaseException:
            self.close()
            raise

    # ---- connections ------------------------------------------------------------------

    @property
    def db(self) -> Database:
        """This thread's sqlite-utils connection (SQLite only; portable code uses
        :meth:`query`, :meth:`write` and :meth:`read`)."""
        db: Database | None = getattr(self._local, "db", None)
        if db is None:
            with translated():  # (a file that cannot be opened)
                conn = sqlite3.connect(str(self.path), timeout=self.busy_timeout,
                                       check_same_thread=False, isolation_level=None)
            db = Database(conn)
            try:
                with translated():
                    db.enable_wal()
                    db.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
                    db.execute("PRAGMA foreign_keys = ON")
                    db.execute(f"PRAGMA synchronous = {self.synchronous}")
            except StoreError:
                db.close()
                raise
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
    def write(self) -> Iterator[Tx]:
        """One ``BEGIN IMMEDIATE`` transaction: all of it is committed, or none of it."""
        db = self.db
        if db.conn.in_transaction:
            yield SqliteTx(db, self)
            return
        self.round_trips += 2  # BEGIN and COMMIT (or ROLLBACK)
        with translated():
            db.execute("BEGIN IMMEDIATE")
        try:
            yield SqliteTx(db, self)
            with translated():
                db.execute("COMMIT")
        except (sqlite3.Error, UnicodeDecodeError) as error:  # sqlite-utils calls (migrations)
            _end(db)
            raise translate(error) from error
        except BaseException:
            _end(db)
            raise

    @contextmanager
    def plain(self) -> Iterator[Tx]:
        yield SqliteTx(self.db, self)

    @contextmanager
    def read(self) -> Iterator[Tx]:
        """One read transaction: everything read inside it comes from one moment of the
        file (WAL: another process's commit meanwhile is not seen). Nests."""
        db = self.db
        if db.conn.in_transaction:
            yield SqliteTx(db, self)
            return
        self.round_trips += 2  # BEGIN and COMMIT
        with translated():
            db.execute("BEGIN")
        try:
            yield SqliteTx(db, self)
        except BaseException:
            _end(db)
            raise
        if db.conn.in_transaction:
            with translated():
                db.execute("COMMIT")

    @contextmanager
    def game_lock(self, game_id: str) -> Iterator[None]:
        """Nothing to hold: a write locks the whole file (``BEGIN IMMEDIATE``)."""
        yield

    def _json_text(self, column: str) -> str:
        return f"CAST(json_extract({column}, ?) AS TEXT)"

    def _json_key(self, key: str) -> str:
        return "$." + _json_quote(key)

    def _now_sql(self) -> str:
        return "((julianday('now') - 2440587.5) * 86400.0)"

    # ---- schema -------------------------------------------------------------------------

    def migrate(self) -> int:
        """Apply pending migrations; returns the schema version."""
        with self.write() as tx:
            db = self.db
            db.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                       "(version INTEGER PRIMARY KEY, applied REAL NOT NULL)")
            done = {row["version"] for row in db.query("SELECT version FROM schema_migrations")}
            known = len(migrations.MIGRATIONS)
            if done and max(done) > known:
                raise Damaged(f"{self.path} has schema version {max(done)}, written by a newer "
                              f"Umpire (this one knows {known}): upgrade Umpire")
            for migration in migrations.MIGRATIONS:
                if migration.version not in done:
                    migration.sqlite(db)
                    if migration.data is not None:
                        migration.data(tx)
                    db.table("schema_migrations").insert({"version": migration.version,
                                                           "applied": _now()})
        return len(migrations.MIGRATIONS)

    def schema_version(self) -> int:
        if not self.query("SELECT name FROM sqlite_master WHERE name = 'schema_migrations'"):
            return 0
        row = self._one("SELECT max(version) AS v FROM schema_migrations")
        return int(row["v"]) if row and row["v"] is not None else 0

    def integrity_check(self) -> str:
        with translated():
            row = next(self.db.query("PRAGMA integrity_check"))
        return str(next(iter(row.values())))


def _end(db: Database) -> None:
    """Roll back the transaction an error interrupted; an error doing so (a damaged file)
    is not the one to report."""
    if db.conn.in_transaction:
        with suppress(sqlite3.Error):
            db.conn.rollback()


def _json_quote(key: str) -> str:
    import json

    return json.dumps(key)
