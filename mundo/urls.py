from django.urls import path

import mundo.converters  # noqa: F401 — registers <id:…>
from mundo import views

app_name = "mundo"

urlpatterns = [
    path("", views.campaign_list, name="campaign_list"),
    path("partidas/nueva/", views.campaign_create, name="campaign_create"),
    path("partidas/<slug:slug>/", views.campaign_detail, name="campaign"),
    path("partidas/<slug:slug>/invitaciones/", views.invitation_list, name="invitations"),
    path("partidas/<slug:slug>/mundo/", views.world_master, name="world"),
    path("partidas/<slug:slug>/reglas/", views.rules_master, name="rules"),
    path("partidas/<slug:slug>/reglamento/", views.rules_read, name="rules_read"),
    path("partidas/<slug:slug>/dias/", views.day_list, name="days"),
    path("invitacion/<str:token>/", views.invitation_detail, name="invitation"),
    path(
        "partidas/<slug:slug>/poblaciones/<slug:settlement>/",
        views.settlement_detail,
        name="settlement",
    ),
]
