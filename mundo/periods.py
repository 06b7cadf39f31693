"""Dice periods: open a campaign's first one, close one (revealing its secret) and open the
next, automatically after ``Campaign.period_days`` in-game days or when the master says.

The open period's secret is ``Campaign.entropy`` (every roll draws from it, ``nucleo.ledger``);
``EntropyPeriod`` holds its public commitment, published when the period opens, before any of
its rolls, and the secret itself once the period is closed. A player's seed (``Membership.
dice_seed``) is set here too. Source: issue 16 items 1, 2; ``reglas.verify``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models.signals import post_save
from django.utils import timezone
from django.utils.translation import gettext as _

from mundo.access import require_master
from mundo.models import Campaign, EntropyPeriod, Membership, new_entropy
from mundo.period_models import new_dice_seed
from nucleo.errors import ServiceError
from nucleo.ledger import PlayerShare
from nucleo.locks import campaign_lock, require_campaign_lock
from nucleo.text import clean_line
from reglas.verify import commitment_of

SEED_MAX_CHARS = 64
"""Most characters of a player's dice seed."""


def period_open_first(campaign: Campaign) -> EntropyPeriod:
    """Publish the commitment of a new campaign's first period (its entropy is the campaign's,
    made at creation), from its current day. Idempotent: returns the existing one."""
    period, _created = EntropyPeriod.objects.get_or_create(
        campaign=campaign,
        number=campaign.entropy_period,
        defaults={
            "first_day": campaign.entropy_period_start,
            "commitment": commitment_of(campaign.entropy),
        },
    )
    return period


def _on_campaign_saved(
    sender: Any, instance: Campaign, created: bool, raw: bool, **kw: Any
) -> None:
    if created and not raw:
        if instance.entropy_period_start != instance.current_day and instance.entropy_period == 1:
            # A campaign created on a later day: its first period starts there.
            Campaign.objects.filter(pk=instance.pk).update(
                entropy_period_start=instance.current_day
            )
            instance.entropy_period_start = instance.current_day
        period_open_first(instance)


post_save.connect(_on_campaign_saved, sender=Campaign, dispatch_uid="mundo_period_first")


def _rotate(campaign: Campaign, *, last_day: int, next_day: int, by: User | None) -> EntropyPeriod:
    """Close the open period (reveal its entropy; its last day ``last_day``) and open the next
    from ``next_day`` with a fresh secret; updates ``campaign`` in place. Caller holds the
    lock."""
    require_campaign_lock(campaign.pk)
    now = timezone.now()
    closing = EntropyPeriod.objects.get(campaign=campaign, number=campaign.entropy_period)
    closing.entropy = campaign.entropy
    closing.last_day = max(last_day, closing.first_day)
    closing.closed_at = now
    closing.closed_by = by if by is not None and by.is_authenticated else None
    closing.save(update_fields=["entropy", "last_day", "closed_at", "closed_by"])
    campaign.entropy = new_entropy()
    campaign.entropy_period = closing.number + 1
    campaign.entropy_period_start = next_day
    Campaign.objects.filter(pk=campaign.pk).update(
        entropy=campaign.entropy,
        entropy_period=campaign.entropy_period,
        entropy_period_start=next_day,
    )
    EntropyPeriod.objects.create(
        campaign=campaign,
        number=campaign.entropy_period,
        first_day=next_day,
        commitment=commitment_of(campaign.entropy),
        opened_at=now,
    )
    return closing


def period_rotate_if_due(campaign: Campaign, *, new_day: int) -> EntropyPeriod | None:
    """The tick's step once ``new_day`` is open and the closed day's rolls are stored: when the
    open period has lasted ``period_days`` days, close it and open the next from ``new_day``.
    Returns the closed period or None; no query when not due. Caller holds the campaign lock
    (``LockOrderError`` otherwise)."""
    if new_day < campaign.entropy_period_start + campaign.period_days:
        return None
    return _rotate(campaign, last_day=new_day - 1, next_day=new_day, by=None)


def period_close(*, campaign: Campaign, master: User) -> EntropyPeriod:
    """The master closes the open period now: its entropy is revealed and the next period
    (fresh secret, its commitment published now) starts on the current day; the rest of the
    day's rolls draw from it. Returns the closed period.
    Raises ServiceError unless ``master`` masters the campaign. Source: issue 16 item 1."""
    require_master(campaign, master, _("Only the campaign's master can close a dice period."))
    with campaign_lock(campaign.pk) as locked:
        day = locked.current_day
        return _rotate(locked, last_day=day, next_day=day, by=master)


def dice_seed_set(*, membership: Membership, seed: str | None) -> Membership:
    """Set a member's dice seed to ``seed`` (cleaned, 1..64 characters) or, for None or an
    empty text, a fresh random one. Rolls already made keep the seed hash they were made with.
    Raises ServiceError (``{"seed": …}``) for a seed over 64 characters."""
    text = clean_line(seed or "").strip()
    if len(text) > SEED_MAX_CHARS:
        raise ServiceError(
            {"seed": _("The seed is too long (at most %(n)s characters).") % {"n": SEED_MAX_CHARS}}
        )
    membership.dice_seed = text or new_dice_seed()
    Membership.objects.filter(pk=membership.pk).update(dice_seed=membership.dice_seed)
    return membership


def player_share(*, campaign_id: int, user: User | None, text: str) -> PlayerShare:
    """The player's share of the rolls of a post with ``text`` (as stored) by ``user``: with
    their dice seed in the campaign now (one query; no membership, an empty seed).
    Source: issue 16 item 2."""
    seed = (
        Membership.objects.filter(campaign_id=campaign_id, user=user)
        .values_list("dice_seed", flat=True)
        .first()
    )
    return PlayerShare.of(text=text, seed=seed or "")
