"""A user's own account: the download of their data, its deletion, and what a password change
revokes.

Deletion anonymises, it does not delete the user row: the characters and posts stay, because
they are part of a story the other players wrote with them (replies, rolls, the master's
judgements) and ``Character.player`` cascades, so deleting the row would tear holes in every
scene they played. What identifies the person goes: username (``cuenta-borrada-<id>``), names,
e-mails, password, API tokens, sessions, drafts (unsent, private text), notification settings
and read marks. Source: DESIGN.md (accounts), issue 12 ("account deletion and a download of
one's own data").
"""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from escenas.models import Draft, NotificationPreference, Post, SceneRead
from mundo.models import Campaign, Membership
from nucleo.errors import ServiceError
from nucleo.locks import lock_rows
from partida.models import ApiToken
from personajes.models import Character

DELETED_USERNAME = "cuenta-borrada-{pk}"
"""The username an anonymised account keeps (shown where its posts are)."""


def account_export(*, user: User) -> dict[str, Any]:
    """Everything of ``user``'s own, as JSON-ready data (datetimes as ``datetime``; the view
    encodes them in ISO 8601).

    Shape: ``{"exported_at", "profile": {username, email, first_name, last_name, date_joined,
    last_login}, "emails": [{email, verified, primary}], "memberships": [{campaign, campaign_name,
    role, joined_at}], "characters": [{id, campaign, name, concept, status, death_cause,
    death_day, created_at}], "posts": [{id, campaign, scene_id, scene_title, day, voice,
    speaker_name, body, note_to_master, is_whisper, created_at, edited_at, deleted_at}],
    "api_tokens": [{name, prefix, created, last_used, revoked_at}]}``. Posts are the ones the
    user wrote, deleted ones included (they are still theirs); never a token's key (only its
    hash is stored). Six queries.
    """
    u: Any = user
    return {
        "exported_at": timezone.now(),
        "profile": {
            "username": u.get_username(),
            "email": u.email,
            "first_name": u.first_name,
            "last_name": u.last_name,
            "date_joined": u.date_joined,
            "last_login": u.last_login,
        },
        "emails": list(
            EmailAddress.objects.filter(user=u)
            .order_by("-primary", "email")
            .values("email", "verified", "primary")
        ),
        "memberships": [
            {
                "campaign": m.campaign.slug,
                "campaign_name": m.campaign.name,
                "role": m.role,
                "joined_at": m.joined_at,
            }
            for m in Membership.objects.filter(user=u).select_related("campaign").order_by("pk")
        ],
        "characters": [
            {
                "id": c.pk,
                "campaign": c.campaign.slug,
                "name": c.name,
                "concept": c.concept,
                "status": c.status,
                "death_cause": c.death_cause,
                "death_day": c.death_day,
                "created_at": c.created_at,
            }
            for c in Character.objects.filter(player=u).select_related("campaign").order_by("pk")
        ],
        "posts": [
            {
                "id": p.pk,
                "campaign": p.campaign.slug,
                "scene_id": p.scene_id,
                "scene_title": p.scene.title,
                "day": p.day,
                "voice": p.voice,
                "speaker_name": p.speaker_name,
                "body": p.body,
                "note_to_master": p.note_to_master,
                "is_whisper": p.is_whisper,
                "created_at": p.created_at,
                "edited_at": p.edited_at,
                "deleted_at": p.deleted_at,
            }
            for p in Post.objects.filter(author=u)
            .select_related("campaign", "scene")
            .order_by("created_at", "pk")
        ],
        "api_tokens": list(
            ApiToken.objects.filter(user=u)
            .order_by("created", "pk")
            .values("name", "prefix", "created", "last_used", "revoked_at")
        ),
    }


def campaigns_left_without_master(user: User) -> list[Campaign]:
    """The campaigns ``user`` is the only master of while other people play in them: deleting
    the account would leave those players without a master."""
    mastered = Membership.objects.filter(user=user, role=Membership.Role.MASTER).values(
        "campaign_id"
    )
    return list(
        Campaign.objects.filter(pk__in=mastered)
        .annotate(
            masters=Count("memberships", filter=Q(memberships__role=Membership.Role.MASTER)),
            members=Count("memberships"),
        )
        .filter(masters=1, members__gt=1)
        .order_by("name")
    )


@transaction.atomic
def account_delete(*, user: User) -> None:
    """Anonymise ``user``'s account (see the module docstring for what stays and what goes).

    The user row is locked (account data, outside any campaign lock). Raises ServiceError when
    the user is the only master of a campaign that has players (name the campaigns: hand them
    over in the admin first). Afterwards the account cannot sign in (inactive, no usable
    password, no e-mail), and every session of it is signed out (Django checks the password
    hash stored in the session; ``is_active`` is False too).
    """
    lock_rows(get_user_model().objects.filter(pk=user.pk), account=True)
    orphaned = campaigns_left_without_master(user)
    if orphaned:
        raise ServiceError(
            _(
                "You are the only master of %(campaigns)s, where others play: make another "
                "player master first (in the admin), then delete your account."
            )
            % {"campaigns": ", ".join(f"«{c.name}»" for c in orphaned)}
        )
    u: Any = user
    u.username = DELETED_USERNAME.format(pk=u.pk)
    u.email = ""
    u.first_name = ""
    u.last_name = ""
    u.is_active = False
    u.is_staff = False
    u.is_superuser = False
    u.set_unusable_password()
    u.save()
    EmailAddress.objects.filter(user=u).delete()
    ApiToken.objects.filter(user=u).delete()
    Draft.objects.filter(user=u).delete()
    SceneRead.objects.filter(user=u).delete()
    NotificationPreference.objects.filter(user=u).delete()


def deleted_message() -> str:
    """The message shown once the account is gone."""
    return _("Your account has been deleted. Your characters and posts stay, without your name.")


def tokens_revoke_all(*, user_id: int) -> int:
    """Revoke every active API token of the user (one UPDATE): they answer 401 from now on.
    Returns how many were revoked. Called when the password changes or is reset."""
    return ApiToken.objects.filter(user_id=user_id, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
