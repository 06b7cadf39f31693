"""Atom feeds of scenes (story scenes, off-topic, diaries): the last posts a reader may see.

A public scene's feed needs no secret; any other scene's feed is read through the user's private
token URL (``/feeds/<token>/…``), which the user can revoke or regenerate. Either way the feed is
built with the same permission functions as the page (``scene_get_for_user``, ``scene_posts``)
for that user — anonymous for the public URL — so it shows nothing the page would not.
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
from mundo.selectors import campaign_get_for_user


class SceneFeed(Feed):
    """The scene's last ``selectors.FEED_ITEMS`` visible posts, newest first."""

    feed_type = Atom1Feed

    def get_object(  # type: ignore[override]
        self, request: HttpRequest, slug: str, pk: int, token: str | None = None
    ) -> selectors.SceneAccess:
        user: Any = selectors.feed_user(token) if token is not None else AnonymousUser()
        campaign = campaign_get_for_user(slug=slug, user=user)
        access = selectors.scene_get_for_user(campaign=campaign, pk=pk, user=user)
        self._request = request
        return access

    def title(self, obj: selectors.SceneAccess) -> str:
        return f"{obj.scene.title} · {obj.scene.campaign.name}"

    def link(self, obj: selectors.SceneAccess) -> str:
        return obj.scene.get_absolute_url()

    def subtitle(self, obj: selectors.SceneAccess) -> str:
        return obj.scene.summary or _("Posts of the scene")

    def items(self, obj: selectors.SceneAccess) -> list[selectors.PostView]:
        return selectors.feed_posts(obj)

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
