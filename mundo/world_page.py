"""The world page's window: the settlements by page (with a name filter) and the one settlement
the page is about, so that the page costs the same at 3 settlements or 300 (issue 14).

The master picks a settlement in the paginated list (``?en=<id>``, kept across the page's
links); the places table, the weather and grid lines and every form's choices are that
settlement's (and the settlements of the list's page, for the forms that choose one). The
forms still accept any row of the campaign: only what they *offer* is windowed
(``nucleo.forms.window_choices``). Source: RULES.md R16, R17, R18.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import django_filters
from django.core.paginator import Page, Paginator
from django.db.models import Case, Q, QuerySet, Value, When
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _

from mundo.models import Campaign, Location, Settlement
from nucleo.bounds import row_id

PAGE_SIZE = 20
"""Settlements per page of the world page's list."""

WINDOW = 50
"""Most rows a form's select or checkbox list offers (places, characters of the settlement)."""

SECTIONS = ("characters", "supplies", "places", "routes", "tallies", "schedule")
"""The world page's task sections (``<details>``, the template's partials of the same names).
A closed one is not rendered: opening it fetches it (htmx; without JavaScript its link asks
for the page with it open, ``?open=<name>``), so the page costs what it shows (issue 14)."""

ACTION_SECTIONS = {
    "move": "characters",
    "shelter": "characters",
    "give": "supplies",
    "transfer": "supplies",
    "discover": "places",
    "search": "places",
    "location": "places",
    "route": "routes",
    "restore": "routes",
    "tally": "tallies",
    "adjust": "tallies",
    "settlement": "tallies",
    "schedule": "schedule",
}
"""The section of each world form, by its action (``mundo.views`` and the controls of
``partida.world_controls``): open on its errors and after it ran."""


class SettlementFilter(django_filters.FilterSet):
    """``?q=`` settlements whose name contains it (any case)."""

    q = django_filters.CharFilter(
        field_name="name", lookup_expr="icontains", label=_("Settlement's name contains")
    )

    class Meta:
        model = Settlement
        fields: list[str] = []


@dataclass(frozen=True, slots=True)
class WorldScope:
    """What the world page shows: ``page`` (a ``Paginator`` page of ``Settlement`` rows with
    their campaign set), ``filter`` (the ``SettlementFilter``, for its form), ``settlement``
    (the chosen one; ``None`` only when the campaign has none or the filter matches none) and
    ``query`` (the filter and choice as a query string, for the page links). The rows its
    methods return are fetched once per page (several forms offer the same ones)."""

    page: Page
    filter: SettlementFilter
    settlement: Settlement | None
    query: str
    fetched: dict[Any, list[Any]] = field(default_factory=dict, repr=False, compare=False)

    def rows(self, key: Any, queryset: QuerySet[Any]) -> list[Any]:
        """``queryset``'s rows, fetched once per scope under ``key`` (a caller names each
        distinct queryset it asks for: compiling the SQL only to key it cost as much as
        running it)."""
        if key not in self.fetched:
            self.fetched[key] = list(queryset)
        return self.fetched[key]

    def settlements(self) -> list[Settlement]:
        """The page's settlements and the chosen one, by name (no query): what a form that
        sends characters somewhere offers."""
        rows = list(self.page.object_list)
        if self.settlement is not None and self.settlement not in rows:
            rows.append(self.settlement)
        return sorted(rows, key=lambda s: (s.name, s.pk))

    def chosen(self) -> list[Settlement]:
        """The chosen settlement alone (no query): what a form about one settlement offers."""
        return [self.settlement] if self.settlement is not None else []

    def place_rows(self) -> list[Location] | None:
        """Every place of the chosen settlement, by kind and name, with its settlement set
        (one query, at most ``WINDOW`` + 1 rows fetched); ``None`` when it has more than
        ``WINDOW`` (each list then takes its own first ``WINDOW``: see ``places``)."""
        if "places" not in self.fetched:
            rows: list[Location] = []
            if self.settlement is not None:
                rows = list(
                    Location.objects.filter(settlement=self.settlement).order_by(
                        "kind", "name", "pk"
                    )[: WINDOW + 1]
                )
                for row in rows:
                    row.settlement = self.settlement
            self.fetched["places"] = rows
        rows = self.fetched["places"]
        return rows if len(rows) <= WINDOW else None

    def places(
        self, queryset: QuerySet[Location], keep: Callable[[Location], bool] | None = None
    ) -> list[Location]:
        """``queryset`` narrowed to the chosen settlement's places, by name, at most
        ``WINDOW``. ``keep`` is ``queryset``'s filter as a test of one row: given, and the
        settlement holding at most ``WINDOW`` places, the rows are ``place_rows`` kept by it
        (no query of its own); otherwise one query."""
        rows = self.place_rows() if keep is not None else None
        if rows is not None and keep is not None:
            return sorted((p for p in rows if keep(p)), key=lambda p: (p.name, p.pk))
        narrowed = queryset.filter(settlement=self.settlement).order_by("name", "pk")[:WINDOW]
        return list(narrowed)

    def characters(self, queryset: QuerySet[Any], also: int | None = None) -> list[Any]:
        """``queryset`` (characters; the same one on every call) narrowed to those in the
        chosen settlement or in none (not placed yet), and the one with pk ``also`` (a link's
        preset) first when given; at most ``WINDOW``, with their pk and name only (what a
        choice shows)."""
        key = ("characters", also)
        if key in self.fetched:
            return self.fetched[key]
        here = Q(settlement=self.settlement) | Q(settlement__isnull=True)
        if also is None:
            rows = queryset.filter(here).order_by("name", "pk")
        else:
            first = Case(When(pk=also, then=Value(0)), default=Value(1))
            rows = queryset.filter(here | Q(pk=also)).order_by(first, "name", "pk")
        return self.rows(key, rows.only("pk", "name")[:WINDOW])


def world_scope(campaign: Campaign, query: Any) -> WorldScope:
    """The world page's window from its GET ``query`` (``q``, ``page``, ``en``; the page's
    forms post to URLs that keep it). A bad ``page`` gives the nearest page, a bad or foreign
    ``en`` the page's first settlement. Three queries at most."""
    # The campaign is the one already loaded (``settlement_status`` reads its rules): no join.
    settlements = Settlement.objects.filter(campaign=campaign)
    found = SettlementFilter(query or None, queryset=settlements.order_by("name", "pk"))
    page = Paginator(found.qs, PAGE_SIZE).get_page((query or {}).get("page"))
    for row in page:
        row.campaign = campaign
    wanted = row_id((query or {}).get("en"))
    settlement = next((s for s in page if s.pk == wanted), None)
    if settlement is None and wanted is not None:
        settlement = settlements.filter(pk=wanted).first()
        if settlement is not None:
            settlement.campaign = campaign
    if settlement is None and page.object_list:
        settlement = page[0]
    params = {k: v for k, v in (("q", (query or {}).get("q", "")),) if v}
    if settlement is not None:
        params["en"] = str(settlement.pk)
    return WorldScope(page=page, filter=found, settlement=settlement, query=urlencode(params))


def open_sections(query: Any, failed: str | None = None) -> frozenset[str]:
    """The sections the page renders open: ``?open=<name>`` (one of ``SECTIONS``; anything
    else opens none), the supplies for a give form's preset (``?give=<id>``, the pending
    list's "give water" link) and the section of the ``failed`` action (its form shows its
    errors)."""
    wanted = str((query or {}).get("open", ""))
    names = {wanted} if wanted in SECTIONS else set()
    if (query or {}).get("give"):
        names.add("supplies")
    if failed in ACTION_SECTIONS:
        names.add(ACTION_SECTIONS[failed])
    return frozenset(names)


def section_url(url: str, scope: WorldScope, section: str) -> str:
    """``url`` (the world page's) with the ``scope``'s query and ``section`` open, at its
    anchor: where an action of that section comes back to."""
    query = f"{scope.query}&open={section}" if scope.query else f"open={section}"
    return f"{url}?{query}#{section}"
