"""The master's odds calculator: Monte Carlo fights, numpy over the simulated fights.

``zombie_odds`` (a party against zombies, R20, with the bites' amputation tries, R13),
``human_odds`` (humans against humans, R21), ``bite_odds`` (the amputation after one bite,
R13) and ``cure_odds`` (the Medicina cure, R12) return estimates (0..1) with 95 % Wilson
intervals and the exact values where they have a closed form. Modules: ``base`` (fighters,
chances, estimates), ``zombies`` and ``humans`` (the vectorised fights and the readings they
follow), ``exact`` (one zombie, exactly), ``reference`` (one fight with the scalar resolvers,
for the tests and the benchmark), ``calculator``, ``rivals`` and ``medicine`` (the public
calls). Source: RULES.md R12, R13, R19, R20, R21.
"""

from reglas.combat.odds.base import (
    DEFAULT_SIMULATIONS,
    MAX_HUMANS,
    MAX_SIMULATIONS,
    MAX_TURNS,
    MAX_WORK,
    MAX_ZOMBIES,
    Estimate,
    GrabbedChoice,
    MemberChances,
    PartyMember,
    member_chances,
    wilson_interval,
)
from reglas.combat.odds.calculator import MemberOdds, ZombieOdds, zombie_odds
from reglas.combat.odds.exact import ExactOdds, exact_one_zombie
from reglas.combat.odds.medicine import MAX_CURE_DAYS, BiteOdds, CureOdds, bite_odds, cure_odds
from reglas.combat.odds.reference import (
    FightOutcome,
    reference_human_fight,
    reference_zombie_fight,
)
from reglas.combat.odds.rivals import DuelExact, HumanOdds, duel_exact, human_odds

__all__ = [
    "DEFAULT_SIMULATIONS",
    "MAX_CURE_DAYS",
    "MAX_HUMANS",
    "MAX_SIMULATIONS",
    "MAX_TURNS",
    "MAX_WORK",
    "MAX_ZOMBIES",
    "BiteOdds",
    "CureOdds",
    "DuelExact",
    "Estimate",
    "ExactOdds",
    "FightOutcome",
    "GrabbedChoice",
    "HumanOdds",
    "MemberChances",
    "MemberOdds",
    "PartyMember",
    "ZombieOdds",
    "bite_odds",
    "cure_odds",
    "duel_exact",
    "exact_one_zombie",
    "human_odds",
    "member_chances",
    "reference_human_fight",
    "reference_zombie_fight",
    "wilson_interval",
    "zombie_odds",
]
