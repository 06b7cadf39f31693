"""The profile page: the user's API tokens — make one (its key is shown once), revoke one —
and their dice seed in each campaign (``partida.dice_views.seed`` saves it)."""

from __future__ import annotations

import re

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from mundo.models import Membership
from nucleo.errors import ServiceError
from nucleo.forms import add_service_errors
from partida import services
from partida.models import ApiToken
from reglas.verify import sha256_text


class TokenForm(forms.Form):
    """The name of a new API token."""

    name = forms.CharField(
        label=gettext_lazy("Token name"),
        max_length=services.NAME_MAX_LENGTH,
        help_text=gettext_lazy("What it is for, e.g. “diary bot” or “phone”."),
    )


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    """GET: my tokens. POST ``name``: make a token and show its key this once (the page is
    rendered, not redirected to, so the key is never stored anywhere). POST ``revoke=<id>``:
    revoke one of mine (404 for anyone else's) and come back here."""
    form = TokenForm(request.POST if "name" in request.POST else None)
    new_key = None
    if request.method == "POST":
        if "revoke" in request.POST:
            revoke_id = request.POST["revoke"]
            token = get_object_or_404(
                ApiToken,
                pk=int(revoke_id) if re.fullmatch(r"[0-9]{1,18}", revoke_id) else 0,
                user=request.user,
            )
            services.token_revoke(token=token, user=request.user)
            messages.success(request, _("Token “%(name)s” revoked.") % {"name": token.name})
            return redirect("profile")
        if form.is_valid():
            try:
                made = services.token_create(user=request.user, name=form.cleaned_data["name"])
            except ServiceError as exc:
                add_service_errors(form, exc)
            else:
                new_key = made.key
                form = TokenForm()
    tokens = ApiToken.objects.filter(user=request.user)
    response = render(
        request,
        "partida/profile.html",
        {
            "form": form,
            "tokens": tokens,
            "new_key": new_key,
            # Verifiable dice: my seed in each campaign (set or reset on the page).
            "dice_seeds": [
                (m, sha256_text(m.dice_seed))
                for m in Membership.objects.filter(user=request.user)
                .select_related("campaign")
                .order_by("campaign__name")
            ],
        },
        status=201 if new_key else 200,
    )
    if new_key:
        # The key is on this page only: keep it out of caches and the back button.
        response["Cache-Control"] = "no-store"
    return response
