"""URL configuration: the admin, i18n, and each app's pages."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path

import mundo.converters  # noqa: F401 — registers <id:…>
from partida import accounts, media, profile, views, world_views

urlpatterns = [
    path("salud/", views.health, name="health"),
    path("salud/listo/", views.readiness, name="readiness"),
    # admin.site is partida.admin_site.PartidaAdminSite (partida.admin_apps): masters sign in.
    path("admin/", admin.site.urls),
    # The daily tick and the master's day pages (partida composes mundo and personajes).
    path("partidas/<slug:slug>/avanzar/", world_views.advance_day_view, name="advance_day"),
    path("partidas/<slug:slug>/avanzar/estado/", world_views.advance_status, name="advance_status"),
    path("partidas/<slug:slug>/dias/<id:day>/", world_views.campaign_day, name="campaign_day"),
    path("partidas/<slug:slug>/marcar-dia/", world_views.day_record, name="day_record"),
    path("cuentas/registro/", accounts.signup, name="signup"),
    path("cuentas/perfil/", profile.profile, name="profile"),
    path("cuentas/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/v1/", include("partida.api")),
    path("", include("mundo.urls")),
    path("", include("personajes.urls")),
    path("", include("escenas.urls")),
]
if settings.SERVE_MEDIA:  # uploaded portraits (partida.media says why Django serves them)
    urlpatterns.append(
        re_path(rf"^{settings.MEDIA_URL.strip('/')}/(?P<path>.+)$", media.media_file, name="media")
    )
