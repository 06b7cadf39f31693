"""Needs: the hunger, thirst and fatigue counters of consecutive short days, and their deaths.

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
    counters at the start of the tick (consecutive short days)."""

    kcal_eaten: F64
    water_drunk_l: F64
    sleep_h: F64
    hunger_days: I64
    thirst_days: I64
    fatigue_days: I64

    @classmethod
    def of(
        cls,
        kcal_eaten: ArrayLike,
        water_drunk_l: ArrayLike,
        sleep_h: ArrayLike = np.nan,
        hunger_days: ArrayLike = 0,
        thirst_days: ArrayLike = 0,
        fatigue_days: ArrayLike = 0,
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
        )


@dataclass(frozen=True, slots=True)
class NeedsOutcome:
    """Needs after the day, shape ``(n,)``.

    ``sleep_h`` with the default applied; ``hungry``/``thirsty``/``tired`` whether the day
    was short; the new counters; ``died_of_*`` per cause; ``dead``; ``death_cause`` a str array
    (``"hunger"``, ``"thirst"``, ``"fatigue"`` or ``""``; thirst, then hunger, then fatigue
    when several counters reach their death value on the same tick).
    """

    sleep_h: F64
    hungry: B
    thirsty: B
    tired: B
    hunger_days: I64
    thirst_days: I64
    fatigue_days: I64
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


def advance_needs(needs: NeedsArrays, settings: RuleSettings = DEFAULT_SETTINGS) -> NeedsOutcome:
    """Update the hunger, thirst and fatigue counters and detect deaths by deprivation.

    A day short of ``daily_kcal`` / ``daily_water_l`` / ``daily_sleep_h`` adds 1 to the
    counter; a day that meets it resets it to 0. A counter reaching its death value
    (5 hunger, 3 thirst, 7 fatigue) kills on this tick. Source: RULES.md R6, R14, R15.
    """
    sleep = np.where(np.isnan(needs.sleep_h), settings.default_sleep_h, needs.sleep_h)
    hungry = short_day(needs.kcal_eaten, settings.daily_kcal)
    thirsty = short_day(needs.water_drunk_l, settings.daily_water_l)
    tired = short_day(sleep, settings.daily_sleep_h)
    hunger = np.where(hungry, needs.hunger_days + 1, 0).astype(np.int64)
    thirst = np.where(thirsty, needs.thirst_days + 1, 0).astype(np.int64)
    fatigue = np.where(tired, needs.fatigue_days + 1, 0).astype(np.int64)
    d_h = hunger >= settings.hunger_death_days
    d_t = thirst >= settings.thirst_death_days
    d_f = fatigue >= settings.fatigue_death_days
    cause = np.where(
        d_t, CAUSE_THIRST, np.where(d_h, CAUSE_HUNGER, np.where(d_f, CAUSE_FATIGUE, ""))
    ).astype("<U7")
    return NeedsOutcome(
        sleep_h=sleep,
        hungry=hungry,
        thirsty=thirsty,
        tired=tired,
        hunger_days=hunger,
        thirst_days=thirst,
        fatigue_days=fatigue,
        died_of_hunger=d_h,
        died_of_thirst=d_t,
        died_of_fatigue=d_f,
        dead=d_h | d_t | d_f,
        death_cause=cause,
    )
