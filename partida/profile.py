"""The profile page: the user's language and time zone (``nucleo.readers``), their API tokens —
make one (its key is shown once), revoke one — and their dice seed in each campaign
(``partida.dice_views.seed`` saves it). Also the footer's language switch, which for a
signed-in user saves their language too."""

from __future__ import annotations

import re

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language as django_set_language

from mundo.models import Membership
from nucleo import readers
from nucleo.errors import ServiceError
from nucleo.forms import add_service_errors
from nucleo.users import AuthenticatedHttpRequest
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


class ReaderSettingsForm(forms.Form):
    """A user's language and time zone (``nucleo.readers.settings_save`` checks them)."""

    language = forms.ChoiceField(label=gettext_lazy("Language"), required=False)
    time_zone = forms.ChoiceField(
        label=gettext_lazy("Time zone"),
        help_text=gettext_lazy("Every time on the pages and in your e-mails is shown in it."),
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        language = self.fields["language"]
        assert isinstance(language, forms.ChoiceField)
        language.choices = [("", _("The site's (Spanish)"))] + [
            (code, name) for code, name in settings.LANGUAGES
        ]
        zone = self.fields["time_zone"]
        assert isinstance(zone, forms.ChoiceField)
        zone.choices = [(name, name.replace("_", " ")) for name in readers.time_zone_names()]


def _reader_settings_post(request: HttpRequest) -> tuple[ReaderSettingsForm, bool]:
    """Handle the settings form of a POST: the bound form, and True when it was saved (the
    new settings are in the session from this request on)."""
    form = ReaderSettingsForm(request.POST)
    if not form.is_valid():
        return form, False
    try:
        reader = readers.settings_save(
            user=request.user,
            language=form.cleaned_data["language"],
            time_zone=form.cleaned_data["time_zone"],
        )
    except ServiceError as exc:
        add_service_errors(form, exc)
        return form, False
    readers.session_store(request.session, reader)
    return form, True


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: AuthenticatedHttpRequest) -> HttpResponse:
    """GET: my tokens. POST ``name``: make a token and show its key this once (the page is
    rendered, not redirected to, so the key is never stored anywhere). POST ``revoke=<id>``:
    revoke one of mine (404 for anyone else's) and come back here."""
    form = TokenForm(request.POST if "name" in request.POST else None)
    new_key = None
    current = readers.reader_of(request.user)
    settings_form = ReaderSettingsForm(
        initial={"language": current.language, "time_zone": current.time_zone}
    )
    if request.method == "POST":
        if "time_zone" in request.POST:
            settings_form, saved = _reader_settings_post(request)
            if saved:
                messages.success(request, _("Your settings were saved."))
                return redirect("profile")
        elif "revoke" in request.POST:
            revoke_id = request.POST["revoke"]
            token = get_object_or_404(
                ApiToken,
                pk=int(revoke_id) if re.fullmatch(r"[0-9]{1,18}", revoke_id) else 0,
                user=request.user,
            )
            services.token_revoke(token=token, user=request.user)
            messages.success(request, _("Token “%(name)s” revoked.") % {"name": token.name})
            return redirect("profile")
        elif form.is_valid():
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
            "settings_form": settings_form,
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
        status=201 if new_key else (400 if settings_form.errors else 200),
    )
    if new_key:
        # The key is on this page only: keep it out of caches and the back button.
        response["Cache-Control"] = "no-store"
    return response


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """The footer's language switch: Django's ``set_language`` (the language cookie), and for
    a signed-in user their saved language too (it is what their pages and e-mails use)."""
    language = request.POST.get("language", "")
    if request.user.is_authenticated and language in {c for c, _n in settings.LANGUAGES}:
        reader = readers.language_save(user=request.user, language=language)
        readers.session_store(request.session, reader)
    return django_set_language(request)
