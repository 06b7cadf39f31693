"""REST API of a character's diary: the R25 table, one row per day, for its player and the
master (``personajes.api.private_character_for_api``, the sheet's own check), with an ETag so
a client polling it daily gets 304 until the tick writes a new row.

Source: RULES.md R25 (diary).
"""

from __future__ import annotations

import hashlib
from typing import Any

import django_filters
from django.db.models import Count, Max, QuerySet
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date, quote_etag
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
)
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from mundo.api import PageNumberPagination, errors
from mundo.models import DayTick
from nucleo import api_answers
from personajes.api import ModifierSerializer, private_character_for_api
from personajes.mapping import DIARY_CONDITION_FIELDS
from personajes.models import DiaryEntry


class DiaryPagination(PageNumberPagination):
    """Diaries are long: 100 rows a page by default (``?page_size=`` up to 500)."""

    page_size = 100


# --- diary (R25) -------------------------------------------------------------------------------


class DiaryEntrySerializer(serializers.ModelSerializer):
    """One row of the needs record (R25): what the daily tick did to the character that day.
    Counters and the penalty are as the tick left them (they apply to the next day)."""

    penalty_breakdown = ModifierSerializer(
        many=True,
        read_only=True,
        help_text=gettext_lazy("The penalty's lines (R9), points in %."),
    )
    disease_breakdown = ModifierSerializer(
        many=True,
        read_only=True,
        help_text=gettext_lazy("The disease probability's lines (R10), points in %."),
    )

    class Meta:
        model = DiaryEntry
        fields = [
            "day",
            "date",
            "weather_label",
            "min_temp_c",
            "kcal_eaten",
            "kcal_needed",
            "water_l",
            "water_needed_l",
            "sleep_h",
            "sleep_needed_h",
            "hygiene_ok",
            *DIARY_CONDITION_FIELDS,
            "penalty_total",
            "penalty_breakdown",
            "disease_p",
            "disease_breakdown",
            "disease_die",
            "fell_ill",
            "status",
            "death_cause",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "day": {"help_text": gettext_lazy("In-game day the row is about.")},
            "date": {"help_text": gettext_lazy("Its calendar date (ISO 8601).")},
            "weather_label": {"help_text": gettext_lazy("The day's sky in words (R11).")},
            "min_temp_c": {"help_text": gettext_lazy("The day's minimum temperature, °C.")},
            "kcal_eaten": {"help_text": gettext_lazy("Food eaten, kcal (R6, R15).")},
            "kcal_needed": {"help_text": gettext_lazy("Food needed, kcal (default 2000).")},
            "water_l": {"help_text": gettext_lazy("Water drunk, L.")},
            "water_needed_l": {"help_text": gettext_lazy("Water needed, L (default 2).")},
            "sleep_h": {"help_text": gettext_lazy("Sleep, h.")},
            "sleep_needed_h": {"help_text": gettext_lazy("Sleep needed, h (default 6).")},
            "hygiene_ok": {"help_text": gettext_lazy("Adequate hygiene that day (R7).")},
            "hunger_days": {"help_text": gettext_lazy("Consecutive hungry days (R6).")},
            "thirst_days": {"help_text": gettext_lazy("Consecutive thirsty days (R6).")},
            "fatigue_days": {"help_text": gettext_lazy("Consecutive days short of sleep (R6).")},
            "unhygienic_days": {
                "help_text": gettext_lazy("Consecutive days without adequate hygiene (R7).")
            },
            "dirty": {"help_text": gettext_lazy("Dirty (R8).")},
            "extra_dirt": {"help_text": gettext_lazy("Extra dirt (R8).")},
            "disease_day": {"help_text": gettext_lazy("Day x of the disease; 0 = healthy.")},
            "disease_duration": {"help_text": gettext_lazy("Length of the disease, days.")},
            "infection_day": {"help_text": gettext_lazy("Day x of the infection; 0 = none.")},
            "infection_duration": {"help_text": gettext_lazy("Length of the infection, days.")},
            "days_without_food": {
                "help_text": gettext_lazy("Consecutive days under a quarter of the food (R6).")
            },
            "days_without_water": {
                "help_text": gettext_lazy("Consecutive days under a quarter of the water (R6).")
            },
            "days_without_sleep": {
                "help_text": gettext_lazy("Consecutive days under a quarter of the sleep (R6).")
            },
            "penalty_total": {"help_text": gettext_lazy("Action penalty, points (%) (R9).")},
            "disease_p": {
                "help_text": gettext_lazy(
                    "Chance of falling sick that day, % (R10); null if already sick."
                )
            },
            "disease_die": {"help_text": gettext_lazy("The d100 rolled against it, or null.")},
            "fell_ill": {"help_text": gettext_lazy("The die fell ill: die ≤ p.")},
            "status": {"help_text": gettext_lazy("alive, sick, infected, dead or risen.")},
            "death_cause": {"help_text": gettext_lazy("Cause of death (R14), if any.")},
        }


class DiaryFilter(django_filters.FilterSet):
    """``?day_min=`` and ``?day_max=``: in-game days, inclusive."""

    day_min = django_filters.NumberFilter(
        field_name="day", lookup_expr="gte", label=gettext_lazy("First day (inclusive).")
    )
    day_max = django_filters.NumberFilter(
        field_name="day", lookup_expr="lte", label=gettext_lazy("Last day (inclusive).")
    )

    class Meta:
        model = DiaryEntry
        fields: list[str] = []


@extend_schema(
    tags=["characters"],
    summary="A character's diary (R25 rows)",
    description="The needs record, one row per in-game day, oldest first: what was eaten "
    "(kcal), drunk (L), slept (h), the counters, the penalty and the disease roll with their "
    "breakdowns, the status. For the character's player and the master. Answers carry "
    "``ETag`` and ``Last-Modified``: send them back as ``If-None-Match`` / "
    "``If-Modified-Since`` and an unchanged diary answers 304 with no body.",
    responses={
        200: DiaryEntrySerializer(many=True),
        304: OpenApiResponse(description="Not modified since the ETag or date sent."),
        **errors(400, 403, 404),
    },
)
class DiaryView(generics.ListAPIView):
    """GET /api/v1/characters/{id}/diary/?day_min=&day_max= — with ETag / Last-Modified."""

    serializer_class = DiaryEntrySerializer
    pagination_class = DiaryPagination
    filterset_class = DiaryFilter

    def get_queryset(self) -> QuerySet[DiaryEntry]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return DiaryEntry.objects.none()
        return self.character.diary_entries.order_by("day")

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Any:
        # The answer, its ETag and date are kept while nothing they read changed
        # (``nucleo.api_answers``): a client polling an unchanged diary costs no query of it,
        # and one sending its ETag back gets its 304 the same way.
        key = api_answers.answer_key(request, "diary")
        kept = api_answers.stored_answer(key)
        if kept is None:
            with api_answers.recording(request, key) as rec:
                kept = self._answer(request, *args, **kwargs)
                api_answers.keep(rec, kept)
        etag, last_modified = kept["etag"], kept["last_modified"]
        not_modified = get_conditional_response(
            request._request, etag=etag, last_modified=last_modified
        )
        if not_modified is not None:
            response = Response(status=not_modified.status_code)
        else:
            response = Response(kept["data"])
        response["ETag"] = etag
        if last_modified is not None:
            response["Last-Modified"] = http_date(last_modified)
        response["Cache-Control"] = "private, no-cache"
        patch_vary_headers(response, ("Authorization", "Cookie"))
        return response

    def _answer(self, request: Request, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """``{"data": the page's answer, "etag": its quoted ETag, "last_modified": the last
        tick's time, s since the epoch, or None}``; 403/404 from the sheet's check, 400 for a
        bad filter."""
        self.character = private_character_for_api(self.kwargs["pk"], request.user)
        entries = self.filter_queryset(self.get_queryset())
        # One aggregate: entries are written once per day by the tick (never edited), so the
        # count, the last day and the last id change exactly when the diary does.
        state = entries.aggregate(n=Count("pk"), last_day=Max("day"), last_id=Max("pk"))
        version = (
            f"{self.character.pk}:{state['n']}:{state['last_day']}:{state['last_id']}:"
            f"{request.GET.urlencode()}"
        )
        etag = quote_etag(hashlib.sha256(version.encode()).hexdigest()[:32])
        last_modified = None
        if state["last_day"] is not None:
            tick = (
                DayTick.objects.filter(campaign_id=self.character.campaign_id)
                .order_by("-day")
                .values_list("created_at", flat=True)
                .first()
            )
            last_modified = int(tick.timestamp()) if tick else None
        data = super().list(request, *args, **kwargs).data
        return {"data": data, "etag": etag, "last_modified": last_modified}


__all__ = ["DiaryView"]
