"""The store interface, and what both backends share.

:class:`Store` implements every operation of the store once, in SQL that SQLite and
PostgreSQL both run (``?`` placeholders; each backend's :class:`Tx` adapts them). A backend
supplies connections and transactions (:meth:`Store.write`, :meth:`Store.read`), its
migrations, the lock that serialises one game's writers across processes
(:meth:`Store.game_lock`) and a few dialect fragments.

Guarantees every backend keeps:

* the action log and the audit trail are append-only, refused by the database itself
  (triggers), not only by this code; a rollback only sets ``reverted_by`` once;
* :meth:`Store.append` writes one submitted action (its rows, snapshots, the game row,
  the idempotency key) in ONE transaction after checking the sequence number the caller
  computed against, with the game's row locked: two writers cannot both apply an action on
  the same game position;
* named leases (:meth:`Store.lease`) and once-only marks (:meth:`Store.mark`) are
  decided by one statement in the database, so several processes agree on who does what.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from bot.store.codec import pack_state, unpack_state
from bot.store.urls import BadTarget, StoreTarget, parse_target, redact

#: Seconds a writer waits for another before the store gives up (:class:`Busy`).
BUSY_TIMEOUT_S = 15.0
#: Action kinds of schema version 1; version 2 adds ``pause`` and ``resume``.
KINDS_V1 = ("order", "decision", "gm-override", "rollback", "system")
ACTION_KINDS = (*KINDS_V1, "pause", "resume")

#: Primary key of each table (what an upsert or a replacing insert conflicts on).
KEYS: dict[str, tuple[str, ...]] = {
    "games": ("id",), "seats": ("id",), "entropy": ("id",), "actions": ("game_id", "seq"),
    "snapshots": ("game_id", "seq"), "idempotency": ("game_id", "key"), "meta": ("key",),
    "dice_seeds": ("game_id", "from_branch"), "audit": ("id",),
    "mail_inbox": ("message_key",), "mail_cursors": ("game_id", "address"),
    "mail_observers": ("game_id", "address"), "mail_rate": ("address",),
    "mail_reminders": ("game_id", "deadline_start", "fraction"),
    "leases": ("name",), "held_rollbacks": ("token",), "web_links": ("token_hash",),
}

#: What every action on a game reads first (PostgreSQL's game transaction reads them in one
#: round trip, see ``bot.store.postgres.GameTx``): the game's row, its open seats, its
#: entropy, and an idempotency key's first result.
GAME_SQL = "SELECT * FROM games WHERE id = ?"
SEATS_SQL = "SELECT * FROM seats WHERE game_id = ? AND removed IS NULL ORDER BY id"
ENTROPY_SQL = "SELECT actor, text FROM entropy WHERE game_id = ? ORDER BY id"
IDEMPOTENCY_SQL = ("SELECT result, request FROM idempotency WHERE game_id = ? AND key = ? "
                   "AND actor = ?")


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
    """Another writer held the database longer than the busy timeout."""


class Damaged(StoreError):
    """The database is not a readable Umpire database (empty, not SQLite, newer schema...)."""


class Refused(StoreError):
    """The database refused a write: a constraint, or an append-only rule."""


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
    """An idempotency key as stored: scoped to the actor who gave it (``LEN:ACTOR:KEY``,
    the actor's length first, so no actor and key can spell another pair's)."""
    return f"{len(actor)}:{actor}:{key}"


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
    """A state kept to start replays from: ``state`` is its JSON in its own order
    (``GameState.to_json``: the rules iterate dicts in insertion order, which the canonical
    bytes, sorted, would lose), stored compressed (:mod:`bot.store.codec`); ``state_hash``
    is the hash of its canonical bytes."""

    seq: int
    state: bytes
    state_hash: str


def _value(value: Any) -> Any:
    """A Python value as both databases store it (lists and dicts as JSON text)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, dict | list | tuple):
        return dumps(value)
    return value


def params_of(params: Sequence[Any]) -> list[Any]:
    """Parameters as both backends take them: no text with a NUL character (PostgreSQL's
    text cannot hold one; SQLite refuses it too, so both behave alike) nor a lone surrogate
    (not UTF-8: either driver would raise UnicodeEncodeError), booleans as 0/1."""
    out: list[Any] = []
    for value in params:
        if isinstance(value, str):
            if "\x00" in value:
                raise Refused("a text with a NUL character cannot be stored")
            if not value.isascii():
                try:
                    value.encode()
                except UnicodeEncodeError as error:
                    raise Refused("a text with a lone surrogate cannot be stored") from error
        out.append(int(value) if isinstance(value, bool) else value)
    return out


def _quote(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise StoreError(f"not a column name: {name!r}")
    return f'"{name}"'


class Tx(ABC):
    """One connection inside a transaction (or reading outside one), in portable SQL.

    ``?`` marks a parameter. Rows come back as dicts keyed by column name.
    """

    @abstractmethod
    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]: ...

    @abstractmethod
    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement; the number of rows it changed."""

    def batch(self) -> AbstractContextManager[None]:
        """Statements whose results are not read inside the block may be sent together
        (PostgreSQL's pipeline: one round trip); errors surface at the block's end."""
        return nullcontext()

    def one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def insert(self, table: str, row: Mapping[str, Any], *, replace: bool = False,
               ignore: bool = False) -> int:
        """Insert a row; ``replace``: over the row with the same key; ``ignore``: not if
        that key exists (returns 0)."""
        columns = list(row)
        sql = (f"INSERT INTO {_quote(table)} ({', '.join(map(_quote, columns))}) "
               f"VALUES ({', '.join('?' for _ in columns)})")
        keys = KEYS.get(table, ())
        if replace or ignore:
            if not keys:
                raise StoreError(f"no key known for table {table}")
            target = ", ".join(map(_quote, keys))
            rest = [c for c in columns if c not in keys]
            if ignore or not rest:
                sql += f" ON CONFLICT ({target}) DO NOTHING"
            else:
                sql += (f" ON CONFLICT ({target}) DO UPDATE SET "
                        + ", ".join(f"{_quote(c)} = excluded.{_quote(c)}" for c in rest))
        return self.execute(sql, [_value(row[c]) for c in columns])

    def upsert(self, table: str, row: Mapping[str, Any]) -> int:
        """Insert the row, or update the columns it names on the row with its key."""
        return self.insert(table, row, replace=True)

    def update(self, table: str, key: Any, fields: Mapping[str, Any]) -> int:
        """Set ``fields`` on the row of a single-column key."""
        if not fields:
            return 0
        (column,) = KEYS[table]
        sets = ", ".join(f"{_quote(c)} = ?" for c in fields)
        return self.execute(f"UPDATE {_quote(table)} SET {sets} WHERE {_quote(column)} = ?",
                            [*(_value(v) for v in fields.values()), key])

    def table(self, name: str) -> TableOps:
        """``tx.table(name).insert(row)`` and friends (the older calling style)."""
        return TableOps(self, name)


@dataclass
class TableOps:
    tx: Tx
    name: str

    def insert(self, row: Mapping[str, Any], *, replace: bool = False) -> None:
        self.tx.insert(self.name, row, replace=replace)

    def upsert(self, row: Mapping[str, Any], pk: str | Sequence[str] | None = None) -> None:
        self.tx.upsert(self.name, row)

    def update(self, key: Any, fields: Mapping[str, Any]) -> None:
        self.tx.update(self.name, key, fields)


class Store:
    """A game database. Thread-safe; every method is one transaction unless it runs inside
    an open :meth:`write` or :meth:`read` of the same thread.

    ``Store(target)`` opens the backend its target names (see :func:`resolve`): a
    ``postgresql://`` URL, a ``sqlite://PATH`` URL or a plain file path.
    """

    #: ``sqlite`` or ``postgresql``.
    backend: ClassVar[str] = ""
    #: Where the database is, for messages (a path, or a URL without its password).
    label: str = ""
    #: Statements this store object has sent so far, for the benchmarks: PostgreSQL's round
    #: trips to the server (a pipeline is one), SQLite's statements run in the library
    #: (each a call into it: no round trip). Counted without a lock (a figure, not a total
    #: anything depends on).
    round_trips: int = 0

    #: The backend class for a kind (``sqlite``, ``postgresql``): set once by the package
    #: (:func:`bot.store.backends.backend_class`), so that this module imports no backend
    #: and the backends, which import it, form no import cycle with it.
    backend_class: ClassVar[Callable[[str], type[Store]] | None] = None

    def __new__(cls, target: str | Path | None = None, **options: Any) -> Store:
        if cls is not Store:
            return super().__new__(cls)
        kind, _where = resolve(target)
        if Store.backend_class is None:
            raise StoreError("no store backend is registered (import bot.store)")
        return super().__new__(Store.backend_class(kind))

    def __init__(self, target: str | Path | None = None, **options: Any) -> None:
        raise TypeError("Store(...) opens a backend's store")  # replaced by each backend's

    # ---- what a backend provides --------------------------------------------------------

    def write(self) -> AbstractContextManager[Tx]:
        """One write transaction: all of it is committed, or none of it. Nests (an inner
        block joins the outer transaction)."""
        raise NotImplementedError

    def read(self) -> AbstractContextManager[Tx]:
        """One read transaction: everything read inside it comes from one moment of the
        database. Nests."""
        raise NotImplementedError

    def game_lock(self, game_id: str) -> AbstractContextManager[None]:
        """Held while one game's action is loaded, planned and appended, so that writers
        in other processes wait instead of conflicting (a no-op where the database has a
        single writer anyway)."""
        raise NotImplementedError

    def migrate(self) -> int:
        """Apply pending migrations; returns the schema version."""
        raise NotImplementedError

    def schema_version(self) -> int:
        raise NotImplementedError

    def integrity_check(self) -> str:
        """``ok``, or what the database's own check found."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def _json_text(self, column: str) -> str:
        """SQL for the text of key ``?`` of a JSON text column (NULL when absent)."""
        raise NotImplementedError

    def _json_key(self, key: str) -> str:
        return key

    def _now_sql(self) -> str:
        """SQL for the database's clock, in seconds since the epoch."""
        raise NotImplementedError

    def restart_identities(self, tx: Tx) -> None:
        """After rows were inserted with their own ids (a copy): new rows get higher ones."""

    def _lock_row(self) -> str:
        """What ends a SELECT of one row to lock it for the transaction ("" if the whole
        database is locked by a write transaction anyway)."""
        return ""

    # ---- plain reads --------------------------------------------------------------------

    def plain(self) -> AbstractContextManager[Tx]:
        """This thread's connection as it is: inside its open transaction, or in
        autocommit, where one statement sees one moment of the database (one round trip,
        no BEGIN and COMMIT around it)."""
        raise NotImplementedError

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Rows of a read in portable SQL (``?`` parameters), one statement."""
        with self.plain() as tx:
            return tx.query(sql, params)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """A write in portable SQL, in its own transaction; rows changed."""
        with self.write() as tx:
            return tx.execute(sql, params)

    def _one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def tables(self) -> list[str]:
        """The tables holding Umpire's data, in an order that keeps foreign keys valid."""
        return ["games", "seats", "entropy", "actions", "snapshots", "idempotency",
                "dice_seeds", "audit", "meta", "mail_inbox", "mail_cursors",
                "mail_observers", "mail_rate", "mail_reminders",
                "leases", "held_rollbacks", "web_links"]

    # ---- games and seats ----------------------------------------------------------------

    def insert_game(self, row: Mapping[str, Any], seats: Sequence[Mapping[str, Any]] = ()
                    ) -> None:
        with self.write() as tx:
            tx.insert("games", row)
            for seat in seats:
                tx.insert("seats", {**seat, "game_id": row["id"]})

    def game(self, game_id: str) -> dict[str, Any] | None:
        return self._one(GAME_SQL, [game_id])

    def update_game(self, game_id: str, fields: Mapping[str, Any],
                    expected_seq: int | None = None, snapshot: Snapshot | None = None) -> None:
        """Change game columns outside the action log (seating, start, deadlines)."""
        with self.write() as tx:
            if expected_seq is not None:
                self._check_seq(tx, game_id, expected_seq)
            tx.update("games", game_id, fields)
            if snapshot is not None:
                self._insert_snapshot(tx, game_id, snapshot)

    def add_seat(self, game_id: str, seat: Mapping[str, Any]) -> None:
        with self.write() as tx:
            tx.insert("seats", {**seat, "game_id": game_id})

    def seats(self, game_id: str) -> list[dict[str, Any]]:
        """The game's current seats (closed seats are kept, see :meth:`seat_history`)."""
        return self.query(SEATS_SQL, [game_id])

    def seat_history(self, game_id: str) -> list[dict[str, Any]]:
        """Every seat the game ever had, closed ones included, in the order they were taken."""
        return self.query("SELECT * FROM seats WHERE game_id = ? ORDER BY id", [game_id])

    def close_seats(self, game_id: str, seat_ids: Sequence[int], by: str, reason: str,
                    when: float) -> None:
        """Close seats (a replaced player); the rows stay for the record."""
        with self.write() as tx:
            for seat_id in seat_ids:
                tx.execute("UPDATE seats SET removed = ?, removed_by = ?, removed_reason = ? "
                           "WHERE id = ? AND game_id = ? AND removed IS NULL",
                           [when, by, reason, seat_id, game_id])

    def swap_sides(self, game_id: str, a: str, b: str) -> None:
        """Exchange the open seats of sides ``a`` and ``b`` (a game's side determination)."""
        with self.write() as tx:
            tx.execute("UPDATE seats SET side = CASE side WHEN ? THEN ? ELSE ? END "
                       "WHERE game_id = ? AND removed IS NULL AND side IN (?, ?)",
                       [a, b, a, game_id, a, b])

    def set_seat_secret(self, game_id: str, seat_ids: Sequence[int], secret_hash: str) -> None:
        """Store a seat secret's hash on open seats (set or reset by the GM)."""
        with self.write() as tx:
            for seat_id in seat_ids:
                tx.execute("UPDATE seats SET password_hash = ? WHERE id = ? AND game_id = ? "
                           "AND removed IS NULL", [secret_hash, seat_id, game_id])

    def games(self) -> list[dict[str, Any]]:
        """Every stored game, the newest first (``umpire games``)."""
        return self.query("SELECT * FROM games ORDER BY created DESC")

    def games_of(self, discord_id: str | None, email: str | None) -> list[dict[str, Any]]:
        return self.query(
            "SELECT DISTINCT g.* FROM games g JOIN seats s ON s.game_id = g.id "
            "WHERE s.removed IS NULL AND ((s.discord_id IS NOT NULL AND s.discord_id = ?) "
            "OR (s.email IS NOT NULL AND lower(s.email) = lower(?))) ORDER BY g.created",
            [discord_id, email])

    def games_bound(self, key: str, value: str) -> list[dict[str, Any]]:
        """Games whose frontend ``bindings`` hold ``key`` = ``value`` (newest first)."""
        return self.query(
            f"SELECT * FROM games WHERE {self._json_text('bindings')} = ? "
            "ORDER BY created DESC, rowid DESC", [self._json_key(key), str(value)])

    def games_behind(self, key: str, cursor: str) -> list[dict[str, Any]]:
        """Games a frontend bound with ``key`` (e.g. a Discord thread) whose last action is
        past the one it last published (kept in ``meta`` under ``cursor`` + the game id)."""
        return self.query(
            "SELECT g.* FROM games g LEFT JOIN meta m ON m.key = ? || g.id "
            f"WHERE {self._json_text('g.bindings')} IS NOT NULL "
            "AND g.head_seq > coalesce(CAST(m.value AS INTEGER), 0) ORDER BY g.created",
            [cursor, self._json_key(key)])

    def games_with_deadlines(self) -> list[dict[str, Any]]:
        return self.query(
            "SELECT * FROM games WHERE status = 'active' AND deadline_at IS NOT NULL "
            "ORDER BY deadline_at")

    def game_ids(self) -> list[str]:
        """Every game's id, oldest first."""
        return [str(r["id"]) for r in self.query("SELECT id FROM games ORDER BY created, id")]

    def add_entropy(self, game_id: str, actor: str, text: str) -> None:
        with self.write() as tx:
            tx.insert("entropy", {"game_id": game_id, "actor": actor, "text": text,
                                  "created": _now()})

    def entropy(self, game_id: str) -> list[dict[str, Any]]:
        return self.query(ENTROPY_SQL, [game_id])

    # ---- the action log -----------------------------------------------------------------

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
        with self.write() as tx:
            self._check_seq(tx, game_id, expected_seq)
            if idempotency is not None:
                key, actor, result, request = idempotency
                if not tx.insert("idempotency", {
                        "game_id": game_id, "key": scoped_key(actor, key), "actor": actor,
                        "result": result, "request": request, "created": _now()},
                        ignore=True):
                    first = self._idempotent(tx, game_id, actor, key)
                    raise DuplicateKey(*(first or ("", None)))
            with tx.batch():  # nothing below is read back: sent in one go where it can be
                self._append_rows(tx, game_id, expected_seq, actions, game_fields, snapshots,
                                  revert_after, past_seed)

    def _append_rows(self, tx: Tx, game_id: str, expected_seq: int,
                     actions: Sequence[NewAction], game_fields: Mapping[str, Any],
                     snapshots: Sequence[Snapshot], revert_after: tuple[int, int] | None,
                     past_seed: Mapping[str, Any] | None) -> None:
        """The writes of :meth:`append` once its claim held (nothing read back)."""
        if past_seed is not None:
            tx.insert("dice_seeds", {**past_seed, "game_id": game_id, "created": _now()})
        for action in actions:
            tx.insert("actions", action.row(game_id))
        if revert_after is not None:
            after, by = revert_after
            tx.execute("UPDATE actions SET reverted_by = ? WHERE game_id = ? AND "
                       "seq > ? AND seq < ? AND reverted_by IS NULL", [by, game_id, after, by])
        for snapshot in snapshots:
            self._insert_snapshot(tx, game_id, snapshot)
        head = actions[-1].seq if actions else expected_seq
        tx.update("games", game_id, {**game_fields, "head_seq": head})

    def _check_seq(self, tx: Tx, game_id: str, expected_seq: int) -> None:
        row = tx.one(f"SELECT head_seq FROM games WHERE id = ?{self._lock_row()}", [game_id])
        if row is None:
            raise StoreError(f"no game {game_id!r}")
        if int(row["head_seq"]) != expected_seq:
            raise SequenceConflict(
                f"game {game_id} is at action {row['head_seq']}, not {expected_seq}")

    def add_snapshot(self, tx: Tx, game_id: str, snapshot: Snapshot) -> None:
        """Store ``snapshot`` within the transaction ``tx`` (see :meth:`write`)."""
        self._insert_snapshot(tx, game_id, snapshot)

    def _insert_snapshot(self, tx: Tx, game_id: str, snapshot: Snapshot) -> None:
        tx.insert("snapshots", {"game_id": game_id, "seq": snapshot.seq,
                                "state": pack_state(snapshot.state),
                                "state_hash": snapshot.state_hash,
                                "created": _now()}, replace=True)

    def _idempotent(self, tx: Tx, game_id: str, actor: str, key: str
                    ) -> tuple[str, str | None] | None:
        row = tx.one(IDEMPOTENCY_SQL, [game_id, scoped_key(actor, key), actor])
        return (str(row["result"]), row["request"]) if row else None

    def idempotent_result(self, game_id: str, actor: str, key: str
                          ) -> tuple[str, str | None] | None:
        """(first result, request fingerprint) of ``actor``'s ``key`` on the game, if used."""
        with self.plain() as tx:
            return self._idempotent(tx, game_id, actor, key)

    # ---- dice seeds and the audit trail -------------------------------------------------

    def past_seeds(self, game_id: str) -> list[dict[str, Any]]:
        """The game's earlier (revealed) server seeds, oldest first."""
        return self.query("SELECT from_branch, seed, commitment FROM dice_seeds "
                          "WHERE game_id = ? ORDER BY from_branch", [game_id])

    def audit(self, game_id: str, actor: str, kind: str, detail: str = "") -> None:
        """Record that ``actor`` read a secret of the game (append-only)."""
        with self.write() as tx:
            tx.insert("audit", {"game_id": game_id, "actor": actor, "kind": kind,
                                "detail": detail, "created": _now()})

    def audit_trail(self, game_id: str) -> list[dict[str, Any]]:
        return self.query("SELECT actor, kind, detail, created FROM audit WHERE "
                          "game_id = ? ORDER BY id", [game_id])

    def actions(self, game_id: str, *, active_only: bool = False, after: int = 0,
                upto: int | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM actions WHERE game_id = ? AND seq > ?"
        params: list[Any] = [game_id, after]
        if upto is not None:
            sql += " AND seq <= ?"
            params.append(upto)
        if active_only:
            sql += " AND reverted_by IS NULL"
        return self.query(sql + " ORDER BY seq", params)

    def last_actions(self, game_id: str, n: int, *, active_only: bool = True
                     ) -> list[dict[str, Any]]:
        """The last ``n`` actions, oldest first."""
        sql = "SELECT * FROM actions WHERE game_id = ?"
        if active_only:
            sql += " AND reverted_by IS NULL"
        return self.query(sql + " ORDER BY seq DESC LIMIT ?", [game_id, n])[::-1]

    def action(self, game_id: str, seq: int) -> dict[str, Any] | None:
        return self._one("SELECT * FROM actions WHERE game_id = ? AND seq = ?", [game_id, seq])

    def rolled_before(self, game_id: str, side: str, text: str) -> list[dict[str, Any]]:
        """The reverted actions of ``side`` that rolled dice with the order ``text`` (or as
        a GM's override for ``side``: an answer to its decision, told from the payload by
        the caller), newest first: ``seq``, ``kind``, ``text``, ``branch``, ``rolls``,
        ``payload`` and ``before_hash``, the hash of the state they were applied to (the
        action before's, or the set-up's) — what the same order from the same state rolls
        again."""
        return self.query(
            "SELECT a.seq, a.kind, a.text, a.branch, a.rolls, a.payload, COALESCE(p.state_hash, "
            "(SELECT s.state_hash FROM snapshots s WHERE s.game_id = a.game_id AND s.seq = "
            "0)) AS before_hash FROM actions a LEFT JOIN actions p ON p.game_id = a.game_id "
            "AND p.seq = a.seq - 1 WHERE a.game_id = ? AND a.reverted_by IS NOT NULL AND "
            "a.side = ? AND (a.text = ? OR a.kind = 'gm-override') AND a.rolls <> '[]' "
            "ORDER BY a.seq DESC", [game_id, side, text])

    def count_actions(self, game_id: str) -> int:
        row = self._one("SELECT count(*) AS n FROM actions WHERE game_id = ?", [game_id])
        return int(row["n"]) if row else 0

    def snapshots(self, game_id: str) -> list[dict[str, Any]]:
        """Every snapshot of the game (seq, state, state_hash), oldest first, as stored
        (``bot.store.codec.unpack_state`` reads a state)."""
        return self.query("SELECT seq, state, state_hash FROM snapshots WHERE game_id = ? "
                          "ORDER BY seq", [game_id])

    def latest_snapshot(self, game_id: str, upto: int | None = None) -> Snapshot | None:
        """The newest snapshot taken at an action that is still active (or at the start)."""
        sql = ("SELECT s.seq, s.state, s.state_hash FROM snapshots s "
               "LEFT JOIN actions a ON a.game_id = s.game_id AND a.seq = s.seq "
               "WHERE s.game_id = ? AND (s.seq = 0 OR a.reverted_by IS NULL)")
        params: list[Any] = [game_id]
        if upto is not None:
            sql += " AND s.seq <= ?"
            params.append(upto)
        row = self._one(sql + " ORDER BY s.seq DESC LIMIT 1", params)
        if row is None:
            return None
        return Snapshot(seq=int(row["seq"]), state=unpack_state(bytes(row["state"])),
                        state_hash=str(row["state_hash"]))

    # ---- service bookkeeping ------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self._one("SELECT value FROM meta WHERE key = ?", [key])
        return None if row is None or row["value"] is None else str(row["value"])

    def set_meta(self, key: str, value: str) -> None:
        with self.write() as tx:
            tx.upsert("meta", {"key": key, "value": value})

    def mark(self, key: str, value: str) -> bool:
        """Set ``meta[key]`` to ``value`` unless it holds it already; whether this call
        changed it. Several processes marking the same value: exactly one gets True (what
        makes a prompt, a ping or a notice go out once)."""
        with self.write() as tx:
            return tx.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE "
                "SET value = excluded.value WHERE meta.value IS NULL "
                "OR meta.value <> excluded.value", [key, value]) > 0

    def advance_meta(self, key: str, value: int) -> bool:
        """Raise the integer in ``meta[key]`` to ``value`` if it is lower (or unset);
        whether this call raised it (a cursor several processes move forward)."""
        with self.write() as tx:
            return tx.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE "
                "SET value = excluded.value WHERE meta.value IS NULL "
                "OR CAST(meta.value AS INTEGER) < CAST(excluded.value AS INTEGER)",
                [key, str(int(value))]) > 0

    # ---- leases: one process does a job -------------------------------------------------

    def lease(self, name: str, holder: str, seconds: float) -> bool:
        """Take or renew the lease ``name`` for ``seconds`` (by the database's clock);
        whether ``holder`` holds it now. Free, expired or already ``holder``'s: taken. Held
        by a process of this machine that is gone (killed): taken at once, without waiting
        for it to lapse (holders are named by :func:`holder_name`)."""
        now = self._now_sql()
        with self.write() as tx:
            if tx.execute(
                    f"INSERT INTO leases (name, holder, expires) VALUES (?, ?, {now} + ?) "
                    "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, "
                    f"expires = excluded.expires WHERE leases.holder = excluded.holder "
                    f"OR leases.expires < {now}", [name, holder, float(seconds)]) > 0:
                return True
            row = tx.one("SELECT holder FROM leases WHERE name = ?", [name])
            if row is None or not gone(str(row["holder"])):
                return False
            return tx.execute(f"UPDATE leases SET holder = ?, expires = {now} + ? WHERE "
                              "name = ? AND holder = ?",
                              [holder, float(seconds), name, row["holder"]]) > 0

    def release(self, name: str, holder: str) -> None:
        """Give the lease up (if ``holder`` holds it), so another may take it at once."""
        with self.write() as tx:
            tx.execute("DELETE FROM leases WHERE name = ? AND holder = ?", [name, holder])

    def release_held(self, holder: str) -> list[str]:
        """Give up every lease ``holder`` holds (a process stopping cleanly: the next one
        takes its jobs at once instead of waiting for them to lapse); their names."""
        with self.write() as tx:
            names = [str(r["name"]) for r in tx.query(
                "SELECT name FROM leases WHERE holder = ? ORDER BY name", [holder])]
            tx.execute("DELETE FROM leases WHERE holder = ?", [holder])
        return names

    def lease_holder(self, name: str) -> str | None:
        """Who holds the lease now (None: nobody, or it expired)."""
        row = self._one(f"SELECT holder FROM leases WHERE name = ? AND expires >= "
                        f"{self._now_sql()}", [name])
        return None if row is None else str(row["holder"])

    # ---- rollbacks previewed, waiting for their GM's confirmation -------------------------

    def hold_rollback(self, token: str, game_id: str, gm: str, to_seq: int, reason: str,
                      head_seq: int, expires: float) -> None:
        """Keep a previewed rollback until ``expires`` (any process may confirm it)."""
        with self.write() as tx:
            tx.execute("DELETE FROM held_rollbacks WHERE expires < ?", [expires - 2 * 86400.0])
            tx.insert("held_rollbacks", {"token": token, "game_id": game_id, "gm": gm,
                                         "to_seq": to_seq, "reason": reason,
                                         "head_seq": head_seq, "expires": expires},
                      replace=True)

    def take_rollback(self, token: str, now: float, *, game_id: str | None = None,
                      gm: str | None = None) -> dict[str, Any] | None:
        """The held rollback (removed: it is confirmed once), None if unknown or expired
        at ``now``; with ``game_id``/``gm``: only one held for that game and GM (another's
        stays held). Every frontend's held rollbacks are here (Discord's button tokens,
        the email gateway's codes)."""
        where, params = "token = ? AND expires >= ?", [token, now]
        for column, value in (("game_id", game_id), ("gm", gm)):
            if value is not None:
                where += f" AND {column} = ?"
                params.append(value)
        with self.write() as tx:
            row = tx.one(f"SELECT * FROM held_rollbacks WHERE {where}", params)
            if row is not None or (game_id is None and gm is None):
                tx.execute("DELETE FROM held_rollbacks WHERE token = ?", [token])
        return row

    def held_rollbacks(self, now: float) -> int:
        row = self._one("SELECT count(*) AS n FROM held_rollbacks WHERE expires >= ?", [now])
        return int(row["n"]) if row else 0

    # ---- the web page's secret links (only their tokens' hashes) ------------------------

    def add_link(self, row: Mapping[str, Any], *, revoke: Sequence[str] = (),
                 by: str = "", when: float = 0.0) -> None:
        """Store a new link (``web_links`` row) and revoke the links ``revoke`` names (by
        their hashes) in the same transaction: a re-issued link and its predecessor's end
        are one change."""
        with self.write() as tx:
            for token_hash in revoke:
                tx.execute("UPDATE web_links SET revoked = ?, revoked_by = ? WHERE "
                           "token_hash = ? AND revoked IS NULL", [when, by, token_hash])
            tx.insert("web_links", row)

    def links(self, game_id: str, *, kind: str | None = None,
              seat_id: int | None = None) -> list[dict[str, Any]]:
        """The game's links still in force (of ``kind``, of ``seat_id``), oldest first."""
        sql = "SELECT * FROM web_links WHERE game_id = ? AND revoked IS NULL"
        params: list[Any] = [game_id]
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        if seat_id is not None:
            sql += " AND seat_id = ?"
            params.append(seat_id)
        return self.query(sql + " ORDER BY created, token_hash", params)

    def revoke_links(self, hashes: Sequence[str], by: str, when: float) -> int:
        """Revoke the links ``hashes`` names; how many were still in force."""
        with self.write() as tx:
            return sum(tx.execute("UPDATE web_links SET revoked = ?, revoked_by = ? WHERE "
                                  "token_hash = ? AND revoked IS NULL", [when, by, h])
                       for h in hashes)

    def link(self, token_hash: str) -> dict[str, Any] | None:
        """The link with this hash if it is in force, with its seat's columns (``side``,
        ``role``, ``discord_id``, ``email``; NULL for an observer's link): None when unknown,
        revoked, or its seat closed."""
        return self._one(
            "SELECT l.token_hash, l.game_id, l.kind, l.seat_id, s.side, s.role, "
            "s.discord_id, s.email FROM web_links l LEFT JOIN seats s ON s.id = l.seat_id "
            "WHERE l.token_hash = ? AND l.revoked IS NULL AND (l.seat_id IS NULL OR "
            "(s.removed IS NULL AND s.game_id = l.game_id))", [token_hash])

    def link_watch(self, game_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """Per game of ``game_ids`` (at most 500): (head sequence, links revoked and seats
        closed so far), in one cheap statement — what the web server's event streams poll
        for every watched game at once (a game not stored is left out)."""
        ids = list(game_ids)[:500]
        if not ids:
            return {}
        rows = self.query(
            "SELECT g.id, g.head_seq, (SELECT count(*) FROM web_links l WHERE l.game_id = "
            "g.id AND l.revoked IS NOT NULL) + (SELECT count(*) FROM seats s WHERE "
            "s.game_id = g.id AND s.removed IS NOT NULL) AS ended FROM games g WHERE g.id "
            f"IN ({', '.join('?' for _ in ids)})", ids)
        return {str(r["id"]): (int(r["head_seq"]), int(r["ended"])) for r in rows}

def _now() -> float:
    return time.time()


def holder_name() -> str:
    """A name for this process among those sharing a database: ``HOST:PID:RANDOM``."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def gone(holder: str) -> bool:
    """Whether ``holder`` (see :func:`holder_name`) was a process of this machine that no
    longer runs (a process elsewhere is never known to be gone: its lease lapses)."""
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


#: Environment variable naming the database (a path or a URL).
DB_ENV = "UMPIRE_DB"


def default_db_path(explicit: str | Path | None = None) -> Path:
    """``--db PATH`` if given, else ``$UMPIRE_DB``, else ``umpire.db`` in the user data dir
    (for a SQLite file; :func:`default_db` for any backend)."""
    kind, where = resolve(default_db(explicit))
    if kind != "sqlite":
        raise StoreError(f"{redact(str(where))} is not a SQLite file")
    return Path(where)


def data_folder() -> Path:
    """The user's data folder for Umpire (the default database file lives there)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("umpire", appauthor=False))


def default_db(explicit: str | Path | None = None) -> str:
    """The database to open: ``--db`` if given, else ``$UMPIRE_DB``, else ``umpire.db`` in
    the user data folder (a path or a URL, as given)."""
    if explicit:
        return str(explicit)
    env = os.environ.get(DB_ENV)
    if env:
        return env
    return str(data_folder() / "umpire.db")


def resolve(target: str | Path | None) -> tuple[str, str | Path]:
    """(backend, where) of a database target, parsed by :func:`bot.store.urls.parse_target`
    (a SQLite file's path, or a PostgreSQL URL); None: :func:`default_db`. A target it does
    not understand is a :class:`StoreError` saying what is accepted."""
    parsed = parse_store_target(default_db() if target is None else target)
    return parsed.backend, parsed.where


def parse_store_target(target: str | Path) -> StoreTarget:
    """:func:`bot.store.urls.parse_target`, its refusal a :class:`StoreError`."""
    try:
        return parse_target(target)
    except BadTarget as error:
        raise StoreError(str(error)) from None


def iter_chunks(rows: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(rows), size):
        yield rows[start:start + size]
