"""«Mi mesa» (issue 15 item 5): the signed-in user's inbox across campaigns, as a page and as an
Atom feed behind the user's private feed token (the same secret as the scenes' private feeds,
``NotificationPreference.feed_token``: revoked or regenerated on the notifications page).
Both read ``escenas.inbox.inbox_for``; an unknown token is the same 404 as the scene feeds."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.syndication.views import Feed
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext as _

from escenas import selectors
from escenas.feeds import access_feed_user
from escenas.inbox import Inbox, InboxItem, inbox_for


@login_required
def inbox(request: HttpRequest) -> HttpResponse:
    """The page: what waits for me, my campaigns with their unread posts and, for those I
    master, their pending items, each one link away."""
    mine = inbox_for(request.user)
    pref = selectors.preference_for(request.user)
    feed_url = (
        reverse("escenas:inbox_feed", kwargs={"token": pref.feed_token})
        if pref is not None and pref.feed_token
        else None
    )
    return render(request, "escenas/inbox.html", {"inbox": mine, "feed_url": feed_url})


class InboxFeed(Feed):
    """The inbox's items as Atom entries (mine first, then the master's), newest state each
    time it is read: an entry leaves the feed when it is dealt with."""

    feed_type = Atom1Feed

    def get_object(self, request: HttpRequest, token: str) -> tuple[Any, Inbox]:
        user = access_feed_user(token)
        return user, inbox_for(user)

    def title(self, obj: tuple[Any, Inbox]) -> str:
        return _("My table · %(user)s") % {"user": obj[0].get_username()}

    def link(self, obj: tuple[Any, Inbox]) -> str:
        return reverse("escenas:inbox")

    def subtitle(self, obj: tuple[Any, Inbox]) -> str:
        return _("What waits for you in your campaigns")

    def items(self, obj: tuple[Any, Inbox]) -> list[InboxItem]:
        return obj[1].items

    def item_title(self, item: InboxItem) -> str:
        return item.label

    def item_description(self, item: InboxItem) -> str:
        return item.campaign.name if item.campaign else ""

    def item_link(self, item: InboxItem) -> str:
        return item.url

    def item_guid(self, item: InboxItem) -> str:
        return f"partida-inbox-{item.key}"

    item_guid_is_permalink = False

    def item_pubdate(self, item: InboxItem) -> Any:
        return item.when
