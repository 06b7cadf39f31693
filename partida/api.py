"""The REST API's URLs (/api/v1/), the token endpoints, the schema views and the error handler.

Every app keeps its serializers and views in its own ``api.py`` (``mundo.api``,
``personajes.api``, ``escenas.api``); this module only wires them under the ``v1`` namespace
(DRF's NamespaceVersioning reads the version from it) and adds what belongs to the project:
the user's own API tokens (``partida.services``), the OpenAPI schema (drf-spectacular) with
Swagger UI and ReDoc, and the exception handler that turns a service's ``ServiceError`` (a
Django ValidationError) into a 400 with field-level messages.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.csp import CSP
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csp import csp_override
from drf_spectacular.utils import OpenApiResponse, extend_schema
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework import exceptions, generics, permissions, serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.exceptions import ValidationError as DrfValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

import mundo.converters  # noqa: F401 — registers <id:…>
from escenas import api as escenas_api
from escenas import api_combat as escenas_api_combat
from escenas import api_combat_write as escenas_api_combat_write
from escenas import api_inbox as escenas_api_inbox
from escenas import api_joining as escenas_api_joining
from escenas import api_rolls as escenas_api_rolls
from mundo import api as mundo_api
from mundo.api import errors
from nucleo.errors import Forbidden, NotFound
from nucleo.serializers import StrictSerializer
from partida import services
from partida.models import ApiToken
from personajes import api as personajes_api
from personajes import api_diary as personajes_api_diary
from personajes import api_movements as personajes_api_movements

app_name = "v1"


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, plus: a Django ValidationError (a service's ``ServiceError``) is a 400
    with its messages under their fields (``non_field_errors`` for a plain message); the access
    errors are the API's 404 (``nucleo.errors.NotFound``: DRF's plain "not found" body, the same
    for a missing and a hidden thing) and 403 (``Forbidden``, with its message)."""
    if isinstance(exc, NotFound):
        exc = exceptions.NotFound()
    elif isinstance(exc, Forbidden):
        exc = exceptions.PermissionDenied(*exc.args)
    elif isinstance(exc, DjangoValidationError):
        exc = DrfValidationError(detail=serializers.as_serializer_error(exc))
    return drf_exception_handler(exc, context)


# --- the user's tokens -------------------------------------------------------------------------


class ApiTokenSerializer(serializers.ModelSerializer):
    """One of my tokens as listed: never its key (only its first 8 characters)."""

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created", "last_used", "revoked_at"]
        read_only_fields = fields
        extra_kwargs = {
            "created": {"help_text": gettext_lazy("When it was made (ISO 8601).")},
            "last_used": {
                "help_text": gettext_lazy(
                    "When it was last used (ISO 8601, to the minute); null if never."
                )
            },
            "revoked_at": {
                "help_text": gettext_lazy("When it was revoked (ISO 8601); null while active.")
            },
        }


class ApiTokenCreateSerializer(StrictSerializer):
    """The name of a new token."""

    name = serializers.CharField(
        max_length=services.NAME_MAX_LENGTH,
        help_text=gettext_lazy("What the token is for, e.g. “diary bot” (1..60 characters)."),
    )


class NewApiTokenSerializer(ApiTokenSerializer):
    """A token just made, with its key: shown this once, never again."""

    key = serializers.CharField(
        read_only=True,
        help_text=gettext_lazy(
            "The key, for ``Authorization: Token <key>``. Shown only now: store it."
        ),
    )

    class Meta(ApiTokenSerializer.Meta):
        fields = [*ApiTokenSerializer.Meta.fields, "key"]
        read_only_fields = fields


@extend_schema(tags=["tokens"])
class ApiTokenListView(generics.ListCreateAPIView):
    """GET: my API tokens, newest first. POST: make one (from a browser session only: a token
    cannot make tokens, so a leaked one cannot keep itself alive)."""

    permission_classes = [permissions.IsAuthenticated]
    serializer_class = ApiTokenSerializer
    pagination_class = mundo_api.PageNumberPagination

    def get_queryset(self) -> QuerySet[ApiToken]:
        if getattr(self, "swagger_fake_view", False):  # schema generation: no user
            return ApiToken.objects.none()
        assert self.request.user.is_authenticated  # permission_classes
        return ApiToken.objects.filter(user=self.request.user)

    @extend_schema(
        summary="My API tokens", responses={200: ApiTokenSerializer(many=True), **errors(404)}
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Make an API token",
        request=ApiTokenCreateSerializer,
        responses={201: NewApiTokenSerializer, **errors(400, 403)},
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if isinstance(request.auth, ApiToken):
            raise PermissionDenied(
                _("A token cannot make tokens: use the profile page, signed in.")
            )
        assert request.user.is_authenticated  # permission_classes
        form = ApiTokenCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        made = services.token_create(user=request.user, name=form.validated_data["name"])
        body = NewApiTokenSerializer(made.token).data | {"key": made.key}
        return Response(body, status=status.HTTP_201_CREATED)


@extend_schema(tags=["tokens"])
class ApiTokenDetailView(generics.GenericAPIView):
    """GET: one of my tokens. DELETE: revoke it (it stays listed, with ``revoked_at``)."""

    permission_classes = [permissions.IsAuthenticated]
    serializer_class = ApiTokenSerializer

    def get_object(self) -> ApiToken:
        return get_object_or_404(ApiToken, pk=self.kwargs["pk"], user=self.request.user)

    @extend_schema(
        summary="One of my API tokens", responses={200: ApiTokenSerializer, **errors(404)}
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(ApiTokenSerializer(self.get_object()).data)

    @extend_schema(
        summary="Revoke an API token",
        responses={204: OpenApiResponse(description="Revoked."), **errors(404)},
    )
    def delete(self, request: Request, pk: int) -> Response:
        assert request.user.is_authenticated  # permission_classes
        services.token_revoke(token=self.get_object(), user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeSerializer(serializers.Serializer):
    """Who the API thinks I am."""

    username = serializers.CharField(
        read_only=True, help_text=gettext_lazy("The user of this request.")
    )
    authenticated_by = serializers.ChoiceField(
        choices=["token", "session"],
        read_only=True,
        help_text=gettext_lazy("How this request was authenticated."),
    )
    token = ApiTokenSerializer(
        read_only=True, allow_null=True, help_text=gettext_lazy("The token in use, if any.")
    )


@extend_schema(tags=["tokens"], summary="Who am I", responses={200: MeSerializer, **errors()})
class MeView(generics.GenericAPIView):
    """GET /api/v1/me/ — the user of this request and the token it used."""

    permission_classes = [permissions.IsAuthenticated]
    serializer_class = MeSerializer

    def get(self, request: Request) -> Response:
        token = request.auth if isinstance(request.auth, ApiToken) else None
        return Response(
            MeSerializer(
                {
                    "username": request.user.get_username(),
                    "authenticated_by": "token" if token else "session",
                    "token": token,
                }
            ).data
        )


# --- URLs --------------------------------------------------------------------------------------

# Swagger UI and ReDoc (served from drf_spectacular_sidecar, not a CDN) style their pages with
# inline styles and ReDoc renders in a blob: worker: their pages alone allow that. Scripts stay
# the site's own (the split Swagger view serves its start-up script as a file).
API_DOCS_CSP: dict[str, Collection[str] | str] = {
    **settings.SECURE_CSP,
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "worker-src": [CSP.SELF, "blob:"],
}

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path(
        "docs/",
        csp_override(API_DOCS_CSP)(SpectacularSwaggerSplitView.as_view(url_name="v1:schema")),
        name="docs",
    ),
    path(
        "redoc/",
        csp_override(API_DOCS_CSP)(SpectacularRedocView.as_view(url_name="v1:schema")),
        name="redoc",
    ),
    path("me/", MeView.as_view(), name="me"),
    path("inbox/", escenas_api_inbox.InboxView.as_view(), name="inbox"),
    path("tokens/", ApiTokenListView.as_view(), name="token-list"),
    path("tokens/<id:pk>/", ApiTokenDetailView.as_view(), name="token-detail"),
    path("campaigns/", mundo_api.CampaignListView.as_view(), name="campaign-list"),
    path("campaigns/<slug:slug>/", mundo_api.CampaignDetailView.as_view(), name="campaign-detail"),
    path(
        "campaigns/<slug:slug>/settlements/",
        mundo_api.SettlementListView.as_view(),
        name="settlement-list",
    ),
    path(
        "campaigns/<slug:slug>/settlements/<slug:settlement>/",
        mundo_api.SettlementDetailView.as_view(),
        name="settlement-detail",
    ),
    path(
        "campaigns/<slug:slug>/characters/",
        personajes_api.CampaignCharacterListView.as_view(),
        name="campaign-character-list",
    ),
    path("characters/", personajes_api.MyCharacterListView.as_view(), name="character-list"),
    path(
        "characters/<id:pk>/",
        personajes_api.CharacterDetailView.as_view(),
        name="character-detail",
    ),
    path(
        "characters/<id:pk>/rolls/",
        escenas_api_rolls.CharacterRollListView.as_view(),
        name="character-roll-list",
    ),
    path(
        "characters/<id:pk>/diary/",
        personajes_api_diary.DiaryView.as_view(),
        name="character-diary",
    ),
    path(
        "characters/<id:pk>/diary/posts/",
        escenas_api.DiaryPostListView.as_view(),
        name="character-diary-posts",
    ),
    # Rolls in posts follow the post: escenas.api extends personajes.api's sheet-roll rules.
    path("rolls/<id:pk>/", escenas_api_rolls.RollDetailView.as_view(), name="roll-detail"),
    path(
        "rolls/<id:pk>/threshold/",
        escenas_api_rolls.RollThresholdView.as_view(),
        name="roll-threshold",
    ),
    path("campaigns/<slug:slug>/scenes/", escenas_api.SceneListView.as_view(), name="scene-list"),
    path("scenes/<id:pk>/posts/", escenas_api.ScenePostListView.as_view(), name="scene-posts"),
    path(
        "scenes/<id:pk>/combats/",
        escenas_api_combat_write.SceneCombatsView.as_view(),
        name="scene-combats",
    ),
    path(
        "scenes/<id:pk>/cures/",
        escenas_api_combat_write.SceneCureView.as_view(),
        name="scene-cures",
    ),
    path(
        "combats/<id:pk>/combatants/",
        escenas_api_combat_write.CombatantsAddView.as_view(),
        name="combat-combatants",
    ),
    path(
        "combats/<id:pk>/turns/",
        escenas_api_combat_write.TurnResolveView.as_view(),
        name="combat-turns",
    ),
    path(
        "combats/<id:pk>/amputations/",
        escenas_api_combat_write.AmputationView.as_view(),
        name="combat-amputations",
    ),
    path("combats/<id:pk>/", escenas_api_combat.CombatDetailView.as_view(), name="combat-detail"),
    path(
        "combats/<id:pk>/declarations/",
        escenas_api_combat.DeclarationCreateView.as_view(),
        name="combat-declarations",
    ),
    path(
        "characters/<id:pk>/movements/",
        personajes_api_movements.CharacterMovementListView.as_view(),
        name="character-movements",
    ),
    path(
        "places/<id:pk>/movements/",
        personajes_api_movements.PlaceMovementListView.as_view(),
        name="place-movements",
    ),
    path(
        "scenes/<id:pk>/join-requests/",
        escenas_api_joining.SceneJoinRequestView.as_view(),
        name="scene-join-requests",
    ),
    path(
        "campaigns/<slug:slug>/join-requests/",
        escenas_api_joining.CampaignJoinRequestListView.as_view(),
        name="campaign-join-requests",
    ),
    path(
        "join-requests/<id:pk>/decision/",
        escenas_api_joining.JoinRequestDecisionView.as_view(),
        name="join-request-decision",
    ),
    path(
        "scenes/<id:pk>/roll-requests/",
        escenas_api_rolls.RollRequestListView.as_view(),
        name="scene-roll-requests",
    ),
]
