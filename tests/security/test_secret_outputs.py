"""Secrets in every output another audience reads: logs, exports, notices, captions, seats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from adjudicator.tanks.hidden import verify_commitment
from bot.cli import app
from bot.service import Actor, GameService
from tests.bot.test_service_support import (
    BLUE,
    GM_ACTOR,
    RED,
    STRANGER,
    Clock,
    make_service,
    new_game,
    play,
    win_for_red,
)

GERMAN = Actor.discord("11")
SOVIET = Actor.mail("soviet@example.org")


def tanks_game(service: GameService, scenario: str) -> str:
    info = service.create_game(GM_ACTOR, "tanks", scenario)
    service.seat(info.id, GM_ACTOR, "german", GERMAN)
    service.seat(info.id, GM_ACTOR, "soviet", SOVIET)
    service.start(info.id, GM_ACTOR)
    return info.id


def public_texts(service: GameService, game_id: str) -> str:
    """Everything the public or the Soviet player can read of the game's record."""
    parts: list[Any] = []
    for reader, audience in ((STRANGER, None), (SOVIET, None), (GM_ACTOR, "public")):
        parts += [e.model_dump() for e in service.log(game_id, reader, 1000,
                                                      audience=audience,
                                                      include_reverted=True)]
    for reader in (STRANGER, SOVIET):
        parts += service.export(game_id, reader).lines
        parts.append(service.view(game_id, reader).model_dump())
    return json.dumps(parts, ensure_ascii=False)


def set_up_face_down(service: GameService, game_id: str) -> list[str]:
    """The German face-down set-up (25.7), given as ordinary 'place' orders."""
    rules = service.rules(game_id)
    placed: list[str] = []
    while True:
        legal = service.legal_orders(game_id, GERMAN, "german")
        # each unit once: a placed unit may be set up again until 'done' (it is listed too)
        done_units = {o.split()[1] for o in placed}
        order = next((o for o in legal if o.startswith("place")
                      and o.split()[1] not in done_units), None)
        if order is None:
            break
        assert service.submit(game_id, GERMAN, order).ok
        placed.append(order)
    done = service.submit(game_id, GERMAN, "done")
    assert done.ok, done.error
    assert rules.private_input(service.load_state(game_id)) is None
    return placed


def test_face_down_set_up_is_private_committed_and_revealed_25_7(tmp_path: Path) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = tanks_game(service, "gauntlet")
    rules = service.rules(game_id)
    assert rules.private_input(service.load_state(game_id)) == "german"
    first = next(o for o in service.legal_orders(game_id, GERMAN) if o.startswith("place"))
    # Frontends take it privately (a Discord DM): a plain placement is private here.
    assert service.is_private(game_id, GERMAN, first)
    assert not service.is_private(game_id, GERMAN, "standing defensive-fire hold")
    placed = set_up_face_down(service, game_id)
    units = [order.split()[1] for order in placed]
    seen = public_texts(service, game_id)
    for order, unit in zip(placed, units, strict=True):
        assert order not in seen
        assert unit not in seen, f"{unit} reached the public or the Soviet player"
    # The German player and the GM read their own orders.
    german_log = json.dumps([e.model_dump() for e in service.log(game_id, GERMAN, 1000)])
    assert all(order in german_log for order in placed)
    # The set-up is committed at 'done' and every view shows the commitment.
    state: Any = service.load_state(game_id)
    secret = state.secrets["german"]
    assert secret.commitment and sorted(secret.entries) == sorted(
        e for e in secret.entries if e.startswith("place "))
    assert len(secret.entries) == len(placed)
    assert verify_commitment(secret.commitment, secret.salt, secret.entries)
    assert secret.commitment in json.dumps(service.view(game_id, SOVIET).model_dump())
    # Revealed per the rules: face-up at the start of the German Defensive Fire Phase, in
    # the Soviet player turn (25.7) — to everyone, each unit in the hex it was placed in.
    told: list[str] = []
    for _ in range(60):
        state = service.load_state(game_id)
        side = rules.acting_side(state)
        assert side == "soviet" and state.phasing == "soviet", (side, state.phase)
        legal = service.legal_orders(game_id, SOVIET, side)
        result = service.submit(game_id, SOVIET, "done" if "done" in legal else legal[0])
        assert result.ok, result.error
        told = [line for line in result.messages["public"].lines if "face-up" in line]
        if told:
            break
    assert service.load_state(game_id).phase == "defensive"
    public_view = json.dumps(service.view(game_id, STRANGER).model_dump())
    for order in placed:
        _, unit, where = order.split()
        assert f"{unit} in {where}" in told[0], told
        assert unit in public_view


@pytest.mark.parametrize(("order", "secret"), [
    ("standing casualty lose", "casualty"),
    ("trap 3", "trap 3"),
])
def test_undo_never_quotes_a_secret_order(tmp_path: Path, order: str, secret: str) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = new_game(service)
    if not order.startswith("trap"):
        play(service, game_id, (RED, "trap 1"))
    play(service, game_id, (RED, order))
    undone = service.undo(game_id, RED)
    assert undone.ok, undone.error
    assert secret not in undone.messages["public"].text
    assert secret not in undone.messages["blue"].text
    assert "red takes back: a secret order" in undone.messages["public"].text
    assert f"red takes back: {order}" in undone.messages["red"].text
    assert secret not in public_log(service, game_id)


def public_log(service: GameService, game_id: str) -> str:
    return json.dumps([e.model_dump() for e in service.log(game_id, STRANGER, 1000,
                                                          include_reverted=True)])


def test_undo_of_a_hidden_placement_and_a_mine_quotes_neither(tmp_path: Path) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = tanks_game(service, "pakfront")
    rules = service.rules(game_id)
    side = rules.acting_side(service.load_state(game_id))
    actor = GERMAN if side == "german" else SOVIET
    legal = service.legal_orders(game_id, actor, side)
    # In a hidden set-up a plain placement is made in sight of both sides (20.0).
    assert not service.is_private(game_id, actor, next(o for o in legal
                                                       if o.startswith("place")))
    for verb in ("hide", "mine"):
        order = next((o for o in legal if o.startswith(verb)), None)
        if order is None:
            continue
        assert service.submit(game_id, actor, order).ok
        undone = service.undo(game_id, actor)
        assert undone.ok, undone.error
        assert order not in undone.messages["public"].text
        assert order.split()[1] not in public_log(service, game_id)


def test_deadline_notice_is_the_same_with_or_without_a_standing_order(
        tmp_path: Path) -> None:
    notices = []
    for standing in (False, True):
        clock = Clock()
        service = make_service(tmp_path / f"u{standing}.db", clock=clock)
        game_id = new_game(service, deadline_seconds=100, reminders=(0.5,))
        play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"), (BLUE, "pass"))
        service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6, 6]}, "hit")
        play(service, game_id, (RED, "attack r2 4"))
        if standing:  # set by the GM after the hit, so that it does not answer at once
            service.override(game_id, GM_ACTOR, {"op": "set-standing", "side": "blue",
                                                 "kind": "casualty", "policy": "lose"}, "x")
        service.tick()
        clock.advance(101)
        notices.append([(n.audience, n.text) for n in service.tick() if n.audience == "public"])
    assert notices[0] == notices[1] and notices[0]


def test_export_gif_public_captions_quote_no_secret(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = tanks_game(service, "gauntlet")
    placed = set_up_face_down(service, game_id)
    captions: list[str] = []

    import render.replay

    def capture(frames: Any, pack: Any, fmt: str = "gif") -> bytes:
        captions.extend(str(frame.caption) for frame in frames)
        return b"GIF89a"

    monkeypatch.setattr(render.replay, "animate", capture)
    result = CliRunner().invoke(app, ["export-gif", game_id, "--viewer", "public", "--db",
                                      str(service.store.path), "--out",
                                      str(tmp_path / "g.gif")])
    assert result.exit_code == 0, result.output
    shown = "\n".join(captions)
    assert captions and "a secret order" in shown
    for order in placed:
        assert order.split()[1] not in shown


def test_email_addresses_only_for_the_gm_and_their_holder(tmp_path: Path) -> None:
    service = make_service(tmp_path / "u.db")
    game_id = new_game(service)
    address = "blue@example.org"
    win_for_red(service, game_id)
    assert service.info(game_id).status == "finished"
    # A stranger reads the full record of a finished game, without the address.
    stranger = json.dumps(service.export(game_id, STRANGER).lines)
    assert address not in stranger
    assert address not in json.dumps(service.info(game_id).model_dump())
    assert address not in json.dumps(service.info(game_id, STRANGER).model_dump())
    assert address not in json.dumps(service.info(game_id, RED).model_dump())
    assert address not in json.dumps([e.model_dump() for e in service.log(game_id, RED, 99)])
    # The player sees their own; the GM sees every address.
    assert address in json.dumps(service.info(game_id, BLUE).model_dump())
    assert address in json.dumps(service.info(game_id, GM_ACTOR).model_dump())
    assert address in json.dumps(service.export(game_id, GM_ACTOR).lines)
    assert address in json.dumps(service.export(game_id, BLUE).lines)
    # The redacted full record still verifies.
    from bot.records import verify

    assert verify(service.export(game_id, STRANGER).lines).ok


def test_undo_of_a_turning_point_standing_order_quotes_it_to_its_side_only(
        tmp_path: Path) -> None:
    service = make_service(tmp_path / "u.db")
    info = service.create_game(GM_ACTOR, "stalingrad")
    service.seat(info.id, GM_ACTOR, "german", GERMAN)
    service.seat(info.id, GM_ACTOR, "russian", SOVIET)
    service.start(info.id, GM_ACTOR)
    rules = service.rules(info.id)
    side = rules.acting_side(service.load_state(info.id))
    actor = GERMAN if side == "german" else SOVIET
    policy = rules.standing_policies()[0]
    order = f"standing {policy.kind} {policy.policy}"
    assert service.submit(info.id, actor, order).ok
    undone = service.undo(info.id, actor)
    assert undone.ok, undone.error
    other = "russian" if side == "german" else "german"
    for audience in ("public", other):
        assert policy.policy not in undone.messages[audience].text
    assert order in undone.messages[side].text
    assert order not in public_log(service, info.id)
