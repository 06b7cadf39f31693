"""The rolls of a fight: action and event rolls kept with every die and their breakdown.

Situation modifiers (two-handed +15, grabbed −20) are signed points added to the threshold;
the action penalty (R9) is positive points subtracted, as everywhere in ``reglas.dice``.

Source: RULES.md R1, R2, R3, R9, R19.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reglas.core import Breakdown, Modifier, breakdown_total
from reglas.dice import roll_action, roll_event


@dataclass(frozen=True, slots=True)
class CombatRoll:
    """One roll of a fight with every die.

    ``purpose``: ``to_hit``, ``wound``, ``escape``, ``grab`` or ``bite``; ``label`` Spanish.
    An action roll (R3) has ``trait``/``trait_value`` and 1 + value dice; an event roll (one
    d100: caliber wound, zombie grab and bite) has ``trait`` None. ``threshold`` (%) =
    clamp(``base_threshold`` + Σ ``modifiers`` − Σ ``penalty``); ``modifiers`` are signed
    points of the situation (two-handed +15, grabbed −20), ``penalty`` the action penalty (R9,
    positive points subtracted). ``successes`` = dice ≤ threshold; ``success`` = at least one.
    Source: RULES.md R1, R2, R3, R19.
    """

    purpose: str
    label: str
    trait: str | None
    trait_value: int | None
    dice: tuple[int, ...]
    base_threshold: int
    modifiers: Breakdown
    penalty: Breakdown
    threshold: int
    successes: int
    success: bool

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "purpose": self.purpose,
            "label": self.label,
            "trait": self.trait,
            "trait_value": self.trait_value,
            "dice": list(self.dice),
            "base_threshold": self.base_threshold,
            "modifiers": [m.as_dict() for m in self.modifiers],
            "penalty": [m.as_dict() for m in self.penalty],
            "threshold": self.threshold,
            "successes": self.successes,
            "success": self.success,
        }

    def describe(self) -> str:
        """Spanish text: dice, threshold with its breakdown, outcome."""
        parts = [f"base {self.base_threshold} %"]
        parts += [f"{m.points:+d} {m.label}" for m in self.modifiers]
        parts += [f"{-m.points:+d} {m.label}" for m in self.penalty if m.points]
        detail = ", ".join(parts)
        outcome = "ÉXITO" if self.success else "FALLO"
        dice = ", ".join(str(d) for d in self.dice)
        if self.trait is None:
            return f"{self.label}: d100 = {dice} contra {self.threshold} % ({detail}) → {outcome}"
        n = len(self.dice)
        return (
            f"{self.label}: {self.trait} {self.trait_value} → {n}d100 [{dice}] contra "
            f"{self.threshold} % ({detail}) → {self.successes} éxito(s): {outcome}"
        )


def _situation_as_penalty(modifiers: Breakdown) -> Breakdown:
    """Situation modifiers in the sign convention of ``reglas.dice`` (points subtracted)."""
    return tuple(Modifier(m.source, m.label, -m.points) for m in modifiers)


def action_roll(
    purpose: str,
    label: str,
    trait: str,
    trait_value: int,
    base_threshold: int,
    rng: np.random.Generator,
    *,
    modifiers: Breakdown = (),
    penalty: Breakdown = (),
) -> CombatRoll:
    """An action roll (R3): 1 + ``trait_value`` d100, success if at least one die ≤ threshold.

    Threshold (%) = clamp(base + Σ modifiers − Σ penalty) to 0..100 (R1, R9). The dice are
    rolled by :func:`reglas.dice.roll_action`. Raises RulesError for a bad trait value.
    Source: RULES.md R3.
    """
    mods = tuple(modifiers)
    pen = tuple(penalty)
    roll = roll_action(trait_value, base_threshold, rng, (*_situation_as_penalty(mods), *pen))
    return CombatRoll(
        purpose=purpose,
        label=label,
        trait=trait,
        trait_value=roll.trait_value,
        dice=roll.dice,
        base_threshold=base_threshold,
        modifiers=mods,
        penalty=pen,
        threshold=roll.threshold,
        successes=roll.successes,
        success=roll.success,
    )


def event_roll(
    purpose: str,
    label: str,
    base_threshold: int,
    rng: np.random.Generator,
    *,
    modifiers: Breakdown = (),
) -> CombatRoll:
    """An event roll (R2): one d100, success if die ≤ clamp(base + Σ modifiers).

    The die is rolled by :func:`reglas.dice.roll_event`. Source: RULES.md R1, R2.
    """
    mods = tuple(modifiers)
    roll = roll_event(base_threshold + breakdown_total(mods), rng)
    return CombatRoll(
        purpose=purpose,
        label=label,
        trait=None,
        trait_value=None,
        dice=(roll.die,),
        base_threshold=base_threshold,
        modifiers=mods,
        penalty=(),
        threshold=roll.threshold,
        successes=int(roll.success),
        success=roll.success,
    )
