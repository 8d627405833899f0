"""A game resumed from a snapshot goes on exactly as one never interrupted: the rules iterate
dicts in insertion order (which unit's event comes first), so a snapshot keeps the state's
own order (its canonical bytes sort the keys). A Turning Point: Stalingrad game reloaded
from a snapshot before every order still verifies: events and hashes as a replay from the
start gives them."""

from __future__ import annotations

from pathlib import Path

from bench.common import Table
from bot.records import export_lines, verify
from tests.bot.test_service_support import make_service


def test_a_game_resumed_from_snapshots_records_what_a_full_replay_gives(tmp_path: Path) -> None:
    # Snapshot after every action; keep no state between orders: every order is planned on
    # a state loaded from the newest snapshot, mid-impulse more often than not.
    service = make_service(tmp_path / "u.db", snapshot_replay_ms=0.0, state_cache_bytes=1)
    table = Table(service, "stalingrad", "historical", seed=3)
    for _ in range(60):
        step = table.next_order()
        assert step is not None
        actor, text = step
        assert service.submit(table.game_id, actor, text, table.key()).ok
    result = verify(export_lines(service.store, table.game_id))
    assert result.ok, result.problems


def test_a_game_started_by_an_older_store_still_verifies(tmp_path: Path) -> None:
    """Stores before kept snapshots as canonical bytes: every game was played from its
    first snapshot's sorted order. A game starts from that order still (``initial_state``:
    the listings sampled from dicts list what they listed), a replay too, and a game whose
    first snapshot an older store wrote goes on and verifies."""
    service = make_service(tmp_path / "u.db", state_cache_bytes=1)
    table = Table(service, "stalingrad", "historical", seed=3)
    first = service.store.latest_snapshot(table.game_id)
    assert first is not None and first.seq == 0
    rules = service.rules(table.game_id)
    assert list(rules.load_state(first.state).units) == sorted(
        rules.setup("historical").units)
    service.store.execute("UPDATE snapshots SET state = ? WHERE game_id = ? AND seq = 0",
                          [rules.load_state(first.state).to_bytes(), table.game_id])
    for _ in range(30):
        step = table.next_order()
        assert step is not None
        assert service.submit(table.game_id, *step, table.key()).ok
    result = verify(export_lines(service.store, table.game_id))
    assert result.ok, result.problems
