"""Health: disease onset, the course of a disease, infection by bites, and their deaths.

Scalar functions for single events (a Medicina roll, a bite, one character's tick) and
vectorised ones for the daily tick (``advance_health``: arrays in, arrays out).

Timeline (our reading of "day x of y"): a disease that starts at the tick closing day N runs
on days N+1 … N+y, ``disease_day`` = 1 … y; the tick closing its last day rolls resistance.
A bite on day N makes that day infection day 1; the tick closing infection day y kills and
raises the character. The R9 penalty counts the current disease day (day 1 already costs 5).

Source: RULES.md R10, R12, R13, R14 (seed: "Salud/Enfermedad", "Sistema, salud, enfermedad y
muerte").
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Literal, Self

import numpy as np
from numpy.typing import ArrayLike, NDArray

from reglas.characters import (
    ConditionArrays,
    ConditionState,
    action_penalty,
    action_penalty_points,
    is_dirt_sensitive,
)
from reglas.core import Breakdown, Modifier, breakdown_total, clamp_threshold
from reglas.dice import (
    ActionArrays,
    ActionRoll,
    EventRoll,
    check_trait_value,
    roll_action,
    roll_actions,
    roll_event,
)
from reglas.errors import RulesError
from reglas.expressions import ExpressionRoll, roll_expression, roll_totals
from reglas.settings import DEFAULT_SETTINGS, RuleSettings, normalise_season

CAUSE_DISEASE = "disease"
CAUSE_INFECTION = "infection"
RESISTANCE_TRAIT = "resistencia"
MEDICINE_TRAIT = "medicina"

I64 = NDArray[np.int64]
B = NDArray[np.bool_]


def _days(n: int) -> str:
    return "1 día" if n == 1 else f"{n} días"


def cold_degrees(min_temp_c: float | None) -> int:
    """Whole degrees of the day's minimum below 0 °C (−3 → 3, −2.5 → 2, 4 → 0, None → 0).

    "+1 % por cada grado < 0": we count whole degrees, so −0.5 °C adds nothing.
    Source: RULES.md R10.
    """
    if min_temp_c is None or math.isnan(min_temp_c):
        return 0
    return max(0, math.floor(-float(min_temp_c)))


# --- R10 onset probability ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DiseaseInputs:
    """The R10 inputs for one character on one day.

    ``season`` (invierno/primavera/verano/otoño, English accepted), ``sick_housemates`` (people
    sick in the same shelter, the character excluded), ``precipitation`` (rain, storm or snow
    that day), ``min_temp_c`` (the day's minimum, °C; None = unknown, no cold points),
    ``unhygienic_days`` (consecutive, R7), ``dirty``/``extra_dirt`` (R8) and the
    ``hunger_days``/``thirst_days``/``fatigue_days`` counters (R6).
    """

    season: str
    sick_housemates: int = 0
    precipitation: bool = False
    min_temp_c: float | None = None
    unhygienic_days: int = 0
    dirty: bool = False
    extra_dirt: bool = False
    hunger_days: int = 0
    thirst_days: int = 0
    fatigue_days: int = 0

    def __post_init__(self) -> None:
        normalise_season(self.season)
        for name in (
            "sick_housemates",
            "unhygienic_days",
            "hunger_days",
            "thirst_days",
            "fatigue_days",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
                raise RulesError(f"«{name}» debe ser un entero no negativo ({value!r}).")
        if self.min_temp_c is not None and (
            isinstance(self.min_temp_c, bool)
            or not isinstance(self.min_temp_c, int | float | np.integer | np.floating)
            or math.isinf(self.min_temp_c)
        ):
            raise RulesError(f"La temperatura mínima debe ser un número ({self.min_temp_c!r}).")

    @classmethod
    def from_state(
        cls,
        season: str,
        state: ConditionState,
        *,
        sick_housemates: int = 0,
        precipitation: bool = False,
        min_temp_c: float | None = None,
    ) -> Self:
        """The inputs for a character's condition state and the day's weather."""
        return cls(
            season=season,
            sick_housemates=sick_housemates,
            precipitation=precipitation,
            min_temp_c=min_temp_c,
            unhygienic_days=state.unhygienic_days,
            dirty=state.dirty,
            extra_dirt=state.extra_dirt,
            hunger_days=state.hunger_days,
            thirst_days=state.thirst_days,
            fatigue_days=state.fatigue_days,
        )


def disease_probability(
    inputs: DiseaseInputs, settings: RuleSettings = DEFAULT_SETTINGS
) -> tuple[int, Breakdown]:
    """The daily disease probability p (%, clamped to 0..100) and its breakdown.

    Season base + 5 × sick housemates + 5 if precipitation + 1 per whole degree of the minimum
    below 0 °C + 10 × unhygienic days + 5 dirt + 10 extra dirt + 10 × hunger, thirst and
    fatigue days. The breakdown has only non-zero lines except the season base, always shown;
    its total may exceed 100 (p does not). Rulebook example: winter, one sick housemate, snow,
    −3 °C, one hungry day → 28. Raises RulesError for an unknown season.
    Source: RULES.md R10.
    """
    s = settings
    season = normalise_season(inputs.season)
    lines: list[Modifier] = [Modifier("season", f"Estación: {season}", s.season_base(season))]

    def add(source: str, label: str, points: int) -> None:
        if points:
            lines.append(Modifier(source, label, int(points)))

    add(
        "sick_housemates",
        f"Enfermos en el refugio ({inputs.sick_housemates})",
        s.sick_housemate_disease_points * inputs.sick_housemates,
    )
    add(
        "precipitation",
        "Lluvia o nieve",
        s.precipitation_disease_points if inputs.precipitation else 0,
    )
    degrees = cold_degrees(inputs.min_temp_c)
    add(
        "cold",
        f"Frío (mínima {_temp(inputs.min_temp_c)}: {degrees} bajo cero)",
        s.cold_degree_disease_points * degrees,
    )
    add(
        "unhygienic",
        f"Sin higiene adecuada ({_days(inputs.unhygienic_days)})",
        s.unhygienic_day_disease_points * inputs.unhygienic_days,
    )
    add("dirt", "Suciedad", s.dirt_disease_points if inputs.dirty else 0)
    add("extra_dirt", "Suciedad extra", s.extra_dirt_disease_points if inputs.extra_dirt else 0)
    need = s.need_day_disease_points
    add("hunger", f"Hambre ({_days(inputs.hunger_days)})", need * inputs.hunger_days)
    add("thirst", f"Sed ({_days(inputs.thirst_days)})", need * inputs.thirst_days)
    add("fatigue", f"Fatiga ({_days(inputs.fatigue_days)})", need * inputs.fatigue_days)
    breakdown = tuple(lines)
    return clamp_threshold(breakdown_total(breakdown)), breakdown


def _temp(value: float | None) -> str:
    if value is None:
        return "?"
    text = f"{value:g}".replace("-", "−").replace(".", ",")
    return f"{text} °C"


@dataclass(frozen=True, slots=True)
class DiseaseInputArrays:
    """R10 inputs for n characters, shape ``(n,)`` (the season is one for the whole tick).

    ``min_temp_c`` NaN = unknown (no cold points). Build with ``from_condition``.
    """

    sick_housemates: I64
    precipitation: B
    min_temp_c: NDArray[np.float64]
    unhygienic_days: I64
    dirty: B
    extra_dirt: B
    hunger_days: I64
    thirst_days: I64
    fatigue_days: I64

    @classmethod
    def from_condition(
        cls,
        condition: ConditionArrays,
        *,
        sick_housemates: ArrayLike = 0,
        precipitation: ArrayLike = False,
        min_temp_c: ArrayLike = np.nan,
    ) -> Self:
        """Inputs from the condition arrays and the day's facts (scalars broadcast).

        Raises RulesError for wrong shapes or negative housemate counts.
        """
        n = len(condition)
        housemates = np.broadcast_to(np.asarray(sick_housemates), (n,)).astype(np.int64)
        if np.any(housemates < 0):
            raise RulesError("El número de enfermos en el refugio no puede ser negativo.")
        temps = np.broadcast_to(np.asarray(min_temp_c, dtype=np.float64), (n,)).copy()
        if np.any(np.isinf(temps)):
            raise RulesError("La temperatura mínima debe ser un número finito.")
        return cls(
            sick_housemates=housemates,
            precipitation=np.broadcast_to(np.asarray(precipitation, np.bool_), (n,)).copy(),
            min_temp_c=temps,
            unhygienic_days=condition.unhygienic_days,
            dirty=condition.dirty,
            extra_dirt=condition.extra_dirt,
            hunger_days=condition.hunger_days,
            thirst_days=condition.thirst_days,
            fatigue_days=condition.fatigue_days,
        )

    def inputs(self, season: str, i: int) -> DiseaseInputs:
        """The scalar inputs of character ``i``."""
        temp = float(self.min_temp_c[i])
        return DiseaseInputs(
            season=season,
            sick_housemates=int(self.sick_housemates[i]),
            precipitation=bool(self.precipitation[i]),
            min_temp_c=None if math.isnan(temp) else temp,
            unhygienic_days=int(self.unhygienic_days[i]),
            dirty=bool(self.dirty[i]),
            extra_dirt=bool(self.extra_dirt[i]),
            hunger_days=int(self.hunger_days[i]),
            thirst_days=int(self.thirst_days[i]),
            fatigue_days=int(self.fatigue_days[i]),
        )


@dataclass(frozen=True, slots=True)
class DiseaseOdds:
    """R10 probabilities for n characters: ``p`` (int %, clamped, ``(n,)``), ``total``
    (unclamped sum), ``parts`` ``{source: points (n,)}``; ``breakdown(i)`` gives the labelled
    breakdown of one character (the same as ``disease_probability``)."""

    season: str
    inputs: DiseaseInputArrays
    p: I64
    total: I64
    parts: dict[str, I64]
    settings: RuleSettings

    def breakdown(self, i: int) -> Breakdown:
        """The labelled breakdown of character ``i``."""
        return disease_probability(self.inputs.inputs(self.season, i), self.settings)[1]


def disease_odds(
    season: str, inputs: DiseaseInputArrays, settings: RuleSettings = DEFAULT_SETTINGS
) -> DiseaseOdds:
    """Vectorised ``disease_probability`` for n characters. Raises RulesError for an unknown
    season. Source: RULES.md R10."""
    s = settings
    canonical = normalise_season(season)
    n = inputs.hunger_days.shape[0]
    temps = np.nan_to_num(inputs.min_temp_c, nan=0.0)
    degrees = np.maximum(0, np.floor(-temps)).astype(np.int64)
    need = s.need_day_disease_points
    parts: dict[str, I64] = {
        "season": np.full(n, s.season_base(canonical), dtype=np.int64),
        "sick_housemates": s.sick_housemate_disease_points * inputs.sick_housemates,
        "precipitation": np.where(inputs.precipitation, s.precipitation_disease_points, 0),
        "cold": s.cold_degree_disease_points * degrees,
        "unhygienic": s.unhygienic_day_disease_points * inputs.unhygienic_days,
        "dirt": np.where(inputs.dirty, s.dirt_disease_points, 0),
        "extra_dirt": np.where(inputs.extra_dirt, s.extra_dirt_disease_points, 0),
        "hunger": need * inputs.hunger_days,
        "thirst": need * inputs.thirst_days,
        "fatigue": need * inputs.fatigue_days,
    }
    parts = {k: np.asarray(v, dtype=np.int64) for k, v in parts.items()}
    total = np.zeros(n, dtype=np.int64)
    for points in parts.values():
        total += points
    return DiseaseOdds(
        season=canonical,
        inputs=inputs,
        p=np.clip(total, 0, 100),
        total=total,
        parts=parts,
        settings=settings,
    )


def count_sick_housemates(shelter: ArrayLike, sick: ArrayLike) -> I64:
    """For each of n characters, how many *other* characters in its shelter are ``sick``.

    ``shelter`` int (n,), −1 = none (then 0); ``sick`` bool (n,). Who counts as sick (disease,
    infection, NPCs) is the caller's choice. Source: RULES.md R10.
    """
    g = np.asarray(shelter, dtype=np.int64)
    s = np.asarray(sick, dtype=np.bool_)
    if g.shape != s.shape:
        raise RulesError("«shelter» y «sick» deben tener la misma forma.")
    housed = g >= 0
    if not np.any(housed):
        return np.zeros(g.shape, dtype=np.int64)
    counts = np.bincount(g[housed & s], minlength=int(g.max()) + 1)
    return np.where(housed, counts[np.where(housed, g, 0)] - (s & housed), 0).astype(np.int64)


# --- R10 onset roll, R12 course ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OnsetRoll:
    """A disease onset roll: ``p`` and ``breakdown`` (R10), the event ``roll`` (R2), and when
    it succeeds the ``duration`` (days) with its ``duration_roll`` (1d6+2, R12)."""

    p: int
    breakdown: Breakdown
    roll: EventRoll
    duration: int | None
    duration_roll: ExpressionRoll | None

    def as_dict(self) -> dict[str, object]:
        """JSON-able: ``p``, ``breakdown``, ``die``, ``threshold``, ``success``, ``duration``,
        ``duration_dice``."""
        return {
            "p": self.p,
            "breakdown": [m.as_dict() for m in self.breakdown],
            "die": self.roll.die,
            "threshold": self.roll.threshold,
            "success": self.roll.success,
            "duration": self.duration,
            "duration_dice": None if self.duration_roll is None else self.duration_roll.as_dict(),
        }


def roll_onset(
    inputs: DiseaseInputs, rng: np.random.Generator, settings: RuleSettings = DEFAULT_SETTINGS
) -> OnsetRoll:
    """Roll whether a healthy character falls sick today, and for how long if so.

    One d100 against ``disease_probability``; on success the duration is rolled with
    ``settings.disease_duration`` (1d6+2 → 3..8 days). Source: RULES.md R10, R12.
    """
    p, breakdown = disease_probability(inputs, settings)
    roll = roll_event(p, rng)
    if not roll.success:
        return OnsetRoll(p, breakdown, roll, None, None)
    duration = roll_expression(settings.disease_duration, rng)
    return OnsetRoll(p, breakdown, roll, duration.total, duration)


def start_disease(state: ConditionState, duration: int) -> ConditionState:
    """The state of a character who falls sick for ``duration`` days (disease day 1).

    Raises RulesError if already sick or the duration is not a positive int. Source: R12.
    """
    if state.sick:
        raise RulesError("El personaje ya está enfermo.")
    if isinstance(duration, bool) or not isinstance(duration, int) or duration < 1:
        raise RulesError(f"La duración de la enfermedad debe ser un entero positivo ({duration}).")
    return dataclasses.replace(
        state,
        disease_day=1,
        disease_duration=duration,
        disease_days_treated=0,
        disease_unhygienic_days=0,
    )


def cure_disease(state: ConditionState) -> ConditionState:
    """The state once the disease is over (cured or recovered): disease fields back to 0.

    Source: RULES.md R12."""
    return dataclasses.replace(
        state,
        disease_day=0,
        disease_duration=0,
        disease_days_treated=0,
        disease_unhygienic_days=0,
    )


def _check_medicine(medicina: int, settings: RuleSettings) -> int:
    value = check_trait_value(medicina)
    if value == 0 and settings.medicine_requires_trait:
        raise RulesError("Hace falta al menos 1 punto de Medicina para intentarlo.")
    return value


def roll_medicine_cure(
    medicina: int,
    rng: np.random.Generator,
    *,
    penalty: Breakdown = (),
    settings: RuleSettings = DEFAULT_SETTINGS,
) -> ActionRoll:
    """A Medicina action roll to cure a disease (base ``medicine_threshold``, 30 %).

    ``medicina`` is the healer's trait value, ``penalty`` the healer's R9 breakdown. Success
    cures (apply ``cure_disease``); it can be tried any day. Raises RulesError for a bad
    trait value, or 0 when ``medicine_requires_trait``. Source: RULES.md R12.
    """
    value = _check_medicine(medicina, settings)
    return roll_action(value, settings.medicine_threshold, rng, penalty)


def resistance_modifiers(
    days_treated: int, unhygienic_days: int, settings: RuleSettings = DEFAULT_SETTINGS
) -> Breakdown:
    """The disease's own lines of the resistance roll, as penalty lines (points subtracted):
    −5 per day treated with medicines (a bonus), +5 per sick day in inadequate hygiene.

    Source: RULES.md R12."""
    lines = []
    if days_treated:
        lines.append(
            Modifier(
                "treated",
                f"Tratado con medicinas ({_days(days_treated)})",
                -settings.resistance_per_treated_day * days_treated,
            )
        )
    if unhygienic_days:
        lines.append(
            Modifier(
                "unhygienic_sick",
                f"Enfermo sin higiene adecuada ({_days(unhygienic_days)})",
                settings.resistance_per_unhygienic_day * unhygienic_days,
            )
        )
    return tuple(lines)


def roll_resistance(
    state: ConditionState,
    resistencia: int,
    rng: np.random.Generator,
    settings: RuleSettings = DEFAULT_SETTINGS,
) -> ActionRoll:
    """The resistance roll at the end of a disease: an action roll with Resistencia, base
    ``resistance_base`` (50 %), with the treatment and hygiene lines and then the character's
    R9 penalty (from ``state``, disease days included). Success → recovers; failure → dies.

    Source: RULES.md R12, R9."""
    penalty = resistance_modifiers(
        state.disease_days_treated, state.disease_unhygienic_days, settings
    ) + action_penalty(state, is_dirt_sensitive(RESISTANCE_TRAIT, settings), settings)
    return roll_action(resistencia, settings.resistance_base, rng, penalty)


DiseaseOutcome = Literal["healthy", "continues", "recovered", "died"]


@dataclass(frozen=True, slots=True)
class DiseaseStep:
    """One tick of a disease: the new ``state``, the ``outcome`` and the ``resistance`` roll
    when the disease ended."""

    state: ConditionState
    outcome: DiseaseOutcome
    resistance: ActionRoll | None


def advance_disease(
    state: ConditionState,
    *,
    treated_today: bool,
    hygiene_adequate_today: bool,
    resistencia: int,
    rng: np.random.Generator,
    settings: RuleSettings = DEFAULT_SETTINGS,
) -> DiseaseStep:
    """Close one sick day: count it as treated (a medicine dose given that day) and/or
    unhygienic, then either go to the next day or, after the last day, roll resistance.

    ``state`` is the character's state after the survival step of the same tick (so the R9
    penalty includes today's counters). A healthy state is returned unchanged ("healthy").
    Source: RULES.md R12.
    """
    if not state.sick:
        return DiseaseStep(state, "healthy", None)
    state = dataclasses.replace(
        state,
        disease_days_treated=state.disease_days_treated + int(bool(treated_today)),
        disease_unhygienic_days=state.disease_unhygienic_days + int(not hygiene_adequate_today),
    )
    if state.disease_day < state.disease_duration:
        return DiseaseStep(
            dataclasses.replace(state, disease_day=state.disease_day + 1), "continues", None
        )
    roll = roll_resistance(state, resistencia, rng, settings)
    if roll.success:
        return DiseaseStep(cure_disease(state), "recovered", roll)
    return DiseaseStep(state, "died", roll)


# --- R13 infection -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BiteOutcome:
    """A zombie bite: the new ``state``; the ``amputation`` roll if one was made; ``amputated``
    (the limb was removed and the infection with it); ``infected`` (a new infection started);
    its ``duration_roll``. A character already infected stays as it was."""

    state: ConditionState
    amputation: ActionRoll | None
    amputated: bool
    infected: bool
    duration_roll: ExpressionRoll | None


def bite(
    state: ConditionState,
    rng: np.random.Generator,
    *,
    medicina: int | None = None,
    penalty: Breakdown = (),
    settings: RuleSettings = DEFAULT_SETTINGS,
) -> BiteOutcome:
    """Resolve a zombie bite. With ``medicina`` (the healer's trait value) the amputation is
    tried immediately: an action roll at ``amputation_threshold`` (20 %) with the healer's
    ``penalty``; success removes the infection (record the amputation on the sheet). Otherwise
    the character is infected for ``infection_duration`` (1d6+2) days, the bite day being
    day 1. A character already infected is not infected again and no roll is made (amputating
    this limb would not remove the earlier infection).
    Raises RulesError for a bad trait value. Source: RULES.md R13.
    """
    if state.infected:
        return BiteOutcome(state, None, False, False, None)
    if medicina is not None:
        value = _check_medicine(medicina, settings)
        roll = roll_action(value, settings.amputation_threshold, rng, penalty)
        if roll.success:
            return BiteOutcome(state, roll, True, False, None)
    else:
        roll = None
    duration = roll_expression(settings.infection_duration, rng)
    infected = dataclasses.replace(state, infection_day=1, infection_duration=duration.total)
    return BiteOutcome(infected, roll, False, True, duration)


def advance_infection(state: ConditionState) -> tuple[ConditionState, bool]:
    """Close one infected day: next day, or after the last one death (the character rises as
    a zombie). Returns ``(state, died)``; a state without infection is returned unchanged.
    No randomness. Source: RULES.md R13, R14."""
    if not state.infected:
        return state, False
    if state.infection_day >= state.infection_duration:
        return state, True
    return dataclasses.replace(state, infection_day=state.infection_day + 1), False


# --- the health part of the tick ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HealthDayArrays:
    """The day's health facts for n characters, shape ``(n,)``.

    ``alive`` (characters to process: exclude those who died in the survival step),
    ``sick_housemates`` (see ``count_sick_housemates``), ``precipitation``, ``min_temp_c``
    (°C, NaN unknown), ``treated_today`` (a medicine dose given that day),
    ``hygiene_adequate`` (from the survival step), ``resistencia`` (trait values).
    """

    alive: B
    sick_housemates: I64
    precipitation: B
    min_temp_c: NDArray[np.float64]
    treated_today: B
    hygiene_adequate: B
    resistencia: I64

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
    ) -> Self:
        """Arrays of length n (scalars broadcast). Raises RulesError for bad shapes/values."""

        def col(value: ArrayLike, dtype: type, name: str) -> NDArray[Any]:
            arr = np.asarray(value)
            if arr.ndim == 0:
                arr = np.full(n, arr)
            if arr.shape != (n,):
                raise RulesError(f"«{name}» debe tener forma ({n},), no {arr.shape}.")
            return arr.astype(dtype)

        resist = col(resistencia, np.int64, "resistencia")
        if np.any(resist < 0):
            raise RulesError("«resistencia» no puede ser negativa.")
        housemates = col(sick_housemates, np.int64, "sick_housemates")
        if np.any(housemates < 0):
            raise RulesError("«sick_housemates» no puede ser negativo.")
        return cls(
            alive=col(alive, np.bool_, "alive"),
            sick_housemates=housemates,
            precipitation=col(precipitation, np.bool_, "precipitation"),
            min_temp_c=col(min_temp_c, np.float64, "min_temp_c"),
            treated_today=col(treated_today, np.bool_, "treated_today"),
            hygiene_adequate=col(hygiene_adequate, np.bool_, "hygiene_adequate"),
            resistencia=resist,
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
    Draws, in this order: resistance dice, onset dice, durations. Raises RulesError for
    mismatched lengths or an unknown season. Source: RULES.md R10, R12, R13, R14, R24.
    """
    n = len(condition)
    if day.alive.shape != (n,):
        raise RulesError(f"Hay {n} estados y {day.alive.shape[0]} registros de salud.")
    course = _disease_course(condition, day, rng, settings)
    onset = _disease_onset(condition, day, season, rng, settings)
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
    condition: ConditionArrays, day: HealthDayArrays, rng: np.random.Generator, s: RuleSettings
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
    penalty_all = (
        action_penalty_points(
            condition.replace(disease_days_treated=treated, disease_unhygienic_days=unhygienic),
            is_dirt_sensitive(RESISTANCE_TRAIT, s),
            s,
        )
        - s.resistance_per_treated_day * treated
        + s.resistance_per_unhygienic_day * unhygienic
    )
    resistance_penalty = penalty_all[idx]
    resistance = roll_actions(
        day.resistencia[idx], s.resistance_base - resistance_penalty.astype(np.float64), rng
    )
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
) -> _DiseaseOnset:
    """Step 2 of ``advance_health``: who falls sick, among the alive characters healthy at the
    start of the tick (one recovered in step 1 does not roll again that day).

    One d100 each against the R10 probability of ``season`` and the day; those at or under it
    roll their duration (``disease_duration``, e.g. 1d6+2 days). Draws the onset dice, then the
    durations. Raises RulesError for an unknown season. Source: RULES.md R10, R12.
    """
    odds = disease_odds(
        season,
        DiseaseInputArrays.from_condition(
            condition,
            sick_housemates=day.sick_housemates,
            precipitation=day.precipitation,
            min_temp_c=day.min_temp_c,
        ),
        s,
    )
    n = len(condition)
    rolled = day.alive & (condition.disease_day == 0)
    onset_dice = np.zeros(n, dtype=np.int64)
    onset_dice[rolled] = rng.integers(1, 101, size=int(rolled.sum()), dtype=np.int64)
    fell_sick = rolled & (onset_dice <= odds.p)
    new_durations, new_dice = roll_totals(s.disease_duration, int(fell_sick.sum()), rng)
    onset_duration = np.zeros(n, dtype=np.int64)
    onset_duration[fell_sick] = new_durations
    duration_dice = np.zeros((n, new_dice.shape[1]), dtype=np.int64)
    duration_dice[fell_sick] = new_dice
    return _DiseaseOnset(odds, rolled, onset_dice, fell_sick, onset_duration, duration_dice)
