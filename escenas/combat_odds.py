"""The master's odds before a fight: the scene's living characters against N zombies, as
``reglas.combat.odds.zombie_odds`` simulates them (Monte Carlo, numpy over the fights).

Each character is a ``PartyMember`` with its sheet's traits, its R9 action penalty today, the
first weapon it carries (by name; unarmed without one) and the fight's default distance; the
amputation after a bite is tried with the best Medicina present. The calculator and the
product spread the zombies the same way: zombie j starts on member j mod H, which is what
``escenas.combat.assign_victims`` gives (each new zombie on the human with fewest, ties to the
first), and both send the zombies of a fallen human, in order, to the least attacked living one
(tests/escenas/test_combat_odds.py checks both against each other).
Source: RULES.md R13, R19, R20.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from django.utils.translation import gettext as _

from escenas.combat import character_weapons
from mundo.models import Campaign
from nucleo.errors import ServiceError
from nucleo.rules_errors import rules_message
from personajes.mapping import condition_state
from personajes.models import Character, TraitValue
from reglas.characters import action_penalty
from reglas.combat.odds import PartyMember, ZombieOdds, zombie_odds
from reglas.core import breakdown_total
from reglas.errors import RulesError
from reglas.tables import UNARMED

MEDICINA = "medicina"


def party_of(campaign: Campaign, characters: Sequence[Character]) -> list[PartyMember]:
    """The living ``characters`` as the calculator's fighters (traits, R9 penalty, weapon)."""
    living = [c for c in characters if c.is_alive]
    values: dict[int, dict[str, int]] = {c.pk: {} for c in living}
    for cid, slug, value in TraitValue.objects.filter(character__in=living).values_list(
        "character_id", "trait__slug", "value"
    ):
        values[cid][slug] = value
    party = []
    for c in sorted(living, key=lambda c: c.name):
        weapons = character_weapons(c)
        carried = [w for w in weapons if w.kind != UNARMED]
        penalty = breakdown_total(action_penalty(condition_state(c), False, campaign.rules))
        party.append(
            PartyMember(
                name=c.name,
                weapon=carried[0] if carried else weapons[0],
                traits=values[c.pk],
                penalty=penalty,
            )
        )
    return party


def scene_odds(
    *,
    campaign: Campaign,
    characters: Sequence[Character],
    zombies: int,
    turns: int,
    simulations: int,
    seed: int | None = None,
) -> ZombieOdds:
    """The odds of the living ``characters`` against ``zombies`` over ``turns`` turns
    (``simulations`` fights; ``seed`` for a repeatable answer), with the campaign's combat
    table and rules. Not a roll: nothing is stored. Raises ServiceError: nobody alive, or the
    calculator's refusal (its inputs' ranges, its work budget). Source: RULES.md R13, R20."""
    party = party_of(campaign, characters)
    if not party:
        raise ServiceError(_("Nobody of the scene is alive to fight."))
    medicina = max(
        TraitValue.objects.filter(
            character__in=[c for c in characters if c.is_alive], trait__slug=MEDICINA
        ).values_list("value", flat=True),
        default=0,
    )
    try:
        return zombie_odds(
            party,
            zombies,
            turns,
            np.random.default_rng(seed),
            simulations=simulations,
            medicina=medicina or (None if campaign.rules.medicine_requires_trait else 0),
            table=campaign.tables.combat,
            settings=campaign.rules,
        )
    except RulesError as exc:
        raise ServiceError(rules_message(exc)) from None
