"""Needs: the two counters of each need (short days, days without) and their deaths.

The rulebook separates a day *with* hunger ("por cada día con hambre": the penalty) from a day
*without* eating ("5 días sin comer = muerte"). A day under the requirement is a short day (the
hunger, thirst and fatigue counters, which cost points); a day under ``deprivation_fraction`` of
it (0.25: under 500 kcal, 0.5 L, 1.5 h) is also a day without, and only days without in a row
kill. A character living on 1500 kcal a day is hungry every day but does not starve.

Source: RULES.md R6, R14, R15.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

import numpy as np
from numpy.typing import ArrayLike, NDArray

from reglas.settings import DEFAULT_SETTINGS, RuleSettings
from reglas.survival.columns import EPSILON, F64, I64, B, float_column, int_column

CAUSE_HUNGER = "hunger"
CAUSE_THIRST = "thirst"
CAUSE_FATIGUE = "fatigue"


@dataclass(frozen=True, slots=True)
class NeedsArrays:
    """One day of needs for n characters, shape ``(n,)``: ``kcal_eaten`` (kcal),
    ``water_drunk_l`` (L), ``sleep_h`` (h; NaN = no record → ``default_sleep_h``), and the
    counters at the start of the tick: consecutive short days (``hunger_days``…) and
    consecutive days without (``days_without_food``…)."""

    kcal_eaten: F64
    water_drunk_l: F64
    sleep_h: F64
    hunger_days: I64
    thirst_days: I64
    fatigue_days: I64
    days_without_food: I64
    days_without_water: I64
    days_without_sleep: I64

    @classmethod
    def of(
        cls,
        kcal_eaten: ArrayLike,
        water_drunk_l: ArrayLike,
        sleep_h: ArrayLike = np.nan,
        hunger_days: ArrayLike = 0,
        thirst_days: ArrayLike = 0,
        fatigue_days: ArrayLike = 0,
        days_without_food: ArrayLike = 0,
        days_without_water: ArrayLike = 0,
        days_without_sleep: ArrayLike = 0,
    ) -> Self:
        """Validated arrays; scalars broadcast to the length of ``kcal_eaten``.

        Raises RulesError for negative or non-finite amounts, non-int or negative counters.
        """
        k = np.asarray(kcal_eaten)
        n = 1 if k.ndim == 0 else int(k.shape[0])
        return cls(
            kcal_eaten=float_column(kcal_eaten, n, "kcal comidas"),
            water_drunk_l=float_column(water_drunk_l, n, "agua bebida (L)"),
            sleep_h=float_column(sleep_h, n, "horas de sueño", allow_nan=True),
            hunger_days=int_column(hunger_days, n, "días de hambre"),
            thirst_days=int_column(thirst_days, n, "días de sed"),
            fatigue_days=int_column(fatigue_days, n, "días de fatiga"),
            days_without_food=int_column(days_without_food, n, "días sin comer"),
            days_without_water=int_column(days_without_water, n, "días sin beber"),
            days_without_sleep=int_column(days_without_sleep, n, "días sin dormir"),
        )


@dataclass(frozen=True, slots=True)
class NeedsOutcome:
    """Needs after the day, shape ``(n,)``.

    ``sleep_h`` with the default applied; ``hungry``/``thirsty``/``tired`` whether the day
    was short; ``without_food``/``without_water``/``without_sleep`` whether it was also a day
    without (under ``deprivation_fraction`` of the need); the new counters of both kinds;
    ``died_of_*`` per cause; ``dead``; ``death_cause`` a str array (``"hunger"``,
    ``"thirst"``, ``"fatigue"`` or ``""``; thirst, then hunger, then fatigue when several
    counters of days without reach their death value on the same tick).
    """

    sleep_h: F64
    hungry: B
    thirsty: B
    tired: B
    without_food: B
    without_water: B
    without_sleep: B
    hunger_days: I64
    thirst_days: I64
    fatigue_days: I64
    days_without_food: I64
    days_without_water: I64
    days_without_sleep: I64
    died_of_hunger: B
    died_of_thirst: B
    died_of_fatigue: B
    dead: B
    death_cause: NDArray[np.str_]


def short_day(amount: ArrayLike, requirement: float) -> B:
    """True where ``amount`` is less than ``requirement`` (1999 of 2000 kcal is short).

    A shortfall within ``EPSILON`` is float rounding, not a short day. Source: RULES.md R6.
    """
    return np.asarray(amount, dtype=np.float64) < requirement - EPSILON


def _counted(flag: B, before: I64) -> I64:
    """A counter of consecutive days: +1 where ``flag``, else back to 0."""
    return np.where(flag, before + 1, 0).astype(np.int64)


def advance_needs(needs: NeedsArrays, settings: RuleSettings = DEFAULT_SETTINGS) -> NeedsOutcome:
    """Update both counters of each need and detect deaths by deprivation.

    A day short of ``daily_kcal`` / ``daily_water_l`` / ``daily_sleep_h`` adds 1 to the
    hunger / thirst / fatigue counter (the points of R9 and R10); a day that meets it resets
    it. A day under ``deprivation_fraction`` × the need (0.25: under 500 kcal, 0.5 L, 1.5 h)
    adds 1 to the days without eating / drinking / sleeping; a day at or above that fraction
    resets them. A counter of days without reaching its death value (5 food, 3 water, 7
    sleep) kills on this tick. Example: 1500 kcal every day → hungry every day, never
    starves; 0 kcal for 5 days → dies on the 5th tick. Source: RULES.md R6, R14, R15.
    """
    s = settings
    sleep = np.where(np.isnan(needs.sleep_h), s.default_sleep_h, needs.sleep_h)
    hungry = short_day(needs.kcal_eaten, s.daily_kcal)
    thirsty = short_day(needs.water_drunk_l, s.daily_water_l)
    tired = short_day(sleep, s.daily_sleep_h)
    fraction = s.deprivation_fraction
    without_food = short_day(needs.kcal_eaten, fraction * s.daily_kcal)
    without_water = short_day(needs.water_drunk_l, fraction * s.daily_water_l)
    without_sleep = short_day(sleep, fraction * s.daily_sleep_h)
    hunger = _counted(hungry, needs.hunger_days)
    thirst = _counted(thirsty, needs.thirst_days)
    fatigue = _counted(tired, needs.fatigue_days)
    no_food = _counted(without_food, needs.days_without_food)
    no_water = _counted(without_water, needs.days_without_water)
    no_sleep = _counted(without_sleep, needs.days_without_sleep)
    d_h = no_food >= s.hunger_death_days
    d_t = no_water >= s.thirst_death_days
    d_f = no_sleep >= s.fatigue_death_days
    cause = np.where(
        d_t, CAUSE_THIRST, np.where(d_h, CAUSE_HUNGER, np.where(d_f, CAUSE_FATIGUE, ""))
    ).astype("<U7")
    return NeedsOutcome(
        sleep_h=sleep,
        hungry=hungry,
        thirsty=thirsty,
        tired=tired,
        without_food=without_food,
        without_water=without_water,
        without_sleep=without_sleep,
        hunger_days=hunger,
        thirst_days=thirst,
        fatigue_days=fatigue,
        days_without_food=no_food,
        days_without_water=no_water,
        days_without_sleep=no_sleep,
        died_of_hunger=d_h,
        died_of_thirst=d_t,
        died_of_fatigue=d_f,
        dead=d_h | d_t | d_f,
        death_cause=cause,
    )
