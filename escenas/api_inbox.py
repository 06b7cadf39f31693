"""GET /api/v1/inbox/ — «Mi mesa» for REST clients: the same ``escenas.inbox`` as the page and
the feed, so the same items with the same rights (the user's own roll requests and waiting
scenes; the pending items of the campaigns they master; unread counts of every campaign)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import generics, permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from escenas.inbox import KINDS, inbox_for
from mundo.api import errors


class InboxItemSerializer(serializers.Serializer):
    """One thing to deal with."""

    kind = serializers.ChoiceField(
        choices=list(KINDS),
        read_only=True,
        help_text=gettext_lazy(
            "waiting (a scene waits for your post), roll_request (the master asks you for a "
            "roll); for masters: sheet, threshold, request, join, danger."
        ),
    )
    key = serializers.CharField(
        read_only=True, help_text=gettext_lazy("A stable id: the kind and the row's id.")
    )
    label = serializers.CharField(  # type: ignore[assignment]  # the field, not Field.label
        read_only=True, help_text=gettext_lazy("What it is, in words.")
    )
    url = serializers.CharField(
        read_only=True, help_text=gettext_lazy("The page that deals with it (a path).")
    )
    campaign = serializers.SlugField(
        source="campaign.slug", read_only=True, help_text=gettext_lazy("The campaign's slug.")
    )
    when = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("Since when (ISO 8601), or null (a forecast)."),
    )


class InboxCampaignSerializer(serializers.Serializer):
    """One of my campaigns."""

    slug = serializers.SlugField(source="campaign.slug", read_only=True)
    name = serializers.CharField(source="campaign.name", read_only=True)
    role = serializers.CharField(read_only=True, help_text=gettext_lazy("master or player."))
    unread = serializers.IntegerField(
        read_only=True, help_text=gettext_lazy("Posts you have not read yet.")
    )
    pending = InboxItemSerializer(
        many=True, read_only=True, help_text=gettext_lazy("Masters: what waits for you.")
    )


class InboxSerializer(serializers.Serializer):
    """My inbox across campaigns."""

    unread = serializers.IntegerField(read_only=True)
    campaigns = InboxCampaignSerializer(many=True, read_only=True)
    roll_requests = InboxItemSerializer(many=True, read_only=True)
    waiting = InboxItemSerializer(many=True, read_only=True)


@extend_schema(
    tags=["inbox"],
    summary="My inbox across campaigns («Mi mesa»)",
    responses={200: InboxSerializer, **errors()},
)
class InboxView(generics.GenericAPIView):
    """GET /api/v1/inbox/ — my campaigns with unread counts, my roll requests, the scenes
    waiting for my post and, for the campaigns I master, their pending items."""

    permission_classes = [permissions.IsAuthenticated]
    serializer_class = InboxSerializer

    def get(self, request: Request) -> Response:
        inbox = inbox_for(request.user)
        return Response(
            InboxSerializer(
                {
                    "unread": inbox.unread,
                    "campaigns": inbox.campaigns,
                    "roll_requests": inbox.roll_requests,
                    "waiting": inbox.waiting,
                }
            ).data
        )
