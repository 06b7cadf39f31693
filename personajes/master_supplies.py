"""The master's supply controls: moving stock between places (or stocking a place with new
supplies, or taking them away), and undoing a movement.

Same discipline as ``personajes.movements`` (whose helpers this module shares): one
transaction under the campaign lock; the stock rows changed are locked, characters' before
shelters' stashes, each table in primary-key order; a source is decremented by one
conditional update (never below zero: the ``>= 0`` constraints are the last defence); one
``Movement`` row records it. An undo is a movement the other way that names the one it
reverts (``Movement.reverses``, one-to-one: a movement is undone once).

A place's stock is its shelter stash (``ShelterStash``, units) or a discovered shop's stock
(R23, counted in kcal, L, rolls and doses: an item's units are worth its kcal or litres,
rounded up). Source: RULES.md R15, R23.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db.models import F
from django.utils.translation import gettext as _

from mundo.access import is_master
from mundo.models import Location
from nucleo.errors import NotFound, ServiceError
from nucleo.locks import campaign_lock, lock_row
from nucleo.users import AnyUser
from personajes.inventory import _parse_quantity, _quantity_text
from personajes.models import Character, InventoryItem, ItemType, Movement, ShelterStash
from personajes.movements import _SHOP_COLUMNS, _lock_stock, _put, _take


@dataclass(frozen=True, slots=True)
class _Side:
    """One end of a movement: a character, a shelter's stash, a shop's stock, or nowhere."""

    character: Character | None = None
    place: Location | None = None

    @property
    def is_shop(self) -> bool:
        return self.place is not None and self.place.kind == Location.Kind.SHOP


def _shop_worth(place: Location, item: ItemType, amount: Decimal) -> tuple[str, int]:
    column = _SHOP_COLUMNS.get(item.kind)
    if column is None:
        raise ServiceError({"item_type": _("Shops hold food, water, toilet paper and medicine.")})
    if place.discovered_day is None:
        raise ServiceError({"place": _("%(place)s is not discovered yet.") % {"place": place.name}})
    per_unit = {"stock_food_kcal": item.kcal_per_unit, "stock_water_l": item.litres_per_unit}
    return column, math.ceil(float(amount) * per_unit.get(column, 1.0) - 1e-9)


def _lock_sides(item: ItemType, sides: tuple[_Side, _Side]) -> None:
    """Characters' stacks first, then stashes (the order ``personajes.movements`` keeps)."""
    chars = [{"character": s.character} for s in sides if s.character is not None]
    stashes = [{"shelter": s.place} for s in sides if s.place is not None and not s.is_shop]
    if chars:
        _lock_stock(InventoryItem, chars, item)
    if stashes:
        _lock_stock(ShelterStash, stashes, item)


def _out(side: _Side, item: ItemType, amount: Decimal) -> None:
    if side.character is not None:
        _take(InventoryItem, {"character": side.character}, item, amount)
    elif side.place is not None and side.is_shop:
        column, worth = _shop_worth(side.place, item, amount)
        taken = Location.objects.filter(pk=side.place.pk, **{f"{column}__gte": worth}).update(
            **{column: F(column) - worth}
        )
        if not taken:
            raise ServiceError(
                {
                    "quantity": _("%(place)s has too little left for %(want)s.")
                    % {"place": side.place.name, "want": _quantity_text(amount)}
                }
            )
    elif side.place is not None:
        _take(ShelterStash, {"shelter": side.place}, item, amount)


def _in(side: _Side, item: ItemType, amount: Decimal) -> None:
    if side.character is not None:
        _put(InventoryItem, {"character": side.character}, item, amount)
    elif side.place is not None and side.is_shop:
        column, worth = _shop_worth(side.place, item, amount)
        Location.objects.filter(pk=side.place.pk).update(**{column: F(column) + worth})
    elif side.place is not None:
        _put(ShelterStash, {"shelter": side.place}, item, amount)


def _place(campaign_id: int, place_id: Any, field: str) -> Location:
    place = Location.objects.filter(
        pk=place_id or 0,
        settlement__campaign_id=campaign_id,
        kind__in=(Location.Kind.SHELTER, Location.Kind.SHOP),
    ).first()
    if place is None:
        raise ServiceError({field: _("Choose a shelter or a discovered shop of this campaign.")})
    return place


def movement_place_transfer(
    *,
    campaign_id: int,
    user: AnyUser,
    from_place_id: Any,
    to_place_id: Any,
    item_type_id: Any,
    quantity: Any,
) -> Movement:
    """The master moves ``quantity`` units of an item from one place's stock to another's
    (a shelter's stash or a discovered shop's stock, either way). Either end may be None,
    "the master": ``from_place_id`` None stocks the place with new supplies (reason
    ``master_give``, from nowhere), ``to_place_id`` None takes them away (``master_take``,
    to nowhere); not both. Raises ServiceError (field errors): not the master; not a shelter
    or shop of this campaign, the same place twice or no place at all; an undiscovered shop;
    an item a shop does not hold; a bad quantity; not enough at the source ("none left" /
    "only n"). Nothing changes then. Source: RULES.md R15, R23."""
    amount = _parse_quantity(quantity)
    with campaign_lock(campaign_id) as campaign:
        if not is_master(campaign.pk, user):
            raise ServiceError(_("Only the campaign's master can do that."))
        if from_place_id is None and to_place_id is None:
            raise ServiceError({"to_place": _("Choose the place that gives or receives it.")})
        source = None if from_place_id is None else _place(campaign.pk, from_place_id, "from_place")
        target = None if to_place_id is None else _place(campaign.pk, to_place_id, "to_place")
        if source is not None and target is not None and source.pk == target.pk:
            raise ServiceError({"to_place": _("Choose another place to move it to.")})
        item = ItemType.objects.filter(pk=item_type_id or 0, campaign_id=campaign.pk).first()
        if item is None:
            raise ServiceError({"item_type": _("That item is not in this campaign's catalogue.")})
        sides = (_Side(place=source), _Side(place=target))
        _lock_sides(item, sides)
        _out(sides[0], item, amount)
        _in(sides[1], item, amount)
        reason = Movement.Reason.MASTER_MOVE
        if source is None:
            reason = Movement.Reason.MASTER_GIVE
        elif target is None:
            reason = Movement.Reason.MASTER_TAKE
        return Movement.objects.create(
            campaign_id=campaign.pk,
            day=campaign.current_day,
            item_type=item,
            quantity=amount,
            from_place=source,
            to_place=target,
            reason=reason,
            made_by=user if user is not None and user.is_authenticated else None,
        )


UNDOABLE = frozenset(Movement.Reason.values) - {Movement.Reason.UNDO}
"""Every movement but an undo may be undone (an undo is undone by moving the stock again)."""


def movement_undo(*, campaign_id: int, user: AnyUser, movement_id: Any) -> Movement:
    """The master undoes a movement: the same units go back the other way (a character's or a
    place's stock; a give from nowhere is taken back to nowhere), logged as a movement of
    reason ``undo`` that ``reverses`` it. Raises NotFound for another campaign's movement;
    ServiceError: not the master; an undo, or already undone; the units are no longer where
    they went (used up, given on). Source: RULES.md R15."""
    with campaign_lock(campaign_id) as campaign:
        if not is_master(campaign.pk, user):
            raise ServiceError(_("Only the campaign's master can do that."))
        qs = Movement.objects.filter(campaign_id=campaign.pk).select_related(
            "item_type", "from_character", "to_character", "from_place", "to_place"
        )
        try:
            done = lock_row(qs, int(movement_id))
        except (Movement.DoesNotExist, TypeError, ValueError):
            raise NotFound("No such movement") from None
        if done.reason not in UNDOABLE:
            raise ServiceError(_("An undo is not undone: move the supplies again instead."))
        if Movement.objects.filter(reverses=done).exists():
            raise ServiceError(_("This movement was already undone."))
        back = (
            _Side(done.to_character, done.to_place),
            _Side(done.from_character, done.from_place),
        )
        if done.reason == Movement.Reason.FIND_TAKE:
            back = (back[0], _Side())  # a found weapon goes back to the finds (counted there)
        item = done.item_type
        _lock_sides(item, back)
        _out(back[0], item, done.quantity)
        _in(back[1], item, done.quantity)
        return Movement.objects.create(
            campaign_id=campaign.pk,
            day=campaign.current_day,
            item_type=item,
            quantity=done.quantity,
            from_character=back[0].character,
            from_place=back[0].place,
            to_character=back[1].character,
            to_place=back[1].place,
            reason=Movement.Reason.UNDO,
            reverses=done,
            made_by=user if user is not None and user.is_authenticated else None,
        )
