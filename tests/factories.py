"""factory_boy factories for the apps' models."""

import datetime

import factory
from django.contrib.auth import get_user_model

from mundo.models import Campaign, Membership, Settlement
from personajes.models import Character, InventoryItem, ItemType, Trait, TraitValue


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.PostGenerationMethodCall("set_password", "password")

    @factory.post_generation
    def save_password(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class CampaignFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Campaign

    name = factory.Sequence(lambda n: f"Campaña {n}")
    slug = factory.Sequence(lambda n: f"campana-{n}")
    apocalypse_date = datetime.date(2026, 11, 1)
    current_day = 7
    is_public = False


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    campaign = factory.SubFactory(CampaignFactory)
    user = factory.SubFactory(UserFactory)
    role = Membership.Role.PLAYER


class SettlementFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Settlement

    campaign = factory.SubFactory(CampaignFactory)
    name = factory.Sequence(lambda n: f"Pueblo {n}")
    slug = factory.Sequence(lambda n: f"pueblo-{n}")
    population = 200
    area_m2 = 10_000.0
    growth_rate = 1.0


class TraitFactory(factory.django.DjangoModelFactory):
    """A campaign trait. Most tests use ``personajes.traits.campaign_traits`` (the ten of R5)."""

    class Meta:
        model = Trait
        django_get_or_create = ("campaign", "slug")

    campaign = factory.SubFactory(CampaignFactory)
    slug = factory.Sequence(lambda n: f"rasgo_{n}")
    name = factory.LazyAttribute(lambda t: t.slug.replace("_", " ").capitalize())
    position = factory.Sequence(lambda n: 1000 + n)


class CharacterFactory(factory.django.DjangoModelFactory):
    """A character; ``allocation={"fuerza": 2, …}`` also writes its sheet.

    With an allocation the campaign's traits are made (``campaign_traits``) and every trait
    gets a TraitValue row (0 when not given), as ``character_create`` does. Without it no
    TraitValue rows exist (every trait then reads 0). The player is not made a member of the
    campaign here: the tests' cast already is.
    """

    class Meta:
        model = Character
        skip_postgeneration_save = True

    campaign = factory.SubFactory(CampaignFactory)
    player = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Personaje {n}")
    status = Character.Status.DRAFT

    @factory.post_generation
    def allocation(obj, create, extracted, **kwargs):
        if not create or extracted is None:
            return
        from personajes.traits import campaign_traits

        TraitValue.objects.bulk_create(
            [
                TraitValue(character=obj, trait=trait, value=int(extracted.get(trait.slug, 0)))
                for trait in campaign_traits(campaign=obj.campaign)
            ]
        )


class ItemTypeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ItemType
        django_get_or_create = ("campaign", "name")

    campaign = factory.SubFactory(CampaignFactory)
    name = factory.Sequence(lambda n: f"Objeto {n}")
    kind = ItemType.Kind.FOOD
    unit = "lata"
    kcal_per_unit = 400.0


class InventoryItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = InventoryItem

    character = factory.SubFactory(CharacterFactory)
    item_type = factory.SubFactory(
        ItemTypeFactory, campaign=factory.SelfAttribute("..character.campaign")
    )
    quantity = 1
