"""Which items a day's consumption comes from: every holder at once, over arrays.

``reglas.survival.consume`` decides *how much* each character eats, drinks and uses (kcal, L,
rolls) from what it carries and from its shelter's stash; ``reglas.survival.take_food`` turns
one character's kcal into items, soonest-spoiling first, a Python call per character. For a
tick over thousands of characters ``allocate`` makes the same choice for all holders in one
vectorised pass (sort by holder and spoil day, grouped cumulative sums): with the items' spoil
days as ``order`` it reproduces ``take_food`` (tests/reglas/test_allocation.py checks it
against the scalar function).

Source: RULES.md R15 (soonest-spoiling first, "lo justo y necesario").
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


def allocate(
    *,
    holder: I64,
    order: F64,
    per_unit: F64,
    units: F64,
    need: F64,
) -> F64:
    """Units taken from each of k items so that each holder gets ``need[holder]``.

    ``holder`` (k,) index of the item's holder into ``need`` (m,) (amounts in the items' own
    measure: kcal, L, rolls, doses); ``order`` (k,) the taking order within a holder (lower
    first: the spoil day, +inf for food that does not spoil; ties keep the items' given order);
    ``per_unit`` (k,) amount per unit (0 = unusable: spoiled or of another kind); ``units``
    (k,) units held. Takes fractional units, never more than an item has; a holder whose items
    fall short gets what there is. Returns units taken (k,), float64. Raises nothing; the
    arrays must have matching lengths (numpy raises ``IndexError`` otherwise).
    Source: RULES.md R15.
    """
    k = holder.shape[0]
    taken = np.zeros(k, dtype=np.float64)
    if k == 0:
        return taken
    value = np.where(per_unit > 0, units * per_unit, 0.0)
    # lexsort: last key is primary → holder, then order, then position (stable ties).
    idx = np.lexsort((np.arange(k), order, holder))
    h = holder[idx]
    v = value[idx]
    csum = np.cumsum(v)
    # Cumulative amount of the holder's earlier items: subtract the group's starting offset.
    starts = np.flatnonzero(np.r_[True, h[1:] != h[:-1]])
    group_base = np.repeat(csum[starts] - v[starts], np.diff(np.r_[starts, k]))
    before = csum - v - group_base
    take_value = np.clip(need[h] - before, 0.0, v)
    with np.errstate(divide="ignore", invalid="ignore"):
        take_units = np.where(v > 0, take_value / per_unit[idx], 0.0)
    taken[idx] = np.minimum(take_units, units[idx])
    return taken


def totals(holder: I64, amount: F64, m: int) -> F64:
    """Sum of ``amount`` (k,) per holder: ``holder`` (k,) indexes 0..m−1; returns (m,) float64.

    Source: RULES.md R15 (what a holder has is the sum of its stacks).
    """
    if holder.shape[0] == 0:
        return np.zeros(m, dtype=np.float64)
    return np.bincount(holder, weights=amount, minlength=m).astype(np.float64)
