"""A scene's version: what its posts look like now, read in the same query as the access check
(``escenas.access.access_scene(..., with_version=True)``): the key of the scene page's kept
pieces (``escenas.fragments``, ``escenas.scene_pages``) and the poll's "nothing new"."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Exists, JSONField, Max, OuterRef, Subquery
from django.db.models.functions import JSONObject

from escenas.combat_models import Combat
from escenas.models import Draft, Post, RollRequest, Scene, SceneRead
from nucleo.users import AnyUser


@dataclass(frozen=True, slots=True)
class SceneVersion:
    """What the scene's posts look like now, read in the same query as the access
    (``access_scene(..., with_version=True)``): ``posts`` how many rows (deleted ones too),
    ``last_id`` the newest id, ``updated`` the newest ``updated_at`` as whole microseconds since
    the epoch (every write that changes what a post shows bumps it: ``escenas.fragments``),
    ``last_read`` the viewer's read marker (None anonymous, 0 never opened), ``fights``
    whether the scene has any fight (none: the combat panel needs no query), ``requests``
    whether it has a pending roll request and ``draft`` whether the viewer has a draft in it
    (none: the page reads none; ``True`` means "may have": read it)."""

    posts: int
    last_id: int
    updated: int
    last_read: int | None
    fights: bool = True
    requests: bool = True
    draft: bool = True

    @property
    def token(self) -> str:
        """The posts' part of a cache key (the read marker is not in it)."""
        return f"{self.posts}.{self.last_id}.{self.updated}"

    def unchanged_since(self, *, after: int, since: datetime.datetime) -> bool:
        """True when no post of the scene, visible to anyone or not, has an id above ``after``
        or was updated after ``since`` (aware): then a poll's ``posts_after`` and
        ``posts_changed``, which look at a subset of those posts with those same filters,
        are both empty, and it needs no post query (the usual poll: nothing new)."""
        return self.last_id <= after and self.updated <= micros(since)


def version_annotations(user_id: int | None, *, page: bool = False) -> dict[str, Any]:
    """``SceneVersion``'s columns as subqueries on Scene: its posts' count, newest id and
    newest ``updated_at`` as one JSON object (``v_posts``: one pass over the scene's posts,
    not three, and one subquery to build and plan), whether it has a fight, and the viewer's
    read marker; with ``page`` (the scene page, not the poll) also whether it has a pending
    roll request and whether the viewer has a draft there. ``user_id`` is the viewer's (None
    anonymous)."""
    posts = Post.objects.filter(scene=OuterRef("pk")).order_by().values("scene")
    totals = JSONObject(n=Count("id"), last=Max("id"), at=Max("updated_at"))
    out: dict[str, Any] = {
        "v_posts": Subquery(posts.annotate(v=totals).values("v")[:1], output_field=JSONField()),
        "v_fights": Exists(Combat.objects.filter(scene=OuterRef("pk"))),
    }
    if page:
        pending = RollRequest.objects.filter(
            scene=OuterRef("pk"), fulfilled_roll__isnull=True, cancelled_at__isnull=True
        )
        out["v_requests"] = Exists(pending)
    if user_id is not None:
        read = SceneRead.objects.filter(scene=OuterRef("pk"), user_id=user_id)
        out["v_read"] = Subquery(read.values("last_post_id")[:1])
        if page:
            drafts = Draft.objects.filter(scene=OuterRef("pk"), user_id=user_id)
            out["v_draft"] = Exists(drafts)
    return out


_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def micros(moment: datetime.datetime) -> int:
    """An aware datetime as whole microseconds since the epoch (integer arithmetic, exact)."""
    return (moment - _EPOCH) // datetime.timedelta(microseconds=1)


def _json_moment(text: str | None) -> int:
    """A ``DateTimeField`` as JSON gives it (PostgreSQL: ISO 8601 with its offset; SQLite: the
    stored UTC text, without one) in microseconds since the epoch; 0 for none."""
    if not text:
        return 0
    moment = datetime.datetime.fromisoformat(text)
    return micros(moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC))


def scene_version(scene: Scene, user: AnyUser | None) -> SceneVersion:
    """The ``SceneVersion`` of a scene fetched with ``version_annotations``."""
    totals = getattr(scene, "v_posts", None) or {}  # no posts: no row, NULL
    read = getattr(scene, "v_read", None)
    return SceneVersion(
        posts=totals.get("n") or 0,
        last_id=totals.get("last") or 0,
        updated=_json_moment(totals.get("at")),
        last_read=(read or 0) if user is not None and user.is_authenticated else None,
        fights=bool(scene.v_fights),  # type: ignore[attr-defined]
        # Not asked (the poll): True, "may have".
        requests=bool(getattr(scene, "v_requests", True)),
        draft=bool(getattr(scene, "v_draft", user is not None and user.is_authenticated)),
    )
