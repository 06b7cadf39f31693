"""Shop supplies. Source: RULES.md R23."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reglas.core import make_rng
from reglas.errors import RulesError
from reglas.supplies import SHOP_TYPES, band_for, roll_shop_supplies
from reglas.tables import DEFAULT_SUPPLIES

from .world_helpers import ScriptedRng


def test_shop_types() -> None:
    assert set(SHOP_TYPES) == {
        "supermercado",
        "tienda",
        "gasolinera",
        "comercio_alimenticio",
        "farmacia",
    }


@pytest.mark.parametrize(
    ("total", "lo", "hi"),
    [
        (1, 76, 100),
        (30, 76, 100),
        (31, 41, 75),
        (60, 41, 75),
        (61, 11, 40),
        (90, 11, 40),
        (91, 1, 10),
        (120, 1, 10),
        (121, 0, 0),
        (400, 0, 0),
    ],
)
def test_band_boundaries(total: int, lo: int, hi: int) -> None:
    _, band = band_for(total)
    assert (band.min_pct, band.max_pct) == (lo, hi)


@pytest.mark.parametrize(
    ("die", "day", "lo", "hi"),
    [
        (30, 0, 76, 100),
        (31, 0, 41, 75),
        (30, 10, 41, 75),  # 30 + 30 = 60, the top of the second band
        (60, 0, 41, 75),
        (61, 0, 11, 40),
        (90, 0, 11, 40),
        (91, 0, 1, 10),
        (60, 20, 1, 10),  # 60 + 60 = 120
        (61, 20, 0, 0),  # 121 → empty
    ],
)
def test_roll_lands_in_the_band_of_die_plus_three_times_day(
    die: int, day: int, lo: int, hi: int
) -> None:
    total = die + 3 * day
    expected = band_for(total)[1]
    assert (expected.min_pct, expected.max_pct) == (lo, hi)
    share_faces = [lo] if hi > lo else []
    supplies = roll_shop_supplies("supermercado", day, ScriptedRng([die, *share_faces]))
    assert (supplies.die, supplies.day_modifier, supplies.total) == (die, 3 * day, total)
    assert (supplies.band_min_pct, supplies.band_max_pct) == (
        expected.min_pct,
        expected.max_pct,
    )


def test_worked_supermarket() -> None:
    # Day 7: d100 12 + 21 = 33 → 41–75 %, share draw 50 % → half of the base stock.
    supplies = roll_shop_supplies("supermercado", 7, ScriptedRng([12, 50]))
    assert (supplies.total, supplies.share_roll, supplies.share_pct) == (33, 50, 50)
    assert (
        supplies.food_kcal,
        supplies.water_l,
        supplies.toilet_paper_rolls,
        supplies.medicine_doses,
    ) == (750_000, 1000, 200, 10)
    text = supplies.describe()
    assert "12" in text and "21" in text and "50 %" in text


def test_stock_rounds_down() -> None:
    # Farmacia, 7 %: 10 000 kcal → 700, 50 L → 3 (3.5), 30 rolls → 2 (2.1), 500 doses → 35.
    supplies = roll_shop_supplies("farmacia", 30, ScriptedRng([1, 7]))
    assert supplies.total == 91
    assert (
        supplies.food_kcal,
        supplies.water_l,
        supplies.toilet_paper_rolls,
        supplies.medicine_doses,
    ) == (700, 3, 2, 35)


def test_day_forty_is_always_empty_whatever_the_die() -> None:
    for die in (1, 50, 100):
        supplies = roll_shop_supplies("tienda", 40, ScriptedRng([die]))
        assert supplies.empty and supplies.share_roll is None
        assert supplies.food_kcal == supplies.water_l == 0
    rng = make_rng(23)
    assert all(roll_shop_supplies("gasolinera", 40, rng).empty for _ in range(200))


def test_shares_cover_their_band_uniformly_enough() -> None:
    rng = make_rng(23, (2,))
    shares = {roll_shop_supplies("tienda", 0, ScriptedRng([1, s])).share_pct for s in (76, 100)}
    assert shares == {76, 100}
    # Day 0: the d100 alone reaches the four non-empty bands, so every share 1..100 appears.
    seen = {roll_shop_supplies("tienda", 0, rng).share_pct for _ in range(4000)}
    assert seen == set(range(1, 101))


def test_errors() -> None:
    with pytest.raises(RulesError, match="Tipo de tienda desconocido"):
        roll_shop_supplies("armeria", 1, make_rng(0))
    with pytest.raises(RulesError, match="negativo"):
        roll_shop_supplies("tienda", -1, make_rng(0))


@given(
    shop=st.sampled_from(SHOP_TYPES),
    day=st.integers(min_value=0, max_value=200),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_supplies_never_negative_nor_above_base(shop: str, day: int, seed: int) -> None:
    supplies = roll_shop_supplies(shop, day, make_rng(seed))
    base = DEFAULT_SUPPLIES.shop(shop)
    assert 0 <= supplies.food_kcal <= base.food_kcal
    assert 0 <= supplies.water_l <= base.water_l
    assert 0 <= supplies.toilet_paper_rolls <= base.toilet_paper_rolls
    assert 0 <= supplies.medicine_doses <= base.medicine_doses
    assert supplies.band_min_pct <= supplies.share_pct <= supplies.band_max_pct
