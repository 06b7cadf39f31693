"""Factories of the world's places (mundo): locations and grids."""

import factory

from mundo.models import Grid, Location
from tests.factories import SettlementFactory


class LocationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Location

    settlement = factory.SubFactory(SettlementFactory)
    name = factory.Sequence(lambda n: f"Lugar {n}")
    kind = Location.Kind.DWELLING


class ShopFactory(LocationFactory):
    kind = Location.Kind.SHOP
    shop_type = "supermercado"


class ShelterFactory(LocationFactory):
    # An adequate shelter by default: a latrine 25 m away (R7); paper comes from stock.
    kind = Location.Kind.SHELTER
    latrine_distance_m = 25.0


class GridFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Grid

    campaign = factory.SubFactory("tests.factories.CampaignFactory")
    settlement = None
