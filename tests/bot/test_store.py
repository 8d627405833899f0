"""The store on both backends: one schema history, append-only rules enforced by the
database itself, one transaction per action, the sequence check, leases, once-only marks,
rollbacks held for confirmation, and how a database is named (``--db``)."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlite_utils import Database

from bot.store import (
    DuplicateKey,
    NewAction,
    Refused,
    SequenceConflict,
    Snapshot,
    Store,
    StoreError,
    holder_name,
    migrations,
    resolve,
    scoped_key,
)
from bot.store.base import gone
from tests.dbs import PgDatabases


def game_row(game_id: str = "g1") -> dict[str, Any]:
    return {"id": game_id, "game": "duel", "status": "active", "created": 1.0,
            "dice_id": "d", "commitment": "c", "server_seed": b"\x00\x01seed"}


def action(seq: int, kind: str = "order", text: str = "pass") -> NewAction:
    return NewAction(seq=seq, branch=0, actor="discord:1", kind=kind, state_hash=f"h{seq}",
                     next_roll=0, created=float(seq), side="red", text=text)


@pytest.fixture
def store(db_url: str) -> Store:
    store = Store(db_url, synchronous="NORMAL")
    store.insert_game(game_row(), [{"side": "red", "role": "player", "discord_id": "1",
                                    "created": 1.0}])
    return store


# ---- naming a database ------------------------------------------------------------------

def test_a_database_is_a_path_a_sqlite_url_or_a_postgresql_url(tmp_path: Path) -> None:
    assert resolve("sqlite:///tmp/u.db") == ("sqlite", Path("/tmp/u.db"))
    assert resolve("sqlite://games/u.db") == ("sqlite", Path("games/u.db"))
    assert resolve(str(tmp_path / "u.db")) == ("sqlite", tmp_path / "u.db")
    assert resolve(tmp_path) == ("sqlite", tmp_path)
    assert resolve("postgresql://u:p@db.example/umpire") == (
        "postgresql", "postgresql://u:p@db.example/umpire")
    assert resolve("postgres://db.example/umpire")[0] == "postgresql"
    with pytest.raises(StoreError, match="unknown database kind mysql"):
        resolve("mysql://x/y")
    assert type(Store(tmp_path / "a.db")).__name__ == "SqliteStore"


@pytest.mark.parametrize("form", ["sqlite://{abs}", "sqlite:///{abs}", "{abs}"])
def test_a_sqlite_url_opens_the_file_it_names_not_a_sqlite_folder(
        form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``sqlite:///ABS/PATH`` (and ``sqlite:////ABS/PATH``) open /ABS/PATH, never
    ./sqlite:/ABS/PATH (issue 27.4)."""
    monkeypatch.chdir(tmp_path)
    wanted = tmp_path / "games" / "u.db"
    target = form.format(abs=str(wanted))
    store = Store(target)
    try:
        assert store.label == str(wanted)
    finally:
        store.close()
    assert wanted.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games"]


def test_a_relative_sqlite_url_is_relative_to_the_working_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Store("sqlite://rel/u.db").close()
    assert (tmp_path / "rel" / "u.db").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rel"]


@pytest.mark.parametrize(("target", "said"), [
    ("sqlite:/abs/u.db", "a SQLite URL is sqlite:///ABSOLUTE/PATH"),
    ("sqlite:u.db", "a SQLite URL is sqlite:///ABSOLUTE/PATH"),
    ("sqlite://", "names no file"),
    ("sqlite:///u.db?mode=ro", "takes no options"),
    ("postgresql:db", "a PostgreSQL URL is postgresql://USER@HOST/DB"),
    ("postgresql://u:pw@h:99999/db", "not a PostgreSQL URL"),
    ("mysql://u:pw@h/db", "unknown database kind mysql"),
    ("file:///u.db", "unknown database kind file"),
    ("   ", "no database given"),
])
def test_a_target_no_backend_takes_is_refused_and_nothing_is_made(
        target: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreError, match=said) as caught:
        Store(target)
    assert "pw" not in str(caught.value)
    assert "file path, sqlite:///" in str(caught.value) or "URL" in str(caught.value) \
        or "no file" in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_a_file_whose_name_has_a_colon_is_written_with_dot_slash(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Store("./notes:1.db").close()
    assert (tmp_path / "notes:1.db").is_file()


def test_redact_hides_every_form_of_password() -> None:
    from bot.store import redact

    assert redact("postgresql://u:s3cret@h/db") == "postgresql://u:***@h/db"
    assert redact("postgres://u:p@ss/w@h:5432/db") == "postgres://u:***@h:5432/db"
    assert redact("postgresql://h/db?password=s3cret&pool=2") == \
        "postgresql://h/db?password=***&pool=2"
    assert redact("cannot reach postgresql://u:s3cret@h/db now") == \
        "cannot reach postgresql://u:***@h/db now"
    assert redact("postgresql://u@h/db") == "postgresql://u@h/db"


def test_the_url_password_never_shows(pg_url: str) -> None:
    store = Store(pg_url)
    try:
        assert store.backend == "postgresql"
        assert "***" in store.label and ":umpire@" not in store.label
        password = pg_url.split(":")[2].split("@")[0]
        assert password not in store.label
    finally:
        store.close()


# ---- one schema history -----------------------------------------------------------------

PG_TYPES = {"text": "TEXT", "bigint": "INTEGER", "double precision": "REAL", "bytea": "BLOB"}


def sqlite_schema(store: Store) -> dict[str, dict[str, tuple[str, bool]]]:
    out: dict[str, dict[str, tuple[str, bool]]] = {}
    for table in store.tables():
        info = store.query(f"PRAGMA table_info({table})")
        out[table] = {str(c["name"]): (str(c["type"]), bool(c["notnull"]) or bool(c["pk"]))
                      for c in info}
    return out


def pg_schema(store: Store) -> dict[str, dict[str, tuple[str, bool]]]:
    out: dict[str, dict[str, tuple[str, bool]]] = {}
    rows = store.query("SELECT table_name, column_name, data_type, is_nullable FROM "
                       "information_schema.columns WHERE table_schema = current_schema()")
    for row in rows:
        if row["table_name"] in store.tables() and not (
                row["table_name"] == "games" and row["column_name"] == "rowid"):
            out.setdefault(row["table_name"], {})[row["column_name"]] = (
                PG_TYPES[row["data_type"]], row["is_nullable"] == "NO")
    return out


def test_both_backends_migrate_to_the_same_schema(tmp_path: Path, pg_url: str) -> None:
    lite = Store(tmp_path / "schema.db")
    pg = Store(pg_url)
    try:
        assert lite.schema_version() == pg.schema_version() == len(migrations.MIGRATIONS)
        assert [m.version for m in migrations.MIGRATIONS] == list(
            range(1, len(migrations.MIGRATIONS) + 1))
        assert sqlite_schema(lite) == pg_schema(pg)
        assert lite.integrity_check() == pg.integrity_check() == "ok"
    finally:
        lite.close()
        pg.close()


def test_idempotency_keys_of_schema_4_are_rescoped(tmp_path: Path) -> None:
    """A database written before schema 5 kept ``ACTOR NUL KEY``; it reads the same after."""
    path = tmp_path / "v4.db"
    db = Database(path)
    db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
               "applied REAL NOT NULL)")
    for migration in migrations.MIGRATIONS[:4]:
        migration.sqlite(db)
        db.table("schema_migrations").insert({"version": migration.version, "applied": 0})
    db.table("games").insert(game_row())
    db.table("idempotency").insert({"game_id": "g1", "key": "email:a@b\x00<m1@x>",
                                    "actor": "email:a@b", "result": "{}", "request": "r",
                                    "created": 0.0})
    db.close()
    store = Store(path)
    try:
        assert store.idempotent_result("g1", "email:a@b", "<m1@x>") == ("{}", "r")
        assert store.idempotent_result("g1", "email:a@bx", "<m1@x>") is None
        assert [r["key"] for r in store.query("SELECT key FROM idempotency")] == [
            scoped_key("email:a@b", "<m1@x>")]
    finally:
        store.close()


def test_two_processes_migrating_at_once_both_open_it(pg_databases: PgDatabases) -> None:
    url = pg_databases.new_url(migrated=False)
    opened: list[Store] = []
    errors: list[BaseException] = []

    def open_it() -> None:
        try:
            opened.append(Store(url))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == []
        assert [s.schema_version() for s in opened] == [len(migrations.MIGRATIONS)] * 4
        versions = opened[0].query("SELECT version FROM schema_migrations ORDER BY version")
        assert [r["version"] for r in versions] == [m.version for m in migrations.MIGRATIONS]
    finally:
        for store in opened:
            store.close()


# ---- append-only, enforced by the database ----------------------------------------------

def test_the_log_refuses_delete_and_every_update_but_reverting(store: Store) -> None:
    store.append("g1", 0, [action(1), action(2)], {"to_act": "blue"})
    with pytest.raises(Refused, match="append-only"):
        store.execute("DELETE FROM actions WHERE game_id = ?", ["g1"])
    with pytest.raises(Refused, match="only reverted_by"):
        store.execute("UPDATE actions SET text = 'move' WHERE seq = 1")
    with pytest.raises(Refused, match="only reverted_by"):
        store.execute("UPDATE actions SET state_hash = 'forged', reverted_by = 3 "
                      "WHERE seq = 1")
    assert store.execute("UPDATE actions SET reverted_by = 3 WHERE seq = 1") == 1
    with pytest.raises(Refused, match="only reverted_by"):
        store.execute("UPDATE actions SET reverted_by = 4 WHERE seq = 1")
    with pytest.raises(Refused, match="unknown action kind"):
        store.append("g1", 2, [action(3, kind="forged")], {})
    with pytest.raises(Refused, match="never deleted"):
        store.execute("DELETE FROM seats")
    store.audit("g1", "discord:100", "seed-read", "test")
    with pytest.raises(Refused, match="audit trail is append-only"):
        store.execute("UPDATE audit SET actor = 'nobody'")
    with pytest.raises(Refused, match="audit trail is append-only"):
        store.execute("DELETE FROM audit")
    assert [(r["seq"], r["text"], r["reverted_by"]) for r in store.actions("g1")] == [
        (1, "pass", 3), (2, "pass", None)]
    assert len(store.seats("g1")) == 1 and len(store.audit_trail("g1")) == 1


def test_truncate_is_refused_too(pg_url: str) -> None:
    store = Store(pg_url)
    try:
        store.insert_game(game_row())
        store.append("g1", 0, [action(1)], {})
        store.audit("g1", "gm", "seed-read")
        for table in ("actions", "audit", "seats", "dice_seeds"):
            with pytest.raises(Refused):
                store.execute(f"TRUNCATE {table} CASCADE")
        assert store.count_actions("g1") == 1
    finally:
        store.close()


# ---- one transaction per action; the sequence check -------------------------------------

def test_a_failed_append_writes_nothing(store: Store) -> None:
    store.append("g1", 0, [action(1)], {"to_act": "blue"}, [Snapshot(1, b"{}", "h1")],
                 idempotency=("k1", "discord:1", '{"ok": 1}', "req"))
    before = {t: store.query(f"SELECT count(*) AS n FROM {t}")[0]["n"]
              for t in ("actions", "snapshots", "idempotency")}
    # a second action row that the database refuses: the first row, the snapshot, the
    # key and the game row change are rolled back with it
    with pytest.raises(Refused):
        store.append("g1", 1, [action(2), action(3, kind="forged")], {"to_act": "red"},
                     [Snapshot(3, b"{}", "h3")], idempotency=("k2", "discord:1", "{}", "r"))
    after = {t: store.query(f"SELECT count(*) AS n FROM {t}")[0]["n"]
             for t in ("actions", "snapshots", "idempotency")}
    assert after == before
    row = store.game("g1")
    assert row is not None and row["head_seq"] == 1 and row["to_act"] == "blue"


def test_the_sequence_check_and_the_idempotency_key(store: Store) -> None:
    store.append("g1", 0, [action(1)], {}, idempotency=("k", "discord:1", "first", "req"))
    with pytest.raises(SequenceConflict, match="at action 1, not 0"):
        store.append("g1", 0, [action(1, text="other")], {})
    with pytest.raises(DuplicateKey) as duplicate:
        store.append("g1", 1, [action(2)], {}, idempotency=("k", "discord:1", "x", "req"))
    assert (duplicate.value.result, duplicate.value.request) == ("first", "req")
    # another actor's key of the same text is another key
    store.append("g1", 1, [action(2)], {}, idempotency=("k", "discord:2", "second", "r2"))
    assert store.idempotent_result("g1", "discord:2", "k") == ("second", "r2")
    assert [r["seq"] for r in store.actions("g1")] == [1, 2]
    with pytest.raises(StoreError, match="no game"):
        store.append("nope", 0, [action(1)], {})


def test_concurrent_writers_on_one_position_one_wins(db_url: str) -> None:
    """Eight stores (as eight processes) append at the same head: exactly one succeeds,
    the others see the sequence conflict (never a duplicate row or a database error)."""
    setup = Store(db_url)
    setup.insert_game(game_row())
    stores = [Store(db_url) for _ in range(8)]
    outcomes: list[str] = []
    guard = threading.Lock()
    barrier = threading.Barrier(len(stores))

    def write(store: Store, number: int) -> None:
        barrier.wait()
        try:
            store.append("g1", 0, [action(1, text=f"w{number}")], {})
            outcome = "applied"
        except SequenceConflict:
            outcome = "conflict"
        with guard:
            outcomes.append(outcome)

    threads = [threading.Thread(target=write, args=(s, n)) for n, s in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["applied"] + ["conflict"] * 7
    assert len(setup.actions("g1")) == 1
    for store in (setup, *stores):
        store.close()


def test_text_with_a_nul_character_is_refused_on_both(store: Store) -> None:
    with pytest.raises(Refused, match="NUL"):
        store.append("g1", 0, [action(1, text="pass\x00")], {})
    assert store.count_actions("g1") == 0


# ---- what several processes agree on ----------------------------------------------------

def test_a_lease_has_one_holder_until_it_lapses_or_is_released(store: Store) -> None:
    assert store.lease("deadlines", "a", 60)
    assert store.lease("deadlines", "a", 60)  # renewed
    assert not store.lease("deadlines", "b", 60)
    assert store.lease_holder("deadlines") == "a"
    assert store.lease("other-job", "b", 60)
    store.release("deadlines", "b")  # not b's to give up
    assert store.lease_holder("deadlines") == "a"
    store.release("deadlines", "a")
    assert store.lease_holder("deadlines") is None
    assert store.lease("deadlines", "b", -1)  # taken, already lapsed
    assert store.lease_holder("deadlines") is None
    assert store.lease("deadlines", "c", 60)


def test_a_lease_of_a_killed_process_here_is_taken_at_once(store: Store) -> None:
    """A process of this machine killed while holding a lease (SIGKILL: no release) leaves
    it to the next process at once, not after it lapses; a live holder keeps it."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    dead = f"{socket.gethostname()}:{child.pid}:deadbeef"
    assert store.lease("mail:<m1@x>", dead, 600)
    assert gone(dead) and not gone(holder_name()) and not gone("elsewhere:1:ab")
    assert store.lease("mail:<m1@x>", holder_name(), 600)
    assert store.lease("deadlines", "elsewhere:1:ab", 600)  # another machine: it lapses
    assert not store.lease("deadlines", holder_name(), 600)


def test_a_clean_stop_releases_every_lease_of_its_holder_at_once(store: Store) -> None:
    """A lease held by a process on another machine is released by that process's clean
    stop (issue 24), so the next process need not wait for it to lapse."""
    stopping, other = "elsewhere:1:ab", "elsewhere:2:cd"
    assert store.lease("deadlines", stopping, 600) and store.lease("mail:leader", stopping, 600)
    assert store.lease("discord:follow", other, 600)
    assert not store.lease("deadlines", holder_name(), 600)
    assert store.release_held(stopping) == ["deadlines", "mail:leader"]
    assert store.release_held(stopping) == []
    assert store.lease("deadlines", holder_name(), 600)
    assert store.lease_holder("discord:follow") == other


def test_every_postgresql_statement_has_a_time_limit(pg_url: str) -> None:
    """Connecting, waiting for a lock and running a statement are all bounded; a limit
    given in the URL wins (issue 24)."""
    store = Store(pg_url)
    try:
        assert store.query("SHOW statement_timeout") == [{"statement_timeout": "2min"}]
        assert store.query("SHOW lock_timeout")[0]["lock_timeout"] != "0"
    finally:
        store.close()
    joiner = "&" if "?" in pg_url else "?"
    store = Store(f"{pg_url}{joiner}options=-c%20statement_timeout%3D5s")
    try:
        assert store.query("SHOW statement_timeout") == [{"statement_timeout": "5s"}]
    finally:
        store.close()


def test_marks_and_cursors_change_once(store: Store) -> None:
    assert store.mark("prompted:g1", "red:0")
    assert not store.mark("prompted:g1", "red:0")
    assert store.mark("prompted:g1", "blue:0")
    assert store.get_meta("prompted:g1") == "blue:0"
    assert store.advance_meta("published:g1", 3)
    assert not store.advance_meta("published:g1", 2)
    assert not store.advance_meta("published:g1", 3)
    assert store.advance_meta("published:g1", 10)
    assert store.get_meta("published:g1") == "10"


def test_a_held_rollback_is_taken_once(store: Store) -> None:
    store.hold_rollback("t1", "g1", "discord:100", 2, "oops", 5, expires=1060.0)
    store.hold_rollback("t2", "g1", "discord:100", 1, "late", 5, expires=999.0)
    assert store.held_rollbacks(now=1000.0) == 1
    held = store.take_rollback("t1", now=1000.0)
    assert held is not None and (held["to_seq"], held["reason"], held["head_seq"]) == (
        2, "oops", 5)
    assert store.take_rollback("t1", now=1000.0) is None
    assert store.take_rollback("t2", now=1000.0) is None  # expired


def test_bindings_find_games_newest_first(store: Store) -> None:
    store.insert_game({**game_row("g2"), "created": 1.0, "bindings": '{"guild": "7"}'})
    store.insert_game({**game_row("g3"), "created": 1.0, "bindings": '{"guild": "7"}'})
    store.update_game("g1", {"bindings": '{"guild": 7, "thread": "99"}'})
    assert [g["id"] for g in store.games_bound("guild", "7")] == ["g3", "g2", "g1"]
    assert [g["id"] for g in store.games_bound("thread", "99")] == ["g1"]
    store.append("g1", 0, [action(1)], {})
    store.set_meta("published:g1", "0")
    assert [g["id"] for g in store.games_behind("thread", "published:")] == ["g1"]
    store.set_meta("published:g1", "1")
    assert store.games_behind("thread", "published:") == []
