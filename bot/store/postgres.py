"""Umpire's PostgreSQL store: many processes, on one or several machines, share one database.

* psycopg 3 with a connection pool (``psycopg_pool``); every connection is in autocommit
  mode and each store operation is one explicit transaction (``BEGIN`` … ``COMMIT``).
* The same migrations as SQLite (:mod:`bot.store.migrations`, one history), applied under
  an advisory lock so two processes starting at once do not both migrate.
* The append-only rules are triggers, as in SQLite: the action log, the audit trail,
  seats and dice seeds refuse ``DELETE`` (and ``TRUNCATE``); actions refuse every
  ``UPDATE`` except setting ``reverted_by`` once.
* One game's writers are serialised across processes twice over: the sequence check reads
  the game's row ``FOR UPDATE`` inside the append's transaction (so a second writer waits,
  then sees the new head and retries), and :meth:`PostgresStore.game_lock` holds a
  session-level advisory lock on the game while an action is loaded, planned and appended
  (``lock=row`` in the URL's query leaves only the row lock; ``umpire bench store``
  measures both).

The URL is libpq's: ``postgresql://user:password@host:port/database``, plus Umpire's own
query parameters ``pool`` (most connections a process opens, default 10) and ``lock``
(``advisory`` or ``row``), removed before connecting.

Every network call has a bound: connecting (``connect_timeout``, 10 s), a free connection
from the pool and a lock (the busy timeout, 15 s), a statement (``statement_timeout``,
120 s), and a silent network (TCP keepalives and ``tcp_user_timeout``, 60 s). Values given in
the URL (``?connect_timeout=…``, ``options=-c statement_timeout=…``) win.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, ClassVar
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from bot.store import migrations
from bot.store.base import (
    BUSY_TIMEOUT_S,
    Busy,
    Damaged,
    Refused,
    Store,
    StoreError,
    Tx,
    params_of,
    parse_store_target,
)
from bot.store.urls import redact

#: Key of the advisory lock taken while migrating.
MIGRATION_LOCK = 0x756D7069 << 16  # "umpi"
#: Seconds to wait for a connection to the server (libpq's connect_timeout).
CONNECT_TIMEOUT_S = 10
#: Longest a statement may run on the server (PostgreSQL's statement_timeout).
STATEMENT_TIMEOUT_S = 120
#: libpq's limits on a silent network: a connection whose peer stops answering is closed
#: (keepalive probes, and unacknowledged data for at most tcp_user_timeout ms).
NETWORK_TIMEOUTS = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10,
                    "keepalives_count": 3, "tcp_user_timeout": 60_000}
#: Umpire's own query parameters in a PostgreSQL URL.
OWN_PARAMS = ("pool", "lock")
#: Every store still open in this process (see :func:`close_stores`).
_OPEN: weakref.WeakSet[PostgresStore] = weakref.WeakSet()


def close_stores(url: str | None = None) -> int:
    """Close the stores of this process still open on ``url`` (all: None); how many."""
    closing = [s for s in list(_OPEN) if url is None or s.url == url]
    for store in closing:
        store.close()
    return len(closing)


@lru_cache(maxsize=512)
def to_pyformat(sql: str) -> str:
    """Portable SQL (``?`` parameters) as psycopg takes it (``%s``; a literal ``%`` doubled);
    text in single quotes is left alone."""
    out: list[str] = []
    quoted = False
    for char in sql:
        if char == "'":
            quoted = not quoted
            out.append(char)
        elif quoted:
            out.append("%%" if char == "%" else char)
        elif char == "?":
            out.append("%s")
        elif char == "%":
            out.append("%%")
        else:
            out.append(char)
    return "".join(out)


def _line(error: BaseException) -> str:
    """An error's message on one line."""
    return " ".join(str(error).split())


def lock_key(name: str) -> int:
    """A signed 64-bit advisory lock key for ``name`` (a game id, a job)."""
    digest = hashlib.blake2b(name.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def split_url(url: str) -> tuple[str, dict[str, str]]:
    """(libpq URL, Umpire's own options) of a ``postgresql://`` URL."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    own = {k: v for k, v in query if k in OWN_PARAMS}
    rest = [(k, v) for k, v in query if k not in OWN_PARAMS]
    scheme = "postgresql" if parts.scheme in ("postgres", "postgresql") else parts.scheme
    return urlunsplit(parts._replace(scheme=scheme, query=urlencode(rest, quote_via=quote))), own


def _translate(error: psycopg.Error) -> StoreError:
    """psycopg's error as the store's: a constraint or a trigger's refusal is
    :class:`Refused`; a lock or a lost connection :class:`Busy`; data the server finds
    corrupt (class XX: a damaged page or index) :class:`Damaged`; anything else a
    :class:`StoreError`. Nothing of ``psycopg`` leaves the store."""
    message = (error.diag.message_primary if error.diag and error.diag.message_primary
               else str(error))
    if isinstance(error, pg_errors.RaiseException | psycopg.IntegrityError):
        return Refused(message)
    if isinstance(error, psycopg.InternalError):  # XX000, XX001 data, XX002 index corrupted
        return Damaged(f"the database reports damaged data ({message}); `umpire db check` "
                       "names what is wrong")
    if isinstance(error, pg_errors.LockNotAvailable | pg_errors.QueryCanceled |
                  pg_errors.DeadlockDetected | pg_errors.SerializationFailure):
        return Busy(f"the database is busy: {message}")
    if isinstance(error, psycopg.OperationalError):
        return Busy(f"the database cannot be reached: {message}")
    return StoreError(message)


class PgTx(Tx):
    """One connection's statements, counted as round trips on ``store``. A transaction's
    ``BEGIN`` waits for its first statement and goes with it in one pipeline (one round
    trip, not two); a transaction that sends nothing sends no ``BEGIN`` and no ``COMMIT``."""

    def __init__(self, conn: psycopg.Connection[dict[str, Any]], store: Store,
                 begin: str | None = None) -> None:
        self.conn = conn
        self.store = store
        self.begin = begin
        self.begun = False
        self.batching = False

    def _run(self, sql: str, params: Sequence[Any]) -> psycopg.Cursor[dict[str, Any]]:
        try:
            if self.begin is not None and not self.begun:
                self.begun = True
                if not self.batching:
                    self.store.round_trips += 1
                with self.conn.pipeline():
                    self.conn.execute(self.begin)
                    return self.conn.execute(to_pyformat(sql), params_of(params))
            if not self.batching:
                self.store.round_trips += 1
            return self.conn.execute(to_pyformat(sql), params_of(params))
        except psycopg.Error as error:
            raise _translate(error) from error

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        cursor = self._run(sql, params)
        try:
            return cursor.fetchall() if cursor.description is not None else []
        except psycopg.Error as error:
            raise _translate(error) from error

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return max(self._run(sql, params).rowcount, 0)

    def end(self, sql: str) -> None:
        """``COMMIT`` or ``ROLLBACK``, if a ``BEGIN`` was sent."""
        if self.begun and not self.conn.closed:
            self.store.round_trips += 1
            self.conn.execute(sql)

    @contextmanager
    def batch(self) -> Iterator[None]:
        if self.batching:
            yield
            return
        self.store.round_trips += 1  # the pipeline's one sync
        self.batching = True
        try:
            with self.conn.pipeline():
                if self.begin is not None and not self.begun:
                    self.begun = True
                    self.conn.execute(self.begin)
                yield
        except psycopg.Error as error:
            raise _translate(error) from error
        finally:
            self.batching = False


class PostgresStore(Store):
    """A PostgreSQL database shared by any number of processes."""

    backend: ClassVar[str] = "postgresql"

    def __init__(self, url: str, *, pool_size: int | None = None,
                 lock: str | None = None, busy_timeout: float = BUSY_TIMEOUT_S,
                 migrate: bool = True, **_sqlite_options: Any) -> None:
        """``pool_size``: most connections at once (default: the URL's ``pool``, else 10);
        ``lock``: ``advisory`` (default) or ``row`` (see the module notes); options of the
        SQLite store (``synchronous``) are ignored."""
        where = parse_store_target(url)
        if where.url is None:
            raise StoreError(f"{where.label} is not a PostgreSQL URL")
        conninfo, own = split_url(where.url)
        self.url = url
        self.label = redact(conninfo)
        self.lock_mode = lock or own.get("lock", "advisory")
        if self.lock_mode not in ("advisory", "row"):
            raise StoreError(f"lock={self.lock_mode}: use advisory or row")
        size = pool_size or int(own.get("pool", "10"))
        self.busy_timeout = busy_timeout
        self._local = threading.local()
        timeout_ms = int(busy_timeout * 1000)
        given_info = conninfo_to_dict(conninfo)
        given = str(given_info.get("options") or "")
        connect_timeout = int(given_info.get("connect_timeout") or CONNECT_TIMEOUT_S)
        # Umpire's limits first: an option given in the URL (options=-c …) wins.
        options = (f"-c lock_timeout={timeout_ms} -c statement_timeout="
                   f"{int(STATEMENT_TIMEOUT_S * 1000)} "
                   f"-c idle_in_transaction_session_timeout=600000 {given}").strip()
        network = {"connect_timeout": connect_timeout, **NETWORK_TIMEOUTS,
                   **{k: v for k, v in given_info.items() if k in NETWORK_TIMEOUTS}}
        conninfo = make_conninfo(conninfo, application_name="umpire", **network)
        try:  # one connection first: a wrong password or host is said at once, not retried
            psycopg.connect(conninfo).close()
        except psycopg.Error as error:
            raise Damaged(f"{self.label}: cannot connect to PostgreSQL "
                          f"({redact(_line(error))})") from None
        try:
            self.pool: ConnectionPool[psycopg.Connection[dict[str, Any]]] = ConnectionPool(
                conninfo, min_size=1, max_size=max(size, 2), open=True, timeout=busy_timeout,
                kwargs={"autocommit": True, "row_factory": dict_row, "options": options},
                name="umpire")
            self.pool.wait(timeout=busy_timeout)
        except (PoolTimeout, psycopg.Error) as error:
            self._close_pool()
            raise Damaged(f"{self.label}: cannot connect to PostgreSQL "
                          f"({redact(_line(error))})") from None
        _OPEN.add(self)
        if migrate:
            try:
                self.migrate()
            except BaseException:
                self.close()
                raise

    # ---- connections and transactions ---------------------------------------------------

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection[dict[str, Any]]]:
        """This thread's connection: the one it holds already (inside a transaction or a
        game lock), else one from the pool for the duration of the block."""
        held = getattr(self._local, "conn", None)
        if held is not None:
            yield held
            return
        try:
            with self.pool.connection() as conn:
                self._local.conn = conn
                try:
                    yield conn
                finally:
                    self._local.conn = None
        except PoolTimeout as error:
            raise Busy(f"no free database connection within {self.busy_timeout:.0f} s"
                       ) from error
        except psycopg.Error as error:  # the store's edge: a rollback, an unlock, a reset
            raise _translate(error) from error

    @contextmanager
    def _transaction(self, begin: str) -> Iterator[Tx]:
        with self._conn() as conn:
            held: PgTx | None = getattr(self._local, "tx", None)
            idle = conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            if held is not None or not idle:
                yield held or PgTx(conn, self)  # joins the transaction this thread has open
                return
            tx = PgTx(conn, self, begin)
            self._local.tx = tx
            try:
                try:
                    yield tx
                except BaseException:
                    tx.end("ROLLBACK")
                    raise
                try:
                    tx.end("COMMIT")
                except psycopg.Error as error:
                    raise _translate(error) from error
            finally:
                self._local.tx = None

    @contextmanager
    def plain(self) -> Iterator[Tx]:
        with self._conn() as conn:
            yield getattr(self._local, "tx", None) or PgTx(conn, self)

    def write(self) -> Any:
        return self._transaction("BEGIN")

    def read(self) -> Any:
        return self._transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")

    @contextmanager
    def game_lock(self, game_id: str) -> Iterator[None]:
        if self.lock_mode != "advisory" or getattr(self._local, "locked", None) == game_id:
            yield
            return
        with self._conn() as conn:
            key = lock_key("game:" + game_id)
            try:
                self.round_trips += 1
                conn.execute("SELECT pg_advisory_lock(%s)", [key])
            except psycopg.Error as error:
                raise _translate(error) from error
            self._local.locked = game_id
            try:
                yield
            finally:
                self._local.locked = None
                if not conn.closed:
                    self.round_trips += 1
                    conn.execute("SELECT pg_advisory_unlock(%s)", [key])

    def restart_identities(self, tx: Tx) -> None:
        for table in ("seats", "entropy", "audit"):
            tx.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                       f"coalesce((SELECT max(id) FROM {table}), 0) + 1, false)")

    def _lock_row(self) -> str:
        return " FOR UPDATE"

    def _json_text(self, column: str) -> str:
        return f"({column}::jsonb ->> ?)"

    def _now_sql(self) -> str:
        return "extract(epoch from clock_timestamp())::double precision"

    def close(self) -> None:
        _OPEN.discard(self)
        self._close_pool()

    def _close_pool(self) -> None:
        pool = getattr(self, "pool", None)
        if pool is not None and not pool.closed:
            pool.close()

    # ---- schema -------------------------------------------------------------------------

    def migrate(self) -> int:
        with self.write() as tx:
            tx.execute("SELECT pg_advisory_xact_lock(?)", [MIGRATION_LOCK])
            tx.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                       "(version bigint PRIMARY KEY, applied double precision NOT NULL)")
            done = {int(r["version"]) for r in tx.query("SELECT version FROM schema_migrations")}
            if done and max(done) > len(migrations.MIGRATIONS):
                raise Damaged(f"{self.label} has schema version {max(done)}, written by a "
                              f"newer Umpire (this one knows {len(migrations.MIGRATIONS)}): "
                              "upgrade Umpire")
            conn = tx.conn if isinstance(tx, PgTx) else None
            assert conn is not None
            for migration in migrations.MIGRATIONS:
                if migration.version not in done:
                    try:
                        conn.execute(migration.postgres)
                    except psycopg.Error as error:
                        raise _translate(error) from error
                    if migration.data is not None:
                        migration.data(tx)
                    tx.execute("INSERT INTO schema_migrations (version, applied) VALUES "
                               f"(?, {self._now_sql()})", [migration.version])
        return len(migrations.MIGRATIONS)

    def schema_version(self) -> int:
        if not self.query("SELECT 1 FROM information_schema.tables WHERE table_schema = "
                          "current_schema() AND table_name = 'schema_migrations'"):
            return 0
        row = self._one("SELECT max(version) AS v FROM schema_migrations")
        return int(row["v"]) if row and row["v"] is not None else 0

    def integrity_check(self) -> str:
        """PostgreSQL checks its own pages; here: the schema is complete and current."""
        present = {str(r["table_name"]) for r in self.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = "
            "current_schema()")}
        missing = [t for t in self.tables() if t not in present]
        if missing:
            return "missing tables: " + ", ".join(missing)
        if self.schema_version() != len(migrations.MIGRATIONS):
            return f"schema version {self.schema_version()}, not {len(migrations.MIGRATIONS)}"
        return "ok"
