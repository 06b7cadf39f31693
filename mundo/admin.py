from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from mundo.models import Campaign, Invitation, Membership, Settlement
from mundo.selectors import settlement_status


class SettlementInline(admin.TabularInline):
    model = Settlement
    extra = 0
    prepopulated_fields = {"slug": ("name",)}


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "current_day", "current_date", "is_public", "time_zone"]
    list_filter = ["is_public"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ["created_at"]
    inlines = [MembershipInline, SettlementInline]

    @admin.display(description=_("current date"))
    def current_date(self, obj: Campaign) -> str:
        return obj.current_date.isoformat()


@admin.register(Settlement)
class SettlementAdmin(admin.ModelAdmin):
    list_display = ["name", "campaign", "population", "area_m2", "growth_rate", "zombies_today"]
    list_filter = ["campaign"]
    list_select_related = ["campaign"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ("name",)}

    @admin.display(description=_("zombies today (R17)"))
    def zombies_today(self, obj: Settlement) -> int:
        return settlement_status(obj, obj.campaign.current_day).zombies


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "campaign", "role", "joined_at"]
    list_filter = ["role", "campaign"]
    list_select_related = ["user", "campaign"]
    search_fields = ["user__username", "campaign__name"]
    autocomplete_fields = ["user", "campaign"]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
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
