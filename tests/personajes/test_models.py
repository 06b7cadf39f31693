"""The characters' schema: constraints that hold in the database, immutable rolls, the mapping.

Source: RULES.md R3 (rolls are records), R5 (sheets), R6–R13 (condition state).
"""

import pytest
from django.db import IntegrityError, transaction

from personajes import rolls
from personajes.mapping import (
    CONDITION_FIELDS,
    DIARY_CONDITION_FIELDS,
    allocation,
    condition_state,
)
from personajes.models import Character, Roll, Trait, TraitValue
from personajes.traits import campaign_traits
from reglas.characters import ConditionState
from tests.factories import (
    CampaignFactory,
    CharacterFactory,
    InventoryItemFactory,
    TraitFactory,
)
from tests.personajes.helpers import make_character

pytestmark = pytest.mark.django_db


def test_condition_fields_map_one_to_one(campaign, player_a):
    character = make_character(
        campaign,
        player_a,
        hunger_days=2,
        thirst_days=1,
        dirty=True,
        disease_day=2,
        disease_duration=5,
    )
    state = condition_state(character)
    assert isinstance(state, ConditionState)
    assert state.as_dict() == {name: getattr(character, name) for name in CONDITION_FIELDS}
    assert (state.hunger_days, state.dirty, state.sick) == (2, True, True)


def test_the_diary_copies_thirteen_condition_fields_the_api_shows_in_order():
    # One list for the tick's diary write and the API's diary row: the R25 counters, dirt,
    # the disease and infection "day x of y", and R6's days without, in the condition's order.
    from personajes.api_diary import DiaryEntrySerializer

    assert DIARY_CONDITION_FIELDS == (
        "hunger_days",
        "thirst_days",
        "fatigue_days",
        "unhygienic_days",
        "dirty",
        "extra_dirt",
        "disease_day",
        "disease_duration",
        "infection_day",
        "infection_duration",
        "days_without_food",
        "days_without_water",
        "days_without_sleep",
    )
    assert set(DIARY_CONDITION_FIELDS) < set(CONDITION_FIELDS)
    fields = list(DiaryEntrySerializer.Meta.fields)
    start = fields.index("hunger_days")
    assert fields[start : start + 13] == list(DIARY_CONDITION_FIELDS)
    assert fields[start - 1] == "hygiene_ok" and fields[start + 13] == "penalty_total"


def test_allocation_covers_every_trait_with_zero_for_missing(campaign, player_a):
    character = CharacterFactory(campaign=campaign, player=player_a)  # no rows at all
    campaign_traits(campaign=campaign)
    TraitValue.objects.create(
        character=character, trait=Trait.objects.get(campaign=campaign, slug="sigilo"), value=4
    )
    values = allocation(character)
    assert list(values)[:2] == ["fuerza", "agilidad"]
    assert values["sigilo"] == 4
    assert sum(values.values()) == 4
    assert len(values) == 10


def test_is_alive_follows_the_status(campaign, player_a):
    alive = {s: make_character(campaign, player_a, status=s).is_alive for s in Character.Status}
    assert alive == {
        "draft": True,
        "submitted": True,
        "approved": True,
        "dead": False,
        "risen": False,
    }


@pytest.mark.parametrize(
    ("day", "duration"),
    [("disease_day", "disease_duration"), ("infection_day", "infection_duration")],
)
def test_an_illness_day_cannot_pass_its_duration(campaign, player_a, day, duration):
    with pytest.raises(IntegrityError), transaction.atomic():
        make_character(campaign, player_a, **{day: 3, duration: 2})


def test_a_trait_slug_is_unique_in_its_campaign_only():
    campaign = CampaignFactory()
    TraitFactory(campaign=campaign, slug="carisma")
    TraitFactory(campaign=CampaignFactory(), slug="carisma")
    with pytest.raises(IntegrityError), transaction.atomic():
        Trait.objects.create(campaign=campaign, slug="carisma", name="Otra")


def test_one_value_per_trait_and_character(campaign, player_a):
    character = make_character(campaign, player_a)
    trait = Trait.objects.get(campaign=campaign, slug="fuerza")
    with pytest.raises(IntegrityError), transaction.atomic():
        TraitValue.objects.create(character=character, trait=trait, value=2)


def test_quantities_are_never_negative_in_the_database():
    item = InventoryItemFactory(quantity=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        type(item).objects.filter(pk=item.pk).update(quantity=-1)


def roll_row(campaign, character, **fields):
    values = {
        "campaign": campaign,
        "character": character,
        "day": 7,
        "kind": Roll.Kind.ACTION,
        "dice": [10, 50],
        "generator_key": [7, 1, character.pk, 0],
        "engine_version": "1",
        **fields,
    }
    return Roll.objects.create(**values)


def test_rolls_are_immutable(campaign, player_a):
    r = roll_row(campaign, make_character(campaign, player_a))
    r.success = True
    with pytest.raises(ValueError, match="immutable"):
        r.save()
    r.refresh_from_db()
    assert r.success is None


def test_a_generator_key_is_used_once_per_campaign(campaign, player_a):
    character = make_character(campaign, player_a)
    roll_row(campaign, character)
    with pytest.raises(IntegrityError), transaction.atomic():
        roll_row(campaign, character)


def test_a_base_threshold_over_100_is_refused_by_the_database(campaign, player_a):
    with pytest.raises(IntegrityError), transaction.atomic():
        roll_row(campaign, make_character(campaign, player_a), base_threshold=101)


def test_a_roll_outlives_a_renamed_or_deleted_trait(campaign, player_a):
    character = make_character(campaign, player_a, status="approved", points={"fuerza": 2})
    r = rolls.roll_action_for_character(
        character=character, trait="fuerza", threshold=30, made_by=player_a
    )
    Trait.objects.filter(slug="fuerza").delete()
    r.refresh_from_db()
    # The snapshot keeps what was rolled: trait name and value at the time.
    assert (r.trait, r.trait_name, r.trait_value, len(r.dice)) == (None, "Fuerza", 2, 3)
