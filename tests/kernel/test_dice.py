"""Dice contracts: fixed dice fail loudly; committed dice verify honest rolls, reject tampering."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.kernel.dice import (
    CommittedDice,
    DiceExhausted,
    FixedDice,
    commitment,
    effective_seed,
    verify,
)


def test_fixed_dice_return_values_in_order_and_record_labels() -> None:
    dice = FixedDice([3, 4, 6])
    first = dice.roll("German attack DR")
    second = dice.roll("Rubble dr", count=1)
    assert first.values == (3, 4) and first.total == 7 and first.label == "German attack DR"
    assert second.values == (6,) and second.index == 1
    dice.check_all_used()


def test_fixed_dice_exhaustion_raises() -> None:
    dice = FixedDice([5])
    with pytest.raises(DiceExhausted):
        dice.roll("German attack DR")


def test_fixed_dice_unused_values_fail_loudly() -> None:
    dice = FixedDice([1, 2, 3])
    dice.roll("DR")
    with pytest.raises(AssertionError, match="unused fixed dice: \\[3\\]"):
        dice.check_all_used()


def test_fixed_dice_reject_impossible_faces() -> None:
    with pytest.raises(ValueError):
        FixedDice([7, 1]).roll("DR")


def _game_rolls(seed: bytes, entropy: list[str], branch: int = 0) -> CommittedDice:
    dice = CommittedDice(effective_seed(seed, entropy), "game-1", branch=branch)
    for n in range(50):
        dice.roll(f"roll {n}", count=1 + n % 3)
    return dice


def test_committed_dice_verify_accepts_honest_rolls() -> None:
    seed = b"server secret seed"
    dice = _game_rolls(seed, ["alice's string", "bob's"])
    report = verify(commitment(seed), seed, "game-1", dice.rolls, ["bob's", "alice's string"])
    assert report.ok and report.checked == 50


def test_committed_dice_verify_rejects_tampered_roll() -> None:
    seed = b"server secret seed"
    dice = _game_rolls(seed, ["x"])
    rolls = list(dice.rolls)
    bad = rolls[7]
    flipped = tuple(v % 6 + 1 for v in bad.values)
    rolls[7] = bad.model_copy(update={"values": flipped})
    report = verify(commitment(seed), seed, "game-1", rolls, ["x"])
    assert not report.ok
    assert len(report.mismatches) == 1 and "roll 0/7" in report.mismatches[0]


def test_committed_dice_verify_rejects_wrong_seed_and_missing_player_entropy() -> None:
    seed = b"server secret seed"
    dice = _game_rolls(seed, ["x"])
    assert not verify(commitment(seed), b"another seed", "game-1", dice.rolls, ["x"]).ok
    assert not verify(commitment(seed), seed, "game-1", dice.rolls, []).ok


def test_player_entropy_changes_the_dice() -> None:
    seed = b"s"
    a = _game_rolls(seed, ["alice"]).rolls
    b = _game_rolls(seed, ["mallory"]).rolls
    assert [r.values for r in a] != [r.values for r in b]


def test_a_new_branch_after_rollback_gives_new_rolls() -> None:
    seed = b"s"
    assert [r.values for r in _game_rolls(seed, [], 0).rolls] != [
        r.values for r in _game_rolls(seed, [], 1).rolls
    ]


@given(st.binary(min_size=1, max_size=32), st.integers(min_value=2, max_value=20))
def test_committed_dice_faces_in_range_and_deterministic(seed: bytes, sides: int) -> None:
    one = CommittedDice(seed, "g").roll("x", count=5, sides=sides)
    two = CommittedDice(seed, "g").roll("x", count=5, sides=sides)
    assert one.values == two.values
    assert all(1 <= v <= sides for v in one.values)


def test_committed_dice_are_roughly_uniform() -> None:
    dice = CommittedDice(b"uniformity", "g")
    counts = [0] * 6
    for n in range(3000):
        for value in dice.roll(f"r{n}", count=2).values:
            counts[value - 1] += 1
    expected = 6000 / 6
    # chi-square with 5 degrees of freedom; 20.5 is the 0.999 quantile
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    assert chi2 < 20.5, counts
