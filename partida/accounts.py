"""Accounts on django-allauth: our adapter, and the account pages allauth lacks.

allauth does sign-up (e-mail verified by a code typed in the same tab, so ``next`` — e.g. an
invitation link — survives), sign-in by username or e-mail, sign-out, password change and
reset, and e-mail change (settings: ``ACCOUNT_*``). ``AccountAdapter`` counts wrong passwords
per account, however the account is named, and says when to try again. The pages here: the
download of one's own data, the deletion of one's account, and the hand-over of a campaign one
masters alone, which deletion waits for (``partida.account_services``).
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from typing import Any

from allauth.account.adapter import DefaultAccountAdapter, get_adapter
from allauth.account.internal import flows
from allauth.core import context as allauth_context
from allauth.core.internal import ratelimit
from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model, logout
from django.contrib.auth.decorators import login_required
from django.contrib.sites.shortcuts import get_current_site
from django.core.cache import cache
from django.core.mail import EmailMultiAlternatives
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.html import strip_tags
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods

from mundo.access import access_campaign
from nucleo.errors import ServiceError
from nucleo.forms import add_service_errors
from nucleo.mail import message_new, outbox_enqueue
from nucleo.readers import as_reader, reader_of
from nucleo.users import AuthenticatedHttpRequest
from partida import account_services
from partida.accounts_signup import TAKEN_USERNAME_ATTR

LOGIN_FAILED = "login_failed"
SITE_NAME = "Partida"


def login_retry_after(request: HttpRequest, key: str) -> float:
    """Seconds until the ``login_failed`` limits let ``key`` try again (0 when they do now).

    Reads allauth's own counters (one list of timestamps per rate in the cache): a full rate
    frees a slot when its oldest attempt leaves the window.
    """
    now = time.time()
    wait = 0.0
    for rate in ratelimit.get_rates(app="allauth.account", action=LOGIN_FAILED):
        cache_key = ratelimit.get_cache_key(
            request, app="allauth.account", action=LOGIN_FAILED, rate=rate, key=key
        )
        history = [ts for ts in cache.get(cache_key, []) if ts > now - rate.duration]
        if len(history) >= rate.amount:
            wait = max(wait, min(history) + rate.duration - now)
    return wait


class AccountAdapter(DefaultAccountAdapter):
    """allauth's adapter with wrong passwords counted per account and a refusal that says when.

    ``ACCOUNT_RATE_LIMITS["login_failed"]`` (e.g. ``20/m/ip,5/5m/key``): every attempt counts
    before the password is checked and a right one is given back, so the 6th attempt on one
    account within 5 minutes is refused without checking the password. The key is the
    account's id when the login names one (by username or by any of its e-mails), so switching
    between them does not double the attempts; an unknown login keys on its own text.
    """

    def send_mail(self, template_prefix: str, email: str, context: dict[str, Any]) -> None:
        """allauth's mails (verification codes, password reset, e-mail change, notices),
        signed "Partida" rather than with the request's host name, rendered by allauth and
        saved to our outbox (``nucleo.mail``: sent at least once, after the commit, retried
        on failure), their subject and headers made safe by ``header_text``. A mail to a known
        user (a password reset, a notice) is in that user's language and time zone
        (``nucleo.readers``); one to a new address in the request's."""
        request = allauth_context.request
        site = get_current_site(request)
        site.name = SITE_NAME
        ctx = {"request": request, "email": email, "current_site": site, **context}
        user = context.get("user")
        reader = reader_of(user) if getattr(user, "pk", None) else None
        with as_reader(reader) if reader else contextlib.nullcontext():
            rendered = self.render_mail(template_prefix, email, ctx)
        html = ""
        if isinstance(rendered, EmailMultiAlternatives):
            html = next(
                (str(body) for body, mime in rendered.alternatives if mime == "text/html"), ""
            )
        text = str(rendered.body)
        if rendered.content_subtype == "html":
            html, text = text, strip_tags(text)
        outbox_enqueue(
            [
                message_new(
                    to=email,
                    subject=str(rendered.subject),
                    body_text=text,
                    body_html=html,
                    headers={k: str(v) for k, v in rendered.extra_headers.items()},
                    topic=f"account:{template_prefix.rsplit('/', 1)[-1]}"[:64],
                )
            ]
        )

    def send_account_already_exists_mail(self, email: str) -> None:
        """allauth's "the account already exists" mail, or, when the sign-up failed on a taken
        username (``partida.accounts_signup``), the mail that says so and links the sign-up."""
        username = getattr(allauth_context.request, TAKEN_USERNAME_ATTR, None)
        if username is None:
            super().send_account_already_exists_mail(email)
            return
        signup_url = flows.signup.get_signup_url(allauth_context.request)
        self.send_mail(
            "account/email/username_taken",
            email,
            {"username": username, "signup_url": signup_url},
        )

    def _get_login_attempts_cache_key(self, request: HttpRequest, **credentials: Any) -> str:
        login = str(credentials.get("email") or credentials.get("username") or "").strip()
        user = (
            get_user_model()
            .objects.filter(
                Q(username__iexact=login)
                | Q(email__iexact=login)
                | Q(emailaddress__email__iexact=login)
            )
            .order_by("pk")
            .values_list("pk", flat=True)
            .first()
            if login
            else None
        )
        ident = f"user:{user}" if user is not None else login.lower()
        return f"{get_current_site(request).domain}:{ident}"

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        """Count this attempt; refuse it (ValidationError saying in how many minutes the account
        may try again) without checking the password when the account has used its attempts."""
        key = self._get_login_attempts_cache_key(request, **credentials)
        self._login_failed_rl_usage = ratelimit.consume(
            request, app="allauth.account", action=LOGIN_FAILED, key=key
        )
        if not self._login_failed_rl_usage:
            minutes = max(1, math.ceil(login_retry_after(request, key) / 60))
            raise forms.ValidationError(
                ngettext(
                    "Too many failed sign-in attempts. Try again in %(minutes)d minute.",
                    "Too many failed sign-in attempts. Try again in %(minutes)d minutes.",
                    minutes,
                )
                % {"minutes": minutes},
                code="too_many_login_attempts",
            )


# --- my data and my account ---------------------------------------------------------------------


@login_required
@require_http_methods(["GET"])
def data_download(request: AuthenticatedHttpRequest) -> HttpResponse:
    """My data as a JSON file (``account_services.account_export``): profile, e-mails,
    memberships, characters, posts I wrote and my API tokens (never their keys)."""
    data = account_services.account_export(user=request.user)
    stamp = timezone.now().strftime("%Y%m%d")
    response = HttpResponse(
        json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2),
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="partida-datos-{stamp}.json"'
    response["Cache-Control"] = "no-store"
    return response


class AccountDeleteForm(forms.Form):
    """The current password, to confirm the deletion."""

    password = forms.CharField(
        label=gettext_lazy("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


@login_required
@require_http_methods(["GET", "POST"])
def account_delete(request: AuthenticatedHttpRequest) -> HttpResponse:
    """GET: what deleting keeps and what it erases. POST ``password``: anonymise my account
    (``account_services.account_delete``), sign out and go to the campaign list. A wrong
    password counts against the sign-in limits like any other."""
    form = AccountDeleteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        adapter = get_adapter()
        try:
            ok = adapter.reauthenticate(request.user, form.cleaned_data["password"])
        except forms.ValidationError as exc:
            form.add_error("password", exc)
        else:
            if not ok:
                form.add_error("password", adapter.error_messages["incorrect_password"])
        if form.is_valid():
            try:
                account_services.account_delete(user=request.user)
            except ServiceError as exc:
                add_service_errors(form, exc)
            else:
                logout(request)
                messages.success(request, account_services.deleted_message())
                return redirect("mundo:campaign_list")
    orphaned = account_services.campaigns_left_without_master(request.user)
    return render(request, "account/delete.html", {"form": form, "orphaned": orphaned})


class HandOverForm(forms.Form):
    """The member who becomes the campaign's master (a choice among its other members)."""

    to_user = forms.TypedChoiceField(label=gettext_lazy("New master"), coerce=int)

    def __init__(self, *args: Any, candidates: list[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field: Any = self.fields["to_user"]
        field.choices = [
            (m.user_id, f"{m.user.get_username()} ({m.get_role_display()})") for m in candidates
        ]


@login_required
@require_http_methods(["GET", "POST"])
def campaign_hand_over(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """GET: the form to hand a campaign I master to another of its members. POST ``to_user``
    (a member's user id): they become master and I a player
    (``account_services.campaign_hand_over``), then back to my account's deletion page.
    404 unless I master the campaign."""
    campaign, _viewer = access_campaign(request.user, slug=slug, master=True)
    candidates = account_services.hand_over_candidates(campaign, request.user)
    form = HandOverForm(request.POST or None, candidates=candidates)
    if request.method == "POST" and form.is_valid():
        try:
            new = account_services.campaign_hand_over(
                campaign_id=campaign.pk, user=request.user, to_user_id=form.cleaned_data["to_user"]
            )
        except ServiceError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request,
                _("«%(campaign)s» is now mastered by %(user)s.")
                % {"campaign": campaign.name, "user": new.user.get_username()},
            )
            return redirect("account_delete")
    return render(
        request,
        "account/hand_over.html",
        {"form": form, "campaign": campaign, "candidates": candidates},
    )
