"""Which games Umpire knows: a fixed registry, looked up by name.

A name a user gives (``/game new game:…``, ``umpire play GAME``, a record's header, a
conformance case's ``plugin``) is only ever a key into this registry: it is never imported,
evaluated or used as a path, and the working directory is never put on ``sys.path``.

The shipped games are listed in :data:`BUILTIN`. Other games (the test suite's small
contract game, a game an operator adds in code) are registered by the code that defines
them, with :func:`register`, before they are looked up.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from adjudicator.kernel.game import Game

#: The shipped games: name -> (module, class), both fixed here, never taken from input.
BUILTIN: dict[str, tuple[str, str]] = {
    "stalingrad": ("adjudicator.stalingrad.game", "StalingradGame"),
    "tanks": ("adjudicator.tanks.game", "TanksGame"),
}

#: Games registered in code (see :func:`register`), by exact name.
_REGISTERED: dict[str, type[Game[Any]]] = {}

#: Longest name looked up; longer text is refused without a lookup.
MAX_NAME = 100


class UnknownGame(LookupError):
    pass


def register(name: str, cls: type[Game[Any]]) -> None:
    """Make the game class ``cls`` known as ``name`` (code only, never from user input)."""
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise TypeError(f"{cls!r} is not a Game class")
    if name.lower() in BUILTIN:
        raise ValueError(f"{name!r} is a shipped game's name")
    _REGISTERED[name] = cls


def available() -> list[str]:
    """The shipped games (registered test or plug-in games are offered separately)."""
    return list(BUILTIN)


def known() -> list[str]:
    """Every name :func:`load_game` resolves: the shipped games, then registered ones."""
    return [*BUILTIN, *_REGISTERED]


def game_class(name: str) -> type[Game[Any]]:
    """The class registered as ``name``; :class:`UnknownGame` for anything else."""
    if not isinstance(name, str) or len(name) > MAX_NAME:
        raise UnknownGame(f"unknown game; available: {', '.join(available())}")
    registered = _REGISTERED.get(name)
    if registered is not None:
        return registered
    builtin = BUILTIN.get(name.strip().lower())
    if builtin is None:
        raise UnknownGame(f"unknown game {name!r}; available: {', '.join(available())}")
    module_name, class_name = builtin
    cls: type[Game[Any]] = getattr(importlib.import_module(module_name), class_name)
    return cls


def load_game(name: str, pack: Path | None = None) -> Game[Any]:
    """An instance of the game, bound to ``pack`` (default: the shipped data pack)."""
    cls = game_class(name)
    return cls(pack) if pack is not None else cls()
