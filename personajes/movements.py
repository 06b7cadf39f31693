"""Supplies that move: giving to another character, the shelter's stash, a shop's stock.

Every change is one transaction under the campaign's lock (``nucleo.locks``): the character is
re-read and re-checked under it, the stock rows it changes are locked in primary-key order
(``lock_rows``), the source is decremented with one conditional update (``quantity >= n``, so
it can never go below zero — the columns' ``>= 0`` constraints are the last line of defence),
the destination incremented with an ``F()`` update, and one ``Movement`` row records it. Two
players taking the last unit: the second finds nothing left and is told so ("ya no queda").

Who may move: the player of an approved character, or the campaign's master.
Source: RULES.md R15 (what a character carries, the shelter's stash), R23 (a shop's stock).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.db.models import F, Model
from django.utils.translation import gettext as _

from mundo.access import is_master
from mundo.models import Location, WorldRoll
from nucleo.errors import ServiceError
from nucleo.locks import campaign_lock, lock_rows, require_campaign_lock
from nucleo.users import AnyUser
from personajes._helpers import lock_character
from personajes.inventory import _parse_quantity, _quantity_text
from personajes.models import Character, InventoryItem, ItemType, Movement, ShelterStash

# A shop's stock (R23) is counted in kcal, L, rolls and doses: the column an item draws on and
# how much of it one unit is (the item's kcal or litres; a roll or a dose is 1).
_SHOP_COLUMNS: dict[str, str] = {
    ItemType.Kind.FOOD: "stock_food_kcal",
    ItemType.Kind.WATER: "stock_water_l",
    ItemType.Kind.TOILET_PAPER: "stock_toilet_paper_rolls",
    ItemType.Kind.MEDICINE: "stock_medicine_doses",
}


def _nothing_left(item: ItemType, have: Decimal, want: Decimal) -> ServiceError:
    if have <= 0:
        return ServiceError({"quantity": _("%(item)s: none left.") % {"item": item.name}})
    return ServiceError(
        {
            "quantity": _("%(item)s: there are only %(have)s; %(want)s cannot be taken.")
            % {"item": item.name, "have": _quantity_text(have), "want": _quantity_text(want)}
        }
    )


def _actor(character: Character, user: AnyUser) -> tuple[Character, bool]:
    """The character re-read under its lock, and whether ``user`` is the master. Raises
    ServiceError unless the user plays this approved character or masters the campaign."""
    locked = lock_character(character)
    master = is_master(locked.campaign_id, user)
    mine = user is not None and user.is_authenticated and locked.player_id == user.pk
    if not master and not mine:
        raise ServiceError(_("Only the character's player or the master can move its supplies."))
    if locked.status != Character.Status.APPROVED:
        raise ServiceError(_("Only an approved, living character moves supplies."))
    return locked, master


def _item(character: Character, item_type_id: Any) -> ItemType:
    found = ItemType.objects.filter(pk=item_type_id, campaign_id=character.campaign_id).first()
    if found is None:
        raise ServiceError({"item_type": _("That item is not in this campaign's catalogue.")})
    return found


def _take(model: type[Model], holder: dict[str, Any], item: ItemType, amount: Decimal) -> None:
    """Decrement one stock row by ``amount`` if it holds that much (one UPDATE)."""
    taken = model.objects.filter(  # type: ignore[attr-defined]
        **holder, item_type=item, quantity__gte=amount
    ).update(quantity=F("quantity") - amount)
    if not taken:
        have = model.objects.filter(**holder, item_type=item).values_list(  # type: ignore[attr-defined]
            "quantity", flat=True
        ).first() or Decimal(0)
        raise _nothing_left(item, have, amount)


def _put(model: type[Model], holder: dict[str, Any], item: ItemType, amount: Decimal) -> None:
    row, _created = model.objects.get_or_create(**holder, item_type=item)  # type: ignore[attr-defined]
    model.objects.filter(pk=row.pk).update(quantity=F("quantity") + amount)  # type: ignore[attr-defined]


def _lock_stock(model: type[Model], holders: Sequence[dict[str, Any]], item: ItemType) -> None:
    """Lock the existing stock rows of ``item`` of ``holders`` in primary-key order."""
    rows = model.objects.none()  # type: ignore[attr-defined]
    for holder in holders:
        rows = rows | model.objects.filter(**holder, item_type=item)  # type: ignore[attr-defined]
    lock_rows(rows)


def _record(
    character: Character, user: AnyUser, item: ItemType, amount: Decimal, **sides: Any
) -> Movement:
    return Movement.objects.create(
        campaign_id=character.campaign_id,
        day=character.campaign.current_day,
        item_type=item,
        quantity=amount,
        made_by=user if user is not None and user.is_authenticated else None,
        **sides,
    )


def movement_give(
    *, character: Character, user: AnyUser, to_character_id: Any, item_type_id: Any, quantity: Any
) -> Movement:
    """Give ``quantity`` units of an item ``character`` carries to another approved character
    in the same settlement. Raises ServiceError: not its player nor the master; another place;
    not enough (``{"quantity": …}``)."""
    amount = _parse_quantity(quantity)
    with campaign_lock(character.campaign_id):
        giver, _master = _actor(character, user)
        item = _item(giver, item_type_id)
        taker = Character.objects.filter(
            pk=to_character_id, campaign_id=giver.campaign_id, status=Character.Status.APPROVED
        ).first()
        if taker is None or taker.pk == giver.pk:
            raise ServiceError({"to_character": _("Choose another approved character.")})
        if giver.settlement_id is None or taker.settlement_id != giver.settlement_id:
            raise ServiceError(
                {"to_character": _("You can only give to someone in the same place.")}
            )
        _lock_stock(InventoryItem, [{"character": giver}, {"character": taker}], item)
        _take(InventoryItem, {"character": giver}, item, amount)
        _put(InventoryItem, {"character": taker}, item, amount)
        return _record(
            giver,
            user,
            item,
            amount,
            from_character=giver,
            to_character=taker,
            reason=Movement.Reason.GIVE,
        )


def movement_stash(
    *, character: Character, user: AnyUser, item_type_id: Any, quantity: Any, leave: bool
) -> Movement:
    """Leave units in (``leave``) or take them from the stash of the character's shelter.
    Raises ServiceError: no shelter; not enough where they are taken from."""
    amount = _parse_quantity(quantity)
    with campaign_lock(character.campaign_id):
        locked, _master = _actor(character, user)
        item = _item(locked, item_type_id)
        if locked.shelter_id is None:
            raise ServiceError(_("This character has no shelter, so no stash."))
        shelter = Location.objects.get(pk=locked.shelter_id)
        # Two tables: each one's rows locked in pk order, the character's first (kernel order).
        _lock_stock(InventoryItem, [{"character": locked}], item)
        _lock_stock(ShelterStash, [{"shelter": shelter}], item)
        mine, stash = {"character": locked}, {"shelter": shelter}
        if leave:
            _take(InventoryItem, mine, item, amount)
            _put(ShelterStash, stash, item, amount)
            sides = {
                "from_character": locked,
                "to_place": shelter,
                "reason": Movement.Reason.STASH_LEAVE,
            }
        else:
            _take(ShelterStash, stash, item, amount)
            _put(InventoryItem, mine, item, amount)
            sides = {
                "from_place": shelter,
                "to_character": locked,
                "reason": Movement.Reason.STASH_TAKE,
            }
        return _record(locked, user, item, amount, **sides)


def movement_shop_take(
    *, character: Character, user: AnyUser, place_id: Any, item_type_id: Any, quantity: Any
) -> Movement:
    """Take units of an item from a discovered shop's stock (R23) in the character's
    settlement: the shop's column (kcal, L, rolls, doses) is decremented atomically by the
    units' worth, rounded up to whole kcal or litres. Raises ServiceError: not a discovered
    shop there; an item a shop does not stock; "none left" / "only n left"."""
    amount = _parse_quantity(quantity)
    with campaign_lock(character.campaign_id):
        locked, master = _actor(character, user)
        item = _item(locked, item_type_id)
        shop = Location.objects.filter(
            pk=place_id,
            kind=Location.Kind.SHOP,
            discovered_day__isnull=False,
            settlement__campaign_id=locked.campaign_id,
        ).first()
        if shop is None or (not master and shop.settlement_id != locked.settlement_id):
            raise ServiceError({"place": _("Choose a discovered shop where the character is.")})
        column = _SHOP_COLUMNS.get(item.kind)
        if column is None:
            raise ServiceError(
                {"item_type": _("Shops hold food, water, toilet paper and medicine.")}
            )
        per_unit = {"stock_food_kcal": item.kcal_per_unit, "stock_water_l": item.litres_per_unit}
        worth = math.ceil(float(amount) * per_unit.get(column, 1.0) - 1e-9)
        taken = Location.objects.filter(pk=shop.pk, **{f"{column}__gte": worth}).update(
            **{column: F(column) - worth}
        )
        if not taken:
            left = Location.objects.filter(pk=shop.pk).values_list(column, flat=True).first() or 0
            if left < 1:
                raise _nothing_left(item, Decimal(0), amount)
            raise ServiceError(
                {
                    "quantity": _("%(place)s has too little left for %(want)s (%(left)s).")
                    % {"place": shop.name, "left": left, "want": _quantity_text(amount)}
                }
            )
        _lock_stock(InventoryItem, [{"character": locked}], item)
        _put(InventoryItem, {"character": locked}, item, amount)
        return _record(
            locked,
            user,
            item,
            amount,
            from_place=shop,
            to_character=locked,
            reason=Movement.Reason.SHOP_TAKE,
        )


# A weapon search's subtype (R22, reglas/data/search.json) → the weapon of the campaign's combat
# table (R19) it becomes: our reading of "what was found", one typical weapon per subtype.
FIND_WEAPONS = {
    "construction_tools": "palanca",
    "sports_gear": "bate",
    "kitchen_utensils": "cuchillo_carnicero",
    "blades": "cuchillo",
    "one_handed_firearms": "pistola_9mm",
    "two_handed_firearms": "escopeta",
}
_WEAPON_KINDS = {
    "pseudo_weapon": ItemType.WeaponKind.PSEUDO_WEAPON,
    "blade": ItemType.WeaponKind.BLADE,
    "heavy_blade": ItemType.WeaponKind.HEAVY_BLADE,
}


def _found_weapon(character: Character, slug: str) -> ItemType:
    """The catalogue item of the combat table's weapon ``slug`` (added when missing)."""
    weapon = character.campaign.tables.to_dict()["combat"]["weapons"][slug]
    kind = _WEAPON_KINDS.get(weapon["kind"])
    if kind is None:
        kind = (
            ItemType.WeaponKind.FIREARM_TWO_HANDED
            if weapon.get("two_handed") or slug == "escopeta"
            else ItemType.WeaponKind.FIREARM_ONE_HANDED
        )
    item, _created = ItemType.objects.get_or_create(
        campaign_id=character.campaign_id,
        name=weapon["label"],
        defaults={
            "kind": ItemType.Kind.WEAPON,
            "unit": "",
            "weapon_kind": kind,
            "caliber": weapon.get("caliber") or "",
        },
    )
    return item


def finds_left(place: Location) -> tuple[str | None, int]:
    """What a searched place's weapon search found (the ``FIND_WEAPONS`` subtype, or None)
    and how many are still there: the search's quantity less what was taken (two queries)."""
    roll = (
        WorldRoll.objects.filter(location=place, kind=WorldRoll.Kind.SEARCH)
        .order_by("-id")
        .values_list("result", flat=True)
        .first()
    ) or {}
    subtype = roll.get("subtype")
    if subtype not in FIND_WEAPONS:
        return None, 0
    # A take the master undid puts the weapon back among the finds.
    taken = Movement.objects.filter(
        from_place=place, reason=Movement.Reason.FIND_TAKE, reversal__isnull=True
    ).count()
    return subtype, max(0, int(roll.get("quantity") or 0) - taken)


def movement_find_take(*, character: Character, user: AnyUser, place_id: Any) -> Movement:
    """Take one of the weapons a searched place's search found (R22) into what the character
    carries, as the combat table's weapon (``FIND_WEAPONS``). The count left is read under the
    campaign lock, so two takes of the last one cannot both succeed. Raises ServiceError: not
    a searched place where the character is; nothing (left) to take."""
    with campaign_lock(character.campaign_id):
        locked, master = _actor(character, user)
        place = Location.objects.filter(
            pk=place_id, searched_day__isnull=False, settlement__campaign_id=locked.campaign_id
        ).first()
        if place is None or (not master and place.settlement_id != locked.settlement_id):
            raise ServiceError({"place": _("Choose a searched place where the character is.")})
        subtype, left = finds_left(place)
        if subtype is None or left < 1:
            raise ServiceError({"place": _("%(place)s: no weapons left.") % {"place": place.name}})
        item = _found_weapon(locked, FIND_WEAPONS[subtype])
        _lock_stock(InventoryItem, [{"character": locked}], item)
        _put(InventoryItem, {"character": locked}, item, Decimal(1))
        return _record(
            locked,
            user,
            item,
            Decimal(1),
            from_place=place,
            to_character=locked,
            reason=Movement.Reason.FIND_TAKE,
        )


def movements_record_arrival(
    *, character: Character, lines: Sequence[Any], user: AnyUser | None
) -> None:
    """One ``Movement`` per line of the arrival kit (``personajes.arrival``), in one INSERT.
    Raises ``LockOrderError`` outside the campaign lock."""
    require_campaign_lock(character.campaign_id)
    Movement.objects.bulk_create(
        [
            Movement(
                campaign_id=character.campaign_id,
                day=character.campaign.current_day,
                item_type=line.item_type,
                quantity=line.quantity,
                to_character=character,
                made_by=user if user is not None and user.is_authenticated else None,
                reason=Movement.Reason.ARRIVAL,
            )
            for line in lines
        ]
    )


def character_movements(character: Character, limit: int = 50) -> list[Movement]:
    """What moved to or from ``character``, newest first (one query)."""
    return list(
        (
            Movement.objects.filter(from_character=character)
            | Movement.objects.filter(to_character=character)
        )
        .select_related(
            "item_type", "from_character", "to_character", "from_place", "to_place", "made_by"
        )
        .order_by("-created_at", "-id")[:limit]
    )


def place_movements(place: Location, limit: int = 50) -> list[Movement]:
    """What moved to or from ``place`` (its stash or its stock), newest first (one query)."""
    return list(
        (Movement.objects.filter(from_place=place) | Movement.objects.filter(to_place=place))
        .select_related("item_type", "from_character", "to_character", "made_by")
        .order_by("-created_at", "-id")[:limit]
    )
