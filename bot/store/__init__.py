"""Umpire's storage: one interface, two backends.

``Store(target)`` opens a database: a SQLite file (a plain path or ``sqlite:///PATH``, the
embedded default, :mod:`bot.store.sqlite`) or a PostgreSQL database
(``postgresql://…``, for several processes and machines, :mod:`bot.store.postgres`). Both
implement :class:`bot.store.base.Store` with the same schema history
(:mod:`bot.store.migrations`) and the same guarantees. Only these modules import
sqlite-utils or psycopg.
"""

from bot.store.base import (
    ACTION_KINDS,
    BUSY_TIMEOUT_S,
    DB_ENV,
    KINDS_V1,
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
    data_folder,
    default_db,
    default_db_path,
    dumps,
    holder_name,
    loads,
    redact,
    resolve,
    scoped_key,
)

__all__ = [
    "ACTION_KINDS", "BUSY_TIMEOUT_S", "DB_ENV", "KINDS_V1", "Busy", "Damaged", "DuplicateKey",
    "NewAction", "Refused", "SequenceConflict", "Snapshot", "Store", "StoreError", "Tx",
    "data_folder", "default_db", "default_db_path", "dumps", "holder_name", "loads", "redact",
    "resolve", "scoped_key",
]
