"""Faults in the store: a busy file, two processes, damaged databases — clear lines, no loss."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.service import GameService
from bot.store import Damaged, Store
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
