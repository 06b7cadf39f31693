"""REST API of the world: campaigns and settlements, and the API's shared building blocks.

Views are thin: every campaign is fetched through ``mundo.access.access_campaign`` (the
pages' own check), so the API shows exactly what the pages show to the same person. The pieces
every app's ``api.py`` shares live here because ``mundo`` is the lowest app (personajes and
escenas may import it, not the other way round): ``StrictSerializer`` (unknown or read-only
keys are refused with 400 naming them), the pagination, and the documented error responses.

Source: RULES.md R17 (population), R18 (cells, p per cell).
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any, TypedDict

import django_filters
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from mundo import access, selectors
from mundo.models import Campaign, Grid, Membership, Settlement, WeatherRecord
from nucleo import api_answers
from nucleo.pagination import PageNumberPagination
from nucleo.serializers import many_data
from nucleo.users import AnyUser
from reglas.verify import commitment_of

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

# --- shared building blocks --------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    """The body of a 401, 403, 404, 405 or 429 answer."""

    detail = serializers.CharField(help_text=gettext_lazy("What went wrong, in plain words."))


_VALIDATION_EXAMPLE = OpenApiExample(
    "Field errors",
    value={"threshold": ["Ensure this value is less than or equal to 100."]},
    response_only=True,
    status_codes=["400"],
)

ERRORS: dict[int, OpenApiResponse] = {
    400: OpenApiResponse(
        response=OpenApiTypes.OBJECT,
        description=(
            "Bad input. An object whose keys are the fields at fault (``non_field_errors`` "
            "or ``__all__`` for the whole request, nested objects for nested fields) and whose "
            "values are lists of messages. Unknown and read-only fields are refused by name."
        ),
        examples=[_VALIDATION_EXAMPLE],
    ),
    401: OpenApiResponse(
        response=ErrorSerializer,
        description="Not authenticated (when the endpoint needs a user), or a malformed, "
        "unknown or revoked token.",
    ),
    403: OpenApiResponse(
        response=ErrorSerializer,
        description="Authenticated, and allowed to see the thing, but not to do this.",
    ),
    404: OpenApiResponse(
        response=ErrorSerializer,
        description="Not found, or not visible to you (hidden things are not revealed), or a "
        "page past the end of a list.",
    ),
    429: OpenApiResponse(
        response=ErrorSerializer,
        description="Too many requests for this token, user or IP; ``Retry-After`` says in "
        "how many seconds to try again.",
    ),
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """The documented error responses with these status codes (401 and 429 always: any request
    may carry a bad token or be throttled)."""
    wanted = sorted({*codes, 401, 429})
    return {code: ERRORS[code] for code in wanted}


# --- campaigns ---------------------------------------------------------------------------------


def campaigns_for_api(user: AnyUser) -> QuerySet[Campaign]:
    """The campaigns ``user`` may read (``access.campaigns_visible_to``), annotated with
    ``my_role`` (master, player or None), ordered by name. One query."""
    qs = access.campaigns_visible_to(user)
    if user.is_authenticated:
        role = Membership.objects.filter(campaign=OuterRef("pk"), user=user).values("role")[:1]
        qs = qs.annotate(my_role=Subquery(role))
    return qs.order_by("name", "pk")


class MyRole(TypedDict):
    """The annotation ``campaigns_for_api`` adds for a signed-in user."""

    my_role: str | None


class CampaignFilter(django_filters.FilterSet):
    """``?role=master`` the campaigns I run, ``?role=player`` the ones I play in."""

    role = django_filters.ChoiceFilter(
        choices=Membership.Role.choices,
        method="filter_role",
        label=gettext_lazy("Only the campaigns where I have this role."),
    )

    class Meta:
        model = Campaign
        fields: list[str] = []

    def filter_role(
        self, queryset: QuerySet[WithAnnotations[Campaign, MyRole]], name: str, value: str
    ) -> QuerySet:
        if not self.request.user.is_authenticated:
            return queryset.none()
        return queryset.filter(my_role=value)


class CampaignSerializer(serializers.ModelSerializer):
    """A campaign as a list or detail row: its calendar and my role in it."""

    day = serializers.IntegerField(
        source="current_day",
        read_only=True,
        help_text=gettext_lazy("Current in-game day: days since the apocalypse (day 0)."),
    )
    date = serializers.DateField(
        source="current_date",
        read_only=True,
        help_text=gettext_lazy("Calendar date of the current in-game day (ISO 8601)."),
    )
    role = serializers.SerializerMethodField(
        help_text=gettext_lazy("My role in it: master, player, or null (a public campaign).")
    )
    dice_period = serializers.IntegerField(
        source="entropy_period",
        read_only=True,
        help_text=gettext_lazy("Number of the open dice period (verifiable dice)."),
    )
    dice_commitment = serializers.SerializerMethodField(
        help_text=gettext_lazy(
            "SHA-256 (hex) of the open dice period's secret, published before any of its rolls."
        )
    )

    def get_dice_commitment(self, obj: Campaign) -> str:
        return commitment_of(obj.entropy)

    class Meta:
        model = Campaign
        fields = [
            "slug",
            "name",
            "description",
            "day",
            "date",
            "apocalypse_date",
            "time_zone",
            "is_public",
            "role",
            "dice_period",
            "dice_commitment",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "description": {"help_text": gettext_lazy("The master's description (plain text).")},
            "time_zone": {
                "help_text": gettext_lazy("IANA time zone of the daily tick, e.g. Europe/Madrid.")
            },
            "apocalypse_date": {"help_text": gettext_lazy("The calendar date of day 0.")},
            "is_public": {
                "help_text": gettext_lazy("Anyone may read a public campaign without signing in.")
            },
        }

    @extend_schema_field({"type": "string", "enum": list(Membership.Role.values), "nullable": True})
    def get_role(self, campaign: Campaign) -> str | None:
        return getattr(campaign, "my_role", None)


class WeatherSerializer(serializers.ModelSerializer):
    """The weather of a day: the region's (``settlement`` null) or a settlement's own (R11)."""

    settlement = serializers.SerializerMethodField(
        help_text=gettext_lazy("Slug of the settlement with its own climate; null: the region.")
    )

    class Meta:
        model = WeatherRecord
        fields = [
            "settlement",
            "day",
            "season",
            "sky",
            "sky_label",
            "precipitation",
            "min_c",
            "max_c",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "day": {"help_text": gettext_lazy("In-game day.")},
            "season": {"help_text": gettext_lazy("winter, spring, summer or autumn (R11).")},
            "sky": {"help_text": gettext_lazy("Sky slug: clear, cloudy, rain, storm, snow…")},
            "sky_label": {"help_text": gettext_lazy("The sky in words (Spanish).")},
            "precipitation": {
                "help_text": gettext_lazy("Rain, storm or snow: adds to the disease chance (R10).")
            },
            "min_c": {"help_text": gettext_lazy("Minimum temperature, °C.")},
            "max_c": {"help_text": gettext_lazy("Maximum temperature, °C.")},
        }

    @extend_schema_field({"type": "string", "nullable": True})
    def get_settlement(self, record: WeatherRecord) -> str | None:
        return record.settlement.slug if record.settlement is not None else None


class GridSerializer(serializers.ModelSerializer):
    """A power and water grid now: the region's (``settlement`` null) or a settlement's (R16)."""

    settlement = serializers.SerializerMethodField(
        help_text=gettext_lazy("Slug of the settlement with its own grid; null: the region.")
    )

    class Meta:
        model = Grid
        fields = ["settlement", "power_on", "water_on", "power_cut_day", "water_cut_day"]
        read_only_fields = fields
        extra_kwargs = {
            "power_on": {"help_text": gettext_lazy("Electricity still on.")},
            "water_on": {"help_text": gettext_lazy("Running water still on.")},
            "power_cut_day": {"help_text": gettext_lazy("In-game day the power was cut, or null.")},
            "water_cut_day": {"help_text": gettext_lazy("In-game day the water was cut, or null.")},
        }

    @extend_schema_field({"type": "string", "nullable": True})
    def get_settlement(self, grid: Grid) -> str | None:
        return grid.settlement.slug if grid.settlement is not None else None


class CampaignDetailSerializer(CampaignSerializer):
    """A campaign with today's world: the weather and the state of power and water."""

    weather = serializers.SerializerMethodField(
        help_text=gettext_lazy("Today's weather: the region's first, then settlements' own.")
    )
    grids = serializers.SerializerMethodField(
        help_text=gettext_lazy("Power and water (outages, R16): the region's grid first.")
    )

    class Meta(CampaignSerializer.Meta):
        fields = [*CampaignSerializer.Meta.fields, "weather", "grids"]
        read_only_fields = fields

    @extend_schema_field(WeatherSerializer(many=True))
    def get_weather(self, campaign: Campaign) -> list[dict[str, Any]]:
        return many_data(WeatherSerializer(self._world(campaign).weather, many=True))

    @extend_schema_field(GridSerializer(many=True))
    def get_grids(self, campaign: Campaign) -> list[dict[str, Any]]:
        return many_data(GridSerializer(self._world(campaign).grids, many=True))

    _today: selectors.WorldToday | None = None  # read once for the weather and the grids

    def _world(self, campaign: Campaign) -> selectors.WorldToday:
        if self._today is None:
            self._today = selectors.world_on(campaign, campaign.current_day)
        return self._today


@extend_schema(
    tags=["campaigns"],
    summary="My campaigns",
    description="The campaigns I may read: the ones I belong to and the public ones "
    "(anonymous clients: public ones only), by name.",
    responses={200: CampaignSerializer(many=True), **errors(400, 404)},
)
class CampaignListView(generics.ListAPIView):
    """GET /api/v1/campaigns/ — the campaigns I may read, ``?role=master|player``."""

    serializer_class = CampaignSerializer
    filterset_class = CampaignFilter
    pagination_class = PageNumberPagination

    def get_queryset(self) -> QuerySet[Campaign]:
        return campaigns_for_api(self.request.user)


@extend_schema(
    tags=["campaigns"],
    summary="A campaign",
    description="Day, date, public or not, my role, and today's weather and power and water.",
    responses={200: CampaignDetailSerializer, **errors(404)},
)
class CampaignDetailView(generics.RetrieveAPIView):
    """GET /api/v1/campaigns/{slug}/ — day, date, public or not, my role, weather, grids."""

    serializer_class = CampaignDetailSerializer
    lookup_field = "slug"

    def get_object(self) -> Campaign:
        campaign, viewer = access.access_campaign(self.request.user, slug=self.kwargs["slug"])
        # The list's ``my_role`` annotation (``campaigns_for_api``), set by hand for one row.
        campaign.my_role = viewer.role  # type: ignore[attr-defined]
        return campaign


# --- settlements -------------------------------------------------------------------------------


class SettlementStatusSerializer(serializers.Serializer):
    """A settlement today: population (R17) and zombies per cell (R18)."""

    slug = serializers.SlugField(source="settlement.slug", read_only=True)
    name = serializers.CharField(source="settlement.name", read_only=True)
    population = serializers.IntegerField(
        source="settlement.population",
        read_only=True,
        help_text=gettext_lazy("Pre-apocalypse inhabitants (K), people."),
    )
    area_m2 = serializers.FloatField(
        source="settlement.area_m2",
        read_only=True,
        help_text=gettext_lazy("Populated area, m²."),
    )
    growth_rate = serializers.FloatField(
        source="settlement.growth_rate",
        read_only=True,
        help_text=gettext_lazy("Logistic growth rate r, per day (R17)."),
    )
    day = serializers.IntegerField(
        read_only=True, help_text=gettext_lazy("In-game day these figures are for.")
    )
    zombies = serializers.IntegerField(
        read_only=True, help_text=gettext_lazy("Zombies today, ⌈P(t)⌉ (R17).")
    )
    survivors = serializers.IntegerField(
        read_only=True, help_text=gettext_lazy("Survivors today, K − zombies (R17).")
    )
    cells = serializers.IntegerField(
        read_only=True, help_text=gettext_lazy("Cells of 2 × 2 m: ⌊area / 4 m²⌋ (R18).")
    )
    p_cell = serializers.FloatField(
        read_only=True,
        help_text=gettext_lazy("Probability of a zombie in a cell, 0..1: zombies / cells (R18)."),
    )
    p_cell_percent = serializers.FloatField(
        read_only=True, help_text=gettext_lazy("The same probability in %, 0..100.")
    )


class _CampaignChildView(generics.GenericAPIView):
    """Base of the views under /campaigns/{slug}/: the campaign through the pages' check."""

    def campaign(self) -> Campaign:
        if not hasattr(self, "_campaign"):
            self._campaign, _viewer = access.access_campaign(
                self.request.user, slug=self.kwargs["slug"]
            )
        return self._campaign


@extend_schema(
    tags=["campaigns"],
    summary="A campaign's settlements today",
    description="The campaign's settlements by name, a page at a time, with today's zombies, "
    "survivors, cells and p per cell (RULES.md R17, R18).",
    responses={200: SettlementStatusSerializer(many=True), **errors(404)},
)
class SettlementListView(_CampaignChildView, generics.ListAPIView):
    """GET /api/v1/campaigns/{slug}/settlements/ — by name, paginated; three queries
    (campaign, count, the page's settlements); only the page's statuses are computed."""

    serializer_class = SettlementStatusSerializer
    pagination_class = PageNumberPagination
    filter_backends: list[type] = []

    def get_queryset(self) -> QuerySet[Settlement]:
        campaign = self.campaign()
        return Settlement.objects.filter(campaign=campaign).order_by("name", "pk")

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # Kept while nothing it read changed (``nucleo.api_answers``): today's figures follow
        # the settlements' and the campaign's rows, which the tick and the master write.
        key = api_answers.answer_key(request, "settlements")
        if (kept := api_answers.stored_answer(key)) is not None:
            return Response(kept)
        with api_answers.recording(request, key) as rec:
            response = super().list(request, *args, **kwargs)
            api_answers.keep(rec, response.data)
        return response

    def paginate_queryset(self, queryset: Any) -> builtins.list[selectors.SettlementStatus] | None:  # type: ignore[override]
        # The database limits the settlements to one page; only that page gets a status.
        page = super().paginate_queryset(queryset)
        if page is None:
            return None
        campaign = self.campaign()
        for settlement in page:
            settlement.campaign = campaign
        return selectors.settlements_with_status(campaign, page)


@extend_schema(
    tags=["campaigns"],
    summary="A settlement today",
    responses={200: SettlementStatusSerializer, **errors(404)},
)
class SettlementDetailView(_CampaignChildView, generics.RetrieveAPIView):
    """GET /api/v1/campaigns/{slug}/settlements/{settlement}/."""

    serializer_class = SettlementStatusSerializer

    def get_object(self) -> selectors.SettlementStatus:
        campaign = self.campaign()
        place = selectors.settlement_get(campaign=campaign, slug=self.kwargs["settlement"])
        return selectors.settlement_status(place, campaign.current_day)
