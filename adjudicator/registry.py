"""Which games Umpire knows, loaded lazily by name.

A name is a registered game ("stalingrad", "tanks") or a plug-in spec
``"package.module:ClassName"`` (used by the test suite's small contract game).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from adjudicator.kernel.game import Game

GAMES: dict[str, str] = {
    "stalingrad": "adjudicator.stalingrad.game:StalingradGame",
    "tanks": "adjudicator.tanks.game:TanksGame",
}


class UnknownGame(LookupError):
    pass


def available() -> list[str]:
    """Registered games whose rules module is present."""
    names = []
    for name, spec in GAMES.items():
        module = spec.split(":", 1)[0]
        if importlib.util.find_spec(module) is not None:
            names.append(name)
    return names


def load_game(name: str, pack: Path | None = None) -> Game[Any]:
    """An instance of the game, bound to ``pack`` (default: the shipped data pack)."""
    spec = GAMES.get(name.lower(), name)
    if ":" not in spec:
        known = ", ".join(available()) or "none yet"
        raise UnknownGame(f"unknown game {name!r}; available: {known}")
    module_name, class_name = spec.split(":", 1)
    if str(Path.cwd()) not in sys.path:
        sys.path.append(str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        raise UnknownGame(f"game {name!r} is not available: {error}") from error
    cls = getattr(module, class_name, None)
    if cls is None or not (isinstance(cls, type) and issubclass(cls, Game)):
        raise UnknownGame(f"{spec} is not a Game class")
    game: Game[Any] = cls(pack) if pack is not None else cls()
    return game
