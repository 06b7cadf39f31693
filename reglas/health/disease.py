"""The course of a disease: its onset roll and duration, the Medicina cure, the resistance roll.

Scalar functions for one character (a Medicina roll, one sick day closed); the tick's
vectorised course is ``reglas.health.tick.advance_health``. Timeline (our reading of "day x
of y"): a disease that starts at the tick closing day N runs on days N+1 … N+y,
``disease_day`` = 1 … y; the tick closing its last day rolls resistance. The R9 penalty counts
the current disease day (day 1 already costs 5).

Source: RULES.md R10 (onset roll), R12, R14 (seed: "Sistema, salud, enfermedad y muerte").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

import numpy as np

from reglas.characters import ConditionState, action_penalty, is_dirt_sensitive
from reglas.core import Breakdown, Modifier
from reglas.dice import ActionRoll, EventRoll, check_trait_value, roll_action, roll_event
from reglas.errors import RulesError
from reglas.expressions import ExpressionRoll, roll_expression
from reglas.health.onset import DiseaseInputs, _days, disease_probability
from reglas.settings import DEFAULT_SETTINGS, RuleSettings

RESISTANCE_TRAIT = "resistencia"
MEDICINE_TRAIT = "medicina"


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
        raise RulesError("already_sick", "El personaje ya está enfermo.")
    if isinstance(duration, bool) or not isinstance(duration, int) or duration < 1:
        raise RulesError(
            "disease_duration_invalid",
            f"La duración de la enfermedad debe ser un entero positivo ({duration}).",
            duration=duration,
        )
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
        raise RulesError(
            "medicine_needed", "Hace falta al menos 1 punto de Medicina para intentarlo."
        )
    return value


def roll_medicine_cure(
    medicina: int,
    rng: np.random.Generator,
    *,
    penalty: Breakdown = (),
    settings: RuleSettings = DEFAULT_SETTINGS,
) -> ActionRoll:
    """A Medicina action roll to cure a disease (base ``medicine_cure_threshold``, 30 %).

    ``medicina`` is the healer's trait value, ``penalty`` the healer's R9 breakdown. Success
    cures (apply ``cure_disease``); it can be tried any day. Raises RulesError for a bad
    trait value, or 0 when ``medicine_requires_trait``. Source: RULES.md R12.
    """
    value = _check_medicine(medicina, settings)
    return roll_action(value, settings.medicine_cure_threshold, rng, penalty)


def resistance_modifiers(
    days_treated: int, unhygienic_days: int, settings: RuleSettings = DEFAULT_SETTINGS
) -> Breakdown:
    """The disease's own lines of the resistance roll, as penalty lines (points subtracted):
    −5 per day treated with medicines (a bonus), +5 per sick day in inadequate hygiene; each
    line's ``params`` is ``{"days": n}``.

    Source: RULES.md R12."""
    lines = []
    if days_treated:
        lines.append(
            Modifier(
                "treated",
                f"Tratado con medicinas ({_days(days_treated)})",
                -settings.resistance_per_treated_day * days_treated,
                {"days": int(days_treated)},
            )
        )
    if unhygienic_days:
        lines.append(
            Modifier(
                "unhygienic_sick",
                f"Enfermo sin higiene adecuada ({_days(unhygienic_days)})",
                settings.resistance_per_unhygienic_day * unhygienic_days,
                {"days": int(unhygienic_days)},
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
