"""Admin actions that compose the apps: "advance the day" on the campaign list.

``mundo.admin.CampaignAdmin`` cannot import the tick (``partida`` sits above every app), so the
action is added to it here; ``partida`` comes after ``mundo`` in INSTALLED_APPS, so its admin
module is loaded after the campaign admin exists.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from mundo.admin import CampaignAdmin
from mundo.models import Campaign, DayTick
from nucleo.errors import ServiceError
from partida.tick import advance_day


@admin.action(description=_("Advance the selected campaigns one day (the daily tick)"))
def advance_campaigns(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Campaign]
) -> None:
    """The same service as the master's button and the schedule: each day once. The
    queryset is the changelist's, scoped to the campaigns the user masters (all of them for a
    superuser: the admin is where a superuser runs any campaign; ``mundo.admin_scope``)."""
    for campaign in queryset.order_by("id"):
        try:
            result = advance_day(campaign, trigger=DayTick.Trigger.ADMIN)
        except ServiceError as exc:
            modeladmin.message_user(
                request, f"{campaign}: {' '.join(exc.messages)}", messages.ERROR
            )
        else:
            modeladmin.message_user(request, f"{campaign}: {result.message}", messages.SUCCESS)


CampaignAdmin.actions = [*(CampaignAdmin.actions or []), advance_campaigns]
