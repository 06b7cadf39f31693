"""Combat: to hit and to wound (R19), zombie turns (R20), exchanges between humans (R21).

One module per rulebook topic: ``rolls`` (the fight's action and event rolls with every die),
``attacks`` (R19: to-hit and wound thresholds, one attack), ``zombies`` (R20: the turns of
zombies against one victim), ``humans`` (R21: a simultaneous exchange), ``amputation`` (R13:
the one Medicina try after a bite) and the package ``odds`` (the master's Monte Carlo odds
calculator). Every public name is re-exported here, so ``from reglas.combat import attack``
stays the way to use them.

There are no hit points: a wound kills, human or zombie. To hit is an action roll (R3: 1 +
trait d100, one success is enough) with Armas a distancia, Armas cuerpo a cuerpo or Pelea; to
wound is a Fuerza action roll in melee, or one d100 against the caliber for firearms. The
readings we chose where the rulebook is silent are written in ``attacks`` and ``zombies``.

Source: RULES.md R13, R19, R20, R21 (seed: "Sistema, combate").
"""

from reglas.combat.amputation import amputation_roll
from reglas.combat.attacks import (
    Attack,
    AttackMode,
    attack,
    attack_mode,
    to_hit_threshold,
    to_hit_trait,
    wound_threshold,
)
from reglas.combat.humans import Combatant, HumanExchange, resolve_human_exchange
from reglas.combat.odds import (
    BiteOdds,
    CureOdds,
    HumanOdds,
    PartyMember,
    ZombieOdds,
    bite_odds,
    cure_odds,
    human_odds,
    zombie_odds,
)
from reglas.combat.rolls import CombatRoll, action_roll, event_roll
from reglas.combat.zombies import (
    DEATH_CONSECUTIVE,
    DEATH_SAME_TURN,
    AttackZombie,
    EscapeZombie,
    VictimAction,
    ZombieFight,
    ZombieRoll,
    ZombieState,
    ZombieTurn,
    resolve_zombie_turn,
)
from reglas.tables import Weapon

__all__ = [
    "DEATH_CONSECUTIVE",
    "DEATH_SAME_TURN",
    "Attack",
    "AttackMode",
    "AttackZombie",
    "BiteOdds",
    "CombatRoll",
    "Combatant",
    "CureOdds",
    "EscapeZombie",
    "HumanExchange",
    "HumanOdds",
    "PartyMember",
    "VictimAction",
    "Weapon",
    "ZombieFight",
    "ZombieOdds",
    "ZombieRoll",
    "ZombieState",
    "ZombieTurn",
    "action_roll",
    "amputation_roll",
    "attack",
    "attack_mode",
    "bite_odds",
    "cure_odds",
    "event_roll",
    "human_odds",
    "resolve_human_exchange",
    "resolve_zombie_turn",
    "to_hit_threshold",
    "to_hit_trait",
    "wound_threshold",
    "zombie_odds",
]
