"""Automatic consumption: what each character eats, drinks and uses in a day, and from where.

``consume`` is vectorised over n characters and m shelters' shared stashes; ``take_food``
turns a kcal amount into food items taken, soonest-spoiling first (a per-character list, for
the shell).

Source: RULES.md R15, R7 (toilet paper).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Self

import numpy as np
from numpy.typing import ArrayLike

from reglas.errors import LABELS, RulesError
from reglas.settings import DEFAULT_SETTINGS, RuleSettings
from reglas.survival.columns import EPSILON, F64, I64, float_column, int_column

# --- food items (per character, for the shell) ------------------------------------------------


@dataclass(frozen=True, slots=True)
class FoodItem:
    """A food stack: ``units`` (≥ 0, may be fractional) of ``kcal_per_unit`` kcal each,
    spoiling after in-game day ``spoil_day`` (None = does not spoil). ``item_id`` is opaque."""

    item_id: int | str
    kcal_per_unit: float
    units: float
    spoil_day: int | None = None


@dataclass(frozen=True, slots=True)
class FoodTaken:
    """Units taken from one food item and the kcal they give."""

    item_id: int | str
    units: float
    kcal: float


def take_food(
    items: Sequence[FoodItem],
    kcal_needed: float,
    *,
    today: int | None = None,
    whole_units: bool = False,
) -> tuple[FoodTaken, ...]:
    """Choose the food that covers ``kcal_needed`` kcal, soonest-spoiling first.

    Items are taken in order of ``spoil_day`` (non-spoiling last; ties keep the given order);
    with ``today`` set, items whose ``spoil_day < today`` are spoiled and skipped. Takes
    fractional units ("lo justo y necesario"); with ``whole_units`` the last item is rounded
    up to whole units (the kcal may then exceed the need). Never takes more units than an item
    has. Returns one ``FoodTaken`` per item touched, in the order taken.
    Raises RulesError for negative or non-finite amounts. Source: RULES.md R15.
    """
    need = float(kcal_needed)
    if not math.isfinite(need) or need < 0:
        raise RulesError(
            "kcal_needed_invalid",
            f"Las kcal necesarias deben ser un número no negativo ({kcal_needed!r}).",
            value=repr(kcal_needed),
        )
    for item in items:
        for value, what in ((item.kcal_per_unit, "kcal_per_unit"), (item.units, "units")):
            if not math.isfinite(float(value)) or float(value) < 0:
                raise RulesError(
                    "food_invalid",
                    f"El alimento «{item.item_id}» tiene {LABELS[what]} no válidas ({value}).",
                    item=item.item_id,
                    what=what,
                    value=value,
                )
    order = sorted(
        range(len(items)),
        key=lambda i: (
            items[i].spoil_day is None,
            items[i].spoil_day if items[i].spoil_day is not None else 0,
            i,
        ),
    )
    taken: list[FoodTaken] = []
    remaining = need
    for i in order:
        if remaining <= EPSILON:
            break
        item = items[i]
        if item.units <= 0 or item.kcal_per_unit <= 0:
            continue
        if today is not None and item.spoil_day is not None and item.spoil_day < today:
            continue
        units = min(float(item.units), remaining / item.kcal_per_unit)
        if whole_units:
            units = min(float(item.units), float(math.ceil(units - EPSILON)))
        kcal = units * item.kcal_per_unit
        taken.append(FoodTaken(item.item_id, units, kcal))
        remaining -= kcal
    return tuple(taken)


# --- supplies and consumption ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Supplies:
    """Amounts per holder (characters ``(n,)`` or shelters ``(m,)``): food ``kcal``,
    ``water_l`` (L) and ``toilet_paper_rolls``; float64, never negative."""

    kcal: F64
    water_l: F64
    toilet_paper_rolls: F64

    @classmethod
    def of(
        cls, kcal: ArrayLike, water_l: ArrayLike = 0.0, toilet_paper_rolls: ArrayLike = 0.0
    ) -> Self:
        """Validated arrays (scalars broadcast to the length of ``kcal``).

        Raises RulesError for negative, non-finite or mismatched amounts.
        """
        k = np.asarray(kcal, dtype=np.float64)
        n = 1 if k.ndim == 0 else int(k.shape[0])
        return cls(
            kcal=float_column(kcal, n, "kcal"),
            water_l=float_column(water_l, n, "agua (L)"),
            toilet_paper_rolls=float_column(toilet_paper_rolls, n, "papel higiénico (rollos)"),
        )

    @classmethod
    def zeros(cls, n: int) -> Self:
        """Nothing, for n holders."""
        return cls(np.zeros(n), np.zeros(n), np.zeros(n))

    def __len__(self) -> int:
        return int(self.kcal.shape[0])


@dataclass(frozen=True, slots=True)
class Consumption:
    """What the tick took for each of n characters (``(n,)``) and from each of m stashes
    (``stash_taken``, ``(m,)``); amounts in kcal, L and rolls.

    ``*_from_carried`` + ``*_from_stash`` = ``kcal_eaten`` / ``water_drunk_l`` /
    ``paper_used_rolls``. ``carried_after``/``stash_after`` are never negative.
    """

    kcal_eaten: F64
    kcal_from_carried: F64
    kcal_from_stash: F64
    water_drunk_l: F64
    water_from_carried_l: F64
    water_from_stash_l: F64
    paper_used_rolls: F64
    paper_from_carried: F64
    paper_from_stash: F64
    carried_after: Supplies
    stash_taken: Supplies
    stash_after: Supplies


def _draw(need: F64, carried: F64, group: I64, pool: F64 | None) -> tuple[F64, F64, F64]:
    """Take ``need`` from ``carried`` first, then from the group's ``pool``.

    When a pool cannot cover its group's remaining demand, every member gets the same share
    of its own remaining need (proportional split): a shared stash is shared, it is not
    first-come. Returns (from_carried (n,), from_pool (n,), pool_taken (m,)).
    """
    from_carried = np.minimum(carried, need)
    rest = need - from_carried
    if pool is None or pool.size == 0:
        return from_carried, np.zeros_like(need), np.zeros(0 if pool is None else pool.size)
    m = pool.size
    member = group >= 0
    g = np.where(member, group, 0)
    demand = np.bincount(g[member], weights=rest[member], minlength=m)
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = np.where(demand > 0, np.minimum(1.0, pool / demand), 0.0)
    from_pool = np.where(member, rest * fraction[g], 0.0)
    taken = np.minimum(np.bincount(g[member], weights=from_pool[member], minlength=m), pool)
    return from_carried, from_pool, taken


def consume(
    carried: Supplies,
    settings: RuleSettings = DEFAULT_SETTINGS,
    *,
    shelter: ArrayLike | None = None,
    stash: Supplies | None = None,
) -> Consumption:
    """Automatic consumption for one day: food up to ``daily_kcal`` (2000 kcal), water up to
    ``daily_water_l`` (2 L) and toilet paper up to ``toilet_paper_rolls_per_day`` (0.2 roll),
    first from what each character carries, then (if ``allow_shelter_stash``) from the shared
    stash of its shelter.

    ``carried`` (n,); ``shelter`` int (n,) index into ``stash`` (m,), −1 = no shelter. If a
    stash cannot cover its members it is split in proportion to what each still needs. Takes
    what there is when short (the day is then short, R6); never makes anything negative.
    Which food items the kcal come from is ``take_food``'s job.
    Raises RulesError for mismatched shapes or a shelter index out of range.
    Source: RULES.md R15, R7 (toilet paper).
    """
    n = len(carried)
    use_stash = stash is not None and settings.allow_shelter_stash
    group = np.full(n, -1, np.int64)
    if use_stash and shelter is not None:
        group = int_column(shelter, n, "refugio", minimum=-1)
        assert stash is not None
        if group.size and group.max() >= len(stash):
            raise RulesError(
                "shelter_index_out_of_range",
                "Un índice de refugio no tiene despensa (fuera de rango).",
            )
    pool = stash if use_stash else None

    def need(value: float) -> F64:
        return np.full(n, float(value))

    k_c, k_s, k_t = _draw(
        need(settings.daily_kcal), carried.kcal, group, None if pool is None else pool.kcal
    )
    w_c, w_s, w_t = _draw(
        need(settings.daily_water_l), carried.water_l, group, None if pool is None else pool.water_l
    )
    p_c, p_s, p_t = _draw(
        need(settings.toilet_paper_rolls_per_day),
        carried.toilet_paper_rolls,
        group,
        None if pool is None else pool.toilet_paper_rolls,
    )
    if pool is not None:
        taken = Supplies(k_t, w_t, p_t)
        stash_after = Supplies(
            np.maximum(pool.kcal - k_t, 0.0),
            np.maximum(pool.water_l - w_t, 0.0),
            np.maximum(pool.toilet_paper_rolls - p_t, 0.0),
        )
    else:
        # No stash, or the setting forbids it: any stash given is returned untouched.
        taken = Supplies.zeros(0 if stash is None else len(stash))
        stash_after = stash if stash is not None else Supplies.zeros(0)
    carried_after = Supplies(
        np.maximum(carried.kcal - k_c, 0.0),
        np.maximum(carried.water_l - w_c, 0.0),
        np.maximum(carried.toilet_paper_rolls - p_c, 0.0),
    )
    return Consumption(
        kcal_eaten=k_c + k_s,
        kcal_from_carried=k_c,
        kcal_from_stash=k_s,
        water_drunk_l=w_c + w_s,
        water_from_carried_l=w_c,
        water_from_stash_l=w_s,
        paper_used_rolls=p_c + p_s,
        paper_from_carried=p_c,
        paper_from_stash=p_s,
        carried_after=carried_after,
        stash_taken=taken,
        stash_after=stash_after,
    )
