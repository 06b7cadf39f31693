"""What a character carries: adding and taking units of the campaign's items.

Both run inside the campaign's lock (``by_character``), so the daily tick, which holds the
same lock while it consumes supplies, never interleaves with them; the arithmetic itself is an
``F()`` update, so two additions both count and two removals never take more than there is.

Source: RULES.md R15 (what a character carries).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.db.models import F
from django.utils.translation import gettext as _

from mundo.models import Campaign
from nucleo.errors import ServiceError
from nucleo.locks import campaign_locked
from nucleo.users import AnyUser
from personajes._helpers import by_character
from personajes.models import Character, InventoryItem, ItemType, Movement


def _parse_quantity(quantity: object) -> Decimal:
    """A positive quantity of units with at most 3 decimals (the column's precision)."""
    bad = ServiceError({"quantity": _("The quantity must be a number greater than zero.")})
    if isinstance(quantity, bool):
        raise bad
    if isinstance(quantity, Decimal):
        value = quantity
    elif isinstance(quantity, int):
        value = Decimal(quantity)
    elif isinstance(quantity, float):
        value = Decimal(str(quantity))
    elif isinstance(quantity, str):
        try:
            # Spanish forms write a decimal comma ("1,5").
            value = Decimal(quantity.strip().replace(",", "."))
        except InvalidOperation:
            raise bad from None
    else:
        raise bad
    if not value.is_finite() or value <= 0:
        raise bad
    if value >= 10**9:
        raise ServiceError({"quantity": _("The quantity is too large.")})
    if value != value.quantize(Decimal("0.001")):
        raise ServiceError({"quantity": _("The quantity can have at most 3 decimals.")})
    return value


def _quantity_text(value: Decimal) -> str:
    return f"{value.normalize():f}"


def _check_item_type(character: Character, item_type: ItemType) -> None:
    if item_type.campaign_id != character.campaign_id:
        raise ServiceError({"item_type": _("That item is not in this campaign's catalogue.")})


@campaign_locked(by_character)
def inventory_add(
    *,
    character: Character,
    item_type: ItemType,
    quantity: Decimal | int | str,
    user: AnyUser | None = None,
) -> InventoryItem:
    """Add ``quantity`` units (Decimal > 0, up to 3 decimals; "1,5" accepted) of an item of
    the character's campaign to what the character carries; returns the row, refreshed.

    The addition is an ``F()`` update, so two simultaneous additions both count.
    Raises ServiceError({"quantity": …}) for zero, negative or non-numbers, and
    ({"item_type": …}) for another campaign's item.
    Logged as a ``Movement`` (given by the master, by ``user``).
    Source: RULES.md R15 (what a character carries).
    """
    amount = _parse_quantity(quantity)
    _check_item_type(character, item_type)
    item, _created = InventoryItem.objects.get_or_create(character=character, item_type=item_type)
    InventoryItem.objects.filter(pk=item.pk).update(quantity=F("quantity") + amount)
    item.refresh_from_db(fields=["quantity"])
    _record(character, item_type, amount, user, to_character=character, reason="master_give")
    return item


@campaign_locked(by_character)
def inventory_remove(
    *,
    character: Character,
    item_type: ItemType,
    quantity: Decimal | int | str,
    user: AnyUser | None = None,
) -> InventoryItem:
    """Take ``quantity`` units of an item from the character; returns the row, refreshed.

    The row stays (at 0) when everything is taken. The subtraction is one conditional
    ``F()`` update (``quantity >= amount``), so two simultaneous removals can never take more
    than there is; the database's ``quantity >= 0`` constraint stays the last line of defence.
    Raises ServiceError({"quantity": …}) for a bad quantity or more than the character has,
    ({"item_type": …}) for another campaign's item. Logged as a ``Movement`` (taken by the
    master, by ``user``). Source: RULES.md R15.
    """
    amount = _parse_quantity(quantity)
    _check_item_type(character, item_type)
    taken = InventoryItem.objects.filter(
        character=character, item_type=item_type, quantity__gte=amount
    ).update(quantity=F("quantity") - amount)
    if not taken:
        have = (
            InventoryItem.objects.filter(character=character, item_type=item_type)
            .values_list("quantity", flat=True)
            .first()
        ) or Decimal(0)
        raise ServiceError(
            {
                "quantity": _("%(item)s: there are only %(have)s; %(want)s cannot be taken.")
                % {
                    "item": item_type.name,
                    "have": _quantity_text(have),
                    "want": _quantity_text(amount),
                }
            }
        )
    _record(character, item_type, amount, user, from_character=character, reason="master_take")
    return InventoryItem.objects.get(character=character, item_type=item_type)


def _record(
    character: Character, item_type: ItemType, amount: Decimal, user: AnyUser | None, **sides: Any
) -> None:
    """The change's ``Movement`` row (the master's give or take; ``user`` who made it)."""
    Movement.objects.create(
        campaign_id=character.campaign_id,
        day=Campaign.objects.values_list("current_day", flat=True).get(pk=character.campaign_id),
        item_type=item_type,
        quantity=amount,
        made_by=user if user is not None and user.is_authenticated else None,
        **sides,
    )


__all__ = ["inventory_add", "inventory_remove"]
