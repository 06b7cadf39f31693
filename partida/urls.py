"""URL configuration: the admin, i18n, and each app's pages."""

from allauth.account import views as allauth_views
from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView

import mundo.converters  # noqa: F401 — registers <id:…>
from mundo import views as mundo_views
from partida import (
    accounts,
    dice_views,
    export_views,
    media,
    profile,
    views,
    world_controls,
    world_views,
)

urlpatterns = [
    path("salud/", views.health, name="health"),
    path("salud/listo/", views.readiness, name="readiness"),
    path("manifest.webmanifest", views.web_manifest, name="web_manifest"),
    path("favicon.ico", views.favicon, name="favicon"),
    # admin.site is partida.admin_site.PartidaAdminSite (partida.admin_apps): masters sign in.
    path("admin/", admin.site.urls),
    # The daily tick and the master's day pages (partida composes mundo and personajes).
    path("partidas/<slug:slug>/avanzar/", world_views.advance_day_view, name="advance_day"),
    path("partidas/<slug:slug>/avanzar/estado/", world_views.advance_status, name="advance_status"),
    path("partidas/<slug:slug>/dias/<id:day>/", world_views.campaign_day, name="campaign_day"),
    path("partidas/<slug:slug>/marcar-dia/", world_views.day_record, name="day_record"),
    # The campaign's page (mundo:campaign's address), kept whole between writes; the new
    # campaign's form first, as in mundo's own list, or its address would read as a slug.
    path("partidas/nueva/", mundo_views.campaign_create),
    path("partidas/<slug:slug>/", world_views.campaign_page, name="campaign_page"),
    # The master's world page (mundo:world's address), kept whole between writes.
    path("partidas/<slug:slug>/mundo/", world_views.world_page, name="world_page"),
    # The master's character list (personajes:campaign_characters's address), kept whole.
    path(
        "partidas/<slug:slug>/personajes/",
        world_views.characters_page,
        name="characters_page",
    ),
    # The master's world controls (partida.world_controls), posted from the world page.
    path(
        "partidas/<slug:slug>/mundo/control/<slug:action>/",
        world_controls.world_control,
        name="world_control",
    ),
    path(
        "partidas/<slug:slug>/mundo/deshacer/<slug:what>/<id:pk>/",
        world_controls.world_undo,
        name="world_undo",
    ),
    path(
        "partidas/<slug:slug>/mundo/rutas/<id:pk>/",
        world_controls.route_outcome,
        name="route_outcome",
    ),
    path(
        "partidas/<slug:slug>/mundo/historial/<slug:what>/",
        world_controls.world_history,
        name="world_history",
    ),
    path("partidas/<slug:slug>/exportar/", export_views.export_page, name="campaign_export"),
    path(
        "partidas/<slug:slug>/exportar/nueva/",
        export_views.export_create,
        name="campaign_export_create",
    ),
    path(
        "partidas/<slug:slug>/exportar/<int:pk>/descargar/",
        export_views.export_download,
        name="campaign_export_download",
    ),
    # Verifiable dice (partida.dice_views): periods, their archives, seeds.
    path("dados/", dice_views.docs, name="dice_docs"),
    path("partidas/<slug:slug>/dados/", dice_views.periods, name="dice_periods"),
    path("partidas/<slug:slug>/dados/cerrar/", dice_views.close, name="dice_period_close"),
    path("partidas/<slug:slug>/dados/semilla/", dice_views.seed, name="dice_seed"),
    path("partidas/<slug:slug>/dados/<id:number>/", dice_views.period_detail, name="dice_period"),
    path(
        "partidas/<slug:slug>/dados/<id:number>/archivo.json",
        dice_views.archive,
        name="dice_archive",
    ),
    path(
        "partidas/<slug:slug>/dados/secretas/<id:pk>/revelar/",
        dice_views.reveal,
        name="dice_reveal",
    ),
    # Accounts: django-allauth under /cuentas/ (partida.accounts). The names the project uses
    # (login, logout, signup, password_reset) are the same pages as allauth's account_* ones.
    path("cuentas/login/", allauth_views.login, name="login"),
    path("cuentas/logout/", allauth_views.logout, name="logout"),
    path("cuentas/signup/", allauth_views.signup, name="signup"),
    path("cuentas/password/reset/", allauth_views.password_reset, name="password_reset"),
    path(  # the old sign-up address, in bookmarks and old invitation pages
        "cuentas/registro/",
        RedirectView.as_view(pattern_name="account_signup", query_string=True, permanent=True),
    ),
    path("cuentas/perfil/", profile.profile, name="profile"),
    path("cuentas/datos/", accounts.data_download, name="account_data"),
    path("cuentas/borrar/", accounts.account_delete, name="account_delete"),
    path("cuentas/ceder/<slug:slug>/", accounts.campaign_hand_over, name="campaign_hand_over"),
    path("cuentas/", include("allauth.urls")),
    # Before Django's: the footer's switch also saves a signed-in user's language.
    path("i18n/setlang/", profile.set_language, name="set_language"),
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
