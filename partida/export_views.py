"""The campaign's export page (its masters only): ask for an archive of the whole campaign,
watch it being built, download it.

The page polls its status box with htmx while the archive is built (every 2 s); without
JavaScript it reloads itself (a refresh meta tag) until the archive is ready. The file is
served by ``download`` after the same access check, never by its media path.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers

from mundo.access import access_campaign
from nucleo.errors import ServiceError
from nucleo.users import AuthenticatedHttpRequest
from partida import exports


@login_required
@vary_on_headers("HX-Request")
def export_page(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """GET: the newest export and its state (the htmx poll asks for the status box alone)."""
    campaign = access_campaign(request.user, slug=slug, master=True)[0]
    context = {"campaign": campaign, "export": exports.latest_export(campaign)}
    if request.htmx:
        return render(request, "partida/_export_status.html", context)
    return render(request, "partida/export.html", context)


@require_POST
@login_required
def export_create(request: HttpRequest, slug: str) -> HttpResponse:
    """POST (CSRF): ask for a new export; back to the page, which shows its progress."""
    user = request.user
    assert user.is_authenticated  # login_required
    campaign = access_campaign(user, slug=slug, master=True)[0]
    exports.export_request(campaign=campaign, user=user)
    return redirect("campaign_export", slug=campaign.slug)


@login_required
def export_download(request: HttpRequest, slug: str, pk: int) -> HttpResponseBase:
    """The archive (zip) of a ready export, as an attachment, to the campaign's masters (404
    for anyone else). A gone export sends the master back to the page with a message."""
    campaign = access_campaign(request.user, slug=slug, master=True)[0]
    try:
        export = exports.export_for_download(campaign, pk)
    except ServiceError as error:
        messages.error(request, " ".join(error.messages))
        return redirect("campaign_export", slug=campaign.slug)
    response = FileResponse(
        export.file.open("rb"),
        as_attachment=True,
        filename=f"partida-{campaign.slug}-{export.created:%Y-%m-%d}.zip",
        content_type="application/zip",
    )
    response["Cache-Control"] = "private, no-store"
    return response
