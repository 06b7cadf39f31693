"""REST API of rolls: a roll with its dice, the master's threshold for a roll made without one,
a character's rolls, and a scene's roll requests.

The same checks as ``escenas.api`` and the pages: a roll through ``escenas.access.access_roll``
(a roll in a post follows the post, a hidden roll's dice are the master's only; a sheet roll
follows ``personajes.access.access_roll``), a scene through ``scene_access_for_api``.

Source: RULES.md R2–R4 (rolls, thresholds); DESIGN.md (the stored faces are the record).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
)
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.exceptions import ValidationError as DrfValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from escenas import selectors, services
from escenas.access import (
    access_roll,
)
from escenas.api import as_drf, scene_access_for_api
from escenas.models import RollRequest
from mundo.access import is_master
from mundo.api import ErrorSerializer, PageNumberPagination, errors
from nucleo import api_answers, bounds
from nucleo.errors import Forbidden
from nucleo.serializers import StrictSerializer
from personajes import api as personajes_api
from personajes import api_rolls as roll_api
from personajes import rolls as personajes_rolls
from personajes import selectors as personajes_selectors
from personajes.models import Roll, Trait

# --- rolls: detail, threshold, requests --------------------------------------------------------


@extend_schema(
    tags=["rolls"],
    summary="A roll",
    description="Every die, the modifiers with their source, the threshold, the outcome, the "
    "generator key and the engine version. A roll in a post: whoever may see the post (a "
    "hidden roll: the master only); a roll from the sheet: its character's player and the "
    "master.",
    responses={200: roll_api.RollSerializer, **errors(404)},
)
class RollDetailView(generics.GenericAPIView):
    """GET /api/v1/rolls/{id}/."""

    serializer_class = roll_api.RollSerializer

    def get(self, request: Request, pk: int) -> Response:
        roll, _link = access_roll(request.user, pk)
        return Response(roll_api.RollSerializer(roll).data)


@extend_schema(
    tags=["rolls"],
    summary="Set a roll's threshold (master)",
    description="The master sets the base threshold of an action roll, or the probability of "
    "an event roll, made without one; the outcome comes from the stored dice (never "
    "re-rolled). 409 when it is already set.",
    request=roll_api.ThresholdSerializer,
    responses={
        200: roll_api.RollSerializer,
        409: OpenApiResponse(ErrorSerializer, description="Already set."),
        **errors(400, 403, 404),
    },
)
class RollThresholdView(generics.GenericAPIView):
    """POST /api/v1/rolls/{id}/threshold/ — the campaign's master only."""

    serializer_class = roll_api.ThresholdSerializer

    def post(self, request: Request, pk: int) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        roll, link = access_roll(request.user, pk)
        if not is_master(roll.campaign_id, request.user):
            raise Forbidden(_("Only the campaign's master can set a roll's threshold."))
        form = roll_api.ThresholdSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        value = form.validated_data["threshold"]
        try:
            if link is not None:
                updated = services.roll_threshold_set(
                    post_roll=link, master=request.user, threshold=value
                )
            else:
                updated = personajes_rolls.threshold_set(
                    roll=roll, master=request.user, threshold=value
                )
        except DjangoValidationError as exc:
            if getattr(exc, "code", None) == personajes_rolls.THRESHOLD_SET:
                return Response({"detail": exc.messages[0]}, status=status.HTTP_409_CONFLICT)
            raise as_drf(exc, {"probability": "threshold"}) from None
        fresh, _link = access_roll(request.user, updated.pk)
        return Response(roll_api.RollSerializer(fresh).data)


@extend_schema(
    tags=["rolls"],
    summary="A character's rolls",
    description="The character's rolls, newest first, from the sheet and from posts: for its "
    "player and the master. Rolls hidden in posts are the master's only.",
    responses={200: roll_api.RollSerializer(many=True), **errors(403, 404)},
)
class CharacterRollListView(generics.ListAPIView):
    """GET /api/v1/characters/{id}/rolls/."""

    serializer_class = roll_api.RollSerializer
    pagination_class = PageNumberPagination
    filter_backends: list[type] = []

    def get_queryset(self) -> Any:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Roll.objects.none()
        user = self.request.user
        character = personajes_api.private_character_for_api(self.kwargs["pk"], user)
        return personajes_selectors.character_rolls(character, user)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # Kept while nothing it read changed (``nucleo.api_answers``); the page as plain rows
        # (``personajes.api_rolls.roll_rows``): the serializer's answer without building 50 rolls
        # with their maker, trait and campaign.
        key = api_answers.answer_key(request, "character-rolls")
        if (kept := api_answers.stored_answer(key)) is not None:
            return Response(kept)
        with api_answers.recording(request, key) as rec:
            rows = self.get_queryset().values(*roll_api.ROLL_COLUMNS)
            page = self.paginate_queryset(rows)
            assert page is not None  # pagination_class is set
            response = self.get_paginated_response(roll_api.roll_rows(page))
            api_answers.keep(rec, response.data)
        return response


class RollRequestSerializer(serializers.ModelSerializer):
    """A roll the master asked a character for (pending until answered in a post)."""

    scene = serializers.IntegerField(
        source="scene_id", read_only=True, help_text=gettext_lazy("Id of its scene.")
    )
    character = serializers.IntegerField(
        source="character_id", read_only=True, help_text=gettext_lazy("Id of the character.")
    )
    trait = serializers.SlugField(
        source="trait.slug", read_only=True, help_text=gettext_lazy("Slug of the trait to roll.")
    )
    threshold = serializers.IntegerField(
        source="base_threshold",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("Base threshold, % (0..100), or null: set later."),
    )

    class Meta:
        model = RollRequest
        fields = [
            "id",
            "scene",
            "character",
            "trait",
            "threshold",
            "base_threshold",
            "reason",
            "hidden",
            "created_at",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "base_threshold": {
                "help_text": gettext_lazy("Deprecated: the same as threshold."),
            },
            "reason": {"help_text": gettext_lazy("What the roll is for.")},
            "hidden": {"help_text": gettext_lazy("Its dice will be the master's only.")},
            "created_at": {"help_text": gettext_lazy("When it was asked (ISO 8601).")},
        }


class RollRequestCreateSerializer(StrictSerializer):
    """The master asks a living participant of the scene for an action roll."""

    character = serializers.IntegerField(
        min_value=1,
        max_value=bounds.ID_MAX,
        help_text=gettext_lazy("Id of a character of the scene."),
    )
    trait = serializers.SlugField(help_text=gettext_lazy("Slug of the trait, e.g. percepcion."))
    threshold = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=100,
        help_text=gettext_lazy("Base threshold, % (0..100); omit to set it after the roll."),
    )
    reason = serializers.CharField(
        required=False, allow_blank=True, max_length=200, help_text=gettext_lazy("What for.")
    )
    hidden = serializers.BooleanField(
        required=False, default=False, help_text=gettext_lazy("Dice for the master only.")
    )


@extend_schema(tags=["scenes"])
class RollRequestListView(generics.GenericAPIView):
    """GET: the scene's pending roll requests (the master: all; a player: their characters').
    POST (the master): ask a character for a roll."""

    serializer_class = RollRequestSerializer
    pagination_class = PageNumberPagination
    queryset = RollRequest.objects.none()  # for the schema; rows come from pending_requests

    @extend_schema(
        summary="Pending roll requests of a scene",
        responses={200: RollRequestSerializer(many=True), **errors(400, 404)},
    )
    def get(self, request: Request, pk: int) -> Response:
        access = scene_access_for_api(pk, request.user)
        page = self.paginate_queryset(selectors.pending_requests(access))
        return self.get_paginated_response(RollRequestSerializer(page, many=True).data)

    @extend_schema(
        summary="Ask for a roll (master)",
        request=RollRequestCreateSerializer,
        responses={201: RollRequestSerializer, **errors(400, 403, 404)},
    )
    def post(self, request: Request, pk: int) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        access = scene_access_for_api(pk, request.user)
        if not access.is_master:
            raise Forbidden(_("Only the campaign's master can do that."))
        form = RollRequestCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        character = next((c for c in access.characters if c.pk == data["character"]), None)
        if character is None:
            raise DrfValidationError(
                {"character": [_("That character is not in this scene, or is dead.")]}
            )
        trait = Trait.objects.filter(campaign=access.scene.campaign, slug=data["trait"]).first()
        if trait is None:
            raise DrfValidationError({"trait": [_("There is no such trait in this campaign.")]})
        try:
            made = services.roll_request_create(
                access=access,
                master=request.user,
                character=character,
                trait=trait,
                threshold=data.get("threshold"),
                reason=data.get("reason", ""),
                hidden=data.get("hidden", False),
            )
        except DjangoValidationError as exc:
            raise as_drf(exc, {}) from None
        made = RollRequest.objects.select_related("trait").get(pk=made.pk)
        return Response(RollRequestSerializer(made).data, status=status.HTTP_201_CREATED)


__all__ = [
    "CharacterRollListView",
    "RollDetailView",
    "RollRequestListView",
    "RollThresholdView",
]
