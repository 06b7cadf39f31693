"""The Django admin is the masters' too: every admin of a campaign's rows is scoped to the
campaigns the signed-in user masters (``mundo.access.campaigns_mastered_by``); a superuser sees
every row, in the admin only.

``CampaignScopedAdmin`` (a ModelAdmin) and ``ScopedTabularInline`` give, for a user who is not
a superuser:

- permissions: a master of any campaign may view, add, change and delete the scoped models
  (no Django model permissions needed); an admin's own stricter rules (read-only records)
  still win, being defined on the subclass;
- querysets: only rows whose ``campaign_path`` leads to a campaign they master, so changelists,
  actions (which run on the changelist's queryset) and change pages see nothing else; a row
  outside the scope is a 404, the same answer as a missing one;
- choice lists (foreign keys and many-to-many): only rows of their campaigns (users: the
  members of their campaigns).

The project's ``AdminSite`` (``partida.admin_site``) lets masters sign in.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest

from mundo.access import campaigns_mastered_by
from mundo.models import Campaign

CAMPAIGN_PATHS: dict[type[Model], str] = {Campaign: "pk"}
"""How each scoped model reaches its campaign (a lookup path; ``"pk"`` for Campaign itself),
filled as the scoped admins are registered; choice lists scope related models by it."""


def mastered_campaign_ids(request: HttpRequest) -> list[int]:
    """The ids of the campaigns the request's user masters, read once per request."""
    cached = getattr(request, "_mastered_campaign_ids", None)
    if cached is None:
        cached = list(campaigns_mastered_by(request.user).values_list("pk", flat=True))
        request._mastered_campaign_ids = cached  # type: ignore[attr-defined]
    return cached


def is_admin_master(request: HttpRequest) -> bool:
    """True when the request's user is active and masters at least one campaign."""
    return bool(request.user.is_active and mastered_campaign_ids(request))


def scope_queryset(qs: QuerySet, request: HttpRequest, path: str | None = None) -> QuerySet:
    """``qs`` as the request's user may see it in the admin: all for a superuser; otherwise the
    rows whose ``path`` (default: the model's registered path) leads to a campaign they master
    (users: members of those campaigns; a model with no known path: none)."""
    if request.user.is_superuser:
        return qs
    ids = mastered_campaign_ids(request)
    if path is None:
        path = CAMPAIGN_PATHS.get(qs.model)
    if path is None and qs.model is get_user_model():
        return qs.filter(memberships__campaign_id__in=ids).distinct()
    if path is None:
        return qs.none()
    return qs.filter(**{f"{path}__in": ids})


class _MasterPermissions:
    """Master-or-superuser permissions for the scoped admins (superusers: Django's own)."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        if request.user.is_superuser:
            return super().has_module_permission(request)  # type: ignore[misc]
        return is_admin_master(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if request.user.is_superuser:
            return super().has_view_permission(request, obj)  # type: ignore[misc]
        return is_admin_master(request)

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        if request.user.is_superuser:
            return super().has_add_permission(request, *args)  # type: ignore[misc]
        return is_admin_master(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if request.user.is_superuser:
            return super().has_change_permission(request, obj)  # type: ignore[misc]
        return is_admin_master(request)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if request.user.is_superuser:
            return super().has_delete_permission(request, obj)  # type: ignore[misc]
        return is_admin_master(request)

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)  # type: ignore[misc]
        if field is not None and hasattr(field, "queryset"):
            field.queryset = scope_queryset(field.queryset, request)
        return field

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        field = super().formfield_for_manytomany(db_field, request, **kwargs)  # type: ignore[misc]
        if field is not None and hasattr(field, "queryset"):
            field.queryset = scope_queryset(field.queryset, request)
        return field


class CampaignScopedAdmin(_MasterPermissions, admin.ModelAdmin):
    """A ModelAdmin of a campaign's rows, scoped to the campaigns the user masters.

    ``campaign_path``: the lookup from the model to its campaign (``"campaign"``,
    ``"settlement__campaign"``…; ``"pk"`` for Campaign).
    """

    campaign_path = "campaign"

    def __init__(self, model: type[Model], admin_site: admin.AdminSite) -> None:
        super().__init__(model, admin_site)
        CAMPAIGN_PATHS[model] = self.campaign_path

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return scope_queryset(super().get_queryset(request), request, self.campaign_path)

    def get_object(
        self, request: HttpRequest, object_id: str, from_field: str | None = None
    ) -> Any:
        # Django redirects to the index for a missing row; a row of someone else's campaign
        # must not be told apart from a missing one, and both are a plain 404 here.
        obj = super().get_object(request, object_id, from_field)
        if obj is None:
            raise Http404("No such object")
        return obj


class ScopedTabularInline(_MasterPermissions, admin.TabularInline):
    """A tabular inline of a scoped admin: shown to the masters who see the parent row (the
    parent's queryset did the scoping); its choice lists are scoped like the parent's."""
