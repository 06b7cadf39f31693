"""Models ↔ ``reglas`` values: the one place that translates a Character into engine inputs.

Source: RULES.md R5 (allocation), R6–R9, R12, R13 (condition state).
"""

from __future__ import annotations

import dataclasses

from personajes.models import Character, DiaryEntry, Trait, TraitValue
from reglas.characters import ConditionState, TraitDefinition

CONDITION_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(ConditionState))
"""The condition fields, named the same on ``Character`` and ``ConditionState``."""

DIARY_CONDITION_FIELDS: tuple[str, ...] = tuple(
    name
    for name in CONDITION_FIELDS
    if name in {field.name for field in DiaryEntry._meta.concrete_fields}
)
"""The condition fields a diary row copies (RULES.md R25: the needs counters, dirt, disease and
infection day x of y), in ``CONDITION_FIELDS`` order: the ones ``DiaryEntry`` has a column for.
The other condition fields (days without defecating, last night's wetting and soiling, the
disease's treated and unhygienic days) stay on the character only."""


def condition_state(character: Character) -> ConditionState:
    """The character's condition as the engine's ``ConditionState`` (no query).

    Raises ``reglas.errors.RulesError`` if a field holds an impossible value (a negative
    counter cannot come from the database: the fields are unsigned).
    Source: RULES.md R6–R9, R12, R13.
    """
    return ConditionState(**{name: getattr(character, name) for name in CONDITION_FIELDS})


def trait_definitions(traits: list[Trait]) -> list[TraitDefinition]:
    """Campaign traits as the engine's ``TraitDefinition`` (slug, name), in the given order."""
    return [TraitDefinition(t.slug, t.name) for t in traits]


def allocation(character: Character) -> dict[str, int]:
    """``{trait slug: points}`` for every trait of the campaign in sheet order, 0 when the
    character has no value for it (a trait added after the sheet was made).

    Two queries: the campaign's traits and the character's values.
    Source: RULES.md R5.
    """
    values = dict(TraitValue.objects.filter(character=character).values_list("trait_id", "value"))
    return {
        trait.slug: values.get(trait.pk, 0)
        for trait in Trait.objects.filter(campaign_id=character.campaign_id)
    }
