"""Combat between humans: a simultaneous exchange in which both can die.

Source: RULES.md R21 (seed: "Sistema, combate").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from reglas.combat.attacks import Attack, attack
from reglas.core import Breakdown
from reglas.tables import DEFAULT_COMBAT, CombatTable, Weapon


@dataclass(frozen=True, slots=True)
class Combatant:
    """A human in an exchange: a name for the text, the weapon, trait values by slug, the
    action penalty (R9) and extra signed to-hit modifiers. Source: RULES.md R21."""

    name: str
    weapon: Weapon
    traits: Mapping[str, int]
    penalty: Breakdown = ()
    modifiers: Breakdown = ()


@dataclass(frozen=True, slots=True)
class HumanExchange:
    """A simultaneous exchange: each side's attack; ``a_dead`` if B wounded A, ``b_dead`` if A
    wounded B — both can die. Source: RULES.md R21."""

    a: Combatant
    b: Combatant
    a_attack: Attack
    b_attack: Attack
    distance_m: float

    @property
    def a_dead(self) -> bool:
        """B's attack wounded (killed) A."""
        return self.b_attack.kills

    @property
    def b_dead(self) -> bool:
        """A's attack wounded (killed) B."""
        return self.a_attack.kills

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "a": self.a.name,
            "b": self.b.name,
            "distance_m": self.distance_m,
            "a_attack": self.a_attack.as_dict(),
            "b_attack": self.b_attack.as_dict(),
            "a_dead": self.a_dead,
            "b_dead": self.b_dead,
        }

    def describe(self) -> str:
        """Spanish text with both attacks."""
        dead = [c.name for c, d in ((self.a, self.a_dead), (self.b, self.b_dead)) if d]
        outcome = "Mueren: " + ", ".join(dead) + "." if dead else "Nadie muere."
        return "\n".join(
            [
                f"Ataca {self.a.name}:",
                self.a_attack.describe(),
                f"Ataca {self.b.name}:",
                self.b_attack.describe(),
                outcome,
            ]
        )


def resolve_human_exchange(
    a: Combatant,
    b: Combatant,
    rng: np.random.Generator,
    *,
    distance_m: float = 0.0,
    table: CombatTable = DEFAULT_COMBAT,
) -> HumanExchange:
    """Both humans attack at once at ``distance_m`` m (R19 each); each who hits rolls to wound;
    both can die. Dice order: A's attack, then B's (simultaneous: the order changes nothing).
    Raises RulesError as :func:`attack`. Source: RULES.md R21.
    """
    a_attack = attack(
        a.weapon,
        a.traits,
        rng,
        distance_m=distance_m,
        modifiers=a.modifiers,
        penalty=a.penalty,
        table=table,
    )
    b_attack = attack(
        b.weapon,
        b.traits,
        rng,
        distance_m=distance_m,
        modifiers=b.modifiers,
        penalty=b.penalty,
        table=table,
    )
    return HumanExchange(
        a=a, b=b, a_attack=a_attack, b_attack=b_attack, distance_m=float(distance_m)
    )
