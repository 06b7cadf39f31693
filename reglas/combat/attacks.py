"""To hit and to wound: one attack with a weapon, and the thresholds it rolls against.

There are no hit points: a wound kills, human or zombie. To hit is an action roll (R3: 1 +
trait d100, one success is enough) with Armas a distancia, Armas cuerpo a cuerpo or Pelea; to
wound is a Fuerza action roll in melee, or one d100 against the caliber for firearms.

Readings we chose where the rulebook is silent:

* The action penalty (R9) lowers action rolls only: to hit, the Fuerza wound roll and the
  escape. The caliber's wound d100 is not the character's action and takes no penalty.
* Beyond the last range band (60 m) a firearm is out of range: threshold 0, and the two-handed
  bonus (+15 beyond 15 m) does not apply there.

Source: RULES.md R19 (seed: "Sistema, combate").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from reglas.combat.rolls import CombatRoll, action_roll, event_roll
from reglas.core import Breakdown, Modifier
from reglas.dice import check_trait_value
from reglas.errors import RulesError
from reglas.tables import DEFAULT_COMBAT, UNARMED, CombatTable, Weapon


class AttackMode(StrEnum):
    """How a weapon attacks: ``ranged`` (firearms), ``melee`` (with a weapon), ``unarmed``."""

    RANGED = "ranged"
    MELEE = "melee"
    UNARMED = "unarmed"


def attack_mode(weapon: Weapon) -> AttackMode:
    """Ranged for firearms, unarmed for bare hands, melee for everything else.

    Source: RULES.md R19.
    """
    if weapon.is_firearm:
        return AttackMode.RANGED
    if weapon.kind == UNARMED:
        return AttackMode.UNARMED
    return AttackMode.MELEE


def to_hit_trait(weapon: Weapon, table: CombatTable = DEFAULT_COMBAT) -> str:
    """Trait slug used to hit: ranged → ``armas_distancia``, melee with a weapon →
    ``armas_cac``, unarmed → ``pelea`` (by default). Source: RULES.md R19."""
    mode = attack_mode(weapon)
    if mode is AttackMode.RANGED:
        return table.trait_ranged
    if mode is AttackMode.UNARMED:
        return table.trait_unarmed
    return table.trait_melee


def to_hit_threshold(
    weapon: Weapon, distance_m: float = 0.0, table: CombatTable = DEFAULT_COMBAT
) -> tuple[int, Breakdown]:
    """Base to-hit threshold (%) and the situation modifiers that the range gives.

    Melee and unarmed: 60 % whatever ``distance_m``. Firearms by distance in m: ≤ 5 → 60,
    ≤ 15 → 40, ≤ 30 → 25, ≤ 60 → 10, farther → 0 (out of range, no bonus); two-handed
    firearms get +15 beyond 15 m (inside range). Raises RulesError for a negative distance or
    a weapon whose kind/caliber is not in the table. Source: RULES.md R19.
    """
    table.check_weapon(weapon)
    if distance_m < 0:
        raise RulesError(
            "distance_negative",
            f"La distancia no puede ser negativa (se recibió {distance_m} m).",
            distance_m=distance_m,
        )
    if not weapon.is_firearm:
        return table.melee_to_hit, ()
    for band in table.ranged_to_hit:
        if distance_m <= band.max_m:
            modifiers: Breakdown = ()
            if weapon.two_handed and distance_m > table.two_handed_bonus_beyond_m:
                beyond = f"{table.two_handed_bonus_beyond_m:g}"
                modifiers = (
                    Modifier(
                        "two_handed",
                        f"arma de fuego a dos manos a más de {beyond} m",
                        table.two_handed_bonus,
                    ),
                )
            return band.threshold, modifiers
    return table.out_of_range_to_hit, ()


def wound_threshold(weapon: Weapon, table: CombatTable = DEFAULT_COMBAT) -> int:
    """Wound threshold (%): the caliber's for firearms (one d100), the weapon class's for
    melee (Fuerza action roll). Raises RulesError if unknown. Source: RULES.md R19."""
    if weapon.is_firearm:
        table.check_weapon(weapon)
        assert weapon.caliber is not None  # checked above
        return table.caliber(weapon.caliber).threshold
    return table.wound_class(weapon.kind).threshold


def _trait(traits: Mapping[str, int], slug: str) -> int:
    # A trait the sheet lacks counts as 0: the campaign may have renamed or dropped it.
    try:
        return check_trait_value(traits.get(slug, 0))
    except RulesError as exc:
        raise RulesError(
            "trait_invalid", f"Rasgo «{slug}»: {exc}", slug=slug, detail=str(exc)
        ) from exc


@dataclass(frozen=True, slots=True)
class Attack:
    """One attack: the to-hit roll and, if it hit, the wound roll. ``kills`` when wounded.

    ``distance_m`` in m. Source: RULES.md R19.
    """

    weapon: Weapon
    mode: AttackMode
    distance_m: float
    to_hit: CombatRoll
    wound: CombatRoll | None

    @property
    def hit(self) -> bool:
        """The to-hit roll succeeded."""
        return self.to_hit.success

    @property
    def kills(self) -> bool:
        """It hit and wounded: a wound kills (no hit points)."""
        return self.wound is not None and self.wound.success

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "weapon": self.weapon.slug,
            "weapon_label": self.weapon.label,
            "mode": self.mode.value,
            "distance_m": self.distance_m,
            "to_hit": self.to_hit.as_dict(),
            "wound": None if self.wound is None else self.wound.as_dict(),
            "hit": self.hit,
            "kills": self.kills,
        }

    def describe(self) -> str:
        """Spanish text with both rolls."""
        lines = [f"{self.weapon.label} a {self.distance_m:g} m.", self.to_hit.describe()]
        if self.wound is None:
            lines.append("No impacta: no se tira para herir.")
        else:
            lines.append(self.wound.describe())
            lines.append("Herida mortal: el objetivo muere." if self.kills else "No hiere.")
        return "\n".join(lines)


def attack(
    weapon: Weapon,
    traits: Mapping[str, int],
    rng: np.random.Generator,
    *,
    distance_m: float = 0.0,
    modifiers: Breakdown = (),
    penalty: Breakdown = (),
    table: CombatTable = DEFAULT_COMBAT,
) -> Attack:
    """Attack with ``weapon``: to-hit action roll, then (if hit) the wound roll.

    ``traits`` maps trait slugs to values (missing → 0). ``distance_m`` in m (firearms).
    ``modifiers`` are extra signed situation points on the to-hit threshold (e.g. grabbed −20);
    ``penalty`` is the attacker's action penalty (R9), applied to the to-hit and the Fuerza
    wound roll but not to a caliber's d100. Dice order: to-hit dice, then wound dice.
    Raises RulesError for a bad weapon, trait value or distance. Source: RULES.md R19.
    """
    base, range_mods = to_hit_threshold(weapon, distance_m, table)
    trait = to_hit_trait(weapon, table)
    to_hit = action_roll(
        "to_hit",
        "Impactar",
        trait,
        _trait(traits, trait),
        base,
        rng,
        modifiers=(*range_mods, *modifiers),
        penalty=penalty,
    )
    wound: CombatRoll | None = None
    if to_hit.success:
        threshold = wound_threshold(weapon, table)
        if weapon.is_firearm:
            wound = event_roll("wound", "Herir (calibre)", threshold, rng)
        else:
            wound = action_roll(
                "wound",
                "Herir",
                table.trait_wound,
                _trait(traits, table.trait_wound),
                threshold,
                rng,
                penalty=penalty,
            )
    return Attack(
        weapon=weapon,
        mode=attack_mode(weapon),
        distance_m=float(distance_m),
        to_hit=to_hit,
        wound=wound,
    )
