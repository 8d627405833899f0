"""Dice nobody can predict or steer, records that cannot be forged, keys per actor."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from adjudicator.kernel.dice import commitment, derive_values, effective_seed
from bot.cli import app
from bot.records import entropy_digest, export_lines, import_record, verify, write_record
from bot.service import GameService, InvalidOperation, PermissionDenied
from tests.bot.test_service_support import (
    BLUE,
    GM_ACTOR,
    RED,
    STRANGER,
    make_service,
    new_game,
    play,
    to_attack,
    win_for_red,
)


@pytest.fixture
def service(tmp_path: Path) -> GameService:
    seeds = iter([b"\x01" * 32, b"\x02" * 32, b"\x03" * 32])
    return make_service(tmp_path / "u.db", seed_source=lambda n: next(seeds))


def predicted(seed_hex: str, entropy: list[str], dice_id: str, branch: int, index: int,
              label: str) -> tuple[int, ...]:
    return derive_values(effective_seed(bytes.fromhex(seed_hex), entropy), dice_id, branch,
                         index, label, 2, 6)


def test_a_reopened_game_goes_on_with_a_new_committed_seed(service: GameService) -> None:
    game_id = new_game(service)
    win_for_red(service, game_id)
    old = service.info(game_id)
    seed = service.reveal_seed(game_id, STRANGER)  # anyone, once the game is over
    rows = service.store.actions(game_id)
    back_to = next(r["seq"] for r in rows if r["text"] == "move b1 4")
    reopened = service.rollback(game_id, GM_ACTOR, back_to, "a misread die")
    assert reopened.ok
    info = service.info(game_id)
    assert info.status == "active" and info.commitment != old.commitment
    assert f"new dice (the old seed was revealed at its end): commitment {info.commitment}" \
        in reopened.messages["public"].text
    with pytest.raises(PermissionDenied):
        service.reveal_seed(game_id, GM_ACTOR)  # the new seed is secret again
    # The next roll comes from the new seed (so the old one, public now, tells nothing).
    attack = service.submit(game_id, RED, "attack r2 4")
    stored = service.store.action(game_id, attack.seqs[0])
    assert stored is not None
    (roll,) = json.loads(stored["rolls"])
    assert not roll.get("forced")
    assert tuple(roll["values"]) == predicted("02" * 32, [], game_id, roll["branch"],
                                              roll["index"], "red attack DR")
    # The record keeps both seeds: the old one revealed, the new one committed; once the
    # game is over again both verify.
    lines = export_lines(service.store, game_id)
    assert lines[0]["past_seeds"] == [{"from_branch": 0, "commitment": old.commitment,
                                       "seed": seed}]
    assert "seed" not in lines[0] and lines[0]["commitment"] == info.commitment
    assert verify(lines, "02" * 32).ok and verify(lines, "02" * 32).rolls_checked >= 2
    assert not verify(lines, "01" * 32).ok
    other = make_service(service.store.path.parent / "o.db")
    copy_id = import_record(other.store, lines, "02" * 32)
    assert other.load_state(copy_id).state_hash() == service.load_state(game_id).state_hash()


def test_entropy_is_committed_before_anyone_can_see_it_or_the_seed(
        service: GameService) -> None:
    info = service.create_game(GM_ACTOR, "tests.kernel.duel:DuelGame")
    service.seat(info.id, GM_ACTOR, "red", RED)
    service.seat(info.id, GM_ACTOR, "blue", BLUE)
    digest = service.add_entropy(info.id, RED, "red's lucky words")
    assert digest == entropy_digest("red's lucky words")
    assert service.info(info.id, STRANGER).entropy == [digest]
    during = export_lines(service.store, info.id)[0]
    assert during["entropy"] == [] and during["entropy_commitments"] == [digest]
    with pytest.raises(PermissionDenied):
        service.reveal_seed(info.id, GM_ACTOR)
    service.start(info.id, GM_ACTOR)
    with pytest.raises(InvalidOperation):
        service.add_entropy(info.id, BLUE, "too late")
    lines = export_lines(service.store, info.id)
    assert lines[0]["entropy"] == ["red's lucky words"]
    forged = copy.deepcopy(lines)
    forged[0]["entropy"] = ["something chosen later"]
    assert not verify(forged).ok and "committed" in " ".join(verify(forged).problems)


def finished_record(service: GameService) -> tuple[list[dict[str, Any]], str]:
    game_id = new_game(service)
    to_attack(service, game_id)
    service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6, 6]}, "hit")
    play(service, game_id, (RED, "attack r2 4"), (BLUE, "decide yield"))
    for _ in range(8):  # unforced attacks until the game ends or we have enough rolls
        state = service.load_state(game_id)
        rules = service.rules(game_id)
        side = rules.acting_side(state)
        if side is None:
            break
        legal = rules.legal_orders(state, side)
        order = next((o for o in legal if o.startswith(("attack", "decide"))),
                     "move b2 4" if "move b2 4" in legal else "pass")
        play(service, game_id, (RED if side == "red" else BLUE, order))
    assert sum(len(item["rolls"]) for item in export_lines(service.store, game_id)[1:]) >= 3
    return export_lines(service.store, game_id), bytes(
        service.store.game(game_id)["server_seed"]).hex()  # type: ignore[index]


def same_total(values: list[int], sides: int) -> list[int] | None:
    """Other dice with the same total: reversed, or a double split (3+3 as 2+4); none for
    one die, 1+1 or 6+6."""
    if values != values[::-1]:
        return values[::-1]
    if len(values) > 1 and 1 < values[0] < sides:
        return [values[0] - 1, values[1] + 1, *values[2:]]
    return None


def test_verify_refuses_dice_marked_forced_without_an_override(service: GameService) -> None:
    lines, seed = finished_record(service)
    assert verify(lines, seed).ok
    forged = copy.deepcopy(lines)
    # An unforced roll given other dice of the same total (same state, same hashes), so
    # only the forced mark can make them pass.
    target, roll, other = next(
        (item, roll, other) for item in forged[1:] for roll in item["rolls"]
        if not roll.get("forced")
        and (other := same_total(roll["values"], int(roll.get("sides", 6)))))
    roll["values"] = other
    roll["forced"] = list(range(len(roll["values"])))
    for event in target["events"]:
        if event["kind"] == "roll" and event["data"]["index"] == roll["index"]:
            event["data"]["values"] = roll["values"]
            event["text"] = (f"{roll['label']}: {' + '.join(map(str, roll['values']))} = "
                             f"{sum(roll['values'])}")
    result = verify(forged, seed)
    assert not result.ok
    assert any("force-dice" in problem for problem in result.problems), result.problems
    # The same forgery given to 'umpire verify': refused, saying why, exit status 1.
    path = service.store.path.parent / "forged.jsonl"
    write_record(forged, path)
    cli = CliRunner().invoke(app, ["verify", str(path), "--seed", seed])
    assert cli.exit_code == 1 and "NOT verified" in cli.output, cli.output
    assert "force-dice" in cli.output, cli.output
    write_record(lines, path)
    assert CliRunner().invoke(app, ["verify", str(path), "--seed", seed]).exit_code == 0


def test_verify_checks_event_texts(service: GameService) -> None:
    lines, seed = finished_record(service)
    forged = copy.deepcopy(lines)
    target = next(item for item in forged[1:] if any(e["kind"] == "attack"
                                                      for e in item["events"]))
    event = next(e for e in target["events"] if e["kind"] == "attack")
    event["text"] = event["text"].replace("hit", "MISS").replace("miss", "HIT")
    result = verify(forged, seed)
    assert not result.ok and any("events" in p for p in result.problems), result.problems


def test_idempotency_keys_are_scoped_per_actor_and_request(service: GameService) -> None:
    game_id = new_game(service)
    first = service.submit(game_id, RED, "trap 1", idempotency_key="k1")
    assert first.ok
    again = service.submit(game_id, RED, "trap 1", idempotency_key="k1")
    assert again.duplicate and again.seqs == first.seqs
    other_order = service.submit(game_id, RED, "trap 2", idempotency_key="k1")
    assert other_order.status == "refused" and other_order.error_rule == "idempotency"
    # Blue's own "k1" is another key: blue receives nothing of red's result.
    blue = service.submit(game_id, BLUE, "pass", idempotency_key="k1")
    assert not blue.duplicate and "trap" not in blue.model_dump_json()
    # The GM's override with a player's key is applied, not dropped.
    forced = service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [3]}, "t",
                              idempotency_key="k1")
    assert forced.ok and not forced.duplicate
    assert service.store.count_actions(game_id) == 2


def test_commitment_is_what_the_seed_hashes_to(service: GameService) -> None:
    game_id = new_game(service)
    assert service.info(game_id).commitment == commitment(b"\x01" * 32)
