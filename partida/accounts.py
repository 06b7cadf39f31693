"""Accounts: sign-up (Django's auth views do sign-in, sign-out and password reset)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy


class SignUpForm(UserCreationForm):
    """Username, e-mail (for password resets and notifications) and password twice."""

    email = forms.EmailField(label=gettext_lazy("E-mail"), required=True)

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].strip().lower()
        if get_user_model().objects.filter(email__iexact=email).exists():
            raise forms.ValidationError(_("There is already an account with this e-mail."))
        return email


def _safe_next(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return None


def signup(request: HttpRequest) -> HttpResponse:
    """Create an account and sign in; then go back to ``next`` (e.g. an invitation link)."""
    if request.user.is_authenticated:
        return redirect(_safe_next(request) or "mundo:campaign_list")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome, %(name)s!") % {"name": user.get_username()})
        return redirect(_safe_next(request) or "mundo:campaign_list")
    return render(
        request, "registration/signup.html", {"form": form, "next": _safe_next(request) or ""}
    )
