"""The state of a game of Stalin's Tanks."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from adjudicator.kernel.state import GameState
from adjudicator.tanks.last_action import LastAction

PHASES = ("move1", "stationary", "defensive", "mobile", "move2")
PHASE_NAMES = {
    "setup": "Set-up",
    "move1": "First Movement Phase",
    "stationary": "Stationary Fire Phase",
    "defensive": "Defensive Fire Phase",
    "mobile": "Mobile Fire Phase",
    "move2": "Second Movement Phase",
}
FIRE_PHASES = ("stationary", "defensive", "mobile")

Status = Literal["waiting", "on", "exited", "destroyed"]


class Unit(BaseModel):
    """One counter. ``hex`` is None while off the map (waiting to enter, exited, destroyed)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    side: str
    type: str
    status: Status = "waiting"
    hex: str | None = None
    facing: str | None = None
    hidden: bool = False  # 20.0: placed secretly, not on the map for the enemy
    concealed: bool = False  # 25.7: face-down, position known but not the type
    carrier: str | None = None  # 17.0: the halftrack carrying this unit
    force: str = ""  # scenario force / reinforcement group
    enter_turns: list[int] = Field(default_factory=list)  # turns it may enter on
    enter_edges: list[str] = Field(default_factory=list)
    enter_hexes: list[str] = Field(default_factory=list)
    # per player-turn / per phase bookkeeping
    moved: bool = False  # moved or changed facing in the First Movement Phase (11.4)
    spent: int = 0  # Movement Factor spent in the current movement phase
    road_spent: int = 0  # the same, counted at road rates (7.2)
    move_open: bool = False  # a halted move may continue (reveal, mine: 19.2, 20.0)
    move_done: bool = False
    off_road: bool = False  # left the road this phase (7.2)
    fired: bool = False  # fired or close assaulted in the current fire phase
    no_fire: bool = False  # 14.3 disrupted: skips its next eligible fire phase
    no_move: bool = False  # 14.3 disrupted: skips its next movement phase
    overran: bool = False  # 23.1: may not fire this player turn
    loaded_now: bool = False  # 17.1/17.2: loaded this player turn; moves from 2nd movement
    unloaded_now: bool = False  # 17.3
    exited_edge: str | None = None
    exited_loaded: bool = False  # a halftrack that exited with infantry aboard


class SecretSet(BaseModel):
    """A side's secrets and the salted commitment published when they were placed."""

    model_config = ConfigDict(extra="forbid")

    commitment: str = ""
    salt: str = ""
    entries: list[str] = Field(default_factory=list)
    revealed: bool = False


class Marker(BaseModel):
    model_config = ConfigDict(extra="forbid")

    side: str
    hex: str
    weight: Literal["light", "heavy"]


class TanksState(GameState):
    game: str = "tanks"
    scenario: str = ""
    options: dict[str, bool] = Field(default_factory=dict)
    advanced: bool = True
    turn: int = 1
    last_turn: int = 8
    order: list[str] = Field(default_factory=lambda: ["german", "soviet"])
    player: int = 0  # index into ``order``: whose player turn it is
    phase: str = "move1"
    setup_sides: list[str] = Field(default_factory=list)
    units: list[Unit] = Field(default_factory=list)
    mines: dict[str, list[str]] = Field(default_factory=dict)  # owner -> mined hexes (secret)
    known_mines: dict[str, str] = Field(default_factory=dict)  # hex -> owner, once revealed
    secrets: dict[str, SecretSet] = Field(default_factory=dict)
    marker: Marker | None = None
    barrages: dict[str, dict[str, Any]] = Field(default_factory=dict)  # side -> allotment
    barrages_used: dict[str, int] = Field(default_factory=dict)
    entries: dict[str, int] = Field(default_factory=dict)  # 6.5: units entered per hex
    moves_started: bool = False  # a unit has moved this First Movement Phase (18.1)
    hidden_allowed: dict[str, str] = Field(default_factory=dict)  # side -> rule of where
    flags: dict[str, Any] = Field(default_factory=dict)  # scenario bookkeeping
    terrain: dict[str, str] = Field(default_factory=dict)  # case-local terrain overrides
    roads: list[str] | None = None  # case-local roads (replace the pack's)
    map_size: list[int] | None = None  # case-local [columns, rows]
    types: dict[str, dict[str, Any]] = Field(default_factory=dict)  # case-local unit types
    log_points: dict[str, int] = Field(default_factory=dict)  # victory points
    # what the last action did, for pictures: parts "move", "shot", "barrage", each with the
    # audience of the event it was made from (views filter by it)
    last_action: LastAction = Field(default_factory=LastAction)  # last_action.py

    @property
    def phasing(self) -> str:
        return self.order[self.player]

    def unit(self, unit_id: str) -> Unit | None:
        for unit in self.units:
            if unit.id == unit_id:
                return unit
        return None

    def on_map(self) -> list[Unit]:
        return [u for u in self.units if u.status == "on"]

    def at(self, hex_name: str) -> list[Unit]:
        return [u for u in self.units if u.status == "on" and u.hex == hex_name]
