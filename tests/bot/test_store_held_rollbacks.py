"""One table of rollbacks held for their GM's confirmation (issue 22): the email gateway's
codes and Discord's button tokens both live in ``held_rollbacks`` (schema 8 moved
``mail_rollbacks`` into it), and neither frontend can take the other's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlite_utils import Database

from bot.mail.ledger import MAIL_TOKEN, ROLLBACK_TTL, Ledger
from bot.store import Store, migrations
from tests.dbs import PgDatabases

BEFORE = 7  # the schema before the tables were made one
HELD_AT = 1000.0
MAIL_ROW = {"code": "AbCd1234", "game_id": "g1", "gm": "gm@example.org", "to_seq": 2,
            "reason": "misclick", "head_seq": 5, "created": HELD_AT}
DISCORD_ROW = {"token": "x9Yz", "game_id": "g1", "gm": "100", "to_seq": 1,
               "reason": "oops", "head_seq": 5, "expires": HELD_AT + 900.0}


def check_moved(store: Store) -> None:
    """After schema 8: the mail code is a ``mail:`` token that expires a day after it was
    held, Discord's row is untouched, and ``mail_rollbacks`` is gone."""
    assert store.schema_version() == len(migrations.MIGRATIONS) > BEFORE
    assert "mail_rollbacks" not in store.tables()
    assert not store.query("SELECT 1 FROM held_rollbacks WHERE token = 'abcd1234'")
    rows = {r["token"]: dict(r) for r in store.query("SELECT * FROM held_rollbacks")}
    assert rows == {
        MAIL_TOKEN + "abcd1234": {"token": MAIL_TOKEN + "abcd1234", "game_id": "g1",
                                  "gm": "gm@example.org", "to_seq": 2, "reason": "misclick",
                                  "head_seq": 5, "expires": HELD_AT + 24 * 3600.0},
        "x9Yz": DISCORD_ROW,
    }
    ledger = Ledger(store, clock=lambda: HELD_AT + 60.0)
    held = ledger.take_rollback("ABCD1234", "g1", "gm@example.org")
    assert held is not None and (held.to_seq, held.reason, held.head_seq) == (2, "misclick", 5)
    assert ledger.take_rollback("abcd1234", "g1", "gm@example.org") is None  # taken once


def test_schema_8_moves_the_mail_codes_into_held_rollbacks_on_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "v7.db"
    db = Database(path)
    db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
               "applied REAL NOT NULL)")
    for migration in migrations.MIGRATIONS[:BEFORE]:
        migration.sqlite(db)
        db.table("schema_migrations").insert({"version": migration.version, "applied": 0})
    db.table("mail_rollbacks").insert(MAIL_ROW)
    db.table("held_rollbacks").insert(DISCORD_ROW)
    db.close()
    store = Store(path)
    try:
        check_moved(store)
    finally:
        store.close()


def test_schema_8_moves_the_mail_codes_into_held_rollbacks_on_postgresql(
        pg_databases: PgDatabases) -> None:
    import psycopg

    url = pg_databases.new_url(migrated=False)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE schema_migrations (version bigint PRIMARY KEY, "
                     "applied double precision NOT NULL)")
        for migration in migrations.MIGRATIONS[:BEFORE]:
            conn.execute(migration.postgres.encode())
            conn.execute("INSERT INTO schema_migrations VALUES (%s, 0)", [migration.version])
        for table, row in (("mail_rollbacks", MAIL_ROW), ("held_rollbacks", DISCORD_ROW)):
            conn.execute(f"INSERT INTO {table} ({', '.join(row)}) VALUES "
                         f"({', '.join(['%s'] * len(row))})", list(row.values()))
    store = Store(url)
    try:
        check_moved(store)
    finally:
        store.close()


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    store = Store(db_url)
    yield store
    store.close()


def test_a_mailed_code_is_taken_once_by_its_game_and_gm_only(store: Store) -> None:
    now = [HELD_AT]
    ledger = Ledger(store, clock=lambda: now[0])
    code = ledger.hold_rollback("g1", "gm@example.org", 2, "misclick", 5)
    assert store.held_rollbacks(now=HELD_AT) == 1
    assert ledger.take_rollback(code, "g1", "other@example.org") is None
    assert ledger.take_rollback(code, "g2", "gm@example.org") is None
    assert store.take_rollback(code, now=HELD_AT) is None  # a Discord token has no "mail:"
    assert store.held_rollbacks(now=HELD_AT) == 1  # still held for its GM
    held = ledger.take_rollback(code.upper(), "g1", "gm@example.org")
    assert held is not None and held.code == code and held.to_seq == 2
    assert ledger.take_rollback(code, "g1", "gm@example.org") is None
    late = ledger.hold_rollback("g1", "gm@example.org", 3, "late", 6)
    now[0] = HELD_AT + ROLLBACK_TTL + 1
    assert ledger.take_rollback(late, "g1", "gm@example.org") is None  # expired
