"""GameService: setup, orders, messages per audience, idempotency, overrides, rollback, undo."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adjudicator.kernel.dice import CommittedDice, commitment, effective_seed
from bot.service import (
    Actor,
    GameService,
    InvalidOperation,
    PermissionDenied,
)
from tests.bot.test_service_support import (
    BLUE,
    DUEL,
    GM_ACTOR,
    RED,
    STRANGER,
    make_service,
    new_game,
    play,
    to_attack,
    win_for_red,
)
from tests.dbs import NewDb


@pytest.fixture
def service(db_url: str) -> GameService:
    return make_service(db_url)


# ---- setup --------------------------------------------------------------------------------

def test_create_seat_start_and_list(service: GameService) -> None:
    info = service.create_game(GM_ACTOR, DUEL)
    assert info.status == "setup" and len(info.commitment) == 64
    with pytest.raises(InvalidOperation, match="no player seated for red, blue"):
        service.start(info.id, GM_ACTOR)
    service.seat(info.id, GM_ACTOR, "red", RED)
    service.seat(info.id, BLUE, "blue", BLUE)  # a player may take a free side himself
    with pytest.raises(PermissionDenied, match="not free"):
        service.seat(info.id, STRANGER, "blue", STRANGER)
    with pytest.raises(PermissionDenied, match="GM"):
        service.start(info.id, RED)
    started = service.start(info.id, GM_ACTOR)
    assert started.status == "active" and started.to_act == "red"
    assert [g.id for g in service.games_for(BLUE)] == [info.id]
    assert [g.id for g in service.games_for(Actor.mail("BLUE@example.org"))] == [info.id]
    assert service.games_for(STRANGER) == []


def test_unknown_game_and_scenario_are_clear(service: GameService) -> None:
    with pytest.raises(InvalidOperation, match="unknown game 'chess'"):
        service.create_game(GM_ACTOR, "chess")
    with pytest.raises(InvalidOperation, match="unknown scenario 'huge'"):
        service.create_game(GM_ACTOR, DUEL, "huge")


def test_player_entropy_is_mixed_into_the_dice(new_db: NewDb) -> None:
    seed = bytes(range(32))
    service = make_service(new_db("u"), seed_source=lambda n: seed)
    game_id = new_game(service, start=False)
    service.add_entropy(game_id, RED, "red's lucky words")
    with pytest.raises(PermissionDenied):
        service.add_entropy(game_id, STRANGER, "noise")
    service.start(game_id, GM_ACTOR)
    with pytest.raises(InvalidOperation, match="before the game starts"):
        service.add_entropy(game_id, BLUE, "late")
    assert service.info(game_id).commitment == commitment(seed)
    to_attack(service, game_id)
    result = service.submit(game_id, RED, "attack r2 4")
    stored = json.loads(service.store.action(game_id, result.seqs[0])["rolls"])  # type: ignore[index]
    dice = CommittedDice(effective_seed(seed, ["red's lucky words"]), game_id, start_index=0)
    assert stored[0]["values"] == list(dice.roll("red attack DR").values)


# ---- orders and messages ------------------------------------------------------------------

def test_messages_keep_the_trap_secret(service: GameService) -> None:
    game_id = new_game(service)
    result = service.submit(game_id, RED, "trap Mill")
    assert result.status == "applied" and result.seqs == [1]
    assert "red sets the trap in Mill" in result.messages["red"].lines
    assert "red sets the trap in Mill" in result.messages["gm"].lines
    for audience in ("public", "blue"):
        message = result.messages[audience]
        assert "Mill" not in " ".join(message.lines)
        assert "[trap]" not in message.board
        assert message.view is not None and message.view.model_dump().get("trap") is None
    assert "[trap]" in result.messages["red"].board


def test_decision_prompt_goes_to_the_deciding_side_only(new_db: NewDb) -> None:
    service = make_service(new_db("u"))
    game_id = new_game(service)
    to_attack(service, game_id)
    service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6, 6]}, "test hit")
    result = service.submit(game_id, RED, "attack r2 4")
    assert result.pending_side == "blue"
    assert result.messages["blue"].options[0].startswith("decide yield")
    assert result.messages["public"].options == []
    assert result.messages["red"].options == []
    refused = service.submit(game_id, RED, "pass")
    assert refused.status == "refused" and "waiting for blue" in str(refused.error)
    answered = service.submit(game_id, BLUE, "decide yield")
    assert answered.status == "applied"
    assert service.store.action(game_id, answered.seqs[0])["kind"] == "decision"  # type: ignore[index]


def test_multi_line_stops_at_the_first_error_keeping_what_was_applied(
        service: GameService) -> None:
    game_id = new_game(service)
    result = service.submit(game_id, RED, "trap 1\nmove r1 5\nmove r2 3")
    assert result.status == "partial" and result.stopped_at == 2
    assert result.error_rule == "D2" and result.applied == ["trap 1"]
    assert service.info(game_id).head_seq == 1


def test_multi_line_stops_at_a_pending_decision(service: GameService) -> None:
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"))
    service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6, 6]}, "test hit")
    result = service.submit(game_id, BLUE, "attack b2 3\nmove b1 4", side="blue")
    assert result.status == "partial" and result.stopped_at == 2
    assert result.pending_side == "red" and len(result.seqs) == 1


def test_idempotent_retry_returns_the_first_result(service: GameService) -> None:
    game_id = new_game(service)
    first = service.submit(game_id, RED, "trap 2", "msg-1")
    again = service.submit(game_id, RED, "trap 2", "msg-1")
    assert again.duplicate and not first.duplicate
    assert again.seqs == first.seqs == [1]
    assert again.messages["public"].lines == first.messages["public"].lines
    assert service.store.count_actions(game_id) == 1


def test_standing_orders_answer_at_once(service: GameService) -> None:
    game_id = new_game(service)
    play(service, game_id, (BLUE, "standing casualty yield-first"), (RED, "trap 1"),
         (RED, "move r2 3"), (BLUE, "pass"))
    service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6, 6]}, "test hit")
    result = service.submit(game_id, RED, "attack r2 4")
    assert result.pending_side is None
    assert result.applied == ["attack r2 4", "decide yield"]
    assert "b2 retreats to Wood" in result.messages["public"].lines


def test_gm_may_play_for_a_side(service: GameService) -> None:
    game_id = new_game(service)
    result = service.submit(game_id, GM_ACTOR, "trap 4")
    assert result.status == "applied" and result.side == "red"
    assert service.store.action(game_id, 1)["actor"] == "discord:100"  # type: ignore[index]


def test_views_follow_seats(service: GameService) -> None:
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 4"))
    assert service.view(game_id, RED).model_dump()["trap"] == "4"
    assert service.view(game_id, BLUE).model_dump()["trap"] is None
    assert service.view(game_id, STRANGER).viewer == "public"
    with pytest.raises(PermissionDenied):
        service.view(game_id, BLUE, "red")
    assert service.view(game_id, GM_ACTOR).viewer == "gm"


@pytest.mark.parametrize(("options", "expected"), [
    ({"snapshot_every": 3, "snapshot_replay_ms": 1e9}, [0, 3]),  # every 3 actions
    # and at a change of side (trap placed: still red... pass: blue)
    ({"snapshot_every": 3, "snapshot_replay_ms": 1e9, "snapshot_on_side_change": True},
     [0, 3, 5]),
    ({"snapshot_replay_ms": 0.0}, [0, 1, 2, 3, 4, 5]),  # whenever replay would cost
])
def test_state_loads_from_snapshot_and_tail(new_db: NewDb, options: dict[str, Any],
                                            expected: list[int]) -> None:
    db = new_db("u")
    service = make_service(db, **options)
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "standing casualty lose"),
         (RED, "standing casualty off"), (RED, "standing casualty lose"), (RED, "pass"))
    row = service.store.game(game_id)
    assert row is not None
    fresh = make_service(db)
    assert fresh.load_state(game_id).state_hash() == row["state_hash"]
    seqs = [r["seq"] for r in service.store.query(
        "SELECT seq FROM snapshots WHERE game_id = ? ORDER BY seq", [game_id])]
    assert seqs == expected


def test_snapshots_are_spaced_by_the_cost_of_replaying(db_url: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Each order's rules take 4 ms (a fake clock): with a 10 ms replay budget a snapshot is
    stored every third order."""
    import bot.service.submit as service_module

    spent = [0.0]
    monkeypatch.setattr(service_module.time, "thread_time", lambda: spent[0])
    service = make_service(db_url, snapshot_replay_ms=10.0)
    game_id = new_game(service)
    rules = service.rules(game_id)
    apply = rules.apply

    def slow_apply(*args: Any, **kwargs: Any) -> Any:
        spent[0] += 0.004
        return apply(*args, **kwargs)

    monkeypatch.setattr(rules, "apply", slow_apply)
    play(service, game_id, (RED, "trap 1"), *[(RED, f"standing casualty {p}")
                                              for p in ("lose", "off") * 3])
    seqs = [r["seq"] for r in service.store.query(
        "SELECT seq FROM snapshots WHERE game_id = ? ORDER BY seq", [game_id])]
    assert seqs == [0, 3, 6]
    snapshot = service.store.latest_snapshot(game_id)
    assert snapshot is not None and snapshot.state[:1] == b"{"  # given back as JSON
    raw = service.store.query("SELECT state FROM snapshots WHERE game_id = ? AND seq = 6",
                              [game_id])[0]["state"]
    assert bytes(raw)[:1] != b"{" and len(raw) < len(snapshot.state)  # stored compressed


def test_finished_game_reveals_its_seed(new_db: NewDb) -> None:
    service = make_service(new_db("u"), seed_source=lambda n: b"\x07" * n)
    game_id = new_game(service)
    for anyone in (RED, GM_ACTOR):  # nobody, the GM included, sees it during play
        with pytest.raises(PermissionDenied, match="secret until the game is over"):
            service.reveal_seed(game_id, anyone)
    win_for_red(service, game_id)
    info = service.info(game_id)
    assert info.status == "finished" and info.result == "red wins"
    assert service.reveal_seed(game_id, RED) == "07" * 32
    assert [(a["actor"], a["kind"]) for a in service.audit(game_id, GM_ACTOR)] == [
        ("discord:1", "seed-read")]
    refused = service.submit(game_id, RED, "pass")
    assert refused.status == "refused" and "finished" in str(refused.error)
