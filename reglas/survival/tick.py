"""The survival part of the daily tick: consumption, needs and hygiene in the R24 order.

``advance_survival`` composes the steps of ``consumption`` (R15), ``needs`` (R6) and
``hygiene`` (R7, R8) for n living characters in one vectorised pass; ``live_day`` is the
scalar wrapper for one character.

Source: RULES.md R6, R7, R8, R15, R24.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

import numpy as np
from numpy.typing import ArrayLike, NDArray

from reglas.characters import ConditionArrays, ConditionState
from reglas.errors import RulesError
from reglas.settings import DEFAULT_SETTINGS, RuleSettings
from reglas.survival.columns import F64, I64, B, bool_column, float_column, int_column
from reglas.survival.consumption import Consumption, Supplies, consume
from reglas.survival.hygiene import HygieneArrays, HygieneOutcome, advance_hygiene
from reglas.survival.needs import NeedsArrays, NeedsOutcome, advance_needs


def _paper_available(day: DayArrays, stash: Supplies | None, settings: RuleSettings) -> B:
    """Paper before the day's use: carried, or in the stash of the character's shelter."""
    available = day.carried.toilet_paper_rolls > 0
    if stash is not None and len(stash) and settings.allow_shelter_stash:
        housed = day.shelter >= 0
        in_stash = stash.toilet_paper_rolls[np.where(housed, day.shelter, 0)] > 0
        available = available | (housed & in_stash)
    return available


# --- the survival part of the tick -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DayArrays:
    """What n living characters had and did on the day the tick closes, shape ``(n,)``.

    ``carried`` supplies; ``shelter`` index into the stash array (−1 = none); ``sleep_h``
    (NaN = default 8 h); the hygiene facts and marks as in ``HygieneArrays``. A bath on
    request without running water uses the character's carried water left after drinking.
    """

    carried: Supplies
    shelter: I64
    sleep_h: F64
    has_paper_substitute: B
    toilet_distance_m: F64
    has_cesspit: B
    could_not_urinate: B
    could_not_defecate: B
    running_water: B
    bath_requested: B
    relieved_inappropriately: B

    @classmethod
    def of(cls, carried: Supplies, **columns: ArrayLike) -> Self:
        """Arrays of length ``len(carried)``; missing columns default (no shelter, NaN sleep
        and distance, False marks). Raises RulesError for unknown names or bad values."""
        n = len(carried)
        known = {
            "shelter",
            "sleep_h",
            "has_paper_substitute",
            "toilet_distance_m",
            "has_cesspit",
            "could_not_urinate",
            "could_not_defecate",
            "running_water",
            "bath_requested",
            "relieved_inappropriately",
        }
        unknown = set(columns) - known
        if unknown:
            raise RulesError(
                "unknown_columns",
                f"Columnas desconocidas: {', '.join(sorted(unknown))}.",
                names=", ".join(sorted(unknown)),
            )
        return cls(
            carried=carried,
            shelter=int_column(columns.get("shelter", -1), n, "refugio", minimum=-1),
            sleep_h=float_column(columns.get("sleep_h", np.nan), n, "sleep_h", allow_nan=True),
            has_paper_substitute=bool_column(
                columns.get("has_paper_substitute", False), n, "has_paper_substitute"
            ),
            toilet_distance_m=float_column(
                columns.get("toilet_distance_m", np.nan), n, "toilet_distance_m", allow_nan=True
            ),
            has_cesspit=bool_column(columns.get("has_cesspit", False), n, "has_cesspit"),
            could_not_urinate=bool_column(
                columns.get("could_not_urinate", False), n, "could_not_urinate"
            ),
            could_not_defecate=bool_column(
                columns.get("could_not_defecate", False), n, "could_not_defecate"
            ),
            running_water=bool_column(columns.get("running_water", False), n, "running_water"),
            bath_requested=bool_column(columns.get("bath_requested", False), n, "bath_requested"),
            relieved_inappropriately=bool_column(
                columns.get("relieved_inappropriately", False), n, "relieved_inappropriately"
            ),
        )


@dataclass(frozen=True, slots=True)
class SurvivalOutcome:
    """The survival part of one tick for n characters.

    ``condition`` the new state (needs, hygiene and dirt updated; disease and infection
    untouched — see ``reglas.health``); ``consumption``, ``needs``, ``hygiene`` the details for
    the diary; ``carried_after`` after eating, drinking and any bath; ``stash_after`` (m,);
    ``dead``/``death_cause`` as in ``NeedsOutcome``.
    """

    condition: ConditionArrays
    consumption: Consumption
    needs: NeedsOutcome
    hygiene: HygieneOutcome
    carried_after: Supplies
    stash_after: Supplies
    dead: B
    death_cause: NDArray[np.str_]


def _condition_after(
    condition: ConditionArrays, needs: NeedsOutcome, hygiene: HygieneOutcome
) -> ConditionArrays:
    """The condition with the day's needs (R6) and hygiene (R7, R8) counters and flags."""
    return condition.replace(
        hunger_days=needs.hunger_days,
        thirst_days=needs.thirst_days,
        fatigue_days=needs.fatigue_days,
        days_without_food=needs.days_without_food,
        days_without_water=needs.days_without_water,
        days_without_sleep=needs.days_without_sleep,
        unhygienic_days=hygiene.unhygienic_days,
        days_without_defecating=hygiene.days_without_defecating,
        wet_last_night=hygiene.wet_last_night,
        soiled_last_night=hygiene.soiled_last_night,
        dirty=hygiene.dirty,
        extra_dirt=hygiene.extra_dirt,
    )


def advance_survival(
    condition: ConditionArrays,
    day: DayArrays,
    settings: RuleSettings = DEFAULT_SETTINGS,
    *,
    stash: Supplies | None = None,
) -> SurvivalOutcome:
    """Consumption (R15), needs (R6) and hygiene (R7, R8) for n living characters, in that
    order, in one vectorised pass.

    ``condition`` and ``day`` have length n; ``stash`` (m,) the shelters' shared supplies.
    Characters who die here should skip the health step. Raises RulesError for mismatched
    lengths. Source: RULES.md R6, R7, R8, R15, R24 step 5.
    """
    n = len(condition)
    if len(day.carried) != n:
        raise RulesError(
            "day_records_mismatch",
            f"Hay {n} estados y {len(day.carried)} registros del día.",
            states=n,
            records=len(day.carried),
        )
    used = consume(day.carried, settings, shelter=day.shelter, stash=stash)
    needs = advance_needs(
        NeedsArrays(
            kcal_eaten=used.kcal_eaten,
            water_drunk_l=used.water_drunk_l,
            sleep_h=day.sleep_h,
            hunger_days=condition.hunger_days,
            thirst_days=condition.thirst_days,
            fatigue_days=condition.fatigue_days,
            days_without_food=condition.days_without_food,
            days_without_water=condition.days_without_water,
            days_without_sleep=condition.days_without_sleep,
        ),
        settings,
    )
    hygiene = advance_hygiene(
        HygieneArrays(
            has_paper=_paper_available(day, stash, settings),
            has_paper_substitute=day.has_paper_substitute,
            toilet_distance_m=day.toilet_distance_m,
            has_cesspit=day.has_cesspit,
            could_not_urinate=day.could_not_urinate,
            could_not_defecate=day.could_not_defecate,
            relieved_inappropriately=day.relieved_inappropriately,
            running_water=day.running_water,
            bath_requested=day.bath_requested,
            bath_water_available_l=used.carried_after.water_l,
            unhygienic_days=condition.unhygienic_days,
            days_without_defecating=condition.days_without_defecating,
            dirty=condition.dirty,
            extra_dirt=condition.extra_dirt,
        ),
        settings,
    )
    carried_after = Supplies(
        used.carried_after.kcal,
        np.maximum(used.carried_after.water_l - hygiene.bath_water_used_l, 0.0),
        used.carried_after.toilet_paper_rolls,
    )
    new = _condition_after(condition, needs, hygiene)
    return SurvivalOutcome(
        condition=new,
        consumption=used,
        needs=needs,
        hygiene=hygiene,
        carried_after=carried_after,
        stash_after=used.stash_after,
        dead=needs.dead,
        death_cause=needs.death_cause,
    )


# --- scalar wrapper ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DayRecord:
    """One character's day (scalar ``DayArrays``): what it carried (kcal, L, rolls), hours
    slept (None = default), hygiene facts and marks. No shared stash: put what the character
    may use in the carried amounts."""

    kcal_carried: float = 0.0
    water_carried_l: float = 0.0
    toilet_paper_rolls: float = 0.0
    sleep_h: float | None = None
    has_paper_substitute: bool = False
    toilet_distance_m: float | None = None
    has_cesspit: bool = False
    could_not_urinate: bool = False
    could_not_defecate: bool = False
    running_water: bool = False
    bath_requested: bool = False
    relieved_inappropriately: bool = False


@dataclass(frozen=True, slots=True)
class DayOutcome:
    """One character's survival tick: the new ``state``; kcal eaten, water drunk (L), sleep
    (h), paper used (rolls); hygiene ``adequate``; ``washed`` and the bath water used (L);
    what is left carried (kcal, L, rolls); ``dead`` and ``death_cause`` (None if alive)."""

    state: ConditionState
    kcal_eaten: float
    water_drunk_l: float
    sleep_h: float
    paper_used_rolls: float
    hygiene_adequate: bool
    washed: bool
    bath_water_used_l: float
    kcal_left: float
    water_left_l: float
    toilet_paper_left: float
    dead: bool
    death_cause: str | None


def live_day(
    state: ConditionState, record: DayRecord, settings: RuleSettings = DEFAULT_SETTINGS
) -> DayOutcome:
    """The survival tick for one character (``advance_survival`` with n = 1).

    Raises RulesError for negative or non-finite amounts. Source: RULES.md R6, R7, R8, R15.
    """
    day = DayArrays.of(
        Supplies.of([record.kcal_carried], [record.water_carried_l], [record.toilet_paper_rolls]),
        sleep_h=[np.nan if record.sleep_h is None else record.sleep_h],
        has_paper_substitute=[record.has_paper_substitute],
        toilet_distance_m=[
            np.nan if record.toilet_distance_m is None else record.toilet_distance_m
        ],
        has_cesspit=[record.has_cesspit],
        could_not_urinate=[record.could_not_urinate],
        could_not_defecate=[record.could_not_defecate],
        running_water=[record.running_water],
        bath_requested=[record.bath_requested],
        relieved_inappropriately=[record.relieved_inappropriately],
    )
    out = advance_survival(ConditionArrays.from_states([state]), day, settings)
    cause = str(out.death_cause[0])
    return DayOutcome(
        state=out.condition.state(0),
        kcal_eaten=float(out.consumption.kcal_eaten[0]),
        water_drunk_l=float(out.consumption.water_drunk_l[0]),
        sleep_h=float(out.needs.sleep_h[0]),
        paper_used_rolls=float(out.consumption.paper_used_rolls[0]),
        hygiene_adequate=bool(out.hygiene.adequate[0]),
        washed=bool(out.hygiene.washed[0]),
        bath_water_used_l=float(out.hygiene.bath_water_used_l[0]),
        kcal_left=float(out.carried_after.kcal[0]),
        water_left_l=float(out.carried_after.water_l[0]),
        toilet_paper_left=float(out.carried_after.toilet_paper_rolls[0]),
        dead=bool(out.dead[0]),
        death_cause=cause or None,
    )
