"""Pages of the world: the campaign list, a campaign, a settlement with its population curve."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _
from django.views.decorators.vary import vary_on_headers

from mundo import access, charts, forms, rules, rules_text, selectors, services
from mundo.models import Campaign, Invitation, Location, Settlement, WorldRoll
from mundo.world_page import (
    ACTION_SECTIONS,
    PAGE_SIZE,
    SECTIONS,
    WINDOW,
    WorldScope,
    open_sections,
    section_url,
    world_scope,
)
from mundo.world_texts import world_roll_text
from nucleo.errors import ServiceError
from nucleo.forms import FormsOnDemand, add_service_errors, window_choices
from nucleo.urls import url_maker
from nucleo.users import AuthenticatedHttpRequest
from reglas.settings import RuleSettings
from reglas.supplies import arrival_kit
from reglas.verify import commitment_of

CURVE_DAYS = 30


def campaign_list(request: HttpRequest) -> HttpResponse:
    """The campaigns the visitor may read (public ones, and their own when signed in)."""
    campaigns = access.campaigns_visible_to(request.user).order_by("name")
    return render(request, "mundo/campaign_list.html", {"campaigns": campaigns})


CAMPAIGN_TEMPLATE = "mundo/campaign_detail.html"


def campaign_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """A campaign: its day and date, and its settlements with today's population (R17, R18),
    ``PAGE_SIZE`` at a time by name (``?page=``; a bad number is the nearest page), with the
    weather and grids of the region and of that page's settlements. Served through
    ``partida.world_views.campaign_page`` (which keeps a signed-in reader's page whole)."""
    return render(request, CAMPAIGN_TEMPLATE, campaign_detail_context(request, slug))


def campaign_detail_context(request: HttpRequest, slug: str) -> dict[str, Any]:
    """The campaign page's template context (``CAMPAIGN_TEMPLATE``). Http404 when the
    visitor may not read the campaign (``access.access_campaign``)."""
    campaign, viewer = access.access_campaign(request.user, slug=slug)
    settlements = Settlement.objects.filter(campaign=campaign).order_by("name", "pk")
    page = Paginator(settlements, PAGE_SIZE).get_page(request.GET.get("page"))
    for settlement in page:
        settlement.campaign = campaign
    statuses = selectors.settlements_with_status(campaign, page)
    url_of = url_maker("mundo:settlement", "settlement", slug=campaign.slug)
    return {
        "campaign": campaign,
        "role": viewer.role,
        "page": page,
        "statuses": statuses,
        # (status, its settlement's page): one reverse for the page, not one per row.
        "settlement_rows": [(s, url_of(s.settlement.slug)) for s in statuses],
        "world": selectors.world_on(campaign, campaign.current_day, page),
        # The open dice period's public commitment (issue 16): computed, no query.
        "dice_commitment": commitment_of(campaign.entropy),
    }


def settlement_detail(request: HttpRequest, slug: str, settlement: str) -> HttpResponse:
    """A settlement: today's figures and the population curve over days 0–30 (SVG + table)."""
    campaign = access.access_campaign(request.user, slug=slug)[0]
    place = selectors.settlement_get(campaign=campaign, slug=settlement)
    today = campaign.current_day
    last_day = max(CURVE_DAYS, today)
    curve = selectors.settlement_curve(place, 0, last_day)
    days = list(range(0, last_day + 1))
    chart = charts.line_chart(
        title=_("Population of %(name)s, days 0–%(last)s") % {"name": place.name, "last": last_day},
        description=_(
            "Zombies and survivors per day since the apocalypse; today is day %(day)s: "
            "%(zombies)s zombies and %(survivors)s survivors."
        )
        % {
            "day": today,
            "zombies": curve[today].zombies,
            "survivors": curve[today].survivors,
        },
        xs=days,
        series=[
            (_("Zombies"), "zombies", [p.zombies for p in curve]),
            (_("Survivors"), "survivors", [p.survivors for p in curve]),
        ],
        marker=today,
        marker_label=_("today"),
        # The days already played (day 0 up to today) are shaded; the rest is the forecast.
        shaded_until=today,
    )
    return render(
        request,
        "mundo/settlement_detail.html",
        {
            "campaign": campaign,
            "settlement": place,
            "status": selectors.settlement_status(place, today),
            "chart": chart,
            "rows": list(zip(days, curve, strict=True)),
            "today": today,
        },
    )


@login_required
def campaign_create(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Any signed-in user creates a campaign and becomes its master."""
    form = forms.CampaignCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        campaign = services.campaign_create(user=request.user, **form.cleaned_data)
        messages.success(request, _("Campaign created: you are its master."))
        return redirect(campaign)
    return render(request, "mundo/campaign_form.html", {"form": form})


@login_required
def invitation_list(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """The master's invitation links: create one (single use or expiring), revoke one."""
    campaign = access.access_campaign(request.user, slug=slug, master=True)[0]
    form = forms.InvitationCreateForm(request.POST or None)
    if request.method == "POST":
        if "revoke" in request.POST:
            invitation = get_object_or_404(
                Invitation, campaign=campaign, token=request.POST["revoke"]
            )
            services.invitation_revoke(invitation=invitation, user=request.user)
            messages.success(request, _("Invitation revoked."))
            return redirect("mundo:invitations", slug=campaign.slug)
        if form.is_valid():
            services.invitation_create(
                campaign=campaign,
                created_by=request.user,
                single_use=form.cleaned_data["kind"] == "single",
                valid_days=form.cleaned_data["valid_days"],
            )
            messages.success(request, _("Invitation created: share its link."))
            return redirect("mundo:invitations", slug=campaign.slug)
    invitations = [
        (inv, services.invitation_problem(inv), request.build_absolute_uri(inv.get_absolute_url()))
        for inv in campaign.invitations.all()
    ]
    return render(
        request,
        "mundo/invitation_list.html",
        {"campaign": campaign, "form": form, "invitations": invitations},
    )


def invitation_detail(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation link: shows the campaign; a signed-in user accepts it with one click.

    Anonymous visitors are offered to sign in or sign up, coming back here afterwards.
    """
    invitation = get_object_or_404(Invitation.objects.select_related("campaign"), token=token)
    problem = services.invitation_problem(invitation)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        try:
            services.invitation_accept(token=token, user=request.user)
        except ServiceError as exc:
            problem = " ".join(exc.messages)
        else:
            messages.success(request, _("Welcome to %(name)s!") % {"name": invitation.campaign})
            return redirect(invitation.campaign)
    return render(
        request,
        "mundo/invitation_detail.html",
        {
            "invitation": invitation,
            "campaign": invitation.campaign,
            "problem": problem,
            "already_member": request.user.is_authenticated
            and access.campaign_role(invitation.campaign, request.user) is not None,
        },
        status=410 if problem else 200,
    )


def _undiscovered_shop(place: Location) -> bool:
    return place.kind == Location.Kind.SHOP and place.discovered_day is None


_SEARCHABLE = (Location.Kind.DWELLING, Location.Kind.SHOP)


def _unsearched(place: Location) -> bool:
    return place.kind in _SEARCHABLE and place.searched_day is None


def _world_forms(
    campaign: Campaign,
    scope: WorldScope,
    world: Any,
    data: Any = None,
    action: str | None = None,
) -> FormsOnDemand[Any]:
    """The master's world forms, each built when first read (``FormsOnDemand``: a closed
    section's forms cost nothing); only the posted one is bound. Their choices are the
    ``scope``'s (``mundo.world_page``; the grids, the region's and the chosen settlement's,
    are ``world``'s, ``selectors.world_on``'s answer read once for the page): they accept any
    row of the campaign. They render through the
    site's memo renderer (``nucleo.forms.MemoRenderer``): most of the page's time was their
    selects' templates."""

    def bound(name: str) -> Any:
        return data if action == name else None

    places = Location.objects.filter(settlement__campaign=campaign).select_related("settlement")

    def in_settlement(form: Any) -> Any:
        window_choices(form.fields["settlement"], scope.chosen())
        if scope.settlement is not None and not form.is_bound:
            form.initial["settlement"] = scope.settlement.pk
        return form

    def place_choice(name: str, queryset: Any, keep: Any) -> Any:
        # ``keep`` is ``queryset``'s filter as a test of one row, applied to the settlement's
        # places read once (``WorldScope.places``).
        form = forms.LocationChoiceForm(bound(name), queryset=queryset, prefix=name)
        field = form.fields["location"]
        window_choices(field, scope.places(field.queryset, keep))  # type: ignore[attr-defined]
        return form

    def restore() -> Any:
        form = forms.RestoreForm(bound("restore"), campaign=campaign, prefix="restore")
        window_choices(form.fields["grid"], world.grids)
        return form

    return FormsOnDemand(
        {
            "settlement": lambda: forms.SettlementCreateForm(
                bound("settlement"),
                prefix="settlement",
                initial={"growth_rate": campaign.rules.growth_rate},
            ),
            "adjust": lambda: in_settlement(
                forms.SettlementAdjustForm(bound("adjust"), campaign=campaign, prefix="adjust")
            ),
            "location": lambda: in_settlement(
                forms.LocationCreateForm(bound("location"), campaign=campaign, prefix="location")
            ),
            "discover": lambda: place_choice(
                "discover",
                places.filter(kind=Location.Kind.SHOP, discovered_day__isnull=True),
                _undiscovered_shop,
            ),
            "search": lambda: place_choice(
                "search",
                places.filter(kind__in=_SEARCHABLE, searched_day__isnull=True),
                _unsearched,
            ),
            "route": lambda: in_settlement(
                forms.RouteCheckForm(bound("route"), campaign=campaign, prefix="route")
            ),
            "restore": restore,
            "schedule": lambda: forms.ScheduleForm(
                bound("schedule"),
                prefix="schedule",
                initial={"schedule": campaign.schedule, "tick_time": campaign.tick_time},
            ),
        }
    )


def _run_world_action(
    action: str, form: Any, campaign: Campaign, user: Any
) -> tuple[str, WorldRoll | None]:
    """Call the service behind a master's world form; returns (message, roll or None)."""
    data = form.cleaned_data
    if action == "settlement":
        place = services.settlement_create(campaign=campaign, user=user, **data)
        return _("Settlement created: %(name)s.") % {"name": place.name}, None
    if action == "adjust":
        place = data.pop("settlement")
        services.settlement_adjust(settlement=place, user=user, **data)
        return _("Tally of %(name)s saved.") % {"name": place.name}, None
    if action == "location":
        location = services.location_create(user=user, **data)
        return _("Place created: %(name)s.") % {"name": location.name}, None
    if action == "discover":
        roll = services.shop_discover(location=data["location"], user=user)
        return world_roll_text(roll), roll
    if action == "search":
        roll = services.location_search(location=data["location"], user=user)
        return world_roll_text(roll), roll
    if action == "route":
        roll = services.route_check(
            settlement=data["settlement"], user=user, path_m=data["path_m"], mode=data["mode"]
        )
        return world_roll_text(roll), roll
    if action == "restore":
        roll = services.utility_restore(
            grid=data["grid"], user=user, power=data["power"], water=data["water"]
        )
        return world_roll_text(roll), roll
    if action == "schedule":
        services.campaign_schedule_set(campaign=campaign, user=user, **data)
        return _("Schedule saved."), None
    raise Http404("No such action")


WORLD_TEMPLATE = "mundo/world_master.html"


def world_template(request: HttpRequest) -> str:
    """The world page's template for this request: one section alone (the template's partial
    of that name) for htmx's GET of a section being opened (``?open=<name>``), else the whole
    page. Source of the names: ``mundo.world_page.SECTIONS``."""
    wanted = request.GET.get("open", "")
    if request.method == "GET" and getattr(request, "htmx", False) and wanted in SECTIONS:
        return f"{WORLD_TEMPLATE}#{wanted}"
    return WORLD_TEMPLATE


@login_required
@vary_on_headers("HX-Request")
def world_master(request: HttpRequest, slug: str) -> HttpResponse:
    """The master's world page: settlements, places, grids, and the master's world actions
    (discover a shop R23, search a place R22, check a route R18, restore power or water R16),
    each roll shown with its dice. Only the campaign's master reaches it (404 otherwise).
    Its task sections render when open (``world_template``). Served through
    ``partida.world_page`` (which keeps a GET's page whole)."""
    answer = world_master_context(request, slug)
    if isinstance(answer, HttpResponse):
        return answer
    status = 400 if answer["failed"] else 200
    return render(request, world_template(request), answer, status=status)


def world_master_context(request: HttpRequest, slug: str) -> HttpResponse | dict[str, Any]:
    """The world page's template context (``WORLD_TEMPLATE``; ``failed`` names the posted
    action whose form did not pass, answered with status 400; ``open``, the sections rendered
    open), or the redirect after an action that ran (to the page with its section open).
    What only a section shows (its forms, the places, the tallies) is read when that section
    renders. Http404 for a visitor who is not the campaign's master or an unknown action."""
    campaign = access.access_campaign(request.user, slug=slug, master=True)[0]
    action = request.POST.get("action") if request.method == "POST" else None
    scope = world_scope(campaign, request.GET)
    # Today's weather and grids: the page shows them, a section alone only the grids' form.
    world = SimpleLazyObject(
        lambda: selectors.world_on(campaign, campaign.current_day, [scope.settlement])
    )
    world_forms = _world_forms(campaign, scope, world, request.POST or None, action)
    if action is not None:
        form = world_forms.get(action)
        if form is None:
            raise Http404("No such action")
        if form.is_valid():
            try:
                message, _roll = _run_world_action(action, form, campaign, request.user)
            except ServiceError as exc:
                add_service_errors(form, exc)
            else:
                messages.success(request, message)
                url = reverse("mundo:world", kwargs={"slug": campaign.slug})
                return redirect(section_url(url, scope, ACTION_SECTIONS[action]))

    def places() -> list[Location]:
        rows = scope.place_rows()
        if rows is None:
            rows = selectors.locations_of(campaign, scope.settlement, limit=WINDOW)
        return rows

    return {
        "campaign": campaign,
        "forms": world_forms,
        "failed": action,
        "open": open_sections(request.GET, action),
        "scope": scope,
        "statuses": SimpleLazyObject(
            lambda: selectors.settlements_with_status(campaign, scope.page)
        ),
        # The chosen settlement's places by kind and name, read once for the forms too.
        "locations": SimpleLazyObject(places),
        "world": world,
        "rolls": SimpleLazyObject(lambda: selectors.world_rolls(campaign, limit=10)),
    }


def _rule_forms(
    campaign: Campaign, data: Any = None, action: str | None = None
) -> tuple[list[Any], list[Any]]:
    """The rules page's forms: one per rule id, one per table; only the posted one is bound."""
    current = campaign.rules.to_dict()
    settings_forms = [
        forms.RuleSettingsForm(
            data if action == f"settings:{group}" else None,
            group=group,
            rows=rows,
            prefix=group,
            initial={row["name"]: current[row["name"]] for row in rows},
        )
        for group, rows in rules.setting_groups()
    ]
    tables = campaign.tables.to_dict()
    table_forms = [
        forms.RuleTableForm(
            data if action == f"table:{name}" else None,
            table=name,
            data=tables[name],
            prefix=name,
        )
        for name in rules.EDITABLE_TABLES
    ]
    return settings_forms, table_forms


def _save_rules(action: str, form: Any, campaign: Campaign, user: Any) -> Any:
    """Call the service behind the posted rules form; ServiceError goes back to the form."""
    if action.startswith("settings:"):
        return rules.rule_settings_save(
            campaign=campaign, user=user, group=form.group, values=form.values()
        )
    return rules.rule_table_save(
        campaign=campaign, user=user, table=form.table, data=form.table_json()
    )


@login_required
def rules_master(request: HttpRequest, slug: str) -> HttpResponse:
    """The master's rules page: every setting by rule id (with its unit and default) and the
    campaign's tables as rows, each group saved on its own and logged (who, when, old → new).
    Only the campaign's master reaches it (404 otherwise). Source: RULES.md principle 1."""
    campaign = access.access_campaign(request.user, slug=slug, master=True)[0]
    action = request.POST.get("action", "") if request.method == "POST" else None
    settings_forms, table_forms = _rule_forms(campaign, request.POST or None, action)
    shelter = rules.arrival_shelter(campaign)
    arrival_form = forms.ArrivalForm(
        request.POST if action == "arrival" else None,
        campaign=campaign,
        initial={"shelter": shelter},
        prefix="arrival",
    )
    if action == "arrival":
        if arrival_form.is_valid():
            chosen = arrival_form.cleaned_data["shelter"]
            try:
                change = rules.arrival_shelter_set(
                    campaign=campaign, user=request.user, shelter_id=chosen.pk if chosen else None
                )
            except ServiceError as exc:
                add_service_errors(arrival_form, exc)
            else:
                messages.success(request, _("Rules saved.") if change else _("Nothing changed."))
                return redirect("mundo:rules", slug=campaign.slug)
    elif action is not None:
        posted = {f"settings:{f.group}": f for f in settings_forms}
        posted.update({f"table:{f.table}": f for f in table_forms})
        form = posted.get(action)
        if form is None:
            raise Http404("No such action")
        if form.is_valid():
            try:
                change = _save_rules(action, form, campaign, request.user)
            except ServiceError as exc:
                if isinstance(form, forms.RuleTableForm):
                    form.add_path_errors(exc)
                else:
                    add_service_errors(form, exc)
            else:
                messages.success(request, _("Rules saved.") if change else _("Nothing changed."))
                return redirect("mundo:rules", slug=campaign.slug)
    return render(
        request,
        "mundo/rules_master.html",
        {
            "campaign": campaign,
            "settings_forms": settings_forms,
            "table_forms": table_forms,
            "table_titles": rules.TABLE_TITLES,
            "arrival_form": arrival_form,
            "arrival_shelter": shelter,
            "kit": arrival_kit(campaign.rules),
            "rulebook": RuleSettings(),
            "changes": rules.rule_changes(campaign),
            "failed": action,
        },
        status=400 if action else 200,
    )


def day_list(request: HttpRequest, slug: str) -> HttpResponse:
    """The days the campaign has played, newest first, each linking to its history page."""
    campaign = access.access_campaign(request.user, slug=slug)[0]
    return render(
        request,
        "mundo/day_list.html",
        {"campaign": campaign, "ticks": selectors.played_days(campaign)},
    )


def rules_read(request: HttpRequest, slug: str) -> HttpResponse:
    """The campaign's rules for everyone who may see the campaign: R1–R25 with its current
    numbers, the readings we chose and its tables; each rule at the anchor ``#R<n>`` the
    breakdowns link to. Source: RULES.md R1–R25."""
    campaign, viewer = access.access_campaign(request.user, slug=slug)
    return render(
        request,
        "mundo/rules_read.html",
        {
            "campaign": campaign,
            "role": viewer.role,
            "sections": rules_text.rule_sections(campaign),
            "tables": rules_text.table_views(campaign),
        },
    )
