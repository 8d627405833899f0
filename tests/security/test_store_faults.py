"""Faults in the store: a busy file, two processes, damaged databases — clear lines, no loss."""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.redteam.faults import Healthy, damaged_copy, healthy_database, overwrite, probe
from bot.service import GameService
from bot.store import Busy, Damaged, Refused, Store, StoreError
from bot.store.sqlite import translate
from tests.bot.test_service_support import BLUE, RED, make_service, new_game, play
from tests.waiting import GENEROUS

runner = CliRunner()


def test_a_locked_database_is_retried_then_refused_as_busy(tmp_path: Path) -> None:
    path = tmp_path / "u.db"
    service = GameService(Store(path, busy_timeout=0.05), busy_budget=0.6)
    game_id = new_game(service)
    holder = sqlite3.connect(path, timeout=0, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")  # another process writing, for longer than the budget
    try:
        started = time.monotonic()
        result = service.submit(game_id, RED, "trap 1")
        waited = time.monotonic() - started
        assert result.status == "refused" and result.error_rule == "busy", result.error
        assert "try again" in str(result.error)
        assert 0.5 < waited < GENEROUS
    finally:
        holder.execute("ROLLBACK")
    # Released within the budget: the order waits and goes through (a budget generous
    # enough that a busy machine releases the lock well within it).
    patient = GameService(Store(path, busy_timeout=0.05), busy_budget=GENEROUS)
    holder.execute("BEGIN IMMEDIATE")
    threading.Timer(0.2, lambda: holder.execute("ROLLBACK")).start()
    assert patient.submit(game_id, RED, "trap 1").ok
    holder.close()


def test_a_load_reads_the_game_row_and_its_tail_in_one_transaction(tmp_path: Path) -> None:
    path = tmp_path / "u.db"
    first = make_service(path)
    game_id = new_game(first)
    play(first, game_id, (RED, "trap 1"))
    other = make_service(path)  # a second process on the same file
    reader = make_service(path)
    original = reader.store.latest_snapshot
    wrote: list[bool] = []

    def commit_meanwhile(*args: object, **kwargs: object) -> object:
        if not wrote:
            wrote.append(True)
            play(other, game_id, (RED, "move r2 3"))  # commits between two reads
        return original(*args, **kwargs)  # type: ignore[arg-type]

    reader.store.latest_snapshot = commit_meanwhile  # type: ignore[method-assign]
    state = reader.load_state(game_id)  # the moment before the other commit, consistently
    assert wrote and state.state_hash() == first.store.action(game_id, 1)["state_hash"]  # type: ignore[index]
    reader.store.latest_snapshot = original  # type: ignore[method-assign]
    assert reader.load_state(game_id).state_hash() == other.store.game(game_id)["state_hash"]  # type: ignore[index]


def corrupt_snapshots(path: Path, game_id: str, where: str, garbage: str = "7b7b") -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(f"UPDATE snapshots SET state = X'{garbage}' WHERE game_id = ? AND {where}",
                     [game_id])


@pytest.mark.parametrize("where", ["seq = (SELECT MAX(seq) FROM snapshots)", "1 = 1"])
# bad JSON; neither JSON nor a zlib stream; a zlib stream cut short
@pytest.mark.parametrize("garbage", ["7b7b", "00", "789c"])
def test_a_bad_snapshot_falls_back_to_an_earlier_one_or_the_log(tmp_path: Path, where: str,
                                                                 garbage: str) -> None:
    path = tmp_path / "u.db"
    service = make_service(path, snapshot_every=2)
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"), (BLUE, "pass"),
         (RED, "move r1 2"), (BLUE, "pass"))
    expected = service.store.game(game_id)["state_hash"]  # type: ignore[index]
    corrupt_snapshots(path, game_id, where, garbage)
    fresh = make_service(path)
    assert fresh.load_state(game_id).state_hash() == expected
    assert fresh.submit(game_id, RED, "pass").ok  # still playable
    assert fresh.rollback(game_id, *_gm(), 2, "test").ok
    result = runner.invoke(app, ["db", "check", "--db", str(path)])
    assert result.exit_code == 1 and "does not load" in result.output, result.output


def _gm() -> tuple[object]:
    from tests.bot.test_service_support import GM_ACTOR

    return (GM_ACTOR,)


def test_an_empty_file_is_never_silently_reinitialised(tmp_path: Path) -> None:
    path = tmp_path / "u.db"
    path.write_bytes(b"")
    with pytest.raises(Damaged, match="empty"):
        Store(path)
    assert path.stat().st_size == 0
    result = runner.invoke(app, ["export", "x", "--db", str(path)])
    assert result.exit_code == 1 and "empty (0 bytes)" in result.output
    assert "Traceback" not in result.output
    assert path.stat().st_size == 0


def test_damaged_files_give_one_line_errors(tmp_path: Path) -> None:
    garbage = tmp_path / "g.db"
    garbage.write_bytes(b"not a database at all " * 300)
    for args in (["export", "x"], ["render", "x"], ["export-gif", "x"], ["db", "check"],
                 ["play", "tanks", "--resume", "x"]):
        result = runner.invoke(app, [*args, "--db", str(garbage)])
        assert result.exit_code == 1, (args, result.output)
        assert "Traceback" not in result.output and "not a readable Umpire database" in (
            result.output), (args, result.output)


def test_db_check_passes_a_healthy_file_and_finds_a_damaged_game(tmp_path: Path) -> None:
    path = tmp_path / "u.db"
    service = make_service(path)
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"))
    healthy = runner.invoke(app, ["db", "check", "--db", str(path)])
    assert healthy.exit_code == 0 and "ok" in healthy.output, healthy.output
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE games SET options = '{broken' WHERE id = ?", [game_id])
    broken = runner.invoke(app, ["db", "check", "--db", str(path)])
    assert broken.exit_code == 1 and "column options is not JSON" in broken.output
    refused = make_service(path).submit(game_id, RED, "pass")
    assert refused.status == "refused"  # a clear refusal, never an exception


# ---- issue 27.13: every backend error translated at the store's edge ---------------------

@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Healthy:
    return healthy_database(tmp_path_factory.mktemp("healthy"), random.Random(7))


#: Seeds of the damage that raised a raw error out of the service before 27.13, on the
#: healthy file of ``random.Random(7)`` (``healthy_database`` is the same every run):
#: ``sqlite3.DatabaseError: database disk image is malformed`` (86) and
#: ``sqlite3.OperationalError: Could not decode to UTF-8 column`` (379).
KNOWN_BAD = (86, 379)


def _overwritten(healthy: Healthy, folder: Path, seeds: Sequence[int]) -> list[str]:
    """The red team's damaged-database fault (64 bytes overwritten at a random place) for
    each seed: what went wrong (an exception other than the store's, a many-line error)."""
    failures = []
    for seed in seeds:
        path = damaged_copy(healthy, folder / f"overwritten-{seed}.db",
                            overwrite(random.Random(seed)))
        problem = probe(healthy, path, recovers=False)
        if problem:
            failures.append(f"seed {seed}: {problem}")
        path.unlink()
    return failures


def test_bytes_overwritten_give_the_stores_error_on_every_seed(healthy: Healthy,
                                                               tmp_path: Path) -> None:
    """27.13: the red team's fault, deterministic, on 20 seeds: the two known to have raised
    a raw ``sqlite3`` error out of the service, and 18 more."""
    assert _overwritten(healthy, tmp_path, [*KNOWN_BAD, *range(18)]) == []


@pytest.mark.soak
def test_bytes_overwritten_give_the_stores_error_on_200_seeds(healthy: Healthy,
                                                              tmp_path: Path) -> None:
    """27.13, long: 200 seeds of the same fault."""
    assert _overwritten(healthy, tmp_path, range(18, 218)) == []


def _unreadable_row(path: Path, game_id: str) -> None:
    """A damaged row: the game's row holds a commitment that is not UTF-8 (what a page
    overwritten in the middle of a text leaves)."""
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE games SET commitment = CAST(X'ff00fe41' AS TEXT) WHERE id = ?",
                     [game_id])


def test_a_damaged_game_is_refused_as_damaged_and_the_others_keep_working(
        tmp_path: Path) -> None:
    """27.13: a game whose rows cannot be read is refused as damaged (never a raw
    ``sqlite3`` error), ``umpire db check`` names it, and another game in the same file
    plays on."""
    path = tmp_path / "u.db"
    service = make_service(path)
    damaged, sound = new_game(service), new_game(service)
    for game_id in (damaged, sound):
        play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"))
    service.store.close()
    _unreadable_row(path, damaged)
    fresh = make_service(path)
    refused = fresh.submit(damaged, BLUE, "pass")
    assert refused.status == "refused" and refused.error_rule == "store"
    assert f"game {damaged} cannot be read: its stored data is damaged" in str(refused.error)
    assert "\n" not in str(refused.error)
    with pytest.raises(Damaged, match="damaged"):
        fresh.load_state(damaged)
    assert fresh.submit(sound, BLUE, "pass").ok
    assert fresh.load_state(sound).state_hash() == fresh.store.game(sound)["state_hash"]  # type: ignore[index]
    fresh.store.close()
    checked = runner.invoke(app, ["db", "check", "--db", str(path)])
    assert checked.exit_code == 1 and f"game {damaged}: its stored data cannot be read" in (
        checked.output), checked.output
    assert f"game {sound}:" not in checked.output


def test_sqlite_errors_are_translated_at_the_edge() -> None:
    """27.13: the store's errors only — a constraint Refused, a lock Busy, a malformed file
    or undecodable text Damaged."""
    assert isinstance(translate(sqlite3.IntegrityError("UNIQUE constraint failed")), Refused)
    assert isinstance(translate(sqlite3.OperationalError("database is locked")), Busy)
    assert isinstance(translate(sqlite3.DatabaseError("database disk image is malformed")),
                      Damaged)
    assert isinstance(translate(sqlite3.OperationalError(
        "Could not decode to UTF-8 column 'seq'")), Damaged)
    assert isinstance(translate(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad")), Damaged)
    unopened = translate(sqlite3.OperationalError("unable to open database file"))
    assert type(unopened) is StoreError and "cannot be opened" in str(unopened)


def test_postgresql_errors_are_translated_at_the_edge() -> None:
    """27.13: PostgreSQL's corruption errors (class XX) are Damaged too."""
    from psycopg import errors as pg_errors

    from bot.store.postgres import _translate

    assert isinstance(_translate(pg_errors.DataCorrupted("invalid page in block 7")), Damaged)
    assert isinstance(_translate(pg_errors.IndexCorrupted("index is corrupt")), Damaged)
    assert isinstance(_translate(pg_errors.UniqueViolation("duplicate key")), Refused)
    assert isinstance(_translate(pg_errors.LockNotAvailable("lock timeout")), Busy)


def test_a_schema_entry_damaged_across_lines_is_refused_in_one_line_27_13(
        tmp_path: Path) -> None:
    """27.13: a damaged schema entry whose text spans lines (bytes overwritten inside a
    CREATE TABLE, as the red team's fault did to ``mail_rate``) is refused as damaged with
    a one-line message, not SQLite's many-line one."""
    path = tmp_path / "u.db"
    Store(path).close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA writable_schema = ON")
        db.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'leases'",
                   ('CREATE TABLE leases (a INTEGER, b "x INTEGER NOT NULL\n)',))
    db.close()
    with pytest.raises(Damaged) as raised:
        Store(path)
    assert "\n" not in str(raised.value) and "not a readable Umpire database" in str(
        raised.value)
