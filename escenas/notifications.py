"""Telling people about posts: notification settings, feed tokens, the e-mail of each new post
(at most once per post and reader) and the daily digests.

Who is told, and what they may see, is decided by ``escenas.access`` (through the selectors):
the same rules as the pages. The Celery tasks in ``escenas.tasks`` call these services.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.db.models import Prefetch
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from escenas import selectors
from escenas.models import (
    NotificationPreference,
    Post,
    PostNotification,
    PostRoll,
    new_feed_token,
)
from mundo.models import Membership
from nucleo.errors import ServiceError

# --- Notifications ------------------------------------------------------------------------------


def preference_get_or_create(*, user: AbstractBaseUser) -> NotificationPreference:
    """The user's notification preference, created with the defaults (each post, a feed
    token) on first use."""
    pref, _created = NotificationPreference.objects.get_or_create(user=user)
    return pref


def preference_set_mode(*, user: AbstractBaseUser, mode: str) -> NotificationPreference:
    """Choose e-mails for each post, a daily digest, or none. Raises ServiceError for another
    value."""
    if mode not in NotificationPreference.Mode.values:
        raise ServiceError({"mode": _("Choose one of the options.")})
    pref = preference_get_or_create(user=user)
    if pref.mode != mode:
        pref.mode = mode
        if mode == NotificationPreference.Mode.DIGEST and pref.digest_sent_until is None:
            pref.digest_sent_until = timezone.now()
        pref.save(update_fields=["mode", "digest_sent_until"])
    return pref


def feed_token_regenerate(*, user: AbstractBaseUser) -> NotificationPreference:
    """A new secret for the user's private feeds: every old feed URL stops working."""
    pref = preference_get_or_create(user=user)
    pref.feed_token = new_feed_token()
    pref.save(update_fields=["feed_token"])
    return pref


def feed_token_revoke(*, user: AbstractBaseUser) -> NotificationPreference:
    """Switch the user's private feeds off (until a new token is made)."""
    pref = preference_get_or_create(user=user)
    pref.feed_token = ""
    pref.save(update_fields=["feed_token"])
    return pref


def _absolute(path: str) -> str:
    """``path`` on the site's public address (setting ``SITE_URL``)."""
    base = getattr(settings, "SITE_URL", "") or "http://127.0.0.1:8000"
    return base.rstrip("/") + path


def post_recipients(post: Post) -> list[tuple[Any, selectors.PostView]]:
    """Who is told about a new post and what each may see of it: the scene's participants (see
    ``selectors.scene_participant_users``) other than the author, with an e-mail address, for
    whom ``post_visible_to`` holds — each with the ``PostView`` they would see on the page.
    Ignores notification settings. A constant number of queries (see ``_recipients_by_post``).
    """
    return _recipients_by_post([post])[post.pk]


def _recipients_by_post(posts: Sequence[Post]) -> dict[int, list[tuple[Any, selectors.PostView]]]:
    """``post_recipients`` of many posts at once, keyed by post id. Two queries whatever the
    number of posts (the campaigns' members with their users, and their characters); the posts
    come from ``_posts_for_mail`` (scene, campaign, participants and whisper recipients
    loaded). The permission check is the page's: ``scene_access`` and ``post_visible_to``."""
    memberships = selectors.campaign_memberships({p.scene.campaign_id for p in posts})
    viewers = selectors.member_viewers(memberships)
    out: dict[int, list[tuple[Any, selectors.PostView]]] = {}
    for post in posts:
        scene = post.scene
        recipients = out[post.pk] = []
        for user in selectors.scene_participant_users(scene, memberships[scene.campaign_id]):
            if user.pk == post.author_id or not user.is_active or not user.email:
                continue
            viewer = viewers[(scene.campaign_id, user.pk)]
            access = selectors.scene_access(scene, viewer)
            if selectors.post_visible_to(post, viewer, access):
                recipients.append((user, selectors.post_view(post, viewer)))
    return out


def _posts_for_mail(post_ids: Iterable[int]) -> list[Post]:
    """The posts with what the recipients and the e-mails read, in a constant number of
    queries: posts with scene, campaign and diary character (1), whisper recipients (1), scene
    participants (1), rolls with their roll and character (1)."""
    return list(
        Post.objects.filter(pk__in=list(post_ids))
        .select_related(
            "scene", "scene__campaign", "scene__diary_character", "campaign", "character"
        )
        .prefetch_related(
            Prefetch("whisper_to", queryset=get_user_model().objects.order_by("username")),
            "scene__participants",
            Prefetch(
                "post_rolls",
                queryset=PostRoll.objects.select_related("roll", "roll__character").order_by(
                    "position", "id"
                ),
            ),
        )
        .order_by("id")
    )


def post_notifications_send(*, post_ids: Iterable[int]) -> int:
    """Send one e-mail per (post, participant who wants each post), at most once each.

    The ``PostNotification`` rows (unique per post and user) are written, in one transaction,
    before anything is sent, so a task run twice sends nothing twice. Returns how many e-mails
    were sent. A constant number of queries whatever the number of posts (the daily tick sends
    one diary post per character): see ``_posts_for_mail`` and ``_recipients_by_post``, then
    the recipients' settings (1) and the claim (lock, read, insert: 3).
    """
    posts = _posts_for_mail(post_ids)
    recipients = _recipients_by_post(posts)
    user_ids = {u.pk for rows in recipients.values() for u, _v in rows}
    if not user_ids:
        return 0
    modes = dict(
        NotificationPreference.objects.filter(user_id__in=user_ids).values_list("user_id", "mode")
    )
    each = NotificationPreference.Mode.EACH
    wanted = [
        (post, user, view)
        for post in posts
        for user, view in recipients[post.pk]
        if modes.get(user.pk, each) == each
    ]
    if not wanted:
        return 0
    with transaction.atomic():
        # Claim before sending. Locking the posts (in id order, so two runs over overlapping
        # posts wait for each other rather than deadlock) makes a concurrent run of the same
        # posts wait here and then see this run's rows; ``ignore_conflicts`` covers rows
        # written without the lock (``notifications_mark_sent``).
        wanted_post_ids = sorted({post.pk for post, _u, _v in wanted})
        list(
            Post.objects.select_for_update()
            .filter(pk__in=wanted_post_ids)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        done = set(
            PostNotification.objects.filter(
                post_id__in=wanted_post_ids, user_id__in={u.pk for _p, u, _v in wanted}
            ).values_list("post_id", "user_id")
        )
        todo = [(p, u, v) for p, u, v in wanted if (p.pk, u.pk) not in done]
        PostNotification.objects.bulk_create(
            [PostNotification(post=p, user=u) for p, u, _v in todo], ignore_conflicts=True
        )
    for post, user, view in todo:
        _send_post_mail(user, post, view)
    return len(todo)


def notifications_mark_sent(*, post_ids: Iterable[int]) -> int:
    """Record posts as already e-mailed to everyone who would be told about them, without
    sending anything (for history loaded in bulk, e.g. the demo). Returns the rows written."""
    posts = _posts_for_mail(post_ids)
    recipients = _recipients_by_post(posts)
    rows = [
        PostNotification(post=post, user=user)
        for post in posts
        for user, _view in recipients[post.pk]
    ]
    PostNotification.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def _send_post_mail(user: Any, post: Post, view: selectors.PostView) -> None:
    context = {
        "user": user,
        "post": post,
        "view": view,
        "scene": post.scene,
        "campaign": post.scene.campaign,
        "url": _absolute(post.get_absolute_url()),
        "settings_url": _absolute(reverse("escenas:notifications")),
    }
    subject = _("[%(campaign)s] %(scene)s: %(speaker)s") % {
        "campaign": post.scene.campaign.name,
        "scene": post.scene.title,
        "speaker": post.speaker_name,
    }
    message = EmailMultiAlternatives(
        subject=subject.replace("\n", " ")[:200],
        body=render_to_string("escenas/email/post.txt", context),
        to=[user.email],
    )
    message.attach_alternative(render_to_string("escenas/email/post.html", context), "text/html")
    message.send()


def digests_send(*, now: datetime.datetime | None = None) -> int:
    """Send each digest reader one e-mail with the posts they would have been told about since
    their last digest. A compare-and-swap on ``digest_sent_until`` makes a second run at the
    same time send nothing. Returns how many digests were sent."""
    now = now or timezone.now()
    sent = 0
    prefs = list(
        NotificationPreference.objects.filter(
            mode=NotificationPreference.Mode.DIGEST
        ).select_related("user")
    )
    for pref in prefs:
        since = pref.digest_sent_until or (now - datetime.timedelta(days=1))
        claimed = NotificationPreference.objects.filter(
            pk=pref.pk, digest_sent_until=pref.digest_sent_until
        ).update(digest_sent_until=now)
        if claimed != 1:
            continue
        user = pref.user
        if not user.is_active or not user.email:
            continue
        campaign_ids = Membership.objects.filter(user=user).values("campaign_id")
        candidates = _posts_for_mail(
            Post.objects.filter(
                campaign_id__in=campaign_ids, created_at__gt=since, created_at__lte=now
            )
            .exclude(author=user)
            .values_list("pk", flat=True)
        )
        recipients = _recipients_by_post(candidates)
        items = [
            (post, view, _absolute(post.get_absolute_url()))
            for post in candidates
            for recipient, view in recipients[post.pk]
            if recipient.pk == user.pk
        ]
        if not items:
            continue
        context = {
            "user": user,
            "items": items,
            "settings_url": _absolute(reverse("escenas:notifications")),
        }
        EmailMultiAlternatives(
            subject=_("Partida: %(n)s new posts") % {"n": len(items)},
            body=render_to_string("escenas/email/digest.txt", context),
            to=[user.email],
        ).send()
        sent += 1
    return sent
