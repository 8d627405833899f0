"""GameService: pause/resume, unseating, legal orders, the log and the export as each
audience may read them, frontend bindings, and multi-line submissions against the kernel."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from adjudicator.kernel.dice import CommittedDice, effective_seed
from adjudicator.registry import load_game
from bot.records import import_record, verify
from bot.service import (
    Actor,
    GameService,
    InvalidOperation,
    PermissionDenied,
    ServiceError,
)
from tests.bot.duel_variants import PACKED
from tests.bot.test_service_support import (
    BLUE,
    DUEL,
    EDITABLE,
    GM_ACTOR,
    RED,
    STRANGER,
    Clock,
    make_service,
    new_game,
    play,
    to_attack,
    win_for_red,
)
from tests.dbs import NewDb

SEED = bytes(range(32))


@pytest.fixture
def service(db_url: str) -> GameService:
    return make_service(db_url, seed_source=lambda n: SEED[:n])


# ---- pause and resume ---------------------------------------------------------------------

def test_pause_refuses_orders_and_decisions_and_is_logged(service: GameService) -> None:
    game_id = new_game(service)
    to_attack(service, game_id)
    service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6, 6]}, "hit")
    play(service, game_id, (RED, "attack r2 4"))  # blue owes a casualty decision
    assert not service.pause(game_id, RED, "tea").ok
    assert not service.pause(game_id, GM_ACTOR, "  ").ok
    paused = service.pause(game_id, GM_ACTOR, "blue's player is travelling")
    assert paused.status == "applied"
    notice = paused.messages["public"].lines
    assert notice == ["The GM paused the game — reason: blue's player is travelling. Orders "
                      "and decisions wait until the GM resumes it."]
    info = service.info(game_id)
    assert info.paused and info.pause_reason == "blue's player is travelling"
    assert info.paused_by == GM_ACTOR.label
    last = service.store.actions(game_id)[-1]
    assert last["kind"] == "pause" and last["actor"] == GM_ACTOR.label
    assert json.loads(last["payload"]) == {"reason": "blue's player is travelling"}

    head = info.head_seq
    for actor, text in ((BLUE, "decide lose"), (RED, "pass"), (GM_ACTOR, "decide lose")):
        refused = service.submit(game_id, actor, text)
        assert refused.status == "refused" and refused.error_rule == "paused", text
        assert "paused by the GM (blue's player is travelling)" in str(refused.error)
        assert "wait until the GM resumes" in str(refused.error)
    assert service.undo(game_id, RED).error_rule == "paused"
    assert service.legal_orders(game_id, BLUE) == []
    assert not service.pause(game_id, GM_ACTOR, "again").ok  # already paused
    assert service.info(game_id).head_seq == head

    resumed = service.resume(game_id, GM_ACTOR, "back home")
    assert resumed.ok and "The GM resumed the game — reason: back home." in \
        resumed.messages["public"].lines[0]
    assert not service.resume(game_id, GM_ACTOR, "twice").ok
    assert service.info(game_id).status == "active" and service.info(game_id).paused_at is None
    assert service.legal_orders(game_id, BLUE) == ["decide yield", "decide lose"]
    play(service, game_id, (BLUE, "decide lose"))
    kinds = [r["kind"] for r in service.store.actions(game_id)]
    assert kinds[-3:] == ["pause", "resume", "decision"]
    assert verify(service.export(game_id, GM_ACTOR).lines).ok  # pauses replay as no-ops


def test_deadlines_freeze_while_paused_and_extend_on_resume(new_db: NewDb) -> None:
    clock = Clock()
    service = make_service(new_db("u"), clock=clock)
    game_id = new_game(service, EDITABLE, deadline_seconds=3600, reminders=(0.5,))
    play(service, game_id, (RED, "trap 1"))  # still red's turn: the clock runs on
    start_deadline = service.info(game_id).deadline_at
    assert start_deadline is not None and start_deadline == pytest.approx(clock.now + 3600)
    clock.advance(1000)
    paused = service.pause(game_id, GM_ACTOR, "server move")
    assert "The deadline clock is stopped." in paused.messages["public"].lines[0]
    clock.advance(10_000)  # far past the deadline and the reminder: nothing happens
    assert service.tick() == []
    assert service.store.actions(game_id)[-1]["kind"] == "pause"
    resumed = service.resume(game_id, GM_ACTOR, "done")
    assert "extended by 2 h 46 min" in resumed.messages["public"].lines[0]
    info = service.info(game_id)
    assert info.deadline_at == pytest.approx(start_deadline + 10_000)
    clock.advance(799)
    assert service.tick() == []  # 1,799 s of play so far: the half-way reminder is not due
    clock.advance(2)
    assert [n.kind for n in service.tick()] == ["reminder"]
    later = []
    for _ in range(6):  # ticking every 5 minutes: 3,601 s of play in all
        clock.advance(300)
        later += [n.kind for n in service.tick()]
    assert later == ["expired"]


def test_setting_a_deadline_while_paused_starts_it_on_resume(new_db: NewDb) -> None:
    clock = Clock()
    service = make_service(new_db("u"), clock=clock)
    game_id = new_game(service)
    service.pause(game_id, GM_ACTOR, "waiting for a player")
    clock.advance(500)
    service.set_deadline(game_id, GM_ACTOR, 600, reminders=(0.5,))
    clock.advance(5000)
    service.resume(game_id, GM_ACTOR, "here now")
    assert service.info(game_id).deadline_at == pytest.approx(clock.now + 600)


def test_rollback_while_paused_keeps_the_game_paused(service: GameService) -> None:
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"))
    service.pause(game_id, GM_ACTOR, "dispute")
    rolled = service.rollback(game_id, GM_ACTOR, 1, "r2 moved by mistake")
    assert rolled.ok and service.info(game_id).status == "paused"
    reverted = [r["kind"] for r in service.store.actions(game_id) if r["reverted_by"]]
    assert reverted == ["order", "pause"]
    assert service.submit(game_id, RED, "move r2 3").error_rule == "paused"
    service.resume(game_id, GM_ACTOR, "settled")
    play(service, game_id, (RED, "move r1 2"))


def test_pause_needs_a_game_in_play(service: GameService) -> None:
    game_id = new_game(service, start=False)
    assert "only a game in play" in str(service.pause(game_id, GM_ACTOR, "x").error)
    finished = new_game(service)
    win_for_red(service, finished)
    assert not service.pause(finished, GM_ACTOR, "x").ok


# ---- seats ------------------------------------------------------------------------------

def test_unseat_and_replace_a_player(service: GameService) -> None:
    game_id = new_game(service)
    newcomer = Actor.discord("7")
    with pytest.raises(PermissionDenied, match="GM"):
        service.unseat(game_id, RED, "blue", "I want to")
    with pytest.raises(InvalidOperation, match="reason"):
        service.unseat(game_id, GM_ACTOR, "blue", " ")
    with pytest.raises(InvalidOperation, match="unknown side"):
        service.unseat(game_id, GM_ACTOR, "green", "x")
    info = service.unseat(game_id, GM_ACTOR, "blue", "left the server")
    assert [s.side for s in info.seats if s.role == "player"] == ["red"]
    with pytest.raises(InvalidOperation, match="no player is seated for blue"):
        service.unseat(game_id, GM_ACTOR, "blue", "again")
    assert service.games_for(BLUE) == []
    service.seat(game_id, GM_ACTOR, "blue", newcomer)
    play(service, game_id, (RED, "trap 1"), (RED, "pass"))
    assert service.submit(game_id, BLUE, "pass").error_rule == "permission"
    play(service, game_id, (newcomer, "pass"))
    # Nothing is deleted: the closed seat stays, with who closed it and why.
    history = service.store.seat_history(game_id)
    closed = [s for s in history if s["removed"] is not None]
    assert [(s["email"], s["removed_by"], s["removed_reason"]) for s in closed] == [
        ("blue@example.org", GM_ACTOR.label, "left the server")]
    with pytest.raises(Exception, match="never deleted"):
        service.store.execute("DELETE FROM seats WHERE game_id = ?", [game_id])
    record = service.export(game_id, GM_ACTOR).lines
    assert record[0]["closed_seats"][0]["removed_reason"] == "left the server"
    assert verify(record).ok


def test_unseat_a_player_or_a_gm_by_identity(service: GameService) -> None:
    game_id = new_game(service)
    service.unseat(game_id, GM_ACTOR, RED, "swap")
    assert all(s.side != "red" for s in service.info(game_id).seats)
    with pytest.raises(InvalidOperation, match="holds no player seat"):
        service.unseat(game_id, GM_ACTOR, STRANGER, "x")
    with pytest.raises(InvalidOperation, match="at least one GM"):
        service.unseat(game_id, GM_ACTOR, GM_ACTOR, "x", role="gm")
    second = Actor.discord("55")
    service.seat(game_id, GM_ACTOR, None, second, role="gm")
    service.unseat(game_id, second, GM_ACTOR, "handing over", role="gm")
    assert [s.discord_id for s in service.info(game_id).seats if s.role == "gm"] == ["55"]


# ---- legal orders --------------------------------------------------------------------------

def test_legal_orders_by_seat(service: GameService) -> None:
    game_id = new_game(service)
    assert service.legal_orders(game_id, RED)[:2] == ["trap 1", "trap 2"]
    assert service.legal_orders(game_id, BLUE) == []  # not blue's turn
    assert service.legal_orders(game_id, GM_ACTOR) == service.legal_orders(game_id, RED)
    assert service.legal_orders(game_id, GM_ACTOR, "blue") == []
    with pytest.raises(PermissionDenied, match="no seat for red"):
        service.legal_orders(game_id, BLUE, "red")
    with pytest.raises(PermissionDenied, match="not seated"):
        service.legal_orders(game_id, STRANGER)
    with pytest.raises(InvalidOperation, match="unknown side"):
        service.legal_orders(game_id, GM_ACTOR, "green")
    play(service, game_id, (RED, "trap 1"), (RED, "pass"))
    assert service.legal_orders(game_id, BLUE) == ["pass", "move b1 4", "move b2 3", "move b2 5"]


def test_legal_orders_come_from_the_games_own_data_pack(service: GameService,
                                                        tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "start.json").write_text('{"b2": "3"}', encoding="utf-8")
    packed = service.create_game(GM_ACTOR, PACKED, pack=pack).id
    plain = service.create_game(GM_ACTOR, PACKED).id
    for game_id in (packed, plain):
        service.seat(game_id, GM_ACTOR, "red", RED)
        service.seat(game_id, GM_ACTOR, "blue", BLUE)
        service.start(game_id, GM_ACTOR)
        play(service, game_id, (RED, "trap 5"))
    assert service.rules(packed).pack == pack
    assert "attack r2 3" in service.legal_orders(packed, RED)
    assert "attack r2 3" not in service.legal_orders(plain, RED)


def test_a_pack_changed_after_creation_is_refused_until_restored(service: GameService,
                                                                 tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "start.json").write_text('{"b2": "3"}', encoding="utf-8")
    table = pack / "table.toml"
    table.write_text("odds = 1\n", encoding="utf-8")
    game_id = service.create_game(GM_ACTOR, PACKED, pack=pack).id
    service.seat(game_id, GM_ACTOR, "red", RED)
    service.seat(game_id, GM_ACTOR, "blue", BLUE)
    service.start(game_id, GM_ACTOR)
    assert service.legal_orders(game_id, RED)
    stamp = table.stat().st_mtime_ns
    table.write_text("odds = 2\n", encoding="utf-8")  # same size: only content and time
    os.utime(table, ns=(stamp + 10**9, stamp + 10**9))
    with pytest.raises(ServiceError, match="changed since game"):
        service.legal_orders(game_id, RED)
    assert service.submit(game_id, RED, "trap 5").error_rule == "service"
    table.write_text("odds = 1\n", encoding="utf-8")
    assert service.legal_orders(game_id, RED)
    (pack / "extra.toml").write_text("", encoding="utf-8")
    with pytest.raises(ServiceError, match="changed since game"):
        service.rules(game_id)


# ---- the log as each audience reads it -----------------------------------------------------

def log_texts(service: GameService, game_id: str, actor: Actor,
              audience: str | None = None) -> list[tuple[str, str | None, bool]]:
    return [(e.kind, e.text, e.withheld)
            for e in service.log(game_id, actor, 20, audience=audience)]


def test_log_shows_secret_orders_only_to_their_side_and_the_gm(service: GameService) -> None:
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 3"), (RED, "pass"), (BLUE, "standing casualty lose"))
    service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6]}, "trap test")
    play(service, game_id, (BLUE, "move b2 3"))
    red = log_texts(service, game_id, RED)
    blue = log_texts(service, game_id, BLUE)
    public = log_texts(service, game_id, STRANGER)
    gm = log_texts(service, game_id, GM_ACTOR)
    assert red[0] == ("order", "trap 3", False) and gm[0] == ("order", "trap 3", False)
    assert blue[0] == ("order", None, True) and public[0] == ("order", None, True)
    # Standing orders are private to their side.
    assert blue[2] == ("order", "standing casualty lose", False)
    assert red[2] == ("order", None, True)
    # Override details only for the GM; everyone reads the public notice.
    assert gm[3] == ("gm-override", 'force-dice values=[6] (trap test)', False)
    assert public[3] == ("gm-override", None, False)
    entries = service.log(game_id, STRANGER, 20)
    assert "the GM" in entries[3].lines[0] and "6" not in entries[3].lines[0]
    # Events are filtered by audience: the trap's placement event is red's.
    assert "red sets the trap in Mill" in service.log(game_id, RED, 20)[0].lines
    for entry in entries[:3]:
        assert not any("Mill" in line for line in entry.lines), entry
    assert entries[0].summary() == "#1 order red: (secret) — red has placed a trap"
    # A GM may read narrower views; a player may not read the GM's.
    assert log_texts(service, game_id, GM_ACTOR, "blue") == blue
    with pytest.raises(PermissionDenied):
        service.log(game_id, RED, 5, audience="gm")
    assert [e.seq for e in service.log(game_id, RED, 2)] == [4, 5]


def test_log_hides_decision_answers_from_the_other_side(service: GameService) -> None:
    game_id = new_game(service)
    to_attack(service, game_id)
    service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6, 6]}, "hit")
    play(service, game_id, (RED, "attack r2 4"), (BLUE, "decide yield"))
    last = service.log(game_id, RED, 1)[0]
    assert (last.kind, last.text, last.withheld) == ("decision", None, True)
    assert last.lines == ["b2 retreats to Wood"]
    assert service.log(game_id, BLUE, 1)[0].text == "decide yield"
    service.rollback(game_id, GM_ACTOR, 2, "replay it")
    assert [e.kind for e in service.log(game_id, RED, 2)] == ["order", "rollback"]
    with_reverted = service.log(game_id, RED, 3, include_reverted=True)
    assert with_reverted[0].reverted_by == 7 and "reverted by #7" in with_reverted[0].summary()


def test_the_secret_order_rule_of_each_game() -> None:
    tanks = load_game("tanks")
    assert tanks.is_secret(tanks.parse("hide pak75-1 0101"))
    assert tanks.is_secret(tanks.parse("mine 0505"))
    assert not tanks.is_secret(tanks.parse("place pak75-1 0101"))
    assert not tanks.is_secret(tanks.parse("done"))
    duel = load_game(DUEL)
    assert duel.is_secret(duel.parse("trap 3"))
    assert not duel.is_secret(duel.parse("move r2 3"))
    assert duel.is_secret(duel.parse("standing casualty lose"))
    stalingrad = load_game("stalingrad")
    assert not stalingrad.is_secret(stalingrad.parse("rubble"))
    assert stalingrad.is_secret(stalingrad.parse("standing casualties hold"))


# ---- export --------------------------------------------------------------------------------

def test_export_full_for_the_gm_redacted_for_players_in_play(service: GameService) -> None:
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 3"), (RED, "pass"))
    gm = service.export(game_id, GM_ACTOR)
    assert gm.full and gm.lines[0]["record"] == "umpire/1" and verify(gm.lines).ok
    assert "seed" not in gm.lines[0]
    blue = service.export(game_id, BLUE)
    assert not blue.full and blue.audience == "blue"
    header, first = blue.lines[0], blue.lines[1]
    assert header["record"] == "umpire/1-view" and header["audience"] == "blue"
    assert "seed" not in header and "entropy" not in header
    assert all("email" not in seat for seat in header["seats"])
    text = blue.jsonl().decode()
    assert "state_hash" not in text and "Mill" not in text and "trap 3" not in text
    assert first["text"] is None and first["withheld"] is True
    red = service.export(game_id, RED)
    assert red.lines[1]["text"] == "trap 3" and "Mill" in red.jsonl().decode()
    public = service.export(game_id, STRANGER)
    assert public.audience == "public" and "Mill" not in public.jsonl().decode()
    checked = verify(blue.lines)
    assert not checked.ok and "cannot be verified" in checked.problems[0]
    # After the end anyone gets the full record, with the seed.
    over = new_game(service)
    win_for_red(service, over)
    done = service.export(over, BLUE)
    assert done.full and done.lines[0]["seed"] == SEED.hex() and verify(done.lines).ok


def test_export_and_import_keep_a_paused_game_paused(service: GameService,
                                                     new_db: NewDb) -> None:
    game_id = new_game(service)
    play(service, game_id, (RED, "trap 3"))
    service.pause(game_id, GM_ACTOR, "holiday")
    lines = service.export(game_id, GM_ACTOR).lines
    assert lines[0]["status"] == "paused" and lines[0]["pause_reason"] == "holiday"
    other = make_service(new_db("other"))
    copied = import_record(other.store, lines, SEED.hex())
    assert other.info(copied).paused and other.info(copied).pause_reason == "holiday"
    third = new_db("third")
    archived = import_record(make_service(third).store, lines)
    assert make_service(third).info(archived).status == "archived"


# ---- bindings ------------------------------------------------------------------------------

def test_find_by_binding(service: GameService) -> None:
    first = service.create_game(GM_ACTOR, DUEL, bindings={"discord_thread": "42",
                                                          "discord_channel": "9"})
    service.create_game(GM_ACTOR, DUEL, bindings={"discord_thread": "43"})
    found = service.find_by_binding("discord_thread", 42)
    assert found is not None and found.id == first.id
    assert service.find_by_binding("discord_thread", "44") is None
    assert service.find_by_binding("discord_channel", "42") is None
    assert service.find_by_binding("discord_channel", "9") == found


# ---- multi-line submissions against the kernel ---------------------------------------------

def test_multi_line_submission_matches_the_kernel_line_by_line(service: GameService) -> None:
    """The service applies and stores line by line; the state is the kernel's, each line
    applied in turn with the game's committed dice."""
    lines = ["standing advantage never", "rubble",
             "attack 23 fresh with g295:i/518 g295:ii/518 g295:iii/518 g295:pi295 "
             "g295:pzjg295 g:stug244"]
    text = "\n".join(lines)
    german, russian = Actor.discord("21"), Actor.discord("22")
    info = service.create_game(GM_ACTOR, "stalingrad", "historical")
    service.seat(info.id, GM_ACTOR, "german", german)
    service.seat(info.id, GM_ACTOR, "russian", russian)
    service.start(info.id, GM_ACTOR)
    result = service.submit(info.id, german, text)
    game = service.rules(info.id)
    dice = CommittedDice(effective_seed(SEED, []), info.id)
    state, rolls, applied = game.setup("historical"), [], []
    for line in lines:
        outcome = game.apply_text(state, "german", line, dice)
        state = outcome.state
        rolls.extend(outcome.rolls)
        applied.extend(outcome.applied)
    assert result.status == "applied" and result.applied == applied
    # The attack waits for the Russian's answer on his Artillery (15.3).
    assert state.pending is not None and state.pending.kind == "artillery"
    assert len(rolls) >= 8  # the Rubble drs
    rows = service.store.actions(info.id)
    assert [r["text"] for r in rows] == lines and result.seqs == [1, 2, 3]
    assert [roll for r in rows for roll in json.loads(r["rolls"])] == [
        roll.model_dump(mode="json") for roll in rolls]
    assert rows[-1]["state_hash"] == state.state_hash()
    assert service.load_state(info.id).state_hash() == state.state_hash()
