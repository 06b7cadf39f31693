"""Verifiable dice pages: the docs, a campaign's dice periods (commitments, revealed secrets,
the master's "close the period"), a closed period's verification and archive download, a
member's dice seed, the master's reveal of a secret roll. Thin: access, one service, render.
Source: issue 16.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from escenas.models import PostRoll
from mundo.access import access_campaign
from mundo.models import Campaign, EntropyPeriod, Membership
from mundo.periods import dice_seed_set, period_close
from nucleo.errors import ServiceError
from nucleo.users import AuthenticatedHttpRequest
from partida.dice import period_archive, period_verify, secret_roll_reveal
from reglas.verify import sha256_text


def docs(request: HttpRequest) -> HttpResponse:
    """What a player can check about the dice and what it proves, in Spanish or English."""
    english = (get_language() or "es").startswith("en")
    return render(request, f"partida/dice_docs_{'en' if english else 'es'}.html")


def _period(campaign: Campaign, number: int) -> EntropyPeriod:
    period = EntropyPeriod.objects.filter(campaign=campaign, number=number).first()
    if period is None:
        raise Http404("No such period")
    return period


def periods(request: HttpRequest, slug: str) -> HttpResponse:
    """A campaign's dice periods: the open one's commitment, the closed ones' secrets; a
    member's own seed; the master's button to close the period."""
    campaign, viewer = access_campaign(request.user, slug=slug)
    membership = (
        Membership.objects.filter(campaign=campaign, user=request.user).first()
        if viewer.is_member and request.user.is_authenticated  # a member is signed in
        else None
    )
    return render(
        request,
        "partida/dice_periods.html",
        {
            "campaign": campaign,
            "viewer": viewer,
            "periods": EntropyPeriod.objects.filter(campaign=campaign).order_by("-number"),
            "membership": membership,
            "seed_sha256": sha256_text(membership.dice_seed) if membership else "",
        },
    )


def period_detail(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """One period: its commitment (and, closed, its entropy); for members of a closed period,
    the verification of every roll and the archive's link."""
    campaign, viewer = access_campaign(request.user, slug=slug)
    period = _period(campaign, number)
    context = {"campaign": campaign, "viewer": viewer, "period": period}
    if not period.is_open and viewer.is_member:
        context["report"] = period_verify(period)
        if viewer.is_master:
            context["secret_links"] = (
                PostRoll.objects.filter(
                    roll__campaign=campaign, roll__period=period.number, hidden=True
                )
                .select_related("roll", "roll__character")
                .order_by("roll__day", "roll_id")
            )
    return render(request, "partida/dice_period.html", context)


@login_required
def archive(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """The closed period's archive as a JSON download (members only; 404 while open)."""
    campaign = access_campaign(request.user, slug=slug, member=True)[0]
    period = _period(campaign, number)
    if period.is_open:
        raise Http404("The period is open")
    body = json.dumps(period_archive(period), ensure_ascii=False, indent=1)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    name = f"{campaign.slug}-dados-{period.number}.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@require_POST
@login_required
def close(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """The master closes the open dice period now (POST, CSRF)."""
    campaign = access_campaign(request.user, slug=slug, master=True)[0]
    try:
        closed = period_close(campaign=campaign, master=request.user)
    except ServiceError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(
            request,
            _("Dice period %(n)s closed: its secret is revealed.") % {"n": closed.number},
        )
    return redirect("dice_periods", slug=campaign.slug)


@require_POST
@login_required
def seed(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """A member sets (``seed``) or resets (``reset``) their dice seed in the campaign; back to
    ``next`` (a local address) or the campaign's dice page."""
    campaign = access_campaign(request.user, slug=slug, member=True)[0]
    membership = Membership.objects.get(campaign=campaign, user=request.user)
    try:
        dice_seed_set(
            membership=membership,
            seed=None if "reset" in request.POST else request.POST.get("seed", ""),
        )
    except ServiceError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, _("Your dice seed for this campaign is saved."))
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = reverse("dice_periods", kwargs={"slug": campaign.slug})
    return redirect(target)


@require_POST
@login_required
def reveal(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """The master reveals what a secret roll of a closed period was for (POST, CSRF)."""
    campaign = access_campaign(request.user, slug=slug, master=True)[0]
    link = PostRoll.objects.filter(pk=pk, roll__campaign=campaign).select_related("roll").first()
    if link is None:
        raise Http404("No such roll")
    try:
        secret_roll_reveal(link=link, master=request.user)
    except ServiceError as exc:
        messages.error(request, " ".join(exc.messages))
    return redirect("dice_period", slug=campaign.slug, number=link.roll.period)
