"""Writes of the world: creating campaigns, inviting and admitting players.

Services are keyword-only, validate their input, and raise ``ServiceError`` (a Django
ValidationError) with a Spanish message the page shows where the user is.
"""

from __future__ import annotations

import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from mundo.models import Campaign, Invitation, Membership


class ServiceError(ValidationError):
    """A write refused for a reason the user can fix; the message is shown as it is."""


def _unique_campaign_slug(name: str) -> str:
    base = slugify(name)[:100] or "partida"
    slug, n = base, 1
    while Campaign.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


@transaction.atomic
def campaign_create(
    *,
    user: AbstractBaseUser,
    name: str,
    apocalypse_date: datetime.date,
    current_day: int = 0,
    is_public: bool = False,
    description: str = "",
    time_zone: str = "Europe/Madrid",
) -> Campaign:
    """Create a campaign with ``user`` as its master (one Membership with role master).

    Raises ServiceError (field errors) when a value is invalid; nothing is saved then.
    """
    campaign = Campaign(
        name=name.strip(),
        slug=_unique_campaign_slug(name),
        apocalypse_date=apocalypse_date,
        current_day=current_day,
        is_public=is_public,
        description=description,
        time_zone=time_zone,
    )
    campaign.full_clean()
    campaign.save()
    Membership.objects.create(campaign=campaign, user=user, role=Membership.Role.MASTER)
    return campaign


def invitation_create(
    *,
    campaign: Campaign,
    created_by: AbstractBaseUser,
    single_use: bool = True,
    valid_days: int | None = None,
) -> Invitation:
    """A new invitation link: single use, or reusable until ``valid_days`` days from now.

    Raises ServiceError when ``created_by`` is not the campaign's master, or when a reusable
    invitation has no expiry (an open door forever is refused), or ``valid_days`` < 1.
    """
    if not Membership.objects.filter(
        campaign=campaign, user=created_by, role=Membership.Role.MASTER
    ).exists():
        raise ServiceError(_("Only the campaign's master can invite players."))
    if valid_days is not None and valid_days < 1:
        raise ServiceError({"valid_days": _("An invitation must be valid for at least 1 day.")})
    if not single_use and valid_days is None:
        raise ServiceError(
            {"valid_days": _("A reusable invitation needs an expiry: say for how many days.")}
        )
    expires_at = timezone.now() + datetime.timedelta(days=valid_days) if valid_days else None
    return Invitation.objects.create(
        campaign=campaign, created_by=created_by, single_use=single_use, expires_at=expires_at
    )


def invitation_problem(invitation: Invitation) -> str | None:
    """Why the invitation can no longer be used (Spanish sentence), or None when it can."""
    if invitation.revoked:
        return _("This invitation has been revoked by the master.")
    if invitation.expires_at is not None and invitation.expires_at <= timezone.now():
        return _("This invitation has expired. Ask the master for a new one.")
    if invitation.single_use and invitation.uses > 0:
        return _("This invitation has already been used. Ask the master for a new one.")
    return None


def invitation_accept(*, token: str, user: AbstractBaseUser) -> Membership:
    """Join the invitation's campaign as a player; returns the membership.

    A member who follows the link again keeps their role and uses nothing. Raises ServiceError
    when the invitation does not exist, was revoked, has expired or was already used. The
    invitation row is locked so two people cannot both consume a single-use link.
    """
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update().select_related("campaign").filter(token=token)
        ).first()
        if invitation is None:
            raise ServiceError(_("This invitation does not exist."))
        existing = Membership.objects.filter(campaign=invitation.campaign, user=user).first()
        if existing is not None:
            return existing
        problem = invitation_problem(invitation)
        if problem:
            raise ServiceError(problem)
        membership = Membership.objects.create(
            campaign=invitation.campaign, user=user, role=Membership.Role.PLAYER
        )
        Invitation.objects.filter(pk=invitation.pk).update(uses=invitation.uses + 1)
        return membership


def invitation_revoke(*, invitation: Invitation, user: AbstractBaseUser) -> None:
    """Revoke an invitation. Raises ServiceError unless ``user`` is the campaign's master."""
    if not Membership.objects.filter(
        campaign=invitation.campaign_id, user=user, role=Membership.Role.MASTER
    ).exists():
        raise ServiceError(_("Only the campaign's master can revoke invitations."))
    Invitation.objects.filter(pk=invitation.pk).update(revoked=True)
