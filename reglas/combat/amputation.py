"""The one immediate amputation try after a zombie bite (R13), with every die.

A bite infects; the only cure is a Medicina action roll made immediately after it (base
``amputation_threshold``, default 20 %, by any character present, one try per bite) to amputate
the bitten limb. Success removes the infection and the sheet records the amputation; the caller
decides who tries and records the outcome. ``reglas.health.bite`` applies the same roll to a
``ConditionState``; this is the fight's version, shaped like every other combat roll.

Source: RULES.md R13 (seed: "Sistema, salud, enfermedad y muerte").
"""

from __future__ import annotations

import numpy as np

from reglas.combat.rolls import CombatRoll, action_roll
from reglas.core import Breakdown
from reglas.health.disease import MEDICINE_TRAIT, _check_medicine
from reglas.settings import DEFAULT_SETTINGS, RuleSettings


def amputation_roll(
    medicina: int,
    rng: np.random.Generator,
    *,
    modifiers: Breakdown = (),
    penalty: Breakdown = (),
    settings: RuleSettings = DEFAULT_SETTINGS,
) -> CombatRoll:
    """The amputation try right after a bite: an action roll (R3) with the healer's Medicina.

    ``medicina`` is the healer's trait value (1 + value d100); the threshold (%) is
    clamp(``settings.amputation_threshold`` (20) + Σ ``modifiers`` − Σ ``penalty``), where
    ``modifiers`` are signed situation points and ``penalty`` the healer's action penalty (R9,
    positive points subtracted). ``success`` → the limb is amputated and the infection removed.
    Returns a :class:`CombatRoll` with ``purpose`` ``"amputation"`` and every die.
    Raises RulesError for a bad trait value, or for 0 when ``settings.medicine_requires_trait``
    (nothing is rolled then). Source: RULES.md R13.
    """
    value = _check_medicine(medicina, settings)
    return action_roll(
        "amputation",
        "Amputar",
        MEDICINE_TRAIT,
        value,
        settings.amputation_threshold,
        rng,
        modifiers=modifiers,
        penalty=penalty,
    )
