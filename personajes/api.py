"""REST API of characters: sheets, condition with penalties, inventory, rolls and diaries.

Every character is fetched through ``personajes.access.access_character`` and shown in full
only when its ``private`` says so (the owner and the campaign's master): the same check the
sheet page makes. Others get the public part
(``CharacterPublicSerializer``), told apart by ``view`` = ``"public"`` or ``"private"``.

Source: RULES.md R3 (rolls), R5 (sheet), R6–R10 and R12–R13 (condition, penalty, disease
modifier), R25 (diary).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import (
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
)
from rest_framework import generics, serializers
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from mundo.access import access_campaign
from mundo.api import PageNumberPagination, errors
from mundo.models import Campaign
from nucleo import api_answers
from nucleo.serializers import many_data
from personajes import selectors
from personajes.access import access_character, characters_visible_in
from personajes.models import Character, InventoryItem, ItemType
from reglas.core import breakdown_total

# --- pieces ------------------------------------------------------------------------------------


class ModifierSerializer(serializers.Serializer):
    """One line of a breakdown: where some points come from."""

    # DRF takes declared fields off the class: these are the fields, not Field.source/label.
    source = serializers.CharField(  # type: ignore[assignment]
        read_only=True, help_text=gettext_lazy("Machine slug of the cause, e.g. hunger, dirt.")
    )
    label = serializers.CharField(  # type: ignore[assignment]
        read_only=True, help_text=gettext_lazy("The cause in words (Spanish).")
    )
    points = serializers.IntegerField(
        read_only=True, help_text=gettext_lazy("Percentage points (signed).")
    )


class TraitRowSerializer(serializers.Serializer):
    """A trait of the sheet with the character's points (R3, R5)."""

    slug = serializers.SlugField(source="trait.slug", read_only=True)
    name = serializers.CharField(source="trait.name", read_only=True)
    value = serializers.IntegerField(read_only=True, help_text=gettext_lazy("Points, ≥ 0."))
    dice = serializers.IntegerField(
        read_only=True, help_text=gettext_lazy("Dice of an action roll: 1 + points (R3).")
    )
    p_success_percent = serializers.FloatField(
        read_only=True,
        help_text=gettext_lazy(
            "Chance of success of an action at 30 % with no penalty, %: 100·(1 − 0.7^dice)."
        ),
    )
    dirt_sensitive = serializers.BooleanField(
        read_only=True,
        help_text=gettext_lazy("Its rolls take the dirt penalty (R8)."),
    )


class ConditionSerializer(serializers.ModelSerializer):
    """The condition state (R6–R8, R12, R13): counters are consecutive days."""

    class Meta:
        model = Character
        fields = [
            "hunger_days",
            "thirst_days",
            "fatigue_days",
            "unhygienic_days",
            "days_without_defecating",
            "wet_last_night",
            "soiled_last_night",
            "dirty",
            "extra_dirt",
            "disease_day",
            "disease_duration",
            "disease_days_treated",
            "infection_day",
            "infection_duration",
            "amputations",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "hunger_days": {"help_text": gettext_lazy("Consecutive days under 2000 kcal (R6).")},
            "thirst_days": {"help_text": gettext_lazy("Consecutive days under 2 L of water (R6).")},
            "fatigue_days": {
                "help_text": gettext_lazy("Consecutive days under 6 h of sleep (R6).")
            },
            "unhygienic_days": {
                "help_text": gettext_lazy("Consecutive days in inadequate hygiene (R7).")
            },
            "days_without_defecating": {"help_text": gettext_lazy("Consecutive days (R7).")},
            "dirty": {
                "help_text": gettext_lazy("Dirty: dirt-sensitive rolls take the penalty (R8).")
            },
            "extra_dirt": {"help_text": gettext_lazy("Extra dirt (R8).")},
            "disease_day": {"help_text": gettext_lazy("Day x of the disease; 0 = healthy (R12).")},
            "disease_duration": {"help_text": gettext_lazy("Length of the disease, days (R12).")},
            "disease_days_treated": {
                "help_text": gettext_lazy("Days treated with medicines (R12).")
            },
            "infection_day": {
                "help_text": gettext_lazy("Day x of the infection; 0 = not infected (R13).")
            },
            "infection_duration": {
                "help_text": gettext_lazy("Length of the infection, days (R13).")
            },
        }

    amputations = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        help_text=gettext_lazy("Amputated limbs (R13), in words."),
    )


class PenaltySerializer(serializers.Serializer):
    """The R9 action penalty: points subtracted from every action threshold."""

    total = serializers.IntegerField(read_only=True, help_text=gettext_lazy("Points (%)."))
    breakdown = ModifierSerializer(
        many=True, read_only=True, help_text=gettext_lazy("Non-zero lines, points in %.")
    )
    dirt_sensitive_extra = serializers.IntegerField(
        read_only=True,
        help_text=gettext_lazy("Further points on dirt-sensitive rolls (R8), %."),
    )


class DiseaseModifierSerializer(serializers.Serializer):
    """The character's side of the daily chance of falling sick (R10)."""

    p = serializers.IntegerField(
        read_only=True,
        help_text=gettext_lazy(
            "Probability, % (0..100), without the shelter's and the day's terms."
        ),
    )
    breakdown = ModifierSerializer(
        many=True, read_only=True, help_text=gettext_lazy("Non-zero lines, points in %.")
    )


class InventoryItemSerializer(serializers.ModelSerializer):
    """What the character carries of one item."""

    item = serializers.CharField(
        source="item_type.name", read_only=True, help_text=gettext_lazy("The item's name.")
    )
    kind = serializers.ChoiceField(
        source="item_type.kind",
        choices=ItemType.Kind.choices,
        read_only=True,
        help_text=gettext_lazy("food, water, toilet_paper, medicine, weapon or gear."),
    )
    unit = serializers.CharField(
        source="item_type.unit", read_only=True, help_text=gettext_lazy("e.g. can, bottle.")
    )
    quantity = serializers.DecimalField(
        max_digits=12,
        decimal_places=3,
        read_only=True,
        coerce_to_string=False,
        help_text=gettext_lazy("Units carried (fractional for rolls of paper)."),
    )
    kcal_per_unit = serializers.FloatField(
        source="item_type.kcal_per_unit", read_only=True, help_text=gettext_lazy("kcal per unit.")
    )
    litres_per_unit = serializers.FloatField(
        source="item_type.litres_per_unit", read_only=True, help_text=gettext_lazy("L per unit.")
    )

    class Meta:
        model = InventoryItem
        fields = ["item", "kind", "unit", "quantity", "kcal_per_unit", "litres_per_unit"]
        read_only_fields = fields


# --- characters --------------------------------------------------------------------------------


class CharacterSummarySerializer(serializers.ModelSerializer):
    """A character in a list: the public part of the sheet's head."""

    campaign: serializers.SlugRelatedField[Campaign] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, help_text=gettext_lazy("The campaign's slug.")
    )
    player = serializers.CharField(
        source="player.get_username",
        read_only=True,
        help_text=gettext_lazy("Username of the character's player."),
    )
    portrait = serializers.SerializerMethodField(
        help_text=gettext_lazy("URL of the portrait, or null.")
    )

    class Meta:
        model = Character
        fields = [
            "id",
            "campaign",
            "name",
            "player",
            "status",
            "death_cause",
            "death_day",
            "portrait",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "death_day": {"help_text": gettext_lazy("In-game day of death.")},
            "death_cause": {"help_text": gettext_lazy("Cause of death (R14), empty if alive.")},
        }

    @extend_schema_field({"type": "string", "nullable": True})
    def get_portrait(self, character: Character) -> str | None:
        if not character.portrait:
            return None
        url = reverse("personajes:portrait", kwargs={"pk": character.pk})
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request is not None else url


class CharacterPublicSerializer(CharacterSummarySerializer):
    """A character as anyone who may read the campaign sees it: head, concept and traits."""

    view = serializers.SerializerMethodField(
        help_text=gettext_lazy("public: the part everyone sees; private: the whole sheet.")
    )
    concept = serializers.CharField(
        read_only=True, help_text=gettext_lazy("Concept and background, as the player wrote it.")
    )
    traits = serializers.SerializerMethodField(
        help_text=gettext_lazy("Every trait of the campaign in sheet order (R5).")
    )

    class Meta(CharacterSummarySerializer.Meta):
        fields = ["view", *CharacterSummarySerializer.Meta.fields, "concept", "traits"]
        read_only_fields = fields

    @extend_schema_field({"type": "string", "enum": ["public"]})
    def get_view(self, character: Character) -> str:
        return "public"

    @extend_schema_field(TraitRowSerializer(many=True))
    def get_traits(self, character: Character) -> list[dict[str, Any]]:
        return many_data(TraitRowSerializer(selectors.sheet_rows(character), many=True))


class CharacterPrivateSerializer(CharacterPublicSerializer):
    """The whole sheet, for its player and the master: condition, penalty (R9) with its
    breakdown, disease modifier (R10), inventory and the master's last comment."""

    condition = serializers.SerializerMethodField(
        help_text=gettext_lazy("Needs counters, dirt, disease and infection (R6–R8, R12, R13).")
    )
    penalty = serializers.SerializerMethodField(
        help_text=gettext_lazy("Action penalty now, with its breakdown (R9).")
    )
    disease = serializers.SerializerMethodField(
        help_text=gettext_lazy("The character's side of the daily disease chance (R10).")
    )
    inventory = serializers.SerializerMethodField(
        help_text=gettext_lazy("What the character carries (quantity > 0).")
    )
    review_comment = serializers.CharField(
        read_only=True, help_text=gettext_lazy("The master's last comment on the sheet.")
    )

    class Meta(CharacterPublicSerializer.Meta):
        fields = [
            *CharacterPublicSerializer.Meta.fields,
            "condition",
            "penalty",
            "disease",
            "inventory",
            "review_comment",
        ]
        read_only_fields = fields

    @extend_schema_field({"type": "string", "enum": ["private"]})
    def get_view(self, character: Character) -> str:
        return "private"

    @extend_schema_field(ConditionSerializer)
    def get_condition(self, character: Character) -> dict[str, Any]:
        return ConditionSerializer(character).data

    @extend_schema_field(PenaltySerializer)
    def get_penalty(self, character: Character) -> dict[str, Any]:
        penalty = selectors.penalty_breakdown(character)
        dirty = selectors.penalty_breakdown(character, dirt_sensitive=True)
        return PenaltySerializer(
            {
                "total": breakdown_total(penalty),
                "breakdown": penalty,
                "dirt_sensitive_extra": breakdown_total(dirty) - breakdown_total(penalty),
            }
        ).data

    @extend_schema_field(DiseaseModifierSerializer)
    def get_disease(self, character: Character) -> dict[str, Any]:
        p, breakdown = selectors.disease_modifier_breakdown(character)
        return DiseaseModifierSerializer({"p": p, "breakdown": breakdown}).data

    @extend_schema_field(InventoryItemSerializer(many=True))
    def get_inventory(self, character: Character) -> list[dict[str, Any]]:
        return many_data(
            InventoryItemSerializer(selectors.character_inventory(character), many=True)
        )


SUMMARY_COLUMNS = (
    "id",
    "campaign__slug",
    "name",
    "player__username",
    "status",
    "death_cause",
    "death_day",
    "portrait",
)
"""The ``values()`` columns ``summary_rows`` reads."""


def summary_rows(rows: Iterable[Mapping[str, Any]], request: Any) -> list[dict[str, Any]]:
    """``CharacterSummarySerializer``'s answer (with ``request`` in its context) for characters
    read as ``values(*SUMMARY_COLUMNS)`` rows: the same keys, order and values, without DRF's
    per-field calls and a model per row (``tests/api/test_api_lists.py`` holds the two
    equal)."""
    portrait = None  # the portrait URL with a placeholder id, reversed once
    out = []
    for row in rows:
        url = None
        if row["portrait"]:
            if portrait is None:
                sample = 987654321987654321  # 18 digits, the converter's most
                head, _found, tail = reverse(
                    "personajes:portrait", kwargs={"pk": sample}
                ).partition(str(sample))
                portrait = (head, tail)
            url = f"{portrait[0]}{row['id']}{portrait[1]}"
            url = request.build_absolute_uri(url) if request is not None else url
        out.append(
            {
                "id": row["id"],
                "campaign": row["campaign__slug"],
                "name": row["name"],
                "player": row["player__username"],
                "status": row["status"],
                "death_cause": row["death_cause"],
                "death_day": row["death_day"],
                "portrait": url,
            }
        )
    return out


class _SummaryListMixin(generics.ListAPIView):
    """A list of ``CharacterSummarySerializer`` rows, built as plain dicts (``summary_rows``)."""

    serializer_class = CharacterSummarySerializer
    pagination_class = PageNumberPagination

    answer_name = ""
    """The list's name in its kept answers' keys (``nucleo.api_answers``)."""

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # Kept while nothing it read changed (``nucleo.api_answers``), the access check too.
        key = api_answers.answer_key(request, self.answer_name)
        if (kept := api_answers.stored_answer(key)) is not None:
            return Response(kept)
        with api_answers.recording(request, key) as rec:
            page = self.paginate_queryset(self.get_queryset().values(*SUMMARY_COLUMNS))
            assert page is not None  # pagination_class is set
            response = self.get_paginated_response(summary_rows(page, request))
            api_answers.keep(rec, response.data)
        return response


CHARACTER_RESPONSE = PolymorphicProxySerializer(
    component_name="Character",
    serializers=[CharacterPublicSerializer, CharacterPrivateSerializer],
    resource_type_field_name="view",
)


def character_for_api(pk: int | str, user: Any) -> tuple[Character, bool]:
    """The character through the pages' check and whether ``user`` sees it in full."""
    access = access_character(user, pk)
    return access.character, access.private


def private_character_for_api(pk: int | str, user: Any) -> Character:
    """The character, when ``user`` sees it in full; 404 when they may not see it at all,
    403 (401 anonymous) when they see only its public part."""
    character, private = character_for_api(pk, user)
    if not private:
        if not user.is_authenticated:
            raise NotAuthenticated()
        raise PermissionDenied(_("Only the character's player and the master see this."))
    return character


@extend_schema(
    tags=["characters"],
    summary="A campaign's characters",
    description="The characters of the campaign I may see: the master all of them, others the "
    "approved, dead and risen ones and their own (drafts and submitted sheets are between the "
    "player and the master). The public head of each; the sheet is at /characters/{id}/.",
    responses={200: CharacterSummarySerializer(many=True), **errors(404)},
)
class CampaignCharacterListView(_SummaryListMixin):
    """GET /api/v1/campaigns/{slug}/characters/."""

    answer_name = "campaign-characters"

    def get_queryset(self) -> QuerySet[Character]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Character.objects.none()
        campaign, viewer = access_campaign(self.request.user, slug=self.kwargs["slug"])
        return characters_visible_in(campaign, viewer)


@extend_schema(
    tags=["characters"],
    summary="My characters",
    description="My characters in every campaign, by campaign then name.",
    responses={200: CharacterSummarySerializer(many=True), **errors(404)},
)
class MyCharacterListView(_SummaryListMixin):
    """GET /api/v1/characters/ — mine (empty for anonymous clients)."""

    answer_name = "my-characters"

    def get_queryset(self) -> QuerySet[Character]:
        return selectors.characters_of_player(user=self.request.user)


@extend_schema(
    tags=["characters"],
    summary="A character",
    description="The sheet. Its player and the master get the whole of it (``view: private``: "
    "condition, action penalty with its breakdown, disease modifier, inventory); anyone else "
    "who may read the campaign gets approved, dead and risen characters' public part "
    "(``view: public``).",
    responses={200: CHARACTER_RESPONSE, **errors(404)},
)
class CharacterDetailView(generics.GenericAPIView):
    """GET /api/v1/characters/{id}/."""

    serializer_class = CharacterPublicSerializer

    def get(self, request: Request, pk: int) -> Response:
        character, private = character_for_api(pk, request.user)
        cls = CharacterPrivateSerializer if private else CharacterPublicSerializer
        return Response(cls(character, context={"request": request}).data)


__all__ = [
    "CampaignCharacterListView",
    "CharacterDetailView",
    "MyCharacterListView",
    "character_for_api",
    "private_character_for_api",
]
