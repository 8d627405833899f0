"""The store's count of statements (PostgreSQL: round trips), which ``umpire bench writers``
prints per submit, and what cut them: a PostgreSQL transaction's ``BEGIN`` goes with its
first statement; an append is one pipeline from ``BEGIN`` to ``COMMIT`` (the claim checks
the sequence and the idempotency key on the server); under the game's lock, the lock, the
game's row, seats, entropy and the key's look-up are one round trip (issue 26)."""

from __future__ import annotations

import threading

import psycopg
import pytest

from bot.store import DuplicateKey, SequenceConflict, Store
from bot.store.postgres import lock_key, split_url
from tests.bot.test_store import action, game_row

SEAT = {"side": "red", "role": "player", "discord_id": "1", "created": 1.0}


def _lock_free(url: str, game_id: str) -> bool:
    """Whether another session can take the game's advisory lock now (and gives it back)."""
    with psycopg.connect(split_url(url)[0], autocommit=True) as conn:
        row = conn.execute("SELECT pg_try_advisory_lock(%s)", [lock_key("game:" + game_id)]
                           ).fetchone()
        assert row is not None
        if row[0]:
            conn.execute("SELECT pg_advisory_unlock(%s)", [lock_key("game:" + game_id)])
        return bool(row[0])


def test_postgresql_begin_rides_with_the_first_statement(pg_url: str) -> None:
    store = Store(pg_url)
    try:
        store.insert_game(game_row())
        before = store.round_trips
        with store.write():
            pass  # nothing sent: no BEGIN, no COMMIT
        assert store.round_trips == before
        with store.write() as tx:
            tx.query("SELECT head_seq FROM games WHERE id = ?", ["g1"])
        assert store.round_trips == before + 2  # BEGIN + SELECT, then COMMIT
        before = store.round_trips
        store.append("g1", 0, [action(1)], {"to_act": "blue"},
                     idempotency=("k1", "discord:1", "{}", "r"))
        # BEGIN, the claim (sequence check, idempotency row), the rows, COMMIT: one pipeline
        assert store.round_trips == before + 1
        assert store.count_actions("g1") == 1
    finally:
        store.close()


def test_postgresql_an_inner_write_joins_an_outer_one_not_yet_begun(pg_url: str) -> None:
    """The outer transaction has sent nothing when the inner one starts: the inner joins it
    (no COMMIT of its own), so the outer's failure undoes both."""
    store = Store(pg_url)
    try:
        store.insert_game(game_row())
        with pytest.raises(SequenceConflict), store.write():
            store.append("g1", 0, [action(1)], {"to_act": "blue"})
            store.append("g1", 0, [action(2)], {"to_act": "red"})  # the head is 1 now
        assert store.count_actions("g1") == 0
        assert store.game("g1")["head_seq"] == 0  # type: ignore[index]
    finally:
        store.close()


def test_every_statement_of_a_store_is_counted(db_url: str) -> None:
    store = Store(db_url)
    try:
        store.insert_game(game_row())
        before = store.round_trips
        store.append("g1", 0, [action(1)], {"to_act": "blue"})
        spent = store.round_trips - before
        # SQLite: BEGIN, the check, the action, the game row, COMMIT; PostgreSQL: one
        # pipeline (BEGIN, the claim, the action, the game row, COMMIT)
        assert spent == (5 if store.backend == "sqlite" else 1)
    finally:
        store.close()


def test_postgresql_a_submit_under_the_game_lock_is_two_round_trips(pg_url: str) -> None:
    """What a submit asks of the store under the game's lock: the key's look-up, the game's
    row and seats (a read), the entropy (the dice), the append. The first four answer from
    the game transaction's opening (one round trip), the append is the second; the lock is
    held from the first to the COMMIT, and released with it."""
    store = Store(pg_url)
    try:
        store.insert_game(game_row(), [SEAT])
        store.add_entropy("g1", "discord:1", "lucky")
        before = store.round_trips
        with store.game_lock("g1"):
            assert store.idempotent_result("g1", "discord:1", "k1") is None
            assert not _lock_free(pg_url, "g1")  # held from the opening
            with store.read():
                assert store.game("g1")["head_seq"] == 0  # type: ignore[index]
                assert [s["discord_id"] for s in store.seats("g1")] == ["1"]
            assert [e["text"] for e in store.entropy("g1")] == ["lucky"]
            assert store.round_trips == before + 1
            store.append("g1", 0, [action(1)], {"to_act": "blue"},
                         idempotency=("k1", "discord:1", "{}", "r"))
            assert store.round_trips == before + 2
            assert _lock_free(pg_url, "g1")  # released at the COMMIT
        assert store.round_trips == before + 2  # nothing left to end
        assert store.game("g1")["head_seq"] == 1  # type: ignore[index]
        with store.game_lock("g1"):  # the key again: looked up in the opening
            assert store.idempotent_result("g1", "discord:1", "k1") == ("{}", "r")
        assert _lock_free(pg_url, "g1")
    finally:
        store.close()


def test_postgresql_the_game_transaction_answers_from_its_opening_and_recovers_from_a_conflict(
        pg_url: str) -> None:
    """Under the game's lock, the game's row and seats are answered from the transaction's
    opening (read once the lock was granted), even while another connection commits a new
    seat; a write made by the game's own transaction is read back. A refused claim (the
    head moved, the key used) rolls back and unlocks at once, and the same block goes on:
    the next statement opens the transaction again, with the lock."""
    store, other = Store(pg_url), Store(pg_url)
    try:
        store.insert_game(game_row(), [SEAT])
        with store.game_lock("g1"):
            assert len(store.seats("g1")) == 1
            other.add_seat("g1", {**SEAT, "side": "blue", "discord_id": "2"})
            assert len(store.seats("g1")) == 1  # the opening's
            other.append("g1", 0, [action(1)], {})  # a writer without the lock
            with pytest.raises(SequenceConflict, match="at action 1, not 0"):
                store.append("g1", 0, [action(1, text="mine")], {})
            assert _lock_free(pg_url, "g1")  # rolled back and unlocked at once
            assert store.game("g1")["head_seq"] == 1  # type: ignore[index]
            assert len(store.seats("g1")) == 2  # opened again: a new moment
            assert not _lock_free(pg_url, "g1")
            store.append("g1", 1, [action(2)], {}, idempotency=("k", "discord:1", "one", "q"))
            with pytest.raises(DuplicateKey) as duplicate:
                store.append("g1", 2, [action(3)], {},
                             idempotency=("k", "discord:1", "two", "q"))
            assert (duplicate.value.result, duplicate.value.request) == ("one", "q")
            with store.write():  # a write of the block's own, then read back
                store.update_game("g1", {"to_act": "red"})
                assert store.game("g1")["to_act"] == "red"  # type: ignore[index]
        assert _lock_free(pg_url, "g1")
        assert [r["seq"] for r in store.actions("g1")] == [1, 2]
        assert store.game("g1")["to_act"] == "red"  # type: ignore[index]
    finally:
        store.close()
        other.close()


def test_postgresql_the_game_lock_makes_a_second_writer_wait(pg_url: str) -> None:
    """Two stores (as two processes) load, plan and append on one game at once: the second
    waits for the first's COMMIT at its opening, then reads the new head (no conflict)."""
    setup = Store(pg_url)
    setup.insert_game(game_row())
    stores = [Store(pg_url) for _ in range(2)]
    inside = threading.Event()
    seen: list[int] = []

    def first() -> None:
        with stores[0].game_lock("g1"):
            head = int(stores[0].game("g1")["head_seq"])  # type: ignore[index]
            inside.set()
            seen.append(head)
            assert not _lock_free(pg_url, "g1")
            stores[0].append("g1", head, [action(head + 1)], {})

    thread = threading.Thread(target=first)
    thread.start()
    assert inside.wait(timeout=60)
    with stores[1].game_lock("g1"):
        head = int(stores[1].game("g1")["head_seq"])  # type: ignore[index]
        seen.append(head)
        stores[1].append("g1", head, [action(head + 1)], {})
    thread.join(timeout=60)
    assert seen == [0, 1]
    assert [r["seq"] for r in setup.actions("g1")] == [1, 2]
    for store in (setup, *stores):
        store.close()


def test_postgresql_a_refused_claim_leaves_prepared_statements_working(pg_url: str) -> None:
    """psycopg prepares a statement after its fifth use; in a pipeline the claim aborts,
    the statements after it are skipped, prepared or not: the rollback drops every
    prepared statement with them, so the next appends (prepared again) do not fail with
    "prepared statement does not exist"."""
    store = Store(pg_url + "?pool=2&lock=row")
    try:
        store.insert_game(game_row())
        for head in range(1, 13):
            store.append("g1", head - 1, [action(head)], {})
            with pytest.raises(SequenceConflict):
                store.append("g1", head - 1, [action(head)], {})
            with store.game_lock("g1"), pytest.raises(SequenceConflict):
                store.append("g1", head - 1, [action(head)], {})
        assert store.count_actions("g1") == 12
    finally:
        store.close()


def test_postgresql_a_tp_s_submit_through_the_service_is_two_round_trips(pg_url: str) -> None:
    """What ``umpire bench writers`` prints: orders of a seeded Turning Point: Stalingrad
    game, each given through ``GameService.submit``, cost two round trips at p50 (the game
    transaction's opening, the append), a few more with a snapshot or a decision."""
    from bench.writers import _round_trips, _script

    p50, most = _round_trips(pg_url, {}, _script(12), count=10)
    assert p50 == 2
    assert most <= 6


def test_postgresql_a_write_under_the_game_lock_commits_at_its_own_end(pg_url: str) -> None:
    """Under the game's lock each store write is still its own transaction: committed when
    it ends (a deadline tick's update stays though what follows it fails), while a failure
    inside a write undoes that write alone; the lock is released either way."""
    store = Store(pg_url)
    try:
        store.insert_game(game_row(), [SEAT])
        with pytest.raises(RuntimeError), store.game_lock("g1"):
            store.game("g1")
            store.update_game("g1", {"to_act": "blue"})
            store.set_meta("tick", "1")
            with store.write():
                store.update_game("g1", {"to_act": "red"})
                raise RuntimeError("a failure inside a write")
        assert _lock_free(pg_url, "g1")
        assert store.game("g1")["to_act"] == "blue"  # type: ignore[index]
        assert store.get_meta("tick") == "1"
    finally:
        store.close()


def test_postgresql_a_refused_claim_logs_no_pipeline_warning(
        pg_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """The claim's refusal reaches the caller as the store's error, and nothing else is
    sent or logged after it (psycopg warns when a pipeline is left with an error in flight:
    an operator's log would hold a warning for every conflict)."""
    store = Store(pg_url + "?lock=row")
    try:
        store.insert_game(game_row())
        store.append("g1", 0, [action(1)], {})
        with caplog.at_level("WARNING"):
            for _ in range(10):
                with pytest.raises(SequenceConflict):
                    store.append("g1", 0, [action(1), action(2), action(3)], {},
                                 snapshots=())
        assert not [r for r in caplog.records if r.name.startswith("psycopg")]
        assert store.count_actions("g1") == 1
    finally:
        store.close()
