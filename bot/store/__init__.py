"""Umpire's storage: one interface, two backends.

``Store(target)`` opens a database: a SQLite file (a plain path or ``sqlite:///PATH``, the
embedded default, :mod:`bot.store.sqlite`) or a PostgreSQL database
(``postgresql://…``, for several processes and machines, :mod:`bot.store.postgres`); one
parser, :func:`bot.store.urls.parse_target`, reads every target. Both
implement :class:`bot.store.base.Store` with the same schema history
(:mod:`bot.store.migrations`) and the same guarantees. Only these modules import
sqlite-utils or psycopg.
"""

from bot.store.backends import backend_class
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
    parse_store_target,
    resolve,
    scoped_key,
)
from bot.store.urls import StoreTarget, redact

Store.backend_class = backend_class

__all__ = [
    "ACTION_KINDS",
    "BUSY_TIMEOUT_S",
    "DB_ENV",
    "KINDS_V1",
    "Busy",
    "Damaged",
    "DuplicateKey",
    "NewAction",
    "Refused",
    "SequenceConflict",
    "Snapshot",
    "Store",
    "StoreError",
    "StoreTarget",
    "Tx",
    "data_folder",
    "default_db",
    "default_db_path",
    "dumps",
    "holder_name",
    "loads",
    "parse_store_target",
    "redact",
    "resolve",
    "scoped_key",
]
