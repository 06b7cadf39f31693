"""A new character's arrival: the kit it carries and the roof it gets when its sheet is approved.

The kit's amounts are the campaign's settings (``reglas.supplies.arrival_kit``: by default two
days of food and water and one toilet roll); the units come from the campaign's item catalogue
(the first non-perishable food, the first water and the first toilet paper by name; a missing
one is added to the catalogue, so a campaign without items still feeds its newcomers). The
shelter is the campaign's default (``mundo.Arrival``), given only to a character without one.
Runs inside the approval's lock (``personajes.sheets.sheet_review``).

Source: RULES.md R6, R15 (what a character carries), R7 (its shelter).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db.models import F
from django.utils import translation
from django.utils.translation import gettext

from mundo.models import Campaign, Location
from mundo.rules import arrival_shelter
from nucleo.locks import require_campaign_lock
from nucleo.users import AnyUser
from personajes.models import Character, InventoryItem, ItemType
from personajes.movements import movements_record_arrival
from reglas.supplies import arrival_kit


@dataclass(frozen=True, slots=True)
class KitLine:
    """One line of what an arriving character received: the item and its units."""

    item_type: ItemType
    quantity: Decimal


def _catalogue_item(campaign: Campaign, kind: ItemType.Kind) -> ItemType:
    """The campaign's item of ``kind`` the kit is made of, added to the catalogue if missing."""
    found = ItemType.objects.filter(campaign=campaign, kind=kind, perishable=False)
    if kind == ItemType.Kind.FOOD:
        found = found.filter(kcal_per_unit__gt=0)
    elif kind == ItemType.Kind.WATER:
        found = found.filter(litres_per_unit__gt=0)
    item = found.order_by("name", "pk").first()
    if item is not None:
        return item
    # The catalogue's names are stored words, in the site's language (as the tick's reasons).
    with translation.override(settings.LANGUAGE_CODE):
        defaults = {
            ItemType.Kind.FOOD: (gettext("Food ration"), gettext("ration"), 500.0, 0.0),
            ItemType.Kind.WATER: (gettext("Bottled water (1 L)"), gettext("bottle"), 0.0, 1.0),
            ItemType.Kind.TOILET_PAPER: (gettext("Toilet roll"), gettext("roll"), 0.0, 0.0),
        }[kind]
    name, unit, kcal, litres = defaults
    item, _created = ItemType.objects.get_or_create(
        campaign=campaign,
        name=name,
        defaults={"kind": kind, "unit": unit, "kcal_per_unit": kcal, "litres_per_unit": litres},
    )
    return item


def _units(amount: float, per_unit: float) -> Decimal:
    """Whole units that hold at least ``amount`` (a can is not split)."""
    return Decimal(math.ceil(round(amount / per_unit, 6))) if per_unit > 0 else Decimal(0)


def arrival_kit_lines(campaign: Campaign) -> list[KitLine]:
    """The kit of ``campaign`` in units of its catalogue (items added when missing; lines of
    0 units left out). Food and water in whole units, paper in rolls (3 decimals)."""
    kit = arrival_kit(campaign.rules)
    lines = []
    if kit.food_kcal > 0:
        food = _catalogue_item(campaign, ItemType.Kind.FOOD)
        lines.append(KitLine(food, _units(kit.food_kcal, food.kcal_per_unit)))
    if kit.water_l > 0:
        water = _catalogue_item(campaign, ItemType.Kind.WATER)
        lines.append(KitLine(water, _units(kit.water_l, water.litres_per_unit)))
    if kit.toilet_paper_rolls > 0:
        paper = _catalogue_item(campaign, ItemType.Kind.TOILET_PAPER)
        lines.append(
            KitLine(paper, Decimal(str(kit.toilet_paper_rolls)).quantize(Decimal("0.001")))
        )
    return [line for line in lines if line.quantity > 0]


def arrival_give(
    *, character: Character, user: AnyUser | None = None
) -> tuple[list[KitLine], Location | None]:
    """Give an approved ``character`` (locked by the caller) the campaign's kit and, if it has
    no shelter, the default shelter and its settlement. Returns ``(kit lines, shelter given or
    None)``; each kit line is a ``Movement`` (reason arrival, by ``user``). Queries: the
    catalogue (1–3 each, more the first time), one upsert per line, the movements' INSERT,
    one update of the character. Raises ``LockOrderError`` outside the campaign lock."""
    require_campaign_lock(character.campaign_id)
    campaign = character.campaign
    lines = arrival_kit_lines(campaign)
    for line in lines:
        item, _created = InventoryItem.objects.get_or_create(
            character=character, item_type=line.item_type
        )
        InventoryItem.objects.filter(pk=item.pk).update(quantity=F("quantity") + line.quantity)
    movements_record_arrival(character=character, lines=lines, user=user)
    shelter = arrival_shelter(campaign) if character.shelter_id is None else None
    if shelter is not None:
        character.shelter = shelter
        character.settlement = shelter.settlement
        character.save(update_fields=["shelter", "settlement", "updated_at"])
    return lines, shelter
