"""Zombie and survivor populations. Source: RULES.md R17."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reglas.errors import RulesError
from reglas.population import (
    apply_adjustments,
    apply_adjustments_many,
    population,
    population_curve,
    population_many,
)


def test_rulebook_village_of_200_on_day_7() -> None:
    pop = population(200, 7)
    assert pop.p == pytest.approx(169.28, abs=0.005)
    assert (pop.zombies, pop.survivors) == (170, 30)


def test_village_of_173_on_day_7() -> None:
    pop = population(173, 7)
    assert pop.zombies == 150
    assert pop.survivors == 23


def test_formula_matches_the_rulebook_form_where_it_does_not_overflow() -> None:
    k, t = 200, 7
    e = math.exp(t)
    assert population(k, t).p == pytest.approx(k * e / (k + (e - 1)))


def test_large_t_does_not_overflow() -> None:
    pop = population(200, 1000)
    assert pop.p == pytest.approx(200)
    assert (pop.zombies, pop.survivors) == (200, 0)
    arrays = population_many([200, 5000], [1000, 10_000])
    assert arrays.zombies.tolist() == [200, 5000]
    assert np.all(np.isfinite(arrays.p))


def test_day_zero_is_p0_and_empty_places_stay_empty() -> None:
    assert population(200, 0).zombies == 1
    assert population(0, 0).zombies == 0
    assert population(0, 30).survivors == 0


def test_rate_changes_the_speed() -> None:
    assert population(200, 7, r=0.5).zombies < population(200, 7).zombies


def test_curve_is_non_decreasing_and_bounded() -> None:
    curve = population_curve(200, range(0, 31))
    assert [c.t for c in curve] == list(range(0, 31))
    zombies = [c.zombies for c in curve]
    assert zombies == sorted(zombies)
    assert all(c.zombies + c.survivors == 200 for c in curve)
    assert curve[7] == population(200, 7)


@pytest.mark.parametrize(
    ("k", "t", "r", "p0"),
    [
        (-1, 7, 1.0, 1.0),
        (200, -1, 1.0, 1.0),
        (200, 7, 0.0, 1.0),
        (200, 7, -1.0, 1.0),
        (200, 7, 1.0, 0.0),
        (200.5, 7, 1.0, 1.0),
        (200, float("nan"), 1.0, 1.0),
    ],
)
def test_validation(k: int, t: float, r: float, p0: float) -> None:
    with pytest.raises(RulesError):
        population(k, t, r, p0)
    with pytest.raises(RulesError):
        population_many([k], [t], r, p0)


def test_numpy_integers_are_accepted() -> None:
    assert population(np.int64(200), np.int64(7)).zombies == 170


def test_adjustments_apply_on_top_and_never_below_zero() -> None:
    pop = population(200, 7)  # 170 zombies, 30 survivors
    adjusted = apply_adjustments(pop, destroyed=20, rescued=5, risen=2)
    # R17 (amended): a risen character moves one survivor to the zombies (30 − 5 − 2 = 23).
    assert (adjusted.zombies, adjusted.survivors) == (152, 23)
    risen = apply_adjustments(pop, risen=1)
    assert (risen.zombies, risen.survivors) == (171, 29)
    assert risen.zombies + risen.survivors == 200
    assert adjusted.base == pop
    floor = apply_adjustments(pop, destroyed=500, rescued=500)
    assert (floor.zombies, floor.survivors) == (0, 0)
    with pytest.raises(RulesError):
        apply_adjustments(pop, destroyed=-1)
    z, s = apply_adjustments_many(
        [170, 10], [30, 0], destroyed=[20, 50], rescued=[5, 1], risen=[2, 0]
    )
    assert z.tolist() == [152, 0] and s.tolist() == [23, 0]
    with pytest.raises(RulesError):
        apply_adjustments_many([1], [1], rescued=[-1])


def test_vectorised_matches_scalar() -> None:
    ks = np.array([0, 1, 50, 173, 200, 1000, 25_000])
    ts = np.arange(0, 40)
    arrays = population_many(ks[:, None], ts[None, :])
    assert arrays.zombies.shape == (len(ks), len(ts))
    for i, k in enumerate(ks):
        for j, t in enumerate(ts):
            pop = population(int(k), int(t))
            assert arrays.zombies[i, j] == pop.zombies
            assert arrays.survivors[i, j] == pop.survivors
            assert arrays.p[i, j] == pytest.approx(pop.p)


@given(
    k=st.integers(min_value=0, max_value=10**7),
    t=st.floats(min_value=0, max_value=1e6),
    r=st.floats(min_value=1e-3, max_value=10),
)
def test_invariants(k: int, t: float, r: float) -> None:
    pop = population(k, t, r)
    assert 0 <= pop.zombies <= k
    assert pop.zombies + pop.survivors == k
    assert math.isfinite(pop.p)
    if k:
        assert pop.zombies == min(k, math.ceil(round(pop.p, 9)))
