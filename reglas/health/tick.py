"""The health part of the daily tick: disease course, onset and infection for n characters.

``advance_health`` takes the condition arrays after the survival step and the day's health
facts, rolls every die in one vectorised pass and returns the new state with each outcome and
breakdown; the scalar rules it follows are in ``onset`` (R10), ``disease`` (R12) and
``infection`` (R13) beside this module.

Source: RULES.md R10, R12, R13, R14, R24.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

import numpy as np
from numpy.typing import ArrayLike, NDArray

from reglas.characters import ConditionArrays, action_penalty_points, is_dirt_sensitive
from reglas.core import column
from reglas.dice import ActionArrays, roll_actions, roll_actions_each
from reglas.errors import RulesError
from reglas.expressions import roll_totals, roll_totals_each
from reglas.health.disease import RESISTANCE_TRAIT
from reglas.health.onset import DiseaseInputArrays, DiseaseOdds, disease_odds
from reglas.settings import DEFAULT_SETTINGS, RuleSettings

RollRng = Callable[[int], np.random.Generator]
"""Character index → the generator of its stored roll of the day (from the roll's ledger key)."""

# Death causes of the health step (R14), as stored in ``HealthOutcome.death_cause``.
CAUSE_DISEASE = "disease"
CAUSE_INFECTION = "infection"

I64 = NDArray[np.int64]
B = NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class HealthDayArrays:
    """The day's health facts for n characters, shape ``(n,)``.

    ``alive`` (characters to process: exclude those who died in the survival step),
    ``sick_housemates`` (see ``count_sick_housemates``), ``precipitation``, ``min_temp_c``
    (°C, NaN unknown), ``treated_today`` (a medicine dose given that day),
    ``hygiene_adequate`` (from the survival step), ``resistencia`` (trait values),
    ``wet_last_night``/``soiled_last_night`` the accidents of the night *before* the day (the
    start-of-day flags: the condition after the survival step holds the coming night's), which
    raise the day's disease roll and resistance roll (R7: "todas las dificultades"); None:
    the condition's own flags (a condition that is the start-of-day one).
    """

    alive: B
    sick_housemates: I64
    precipitation: B
    min_temp_c: NDArray[np.float64]
    treated_today: B
    hygiene_adequate: B
    resistencia: I64
    wet_last_night: B | None
    soiled_last_night: B | None

    @classmethod
    def of(
        cls,
        n: int,
        *,
        alive: ArrayLike = True,
        sick_housemates: ArrayLike = 0,
        precipitation: ArrayLike = False,
        min_temp_c: ArrayLike = np.nan,
        treated_today: ArrayLike = False,
        hygiene_adequate: ArrayLike = True,
        resistencia: ArrayLike = 0,
        wet_last_night: ArrayLike | None = None,
        soiled_last_night: ArrayLike | None = None,
    ) -> Self:
        """Arrays of length n (scalars broadcast). Raises RulesError for bad shapes/values."""

        def col(value: ArrayLike, dtype: type, name: str) -> NDArray[Any]:
            return column(value, n, name, dtype)

        resist = col(resistencia, np.int64, "resistencia")
        if np.any(resist < 0):
            raise RulesError("resistance_negative", "«resistencia» no puede ser negativa.")
        housemates = col(sick_housemates, np.int64, "sick_housemates")
        if np.any(housemates < 0):
            raise RulesError(
                "column_negative",
                "«sick_housemates» no puede ser negativo.",
                name="sick_housemates",
            )
        return cls(
            alive=col(alive, np.bool_, "alive"),
            sick_housemates=housemates,
            precipitation=col(precipitation, np.bool_, "precipitation"),
            min_temp_c=col(min_temp_c, np.float64, "min_temp_c"),
            treated_today=col(treated_today, np.bool_, "treated_today"),
            hygiene_adequate=col(hygiene_adequate, np.bool_, "hygiene_adequate"),
            resistencia=resist,
            wet_last_night=None
            if wet_last_night is None
            else col(wet_last_night, np.bool_, "wet_last_night"),
            soiled_last_night=None
            if soiled_last_night is None
            else col(soiled_last_night, np.bool_, "soiled_last_night"),
        )


@dataclass(frozen=True, slots=True)
class HealthOutcome:
    """The health part of one tick for n characters.

    - ``condition``: the new state (disease and infection fields updated).
    - ``odds``: R10 probabilities (meaningful where ``onset_rolled``).
    - ``onset_rolled`` (healthy and alive at the start of the tick), ``onset_dice`` (1..100,
      0 = not rolled), ``fell_sick``, ``duration`` (0 unless fell sick), ``duration_dice``
      ``(n, k)`` (zeros unless fell sick).
    - ``resolved``: the disease ended this tick and resistance was rolled; ``resistance``: the
      rolls of the resolved characters (rows in the order of ``resistance_index``), with
      ``resistance_penalty`` their penalty points (treatment, hygiene and R9 together).
    - ``recovered``, ``died_of_disease``, ``died_of_infection`` (= ``risen``: rises as a
      zombie), ``dead``, ``death_cause`` (``"disease"``, ``"infection"`` or ``""``; infection
      wins if both end on the same tick, since the character rises).
    """

    condition: ConditionArrays
    odds: DiseaseOdds
    onset_rolled: B
    onset_dice: I64
    fell_sick: B
    duration: I64
    duration_dice: I64
    resolved: B
    resistance_index: I64
    resistance: ActionArrays
    resistance_penalty: I64
    recovered: B
    died_of_disease: B
    died_of_infection: B
    risen: B
    dead: B
    death_cause: NDArray[np.str_]


def advance_health(
    condition: ConditionArrays,
    day: HealthDayArrays,
    season: str,
    rng: np.random.Generator,
    settings: RuleSettings = DEFAULT_SETTINGS,
    roll_rng: RollRng | None = None,
) -> HealthOutcome:
    """Disease course, disease onset and infection for n characters in one vectorised pass.

    ``condition`` is the state after the survival step of the same tick. In order:
    1. course (R12) for the alive characters sick at the start: count the day as treated /
       unhygienic; the last day rolls resistance (Resistencia, base 50 + 5 × treated days
       − 5 × unhygienic sick days − R9 penalty, disease days included) → recovered or dead;
       the others go to the next day;
    2. onset (R10) for the alive characters healthy at the start: one d100 each against p;
       those who fall sick roll their duration (1d6+2) and start at disease day 1;
    3. infection (R13): the last day kills and raises; the others go to the next day.
    The resistance rolls and the durations are the rolls the ledger stores: with ``roll_rng``
    (character index → the generator of its roll of the day, made from the roll's ledger
    key), each is drawn from its own generator, so its key reproduces its faces; ``rng``
    then draws only the onset dice (which the diary shows). Without it ``rng`` draws all, in
    this order: resistance dice, onset dice, durations. Raises RulesError for mismatched
    lengths or an unknown season. Source: RULES.md R10, R12, R13, R14, R24.
    """
    n = len(condition)
    if day.alive.shape != (n,):
        raise RulesError(
            "health_records_mismatch",
            f"Hay {n} estados y {day.alive.shape[0]} registros de salud.",
            states=n,
            records=day.alive.shape[0],
        )
    course = _disease_course(condition, day, rng, settings, roll_rng)
    onset = _disease_onset(condition, day, season, rng, settings, roll_rng)
    fell_sick = onset.fell_sick
    infected = day.alive & (condition.infection_day > 0)
    died_of_infection = infected & (condition.infection_day >= condition.infection_duration)
    infection_day = np.where(
        infected & ~died_of_infection, condition.infection_day + 1, condition.infection_day
    )
    new = condition.replace(
        disease_day=np.where(fell_sick, 1, course.disease_day).astype(np.int64),
        disease_duration=np.where(fell_sick, onset.duration, course.duration).astype(np.int64),
        disease_days_treated=np.where(fell_sick, 0, course.treated).astype(np.int64),
        disease_unhygienic_days=np.where(fell_sick, 0, course.unhygienic).astype(np.int64),
        infection_day=infection_day.astype(np.int64),
    )
    died_of_disease = course.died_of_disease
    return HealthOutcome(
        condition=new,
        odds=onset.odds,
        onset_rolled=onset.rolled,
        onset_dice=onset.dice,
        fell_sick=fell_sick,
        duration=onset.duration,
        duration_dice=onset.duration_dice,
        resolved=course.resolved,
        resistance_index=course.resistance_index,
        resistance=course.resistance,
        resistance_penalty=course.resistance_penalty.astype(np.int64),
        recovered=course.recovered,
        died_of_disease=died_of_disease,
        died_of_infection=died_of_infection,
        risen=died_of_infection,
        dead=died_of_disease | died_of_infection,
        death_cause=np.where(
            died_of_infection, CAUSE_INFECTION, np.where(died_of_disease, CAUSE_DISEASE, "")
        ).astype("<U9"),
    )


def _accidents(condition: ConditionArrays, day: HealthDayArrays) -> tuple[B, B]:
    """Last night's wetting and soiling: the day's own flags, or the condition's (R7)."""
    wet = condition.wet_last_night if day.wet_last_night is None else day.wet_last_night
    soiled = condition.soiled_last_night if day.soiled_last_night is None else day.soiled_last_night
    return wet, soiled


@dataclass(frozen=True, slots=True)
class _DiseaseCourse:
    """The course step of ``advance_health`` for n characters, shape ``(n,)`` unless said.

    ``disease_day``, ``duration``, ``treated``, ``unhygienic``: the disease fields after the
    day (next day for the continuing, zeros for the recovered, unchanged for the dead and the
    healthy); ``resolved``, ``recovered``, ``died_of_disease`` as in ``HealthOutcome``;
    ``resistance_index`` the resolved characters' indices, in the order of the
    ``resistance`` rolls and of ``resistance_penalty`` (points, shape ``(len(index),)``).
    """

    disease_day: I64
    duration: I64
    treated: I64
    unhygienic: I64
    resolved: B
    resistance_index: I64
    resistance: ActionArrays
    resistance_penalty: I64
    recovered: B
    died_of_disease: B


def _disease_course(
    condition: ConditionArrays,
    day: HealthDayArrays,
    rng: np.random.Generator,
    s: RuleSettings,
    roll_rng: RollRng | None,
) -> _DiseaseCourse:
    """Step 1 of ``advance_health``: one more day of disease for the alive characters sick at
    the start of the tick.

    The day counts as treated (``day.treated_today``) and as unhygienic (not
    ``day.hygiene_adequate``); on the last day the character rolls Resistencia against
    ``resistance_base`` − R9 penalty (with this day's disease counts) + treated days ×
    ``resistance_per_treated_day`` − unhygienic days × ``resistance_per_unhygienic_day``:
    success cures, failure kills. Draws the resistance dice only. Source: RULES.md R9, R12,
    R14.
    """
    sick = day.alive & (condition.disease_day > 0)
    treated = condition.disease_days_treated + (sick & day.treated_today)
    unhygienic = condition.disease_unhygienic_days + (sick & ~day.hygiene_adequate)
    resolved = sick & (condition.disease_day >= condition.disease_duration)
    continuing = sick & ~resolved
    idx = np.flatnonzero(resolved).astype(np.int64)
    wet, soiled = _accidents(condition, day)
    penalty_all = (
        action_penalty_points(
            condition.replace(
                disease_days_treated=treated,
                disease_unhygienic_days=unhygienic,
                wet_last_night=wet,
                soiled_last_night=soiled,
            ),
            is_dirt_sensitive(RESISTANCE_TRAIT, s),
            s,
        )
        - s.resistance_per_treated_day * treated
        + s.resistance_per_unhygienic_day * unhygienic
    )
    resistance_penalty = penalty_all[idx]
    thresholds = s.resistance_base - resistance_penalty.astype(np.float64)
    if roll_rng is None:
        resistance = roll_actions(day.resistencia[idx], thresholds, rng)
    else:
        rngs = [roll_rng(int(i)) for i in idx]
        resistance = roll_actions_each(day.resistencia[idx], thresholds, rngs)
    recovered = np.zeros(len(condition), dtype=np.bool_)
    recovered[idx] = resistance.success
    disease_day = np.where(continuing, condition.disease_day + 1, condition.disease_day)
    return _DiseaseCourse(
        disease_day=np.where(recovered, 0, disease_day),
        duration=np.where(recovered, 0, condition.disease_duration),
        treated=np.where(recovered, 0, treated),
        unhygienic=np.where(recovered, 0, unhygienic),
        resolved=resolved,
        resistance_index=idx,
        resistance=resistance,
        resistance_penalty=resistance_penalty,
        recovered=recovered,
        died_of_disease=resolved & ~recovered,
    )


@dataclass(frozen=True, slots=True)
class _DiseaseOnset:
    """The onset step of ``advance_health`` for n characters: ``odds`` (R10), ``rolled``
    (alive and healthy at the start), ``dice`` (1..100, 0 = not rolled), ``fell_sick``,
    ``duration`` (days, 0 unless fell sick) and ``duration_dice`` ``(n, k)`` (zeros unless
    fell sick)."""

    odds: DiseaseOdds
    rolled: B
    dice: I64
    fell_sick: B
    duration: I64
    duration_dice: I64


def _disease_onset(
    condition: ConditionArrays,
    day: HealthDayArrays,
    season: str,
    rng: np.random.Generator,
    s: RuleSettings,
    roll_rng: RollRng | None,
) -> _DiseaseOnset:
    """Step 2 of ``advance_health``: who falls sick, among the alive characters healthy at the
    start of the tick (one recovered in step 1 does not roll again that day; an infected one
    is not healthy, R13).

    One d100 each against the R10 probability of ``season`` and the day; those at or under it
    roll their duration (``disease_duration``, e.g. 1d6+2 days). Draws the onset dice, then the
    durations. Raises RulesError for an unknown season. Source: RULES.md R10, R12.
    """
    wet, soiled = _accidents(condition, day)
    odds = disease_odds(
        season,
        DiseaseInputArrays.from_condition(
            condition,
            sick_housemates=day.sick_housemates,
            precipitation=day.precipitation,
            min_temp_c=day.min_temp_c,
            wet_last_night=wet,
            soiled_last_night=soiled,
        ),
        s,
    )
    n = len(condition)
    # Infection counts as a disease (R13): an infected character is not healthy, so no onset.
    rolled = day.alive & (condition.disease_day == 0) & (condition.infection_day == 0)
    onset_dice = np.zeros(n, dtype=np.int64)
    onset_dice[rolled] = rng.integers(1, 101, size=int(rolled.sum()), dtype=np.int64)
    fell_sick = rolled & (onset_dice <= odds.p)
    if roll_rng is None:
        new_durations, new_dice = roll_totals(s.disease_duration, int(fell_sick.sum()), rng)
    else:
        rngs = [roll_rng(int(i)) for i in np.flatnonzero(fell_sick)]
        new_durations, new_dice = roll_totals_each(s.disease_duration, rngs)
    onset_duration = np.zeros(n, dtype=np.int64)
    onset_duration[fell_sick] = new_durations
    duration_dice = np.zeros((n, new_dice.shape[1]), dtype=np.int64)
    duration_dice[fell_sick] = new_dice
    return _DiseaseOnset(odds, rolled, onset_dice, fell_sick, onset_duration, duration_dice)
