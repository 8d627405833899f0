"""Compact storage: idempotency rows keep sequence numbers and the request's digest (schema
6 compacts older rows), snapshots are kept compressed and older uncompressed ones still
load; a store written before reads and plays on the same. On both backends."""

from __future__ import annotations

import json

from adjudicator.kernel.events import PUBLIC
from bot.records import export_lines, verify
from bot.store import Store
from bot.store.codec import COMPACT, compacted, pack_state, unpack_state
from tests.bot.test_service_support import BLUE, GM_ACTOR, RED, make_service, new_game, play


def stored_result(store: Store) -> dict[str, object]:
    row = store.query("SELECT result FROM idempotency")[0]
    data: dict[str, object] = json.loads(row["result"])
    return data


def test_an_idempotency_row_keeps_the_outcome_and_its_actions_only(db_url: str) -> None:
    service = make_service(db_url)
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"))
    first = service.submit(game_id, BLUE, "pass\nmove b1 4", "k-1")  # stops at line 2
    kept = stored_result(service.store)
    assert kept == {"v": COMPACT, "status": "partial", "side": "blue", "seqs": first.seqs,
                    "to_act": first.to_act, "stopped_at": 2, "error": first.error,
                    "error_rule": "turn"}
    again = service.submit(game_id, BLUE, "pass\nmove b1 4", "k-1")
    assert again.duplicate and again.seqs == first.seqs and again.applied == first.applied
    for viewer in (PUBLIC, "red", "blue", "gm"):
        assert again.messages[viewer].lines == first.messages[viewer].lines
        assert again.messages[viewer].to_act == first.messages[viewer].to_act


def test_a_game_ending_order_replays_as_over(db_url: str) -> None:
    service = make_service(db_url)
    game_id = new_game(service)
    first = service.submit(game_id, RED, "resign", "k-end")
    assert first.messages[PUBLIC].result
    again = service.submit(game_id, RED, "resign", "k-end")
    assert again.duplicate and again.messages[PUBLIC].result == first.messages[PUBLIC].result


def test_older_stores_are_compacted_and_still_replay(db_url: str) -> None:
    service = make_service(db_url)
    game_id = new_game(service)
    first = service.submit(game_id, RED, "trap 1", "k-old")
    # As a schema-5 store kept it: the whole result, messages and all.
    whole = first.model_dump_json()
    service.store.execute("UPDATE idempotency SET result = ?", [whole])
    service.store.execute("DELETE FROM schema_migrations WHERE version = 6")
    service.store.close()
    reopened = make_service(db_url)
    assert reopened.store.query("SELECT version FROM schema_migrations WHERE version = 6")
    kept = stored_result(reopened.store)
    assert kept["v"] == COMPACT and kept["seqs"] == first.seqs and "messages" not in kept
    again = reopened.submit(game_id, RED, "trap 1", "k-old")
    assert again.duplicate and again.applied == ["trap 1"]
    assert again.messages["red"].lines == first.messages["red"].lines


def test_what_is_not_a_whole_result_is_left_as_it_is() -> None:
    for stored in ("{}", "[]", '{"v":2,"status":"ok"}', '"text"'):
        assert compacted(stored) == stored


def test_uncompressed_snapshots_of_older_stores_still_load(db_url: str) -> None:
    service = make_service(db_url, snapshot_every=2)
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"), (BLUE, "pass"))
    for row in service.store.snapshots(game_id):
        service.store.execute(
            "UPDATE snapshots SET state = ? WHERE game_id = ? AND seq = ?",
            [unpack_state(bytes(row["state"])), game_id, row["seq"]])
    assert all(bytes(r["state"])[:1] == b"{" for r in service.store.snapshots(game_id))
    fresh = make_service(db_url)
    assert fresh.load_state(game_id) == service.load_state(game_id)
    assert verify(export_lines(fresh.store, game_id)).ok
    play(fresh, game_id, (RED, "move r2 2"))
    assert fresh.rollback(game_id, GM_ACTOR, 1, "test").ok


def test_the_codec_round_trips() -> None:
    data = b'{"a":1,"b":"\\u00e9"}' * 50
    assert unpack_state(pack_state(data)) == data and len(pack_state(data)) < len(data)
    assert unpack_state(data) == data


def test_the_active_actions_have_an_index(db_url: str) -> None:
    """Schema 7: what reads or reverts active actions reads no reverted row."""
    store = make_service(db_url).store
    if store.backend == "sqlite":
        names = [r["name"] for r in store.query(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'actions'")]
        plan = store.query("EXPLAIN QUERY PLAN UPDATE actions SET reverted_by = ? WHERE "
                           "game_id = ? AND seq > ? AND seq < ? AND reverted_by IS NULL",
                           [9, "g", 1, 9])
        assert any("actions_active" in str(row) for row in plan)
    else:
        names = [r["indexname"] for r in store.query(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'actions'")]
    assert "actions_active" in names
