"""REST API of requests to enter a story scene ("pedir entrar", ``escenas.joining``): a player
asks for their approved character, the master lists the campaign's pending requests and lets
the character in or declines. The same services as the scene page and the master's pending
list, so the same checks: a scene the user cannot read is a 404, a non-master's list or
decision is a 404 (master pages do not reveal themselves), a refusal is a 400 with its field.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from escenas import joining
from escenas.api import scene_access_for_api
from escenas.models import JoinRequest
from mundo.access import access_campaign
from mundo.api import PageNumberPagination, errors
from nucleo.serializers import StrictSerializer


class JoinRequestSerializer(serializers.ModelSerializer):
    """A request that a character enter a story scene."""

    scene = serializers.IntegerField(
        source="scene_id", read_only=True, help_text=gettext_lazy("Id of the story scene.")
    )
    scene_title = serializers.CharField(
        source="scene.title", read_only=True, help_text=gettext_lazy("The scene's title.")
    )
    character = serializers.IntegerField(
        source="character_id", read_only=True, help_text=gettext_lazy("Id of the character.")
    )
    character_name = serializers.CharField(
        source="character.name", read_only=True, help_text=gettext_lazy("The character's name.")
    )
    created_at = serializers.DateTimeField(
        read_only=True, help_text=gettext_lazy("When it was asked (ISO 8601).")
    )
    decided_at = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("When the master decided (ISO 8601), or null: pending."),
    )
    status = serializers.CharField(
        read_only=True, help_text=gettext_lazy("pending, accepted (let in) or declined.")
    )

    class Meta:
        model = JoinRequest
        fields = [
            "id",
            "scene",
            "scene_title",
            "character",
            "character_name",
            "status",
            "created_at",
            "decided_at",
        ]


class JoinRequestCreateSerializer(StrictSerializer):
    """Which of my approved characters asks to enter."""

    character = serializers.IntegerField(help_text=gettext_lazy("Id of my approved character."))


class JoinDecisionSerializer(StrictSerializer):
    """The master's decision."""

    accept = serializers.BooleanField(
        help_text=gettext_lazy("true: the character enters the scene; false: declined.")
    )


class SceneJoinRequestView(generics.GenericAPIView):
    """POST /api/v1/scenes/{id}/join-requests/."""

    queryset = JoinRequest.objects.none()  # for the schema's path parameter
    serializer_class = JoinRequestCreateSerializer

    @extend_schema(
        tags=["scenes"],
        request=JoinRequestCreateSerializer,
        responses={201: JoinRequestSerializer, **errors(400, 404)},
    )
    def post(self, request: Request, pk: int) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        access = scene_access_for_api(pk, request.user)
        form = JoinRequestCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        made = joining.join_request_create(
            access=access, user=request.user, character_id=form.validated_data["character"]
        )
        return Response(JoinRequestSerializer(made).data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["campaigns"], responses={200: JoinRequestSerializer, **errors(404)})
class CampaignJoinRequestListView(generics.ListAPIView):
    """GET /api/v1/campaigns/{slug}/join-requests/: the pending requests, oldest first
    (paginated). The campaign's master only."""

    serializer_class = JoinRequestSerializer
    pagination_class = PageNumberPagination
    filter_backends: list[type] = []

    def get_queryset(self) -> QuerySet[JoinRequest]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return JoinRequest.objects.none()
        if not self.request.user.is_authenticated:
            raise NotAuthenticated()
        campaign = access_campaign(self.request.user, slug=self.kwargs["slug"], master=True)[0]
        return (
            JoinRequest.objects.filter(scene__campaign=campaign, status=JoinRequest.Status.PENDING)
            .select_related("scene", "character")
            .order_by("created_at", "id")
        )


class JoinRequestDecisionView(generics.GenericAPIView):
    """POST /api/v1/join-requests/{id}/decision/."""

    queryset = JoinRequest.objects.none()  # for the schema's path parameter
    serializer_class = JoinDecisionSerializer

    @extend_schema(
        tags=["campaigns"],
        request=JoinDecisionSerializer,
        responses={200: JoinRequestSerializer, **errors(400, 404)},
    )
    def post(self, request: Request, pk: int) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        slug: Any = (
            JoinRequest.objects.filter(pk=pk)
            .values_list("scene__campaign__slug", flat=True)
            .first()
        )
        # 404 for a missing request and for a campaign the user does not master alike.
        campaign = access_campaign(request.user, slug=slug or "", master=True)[0]
        form = JoinDecisionSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        decided = joining.join_request_decide(
            campaign=campaign,
            master=request.user,
            request_id=pk,
            accept=form.validated_data["accept"],
        )
        return Response(JoinRequestSerializer(decided).data)
