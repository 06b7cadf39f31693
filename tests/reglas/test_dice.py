"""Percentile dice, event rolls and action rolls (RULES.md R1–R3).

Statistical tests use fixed seeds and the exact formula P = 1 − (1 − T/100)^(1+X); their
tolerance is 4 binomial standard errors, so a correct engine fails them about once in 15 000
runs of a fresh seed, and never with the fixed one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reglas.core import Modifier, make_rng
from reglas.dice import (
    action_chance,
    action_from_dice,
    action_success_probability,
    count_per_row,
    d100,
    die_succeeds,
    event_from_die,
    roll_action,
    roll_actions,
    roll_dice,
    roll_event,
    roll_events,
)
from reglas.errors import RulesError


def rng(seed: int = 12345) -> np.random.Generator:
    return np.random.default_rng(seed)


# --- R1 -------------------------------------------------------------------------------------


def test_d100_faces_are_1_to_100_and_all_occur() -> None:
    g = rng(1)
    faces = np.array([d100(g) for _ in range(3000)])
    dice, _ = roll_events(np.full(50_000, 50), g)
    for sample in (faces, dice):
        assert sample.min() >= 1
        assert sample.max() <= 100
    assert set(dice.tolist()) == set(range(1, 101))


@pytest.mark.parametrize(
    ("die", "threshold", "expected"),
    [(30, 30, True), (31, 30, False), (1, 0, False), (100, 100, True), (100, 250, True)],
)
def test_die_succeeds_when_at_most_threshold(die: int, threshold: int, expected: bool) -> None:
    assert die_succeeds(die, threshold) is expected


def test_threshold_0_never_and_100_always() -> None:
    g = rng(2)
    never = roll_actions(np.full(20_000, 5), 0, g)
    always = roll_actions(np.zeros(20_000, dtype=np.int64), 100, g)
    assert not never.success.any()
    assert always.success.all()
    _, never_events = roll_events(np.full(20_000, -5), g)
    _, always_events = roll_events(np.full(20_000, 130), g)
    assert not never_events.any()
    assert always_events.all()


# --- R2 -------------------------------------------------------------------------------------


def test_rulebook_event_example_26_percent_die_96_no_disease() -> None:
    roll = event_from_die(26, 96)
    assert roll.die == 96
    assert roll.threshold == 26
    assert roll.success is False


def test_rulebook_event_example_with_a_seed_that_rolls_96() -> None:
    seed = next(s for s in range(10_000) if d100(rng(s)) == 96)
    roll = roll_event(26, rng(seed))
    assert roll.as_dict() == {"die": 96, "threshold": 26, "success": False, "probability": 26}


def test_event_probability_is_clamped_but_kept() -> None:
    roll = roll_event(140, rng())
    assert roll.threshold == 100
    assert roll.probability == 140
    assert roll.success


@pytest.mark.parametrize("bad", ["26", None, math.nan, math.inf, True])
def test_event_rejects_a_probability_that_is_not_a_number(bad: object) -> None:
    g = rng()
    before = g.bit_generator.state
    with pytest.raises(RulesError):
        roll_event(bad, g)  # type: ignore[arg-type]
    assert g.bit_generator.state == before


def test_event_success_rate_is_p() -> None:
    n = 200_000
    dice, success = roll_events(np.full(n, 26), rng(3))
    sigma = math.sqrt(0.26 * 0.74 / n)
    assert abs(success.mean() - 0.26) < 4 * sigma
    assert np.array_equal(success, dice <= 26)


# --- R3 -------------------------------------------------------------------------------------


def test_rulebook_door_three_dice_one_success_is_enough() -> None:
    # Door: threshold 30 %, Fuerza 2 → 3 dice; one success opens it.
    opened = action_from_dice(2, 30, [96, 30, 55])
    assert opened.successes == 1
    assert opened.success
    closed = action_from_dice(2, 30, [31, 96, 100])
    assert closed.successes == 0
    assert not closed.success
    assert opened.p_success == pytest.approx(1 - 0.7**3)


def test_roll_action_door_has_three_dice_and_success_iff_a_die_is_at_most_30() -> None:
    for seed in range(200):
        roll = roll_action(2, 30, rng(seed))
        assert len(roll.dice) == 3
        assert roll.threshold == 30
        assert all(1 <= d <= 100 for d in roll.dice)
        assert roll.successes == sum(d <= 30 for d in roll.dice)
        assert roll.success == any(d <= 30 for d in roll.dice)


def test_action_penalty_lowers_the_threshold_and_is_clamped() -> None:
    hungry = (Modifier("hunger", "Hambre (2 días)", 20),)
    roll = roll_action(1, 30, rng(), hungry)
    assert roll.base_threshold == 30
    assert roll.threshold == 10
    assert roll.penalty_points == 20
    assert roll_action(1, 10, rng(), hungry).threshold == 0
    bonus = (Modifier("treated", "Tratado", -40),)
    assert roll_action(0, 90, rng(), bonus).threshold == 100


def test_action_as_dict_keys() -> None:
    d = roll_action(2, 30, rng(), (Modifier("manual", "Penalización", 5),)).as_dict()
    assert d["dice_count"] == 3
    assert d["dice"] == list(roll_action(2, 30, rng()).dice)
    assert d["threshold"] == 25
    assert d["base_threshold"] == 30
    assert d["penalty"] == 5
    assert d["penalty_breakdown"] == [{"source": "manual", "label": "Penalización", "points": 5}]
    assert set(d) >= {"successes", "success", "p_success"}


@pytest.mark.parametrize(
    ("trait", "threshold"),
    [(-1, 30), (1.5, 30), (True, 30), ("2", 30), (2, "30"), (2, None), (2, math.nan), (5000, 30)],
)
def test_action_rejects_bad_inputs_without_rolling(trait: object, threshold: object) -> None:
    g = rng()
    before = g.bit_generator.state
    with pytest.raises(RulesError):
        roll_action(trait, threshold, g)  # type: ignore[arg-type]
    assert g.bit_generator.state == before


def test_action_from_dice_checks_the_dice() -> None:
    with pytest.raises(RulesError):
        action_from_dice(2, 30, [1, 2])
    with pytest.raises(RulesError):
        action_from_dice(0, 30, [101])


@pytest.mark.parametrize(
    ("trait", "threshold"), [(0, 30), (2, 30), (1, 5), (3, 50), (5, 12), (0, 99)]
)
def test_action_success_rate_matches_the_exact_formula(trait: int, threshold: int) -> None:
    n = 200_000
    rolls = roll_actions(np.full(n, trait), threshold, make_rng(2024, (trait, threshold)))
    p = 1 - (1 - threshold / 100) ** (1 + trait)
    assert action_success_probability(trait, threshold) == pytest.approx(p)
    sigma = math.sqrt(p * (1 - p) / n)
    assert abs(rolls.success.mean() - p) < 4 * sigma
    # Every die counts: the mean number of successes is (1 + X)·T/100.
    mean = (1 + trait) * threshold / 100
    sd = math.sqrt((1 + trait) * threshold / 100 * (1 - threshold / 100) / n)
    assert abs(rolls.successes.mean() - mean) < 4 * sd + 1e-12


def test_roll_actions_pads_unused_dice_with_zero() -> None:
    rolls = roll_actions(np.array([0, 3, 1]), np.array([30, 30, 30]), rng())
    assert rolls.dice.shape == (3, 4)
    assert rolls.dice_count.tolist() == [1, 4, 2]
    assert (rolls.dice[0, 1:] == 0).all()
    assert len(rolls.dice_of(1)) == 4
    assert all(1 <= d <= 100 for d in rolls.dice_of(1))


def test_vectorised_action_equals_scalar_for_one_roll() -> None:
    for seed in range(50):
        scalar = roll_action(2, 40, rng(seed))
        vector = roll_actions(np.array([2]), np.array([40]), rng(seed))
        assert vector.dice_of(0) == scalar.dice
        assert bool(vector.success[0]) == scalar.success
        assert int(vector.successes[0]) == scalar.successes


@given(
    base=st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    penalty=st.lists(st.integers(min_value=-500, max_value=500), max_size=6),
    trait=st.integers(min_value=0, max_value=10),
)
def test_effective_threshold_always_in_0_100(base: float, penalty: list[int], trait: int) -> None:
    lines = tuple(Modifier("x", "x", p) for p in penalty)
    roll = roll_action(trait, base, rng(), lines)
    assert 0 <= roll.threshold <= 100
    assert 0.0 <= roll.p_success <= 1.0
    assert roll.success == (roll.successes >= 1)


# --- R4 plain dice --------------------------------------------------------------------------


def test_roll_dice_faces_in_range() -> None:
    faces = roll_dice(1000, 6, rng())
    assert set(faces) == {1, 2, 3, 4, 5, 6}


@pytest.mark.parametrize(("count", "faces"), [(0, 6), (1, 1), (1001, 6), (1, 1001), (2.0, 6)])
def test_roll_dice_limits(count: object, faces: object) -> None:
    g = rng()
    before = g.bit_generator.state
    with pytest.raises(RulesError):
        roll_dice(count, faces, g)  # type: ignore[arg-type]
    assert g.bit_generator.state == before


@pytest.mark.parametrize(
    ("value", "base", "penalty", "effective", "p"),
    [
        (2, 30, 5, 25, 1 - 0.75**3),  # 3 d100 against 25 %
        (0, 30, 0, 30, 0.30),  # the sheet's reference door: one die at 30 %
        (4, 10, 20, 0, 0.0),  # a penalty past the threshold: 0 never succeeds (R1)
        (1, 95, -10, 100, 1.0),  # clamped to 100: always succeeds
    ],
)
def test_action_chance_is_the_clamped_threshold_and_its_exact_probability(
    value, base, penalty, effective, p
):
    chance = action_chance(value, base, penalty)
    assert (chance.effective, chance.dice, chance.penalty) == (effective, value + 1, penalty)
    assert chance.p == pytest.approx(p, abs=1e-12)


def test_action_rolls_each_from_its_own_generator_match_one_roll_per_key():
    from reglas.core import make_rng
    from reglas.dice import roll_actions, roll_actions_each

    keys = [[7, 22, 5, 0], [7, 22, 9, 0], [7, 22, 12, 0]]
    each = roll_actions_each([1, 4, 0], [50, 30, 80], [make_rng(99, k) for k in keys])
    for i, (value, threshold, key) in enumerate(zip([1, 4, 0], [50, 30, 80], keys, strict=True)):
        alone = roll_actions([value], [threshold], make_rng(99, key))
        assert each.dice_of(i) == alone.dice_of(0)
        assert each.successes[i] == alone.successes[0]
    assert each.dice.shape == (3, 5) and each.dice[2, 1:].tolist() == [0, 0, 0, 0]
    assert roll_actions_each([], [], []).dice.shape == (0, 0)
    with pytest.raises(RulesError) as mismatch:
        roll_actions_each([1, 2], [50, 50], [make_rng(1, [1])])
    assert mismatch.value.code == "roll_generators_mismatch"


def test_expression_totals_each_from_its_own_generator():
    from reglas.core import make_rng
    from reglas.expressions import roll_totals, roll_totals_each

    rngs = [make_rng(3, [7, 22, i, 0]) for i in (1, 2)]
    totals, dice = roll_totals_each("1d6+2", rngs)
    for i in (1, 2):
        t, d = roll_totals("1d6+2", 1, make_rng(3, [7, 22, i, 0]))
        assert int(totals[i - 1]) == int(t[0]) and dice[i - 1].tolist() == d[0].tolist()
    assert int(totals.min()) >= 3 and int(totals.max()) <= 8
    empty_totals, empty_dice = roll_totals_each("1d6+2", [])
    assert empty_totals.shape == (0,) and empty_dice.shape == (0, 1)


def test_action_pools_of_different_sizes_pad_with_zeros_that_never_succeed():
    from reglas.dice import roll_actions

    rng = np.random.default_rng(4)
    # Threshold 0 succeeds on no die (R1: 1..100); the padding zeros of the short pool do not
    # count either, at 0 or at 100.
    out = roll_actions([0, 3, 1], [0, 100, 100], rng)
    assert out.dice_count.tolist() == [1, 4, 2]
    assert out.dice[0, 1:].tolist() == [0, 0, 0] and out.dice[2, 2:].tolist() == [0, 0]
    assert out.successes.tolist() == [0, 4, 2]
    assert out.success.tolist() == [False, True, True]


@pytest.mark.parametrize("k", range(10))
def test_count_per_row_counts_each_rows_true_cells_at_every_width(k):
    # Widths 1, 2, 4 and 8 are read as one integer a row; the others column by column.
    hits = np.random.default_rng(k).random((257, k)) < 0.4
    hits[0] = True  # a full row: the top byte holds k, no carry out of it
    counts = count_per_row(hits)
    assert counts.dtype == np.int16
    assert counts.tolist() == hits.sum(axis=1).tolist()
    assert counts[0] == k
    # A view that is not C-contiguous (every other column) takes the column path.
    wide = np.repeat(hits, 2, axis=1)[:, ::2]
    assert count_per_row(wide).tolist() == hits.sum(axis=1).tolist()


@pytest.mark.parametrize("threshold", [0, 1, 37, 100])
@pytest.mark.parametrize("traits", [[3, 3, 3, 3], [0, 3, 1, 7, 2], [1, 1]])
def test_one_threshold_for_all_rolls_equals_a_column_of_it(traits, threshold) -> None:
    # A scalar threshold is compared as a scalar (the fast path); the outcome is the one of
    # the same threshold given per roll, from the same generator: same dice, same successes.
    values = np.array(traits * 50, dtype=np.int64)
    scalar = roll_actions(values, threshold, rng(threshold))
    column = roll_actions(values, np.full(values.size, threshold), rng(threshold))
    for name in ("dice", "dice_count", "thresholds", "successes", "success"):
        assert getattr(scalar, name).tolist() == getattr(column, name).tolist(), name
    dice = scalar.dice
    expected = ((dice <= threshold) & (dice > 0)).sum(axis=1)
    assert scalar.successes.tolist() == expected.tolist()
    assert scalar.success.tolist() == (expected > 0).tolist()
    assert scalar.successes.dtype == np.int16 and scalar.success.dtype == np.bool_
    assert scalar.dice.dtype == np.int32
    if threshold == 0:
        assert not scalar.success.any()  # a padding 0 is never a success


def test_roll_actions_draws_the_bare_block_of_dice() -> None:
    # The pools' dice are exactly numpy's (n, 1 + trait) draw of d100: the benchmark's
    # reference, and what stored rolls replay.
    values = np.full(1000, 3, dtype=np.int64)
    pools = roll_actions(values, 40, rng(7))
    bare = rng(7).integers(1, 101, size=(1000, 4), dtype=np.int64)
    assert pools.dice.tolist() == bare.tolist()
    assert pools.successes.tolist() == (bare <= 40).sum(axis=1).tolist()


@pytest.mark.parametrize("traits", [[3], [0], [2, 0, 5], [7] * 9, [999]])
def test_int32_dice_are_the_int64_draw_and_leave_the_generator_where_it_would(traits) -> None:
    # The dice are drawn as int32 (half the bytes of int64): numpy draws a d100 from 32-bit
    # words at either width, so the faces, and every later draw of the same generator (the
    # tick goes on drawing from it), are those of the int64 draw the stored rolls came from.
    values = np.array(traits * 37, dtype=np.int64)
    ours, theirs = rng(11), rng(11)
    pools = roll_actions(values, 40, ours)
    bare = theirs.integers(1, 101, size=(values.size, max(traits) + 1), dtype=np.int64)
    bare[np.arange(bare.shape[1]) > values[:, None]] = 0
    assert pools.dice.dtype == np.int32 and pools.dice.tolist() == bare.tolist()
    assert ours.bit_generator.state == theirs.bit_generator.state
    assert ours.integers(1, 101, size=5).tolist() == theirs.integers(1, 101, size=5).tolist()


def test_a_pool_of_a_thousand_dice_counts_every_success() -> None:
    # 1000 dice (trait 999, the R4/R5 ceiling) at 100 %: the count needs more than a byte.
    pools = roll_actions(np.array([999, 999, 0]), 100, rng(5))
    assert pools.successes.tolist() == [1000, 1000, 1]
    assert pools.success.tolist() == [True, True, True]
    assert pools.dice_count.tolist() == [1000, 1000, 1]
    assert (pools.dice[2, 1:] == 0).all() and 1 <= pools.dice[2, 0] <= 100


def test_no_rolls_no_dice() -> None:
    pools = roll_actions(np.zeros(0, dtype=np.int64), 40, rng())
    assert pools.dice.shape == (0, 0) and pools.successes.shape == (0,)
