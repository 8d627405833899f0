"""tables.toml: the Crossing, Mistaken Attack and Interdiction tables, Casualty Points,
Movement costs, Disruption, Rubble Entrance, retreat priorities and the rules' constants."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field, model_validator

from adjudicator.kernel.packs import Record
from adjudicator.stalingrad.data_models.common import Sourced


class CrossingRow(Record):
    """One line of the Crossing Table (18.5)."""

    min_dr: int | None = None  # None: no lower bound ("<= 11")
    max_dr: int | None = None  # None: no upper bound (">= 18")
    eliminated: bool = False
    landed: bool
    duration: int = Field(ge=0, le=4)
    text: str


class CrossingTable(Sourced):
    """18.5: final DR (+1 per Interdiction Point) -> result; reversed for Recrossing (18.7)."""

    drm_per_interdiction_point: int
    max_units_per_impulse: int  # 18.3
    rows: tuple[CrossingRow, ...]

    def result(self, dr: int) -> CrossingRow:
        for row in self.rows:
            if (row.min_dr is None or dr >= row.min_dr) and (
                row.max_dr is None or dr <= row.max_dr
            ):
                return row
        raise KeyError(f"no Crossing Table row for DR {dr}")


class MistakenAttackTable(Sourced):
    """17.3: equal unmodified DRs of a Stuka attack -> German Casualty Points."""

    rows: tuple[tuple[int, int], ...]

    def casualty_points(self, equal_dr: int) -> int:
        for dr, cp in self.rows:
            if dr == equal_dr:
                return cp
        raise KeyError(f"no Mistaken Attack row for DR {equal_dr}")


class InterdictionCondition(Record):
    """One line of the Interdiction Points table (18.4)."""

    category: Literal["A", "B", "C"]
    condition: str
    ip: int
    text: str


class InterdictionTable(Sourced):
    """18.4: the best condition met in each category counts; not cumulative within one."""

    isolated_only_reduction: int
    conditions: tuple[InterdictionCondition, ...]

    def points(self, category: str, condition: str) -> int:
        for c in self.conditions:
            if c.category == category and c.condition == condition:
                return c.ip
        raise KeyError(f"no Interdiction condition {category}/{condition}")


class CasualtyPoints(Sourced):
    """8.354 (and 8.3541 for a retreating unit lost on entry)."""

    disrupt_fresh: int
    eliminate_fresh: int
    retreat_spent: int
    eliminate_spent: int
    retreat_entry_failure: int


class MovementCosts(Sourced):
    """8.23 A-E, attack costs 8.34/8.31 and Rubble attack costs 14.6."""

    vacant: int
    vacant_adjacent_fresh_enemy_day: int
    spent_enemy: int
    fresh_enemy: int
    mechanized_rubble_extra: int
    attack_spent_group: int
    attack_fresh_group: int
    attack_rubble: tuple[int, int]
    regroup_mf: int  # 8.27
    recross_mf: int  # 18.7
    replacement_placement_mf: int  # 13.3
    night_russian_extra_mf: int  # 16.3


class DisruptionTable(Sourced):
    """10 (Reference chart "Disruption Penalties") - Duration levels 0-4."""

    regroup: int
    movement: int
    overrun: int
    voluntary_retreat: int
    fortification: int
    attack_won: int
    attack_tied: int
    attack_lost: int
    defender_casualty: int
    ranged_reduction: int
    ranged_minimum: int
    aircraft: int  # German Artillery: constants.german_artillery_interval_days (15.1, 10.7)
    maximum: int


class RubbleEntranceTable(Sourced):
    """14.4: Rubble Entrance DR needed per level, with cumulative DRMs."""

    need: tuple[int, int]  # DR >= need[level-1]
    drm_friendly_controlled: int
    drm_no_fresh_enemy: int
    drm_no_enemy: int


RetreatClass = Literal["free_least_enemy_adjacent", "friendly_contested", "enemy_contested",
                       "vacant_enemy_controlled"]


class RetreatPriority(Sourced):
    """8.3551: retreat destination classes, best first (each once), with their texts."""

    order: tuple[RetreatClass, ...]
    text: tuple[str, ...]

    @model_validator(mode="after")
    def _each_class_once(self) -> RetreatPriority:
        classes = get_args(RetreatClass)
        if sorted(self.order) != sorted(classes):
            raise ValueError(f"order must list each retreat class once: {', '.join(classes)}")
        if len(self.text) != len(self.order):
            raise ValueError("text must give one line per class of order")
        return self


class Constants(Sourced):
    """Single numbers the rules use, each with its rule in ``field_sources``."""

    stacking_limit: int  # 7.1, 5.6
    impulse_track_spaces: int  # Glossary
    initial_rubble_threshold: int  # 5.7
    rubble_creation_threshold: int  # 14.2
    fortification_threshold: int  # 14.3
    fortification_infantry: int  # 14.3
    max_rubble: int  # 14.2
    rubble_overrun_margin: tuple[int, int]  # 14.6
    rubble_removal_per_cp: int  # 14.6
    rout_margin: int  # 8.37
    attrition_max_dr: int  # 12.22
    refit_max_dr: int  # 15.34
    german_artillery_interval_days: int  # 15.1, 10.7: also the Duration an Observer takes
    sept13_german_day_impulses: int  # 20.2
    sept13_russian_day_impulses: int  # 20.2
    regimental_integrity_units: int  # Glossary: +1 per this many battalions of a Regiment
    regimental_integrity_min_battalions: int  # Glossary: Regiments with fewer get no bonus
    armor_replacement_per_day: int  # 13.2
    armor_replacement_area: int  # 13.2
    armor_replacement_rubble_dr: int  # 13.2
    mamayev_kurgan: int  # 18.4, 19.1


class Isolation(Sourced):
    """12.21: factor reductions under the "-1"/"-2" markers."""

    factor_reduction: tuple[int, ...] = Field(min_length=1)


class DurationMarkers(Sourced):
    """4.4, 10.2, 12.22: after how many dates a Duration marker's colour comes round."""

    colours: int = Field(ge=1)


class Artillery(Sourced):
    """15.2, 15.32: Observers per Area, the FAGs' Counter-Battery Disruption and dr."""

    observers_per_area: int = Field(ge=1)
    fag_counter_battery_duration: int = Field(ge=1, le=4)
    counter_battery_always: int = Field(ge=0, le=6)


class Withdrawal(Sourced):
    """21.3: the Russian's compensation for a German unit not withdrawn."""

    compensation_units: int = Field(ge=1)
    compensation_factor: int = Field(ge=1)


class Bids(Sourced):
    """22.13: tied side-determination bids go by a die roll."""

    tie_german_max_dr: int = Field(ge=0)  # a dr up to this keeps the German seat's player


class Cards(Sourced):
    """22.21: each side's deck, as (card value, how many) pairs."""

    deck: tuple[tuple[int, int], ...] = Field(min_length=1)
    #: the court cards' names by value ("11" = "Jack"): every other card shows its number
    names: dict[str, str] = Field(default_factory=dict)


class Tables(Record):
    """tables.toml."""

    crossing: CrossingTable
    mistaken_attack: MistakenAttackTable
    interdiction: InterdictionTable
    casualty_points: CasualtyPoints
    movement_costs: MovementCosts
    disruption: DisruptionTable
    rubble_entrance: RubbleEntranceTable
    retreat_priority: RetreatPriority
    constants: Constants
    isolation: Isolation
    duration_markers: DurationMarkers
    artillery: Artillery
    withdrawal: Withdrawal
    bids: Bids
    cards: Cards
