"""Foresight: how long a character's supplies last and what tomorrow holds, if nothing changes.

``forecast`` projects the R6 counters day by day from what the character carries and its
share of its shelter's stash, with the daily requirements of the campaign's settings, and
gives the days of food and water left, whether tomorrow it will be hungry or thirsty, the
in-game day it dies of thirst, hunger or (with a marked short sleep) fatigue, and tomorrow's
disease odds (R10) with their breakdown. Pure: no clock, no database, no dice.

Readings chosen (the rulebook has no foresight; these follow R15 and R24):
- "Tomorrow" is what the next tick (the one closing ``today``) leaves: the supplies are eaten
  then, so a character with 1.5 L is thirsty tomorrow.
- The stash is shared by its residents in proportion to what each still needs (R15); for a
  forecast everyone needs the same, so the character's share is ``stash / residents``.
- Every later day is assumed to be like the first: the default sleep, no new supplies, the
  same hygiene and housemates; the weather of later days is unknown (only today's is used).

Source: RULES.md R6, R10, R14, R15, R24.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from reglas.characters import ConditionState
from reglas.core import Breakdown
from reglas.errors import RulesError
from reglas.health.onset import DiseaseInputs, disease_probability
from reglas.settings import DEFAULT_SETTINGS, RuleSettings
from reglas.survival.columns import EPSILON

HORIZON_DAYS = 60
"""How far the projection looks (days): deaths further away are "not foreseen"."""

DANGER_DISEASE_P = 25
"""Tomorrow's disease odds (%) from which a character counts as in danger."""

DANGER_DEATH_DAYS = 3
"""A death foreseen fewer than this many days ahead (days) puts a character in danger."""


@dataclass(frozen=True, slots=True)
class Forecast:
    """A character's forecast.

    ``kcal`` and ``water_l`` available (carried + stash share); ``food_days`` and
    ``water_days`` how many full days they cover (float, days); ``hungry_tomorrow`` /
    ``thirsty_tomorrow`` the next tick leaves a short day; ``hunger_death_day`` /
    ``thirst_death_day`` / ``fatigue_death_day`` the in-game day whose tick kills by
    deprivation if nothing changes (None: not within ``HORIZON_DAYS``); ``death_day`` the
    earliest and ``death_cause`` its cause (``"thirst"``, ``"hunger"``, ``"fatigue"`` or
    None); ``disease_p`` (%) and ``disease_breakdown`` tomorrow's onset odds (0 and empty for
    a character already sick or infected, who rolls none); ``danger`` a death foreseen within
    3 days, a short day tomorrow, or odds of ``DANGER_DISEASE_P`` % or more; ``urgency`` a sort
    key (lower = more urgent).
    """

    kcal: float
    water_l: float
    food_days: float
    water_days: float
    hungry_tomorrow: bool
    thirsty_tomorrow: bool
    hunger_death_day: int | None
    thirst_death_day: int | None
    fatigue_death_day: int | None
    death_day: int | None
    death_cause: str | None
    disease_p: int
    disease_breakdown: Breakdown
    danger: bool
    urgency: tuple[int, int]


def _non_negative(value: float, name: str) -> float:
    if isinstance(value, bool) or not math.isfinite(value) or value < 0:
        raise RulesError(
            "forecast_amount_invalid",
            f"«{name}» debe ser un número finito de 0 o más ({value!r}).",
            name=name,
        )
    return float(value)


def _death_day(
    amount: float,
    need: float,
    fraction: float,
    without: int,
    death_days: int,
    today: int,
) -> int | None:
    """The day whose tick brings the days without to ``death_days``, consuming ``need`` a day
    from ``amount`` (R6): None when not within ``HORIZON_DAYS``."""
    left = amount
    counter = without
    for k in range(HORIZON_DAYS):
        taken = min(left, need)
        left -= taken
        counter = counter + 1 if taken < fraction * need - EPSILON else 0
        if counter >= death_days:
            return today + k
        if left <= EPSILON and fraction * need <= EPSILON:
            return None
    return None


def _available(
    kcal: float, water_l: float, stash_kcal: float, stash_water_l: float, residents: int
) -> tuple[float, float]:
    """kcal and L carried plus the character's share of the stash (R15), checked."""
    if isinstance(residents, bool) or not isinstance(residents, int) or residents < 1:
        raise RulesError(
            "forecast_residents_invalid", "Los residentes del refugio deben ser 1 o más."
        )
    return (
        _non_negative(kcal, "kcal") + _non_negative(stash_kcal, "kcal") / residents,
        _non_negative(water_l, "agua") + _non_negative(stash_water_l, "agua") / residents,
    )


def _deaths(
    state: ConditionState, kcal: float, water: float, sleep: float, today: int, s: RuleSettings
) -> tuple[int | None, int | None, int | None]:
    """The foreseen days of death by hunger, thirst and fatigue (R6; None: not foreseen)."""
    f = s.deprivation_fraction
    hunger = _death_day(kcal, s.daily_kcal, f, state.days_without_food, s.hunger_death_days, today)
    thirst = _death_day(
        water, s.daily_water_l, f, state.days_without_water, s.thirst_death_days, today
    )
    fatigue = None
    if sleep < f * s.daily_sleep_h - EPSILON:
        fatigue = today + max(0, s.fatigue_death_days - state.days_without_sleep - 1)
    return hunger, thirst, fatigue


def _tomorrows_odds(
    state: ConditionState,
    short: tuple[bool, bool, bool, bool],
    season: str,
    *,
    sick_housemates: int,
    precipitation: bool,
    min_temp_c: float | None,
    settings: RuleSettings,
) -> tuple[int, Breakdown]:
    """The onset odds the next tick rolls (R10): the counters as it leaves them (``short`` =
    hungry, thirsty, tired, hygiene adequate), last night's accidents; none for the sick."""
    if state.sick or state.infected:
        return 0, ()
    hungry, thirsty, tired, adequate = short
    after = dataclasses.replace(
        state,
        hunger_days=state.hunger_days + 1 if hungry else 0,
        thirst_days=state.thirst_days + 1 if thirsty else 0,
        fatigue_days=state.fatigue_days + 1 if tired else 0,
        unhygienic_days=0 if adequate else state.unhygienic_days + 1,
    )
    inputs = DiseaseInputs.from_state(
        season,
        after,
        sick_housemates=sick_housemates,
        precipitation=precipitation,
        min_temp_c=min_temp_c,
    )
    return disease_probability(inputs, settings)


def forecast(
    state: ConditionState,
    *,
    today: int,
    season: str,
    kcal_carried: float,
    water_carried_l: float,
    stash_kcal: float = 0.0,
    stash_water_l: float = 0.0,
    residents: int = 1,
    sleep_h: float | None = None,
    hygiene_adequate: bool = True,
    sick_housemates: int = 0,
    precipitation: bool = False,
    min_temp_c: float | None = None,
    settings: RuleSettings = DEFAULT_SETTINGS,
) -> Forecast:
    """The forecast of one character at the start of day ``today`` (module docstring).

    ``kcal_carried`` (kcal) and ``water_carried_l`` (L) what it carries; ``stash_kcal`` /
    ``stash_water_l`` its shelter's stash, shared by ``residents`` (≥ 1); ``sleep_h`` today's
    marked sleep (None: the default 8 h); ``hygiene_adequate`` whether today's conditions are
    adequate (R7); ``sick_housemates``, ``precipitation`` and ``min_temp_c`` (°C) today's R10
    facts; ``season`` today's season. Example: 3 L and nothing else → 1.5 days of water; not
    thirsty tomorrow (today's tick drinks 2 L), thirsty the day after (1 L: short, not a day
    without), then three days under 0.5 L: the tick closing ``today`` + 4 kills. Raises
    RulesError for negative or non-finite amounts, ``residents`` < 1 or an unknown season.
    Source: RULES.md R6, R10, R14, R15.
    """
    s = settings
    kcal, water = _available(kcal_carried, water_carried_l, stash_kcal, stash_water_l, residents)
    sleep = s.default_sleep_h if sleep_h is None else _non_negative(sleep_h, "sueño")
    hungry = kcal < s.daily_kcal - EPSILON
    thirsty = water < s.daily_water_l - EPSILON
    tired = sleep < s.daily_sleep_h - EPSILON
    hunger_death, thirst_death, fatigue_death = _deaths(state, kcal, water, sleep, today, s)
    death_day: int | None = None
    death_cause: str | None = None
    # Thirst, then hunger, then fatigue on the same day, as the tick records it (R6).
    for day, cause in (
        (thirst_death, "thirst"),
        (hunger_death, "hunger"),
        (fatigue_death, "fatigue"),
    ):
        if day is not None and (death_day is None or day < death_day):
            death_day, death_cause = day, cause
    p, breakdown = _tomorrows_odds(
        state,
        (hungry, thirsty, tired, hygiene_adequate),
        season,
        sick_housemates=sick_housemates,
        precipitation=precipitation,
        min_temp_c=min_temp_c,
        settings=s,
    )
    soon = death_day is not None and death_day - today < DANGER_DEATH_DAYS
    danger = soon or hungry or thirsty or p >= DANGER_DISEASE_P
    urgency = (
        (death_day - today) if death_day is not None else HORIZON_DAYS,
        -p,
    )
    return Forecast(
        kcal=kcal,
        water_l=water,
        food_days=kcal / s.daily_kcal if s.daily_kcal > 0 else math.inf,
        water_days=water / s.daily_water_l if s.daily_water_l > 0 else math.inf,
        hungry_tomorrow=hungry,
        thirsty_tomorrow=thirsty,
        hunger_death_day=hunger_death,
        thirst_death_day=thirst_death,
        fatigue_death_day=fatigue_death,
        death_day=death_day,
        death_cause=death_cause,
        disease_p=p,
        disease_breakdown=breakdown,
        danger=danger,
        urgency=urgency,
    )
