"""Entering story scenes: newcomers join the scenes open to them, players ask to enter others.

- On approval (``personajes.signals.sheet_reviewed``) a character joins every story scene of
  its campaign marked ``open_to_new_characters`` (``open_scenes_join``).
- A player who reads a story scene their character is not in is told why they cannot post and
  may ask to enter ("pedir entrar": ``join_request_create``); the master sees the request in
  the campaign page's pending list and lets the character in or declines
  (``join_request_decide``).

Writes run under the campaign lock (``nucleo.locks``), re-checking who asks under it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from escenas.access import SceneAccess
from escenas.models import JoinRequest, Scene
from mundo.access import is_master
from mundo.models import Campaign
from nucleo.errors import NotFound, ServiceError
from nucleo.locks import campaign_lock, lock_row
from nucleo.users import AnyUser
from personajes.models import Character


def open_scenes_join(*, character: Character) -> list[Scene]:
    """Add an approved ``character`` to its campaign's story scenes open to new characters;
    returns them. Two queries (the scenes, one insert). Runs in the caller's transaction."""
    scenes = list(
        Scene.objects.filter(
            campaign_id=character.campaign_id,
            kind=Scene.Kind.STORY,
            open_to_new_characters=True,
        ).order_by("pk")
    )
    through = Scene.participants.through
    through.objects.bulk_create(
        [through(scene_id=s.pk, character_id=character.pk) for s in scenes],
        ignore_conflicts=True,
    )
    return scenes


@dataclass(frozen=True, slots=True)
class PostBlock:
    """Why the viewer cannot post in a scene they read (``reason``, translated), and the
    characters they may ask to enter with (``can_ask``), with their pending requests."""

    reason: str
    can_ask: tuple[Character, ...]
    pending: tuple[JoinRequest, ...]


def post_block(access: SceneAccess) -> PostBlock | None:
    """None when the viewer may post (or is anonymous); else why not and whom they may ask
    to bring in. One query for a member's characters and pending requests (two at most)."""
    if access.can_post or access.viewer.user_id is None:
        return None
    scene = access.scene
    if not access.viewer.is_member:
        return PostBlock(_("Only the campaign's players post here."), (), ())
    if scene.kind != Scene.Kind.STORY:
        return PostBlock(_("Only the master writes here."), (), ())
    mine = list(
        Character.objects.filter(
            campaign_id=scene.campaign_id, player_id=access.viewer.user_id
        ).order_by("name")
    )
    approved = [c for c in mine if c.status == Character.Status.APPROVED]
    if not approved:
        reason = (
            _("Your character's sheet is waiting for the master's approval.")
            if any(c.status == Character.Status.SUBMITTED for c in mine)
            else _("You have no approved character in this campaign yet.")
        )
        return PostBlock(reason, (), ())
    pending = tuple(
        JoinRequest.objects.filter(
            scene=scene, character__in=approved, status=JoinRequest.Status.PENDING
        ).select_related("character")
    )
    asked = {r.character_id for r in pending}
    return PostBlock(
        _("Your character does not take part in this scene: the master adds the characters."),
        tuple(c for c in approved if c.pk not in asked),
        pending,
    )


def join_request_create(*, access: SceneAccess, user: AnyUser, character_id: int) -> JoinRequest:
    """Ask that the user's approved character enter the story scene of ``access``; a second
    ask while one is pending returns that one. Raises ServiceError when the character is not
    the user's approved one in this campaign, already takes part, or the scene is not a story
    scene."""
    scene = access.scene
    with campaign_lock(scene.campaign_id):
        character = Character.objects.filter(
            pk=character_id,
            campaign_id=scene.campaign_id,
            player_id=getattr(user, "pk", None),
            status=Character.Status.APPROVED,
        ).first()
        if character is None or scene.kind != Scene.Kind.STORY:
            raise ServiceError({"character": _("Choose one of your approved characters.")})
        if scene.participants.filter(pk=character.pk).exists():
            raise ServiceError({"character": _("That character already takes part.")})
        found = JoinRequest.objects.filter(
            scene=scene, character=character, status=JoinRequest.Status.PENDING
        ).first()
        if found is not None:
            return found
        try:
            with transaction.atomic():
                return JoinRequest.objects.create(
                    scene=scene,
                    character=character,
                    requested_by=user if user.is_authenticated else None,
                )
        except IntegrityError:  # the same ask twice at once: the other one is the request
            return JoinRequest.objects.get(
                scene=scene, character=character, status=JoinRequest.Status.PENDING
            )


def join_request_decide(
    *, campaign: Campaign, master: AnyUser, request_id: int, accept: bool
) -> JoinRequest:
    """The master lets the character in (it becomes a participant) or declines. Raises
    NotFound for a request of another campaign, ServiceError for a non-master or a request
    already decided."""
    with campaign_lock(campaign.pk):
        if not is_master(campaign.pk, master):
            raise ServiceError(_("Only the campaign's master decides who enters a scene."))
        qs = JoinRequest.objects.filter(scene__campaign_id=campaign.pk)
        try:
            request = lock_row(qs, request_id)
        except JoinRequest.DoesNotExist:
            raise NotFound("No such request") from None
        if request.status != JoinRequest.Status.PENDING:
            raise ServiceError(_("This request was already decided."))
        request.status = JoinRequest.Status.ACCEPTED if accept else JoinRequest.Status.DECLINED
        request.decided_at = timezone.now()
        request.save(update_fields=["status", "decided_at"])
        if accept:
            request.scene.participants.add(request.character_id)
        return request


def pending_join_requests(campaign: Campaign) -> list[JoinRequest]:
    """The campaign's pending requests to enter a scene, oldest first (one query)."""
    return list(
        JoinRequest.objects.filter(
            scene__campaign=campaign, status=JoinRequest.Status.PENDING
        ).select_related("scene", "character", "character__player")
    )
