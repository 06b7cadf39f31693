"""Writes about a character's days and its shelter: the master's "mark a character's day" and
a shelter's shared stash.

Services are keyword-only and atomic, and raise ``nucleo.errors.ServiceError`` with a Spanish
message; nothing is saved when they refuse. Source: RULES.md R6–R8, R15.
"""

from __future__ import annotations

import math
from decimal import Decimal

from django.contrib.auth.models import User
from django.utils.translation import gettext as _

from mundo.access import is_master
from mundo.models import Campaign, Grid, Location
from nucleo import bounds
from nucleo.errors import ServiceError
from nucleo.locks import campaign_lock, campaign_locked, lock_row, lock_rows
from personajes.models import Character, DayRecord, InventoryItem, ItemType, ShelterStash

_Q = Decimal("0.001")


def _shelter_has_running_water(shelter: Location | None) -> bool:
    """True when the shelter has plumbing and its grid (own or regional) has water (R16)."""
    if shelter is None or not shelter.running_water:
        return False
    settlement = shelter.settlement
    query = Grid.objects.filter(campaign_id=settlement.campaign_id)
    grid = (
        query.filter(settlement=settlement).first()
        if settlement.own_grid
        else query.filter(settlement__isnull=True).first()
    )
    return grid is None or grid.water_on  # no grid row yet: the tick has not cut anything


def _take_water(*, character: Character, shelter: Location | None, litres: float) -> bool:
    """Take ``litres`` L of stored water from the character's water items, then from its
    shelter's stash; all or nothing. Returns False (and takes nothing) when there is not
    enough. Rows are locked (``lock_rows``, under the campaign lock) so two marks cannot
    spend the same water.
    """
    stacks: list[tuple[type[InventoryItem] | type[ShelterStash], int, Decimal, float]] = [
        (InventoryItem, item.pk, item.quantity, item.item_type.litres_per_unit)
        for item in lock_rows(
            InventoryItem.objects.filter(
                character=character, item_type__kind=ItemType.Kind.WATER, quantity__gt=0
            ).select_related("item_type")
        )
    ]
    if shelter is not None:
        stacks += [
            (ShelterStash, s.pk, s.quantity, s.item_type.litres_per_unit)
            for s in lock_rows(
                ShelterStash.objects.filter(
                    shelter=shelter, item_type__kind=ItemType.Kind.WATER, quantity__gt=0
                ).select_related("item_type")
            )
        ]
    available = sum(float(q) * per for _m, _pk, q, per in stacks if per > 0)
    if available + 1e-6 < litres:
        return False
    remaining = litres
    for model, pk, quantity, per in stacks:
        if remaining <= 1e-9 or per <= 0:
            continue
        units = min(float(quantity), remaining / per)
        left = max(quantity - Decimal(repr(units)).quantize(_Q), Decimal(0))
        model.objects.filter(pk=pk).update(quantity=left)
        remaining -= units * per
    return True


def _closed_day(day: object) -> str:
    return _("Day %(day)s is already closed: mark today or a later day.") % {"day": day}


def _check_inputs(campaign: Campaign, *, day: object, sleep_h: object, sleep_reason: str) -> None:
    """Raise ServiceError (field errors) for a sleep outside 0..24 h, an unknown reason or a
    reason without hours, a past day or one beyond ``bounds.DAY_MAX``."""
    errors: dict[str, str] = {}
    if sleep_h is not None and (
        not isinstance(sleep_h, int | float) or not math.isfinite(sleep_h) or not 0 <= sleep_h <= 24
    ):
        errors["sleep_h"] = _("Hours of sleep must be between 0 and 24.")
    if sleep_reason not in DayRecord.SleepReason.values:
        errors["sleep_reason"] = _("Unknown reason.")
    elif sleep_reason and sleep_h is None:
        errors["sleep_h"] = _("Guard duty or travel: say how many hours were slept.")
    if isinstance(day, bool) or not isinstance(day, int) or day < campaign.current_day:
        errors["day"] = _closed_day(day)
    elif day > bounds.DAY_MAX:
        errors["day"] = _("At most day %(limit_value)s (a century of play).") % {
            "limit_value": bounds.DAY_MAX
        }
    if errors:
        raise ServiceError(errors)


def day_record_save(
    *,
    character: Character,
    user: User | None,
    day: int,
    sleep_h: float | None = None,
    could_not_urinate: bool = False,
    could_not_defecate: bool = False,
    got_dirty: bool = False,
    showered: bool = False,
    sleep_reason: str = "",
    relieved_inappropriately: bool = False,
) -> DayRecord:
    """Mark what happened to a character on in-game ``day`` (today or later): hours slept
    (0..24 h; None = the default 8 h, R15), could not urinate / defecate (R7), got dirty (R8),
    showered (R8), relieved in an inappropriate place (R7: where conditions are inadequate it
    avoids that night's accident; the day still counts as unhygienic), and why the sleep
    differs (``sleep_reason``: ``guard_duty`` or ``travel``, which need the hours slept).
    The tick that closes ``day`` reads it.

    A shower needs running water in the character's shelter (plumbing and its grid's water on)
    or ``bath_water_l`` (20 L) of stored water, taken now from what the character carries, then
    from its shelter's stash. Raises ServiceError (Spanish) for a non-master, a dead character,
    a past day, a sleep outside 0..24 h or a shower without water; nothing changes then.
    Source: RULES.md R6, R7, R8, R15.
    """
    campaign: Campaign = character.campaign
    if not is_master(campaign, user):
        raise ServiceError(_("Only the campaign's master can do that."))
    _check_inputs(campaign, day=day, sleep_h=sleep_h, sleep_reason=sleep_reason)
    # Checked again under the campaign lock, which the tick holds while it closes a day: the
    # day is still open when the record is written.
    with campaign_lock(character.campaign_id) as campaign:
        if day < campaign.current_day:
            raise ServiceError({"day": _closed_day(day)})
        locked = lock_row(Character.objects, character.pk)
        if locked.status != Character.Status.APPROVED:
            raise ServiceError(_("Only a living character in play has days to mark."))
        existing = DayRecord.objects.filter(character=locked, day=day).first()
        already_showered = existing is not None and existing.showered
        if showered and not already_showered:
            shelter = (
                Location.objects.select_related("settlement").filter(pk=locked.shelter_id).first()
                if locked.shelter_id
                else None
            )
            if not _shelter_has_running_water(shelter) and not _take_water(
                character=locked, shelter=shelter, litres=campaign.rules.bath_water_l
            ):
                raise ServiceError(
                    {
                        "showered": _(
                            "There is no water for a shower: it needs running water in the "
                            "shelter or %(litres)s L of stored water."
                        )
                        % {"litres": f"{campaign.rules.bath_water_l:g}"}
                    }
                )
        record, _created = DayRecord.objects.update_or_create(
            character=locked,
            day=day,
            defaults={
                "sleep_h": sleep_h,
                "could_not_urinate": could_not_urinate,
                "could_not_defecate": could_not_defecate,
                "got_dirty": got_dirty,
                "sleep_reason": sleep_reason,
                "relieved_inappropriately": relieved_inappropriately,
                # A shower paid for stays paid (the water is not given back).
                "showered": showered or already_showered,
                "marked_by": user if user is not None and user.is_authenticated else None,
            },
        )
    return record


@campaign_locked(lambda shelter, **_: shelter.settlement.campaign_id)
def shelter_stash_set(
    *,
    shelter: Location,
    item_type: ItemType,
    quantity: Decimal | float | int,
    user: User | None,
) -> ShelterStash:
    """Set how many units of an item a shelter's shared stash holds (≥ 0; kcal and L follow
    from the item type). Raises ServiceError for a negative or non-finite quantity, a place that
    is not a shelter or an item of another campaign. Source: RULES.md R15.
    """
    campaign = shelter.settlement.campaign
    if not is_master(campaign, user):
        raise ServiceError(_("Only the campaign's master can do that."))
    try:
        amount = Decimal(str(quantity))
    except ArithmeticError:
        raise ServiceError({"quantity": _("A quantity must be a number.")}) from None
    if not amount.is_finite() or amount < 0:
        raise ServiceError({"quantity": _("A quantity cannot be negative.")})
    if shelter.kind != Location.Kind.SHELTER:
        raise ServiceError(_("Only a shelter has a shared stash."))
    if item_type.campaign_id != campaign.pk:
        raise ServiceError(_("That item belongs to another campaign."))
    stash, _created = ShelterStash.objects.update_or_create(
        shelter=shelter, item_type=item_type, defaults={"quantity": amount.quantize(_Q)}
    )
    return stash
