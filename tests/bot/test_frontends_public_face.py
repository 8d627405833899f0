"""The console and the ``umpire`` command go through the game service's public calls: no
full state (``load_state``), no store behind the service's back; a console prompt reads the
game from the service's cache (no replay while the game stands still); the operator's desk
(``service.operator``) is what the ``umpire`` command reads every game through."""

from __future__ import annotations

import ast
import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from bot.console import FunctionIO, LocalGame, Session
from bot.records import export_lines
from bot.service import Actor, GameService, PermissionDenied
from bot.store import Store

ROOT = Path(__file__).resolve().parents[2]
FRONTENDS = [ROOT / "bot" / "console.py", ROOT / "bot" / "cli.py"]
DUEL = "tests.kernel.duel:DuelGame"


@pytest.mark.parametrize("path", FRONTENDS, ids=lambda p: p.name)
def test_frontends_read_no_full_state_and_no_store_behind_the_service(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    reached = sorted({f"{node.attr} (line {node.lineno})" for node in ast.walk(tree)
                      if isinstance(node, ast.Attribute)
                      and node.attr in ("load_state", "store", "_load", "_cache")})
    assert reached == [], f"{path.name} reaches into the service: {reached}"
    imported = sorted({alias.name for node in ast.walk(tree)
                       if isinstance(node, ast.ImportFrom) for alias in node.names
                       if alias.name in ("export_lines", "import_file", "replay_frames")})
    assert imported == [], f"{path.name} reads the store itself: {imported}"


def _service(tmp_path: Path) -> GameService:
    return GameService(Store(tmp_path / "umpire.db"), seed_source=lambda n: b"\x05" * n)


def test_console_prompts_replay_nothing_while_the_game_stands_still(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    service = _service(tmp_path)
    local = LocalGame.new(service, "stalingrad", "historical")
    service.info(local.game_id)
    local.prompt()  # the first read of a game builds its state once
    rebuilt: list[Any] = []
    original = service._rebuild

    def counted(*args: Any, **kwargs: Any) -> Any:
        rebuilt.append(args)
        return original(*args, **kwargs)

    def refused(game_id: str) -> Any:
        raise AssertionError("the console read the full state")

    monkeypatch.setattr(service, "_rebuild", counted)
    monkeypatch.setattr(service, "load_state", refused)
    script = iter(["rubble", "legal i/103", "board", "policies", "log 3", "help move",
                   "move i/103 to 14", "legal", "board", "quit"])
    out = io.StringIO()
    Session(service, local, FunctionIO(lambda _p: next(script)),
            Console(file=out, width=220)).run()
    text = out.getvalue()
    assert "legal order(s) for german matching 'i/103'" in text
    assert "move i/103 to 14" in text
    assert rebuilt == []


def test_a_prompt_shows_a_side_only_its_own_decision_and_standing_orders(
        tmp_path: Path) -> None:
    service = _service(tmp_path)
    gm, red, blue = Actor.mail("gm@x.org"), Actor.mail("red@x.org"), Actor.mail("blue@x.org")
    info = service.create_game(gm, DUEL)
    service.seat(info.id, gm, "red", red)
    service.seat(info.id, gm, "blue", blue)
    service.start(info.id, gm)
    first = service.prompt(info.id, red)
    assert first.side == first.to_act == "red" and first.pending is None
    assert first.head == 0 and first.status == "active"
    with pytest.raises(PermissionDenied):
        service.prompt(info.id, red, "blue")
    assert service.prompt(info.id, gm, "blue").side == "blue"  # the GM reads any side
    assert service.legal_entries(info.id, red, "red")
    with pytest.raises(PermissionDenied):
        service.legal_entries(info.id, blue, "red")


def test_the_operator_desk_reads_every_game_and_audits_the_seed(tmp_path: Path) -> None:
    service = _service(tmp_path)
    local = LocalGame.new(service, DUEL, None, game_id="desk-test")
    local.send("red", "trap 3")
    operator = service.operator
    listed = operator.games()
    assert [g.id for g in listed] == ["desk-test"] and listed[0].created is not None
    assert operator.record("desk-test") == export_lines(service.store, "desk-test")
    assert operator.view("desk-test", "red").model_dump() == service.view(
        "desk-test", Actor(email="console@localhost"), "red").model_dump()
    assert operator.dice_seed("desk-test") == b"\x05" * 32
    trail = service.store.audit_trail("desk-test")
    assert [(t["actor"], t["kind"]) for t in trail][-1:] == [("operator", "seed-read")]
