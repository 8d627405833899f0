"""Which class opens which kind of database: :class:`bot.store.base.Store` asks here (the
package sets :attr:`Store.backend_class <bot.store.base.Store.backend_class>`), so that the
interface imports no backend and no backend's import loops back to it.

Each backend is imported when first asked for: psycopg takes about a second to import, which
a console game on a SQLite file should not pay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.store.base import Store


def backend_class(kind: str) -> type[Store]:
    """The store class of a target's backend (``postgresql``; anything else is SQLite)."""
    if kind == "postgresql":
        from bot.store.postgres import PostgresStore

        return PostgresStore
    from bot.store.sqlite import SqliteStore

    return SqliteStore
