"""Shared helpers for the service tests: an editable Duel, a fake clock, dice by index.

``EditableDuel`` is the Duel test game plus the optional hooks the service offers games
(GM edits, a deadline default, undo reveal checks), implemented the way the real games
are expected to.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from adjudicator.kernel.dice import Roll
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import GM, Event
from adjudicator.registry import register
from bot.service import Actor, GameService
from bot.store import Store
from tests.kernel.duel import CELLS, DuelGame, DuelState, Unit

DUEL = "tests.kernel.duel:DuelGame"
EDITABLE = "tests.bot.test_service_support:EditableDuel"
GM_ACTOR = Actor.discord("100")
RED = Actor.discord("1")
BLUE = Actor.mail("blue@example.org")
STRANGER = Actor.discord("999")


class MoveUnitArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    unit: str
    cell: str


class RestoreUnitArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    unit: str
    side: str
    cell: str
    strength: int


class EditableDuel(DuelGame):
    """Duel with the service hooks: GM edits, a deadline default, undo reveal checks."""

    def gm_operations(self) -> Mapping[str, type[BaseModel]]:
        return {"move-unit": MoveUnitArgs, "restore-unit": RestoreUnitArgs}

    def gm_edit(self, state: Any, name: str, args: BaseModel) -> list[Event]:
        assert isinstance(state, DuelState)
        if isinstance(args, MoveUnitArgs):
            if args.cell not in CELLS:
                raise RuleError("override", f"no cell {args.cell!r}", list(CELLS))
            unit = next((u for u in state.units if u.id == args.unit), None)
            if unit is None:
                raise RuleError("override", f"no unit {args.unit!r} on the board",
                                [u.id for u in state.units])
            unit.cell = args.cell
            return [Event(kind="gm-edit", text=f"{unit.id} placed in {CELLS[args.cell]}",
                          data={"unit": unit.id, "cell": args.cell})]
        if isinstance(args, RestoreUnitArgs):
            if args.cell not in CELLS or args.side not in self.sides:
                raise RuleError("override", "no such cell or side")
            if any(u.id == args.unit for u in state.units):
                raise RuleError("override", f"{args.unit} is on the board already")
            state.units.append(Unit(id=args.unit, side=args.side, cell=args.cell,
                                    strength=args.strength))
            state.result = None
            return [Event(kind="gm-edit", text=f"{args.unit} restored", audience=GM)]
        raise RuleError("override", f"unknown edit {name}")

    def deadline_order(self, state: Any, side: str) -> str | None:
        return "pass"

    def undo_reveals(self, events: list[Event]) -> list[str]:
        return ["a trap was sprung" for e in events if e.kind == "trap-sprung"]


register(EDITABLE, EditableDuel)


class Clock:
    """A clock the tests move by hand."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class IndexDice:
    """Dice that depend on the roll index only (not the seed or branch): 'fixed dice'."""

    def __init__(self, start: int, table: tuple[int, ...]) -> None:
        self._next = start
        self._table = table
        self.rolls: list[Roll] = []

    def roll(self, label: str, count: int = 2, sides: int = 6, audience: str = "public") -> Roll:
        values = tuple(self._table[(self._next * 3 + k) % len(self._table)] % sides + 1
                       for k in range(count))
        roll = Roll(index=self._next, label=label, values=values, sides=sides,
                    audience=audience)
        self._next += 1
        self.rolls.append(roll)
        return roll


def index_dice(table: tuple[int, ...] = (5, 0, 3, 4, 1, 2, 5, 5, 2)) -> Any:
    def factory(seed: bytes, dice_id: str, branch: int, start: int) -> IndexDice:
        return IndexDice(start, table)
    return factory


def make_service(db: Path | str, **kwargs: Any) -> GameService:
    """A service on a database: a file path, or a URL of either backend (``db_url``)."""
    return GameService(Store(db, synchronous=kwargs.pop("synchronous", "NORMAL")), **kwargs)


def new_game(service: GameService, game: str = DUEL, start: bool = True,
             **start_kwargs: Any) -> str:
    """A Duel with red (Discord 1), blue (email) and a GM (Discord 100), started."""
    info = service.create_game(GM_ACTOR, game)
    service.seat(info.id, GM_ACTOR, "red", RED)
    service.seat(info.id, GM_ACTOR, "blue", BLUE)
    if start:
        service.start(info.id, GM_ACTOR, **start_kwargs)
    return info.id


def play(service: GameService, game_id: str, *moves: tuple[Actor, str]) -> None:
    for actor, text in moves:
        result = service.submit(game_id, actor, text)
        assert result.status == "applied", (text, result.error)


def to_attack(service: GameService, game_id: str) -> None:
    """Red's r2 stands next to blue's b2; red is to act."""
    play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"), (BLUE, "pass"))




def win_for_red(service: GameService, game_id: str) -> None:
    to_attack(service, game_id)
    for blue_move in (None, "move b1 4"):
        if blue_move:
            play(service, game_id, (BLUE, blue_move))
        service.override(game_id, GM_ACTOR, {"op": "force-dice", "values": [6, 6]}, "test")
        play(service, game_id, (RED, "attack r2 4"), (BLUE, "decide lose"))
