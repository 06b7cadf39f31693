"""REST API of supplies that move: a character's and a place's movement history, and the
player's own movements (give, the shelter's stash, a shop, a search's finds) through the same
services as the sheet's forms (``personajes.movements``).

Who sees what: a character's history is its player's and the master's (the sheet's private
part: 404 to whoever cannot see the character, 403 to those who see only its public part); a
place's history is the master's (404 otherwise). A refusal of a service is a 400 with the
message under its field (the project's exception handler). Source: RULES.md R15, R22, R23.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotAuthenticated, NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from mundo.access import is_master
from mundo.api import PageNumberPagination, errors
from mundo.models import Location
from nucleo.serializers import StrictSerializer
from personajes import movements
from personajes.api import private_character_for_api
from personajes.models import Movement


class MovementSerializer(serializers.ModelSerializer):
    """One movement of supplies: what, how much, from where to where, why, who, which day."""

    item = serializers.CharField(
        source="item_type.name", read_only=True, help_text=gettext_lazy("The item's name.")
    )
    item_type = serializers.IntegerField(
        source="item_type_id", read_only=True, help_text=gettext_lazy("Id of the item.")
    )
    quantity = serializers.DecimalField(
        max_digits=12,
        decimal_places=3,
        read_only=True,
        help_text=gettext_lazy("Units of the item (3 decimals)."),
    )
    from_character = serializers.IntegerField(
        source="from_character_id",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("Id of the character it came from, or null."),
    )
    from_place = serializers.IntegerField(
        source="from_place_id",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("Id of the place (stash or shop) it came from, or null."),
    )
    to_character = serializers.IntegerField(
        source="to_character_id",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("Id of the character it went to, or null."),
    )
    to_place = serializers.IntegerField(
        source="to_place_id",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("Id of the place it went to, or null (taken away)."),
    )
    reason = serializers.CharField(
        read_only=True,
        help_text=gettext_lazy(
            "arrival, give, stash_leave, stash_take, shop_take, find_take, master_give, "
            "master_take, master_move or undo."
        ),
    )
    reverses = serializers.IntegerField(
        source="reverses_id",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("For an undo: the id of the movement it reverts."),
    )
    made_by = serializers.CharField(
        source="made_by.username",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy(
            "Username of who made it, or null (the daily tick, a deleted user)."
        ),
    )
    day = serializers.IntegerField(read_only=True, help_text=gettext_lazy("In-game day."))
    created_at = serializers.DateTimeField(
        read_only=True, help_text=gettext_lazy("When it was made (ISO 8601).")
    )

    class Meta:
        model = Movement
        fields = [
            "id",
            "day",
            "item",
            "item_type",
            "quantity",
            "from_character",
            "from_place",
            "to_character",
            "to_place",
            "reason",
            "reverses",
            "made_by",
            "created_at",
        ]


_MOVEMENT_RELATED = ("item_type", "made_by")

MOVEMENT_ACTIONS = ("give", "leave", "take", "shop", "find")
"""The player's movements (the sheet's forms); named ``MovementActionEnum`` in the schema."""


class MovementCreateSerializer(StrictSerializer):
    """A movement the character's player (or the master) makes, as on the sheet."""

    action = serializers.ChoiceField(
        choices=list(MOVEMENT_ACTIONS),
        help_text=gettext_lazy(
            "give (to_character), leave in / take from the shelter's stash, shop (place: a "
            "discovered shop), find (place: a searched place; one weapon, no quantity)."
        ),
    )
    item_type = serializers.IntegerField(required=False, help_text=gettext_lazy("Item id."))
    quantity = serializers.CharField(
        required=False, max_length=20, help_text=gettext_lazy("Units, > 0, up to 3 decimals.")
    )
    to_character = serializers.IntegerField(
        required=False, help_text=gettext_lazy("give: the approved character in the same place.")
    )
    place = serializers.IntegerField(
        required=False, help_text=gettext_lazy("shop or find: the place's id.")
    )


@extend_schema(tags=["characters"], responses={200: MovementSerializer, **errors(403, 404)})
class CharacterMovementListView(generics.ListCreateAPIView):
    """GET /api/v1/characters/{id}/movements/: what moved to or from the character, newest
    first (paginated). POST: one movement of the player's (or the master's) own."""

    serializer_class = MovementSerializer
    pagination_class = PageNumberPagination
    filter_backends: list[type] = []

    def get_queryset(self) -> QuerySet[Movement]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Movement.objects.none()
        character = private_character_for_api(self.kwargs["pk"], self.request.user)
        return (
            Movement.objects.filter(Q(from_character=character) | Q(to_character=character))
            .select_related(*_MOVEMENT_RELATED)
            .order_by("-created_at", "-id")
        )

    @extend_schema(
        request=MovementCreateSerializer,
        responses={201: MovementSerializer, **errors(400, 403, 404)},
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        character = private_character_for_api(kwargs["pk"], request.user)
        form = MovementCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        action = data["action"]
        if action == "find":
            made = movements.movement_find_take(
                character=character, user=request.user, place_id=data.get("place")
            )
        else:
            common = {
                "character": character,
                "user": request.user,
                "item_type_id": data.get("item_type"),
                "quantity": data.get("quantity", ""),
            }
            if action == "give":
                made = movements.movement_give(**common, to_character_id=data.get("to_character"))
            elif action == "shop":
                made = movements.movement_shop_take(**common, place_id=data.get("place"))
            else:
                made = movements.movement_stash(**common, leave=action == "leave")
        return Response(MovementSerializer(made).data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["campaigns"], responses={200: MovementSerializer, **errors(404)})
class PlaceMovementListView(generics.ListAPIView):
    """GET /api/v1/places/{id}/movements/: what moved to or from a place (its stash or its
    stock), newest first (paginated). The campaign's master only (404 otherwise)."""

    serializer_class = MovementSerializer
    pagination_class = PageNumberPagination
    filter_backends: list[type] = []

    def get_queryset(self) -> QuerySet[Movement]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Movement.objects.none()
        user = self.request.user
        if not user.is_authenticated:
            raise NotAuthenticated()
        place = (
            Location.objects.filter(pk=self.kwargs["pk"])
            .values_list("pk", "settlement__campaign_id")
            .first()
        )
        if place is None or not is_master(place[1], user):
            raise NotFound()
        return (
            Movement.objects.filter(Q(from_place_id=place[0]) | Q(to_place_id=place[0]))
            .select_related(*_MOVEMENT_RELATED)
            .order_by("-created_at", "-id")
        )
