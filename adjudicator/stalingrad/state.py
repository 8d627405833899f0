"""The Turning Point: Stalingrad game state.

Only what changes during play lives here; the printed facts (map, counters) live in the
:class:`~adjudicator.stalingrad.board.Board`. A conformance case may embed its own small
map and counters (``local``); a real game refers to its data pack.

Dates are indices: 0 = September 13 (5.1). A Spent unit's ``recover`` is the date at
whose Dawn it turns Fresh again: Duration N Disruption on date d sets ``recover = d + N``
(4.4, 10.2), never more than four dates ahead (10.8).
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from adjudicator.kernel.state import GameState, copy_model
from adjudicator.stalingrad.last_action import LastAction

Phase = Literal["bids", "setup", "rubble", "play"]  # bids: 22.1


class UnitState(BaseModel):
    """A counter's changing facts: where it is, which side is up, when it recovers."""

    model_config = ConfigDict(extra="forbid")

    loc: str
    fresh: bool = True
    recover: int | None = None
    marker: bool = False  # a Duration marker (Duration 2-4) rather than Duration 1 (10.2)
    isolation: int = 0  # the Isolation marker: 0 none, 1 "-1", 2 "-2" (12.2)


class Act(BaseModel):
    """What one unit has done in the current impulse."""

    model_config = ConfigDict(extra="forbid")

    start: str
    mf: int = 0
    path: list[str] = Field(default_factory=list)
    entered: str | None = None  # enemy-occupied Area entered this impulse (8.21, 8.34)
    must_attack: bool = False  # entered it and has not yet made the prepaid attack (8.34)
    came_from: str | None = None  # the Area it entered ``entered`` from (8.37 Rout)
    attacked: bool = False
    done: bool = False
    stop: tuple[str, str] | None = None  # (rule, why) when something ended its action
    entry_paid: str | None = None  # Area whose entrance cost pays the first attack (8.34, 14.6)
    placed: bool = False  # an Armor replacement placed this impulse (13.3)
    doubled: bool = False  # used doubled MF (8.25, 8.26)
    left_enemy: bool = False  # left an enemy-occupied Area (8.25, 8.26)
    no_double: bool = False  # motorized unit entered an enemy-controlled/Rubbled Area (8.26)
    penalty: int = 1  # Duration to suffer at the end of the impulse (10.3, 10.4)
    regroup: bool = False  # a Spent unit Regrouping (8.27)
    designated: str | None = None  # group the unit must attack (predesignated split, 8.12)
    infiltrated: bool = False
    tried_infiltration: bool = False
    stay: bool = False  # must end the move in its Area (18.51)
    no_attack: bool = False  # may not attack or fortify (18.51)
    fortified: bool = False


class Battle(BaseModel):
    """An attack being resolved, kept while a decision is pending."""

    model_config = ConfigDict(extra="forbid")

    area: str
    group: str  # fresh, spent or rubble
    side: str  # attacker
    kind: str = "combat"  # combat, artillery (an Observer), air (the Stuka), fag, mistaken
    fags: list[str] = Field(default_factory=list)  # Russian Artillery used (15.3, 15.32)
    attackers: list[str]
    ranged: list[str]  # attackers firing from an adjacent Area (8.31)
    entering: list[str]  # attackers that entered the Area this impulse (8.37)
    defenders: list[str]
    ov: int
    dv: int
    ov_parts: list[tuple[str, int]]
    dv_parts: list[tuple[str, int]]
    attack_dr: int = 0
    defense_dr: int = 0
    impulse_dr: bool = False  # this attack DR is the German impulse DR (8.1)
    stage: str = "rolled"  # rolled -> tie -> casualties -> retreat -> done
    cp: int = 0
    first_loss: str | None = None
    rerolled: bool = False
    plan: dict[str, Any] = Field(default_factory=dict)


class Impulse(BaseModel):
    """The impulse in progress (8.1): whose, from which Area, and what has happened."""

    model_config = ConfigDict(extra="forbid")

    side: str
    origin: str | None = None
    acts: dict[str, Act] = Field(default_factory=dict)
    attacked: list[tuple[str, str]] = Field(default_factory=list)  # (Area, group) (8.32)
    attacked_areas: list[str] = Field(default_factory=list)  # no entry after (8.12)
    #: Areas where Engineers Overran the Rubble (and nothing else was attacked since): the
    #: other units of the impulse may still enter them and join (8.12, 14.6), matching
    #: the Engineers' MF. Area -> the Engineers.
    rubble_overruns: dict[str, list[str]] = Field(default_factory=dict)
    origin_cost: int = 0  # MF of attacks vs defenders in the origin Area (8.34)
    impulse_dr: int | None = None  # the German impulse DR once made (8.1)
    ferried: int = 0  # units ferried/breakthrough this impulse (18.3, 18.6)
    ferry_area: str | None = None
    recrossed: int = 0
    acted: bool = False
    prolonged: bool = False  # the Advantage reset the Impulse marker (9.3)
    fire_kind: str | None = None  # an Artillery/Air impulse: artillery, air, fag, opening (15.2)
    fire_area: str | None = None  # the Area German Artillery fires into this impulse (15.2)
    fired: list[str] = Field(default_factory=list)  # support units that fired this impulse
    queue: list[list[str]] = Field(default_factory=list)  # Opening Bombardment to come (20.4)


class Replacements(BaseModel):
    """13.2: the side record of Armor replacement factors earned and spent."""

    model_config = ConfigDict(extra="forbid")

    earned: int = 0
    spent: int = 0
    stopped: bool = False
    reason: str = ""


class Sealed(BaseModel):
    """A secret choice (a bid, 22.11; a Feint's card, 22.22), sealed by a salted hash."""

    model_config = ConfigDict(extra="forbid")

    value: str
    salt: str
    commitment: str


class StalingradState(GameState):
    game: str = "stalingrad"
    scenario: str = "basic"
    local: dict[str, Any] | None = None  # a case's own map and counters
    phase: Phase = "play"
    setup_done: list[str] = Field(default_factory=list)
    date: int = 0
    day: bool = True
    box: int = 1
    turn: str = "german"
    german_impulses_today: int = 0  # German daylight impulses on Sept 13 (20.2)
    passes: int = 0  # consecutive Pass impulses (8.14)
    advantage: str = "german"  # holder (9.1)
    advantage_start: str = "german"  # holder at the start of the date (9.5)
    advantage_used: bool = False  # used this date (9.5)
    control: dict[str, str] = Field(default_factory=dict)
    rubble: dict[str, int] = Field(default_factory=dict)
    units: dict[str, UnitState] = Field(default_factory=dict)
    impulse: Impulse | None = None
    battle: Battle | None = None
    switch: bool = False  # the German impulse DR calls for Sunset/Dawn (6.31, 6.32)
    sunset_control: dict[str, str] = Field(default_factory=dict)  # 18.6 Breakthrough
    #: unused: read from states stored before the FAG units carried the Russian Artillery
    artillery: dict[str, int] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict)
    eliminated: dict[str, int] = Field(default_factory=lambda: {"german": 0, "russian": 0})
    replacements: Replacements = Field(default_factory=Replacements)  # 13.2
    #: Sealed secrets by name ("bid:german", "card:russian"): never in any View (22.1, 22.22)
    secrets: dict[str, Sealed] = Field(default_factory=dict)
    decks: dict[str, list[int]] = Field(default_factory=dict)  # cards left per side (22.21)
    withdraw_later: list[str] = Field(default_factory=list)  # isolated, due to leave (21.3)
    compensation: list[int] = Field(default_factory=list)  # 21.3: Attack Factor budgets
    sixty_fourth: list[str] = Field(default_factory=list)  # 21.3: recreated for the 64th Army
    last_action: LastAction | None = None  # what the last impulse did (last_action.py)

    def copy_for_apply(self) -> Self:
        """A deep copy (the kernel's fast one); ``local`` and ``pending`` are never mutated
        in place, only replaced, so the copy shares them."""
        return copy_model(self, ("local", "pending"))
