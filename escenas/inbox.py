"""«Mi mesa»: one inbox across a user's campaigns (issue 15 item 5). Reads only (a selector).

For the signed-in user, over every campaign they are a member of:

- **campaigns** with the unread posts of each (the same count as the scene list: visible posts
  after the read marker, not one's own, in the scenes one may read);
- **waiting on me**: the story scenes where one of my living characters takes part and the last
  post everyone can see (not deleted, not a whisper) is someone else's, and the scenes where
  the master asked one of my characters for a roll;
- **my roll requests**: the master's pending requests to my characters;
- for the campaigns I **master**, every pending item (``master_pending_batch``): sheets to
  review, roll thresholds to set, roll requests not answered yet, requests to enter a scene,
  characters in danger (``personajes.forecast``), each with the one link that deals with it.

Every item is a plain ``InboxItem`` (kind, label, url, campaign, when), the same for the page,
the Atom feed and the API. Who sees what is ``escenas.access``'s (``scenes_readable_q``,
``posts_visible_q``; the role from the membership): a player sees their own things, a master
their campaigns'.

Queries (constant in the number of campaigns, scenes and posts): memberships (1), the user's
characters (1), unread counts (1), waiting scenes (1), my roll requests (1); a master adds sheets,
thresholds, requests, join requests (4) and the forecasts (5; none when no living character).
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Exists, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.translation import gettext as _

from escenas.access import posts_visible_q, scenes_readable_q
from escenas.models import JoinRequest, Post, PostRoll, RollRequest, Scene, SceneRead
from mundo.access import is_master_role
from mundo.models import Campaign, Membership
from nucleo.users import AnyUser
from personajes.access import CharacterViewer, member_viewers
from personajes.forecast import campaigns_forecasts
from personajes.models import Character, Roll

KINDS = ("waiting", "roll_request", "sheet", "threshold", "request", "join", "danger")
"""Item kinds: ``waiting`` (a scene waits on my post), ``roll_request`` (the master asks me for a
roll); the master's: ``sheet``, ``threshold``, ``request`` (asked, not rolled yet), ``join``,
``danger``."""


@dataclass(frozen=True, slots=True)
class InboxItem:
    """One thing to deal with: ``kind`` (see ``KINDS``), a stable ``key`` (kind and row id: the
    feed entry's id), a translated ``label``, the ``url`` that deals with it (a path), its
    campaign and ``when`` it began (None: no date, as a forecast)."""

    kind: str
    key: str
    label: str
    url: str
    campaign: Campaign
    when: datetime.datetime | None = None


@dataclass(frozen=True, slots=True)
class InboxCampaign:
    """A campaign of mine: my ``role`` in it, my ``unread`` posts there and, when I master it,
    its ``pending`` items."""

    campaign: Campaign
    role: str
    unread: int
    pending: list[InboxItem] = field(default_factory=list)

    @property
    def is_master(self) -> bool:
        return is_master_role(self.role)


@dataclass(frozen=True, slots=True)
class Inbox:
    """The user's inbox: ``campaigns`` (by name), ``waiting`` scenes, my ``roll_requests``."""

    campaigns: list[InboxCampaign]
    waiting: list[InboxItem]
    roll_requests: list[InboxItem]

    @property
    def unread(self) -> int:
        return sum(c.unread for c in self.campaigns)

    @property
    def pending(self) -> list[InboxItem]:
        """Every master item of every campaign, campaign by campaign."""
        return [item for c in self.campaigns for item in c.pending]

    @property
    def items(self) -> list[InboxItem]:
        """Everything to deal with (the feed's entries): mine first, then the master's."""
        return [*self.roll_requests, *self.waiting, *self.pending]


def _scene_url(scene: Scene, suffix: str = "") -> str:
    return reverse("escenas:scene", kwargs={"slug": scene.campaign.slug, "pk": scene.pk}) + suffix


def _unread(user: AnyUser, viewers: dict[int, CharacterViewer]) -> dict[int, int]:
    """Unread posts per campaign id (one query; the scene list's count, summed)."""
    readable = Q()
    for cid, viewer in viewers.items():
        readable |= Q(campaign_id=cid) & scenes_readable_q(viewer)
    mastered = [cid for cid, v in viewers.items() if v.is_master]
    played = [v for v in viewers.values() if not v.is_master]
    visible = Q(campaign_id__in=mastered)
    if played:  # a player's post filter depends on the user only, not on the campaign
        visible |= Q(campaign_id__in=[cid for cid, v in viewers.items() if not v.is_master]) & (
            posts_visible_q(played[0])
        )
    uid = int(user.pk or 0)
    marker = SceneRead.objects.filter(scene_id=OuterRef("scene_id"), user_id=uid).values(
        "last_post_id"
    )[:1]
    rows = (
        Post.objects.filter(scene__in=Scene.objects.filter(readable).values("pk"))
        .filter(visible)
        .exclude(author_id=user.pk)
        .filter(pk__gt=Coalesce(Subquery(marker), 0))
        .order_by()
        .values("campaign_id")
        .annotate(n=Count("id"))
    )
    return {row["campaign_id"]: row["n"] for row in rows}


def _waiting(user: AnyUser, played: list[int]) -> list[Scene]:
    """Story scenes of ``played`` campaigns with a living character of mine whose last public
    post is not mine (one query)."""
    if not played:
        return []
    public = Post.objects.filter(scene_id=OuterRef("pk"), deleted_at__isnull=True, is_whisper=False)
    mine = Exists(
        Scene.participants.through.objects.filter(
            scene_id=OuterRef("pk"),
            character__player_id=user.pk,
            character__status=Character.Status.APPROVED,
        )
    )
    return list(
        Scene.objects.filter(campaign_id__in=played, kind=Scene.Kind.STORY)
        .filter(mine)
        .annotate(
            last_id=Subquery(public.order_by("-id").values("id")[:1]),
            last_author=Subquery(public.order_by("-id").values("author_id")[:1]),
        )
        .filter(last_id__isnull=False)
        .exclude(last_author=user.pk)
        .select_related("campaign")
        .order_by("-last_post_at", "-id")
    )


def _my_requests(user: AnyUser, played: list[int]) -> list[RollRequest]:
    if not played:
        return []
    return list(
        RollRequest.objects.filter(
            scene__campaign_id__in=played,
            character__player_id=user.pk,
            character__status__in=Character.LIVING_STATUSES,
            fulfilled_roll__isnull=True,
            cancelled_at__isnull=True,
        ).select_related("scene__campaign", "character", "trait")
    )


def inbox_for(user: AnyUser) -> Inbox:
    """The inbox of a signed-in ``user`` (see the module docstring for what and its queries).
    An anonymous user has an empty inbox (no query)."""
    if user is None or not user.is_authenticated:
        return Inbox(campaigns=[], waiting=[], roll_requests=[])
    memberships = list(
        Membership.objects.filter(user_id=user.pk)
        .select_related("campaign", "user")
        .order_by("campaign__name", "campaign_id")
    )
    if not memberships:
        return Inbox(campaigns=[], waiting=[], roll_requests=[])
    viewers = {
        cid: viewer
        for (cid, _uid), viewer in member_viewers({m.campaign_id: [m] for m in memberships}).items()
    }
    unread = _unread(user, viewers)
    played = [m.campaign_id for m in memberships if not is_master_role(m.role)]
    mastered = [m.campaign for m in memberships if is_master_role(m.role)]
    pending = master_pending_batch(mastered)
    requests = _my_requests(user, played)
    waiting_scenes = _waiting(user, played)
    roll_requests = [
        InboxItem(
            kind="roll_request",
            key=f"roll_request-{r.pk}",
            label=_("The master asks %(name)s for a roll of %(trait)s in “%(scene)s”")
            % {"name": r.character.name, "trait": r.trait.name, "scene": r.scene.title},
            url=_scene_url(r.scene, "?page=last#post-form"),
            campaign=r.scene.campaign,
            when=r.created_at,
        )
        for r in requests
    ]
    asked = {r.scene_id for r in requests}
    waiting = [
        InboxItem(
            kind="waiting",
            key=f"waiting-{s.pk}-{s.last_id}",  # type: ignore[attr-defined]
            label=_("“%(scene)s” waits for your post") % {"scene": s.title},
            url=_scene_url(s),
            campaign=s.campaign,
            when=s.last_post_at,
        )
        for s in waiting_scenes
        if s.pk not in asked  # listed with its roll request already
    ]
    campaigns = [
        InboxCampaign(
            campaign=m.campaign,
            role=m.role,
            unread=unread.get(m.campaign_id, 0),
            pending=pending.get(m.campaign_id, []),
        )
        for m in memberships
    ]
    return Inbox(campaigns=campaigns, waiting=waiting, roll_requests=roll_requests)


# --- The master's pending items -----------------------------------------------------------------


def _sheets(by_id: dict[int, Campaign]) -> list[InboxItem]:
    rows = (
        Character.objects.filter(campaign_id__in=list(by_id), status=Character.Status.SUBMITTED)
        .select_related("player")
        .order_by("updated_at", "pk")
    )
    return [
        InboxItem(
            kind="sheet",
            key=f"sheet-{c.pk}",
            label=_("Sheet of %(name)s (%(player)s) waiting for your review")
            % {"name": c.name, "player": c.player.get_username() if c.player else "?"},
            url=reverse("personajes:review", kwargs={"pk": c.pk}),
            campaign=by_id[c.campaign_id],
            when=c.updated_at,
        )
        for c in rows
    ]


def _thresholds(by_id: dict[int, Campaign]) -> list[InboxItem]:
    rows = (
        PostRoll.objects.filter(
            post__campaign_id__in=list(by_id),
            post__deleted_at__isnull=True,
            roll__base_threshold__isnull=True,
            roll__kind__in=(Roll.Kind.ACTION, Roll.Kind.EVENT),
        )
        .select_related("roll", "roll__character", "post__scene")
        .order_by("roll__created_at", "pk")
    )
    out = []
    for pr in rows:
        roll, scene = pr.roll, pr.post.scene
        what = roll.trait_name if roll.kind == Roll.Kind.ACTION else roll.get_kind_display()
        who = roll.character.name if roll.character else pr.post.speaker_name
        out.append(
            InboxItem(
                kind="threshold",
                key=f"threshold-{pr.pk}",
                label=_("Set the threshold of %(who)s's roll (%(what)s) in “%(scene)s”")
                % {"who": who, "what": what, "scene": scene.title},
                url=reverse(
                    "escenas:post",
                    kwargs={"slug": by_id[pr.post.campaign_id].slug, "pk": pr.post_id},
                ),
                campaign=by_id[pr.post.campaign_id],
                when=roll.created_at,
            )
        )
    return out


def _requests(by_id: dict[int, Campaign]) -> list[InboxItem]:
    rows = RollRequest.objects.filter(
        scene__campaign_id__in=list(by_id), fulfilled_roll__isnull=True, cancelled_at__isnull=True
    ).select_related("scene", "character", "trait")
    return [
        InboxItem(
            kind="request",
            key=f"request-{r.pk}",
            label=_("%(name)s has not rolled %(trait)s yet in “%(scene)s”")
            % {"name": r.character.name, "trait": r.trait.name, "scene": r.scene.title},
            url=reverse(
                "escenas:scene", kwargs={"slug": by_id[r.scene.campaign_id].slug, "pk": r.scene_id}
            )
            + "?page=last#requests",
            campaign=by_id[r.scene.campaign_id],
            when=r.created_at,
        )
        for r in rows
    ]


def _joins(by_id: dict[int, Campaign]) -> list[InboxItem]:
    rows = JoinRequest.objects.filter(
        scene__campaign_id__in=list(by_id), status=JoinRequest.Status.PENDING
    ).select_related("scene", "character", "character__player")
    return [
        InboxItem(
            kind="join",
            key=f"join-{r.pk}",
            label=_("%(name)s (%(player)s) asks to enter “%(scene)s”")
            % {
                "name": r.character.name,
                "player": r.character.player.get_username() if r.character.player else "?",
                "scene": r.scene.title,
            },
            url=by_id[r.scene.campaign_id].get_absolute_url() + "#pending",
            campaign=by_id[r.scene.campaign_id],
            when=r.created_at,
        )
        for r in rows
    ]


def _dangers(campaigns: Sequence[Campaign]) -> list[InboxItem]:
    by_id = {c.pk: c for c in campaigns}
    return [
        InboxItem(
            kind="danger",
            key=f"danger-{cf.character.pk}-{by_id[cid].current_day}",
            label=_("%(name)s is in danger") % {"name": cf.character.name},
            url=cf.character.get_absolute_url(),
            campaign=by_id[cid],
        )
        for cid, found in campaigns_forecasts(campaigns).items()
        for cf in found
        if cf.forecast.danger
    ]


def master_pending_batch(campaigns: Sequence[Campaign]) -> dict[int, list[InboxItem]]:
    """Every pending item of each campaign (the caller masters them all), keyed by campaign id:
    sheets to review, thresholds to set, roll requests not answered, requests to enter a scene,
    characters in danger, in that order. Nine queries whatever the number of campaigns (four
    when none has a living character; none for no campaign). Source: RULES.md R3 (thresholds),
    R6, R10, R15 (danger)."""
    if not campaigns:
        return {}
    by_id = {c.pk: c for c in campaigns}
    out: dict[int, list[InboxItem]] = defaultdict(list)
    found = [
        *_sheets(by_id),
        *_thresholds(by_id),
        *_requests(by_id),
        *_joins(by_id),
        *_dangers(campaigns),
    ]
    for item in found:
        out[item.campaign.pk].append(item)
    return dict(out)


def item_fields(item: InboxItem) -> dict[str, Any]:
    """An item as plain values (the API's and the tests' view of it)."""
    return {
        "kind": item.kind,
        "key": item.key,
        "label": item.label,
        "url": item.url,
        "campaign": item.campaign.slug,
        "when": item.when,
    }
