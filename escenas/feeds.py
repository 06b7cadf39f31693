"""Atom feeds of scenes (story scenes, off-topic, diaries): the last posts a reader may see.

A public scene's feed needs no secret; any other scene's feed is read through the user's private
token URL (``/feeds/<token>/…``), which the user can revoke or regenerate. Either way the feed is
built with the same permission functions as the page (``escenas.access.access_scene``,
``scene_posts``) for that user — anonymous for the public URL — so it shows nothing the page
would not. A missing or hidden scene, or an unknown token, raises ``NotFound``: the same 404 as
the pages (``partida.middleware.AccessErrorMiddleware``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.syndication.views import Feed
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext as _

from escenas import selectors
from escenas.access import SceneAccess, access_scene, visible_posts
from escenas.models import NotificationPreference
from nucleo.errors import NotFound

FEED_ITEMS = 30
"""Posts in a feed."""


def feed_posts(access: SceneAccess) -> list[selectors.PostView]:
    """The last ``FEED_ITEMS`` visible posts of the scene, newest first, as the viewer sees
    them: their ids on the scene's index, then their rows (``escenas.access.visible_posts``)."""
    newest = visible_posts(access.scene, access.viewer).order_by("-id").values("id")
    posts = selectors.scene_posts(access.scene, access.viewer)
    qs = posts.filter(pk__in=newest[:FEED_ITEMS]).order_by("-id")
    return [selectors.post_view(p, access.viewer) for p in qs]


class SceneFeed(Feed):
    """The scene's last ``FEED_ITEMS`` visible posts, newest first."""

    feed_type = Atom1Feed

    def get_object(
        self, request: HttpRequest, slug: str, pk: int, token: str | None = None
    ) -> SceneAccess:
        user: Any = access_feed_user(token) if token is not None else AnonymousUser()
        access = access_scene(user, pk, slug=slug)
        self._request = request
        return access

    def title(self, obj: SceneAccess) -> str:
        return f"{obj.scene.title} · {obj.scene.campaign.name}"

    def link(self, obj: SceneAccess) -> str:
        return obj.scene.get_absolute_url()

    def subtitle(self, obj: SceneAccess) -> str:
        return obj.scene.summary or _("Posts of the scene")

    def items(self, obj: SceneAccess) -> list[selectors.PostView]:
        return feed_posts(obj)

    def item_title(self, item: selectors.PostView) -> str:
        return item.post.speaker_name

    def item_description(self, item: selectors.PostView) -> str:
        return render_to_string("escenas/feed_item.html", {"view": item})

    def item_link(self, item: selectors.PostView) -> str:
        return item.post.get_absolute_url()

    def item_guid(self, item: selectors.PostView) -> str:
        return f"partida-post-{item.post.pk}"

    item_guid_is_permalink = False

    def item_pubdate(self, item: selectors.PostView) -> Any:
        return item.post.created_at

    def item_updateddate(self, item: selectors.PostView) -> Any:
        return item.post.updated_at

    def item_author_name(self, item: selectors.PostView) -> str:
        return item.post.speaker_name


def access_feed_user(token: str) -> Any:
    """The user whose private feed token is ``token``; ``NotFound`` for an unknown or revoked
    one, or an inactive user."""
    if not token:
        raise NotFound("No such feed")
    pref = NotificationPreference.objects.select_related("user").filter(feed_token=token).first()
    if pref is None or not pref.user.is_active:
        raise NotFound("No such feed")
    return pref.user
