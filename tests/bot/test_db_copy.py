"""``umpire db copy`` and ``umpire db migrate``: every game from SQLite to PostgreSQL and
back, verified by digests of its rows and by state hashes, and nothing lost on the way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.dbcopy import copy_database, game_digest
from bot.records import export_lines
from bot.service import GameService
from bot.store import Store
from tests.bot.test_service_support import (
    BLUE,
    DUEL,
    GM_ACTOR,
    RED,
    STRANGER,
    make_service,
    new_game,
    play,
    win_for_red,
)
from tests.dbs import sqlite_url


def populate(service: GameService) -> list[str]:
    """Games in every condition: being set up, in play with snapshots, rolled back, over
    and reopened, with a closed seat, entropy, an audit trail and mail bookkeeping."""
    setup = service.create_game(GM_ACTOR, DUEL).id
    service.seat(setup, GM_ACTOR, "red", RED)
    service.add_entropy(setup, RED, "lucky words")
    playing = new_game(service)
    play(service, playing, (RED, "trap 1"), (RED, "move r2 3"), (BLUE, "pass"),
         (RED, "standing casualty lose"), (RED, "pass"), (BLUE, "pass"))
    service.rollback(playing, GM_ACTOR, 3, "wrong move")
    service.unseat(playing, GM_ACTOR, BLUE, "left")
    service.seat(playing, GM_ACTOR, "blue", STRANGER)
    over = new_game(service)
    win_for_red(service, over)
    service.reveal_seed(over, GM_ACTOR)
    service.rollback(over, GM_ACTOR, 1, "reopen")  # goes on with a new seed
    service.store.set_meta("discord:published:" + playing, "3")
    with service.store.write() as tx:
        tx.insert("mail_cursors", {"game_id": playing, "address": "blue@example.org",
                                   "seq": 4})
        tx.insert("mail_inbox", {"message_key": "<m1@example.org>", "sender": "a@b",
                                 "game_id": playing, "received": 1.5, "outcome": "answered"})
    return [setup, playing, over]


def test_sqlite_to_postgresql_and_back_keeps_every_row(tmp_path: Path, pg_url: str,
                                                       pg_databases: object) -> None:
    source = sqlite_url(tmp_path / "source.db")
    service = make_service(source, snapshot_every=2)
    games = populate(service)
    records = {g: export_lines(service.store, g) for g in games}
    digests = {g: game_digest(service.store, g) for g in games}
    service.store.close()

    report = copy_database(source, pg_url)
    assert report.problems == [] and (report.games, report.verified) == (3, 3)
    assert report.actions > 10 and report.snapshots >= 4
    assert report.rows["meta"] >= 1 and report.rows["mail_inbox"] == 1

    back = sqlite_url(tmp_path / "back.db")
    again = copy_database(pg_url, back)
    assert again.problems == [] and again.games == 3
    for url in (pg_url, back):
        store = Store(url)
        try:
            for game_id in games:
                assert game_digest(store, game_id) == digests[game_id]
                assert export_lines(store, game_id) == records[game_id]
            assert store.get_meta("discord:published:" + games[1]) == "3"
            # the copy goes on being played, its ids continuing past the copied ones
            copy = GameService(store)
            acting = copy.info(games[1]).to_act
            assert copy.submit(games[1], RED if acting == "red" else STRANGER, "pass",
                               f"after-copy-{url[:6]}").ok
            copy.seat(games[0], GM_ACTOR, "blue", BLUE)
            seat_ids = [s["id"] for s in store.seat_history(games[0])]
            assert len(set(seat_ids)) == len(seat_ids)
        finally:
            store.close()


def test_a_second_copy_skips_what_is_there_and_refuses_what_differs(
        tmp_path: Path, pg_url: str) -> None:
    source = sqlite_url(tmp_path / "s.db")
    service = make_service(source)
    games = populate(service)
    service.store.close()
    assert copy_database(source, pg_url).games == 3
    rerun = copy_database(source, pg_url)
    assert (rerun.games, rerun.skipped, rerun.problems) == (0, 3, [])
    other = make_service(source)
    play(other, games[1], (RED, "pass"))  # the source moved on: the copies now differ
    other.store.close()
    third = copy_database(source, pg_url)
    assert third.problems == [f"game {games[1]}: conflict — the destination holds another "
                              "game with this id; left alone"]
    assert (third.games, third.skipped, third.conflicts) == (0, 2, 1)


def test_the_cli_copies_migrates_and_refuses_an_old_source(tmp_path: Path, pg_url: str) -> None:
    source = tmp_path / "cli.db"
    service = make_service(source)
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "pass"))
    service.store.close()
    runner = CliRunner()
    result = runner.invoke(app, ["db", "copy", str(source), pg_url])
    assert result.exit_code == 0, result.output
    assert "1 games copied" in result.output and "1 verified by state hash — ok" in result.output
    assert pg_url.split("@")[0].split(":")[-1] not in result.output  # no password shown
    result = runner.invoke(app, ["db", "migrate", "--db", pg_url])
    assert result.exit_code == 0 and "(already current)" in result.output, result.output
    result = runner.invoke(app, ["db", "check", "--db", pg_url])
    assert result.exit_code == 0 and "1 games" in result.output, result.output
    old = tmp_path / "old.db"
    raw = Store(old, migrate=False)
    raw.db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                   "applied REAL NOT NULL)")
    raw.close()
    result = runner.invoke(app, ["db", "copy", str(old), str(tmp_path / "new.db")])
    assert result.exit_code == 1 and "umpire db migrate" in result.output, result.output
    result = runner.invoke(app, ["db", "migrate", "--db", str(old)])
    assert result.exit_code == 0 and "(was 0)" in result.output, result.output


# ---- merging two stores (issue 24) ------------------------------------------------------

def _merge_case(source: str, target: str) -> None:
    """``target`` already holds games of its own (their seats, entropy and audit rows
    numbered from 1 like the source's): copying merges the stores, renumbering the rows
    whose numbers are taken, and every game of both is whole afterwards."""
    theirs_service = make_service(target, snapshot_every=2)
    theirs = populate(theirs_service)
    their_records = {g: export_lines(theirs_service.store, g) for g in theirs}
    theirs_service.store.close()
    ours_service = make_service(source, snapshot_every=2)
    ours = populate(ours_service)
    our_records = {g: export_lines(ours_service.store, g) for g in ours}
    digests = {g: game_digest(ours_service.store, g) for g in ours}
    ours_service.store.close()

    report = copy_database(source, target)
    assert report.problems == [], report.problems
    assert (report.games, report.verified, report.conflicts) == (3, 3, 0)
    assert report.renumbered > 0  # both stores numbered their seats from 1
    again = copy_database(source, target)
    assert (again.games, again.skipped, again.problems) == (0, 3, [])
    store = Store(target)
    try:
        assert len(store.game_ids()) == 6
        for game_id in ours:
            assert game_digest(store, game_id) == digests[game_id]
            assert export_lines(store, game_id) == our_records[game_id]
        for game_id in theirs:
            assert export_lines(store, game_id) == their_records[game_id]
        seat_ids = [int(r["id"]) for r in store.query("SELECT id FROM seats")]
        assert len(seat_ids) == len(set(seat_ids))
        # both sets of games go on being played in the merged store
        merged = GameService(store)
        merged.seat(ours[0], GM_ACTOR, "blue", BLUE)
        merged.seat(theirs[0], GM_ACTOR, "blue", BLUE)
    finally:
        store.close()


def test_copying_into_a_postgresql_store_that_holds_games_merges_them(
        tmp_path: Path, pg_url: str) -> None:
    _merge_case(sqlite_url(tmp_path / "ours.db"), pg_url)


def test_copying_into_a_sqlite_store_that_holds_games_merges_them(
        tmp_path: Path, pg_url: str) -> None:
    _merge_case(pg_url, str(tmp_path / "theirs.db"))


def test_copying_between_two_sqlite_stores_merges_them(tmp_path: Path) -> None:
    _merge_case(str(tmp_path / "ours.db"), sqlite_url(tmp_path / "theirs.db"))


def test_a_game_that_cannot_be_written_is_not_half_copied_and_the_others_are(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = str(tmp_path / "ours.db")
    service = make_service(source)
    games = populate(service)
    service.store.close()
    target = tmp_path / "theirs.db"
    from bot.store import Refused, Tx

    real = Tx.insert

    def failing(self: Tx, table: str, row: Any, **kwargs: Any) -> int:
        if table == "snapshots" and row.get("game_id") == games[1]:
            raise Refused("the disk said no")
        return real(self, table, row, **kwargs)

    monkeypatch.setattr(Tx, "insert", failing)
    report = copy_database(source, target)
    monkeypatch.undo()
    assert len(report.problems) == 1 and report.problems[0].startswith(
        f"game {games[1]}: not copied, nothing of it written (the disk said no")
    assert report.games == 2
    store = Store(target)
    try:
        assert set(store.game_ids()) == {games[0], games[2]}
        for table in ("seats", "actions", "entropy", "audit", "mail_cursors", "mail_inbox"):
            assert store.query(f"SELECT * FROM {table} WHERE game_id = ?", [games[1]]) == []
    finally:
        store.close()
    result = CliRunner().invoke(app, ["db", "copy", source, str(target)])
    assert result.exit_code == 0 and "1 games copied, 2 already there" in result.output, \
        result.output
