from collections.abc import Sequence
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from mundo import services
from mundo.admin_scope import CampaignScopedAdmin, ScopedTabularInline
from mundo.models import (
    Campaign,
    DayTick,
    Grid,
    GridDay,
    Invitation,
    Location,
    Membership,
    Settlement,
    SettlementDay,
    WeatherRecord,
    WorldRoll,
)
from mundo.selectors import settlement_status
from mundo.world_texts import world_roll_text
from nucleo.errors import ServiceError
from nucleo.users import AuthenticatedHttpRequest


class SettlementInline(ScopedTabularInline):
    model = Settlement
    extra = 0
    prepopulated_fields = {"slug": ("name",)}


class MembershipInline(ScopedTabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Campaign)
class CampaignAdmin(CampaignScopedAdmin):
    campaign_path = "pk"
    # The "advance day" action is added by partida.admin (the tick composes every app).
    actions: Sequence[Any] = ()
    list_display = ["name", "current_day", "current_date", "schedule", "tick_time", "time_zone"]
    list_filter = ["is_public", "schedule"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ["created_at"]
    inlines = [MembershipInline, SettlementInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # A campaign is made on its page (mundo.services.campaign_create makes its master);
        # one added here would have no master and vanish from its maker's admin.
        return request.user.is_superuser

    @admin.display(description=_("current date"))
    def current_date(self, obj: Campaign) -> str:
        return obj.current_date.isoformat()


@admin.register(Settlement)
class SettlementAdmin(CampaignScopedAdmin):
    list_display = [
        "name",
        "campaign",
        "population",
        "area_m2",
        "growth_rate",
        "zombies_today",
        "own_grid",
        "own_climate",
    ]
    list_filter = ["campaign"]
    list_select_related = ["campaign"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ("name",)}

    @admin.display(description=_("zombies today (R17)"))
    def zombies_today(self, obj: Settlement) -> int:
        return settlement_status(obj, obj.campaign.current_day).zombies


@admin.register(Membership)
class MembershipAdmin(CampaignScopedAdmin):
    list_display = ["user", "campaign", "role", "joined_at"]
    list_filter = ["role", "campaign"]
    list_select_related = ["user", "campaign"]
    search_fields = ["user__username", "campaign__name"]
    autocomplete_fields = ["user", "campaign"]
    exclude = ["dice_seed"]  # the player's own (verifiable dice): set on their profile only


@admin.register(Invitation)
class InvitationAdmin(CampaignScopedAdmin):
    list_display = [
        "campaign",
        "created_by",
        "created_at",
        "expires_at",
        "single_use",
        "uses",
        "revoked",
    ]
    list_filter = ["single_use", "revoked", "campaign"]
    list_select_related = ["campaign", "created_by"]
    readonly_fields = ["token", "uses", "created_at"]
    autocomplete_fields = ["campaign", "created_by"]


def _run_each(
    modeladmin: admin.ModelAdmin, request: HttpRequest, objects: QuerySet, call: object
) -> None:
    """Run a world service on each selected object, reporting each roll or refusal."""
    for obj in objects:
        try:
            roll = call(obj)  # type: ignore[operator]
        except ServiceError as exc:
            modeladmin.message_user(request, f"{obj}: {' '.join(exc.messages)}", messages.ERROR)
        else:
            modeladmin.message_user(request, f"{obj}: {world_roll_text(roll)}", messages.SUCCESS)


@admin.register(Location)
class LocationAdmin(CampaignScopedAdmin):
    campaign_path = "settlement__campaign"
    list_display = ["name", "settlement", "kind", "shop_type", "discovered_day", "searched_day"]
    list_filter = ["kind", "shop_type", "settlement__campaign"]
    list_select_related = ["settlement"]
    search_fields = ["name"]
    readonly_fields = [
        "discovered_day",
        "stock_food_kcal",
        "stock_water_l",
        "stock_toilet_paper_rolls",
        "stock_medicine_doses",
        "searched_day",
    ]
    actions = ["discover_shops", "search_places"]

    @admin.action(description=_("Discover the selected shops (R23, rolled once)"))
    def discover_shops(
        self, request: AuthenticatedHttpRequest, queryset: QuerySet[Location]
    ) -> None:
        _run_each(
            self,
            request,
            queryset.select_related("settlement__campaign"),
            lambda place: services.shop_discover(location=place, user=request.user),
        )

    @admin.action(description=_("Search the selected places for weapons (R22)"))
    def search_places(
        self, request: AuthenticatedHttpRequest, queryset: QuerySet[Location]
    ) -> None:
        _run_each(
            self,
            request,
            queryset.select_related("settlement__campaign"),
            lambda place: services.location_search(location=place, user=request.user),
        )


@admin.register(Grid)
class GridAdmin(CampaignScopedAdmin):
    list_display = ["__str__", "campaign", "power_on", "power_cut_day", "water_on", "water_cut_day"]
    list_filter = ["campaign", "power_on", "water_on"]
    list_select_related = ["campaign", "settlement"]
    readonly_fields = ["power_cut_day", "water_cut_day"]
    actions = ["restore_power", "restore_water"]

    @admin.action(description=_("Restore power (R16)"))
    def restore_power(self, request: AuthenticatedHttpRequest, queryset: QuerySet[Grid]) -> None:
        _run_each(
            self,
            request,
            queryset.select_related("campaign", "settlement"),
            lambda grid: services.utility_restore(grid=grid, user=request.user, power=True),
        )

    @admin.action(description=_("Restore water (R16)"))
    def restore_water(self, request: AuthenticatedHttpRequest, queryset: QuerySet[Grid]) -> None:
        _run_each(
            self,
            request,
            queryset.select_related("campaign", "settlement"),
            lambda grid: services.utility_restore(grid=grid, user=request.user, water=True),
        )


class ReadOnlyAdmin(CampaignScopedAdmin):
    """Records written by the tick or by rolls: readable, never edited by hand."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(GridDay)
class GridDayAdmin(ReadOnlyAdmin):
    campaign_path = "grid__campaign"
    list_display = ["grid", "day", "probability", "power_die", "water_die", "power_on", "water_on"]
    list_filter = ["grid__campaign"]
    list_select_related = ["grid__settlement"]


@admin.register(WeatherRecord)
class WeatherRecordAdmin(ReadOnlyAdmin):
    list_display = ["campaign", "day", "settlement", "sky_label", "min_c", "max_c"]
    list_filter = ["campaign"]
    list_select_related = ["campaign", "settlement"]


@admin.register(SettlementDay)
class SettlementDayAdmin(ReadOnlyAdmin):
    campaign_path = "settlement__campaign"
    list_display = ["settlement", "day", "zombies", "survivors", "risen"]
    list_filter = ["settlement__campaign"]
    list_select_related = ["settlement"]


@admin.register(DayTick)
class DayTickAdmin(ReadOnlyAdmin):
    list_display = ["campaign", "day", "trigger", "created_at", "characters", "deaths", "risen"]
    list_filter = ["campaign", "trigger"]
    list_select_related = ["campaign"]


@admin.register(WorldRoll)
class WorldRollAdmin(ReadOnlyAdmin):
    list_display = ["campaign", "day", "kind", "location", "settlement", "dice", "made_by"]
    list_filter = ["campaign", "kind"]
    list_select_related = ["campaign", "location", "settlement", "made_by"]
    readonly_fields = ["description"]
