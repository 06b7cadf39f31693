"""Infection by a zombie bite: the immediate amputation roll, the infected days, the death.

A bite on day N makes that day infection day 1; the tick closing infection day y kills and
raises the character (the tick's vectorised version is in ``reglas.health.tick``).

Source: RULES.md R13, R14.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from reglas.characters import ConditionState
from reglas.core import Breakdown
from reglas.dice import ActionRoll, roll_action
from reglas.expressions import ExpressionRoll, roll_expression
from reglas.health.disease import _check_medicine
from reglas.settings import DEFAULT_SETTINGS, RuleSettings


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
