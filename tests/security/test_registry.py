"""Names resolve through a fixed registry only: nothing a user types is imported."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from adjudicator.registry import UnknownGame, available, known, load_game, register
from bot.service import GameService, InvalidOperation
from bot.store import Store
from tests.bot.test_service_support import GM_ACTOR
from tests.kernel.duel import DuelGame


def test_a_module_class_name_is_never_imported(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # A module in the working directory that would record its own import.
    (tmp_path / "evil_game.py").write_text(
        "import pathlib\npathlib.Path('imported').write_text('yes')\n"
        "from tests.kernel.duel import DuelGame as Evil\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    before = list(sys.path)
    for name in ("evil_game:Evil", "os:system", "tests.kernel.duel:Unit",
                 "adjudicator.tanks.game:TanksGame", "../evil_game", "x" * 10_000):
        with pytest.raises(UnknownGame):
            load_game(name)
    assert not (tmp_path / "imported").exists()
    assert "evil_game" not in sys.modules
    assert sys.path == before and str(tmp_path) not in sys.path


def test_service_refuses_unregistered_names(tmp_path: Path) -> None:
    service = GameService(Store(tmp_path / "u.db"))
    with pytest.raises(InvalidOperation, match="unknown game"):
        service.create_game(GM_ACTOR, "os.path:join")


def test_shipped_and_registered_games_resolve() -> None:
    assert available() == ["stalingrad", "tanks"]
    assert load_game("Tanks").name == "tanks"
    assert isinstance(load_game("tests.kernel.duel:DuelGame"), DuelGame)
    assert "tests.kernel.duel:DuelGame" in known()
    register("duel-under-test", DuelGame)
    assert isinstance(load_game("duel-under-test"), DuelGame)
    with pytest.raises(ValueError):
        register("tanks", DuelGame)
    with pytest.raises(TypeError):
        register("not-a-game", int)  # type: ignore[arg-type]
