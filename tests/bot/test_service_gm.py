"""GM overrides, rollback and roll-forward, player undo, deadlines, records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.records import RecordError, export_lines, import_record, verify, write_record
from bot.service import GameService, InvalidOperation, PermissionDenied
from tests.bot.test_service_support import (
    BLUE,
    EDITABLE,
    GM_ACTOR,
    RED,
    Clock,
    make_service,
    new_game,
    play,
    to_attack,
    win_for_red,
)
from tests.dbs import NewDb


@pytest.fixture
def service(db_url: str) -> GameService:
    return make_service(db_url, seed_source=lambda n: b"\x05" * n)


def count(service: GameService, game_id: str) -> int:
    return service.store.count_actions(game_id)


# ---- overrides --------------------------------------------------------------------------

def test_forced_dice_are_used_logged_and_public_notice_hides_values(
        service: GameService) -> None:
    game_id = new_game(service)
    to_attack(service, game_id)
    notice = service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [1, 1]},
                              "table knocked over")
    assert notice.ok
    public = notice.messages["public"].text
    assert "table knocked over" in public and "1, 1" not in public
    assert "forced die values: 1, 1" in notice.messages["gm"].text
    attack = service.submit(game_id, RED, "attack r2 4")
    rolls = json.loads(service.store.action(game_id, attack.seqs[0])["rolls"])  # type: ignore[index]
    assert rolls[0]["values"] == [1, 1] and rolls[0]["forced"] == [0, 1]
    assert "miss" in attack.messages["public"].text


def test_answer_decision_and_set_standing(service: GameService) -> None:
    game_id = new_game(service)
    to_attack(service, game_id)
    service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6, 6]}, "hit")
    service.submit(game_id, RED, "attack r2 4")
    bad = service.override(game_id, GM_ACTOR, {"op": "answer-decision", "order": "pass"}, "stuck")
    assert bad.status == "refused" and "decide yield" in bad.legal
    fixed = service.override(game_id, GM_ACTOR, {"op": "answer-decision", "order": "decide yield"},
                             "blue is away for a week")
    assert fixed.ok and fixed.pending_side is None
    standing = service.override(game_id, GM_ACTOR, {"op": "set-standing", "side": "blue",
                                                    "kind": "casualty", "policy": "lose"}, "asked")
    assert standing.ok
    assert service.view(game_id, BLUE).standing == {"casualty": "lose"}
    assert "casualty" not in standing.messages["public"].text
    nonsense = service.override(game_id, GM_ACTOR, {"op": "set-standing", "side": "blue",
                                                    "kind": "casualty", "policy": "flee"}, "x")
    assert nonsense.status == "refused" and "unknown policy" in str(nonsense.error)


def test_game_specific_edits_go_through_the_hook(new_db: NewDb) -> None:
    service = make_service(new_db("u"))
    game_id = new_game(service, EDITABLE)
    play(service, game_id, (RED, "trap 1"))
    before = count(service, game_id)
    for op, message in (
        ({"op": "edit", "name": "move-unit", "args": {"unit": "b1", "cell": "9"}}, "no cell"),
        ({"op": "edit", "name": "move-unit", "args": {"unit": "zz", "cell": "3"}}, "no unit"),
        ({"op": "edit", "name": "move-unit", "args": {"unit": "b1"}}, "cell: Field required"),
        ({"op": "edit", "name": "teleport", "args": {}}, "unknown edit"),
        ({"op": "explode"}, "not a valid override"),
    ):
        result = service.override(game_id, GM_ACTOR, op, "testing")
        assert result.status == "refused" and message in str(result.error), result.error
    assert count(service, game_id) == before
    moved = service.override(game_id, GM_ACTOR, {"op": "edit", "name": "move-unit",
                                                 "args": {"unit": "b1", "cell": "3"}}, "misplaced")
    assert moved.ok and "b1 placed in Mill" in moved.messages["public"].text
    units = service.view(game_id, GM_ACTOR).model_dump()["units"]
    assert {"id": "b1", "side": "blue", "cell": "3", "strength": 3} in units
    plain = make_service(new_db("v"))
    other = new_game(plain)
    refused = plain.override(other, GM_ACTOR, {"op": "edit", "name": "move-unit",
                                               "args": {"unit": "b1", "cell": "3"}}, "x")
    assert refused.status == "refused" and "has no GM edits" in str(refused.error)


def test_overrides_need_a_gm_and_a_reason(service: GameService) -> None:
    game_id = new_game(service)
    before = count(service, game_id)
    for actor in (RED, BLUE):
        result = service.override(game_id, actor, {"op": "force-dice", "values": [6]}, "x")
        assert result.status == "refused" and "only the game's GM" in str(result.error)
    no_reason = service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6]}, " ")
    assert no_reason.status == "refused" and "reason" in str(no_reason.error)
    assert count(service, game_id) == before


# ---- rollback ---------------------------------------------------------------------------

def test_rollback_preview_rollback_and_roll_forward(service: GameService) -> None:
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"), (BLUE, "pass"),
         (RED, "move r1 2"), (BLUE, "pass"))
    preview = service.rollback_preview(game_id, GM_ACTOR, 2)
    assert preview.reverted == ["3 order blue pass", "4 order red move r1 2", "5 order blue pass"]
    assert any("units" in line and '"1"' in line for line in preview.changes)
    with pytest.raises(PermissionDenied):
        service.rollback_preview(game_id, RED, 2)
    result = service.rollback(game_id, GM_ACTOR, 2, "wrong unit")
    assert result.ok and "rolled the game back to action 2" in result.messages["public"].text
    info = service.info(game_id)
    assert info.to_act == "blue" and info.branch == 1
    rows = service.store.actions(game_id)
    assert [r["reverted_by"] for r in rows] == [None, None, 6, 6, 6, None]
    assert count(service, game_id) == 6  # nothing deleted
    with pytest.raises(Exception, match="append-only"):
        service.store.execute("DELETE FROM actions WHERE game_id = ?", [game_id])
    report = service.roll_forward(game_id, GM_ACTOR)
    assert report.reapplied == ["3 order blue pass", "4 order red move r1 2",
                                "5 order blue pass"]
    assert service.load_state(game_id).state_hash() == rows[4]["state_hash"]


def test_roll_forward_stops_at_the_first_order_no_longer_legal(service: GameService) -> None:
    game_id = new_game(service, EDITABLE)
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"), (BLUE, "pass"),
         (RED, "move r2 2"), (BLUE, "pass"))
    service.rollback(game_id, GM_ACTOR, 2, "redo")
    for unit, cell in (("b1", "4"), ("r2", "5")):
        service.override(game_id, GM_ACTOR, {"op": "edit", "name": "move-unit",
                                             "args": {"unit": unit, "cell": cell}}, "misplaced")
    report = service.roll_forward(game_id, GM_ACTOR, rollback_seq=6)
    assert report.reapplied == ["3 order blue pass"]
    assert report.stopped_at == 4 and "not adjacent" in str(report.error)


def test_rollback_refuses_bad_targets(service: GameService) -> None:
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "pass"))
    assert "between 0 and 1" in str(service.rollback(game_id, GM_ACTOR, 5, "x").error)
    service.rollback(game_id, GM_ACTOR, 1, "x")
    assert "not part of the current game" in str(service.rollback(game_id, GM_ACTOR, 2, "x").error)
    assert service.rollback(game_id, RED, 0, "x").error == "only the game's GM may roll back"
    with pytest.raises(InvalidOperation):
        service.roll_forward(game_id, GM_ACTOR, rollback_seq=1)


# ---- undo -------------------------------------------------------------------------------

def test_undo_own_quiet_order(service: GameService) -> None:
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"))
    assert "not the game's last action" in str(service.undo(game_id, BLUE).error)
    undone = service.undo(game_id, RED)
    assert undone.ok and "red takes back: move r2 3" in undone.messages["public"].text
    assert service.info(game_id).to_act == "red"
    play(service, game_id, (RED, "move r2 3"), (BLUE, "pass"))
    assert "not the game's last action" in str(service.undo(game_id, RED).error)


def test_undo_refused_after_dice_or_secrets(service: GameService) -> None:
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"))
    assert "revealed information" not in str(service.undo(game_id, RED).error)  # red-only: ok
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"), (BLUE, "pass"))
    service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [1, 1]}, "t")
    play(service, game_id, (RED, "attack r2 4"))
    assert "dice were rolled" in str(service.undo(game_id, RED).error)


# ---- deadlines --------------------------------------------------------------------------

def test_deadline_reminders_expiry_and_outage_guard(new_db: NewDb) -> None:
    clock = Clock()
    service = make_service(new_db("u"), clock=clock, outage_after=600)
    game_id = new_game(service, EDITABLE, deadline_seconds=3600, reminders=(0.5, 0.9))
    assert service.tick() == []
    clock.advance(1900)
    reminders = service.tick()
    assert [(n.kind, n.audience) for n in reminders] == [("reminder", "red")]
    assert service.tick() == []  # sent once
    play(service, game_id, (RED, "trap 1"), (RED, "pass"))  # blue to act: clock restarts
    clock.advance(3599)
    assert [n.kind for n in service.tick()] == ["reminder", "reminder"]
    clock.advance(2)
    expired = service.tick()
    assert [n.kind for n in expired] == ["expired"]
    assert "blue's deadline passed: Umpire plays pass" in expired[0].text
    last = service.store.actions(game_id)[-1]
    assert last["kind"] == "system" and last["side"] == "blue" and last["actor"] == "system"
    # The service is down for a day: red's deadline expired meanwhile. It is extended.
    clock.advance(86_400)
    extended = service.tick()
    assert [n.kind for n in extended] == ["extended"]
    assert service.store.actions(game_id)[-1]["seq"] == last["seq"]
    assert service.info(game_id).deadline_at == pytest.approx(clock.now + 3600)
    later = []
    for _ in range(13):  # ticking normally again, every 5 minutes
        clock.advance(300)
        later += [n.kind for n in service.tick()]
    assert later == ["reminder", "reminder", "expired"]


def test_deadline_answers_a_pending_decision_with_its_default(new_db: NewDb) -> None:
    clock = Clock()
    service = make_service(new_db("u"), clock=clock)
    game_id = new_game(service, deadline_seconds=100, reminders=(0.5,))
    to_attack(service, game_id)
    service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6, 6]}, "hit")
    play(service, game_id, (RED, "attack r2 4"))
    service.tick()
    clock.advance(101)
    notices = service.tick()
    # The public notice says a decision was answered, not which option (options are the
    # owing side's to read) nor how (by a standing order or by default: blue's secret); the
    # log keeps the answer for blue and the GM.
    public = [n.text for n in notices if n.audience == "public"]
    assert public == ["blue's deadline passed: Umpire answers blue's casualty decision"]
    assert not any("decide lose" in n.text or "default" in n.text for n in notices)
    told = service.log(game_id, BLUE, 1)[0].lines
    assert "blue's deadline passed: Umpire plays decide lose (by default)" in told
    assert service.store.actions(game_id)[-1]["text"] == "decide lose"
    assert service.view(game_id, GM_ACTOR).pending is None


# ---- records ----------------------------------------------------------------------------

def test_export_verify_import_round_trip(service: GameService, tmp_path: Path,
                                         new_db: NewDb) -> None:
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"), (BLUE, "pass"))
    service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6]}, "t")
    play(service, game_id, (RED, "attack r2 4"), (BLUE, "decide yield"))
    service.rollback(game_id, GM_ACTOR, 4, "again")
    play(service, game_id, (RED, "attack r2 4"))
    lines = export_lines(service.store, game_id)
    assert lines[0]["commitment"] == service.info(game_id).commitment and "seed" not in lines[0]
    assert verify(lines).ok
    seed = bytes(service.store.game(game_id)["server_seed"]).hex()  # type: ignore[index]
    checked = verify(lines, seed)  # (the operator's copy: nobody may see it during play)
    assert checked.ok and checked.rolls_checked == 2 and checked.rolls_forced == 2
    assert not verify(lines, "00" * 32).ok
    tampered = [dict(line) for line in lines]
    # The unforced second die changed: whatever the seed (the game id is random), the
    # recorded value now differs from the one the seed gives.
    roll = tampered[5]["rolls"][0]
    changed = [roll["values"][0], roll["values"][1] % 6 + 1]
    tampered[5]["rolls"] = [{**roll, "values": changed}]
    assert not verify(tampered, seed).ok
    path = tmp_path / "game.jsonl"
    write_record(lines, path)
    other = make_service(new_db("other"))
    new_id = import_record(other.store, lines, seed)
    assert other.load_state(new_id).state_hash() == service.load_state(game_id).state_hash()
    assert other.info(new_id).status == "active"
    assert other.submit(new_id, BLUE, "decide lose").ok
    third = new_db("third")
    archived = import_record(make_service(third).store, lines)
    assert make_service(third).info(archived).status == "archived"
    with pytest.raises(RecordError):
        import_record(other.store, tampered, seed)


def test_cli_export_and_verify(service: GameService, db_url: str, tmp_path: Path,
                               new_db: NewDb) -> None:
    game_id = new_game(service)
    win_for_red(service, game_id)
    runner = CliRunner()
    out = tmp_path / "r.jsonl"
    result = runner.invoke(app, ["export", game_id, "--db", db_url,
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["verify", str(out)])
    assert result.exit_code == 0 and "verified" in result.output, result.output
    assert "rolls checked against the seed" in result.output  # finished: seed in the record
    result = runner.invoke(app, ["verify", str(out), "--seed", "ab" * 32])
    assert result.exit_code == 1 and "does not match" in result.output
    result = runner.invoke(app, ["import", str(out), "--db", new_db("n")])
    assert result.exit_code == 0 and "imported as game" in result.output


def test_bench_store_runs_on_a_small_game() -> None:
    result = CliRunner().invoke(app, ["bench", "store", "--actions", "30"])
    assert result.exit_code == 0, result.output
    for line in ("bytes per action", "load / resume", "rollback of the last 2-4 actions",
                 "undo of an order just given", "FIGURE bytes per action at 110 actions"):
        assert line in result.output
