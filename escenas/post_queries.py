"""The querysets posts are shown from: what ``escenas.selectors.post_view`` reads of each post
(its rolls, whisper recipients, revision count and the line of the post it answers), in one
place for the scene pages, the campaign-wide lookups of ``escenas.access`` and the HTML
archive. No visibility filter here: the callers check it (``escenas.access``).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import (
    Count,
    F,
    IntegerField,
    OuterRef,
    Prefetch,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce

from escenas.models import Post, PostRevision, PostRoll
from mundo.models import Campaign


def post_prefetches() -> tuple[Prefetch, Prefetch]:
    """What ``post_view`` reads of each post: its rolls in order (with the roll, its character
    and trait, and the request) and its whisper recipients by username."""
    return (
        Prefetch(
            "post_rolls",
            queryset=PostRoll.objects.select_related(
                "roll", "roll__character", "roll__trait", "request"
            ).order_by("position", "id"),
        ),
        Prefetch("whisper_to", queryset=get_user_model().objects.order_by("username")),
    )


def reply_annotations() -> dict[str, F]:
    """What a post's reply line reads of the post it answers (``reply_speaker``,
    ``reply_whisper``, ``reply_deleted_at``): one LEFT JOIN in the posts' own query, none of
    the answered post's text. ``escenas.selectors.post_view`` decides who sees the line."""
    return {
        "reply_speaker": F("reply_to__speaker_name"),
        "reply_whisper": F("reply_to__is_whisper"),
        "reply_deleted_at": F("reply_to__deleted_at"),
    }


def revision_count() -> Coalesce:
    """A post's number of stored revisions (int, 0 for an unedited post), for ``annotate``.

    A correlated subquery, not ``Count()`` over a join: a join would GROUP BY every column
    of the post (its whole text) on every page."""
    counted = (
        PostRevision.objects.filter(post=OuterRef("pk"))
        .order_by()
        .values("post")
        .annotate(n=Count("id"))
        .values("n")[:1]
    )
    return Coalesce(Subquery(counted), 0, output_field=IntegerField())


def campaign_posts(campaign: Campaign) -> QuerySet[Post]:
    """Every post of the campaign with what ``escenas.selectors.post_view`` needs (no
    visibility filter: callers check ``post_visible_to``). Three queries when evaluated (posts,
    rolls, whisper recipients)."""
    return (
        Post.objects.filter(campaign=campaign)
        .select_related("character", "author", "scene", "campaign", "deleted_by", "npc")
        .prefetch_related(*post_prefetches())
        .annotate(revision_count=revision_count(), **reply_annotations())
    )
