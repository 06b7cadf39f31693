"""Master pages that compose the apps: advance the day (the tick), a day's history with every
character's diary table, and marking a character's day.

They live in ``partida`` because they read and write across ``mundo`` and ``personajes`` (the
layers allow only ``partida`` to import both). Views stay thin: a permission-checked fetch, a
form, one service.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers

from escenas import viewer_pages
from mundo import selectors
from mundo import views as mundo_views
from mundo.access import access_campaign
from mundo.models import DayTick
from nucleo.errors import ServiceError
from nucleo.forms import add_service_errors
from nucleo.users import AuthenticatedHttpRequest
from personajes import views as personajes_views

LARGE_CAMPAIGN = 500
"""Above this many characters the button queues the tick and the page polls for progress."""

GIVE_UP_AFTER_S = 180
"""A queued tick no worker has started after this many seconds stops the polling: the page
says so and offers to try again (a worker may be down: ``/salud/listo/`` tells)."""


@require_POST
@login_required
@vary_on_headers("HX-Request")
def advance_day_view(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """The master's "avanzar día" button (POST, CSRF). ``expected_day`` (the day the page
    showed) makes a double click advance once. A small campaign (or eager Celery) is ticked
    in the request; a large one is queued and the page polls ``advance_status``."""
    from partida import tasks, tick  # the tick imports every app: loaded on use
    from personajes.models import Character

    campaign = access_campaign(request.user, slug=slug, master=True)[0]
    try:
        expected = int(request.POST.get("expected_day", campaign.current_day))
    except ValueError:
        expected = campaign.current_day
    living = Character.objects.filter(campaign=campaign, status=Character.Status.APPROVED).count()
    queued = living > LARGE_CAMPAIGN and not settings.CELERY_TASK_ALWAYS_EAGER
    context: dict[str, Any] = {"campaign": campaign, "expected_day": expected}
    if queued:
        task_id = str(uuid.uuid4())
        transaction.on_commit(
            lambda: tasks.advance_campaign_day.apply_async(
                (campaign.pk, expected, "master"), task_id=task_id
            )
        )
        context.update(pending=True, task_id=task_id, since=int(time.time()))
    else:
        try:
            context["result"] = tick.advance_day(
                campaign, expected_day=expected, trigger=DayTick.Trigger.MASTER
            )
        except ServiceError as exc:
            context["error"] = " ".join(exc.messages)
    if request.htmx:
        return render(request, "mundo/_advance_status.html", context)
    if "error" in context:
        messages.error(request, context["error"])
    elif queued:
        messages.info(request, _("The day is being advanced; reload in a moment."))
    else:
        messages.success(request, context["result"].message)
    return redirect(campaign)


@login_required
def advance_status(request: HttpRequest, slug: str) -> HttpResponse:
    """The htmx fragment polled while a queued tick runs (GET ``day``, ``task``, ``since``):
    done once the day moved; the failure and its reason, with a retry button, when the task
    failed; a "no worker has taken it" notice with a retry once ``GIVE_UP_AFTER_S`` passed
    without the task starting. Only the last state keeps polling."""
    campaign = access_campaign(request.user, slug=slug, master=True)[0]
    try:
        expected = int(request.GET.get("day", campaign.current_day))
        since = int(request.GET.get("since", time.time()))
    except ValueError:
        raise Http404("Bad day") from None
    task_id = request.GET.get("task", "")
    record = DayTick.objects.filter(campaign=campaign, day=expected + 1).first()
    context: dict[str, Any] = {"campaign": campaign, "expected_day": expected}
    if record is not None:
        context["result"] = record  # a DayTick: it has the day and the message too
    else:
        context.update(_queued_state(task_id, since))
    return render(request, "mundo/_advance_status.html", context)


def _queued_state(task_id: str, since: int) -> dict[str, Any]:
    """What the status box shows for a tick that has not written its day yet: ``failed`` (with
    the reason the task raised), ``stalled`` (nobody started it in time) or ``pending``."""
    from celery.result import AsyncResult

    result = AsyncResult(task_id) if task_id else None
    state = result.state if result is not None else "PENDING"
    if result is not None and state == "FAILURE":
        reason = result.result
        return {"failed": True, "reason": str(reason) or type(reason).__name__}
    if state == "PENDING" and time.time() - since > GIVE_UP_AFTER_S:
        return {"stalled": True, "waited": GIVE_UP_AFTER_S}
    return {"pending": True, "task_id": task_id, "since": since}


def campaign_day(request: HttpRequest, slug: str, day: int) -> HttpResponse:
    """A past campaign-day: weather, outages, populations, deaths, and the diary tables (R25)
    the reader may see: every character's for the master, a player's own characters' for a
    player (a diary is its player's and the master's only, as on the diary page and the API).
    Deaths are public news: everyone who reads the campaign sees who died and how."""
    from personajes.models import DiaryEntry

    campaign, viewer = access_campaign(request.user, slug=slug)
    if day < 0 or day > campaign.current_day:
        raise Http404("No such day")
    history = selectors.day_history(campaign, day)
    day_entries = list(
        DiaryEntry.objects.filter(character__campaign=campaign, day=day)
        .select_related("character")
        .order_by("character__name")
    )
    if viewer.is_master:
        entries = day_entries
    else:
        entries = [e for e in day_entries if e.character.player_id == request.user.pk]
    return render(
        request,
        "mundo/day_detail.html",
        {
            "campaign": campaign,
            "history": history,
            "entries": entries,
            "deaths": [e for e in day_entries if e.status in ("dead", "risen")],
            "previous": day - 1 if day > 0 else None,
            "next": day + 1 if day + 1 < campaign.current_day else None,
        },
    )


@login_required
def day_record(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """The master marks a character's day (R7, R8, R15): hours slept, could not urinate or
    defecate, got dirty, showered. Refusals (a sleep of 25 h, a shower without water) come back
    on the form; nothing is saved then."""
    from partida.forms import DayRecordForm
    from personajes import days

    campaign = access_campaign(request.user, slug=slug, master=True)[0]
    form = DayRecordForm(request.POST or None, campaign=campaign)
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        character = data.pop("character")
        try:
            days.day_record_save(character=character, user=request.user, **data)
        except ServiceError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request,
                _("Day %(day)s of %(name)s marked.") % {"day": data["day"], "name": character},
            )
            return redirect("day_record", slug=campaign.slug)
    return render(
        request,
        "mundo/day_record_form.html",
        {"campaign": campaign, "form": form},
        status=400 if request.method == "POST" else 200,
    )


@vary_on_headers("HX-Request")
def world_page(request: HttpRequest, slug: str) -> HttpResponse:
    """The master's world page (``mundo.views.world_master``), a GET's page kept whole while
    nothing it read changed (``escenas.viewer_pages.world_key``: the viewer, the address with
    its settlement, filter and page, the language): a hit costs the session, the user and two
    cache round trips, no query of the page's and no render (issue 14). Per-request values
    are not kept: the forms' CSRF token is filled in on the way out (``viewer_pages.fill``),
    and a page with a message waiting (after an action) is rendered, never kept. Any write to
    a table the render read, through any Django path, makes the next GET render again: a
    move, a roll, a settlement's tally, the membership that lets the master in. A POST is the
    mundo view's as before. A section fetched on its own (htmx, ``mundo.views.world_template``)
    is kept the same way, under its own address. ``partida`` serves it because ``escenas``
    keeps the pages."""
    key = viewer_pages.world_key(request, slug)
    return _kept(
        request,
        slug,
        key,
        mundo_views.world_master,
        mundo_views.world_master_context,
        mundo_views.world_template(request),
    )


def campaign_page(request: HttpRequest, slug: str) -> HttpResponse:
    """The campaign's page (``mundo.views.campaign_detail``) for a signed-in reader, kept
    whole the same way as the world page (``escenas.viewer_pages.campaign_key``): its
    settlements, today's weather and grids, the cast and, for the master, what waits for them
    are all read in the render, so the tick, a move or a review makes it old. An anonymous
    visitor of a public campaign gets the mundo view's render."""
    key = viewer_pages.campaign_key(request, slug)
    return _kept(
        request,
        slug,
        key,
        mundo_views.campaign_detail,
        mundo_views.campaign_detail_context,
        mundo_views.CAMPAIGN_TEMPLATE,
    )


def characters_page(request: HttpRequest, slug: str) -> HttpResponse:
    """The master's character list (``personajes.views.campaign_characters``), kept whole the
    same way as the world page (``escenas.viewer_pages.characters_key``): a sheet sent for
    review, an approval, the tick's counters or a renamed player make it old."""
    key = viewer_pages.characters_key(request, slug)
    return _kept(
        request,
        slug,
        key,
        personajes_views.campaign_characters,
        personajes_views.campaign_characters_context,
        personajes_views.CHARACTERS_TEMPLATE,
    )


def _kept(
    request: HttpRequest,
    slug: str,
    key: str,
    view: Callable[[HttpRequest, str], HttpResponse],
    context_of: Callable[[HttpRequest, str], HttpResponse | dict[str, Any]],
    template: str,
) -> HttpResponse:
    """The page under ``key`` from the cache while nothing it read changed, else ``view``'s
    answer (an empty ``key``: not to be kept) or ``template`` rendered with ``context_of``'s
    context and kept (``viewer_pages``)."""
    kept = viewer_pages.stored_page(key)
    if kept is not None:
        return HttpResponse(viewer_pages.fill(request, kept))
    with viewer_pages.recording(request, key) as rec:
        if rec is None:
            return view(request, slug)
        answer = context_of(request, slug)
        if isinstance(answer, HttpResponse):  # a GET runs no action: never here
            return answer
        page = viewer_pages.render_and_keep(request, rec, template, answer, None)
        return HttpResponse(viewer_pages.fill(request, page))
