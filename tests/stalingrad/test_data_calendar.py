"""Turn Record Track, tables and scenarios of the data pack, checked against the rulebook."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from adjudicator.stalingrad.data import load_pack
from adjudicator.stalingrad.data_models import StalingradPack

D = date


@pytest.fixture(scope="module")
def pack() -> StalingradPack:
    return load_pack()


# ------------------------------------------------------------------------ calendar


def test_turn_record_track_sept_13_to_nov_14_3_4_5_1(pack: StalingradPack) -> None:
    cal = pack.calendar
    assert cal.first == D(1942, 9, 13) and cal.last == D(1942, 11, 14)
    assert len(cal.dates()) == 63
    assert cal.turn(D(1942, 9, 13)) == 1 and cal.turn(D(1942, 11, 14)) == 63


def test_week_ends_6_4(pack: StalingradPack) -> None:
    assert pack.calendar.week_ends() == [
        D(1942, 9, 19), D(1942, 9, 26), D(1942, 10, 3), D(1942, 10, 10), D(1942, 10, 17),
        D(1942, 10, 24), D(1942, 10, 31), D(1942, 11, 7), D(1942, 11, 14),
    ]


def test_weeks_start_on_the_glossary_dates(pack: StalingradPack) -> None:
    starts = [w.start for w in pack.calendar.weeks]
    assert starts == [D(1942, 9, 13) + timedelta(days=7 * i) for i in range(9)]
    assert pack.calendar.week_of(D(1942, 10, 8)).number == 4


def test_victory_numbers_19_2_19_3_21_1(pack: StalingradPack) -> None:
    weeks = pack.calendar.weeks
    for w in weeks:
        assert 0 < w.blue < 28
        assert w.red[0] <= w.blue <= w.red[1] <= 28
        assert w.tie_breaker >= 0
        assert "reconstructed" in w.source
    blues = [w.blue for w in weeks]
    assert blues == sorted(blues), "the German must keep gaining to keep winning"
    ties = [w.tie_breaker for w in weeks]
    assert ties == sorted(ties)


def test_luftwaffe_strength_4_26_17_23(pack: StalingradPack) -> None:
    lw = pack.calendar.luftwaffe_attack
    assert lw(D(1942, 9, 13)) == 8 and lw(D(1942, 9, 26)) == 8
    assert lw(D(1942, 9, 27)) == 5 and lw(D(1942, 10, 13)) == 5
    assert lw(D(1942, 10, 14)) == 9 and lw(D(1942, 11, 14)) == 9


def test_russian_artillery_strength_15_3(pack: StalingradPack) -> None:
    fag = pack.calendar.fag_strength
    assert [fag(D(1942, 9, 26)), fag(D(1942, 9, 27)), fag(D(1942, 10, 31)),
            fag(D(1942, 11, 1))] == [1, 2, 2, 3]


def test_german_impulse_dv_bonus_8_352f(pack: StalingradPack) -> None:
    bonus = pack.calendar.german_impulse_dv_bonus
    assert [bonus(D(1942, 9, 26)), bonus(D(1942, 9, 27)), bonus(D(1942, 10, 31)),
            bonus(D(1942, 11, 1)), bonus(D(1942, 11, 14))] == [0, 1, 1, 2, 2]


def test_interdiction_month_penalty_18_4(pack: StalingradPack) -> None:
    pen = pack.calendar.interdiction_penalty
    assert [pen(D(1942, 9, 30)), pen(D(1942, 10, 1)), pen(D(1942, 11, 1))] == [0, -1, -2]


def test_diminishing_daylight_21_4(pack: StalingradPack) -> None:
    boxes = pack.calendar.daylight_boxes
    for day in (D(1942, 9, 13), D(1942, 10, 8), D(1942, 11, 14)):
        assert boxes(day, diminishing=False) == (1, 3)  # 6.31, 6.32
    assert boxes(D(1942, 10, 7), diminishing=True) == (1, 3)
    assert boxes(D(1942, 10, 8), diminishing=True) == (2, 2)
    assert boxes(D(1942, 11, 1), diminishing=True) == (2, 2)
    assert boxes(D(1942, 11, 2), diminishing=True) == (3, 1)


def test_reinforcement_and_withdrawal_days_on_the_track_3_4(pack: StalingradPack) -> None:
    days = pack.calendar.dates()
    german = [d for d in days if pack.reinforcements("german", d)]
    russian = [d for d in days if pack.reinforcements("russian", d)]
    withdrawals = [d for d in days if pack.withdrawals(d)]
    assert D(1942, 9, 15) in german and D(1942, 9, 22) in russian
    assert D(1942, 9, 27) in withdrawals


# -------------------------------------------------------------------------- tables

CROSSING = [  # DR, eliminated, landed, Duration (18.5)
    (2, False, True, 0), (11, False, True, 0), (12, False, True, 1), (13, False, True, 2),
    (14, False, False, 1), (15, False, False, 2), (16, False, False, 3), (17, False, False, 4),
    (18, True, False, 0), (25, True, False, 0),
]


@pytest.mark.parametrize(("dr", "eliminated", "landed", "duration"), CROSSING)
def test_crossing_table_18_5(pack: StalingradPack, dr: int, eliminated: bool, landed: bool,
                             duration: int) -> None:
    row = pack.tables.crossing.result(dr)
    assert (row.eliminated, row.landed, row.duration) == (eliminated, landed, duration)


def test_crossing_limits_18_3(pack: StalingradPack) -> None:
    assert pack.tables.crossing.max_units_per_impulse == 3
    assert pack.tables.crossing.drm_per_interdiction_point == 1


@pytest.mark.parametrize(("dr", "cp"), [(7, 1), (6, 2), (8, 2), (5, 3), (9, 3), (4, 4),
                                        (10, 4), (3, 5), (11, 5), (2, 6), (12, 6)])
def test_mistaken_attack_17_3(pack: StalingradPack, dr: int, cp: int) -> None:
    assert pack.tables.mistaken_attack.casualty_points(dr) == cp


def test_interdiction_points_18_4(pack: StalingradPack) -> None:
    t = pack.tables.interdiction
    assert [t.points("A", c) for c in ("contest", "control", "contest_observer",
                                       "control_observer")] == [1, 2, 2, 3]
    assert [t.points("B", c) for c in ("contest", "control")] == [1, 2]
    assert [t.points("C", c) for c in ("contest", "control", "contest_one_control_other",
                                       "control_both")] == [1, 2, 2, 3]
    assert t.isolated_only_reduction == 1


def test_casualty_points_8_354(pack: StalingradPack) -> None:
    cp = pack.tables.casualty_points
    assert (cp.disrupt_fresh, cp.eliminate_fresh, cp.retreat_spent, cp.eliminate_spent) == (
        1, 3, 1, 2)
    assert cp.retreat_entry_failure == 1  # 8.3541


def test_mf_costs_8_23_8_34(pack: StalingradPack) -> None:
    mf = pack.tables.movement_costs
    assert (mf.vacant, mf.vacant_adjacent_fresh_enemy_day, mf.spent_enemy, mf.fresh_enemy,
            mf.mechanized_rubble_extra) == (1, 2, 3, 4, 1)
    assert (mf.attack_spent_group, mf.attack_fresh_group) == (1, 2)
    assert mf.attack_rubble == (1, 2)  # 14.6


def test_disruption_penalties_10(pack: StalingradPack) -> None:
    d = pack.tables.disruption
    assert (d.regroup, d.movement, d.overrun, d.voluntary_retreat, d.fortification) == (
        0, 1, 1, 1, 1)
    assert (d.attack_won, d.attack_tied, d.attack_lost, d.defender_casualty) == (2, 3, 4, 4)
    assert (d.ranged_reduction, d.ranged_minimum, d.aircraft) == (1, 1, 1)
    assert pack.tables.constants.german_artillery_interval_days == 4  # 15.1, 10.7
    assert d.maximum == 4  # 10.8


def test_rubble_entrance_14_4(pack: StalingradPack) -> None:
    r = pack.tables.rubble_entrance
    assert r.need == (7, 9)
    assert (r.drm_friendly_controlled, r.drm_no_fresh_enemy, r.drm_no_enemy) == (1, 1, 1)


def test_retreat_priority_8_3551(pack: StalingradPack) -> None:
    p = pack.tables.retreat_priority
    assert p.order == ("free_least_enemy_adjacent", "friendly_contested", "enemy_contested",
                       "vacant_enemy_controlled")
    assert len(p.text) == len(p.order)


def test_constants_cite_their_rules(pack: StalingradPack) -> None:
    c = pack.tables.constants
    assert c.stacking_limit == 10 and c.rubble_creation_threshold == 13
    assert c.initial_rubble_threshold == 7 and c.sept13_german_day_impulses == 12
    fields = set(c.value_fields())
    cited = set(c.field_sources) | {"stacking_limit"}  # stacking_limit: the record's own source
    assert all(c.source_of(name).startswith("rulebook ") for name in fields)
    assert fields == cited


# ----------------------------------------------------------------------- scenarios


def test_basic_game_5_and_21_2(pack: StalingradPack) -> None:
    s = pack.scenarios["basic"]
    assert s.setup_modes == ("free", "historical")
    assert s.victory == "blue" and s.sept13_fixed_day_impulses == 12  # 19.2, 20.2
    assert set(s.rubble_roll_areas) == {33, 59, 61, 62, 63, 64, 65, 66}  # 5.7
    assert not s.extension_units and not s.withdrawals and not s.diminishing_daylight
    assert (s.start, s.end) == (pack.calendar.first, pack.calendar.last)


def test_kuibyshev_sawmill_scenario(pack: StalingradPack) -> None:
    s = pack.scenarios["sawmill"]
    assert s.playable_quadrants == ("south",)
    assert set(s.rubble_roll_areas) == {33, 61, 62}
    assert s.victory == "vp_at_week_end" and s.victory_vp == 4
    assert (s.impulse_advance, s.impulse_max, s.sept13_automatic_sunset_after) == (2, 11, 11)
    assert s.luftwaffe_days == "odd" and s.reinforcement_max_dr == 3
    assert s.interdiction_bonus == (56, 1, D(1942, 9, 15))
    assert s.supply_from_border_areas and s.end == D(1942, 9, 19)
    assert s.russian.fag == ("south",)
    nkvd = s.russian.placements[0]
    assert nkvd.area == "61" and nkvd.when == "any_impulse" and len(nkvd.units) == 3
    assert all(pack.unit(u).regiment == "272" for u in nkvd.units)


def test_simulation_game_21(pack: StalingradPack) -> None:
    s = pack.scenarios["simulation"]
    assert s.victory == "red" and s.setup_modes == ("historical",)
    assert s.extension_units and s.withdrawals and s.diminishing_daylight
    required = {o.rule for o in s.options if o.required}
    assert required == {"21.1", "21.2", "21.3", "21.4"}


def test_every_record_names_its_provenance(pack: StalingradPack) -> None:
    cal = pack.calendar
    records = [*cal.weeks, *cal.luftwaffe, *cal.fag, *cal.daylight,
               *pack.scenarios.values(), pack.tables.crossing, pack.tables.constants]
    for r in records:
        assert r.source.startswith(("rulebook ", "reconstructed: "))
