"""Umpire's PostgreSQL store: many processes, on one or several machines, share one database.

* psycopg 3 with a connection pool (``psycopg_pool``); every connection is in autocommit
  mode and each store operation is one explicit transaction (``BEGIN`` … ``COMMIT``).
* The same migrations as SQLite (:mod:`bot.store.migrations`, one history), applied under
  an advisory lock so two processes starting at once do not both migrate.
* The append-only rules are triggers, as in SQLite: the action log, the audit trail,
  seats and dice seeds refuse ``DELETE`` (and ``TRUNCATE``); actions refuse every
  ``UPDATE`` except setting ``reverted_by`` once.
* One game's writers are serialised across processes twice over: the append's claim
  (``umpire_claim``, schema 10) locks the game's row, aborts the transaction on the server
  when the head moved (so a second writer waits, then sees the new head and retries) and
  records the idempotency key, so an append is one pipeline from ``BEGIN`` to ``COMMIT``
  (one round trip); and :meth:`PostgresStore.game_lock` holds an advisory lock on the game
  while an action is loaded, planned and appended (``lock=row`` in the URL's query leaves
  only the row lock; ``umpire bench store`` measures both).
* Inside :meth:`PostgresStore.game_lock` the thread's statements run in the game's
  transaction (:class:`GameTx`): its first round trip begins it, takes the lock as a
  transaction lock and reads the game's row, open seats and entropy (and the idempotency
  key the caller asks about first), which the store then answers from; the append's
  pipeline ends it with ``COMMIT``, which unlocks. A submit is two round trips.

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
import json
import threading
import weakref
from collections.abc import Iterator, Mapping, Sequence
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
    ENTROPY_SQL,
    GAME_SQL,
    IDEMPOTENCY_SQL,
    SEATS_SQL,
    Busy,
    Damaged,
    DuplicateKey,
    NewAction,
    Refused,
    SequenceConflict,
    Snapshot,
    Store,
    StoreError,
    Tx,
    _now,
    params_of,
    parse_store_target,
    scoped_key,
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
#: SQLSTATEs ``umpire_claim`` raises (schema 10): no such game, the head moved, the
#: idempotency key was used (its first result and request in the detail, a JSON array).
NO_GAME, HEAD_MOVED, KEY_USED = "UM001", "UM002", "UM003"
#: The append's claim (see :data:`bot.store.migrations.PG_10`).
CLAIM_SQL = ("SELECT umpire_claim(?::text, ?::bigint, ?::text, ?::text, ?::text, ?::text, "
             "?::double precision)")
IDLE = psycopg.pq.TransactionStatus.IDLE
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
    if error.sqlstate == HEAD_MOVED:
        return SequenceConflict(message)
    if error.sqlstate == KEY_USED:
        result, request = ([*json.loads(error.diag.message_detail or "[]"), None, None])[:2]
        return DuplicateKey("" if result is None else str(result), request)
    if error.sqlstate == NO_GAME:
        return StoreError(message)
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
    trip, not two); a transaction that sends nothing sends no ``BEGIN`` and no ``COMMIT``.

    Every statement is prepared at its first use (``prepare=True``; ``BEGIN``, ``COMMIT``
    and ``ROLLBACK`` never): psycopg's default, to prepare at the fifth, loses track of a
    statement whose preparation falls in a pipeline the server aborted (a refused claim
    skips what follows it) and then names a prepared statement that does not exist."""

    def __init__(self, conn: psycopg.Connection[dict[str, Any]], store: Store,
                 begin: str | None = None) -> None:
        self.conn = conn
        self.store = store
        self.begin = begin
        self.begun = False
        self.batching = False
        #: The first error of the batch's pipeline: nothing more is queued after it (the
        #: server skips it anyway), and it is raised once the pipeline is through.
        self.failure: psycopg.Error | None = None
        #: The store's transactions using this one (see ``PostgresStore._transaction``):
        #: an append that is the only one commits in its own pipeline.
        self.depth = 1

    def _opening(self) -> None:
        """Queue, in the pipeline of the first statement, what begins the transaction."""
        if self.begin is not None:
            self.conn.execute(self.begin, prepare=False)

    def _opened(self) -> None:
        """Read what the opening returned, once its pipeline is through."""

    def _closing(self, verb: str) -> None:
        """Send (or, in a pipeline, queue) what ends the transaction (``COMMIT`` or
        ``ROLLBACK``)."""
        self.conn.execute(verb, prepare=False)

    def _ended(self) -> None:
        self.begun = False

    def _failed(self) -> None:
        """A statement failed: the transaction's owner rolls it back (here, the store's
        ``write`` or ``read`` block)."""

    def abandon(self) -> None:
        """Roll back (a failure: whatever the transaction wrote is undone)."""
        self.end("ROLLBACK")

    def pending(self) -> bool:
        return self.begin is not None and not self.begun

    def _run(self, sql: str, params: Sequence[Any]) -> psycopg.Cursor[dict[str, Any]]:
        text, args = to_pyformat(sql), params_of(params)
        if self.batching:
            if self.failure is None:
                try:
                    return self.conn.execute(text, args, prepare=True)
                except psycopg.Error as error:  # an earlier statement's, seen already
                    self.failure = error
            return self.conn.cursor()  # not sent: the batch's error is raised at its end
        try:
            self.store.round_trips += 1
            if not self.pending():
                return self.conn.execute(text, args, prepare=True)
            self.begun = True
            with self.conn.pipeline():
                self._opening()
                cursor = self.conn.execute(text, args, prepare=True)
            self._opened()
            return cursor
        except psycopg.Error as error:
            self._failed()
            raise _translate(error) from error

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        cursor = self._run(sql, params)
        try:
            return cursor.fetchall() if cursor.description is not None else []
        except psycopg.Error as error:
            self._failed()
            raise _translate(error) from error

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return max(self._run(sql, params).rowcount, 0)

    def end(self, verb: str) -> None:
        """``COMMIT`` or ``ROLLBACK``, if a ``BEGIN`` was sent."""
        if self.begun and not self.conn.closed:
            self.store.round_trips += 1
            try:
                self._closing(verb)
            finally:
                self._ended()

    def open(self) -> None:
        """Send the opening now, alone (one round trip), if it was not sent."""
        if not self.pending() or self.batching:
            return
        self.store.round_trips += 1
        self.begun = True
        try:
            with self.conn.pipeline():
                self._opening()
            self._opened()
        except psycopg.Error as error:
            self._failed()
            raise _translate(error) from error

    @contextmanager
    def batch(self, commit: bool = False) -> Iterator[None]:
        """See :meth:`Tx.batch`; ``commit``: the transaction ends in the same pipeline."""
        if self.batching:
            yield
            return
        self.store.round_trips += 1  # the pipeline's one sync
        self.batching = True
        self.failure = None
        opened = False
        try:
            with self.conn.pipeline():
                if self.pending():
                    self.begun = opened = True
                    self._opening()
                yield
                if commit and self.begun and self.failure is None:
                    try:
                        self._closing("COMMIT")
                    except psycopg.Error as error:  # a statement's before it, seen already
                        self.failure = error
            if self.failure is not None:
                raise self.failure
            if opened:
                self._opened()
            if commit:
                self._ended()
        except psycopg.Error as error:
            first = self.failure or error
            self._failed()
            raise _translate(first) from first
        finally:
            self.batching = False
            self.failure = None


@contextmanager
def _committed(tx: PgTx) -> Iterator[None]:
    """``tx`` committed after the block, rolled back if it raises."""
    try:
        yield
    except BaseException:
        tx.abandon()
        raise
    try:
        tx.end("COMMIT")
    except psycopg.Error as error:
        raise _translate(error) from error


class GameTx(PgTx):
    """The game's transaction while :meth:`PostgresStore.game_lock` is held (advisory
    mode): the game's lock is held from the thread's first statement to the append's
    ``COMMIT``, and a submit costs two round trips.

    Its opening, sent with the first statement (or by :meth:`open`), is one pipeline:
    ``BEGIN``, the game's advisory lock as a transaction lock (released at ``COMMIT`` or
    ``ROLLBACK``), and the game's row, open seats and entropy (and an idempotency key's
    first result when that is what was asked), read once the lock is granted (``READ
    COMMITTED``: each sees what the lock's last holder committed; no other writer holding
    it moves the game meanwhile), which :meth:`PostgresStore.game`, ``seats``, ``entropy``
    and ``idempotent_result`` answer from until the transaction writes. Reads keep it open;
    a write ends it (the append: ``COMMIT`` in its own pipeline), and the next statement
    opens it again. A failed statement rolls it back (and so unlocks) at once."""

    def __init__(self, conn: psycopg.Connection[dict[str, Any]], store: Store, game_id: str,
                 key: int) -> None:
        super().__init__(conn, store, "BEGIN")
        self.game_id = game_id
        self.key = key
        self.depth = 0
        self.wrote = False
        #: (scoped key, actor) of an idempotency key to look up in the opening
        self.wants: tuple[str, str] | None = None
        #: the opening's rows (``game``, ``seats``, ``entropy``) while they hold
        self.read: dict[str, list[dict[str, Any]]] | None = None
        #: the looked-up key's first (result, request), None if unused
        self.first: tuple[str, str | None] | None = None
        self._cursors: dict[str, psycopg.Cursor[dict[str, Any]]] = {}

    def _opening(self) -> None:
        execute = self.conn.execute
        execute(self.begin or "BEGIN", prepare=False)
        execute("SELECT pg_advisory_xact_lock(%s)", [self.key], prepare=True)
        self._cursors = {name: execute(to_pyformat(sql), [self.game_id], prepare=True)
                         for name, sql in (("game", GAME_SQL), ("seats", SEATS_SQL),
                                           ("entropy", ENTROPY_SQL))}
        if self.wants is not None:
            self._cursors["idempotency"] = execute(to_pyformat(IDEMPOTENCY_SQL),
                                                   [self.game_id, *self.wants], prepare=True)

    def _opened(self) -> None:
        read = {name: cursor.fetchall() for name, cursor in self._cursors.items()}
        self._cursors = {}
        self.wants = None
        first = read.pop("idempotency", [])
        self.first = (str(first[0]["result"]), first[0]["request"]) if first else None
        self.read = None if self.wrote else read

    def _ended(self) -> None:
        self.begun = False
        self.wrote = False
        self.read = None
        self.first = None
        self._cursors = {}

    def _failed(self) -> None:
        self.abandon()

    def abandon(self) -> None:
        """Roll back now, which unlocks (a failure: whatever it wrote is undone)."""
        if not self.begun:
            return
        if self.conn.closed:  # the server ended the session, and its transaction
            self._ended()
            return
        self.store.round_trips += 1
        try:
            self._closing("ROLLBACK")
        except psycopg.Error:  # a lost connection: the pool drops it, the server rolls back
            pass
        finally:
            self._ended()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        self.wrote = True
        self.read = None  # a write: what the opening read may no longer hold
        return super().execute(sql, params)


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
    def _transaction(self, begin: str, writing: bool) -> Iterator[Tx]:
        with self._conn() as conn:
            held: PgTx | None = getattr(self._local, "tx", None)
            if isinstance(held, GameTx) and held.depth == 0:
                # the game's transaction (game_lock): a read joins it; a write ends it
                held.depth = 1
                try:
                    yield held
                    if writing and held.wrote:
                        held.end("COMMIT")
                except BaseException:
                    if writing:
                        held.abandon()
                    raise
                finally:
                    held.depth = 0
                return
            if held is not None:  # joins the transaction this thread has open
                held.depth += 1
                try:
                    yield held
                finally:
                    held.depth -= 1
                return
            if conn.info.transaction_status != IDLE:
                yield PgTx(conn, self)
                return
            tx = PgTx(conn, self, begin)
            self._local.tx = tx
            try:
                with _committed(tx):
                    yield tx
            finally:
                self._local.tx = None

    @contextmanager
    def plain(self) -> Iterator[Tx]:
        with self._conn() as conn:
            yield getattr(self._local, "tx", None) or PgTx(conn, self)

    def write(self) -> Any:
        return self._transaction("BEGIN", writing=True)

    def read(self) -> Any:
        return self._transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                                 writing=False)

    @contextmanager
    def game_lock(self, game_id: str) -> Iterator[None]:
        if self.lock_mode != "advisory" or getattr(self._local, "locked", None) == game_id:
            yield
            return
        with self._conn() as conn:
            key = lock_key("game:" + game_id)
            if getattr(self._local, "tx", None) is None and \
                    conn.info.transaction_status == IDLE:
                with self._game_transaction(conn, game_id, key):
                    yield
                return
            try:  # inside a transaction of the caller's: a session lock around it
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

    @contextmanager
    def _game_transaction(self, conn: psycopg.Connection[dict[str, Any]], game_id: str,
                          key: int) -> Iterator[None]:
        """The thread's statements run in the game's transaction (:class:`GameTx`)."""
        tx = GameTx(conn, self, game_id, key)
        self._local.tx = tx
        self._local.locked = game_id
        try:
            with _committed(tx):
                yield
        finally:
            self._local.tx = None
            self._local.locked = None

    def _game_tx(self, game_id: str) -> GameTx | None:
        """The thread's game transaction, when it is ``game_id``'s and not in a batch."""
        tx = getattr(self._local, "tx", None)
        if not isinstance(tx, GameTx) or tx.game_id != game_id or tx.batching:
            return None
        return tx

    def _game_rows(self, game_id: str) -> dict[str, list[dict[str, Any]]] | None:
        """What the game's transaction read at its opening (sent now if it was not), when
        the thread is in ``game_id``'s and the rows still hold; else None."""
        tx = self._game_tx(game_id)
        if tx is None:
            return None
        tx.open()
        return tx.read

    def game(self, game_id: str) -> dict[str, Any] | None:
        rows = self._game_rows(game_id)
        if rows is None:
            return super().game(game_id)
        return dict(rows["game"][0]) if rows["game"] else None

    def seats(self, game_id: str) -> list[dict[str, Any]]:
        rows = self._game_rows(game_id)
        return super().seats(game_id) if rows is None else [dict(r) for r in rows["seats"]]

    def entropy(self, game_id: str) -> list[dict[str, Any]]:
        rows = self._game_rows(game_id)
        return super().entropy(game_id) if rows is None else [dict(r) for r in rows["entropy"]]

    def idempotent_result(self, game_id: str, actor: str, key: str
                          ) -> tuple[str, str | None] | None:
        """In the game's transaction not yet opened: looked up in its opening."""
        tx = self._game_tx(game_id)
        if tx is not None and tx.pending():
            tx.wants = (scoped_key(actor, key), actor)
            tx.open()
            first, tx.first = tx.first, None
            return first
        return super().idempotent_result(game_id, actor, key)

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
        """:meth:`Store.append` as one pipeline from ``BEGIN`` to ``COMMIT`` (one round
        trip; ``COMMIT`` is left to an enclosing transaction): the claim (``umpire_claim``:
        the sequence check and the idempotency key, which abort the transaction on the
        server) and the writes after it, which run only if it held."""
        key = actor = result = request = None
        if idempotency is not None:
            given, actor, result, request = idempotency
            key = scoped_key(actor, given)
        with self.write() as tx:
            assert isinstance(tx, PgTx)
            with tx.batch(commit=tx.depth == 1):
                tx.execute(CLAIM_SQL, [game_id, expected_seq, key, actor, result, request,
                                       _now()])
                self._append_rows(tx, game_id, expected_seq, actions, game_fields, snapshots,
                                  revert_after, past_seed)

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
