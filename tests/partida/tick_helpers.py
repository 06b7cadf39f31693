"""Builders for the tick's tests: approved characters, items, shelters, and a world whose
disease odds can be switched off (so that deprivation scenarios die of what they test)."""

from __future__ import annotations

from decimal import Decimal

from mundo.models import Campaign, Location, Settlement
from personajes.models import Character, InventoryItem, ItemType, ShelterStash
from tests.factories import CharacterFactory, ItemTypeFactory
from tests.mundo.factories import ShelterFactory

NO_DISEASE = {
    # Every source of R10 points at 0: p = 0 %, nobody falls sick by chance.
    "season_base_winter": 0,
    "season_base_spring": 0,
    "season_base_summer": 0,
    "season_base_autumn": 0,
    "sick_housemate_disease_points": 0,
    "precipitation_disease_points": 0,
    "cold_degree_disease_points": 0,
    "unhygienic_day_disease_points": 0,
    "dirt_disease_points": 0,
    "extra_dirt_disease_points": 0,
    "need_day_disease_points": 0,
}


def no_disease(campaign: Campaign, **more: object) -> None:
    """Switch the campaign's disease odds off (and apply ``more`` overrides)."""
    Campaign.objects.filter(pk=campaign.pk).update(rule_overrides={**NO_DISEASE, **more})
    campaign.refresh_from_db()


def item(campaign: Campaign, kind: str, **values: object) -> ItemType:
    names = {
        ItemType.Kind.FOOD: "Lata",
        ItemType.Kind.WATER: "Litro de agua",
        ItemType.Kind.TOILET_PAPER: "Rollo",
        ItemType.Kind.MEDICINE: "Dosis",
    }
    name = str(values.pop("name", None) or names.get(kind, kind))
    defaults: dict[str, object] = {"kcal_per_unit": 0.0, "litres_per_unit": 0.0}
    if kind == ItemType.Kind.FOOD:
        defaults["kcal_per_unit"] = 500.0
    if kind == ItemType.Kind.WATER:
        defaults["litres_per_unit"] = 1.0
    defaults.update(values)
    return ItemTypeFactory(campaign=campaign, name=name, kind=kind, **defaults)


def give(character: Character, item_type: ItemType, quantity: float) -> InventoryItem:
    return InventoryItem.objects.create(
        character=character, item_type=item_type, quantity=Decimal(str(quantity))
    )


def stash(shelter: Location, item_type: ItemType, quantity: float) -> ShelterStash:
    return ShelterStash.objects.create(
        shelter=shelter, item_type=item_type, quantity=Decimal(str(quantity))
    )


def survivor(
    campaign: Campaign,
    *,
    shelter: Location | None = None,
    days: int = 10,
    food: bool = True,
    water: bool = True,
    paper: bool = True,
    **fields: object,
) -> Character:
    """An approved character carrying ``days`` days of food (2000 kcal), water (2 L) and paper
    (0.2 roll) unless told otherwise, living in ``shelter``."""
    character = CharacterFactory(
        campaign=campaign,
        status=Character.Status.APPROVED,
        shelter=shelter,
        settlement=shelter.settlement if shelter is not None else None,
        **fields,
    )
    if food:
        give(character, item(campaign, ItemType.Kind.FOOD), 4 * days)
    if water:
        give(character, item(campaign, ItemType.Kind.WATER), 2 * days)
    if paper:
        give(character, item(campaign, ItemType.Kind.TOILET_PAPER), 0.2 * days)
    return character


def good_shelter(settlement: Settlement, **fields: object) -> Location:
    """A shelter with a latrine 25 m away (R7: place OK)."""
    return ShelterFactory(settlement=settlement, **fields)
