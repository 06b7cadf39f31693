from django.urls import path

import mundo.converters  # noqa: F401 — registers <id:…>
from personajes import movement_views, views

app_name = "personajes"

urlpatterns = [
    path("mis-personajes/", views.my_characters, name="mine"),
    path("partidas/<slug:slug>/personajes/", views.campaign_characters, name="campaign_characters"),
    path("partidas/<slug:slug>/personajes/nuevo/", views.character_create, name="create"),
    path("personajes/<id:pk>/", views.character_detail, name="character"),
    path("personajes/<id:pk>/retrato/", views.character_portrait, name="portrait"),
    path(
        "personajes/<id:pk>/retrato/mini/",
        views.character_portrait,
        {"thumb": True},
        name="portrait_thumb",
    ),
    path(
        "personajes/<id:pk>/retrato/mini/2x/",
        views.character_portrait,
        {"thumb": "2x"},
        name="portrait_thumb_2x",
    ),
    path("personajes/<id:pk>/ficha/", views.sheet_edit, name="sheet_edit"),
    path("personajes/<id:pk>/revision/", views.character_review, name="review"),
    path("personajes/<id:pk>/editar/", views.character_master_edit, name="master_edit"),
    path("personajes/<id:pk>/tirada/", views.character_roll, name="roll"),
    path(
        "personajes/<id:pk>/suministros/",
        movement_views.character_supplies,
        name="supplies",
    ),
]
