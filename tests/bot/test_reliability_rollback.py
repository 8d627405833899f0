"""Rollback property: random games, rollback to k, roll forward: the same states again.

With dice that depend on the roll index only (fixed dice), rolling back to action k and
re-applying the reverted orders must give back exactly the state hashes recorded the
first time; and a rollback never deletes a row.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.records import export_lines, verify
from bot.service import Actor
from tests.bot.test_service_support import BLUE, GM_ACTOR, RED, index_dice, make_service, new_game
from tests.dbs import NewDb

PLAYERS: dict[str, Actor] = {"red": RED, "blue": BLUE}


HEALTH = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
GAMES = {"data": st.data(), "length": st.integers(min_value=2, max_value=24)}


@settings(max_examples=10, deadline=None, suppress_health_check=HEALTH)
@given(**GAMES)
def test_rollback_then_roll_forward_reproduces_every_hash(new_db: NewDb, data: st.DataObject,
                                                          length: int) -> None:
    """Ten random games (forty in the soak stage): see :func:`rolled_back_and_forward`."""
    rolled_back_and_forward(new_db, data, length)


@pytest.mark.soak
@settings(max_examples=40, deadline=None, suppress_health_check=HEALTH)
@given(**GAMES)
def test_rollback_then_roll_forward_reproduces_every_hash_soak(
        new_db: NewDb, data: st.DataObject, length: int) -> None:
    rolled_back_and_forward(new_db, data, length)


def rolled_back_and_forward(new_db: NewDb, data: st.DataObject, length: int) -> None:
    """A random game of ``length`` orders, rolled back to a random action and rolled
    forward: the same state hashes again, and no row deleted."""
    service = make_service(new_db("prop"), dice_factory=index_dice(), snapshot_every=4)
    game_id = new_game(service)
    for _ in range(length):
        state = service.load_state(game_id)
        game = service.rules(game_id)
        side = game.acting_side(state)
        if side is None:
            break
        orders = game.legal_orders(state, side)
        order = data.draw(st.sampled_from(orders), label=f"{side} order")
        assert service.submit(game_id, PLAYERS[side], order).ok
    original = service.store.actions(game_id)
    head = len(original)
    k = data.draw(st.integers(min_value=0, max_value=head - 1), label="rollback to")
    rolled = service.rollback(game_id, GM_ACTOR, k, "property")
    assert rolled.ok
    assert service.load_state(game_id).state_hash() == (
        original[k - 1]["state_hash"] if k else service.store.latest_snapshot(
            game_id, upto=0).state_hash)  # type: ignore[union-attr]
    report = service.roll_forward(game_id, GM_ACTOR)
    assert report.stopped_at is None, report.error
    rows = service.store.actions(game_id)
    assert len(rows) == head + 1 + (head - k), "rows were deleted or lost"
    assert [r["state_hash"] for r in rows[head + 1:]] == [
        r["state_hash"] for r in original[k:]]
    assert [r["text"] for r in rows[head + 1:]] == [r["text"] for r in original[k:]]
    assert all(rows[i]["reverted_by"] == head + 1 for i in range(k, head))
    record = export_lines(service.store, game_id)
    record[0].pop("seed", None)  # these test dice do not come from the seed
    record[0].pop("past_seeds", None)  # (nor from one revealed before a reopening)
    assert verify(record).ok
    service.store.close()
