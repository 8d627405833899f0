"""Records are verified and imported in one streaming pass: the replay keeps only the
current state and the states the record's rollbacks return to; a file is read one line at a
time; the result is the same as from a record held in memory, and an import writes
snapshots along the way so the imported game resumes and rolls back from near where it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.common import Table
from bot import records
from bot.records import (
    RecordError,
    Replay,
    _rules,
    export_lines,
    import_file,
    rollback_targets,
    scan_targets,
    verify,
    verify_file,
    write_record,
)
from bot.service import GameService
from tests.bot.test_service_support import BLUE, GM_ACTOR, RED, make_service, new_game, play


def long_game(service: GameService) -> str:
    """A Duel with forced dice, a rollback, play after it and an undo."""
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"), (BLUE, "pass"))
    service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6, 6, 2]}, "test")
    play(service, game_id, (RED, "attack r2 4"), (BLUE, "decide yield"))
    assert service.rollback(game_id, GM_ACTOR, 3, "dispute").ok
    for _ in range(6):
        play(service, game_id, (RED, "pass"), (BLUE, "pass"))
    play(service, game_id, (RED, "standing casualty lose"))
    assert service.undo(game_id, RED).ok
    return game_id


def test_a_streamed_file_verifies_as_the_record_in_memory(tmp_path: Path) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = long_game(service)
    lines = service.export(game_id, GM_ACTOR).lines
    path = tmp_path / "game.jsonl"
    write_record(lines, path)
    assert scan_targets(path) == rollback_targets(lines[1:]) == {3, max(
        int(line["payload"]["to_seq"]) for line in lines[1:] if line["kind"] == "rollback")}
    in_memory, streamed = verify(lines), verify_file(path)
    assert in_memory.ok and streamed == in_memory
    assert streamed.final_hash == service.store.game(game_id)["state_hash"]  # type: ignore[index]


def test_the_replay_keeps_only_what_rollbacks_return_to(tmp_path: Path) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = long_game(service)
    header, *actions = service.export(game_id, GM_ACTOR).lines
    targets = rollback_targets(actions)
    replay = Replay(_rules(header, None), header, targets)
    for item in actions:
        replay.feed(item)
        assert set(replay.kept) <= targets
    assert not replay.problems and set(replay.kept) == targets


def test_a_tampered_line_in_a_file_is_found(tmp_path: Path) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = long_game(service)
    lines = service.export(game_id, GM_ACTOR).lines
    forced = next(line for line in lines[1:] if any(r.get("forced") for r in line["rolls"]))
    forced["rolls"][0]["values"][0] = 1  # not what the GM forced
    path = tmp_path / "game.jsonl"
    write_record(lines, path)
    result = verify_file(path)
    assert not result.ok and "force-dice" in result.problems[0]


def test_an_import_streams_writes_snapshots_and_plays_on(tmp_path: Path, db_url: str) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = long_game(service)
    lines = service.export(game_id, GM_ACTOR).lines
    path = tmp_path / "game.jsonl"
    write_record(lines, path)
    other = make_service(db_url)
    seed = bytes(service.store.game(game_id)["server_seed"]).hex()  # type: ignore[index]
    new_id = import_file(other.store, path, seed)
    assert other.load_state(new_id) == service.load_state(game_id)
    assert other.info(new_id).head_seq == service.info(game_id).head_seq
    play(other, new_id, (RED, "pass"))
    assert verify(other.export(new_id, GM_ACTOR).lines).ok


def test_a_record_that_does_not_verify_imports_nothing(tmp_path: Path, db_url: str) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = long_game(service)
    lines = service.export(game_id, GM_ACTOR).lines
    lines[-2]["state_hash"] = "0" * 64
    path = tmp_path / "game.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    other = make_service(db_url)
    with pytest.raises(RecordError, match="does not verify"):
        import_file(other.store, path)
    assert other.store.query("SELECT id FROM games") == []
    assert other.store.query("SELECT seq FROM actions") == []


#: How many actions the paused game may take to reach its first pause for the Advantage.
PAUSE_BOUND = 200


@pytest.fixture(scope="module")
def paused_record(tmp_path_factory: pytest.TempPathFactory
                  ) -> tuple[list[dict[str, object]], int]:
    """A Turning Point: Stalingrad game played at random (seeded) until an action pauses
    for the Advantage (9.4): a roll in play that went against the holder (the initial
    Rubble's drs are not offered by default, docs/rulings.md). The record, and the number
    of that action (which one depends on the legal orders the random player draws from:
    the game is played until the first pause, within a bound)."""
    service = make_service(tmp_path_factory.mktemp("paused") / "u.db",
                           seed_source=lambda n: b"\x0b" * n)
    table = Table(service, "stalingrad", "historical", seed=15, game_id="pause15")
    paused = 0
    for number in range(1, PAUSE_BOUND + 1):
        step = table.next_order()
        assert step is not None
        result = service.submit(table.game_id, *step, table.key())
        assert result.ok
        if any("may use the Advantage to reroll" in m.text for m in result.messages.values()):
            paused = number
            break
    assert paused > 10, f"no pause for the Advantage in {PAUSE_BOUND} actions"
    lines = export_lines(service.store, table.game_id)
    service.store.close()
    return lines, paused


@pytest.mark.parametrize("checkpoint_ms", [records.CHECKPOINT_MS, 1e9])
def test_an_order_that_needs_the_state_it_found_is_replayed_from_a_checkpoint(
        paused_record: tuple[list[dict[str, object]], int], monkeypatch: pytest.MonkeyPatch,
        checkpoint_ms: float) -> None:
    """A replay applies orders in place; a roll that pauses for the Advantage (9.4) needs
    the state as the order found it: the replay goes back to its last checkpoint and
    replays the actions since with copies (here, once from a checkpoint at most a few
    actions back, and once from the start of the game), and the record verifies."""
    monkeypatch.setattr(records, "CHECKPOINT_MS", checkpoint_ms)
    rewound: list[int] = []
    rewind = records.Replay._rewound

    def counted(self: records.Replay) -> object:
        rewound.append(len(self.since))
        return rewind(self)

    monkeypatch.setattr(records.Replay, "_rewound", counted)
    lines, paused = paused_record
    result = verify(lines)
    assert result.ok, result.problems
    assert len(rewound) == 1  # the paused action's roll
    if checkpoint_ms > 1000:
        assert rewound[0] > paused - 10  # every order since the start, again
