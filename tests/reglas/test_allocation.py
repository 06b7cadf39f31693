"""The tick's vectorised item choice agrees with the engine's ``take_food`` (R15)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reglas.allocation import allocate
from reglas.survival import EPSILON, FoodItem, take_food

stack = st.tuples(
    st.integers(0, 3),  # holder
    st.one_of(st.just(0.0), st.floats(1, 800)),  # kcal per unit (0: not food)
    st.floats(0, 6),  # units
    st.one_of(st.none(), st.integers(0, 20)),  # spoil day (None: keeps)
)


@settings(max_examples=200, deadline=None)
@given(st.lists(stack, max_size=12), st.lists(st.floats(0, 5000), min_size=4, max_size=4))
def test_allocate_matches_take_food_for_every_holder(stacks, needs):
    holder = np.array([s[0] for s in stacks], dtype=np.int64)
    per_unit = np.array([s[1] for s in stacks], dtype=np.float64)
    units = np.array([s[2] for s in stacks], dtype=np.float64)
    order = np.array([np.inf if s[3] is None else float(s[3]) for s in stacks], dtype=np.float64)
    need = np.array(needs)
    taken = allocate(holder=holder, order=order, per_unit=per_unit, units=units, need=need)
    assert np.all(taken <= units + 1e-12)
    for h in range(4):
        mine = [i for i, s in enumerate(stacks) if s[0] == h]
        expected = take_food(
            [FoodItem(i, stacks[i][1], stacks[i][2], stacks[i][3]) for i in mine], needs[h]
        )
        kcal = {t.item_id: t.kcal for t in expected}
        for i in mine:
            # The same kcal from the same items, soonest-spoiling first; take_food stops once
            # what is left to take is within its EPSILON (1e-6 kcal), allocate does not.
            assert abs(taken[i] * per_unit[i] - kcal.get(i, 0.0)) <= 2 * EPSILON
