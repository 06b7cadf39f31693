"""factory_boy factories for the apps' models."""

import datetime

import factory
from django.contrib.auth import get_user_model

from mundo.models import Campaign, Membership, Settlement


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
