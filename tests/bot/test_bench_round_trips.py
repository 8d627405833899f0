"""The store's count of statements (PostgreSQL: round trips), which ``umpire bench writers``
prints per submit, and what cut them: a PostgreSQL transaction's ``BEGIN`` goes with its
first statement (issue 26)."""

from __future__ import annotations

import pytest

from bot.store import SequenceConflict, Store
from tests.bot.test_store import action, game_row


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
        # BEGIN + the sequence check, the idempotency row, one pipeline, COMMIT
        assert store.round_trips == before + 4
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
        # SQLite: BEGIN, the check, the action, the game row, COMMIT; PostgreSQL: BEGIN with
        # the check, one pipeline (action and game row), COMMIT
        assert spent == (5 if store.backend == "sqlite" else 3)
    finally:
        store.close()
