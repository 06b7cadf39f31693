"""The master's roll requests in a scene: asking a character for an action roll, and
withdrawing it (``escenas.services`` re-exports both; the player's post answers them there).
Source: RULES.md R2, R3."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext as _

from escenas import selectors
from escenas.models import RollRequest
from mundo.access import require_master
from nucleo.errors import ServiceError
from nucleo.locks import campaign_locked
from personajes import rolls as personajes_rolls
from personajes.models import Character, Trait


@campaign_locked(lambda access, **_: access.scene.campaign_id)
def roll_request_create(
    *,
    access: selectors.SceneAccess,
    master: User,
    character: Character,
    trait: Trait,
    threshold: int | None = None,
    reason: str = "",
    hidden: bool = False,
) -> RollRequest:
    """The master asks a living participant of the scene for an action roll.

    Raises ServiceError: not the master, character not in the scene, trait of another
    campaign, threshold outside 0..100, reason over 200 characters.
    """
    if not access.is_master:
        raise ServiceError(_("Only the campaign's master can do this."))
    if character.pk not in {c.pk for c in access.characters}:
        raise ServiceError({"character": _("That character is not in this scene.")})
    if trait.campaign_id != access.scene.campaign_id:
        raise ServiceError({"trait": _("Choose a trait of this campaign.")})
    base = personajes_rolls.parse_threshold(threshold, required=False)
    reason = personajes_rolls.clean_reason(reason)
    return RollRequest.objects.create(
        scene=access.scene,
        character=character,
        requested_by=master,
        trait=trait,
        base_threshold=base,
        reason=reason,
        hidden=hidden,
    )


@campaign_locked(lambda request, **_: request.scene.campaign_id)
def roll_request_cancel(*, request: RollRequest, master: User) -> None:
    """The master withdraws a pending roll request (an answered one stays as it is)."""
    require_master(request.scene.campaign_id, master)
    RollRequest.objects.filter(pk=request.pk, fulfilled_roll__isnull=True).update(
        cancelled_at=timezone.now()
    )
