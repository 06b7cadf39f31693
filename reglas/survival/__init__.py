"""Survival for the daily tick: automatic consumption, needs counters, hygiene, dirt.

One module per rulebook topic: ``consumption`` (R15: what each character eats, drinks and
uses, from what it carries and then its shelter's stash; ``take_food`` for the food items),
``needs`` (R6), ``hygiene`` (R7, R8) and ``tick`` (``advance_survival`` composes them in the
R24 order; ``live_day`` is the scalar wrapper for one character); ``columns`` holds the
shared array checks. Every public name is re-exported here, so
``from reglas.survival import advance_survival`` stays the way to use them.

Vectorised: every step takes arrays of shape ``(n,)`` for n living characters (and ``(m,)``
for m shelters' shared stashes) and returns arrays, in one pass with no Python loop per
character. Timeline: the tick closes one in-game day. Its inputs are what happened that day
(what was available, hours slept, marks such as "could not urinate"); its outputs are the
counters for the day that starts, including last night's accidents.

Source: RULES.md R6, R7, R8, R15, R24.
"""

from reglas.survival.columns import EPSILON
from reglas.survival.consumption import (
    Consumption,
    FoodItem,
    FoodTaken,
    Supplies,
    consume,
    take_food,
)
from reglas.survival.hygiene import HygieneArrays, HygieneOutcome, advance_hygiene
from reglas.survival.needs import (
    CAUSE_FATIGUE,
    CAUSE_HUNGER,
    CAUSE_THIRST,
    NeedsArrays,
    NeedsOutcome,
    advance_needs,
    short_day,
)
from reglas.survival.tick import (
    DayArrays,
    DayOutcome,
    DayRecord,
    SurvivalOutcome,
    advance_survival,
    live_day,
)

__all__ = [
    "CAUSE_FATIGUE",
    "CAUSE_HUNGER",
    "CAUSE_THIRST",
    "EPSILON",
    "Consumption",
    "DayArrays",
    "DayOutcome",
    "DayRecord",
    "FoodItem",
    "FoodTaken",
    "HygieneArrays",
    "HygieneOutcome",
    "NeedsArrays",
    "NeedsOutcome",
    "Supplies",
    "SurvivalOutcome",
    "advance_hygiene",
    "advance_needs",
    "advance_survival",
    "consume",
    "live_day",
    "short_day",
    "take_food",
]
