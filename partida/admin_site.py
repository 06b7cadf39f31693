"""The project's admin site: the masters' admin as well as the superusers'.

Any active user who masters a campaign may sign in (no staff flag needed), and sees only the
rows of the campaigns they master (``mundo.admin_scope``); a superuser sees everything. Staff
users keep Django's rules. Installed as the default site by
``partida.admin_apps.PartidaAdminConfig`` (in INSTALLED_APPS instead of
``django.contrib.admin``), so ``admin.site`` and ``@admin.register`` everywhere are this site,
and ``partida.urls`` serves it.
"""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import get_adapter
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from mundo.access import campaigns_mastered_by


def _masters_a_campaign(user: object) -> bool:
    return campaigns_mastered_by(user).exists()  # type: ignore[arg-type]


class MasterAuthenticationForm(AdminAuthenticationForm):
    """The admin's sign-in: staff, superusers and the masters of a campaign."""

    error_messages = {
        **AdminAuthenticationForm.error_messages,
        "invalid_login": _(
            "Please enter the correct %(username)s and password of a staff account or of a "
            "campaign's master. Note that both fields may be case-sensitive."
        ),
    }

    def clean(self) -> dict[str, object]:
        """Django's check, counted against the same wrong-password limits as the site's sign-in
        (``partida.accounts.AccountAdapter.pre_authenticate``): the admin is no side door. A
        refused attempt checks no password; a right one gives its attempt back."""
        username = self.cleaned_data.get("username")
        if username is None or self.cleaned_data.get("password") is None:
            return super().clean()
        adapter = get_adapter()
        adapter.pre_authenticate(self.request, username=username)
        cleaned = super().clean()
        if self.user_cache is not None:
            adapter._rollback_login_failed_rl_usage()
        return cleaned

    def confirm_login_allowed(self, user: Any) -> None:
        AuthenticationForm.confirm_login_allowed(self, user)  # active accounts only
        if not (user.is_staff or _masters_a_campaign(user)):
            raise ValidationError(
                self.error_messages["invalid_login"],
                code="invalid_login",
                params={"username": self.username_field.verbose_name},
            )


class PartidaAdminSite(admin.AdminSite):
    """Django's AdminSite where a campaign's master may sign in (see the module docstring)."""

    login_form = MasterAuthenticationForm

    def has_permission(self, request: HttpRequest) -> bool:
        user = request.user
        return bool(user.is_active and (user.is_staff or _masters_a_campaign(user)))
