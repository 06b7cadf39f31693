"""Telling people about posts: notification settings, feed tokens, the e-mail of each new post
(at most once per post and reader), the daily digests and the one-click unsubscribe links.

E-mails go through the outbox (``nucleo.mail``): written in the transaction that causes them,
delivered by the worker after the commit, retried until the server accepts them.

Who is told, and what they may see, is decided by ``escenas.access`` (through the selectors):
the same rules as the pages. The Celery tasks in ``escenas.tasks`` call these services.
"""

from __future__ import annotations

import datetime
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core import signing
from django.db import transaction
from django.db.models import Prefetch, Value
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from escenas import post_audience, selectors
from escenas.access import scene_characters
from escenas.first_notice import first_notices, may_be_told, notice_markers
from escenas.models import (
    NotificationPreference,
    Post,
    PostNotification,
    PostRoll,
    Scene,
    new_feed_token,
)
from escenas.post_audience import CampaignMembers, players_of_the_dead, scene_participant_ids
from mundo.models import Campaign, Membership
from nucleo.errors import NotFound, ServiceError
from nucleo.mail import message_new, outbox_enqueue, outbox_withdraw
from nucleo.models import OutboxMessage
from nucleo.readers import as_reader, reader_of

UNSUBSCRIBE_SALT = "escenas.unsubscribe"


def preference_get_or_create(*, user: User) -> NotificationPreference:
    """The user's notification preference, created with the defaults (each post, a feed
    token) on first use."""
    pref, _created = NotificationPreference.objects.get_or_create(user=user)
    return pref


def preference_set_mode(*, user: User, mode: str) -> NotificationPreference:
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


def feed_token_regenerate(*, user: User) -> NotificationPreference:
    """A new secret for the user's private feeds: every old feed URL stops working."""
    pref = preference_get_or_create(user=user)
    pref.feed_token = new_feed_token()
    pref.save(update_fields=["feed_token"])
    return pref


def feed_token_revoke(*, user: User) -> NotificationPreference:
    """Switch the user's private feeds off (until a new token is made)."""
    pref = preference_get_or_create(user=user)
    pref.feed_token = ""
    pref.save(update_fields=["feed_token"])
    return pref


@dataclass(frozen=True)
class Unsubscribe:
    """What a one-click unsubscribe link stands for: the user, the campaign to mute (None:
    every e-mail off) and the scene the e-mail was about (None for a digest)."""

    user: Any
    campaign: Campaign | None
    scene_title: str


def unsubscribe_read(token: str) -> Unsubscribe:
    """The link's user, campaign and scene. Raises NotFound for a token that was not signed
    here (or is damaged) or names a user or campaign that no longer exists."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
        user_id, campaign_id, scene_id = int(data["u"]), data["c"], data["s"]
    except (signing.BadSignature, KeyError, TypeError, ValueError) as error:
        raise NotFound() from error
    user = get_user_model().objects.filter(pk=user_id).first()
    campaign = Campaign.objects.filter(pk=campaign_id).first() if campaign_id else None
    if user is None or (campaign_id and campaign is None):
        raise NotFound()
    title = ""
    if scene_id and campaign is not None:
        title = campaign.scenes.filter(pk=scene_id).values_list("title", flat=True).first() or ""
    return Unsubscribe(user=user, campaign=campaign, scene_title=title)


def unsubscribe_apply(token: str) -> Unsubscribe:
    """Follow a one-click unsubscribe link: mute its campaign for its user (no e-mail about
    that campaign: each post nor digest), or for a link without campaign switch e-mail off.
    Safe to repeat. Raises NotFound like ``unsubscribe_read``."""
    leave = unsubscribe_read(token)
    pref = preference_get_or_create(user=leave.user)
    if leave.campaign is None:
        preference_set_mode(user=leave.user, mode=NotificationPreference.Mode.NONE)
    else:
        pref.muted_campaigns.add(leave.campaign)
    return leave


def campaign_unmute(*, user: User, campaign_id: int) -> None:
    """E-mail about that campaign again (undo an unsubscribe link). Unknown ids do nothing."""
    preference_get_or_create(user=user).muted_campaigns.remove(
        *Campaign.objects.filter(pk=campaign_id)
    )


def _absolute(path: str) -> str:
    """``path`` on the site's public address (setting ``SITE_URL``)."""
    base = getattr(settings, "SITE_URL", "") or "http://127.0.0.1:8000"
    return base.rstrip("/") + path


def post_recipients(post: Post) -> list[tuple[Any, selectors.PostView]]:
    """Who is told about a new post and what each may see of it: the scene's participants (see
    ``selectors.scene_participant_users``) and the members its text mentions (``Post.mentions``)
    other than the author, with an e-mail address, for whom ``post_visible_to`` holds — each
    with the ``PostView`` they would see on the page. Ignores notification settings. A
    constant number of queries (see ``_recipients_by_post``).
    """
    return _recipients_by_post([post])[post.pk]


def _recipients_by_post(
    posts: Sequence[Post],
    scene_modes: dict[tuple[int, int], str] | None = None,
    only: set[tuple[int, int]] | None = None,
) -> dict[int, list[tuple[Any, selectors.PostView]]]:
    """``post_recipients`` of many posts at once, keyed by post id: the scene's participants,
    the members mentioned (``_told_about``) and the members who follow the scene
    (``scene_modes``, see ``scene_modes_of``; loaded when not given). Three queries whatever
    the number of posts (the campaigns' members with their users and reader settings, their
    characters, the scenes' follows when not given); the posts come from ``_posts_for_mail``
    (scene, campaign, participants, whisper recipients and mentions loaded). The permission
    check is the page's: ``scene_access`` and ``post_visible_to``. ``only``: the (post id,
    user id) pairs to check, the others left out (None: all)."""
    memberships = selectors.campaign_memberships({p.scene.campaign_id for p in posts})
    viewers = selectors.member_viewers(memberships)
    if scene_modes is None:
        scene_modes = scene_modes_of({p.scene_id for p in posts}, mutes=False)
    rosters = {
        c: CampaignMembers.of([(m.user_id, m.role) for m in ms]) for c, ms in memberships.items()
    }
    users_of = {c: {m.user_id: m.user for m in ms} for c, ms in memberships.items()}
    followers = post_audience.followers_by_scene(k for k, m in scene_modes.items() if m == FOLLOW)
    out: dict[int, list[tuple[Any, selectors.PostView]]] = {}
    for post in posts:
        scene = post.scene
        recipients = out[post.pk] = []
        roster, by_id = rosters[scene.campaign_id], users_of[scene.campaign_id]
        users = _told_about(post, roster, by_id)
        told = {u.pk for u in users}
        following = [u for u in followers[scene.pk] if u in by_id and u not in told]
        users += [by_id[u] for u in sorted(following, key=roster.position.__getitem__)]
        for user in users:
            if user.pk == post.author_id or not user.is_active or not user.email:
                continue
            if only is not None and (post.pk, user.pk) not in only:
                continue
            viewer = viewers.get((scene.campaign_id, user.pk))
            if viewer is None:
                continue
            access = selectors.scene_access(scene, viewer)
            if selectors.post_visible_to(post, viewer, access):
                recipients.append((user, selectors.post_view(post, viewer)))
    return out


def _told_about(post: Post, roster: CampaignMembers, users: dict[int, Any]) -> list[Any]:
    """The scene's participant users (``scene_participant_ids`` among the campaign's
    ``roster``; ``users`` its members' users by id), then the members the post mentions who
    are not among them (a mention of a former member tells nobody). No query (mentions and
    the scene's participants prefetched)."""
    players = {c.player_id for c in scene_characters(post.scene)}
    ids = scene_participant_ids(post.scene.kind, players, roster)
    seen = set(ids)
    named = [u for u in post.mentions.all() if u.pk not in seen and u.pk in users]
    return [users[pk] for pk in ids] + named


def _posts_for_mail(post_ids: Iterable[int]) -> list[Post]:
    """The posts with what the recipients and the e-mails read, in a constant number of
    queries: posts with scene, campaign and diary character (1), whisper recipients (1), scene
    participants (1), rolls with their roll and character (1), mentioned members (1)."""
    return list(
        Post.objects.filter(pk__in=list(post_ids))
        .select_related(
            "scene", "scene__campaign", "scene__diary_character", "campaign", "character"
        )
        .prefetch_related(
            Prefetch("whisper_to", queryset=get_user_model().objects.order_by("username")),
            "scene__participants",
            # With their reader settings: each e-mail is in its reader's language.
            Prefetch(
                "mentions", queryset=get_user_model().objects.select_related("reader_settings")
            ),
            Prefetch(
                "post_rolls",
                queryset=PostRoll.objects.select_related("roll", "roll__character").order_by(
                    "position", "id"
                ),
            ),
        )
        .order_by("id")
    )


def post_notifications_queue(*, post_ids: Iterable[int]) -> int:
    """Put in the outbox one e-mail per (post, participant who wants each post and has not
    muted the campaign), at most once each, in the caller's transaction (a rolled back post
    sends nothing; delivered after the commit: ``nucleo.mail``); a followed scene is e-mailed,
    a muted one not (``scene_mode_set``); a reader told about a post they have not read yet
    is not told again (``first_notice``). Each e-mail in its reader's language and time zone
    (``nucleo.readers``). ``PostNotification`` rows (unique per post and user) record who was
    told: a second call for the same posts queues nothing. The caller holds the campaign lock
    (a post's transaction, or ``post_fanout``). Returns how many e-mails were queued.

    The audience is narrowed first on plain rows (``post_audience``): the posts' scenes,
    mentions, members and participants (4 queries), the scenes' follows and mutes (1), the
    readers' settings and mutes (2), their characters (1, and the follows of players of
    the dead when there are some: 1), what was queued already (1) and the markers (1). Only
    the pairs left are loaded (``_posts_for_mail``, ``_recipients_by_post`` without the
    follows: 7), checked and written (the markers' upsert, the inserts: 3). A constant
    number of queries whatever the number of posts (the tick writes one diary post per
    character); 10 when nobody is left to tell, the common case in a busy scene (9 without a
    story scene, one more with players of the dead).
    """
    heads = post_audience.post_heads(post_ids)
    scene_modes = scene_modes_of({h.scene_id for h in heads})
    follows = {key for key, mode in scene_modes.items() if mode == FOLLOW}
    pairs = _wanted_pairs(heads, scene_modes, follows)
    if not pairs:
        return 0
    with transaction.atomic(savepoint=False):  # the caller's transaction when there is one
        done = set(
            PostNotification.objects.filter(
                post_id__in={h.pk for h, _u in pairs}, user_id__in={u for _h, u in pairs}
            ).values_list("post_id", "user_id")
        )
        markers = notice_markers({u for _h, u in pairs}, {h.scene_id for h, _u in pairs})
        maybe = {
            (head.pk, user_id)
            for head, user_id in pairs
            if (head.pk, user_id) not in done
            and may_be_told(
                head.pk,
                (user_id, head.scene_id),
                head.kind == Scene.Kind.DIARY
                or (user_id, head.scene_id) in follows
                or user_id in head.mentioned,
                markers,
            )
        }
        if not maybe:
            return 0
        posts = _posts_for_mail({post_id for post_id, _u in maybe})
        recipients = _recipients_by_post(posts, scene_modes, only=maybe)
        todo = [(p, u, v) for p in posts for u, v in recipients[p.pk]]
        todo = first_notices(todo, follows, markers)  # one e-mail until the reader visits again
        PostNotification.objects.bulk_create(
            [PostNotification(post=p, user=u) for p, u, _v in todo], ignore_conflicts=True
        )
        bodies = _PostBodies()
        messages = []
        for p, u, v in todo:
            with as_reader(reader_of(u)):  # each reader's language and time zone
                messages.append(_post_message(u, p, v, bodies))
        outbox_enqueue(messages)
    return len(todo)


def _wanted_pairs(
    heads: Sequence[post_audience.PostHead],
    scene_modes: dict[tuple[int, int], str],
    follows: set[tuple[int, int]],
) -> list[tuple[post_audience.PostHead, int]]:
    """The (post, user id) pairs of each post's audience and its scene's followers (``follows``
    of ``scene_modes``), the author left out, whose settings want an e-mail about it: a
    followed scene yes, a muted one no, else the user's mode is "each" and the campaign is
    neither muted by them nor theirs only through dead characters. Three queries (one more
    with players of the dead), none when nobody is in the audience."""
    followers = post_audience.followers_by_scene(follows)
    pairs = [
        (head, user_id)
        for head in heads
        for user_id in dict.fromkeys(head.audience + tuple(followers[head.scene_id]))
        if user_id != head.author_id
    ]
    user_ids = {user_id for _h, user_id in pairs}
    if not user_ids:
        return []
    modes, muted = post_audience.settings_of(user_ids)
    muted |= players_of_the_dead(user_ids, {h.campaign_id for h in heads})
    each = NotificationPreference.Mode.EACH

    def wants(user_id: int, head: post_audience.PostHead) -> bool:
        by_scene = scene_modes.get((user_id, head.scene_id))
        if by_scene is not None:
            return by_scene == FOLLOW
        return modes.get(user_id, each) == each and (user_id, head.campaign_id) not in muted

    return [(head, user_id) for head, user_id in pairs if wants(user_id, head)]


def campaign_follow(*, user: User, campaign_id: int, follow: bool) -> None:
    """Follow a campaign (e-mail about it even when all my characters in it are dead) or stop
    following it. Unknown ids do nothing."""
    campaigns = Campaign.objects.filter(pk=campaign_id)
    followed = preference_get_or_create(user=user).followed_campaigns
    if follow:
        followed.add(*campaigns)
    else:
        followed.remove(*campaigns)


def follow_lists(pref: NotificationPreference) -> dict[str, list[Campaign]]:
    """For the settings page: ``followed`` (the campaigns ``pref``'s user follows) and
    ``quiet`` (the ones they get no e-mail about because all their characters there are
    dead, ``players_of_the_dead``), by name. Four queries."""
    followed = list(pref.followed_campaigns.order_by("name"))
    mine = set(
        Membership.objects.filter(user_id=pref.user_id).values_list("campaign_id", flat=True)
    )
    quiet_ids = {c for _u, c in players_of_the_dead({pref.user_id}, mine)}
    quiet = list(Campaign.objects.filter(pk__in=quiet_ids).order_by("name")) if quiet_ids else []
    return {"followed": followed, "quiet": quiet}


FOLLOW = "follow"
MUTE = "mute"
SCENE_MODES = ("default", FOLLOW, MUTE)
"""A scene's e-mail modes for one user: as the campaign and the user's mode say, follow, mute."""


def scene_modes_of(scene_ids: Iterable[int], *, mutes: bool = True) -> dict[tuple[int, int], str]:
    """The per-scene choices on these scenes, ``{(user id, scene id): FOLLOW or MUTE}`` (a
    scene left at the default is absent; ``mutes=False``: the follows only; both, which only
    the admin can set, is FOLLOW, as ``scene_mode`` shows it). One query."""
    ids = list(scene_ids)
    user = "notificationpreference__user_id"
    rows = (
        NotificationPreference.followed_scenes.through.objects.filter(scene_id__in=ids)
        .annotate(mode=Value(FOLLOW))
        .values_list(user, "scene_id", "mode")
    )
    if mutes:
        rows = rows.union(
            NotificationPreference.muted_scenes.through.objects.filter(scene_id__in=ids)
            .annotate(mode=Value(MUTE))
            .values_list(user, "scene_id", "mode")
        )
    ordered = sorted(rows, key=lambda row: row[2] == FOLLOW)  # a follow is written last
    return {(user_id, scene_id): mode for user_id, scene_id, mode in ordered}


def scene_mode_of(*, user: Any, scene: Scene) -> str:
    """``user``'s e-mail mode for ``scene``: ``"default"``, ``FOLLOW`` or ``MUTE``. One query
    (none for an anonymous user)."""
    return scene_mode(selectors.scene_choices(user, scene))


def scene_mode(choices: selectors.SceneChoices) -> str:
    """The e-mail mode that a reader's ``SceneChoices`` make: ``FOLLOW``, ``MUTE`` or
    ``"default"`` (``scene_mode_set`` keeps at most one of the two)."""
    return FOLLOW if choices.follows else MUTE if choices.mutes else "default"


def scene_mode_set(*, user: User, scene: Scene, mode: str) -> str:
    """Follow a scene (an e-mail for each post of it I may see, whatever my other settings),
    mute it (no e-mail about it, nor in the digest) or put it back to the default (the
    campaign's and my mode decide). The caller has checked that ``user`` may read ``scene``
    (``escenas.access``). Raises ServiceError for another mode. Returns the mode."""
    if mode not in SCENE_MODES:
        raise ServiceError({"mode": _("Choose one of the options.")})
    pref = preference_get_or_create(user=user)
    pref.followed_scenes.remove(scene)
    pref.muted_scenes.remove(scene)
    if mode == FOLLOW:
        pref.followed_scenes.add(scene)
    elif mode == MUTE:
        pref.muted_scenes.add(scene)
    return mode


def notifications_mark_sent(*, post_ids: Iterable[int]) -> int:
    """Record posts as already e-mailed to everyone who would be told about them, without
    sending anything (for history loaded in bulk, e.g. the demo): their e-mails still in the
    outbox are withdrawn, their fan-out is done. Returns the rows written."""
    posts = _posts_for_mail(post_ids)
    recipients = _recipients_by_post(posts)
    rows = [PostNotification(post=p, user=u) for p in posts for u, _view in recipients[p.pk]]
    PostNotification.objects.bulk_create(rows, ignore_conflicts=True)
    Post.objects.filter(pk__in=[p.pk for p in posts]).update(fan_out_pending=False)
    outbox_withdraw(post_topic(post.pk) for post in posts)
    return len(rows)


def unsubscribe_token(*, user_id: int, campaign_id: int | None, scene_id: int | None = None) -> str:
    """The signed token of a one-click unsubscribe link: who, which campaign (None: every
    e-mail, the digest's link) and the scene the e-mail was about (shown on the page). It
    does not expire: an old e-mail's link keeps working. Checked by ``unsubscribe_read``."""
    return signing.dumps({"u": user_id, "c": campaign_id, "s": scene_id}, salt=UNSUBSCRIBE_SALT)


def unsubscribe_url(*, user_id: int, campaign_id: int | None, scene_id: int | None = None) -> str:
    """The absolute one-click unsubscribe link (``unsubscribe_token``)."""
    token = unsubscribe_token(user_id=user_id, campaign_id=campaign_id, scene_id=scene_id)
    return _absolute(reverse("escenas:unsubscribe", kwargs={"token": token}))


def _list_headers(url: str) -> dict[str, str]:
    """RFC 2369 / RFC 8058 headers: mail clients show an unsubscribe button that POSTs."""
    return {
        "List-Unsubscribe": f"<{url}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }


class _PostBodies:
    """The text and HTML bodies of post e-mails, rendered once per post, distinct view and
    reader language and time zone:
    every reader of a scene who sees a post alike (most of them) gets the same bodies but for
    their own unsubscribe link, put in place of a marker (a random token no text contains).
    Rendering the two templates per reader cost most of a post's time in the load test
    (``make load``: 49 readers a post). The templates get no ``user`` for that reason: what
    differs per reader comes from their ``PostView`` or the link."""

    def __init__(self) -> None:
        self.marker = f"unsubscribe-{secrets.token_hex(16)}"
        self._done: dict[tuple[Any, ...], tuple[str, str]] = {}

    def of(
        self, post: Post, view: selectors.PostView, leave: str, mentioned: bool = False
    ) -> tuple[str, str]:
        """The (text, HTML) bodies about ``post`` as ``view`` shows it, linking to ``leave``,
        for a reader the post names when ``mentioned``."""
        # Rendered once per language and time zone too: each reader's own (``as_reader``).
        key = (
            translation.get_language(),
            timezone.get_current_timezone_name(),
            post.pk,
            mentioned,
            *(getattr(view, f.name) for f in fields(view) if f.name != "post"),
        )
        if key not in self._done:
            context = {
                "post": post,
                "view": view,
                "scene": post.scene,
                "campaign": post.scene.campaign,
                "url": _absolute(post.get_absolute_url()),
                "settings_url": _absolute(reverse("escenas:notifications")),
                "unsubscribe_url": self.marker,
                "mentioned": mentioned,
            }
            self._done[key] = (
                render_to_string("escenas/email/post.txt", context),
                render_to_string("escenas/email/post.html", context),
            )
        text, html = self._done[key]
        # The link is URL-safe (a signed token): the same in text and escaped HTML.
        return text.replace(self.marker, leave), html.replace(self.marker, leave)


def _post_message(
    user: Any, post: Post, view: selectors.PostView, bodies: _PostBodies
) -> OutboxMessage:
    """The (unsaved) outbox message telling ``user`` about ``post`` as ``view`` shows it (and
    that it names them: "… te ha mencionado"); ``bodies`` shares the rendering. No query."""
    campaign = post.scene.campaign
    leave = unsubscribe_url(user_id=user.pk, campaign_id=campaign.pk, scene_id=post.scene_id)
    mentioned = any(u.pk == user.pk for u in post.mentions.all())
    body_text, body_html = bodies.of(post, view, leave, mentioned)
    names = {"campaign": campaign.name, "scene": post.scene.title, "speaker": post.speaker_name}
    if mentioned:
        subject = _("[%(campaign)s] %(scene)s: %(speaker)s mentioned you") % names
    elif post.scene.kind == Scene.Kind.DIARY:  # the scene is the diary: "Diario de X, día 7"
        subject = _("[%(campaign)s] %(scene)s, day %(day)s") % {**names, "day": post.day}
    else:
        subject = _("[%(campaign)s] %(scene)s: %(speaker)s") % names
    return message_new(
        to=user.email,
        subject=subject,
        body_text=body_text,
        body_html=body_html,
        headers=_list_headers(leave),
        topic=post_topic(post.pk),
    )


def post_topic(post_id: int) -> str:
    """The outbox topic of the e-mails about a post (``nucleo.mail.outbox_withdraw``)."""
    return f"post:{post_id}"


def digests_send(*, now: datetime.datetime | None = None) -> int:
    """Put in the outbox each digest reader's one e-mail with the posts they would have been
    told about since their last digest (muted campaigns left out). A compare-and-swap on
    ``digest_sent_until``, in the same transaction as the message, makes a second run at the
    same time queue nothing. Returns how many digests were queued."""
    now = now or timezone.now()
    sent = 0
    prefs = list(
        NotificationPreference.objects.filter(
            mode=NotificationPreference.Mode.DIGEST
        ).select_related("user", "user__reader_settings")
    )
    for pref in prefs:
        with transaction.atomic():
            claimed = NotificationPreference.objects.filter(
                pk=pref.pk, digest_sent_until=pref.digest_sent_until
            ).update(digest_sent_until=now)
            if claimed != 1:
                continue
            with as_reader(reader_of(pref.user)):  # the reader's language and zone
                message = _digest_message(pref, now)
            if message is not None:
                sent += outbox_enqueue([message])
    return sent


def _digest_message(pref: NotificationPreference, now: datetime.datetime) -> OutboxMessage | None:
    """The digest of ``pref``'s user from their last digest up to ``now``, or None when there
    is nothing to tell (or no address)."""
    since = pref.digest_sent_until or (now - datetime.timedelta(days=1))
    user = pref.user
    if not user.is_active or not user.email:
        return None
    campaign_ids = Membership.objects.filter(user=user).exclude(
        campaign_id__in=pref.muted_campaigns.values("pk")
    )
    quiet = players_of_the_dead({user.pk}, set(campaign_ids.values_list("campaign_id", flat=True)))
    campaign_ids = campaign_ids.exclude(campaign_id__in=[c for _u, c in quiet])
    candidates = _posts_for_mail(
        Post.objects.filter(
            campaign_id__in=campaign_ids.values("campaign_id"),
            created_at__gt=since,
            created_at__lte=now,
        )
        .exclude(author=user)
        # A muted scene is left out; a followed one is e-mailed post by post instead.
        .exclude(scene__in=pref.muted_scenes.all())
        .exclude(scene__in=pref.followed_scenes.all())
        .values_list("pk", flat=True)
    )
    recipients = _recipients_by_post(candidates, only={(p.pk, user.pk) for p in candidates})
    items = [
        (post, view, _absolute(post.get_absolute_url()))
        for post in candidates
        for recipient, view in recipients[post.pk]
        if recipient.pk == user.pk
    ]
    if not items:
        return None
    campaigns = {post.scene.campaign_id: post.scene.campaign for post, _v, _u in items}
    leave_all = unsubscribe_url(user_id=user.pk, campaign_id=None)
    context = {
        "user": user,
        "items": items,
        "settings_url": _absolute(reverse("escenas:notifications")),
        "unsubscribe_url": leave_all,
        "campaign_links": [
            (c.name, unsubscribe_url(user_id=user.pk, campaign_id=c.pk))
            for c in sorted(campaigns.values(), key=lambda c: c.name)
        ],
    }
    return message_new(
        to=user.email,
        subject=_("Partida: %(n)s new posts") % {"n": len(items)},
        body_text=render_to_string("escenas/email/digest.txt", context),
        headers=_list_headers(leave_all),
    )
