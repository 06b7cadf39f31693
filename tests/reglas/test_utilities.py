"""Power and water cuts. Source: RULES.md R16 (day 10 → 10 %)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reglas.core import make_rng
from reglas.errors import RulesError
from reglas.utilities import cut_probability, roll_utilities, roll_utilities_many

from .world_helpers import ScriptedRng

N = 20_000


@pytest.mark.parametrize(("day", "p"), [(0, 0), (1, 1), (10, 10), (99, 99), (100, 100), (400, 100)])
def test_cut_probability_is_the_day_clamped(day: int, p: int) -> None:
    assert cut_probability(day) == p


def test_day_ten_cuts_about_ten_percent_of_each_supply() -> None:
    rolls = roll_utilities_many(10, np.ones(N, bool), np.ones(N, bool), make_rng(1, (16,)))
    sigma = math.sqrt(0.1 * 0.9 / N)
    for cut in (rolls.power_cut_today, rolls.water_cut_today):
        assert abs(cut.mean() - 0.10) < 4 * sigma
    # Independent: both cut ≈ 1 %.
    both = (rolls.power_cut_today & rolls.water_cut_today).mean()
    assert abs(both - 0.01) < 4 * math.sqrt(0.01 * 0.99 / N)


def test_day_zero_never_and_day_hundred_or_more_always() -> None:
    rng = make_rng(2, (16,))
    on = np.ones(N, bool)
    assert not roll_utilities_many(0, on, on, rng).power_cut_today.any()
    for day in (100, 250):
        rolls = roll_utilities_many(day, on, on, rng)
        assert rolls.power_cut_today.all() and rolls.water_cut_today.all()
        assert not rolls.power_on.any() and not rolls.water_on.any()


def test_a_cut_stays_cut_and_rolls_nothing() -> None:
    roll = roll_utilities(0, power_on=False, water_on=False, rng=ScriptedRng([]))
    assert (roll.power_on, roll.water_on) == (False, False)
    assert (roll.power_die, roll.water_die) == (None, None)
    assert not roll.power_cut_today and not roll.water_cut_today
    rolls = roll_utilities_many(
        5, [False, True, False], [True, False, False], np.random.default_rng(0)
    )
    assert not rolls.power_on[0] and not rolls.power_on[2]
    assert rolls.power_die[0] == 0 and rolls.water_die[1] == 0
    assert not rolls.water_on[1]


def test_scalar_roll_with_scripted_dice() -> None:
    # Day 10: power die 10 cuts (≤ 10), water die 11 does not.
    roll = roll_utilities(10, True, True, ScriptedRng([10, 11]))
    assert (roll.power_die, roll.water_die) == (10, 11)
    assert roll.power_cut_today and not roll.water_cut_today
    assert (roll.power_on, roll.water_on) == (False, True)
    assert "10" in roll.describe() and "11" in roll.describe()


def test_a_grid_over_many_days_never_comes_back() -> None:
    rng = make_rng(3, (16,))
    power, water = True, True
    for day in range(0, 60):
        roll = roll_utilities(day, power, water, rng)
        assert not (roll.power_on and not power)
        assert not (roll.water_on and not water)
        power, water = roll.power_on, roll.water_on
    assert not power and not water  # at ≥ 50 % a day for 10 days, both go


def test_vectorised_rows_match_and_days_can_differ_per_grid() -> None:
    rolls = roll_utilities_many([0, 100, 30], [True] * 3, [True] * 3, make_rng(4))
    assert rolls.probability.tolist() == [0, 100, 30]
    assert len(rolls) == 3
    row = rolls.row(1)
    assert row.day == 100 and row.power_cut_today and row.water_cut_today
    for i in range(3):
        r = rolls.row(i)
        assert r.power_cut_today == (r.power_die is not None and r.power_die <= r.probability)


def test_negative_day_and_bad_shapes_raise() -> None:
    with pytest.raises(RulesError):
        roll_utilities(-1, True, True, np.random.default_rng(0))
    with pytest.raises(RulesError):
        roll_utilities_many(-1, [True], [True], np.random.default_rng(0))
    with pytest.raises(RulesError):
        roll_utilities_many(1, [True, True], [True], np.random.default_rng(0))
    with pytest.raises(RulesError):
        roll_utilities_many([1, 2, 3], [True, True], [True, True], np.random.default_rng(0))
