"""URL configuration: the admin, i18n, and each app's pages."""

from django.contrib import admin
from django.urls import include, path

from partida import accounts, views

urlpatterns = [
    path("salud/", views.health, name="health"),
    path("admin/", admin.site.urls),
    path("cuentas/registro/", accounts.signup, name="signup"),
    path("cuentas/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("mundo.urls")),
]
