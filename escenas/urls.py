from django.urls import path

import mundo.converters  # noqa: F401 — registers <id:…>
from escenas import (
    archive_views,
    combat_views,
    feeds,
    follow_views,
    inbox_views,
    master_views,
    npc_views,
    search_views,
    views,
    writing_views,
)

app_name = "escenas"

campaign = "partidas/<slug:slug>/"
scene = campaign + "escenas/<id:pk>/"
fight = campaign + "combates/<id:pk>/"

npc = campaign + "pnj/<id:pk>/"

urlpatterns = [
    path(campaign + "pnj/", npc_views.npc_list, name="npcs"),
    path(npc, npc_views.npc_list, name="npc_edit"),
    path(npc + "retrato/", npc_views.npc_portrait, name="npc_portrait"),
    path(npc + "retrato/mini/", npc_views.npc_portrait, {"thumb": True}, name="npc_portrait_thumb"),
    path(
        npc + "retrato/mini/2x/",
        npc_views.npc_portrait,
        {"thumb": "2x"},
        name="npc_portrait_thumb_2x",
    ),
    path(campaign + "escenas/", views.scene_list, name="scene_list"),
    path(campaign + "escenas/nueva/", master_views.scene_create, name="scene_create"),
    path(scene, views.scene_detail, name="scene"),
    path(scene + "editar/", master_views.scene_edit, name="scene_edit"),
    path(scene + "publicar/", views.post_create, name="post_create"),
    path(scene + "nuevos/", views.scene_poll, name="poll"),
    path(scene + "borrador/", views.draft_save, name="draft"),
    path(scene + "probabilidad/", views.roll_chance, name="roll_chance"),
    path(scene + "vista-previa/", writing_views.post_preview, name="preview"),
    path(scene + "peticiones/", master_views.roll_request_create, name="roll_request_create"),
    path(scene + "pedir-entrar/", views.join_request_create, name="join_request"),
    path(campaign + "entradas/<id:pk>/", master_views.join_request_decide, name="join_decide"),
    path(scene + "feed/", feeds.SceneFeed(), name="scene_feed"),
    path(scene + "correo/", follow_views.scene_follow, name="scene_follow"),
    path(scene + "archivo.html", archive_views.scene_archive, name="scene_archive"),
    path(campaign + "archivo.html", archive_views.campaign_archive, name="campaign_archive"),
    path(scene + "combates/", combat_views.combat_panel, name="combat_panel"),
    path(scene + "combates/abrir/", combat_views.combat_open, name="combat_open"),
    path(scene + "combates/probabilidades/", combat_views.combat_odds, name="combat_odds"),
    path(scene + "curar/", combat_views.medicine_cure, name="medicine_cure"),
    path(campaign + "curar/<id:pk>/", combat_views.medicine_cure_sheet, name="medicine_cure_sheet"),
    path(
        campaign + "combates/desde-ruta/<id:pk>/",
        combat_views.combat_from_route,
        name="combat_from_route",
    ),
    path(fight + "anadir/", combat_views.combatants_add, name="combatants_add"),
    path(fight + "declarar/", combat_views.declaration_make, name="combat_declare"),
    path(fight + "resolver/", combat_views.turn_resolve, name="combat_resolve"),
    path(fight + "terminar/", combat_views.combat_finish, name="combat_finish"),
    path(fight + "amputar/", combat_views.amputation_try, name="combat_amputate"),
    path(campaign + "mensajes/<id:pk>/", views.post_detail, name="post"),
    path(campaign + "mensajes/<id:pk>/editar/", views.post_edit, name="post_edit"),
    path(campaign + "mensajes/<id:pk>/citar/", writing_views.post_quote, name="post_quote"),
    path(campaign + "mensajes/<id:pk>/borrar/", views.post_delete, name="post_delete"),
    path(
        campaign + "mensajes/<id:pk>/revisiones/",
        master_views.post_revisions,
        name="post_revisions",
    ),
    path(
        campaign + "tiradas/<id:pk>/dificultad/", master_views.roll_threshold, name="roll_threshold"
    ),
    path(
        campaign + "peticiones/<id:pk>/retirar/",
        master_views.roll_request_cancel,
        name="roll_request_cancel",
    ),
    path(campaign + "buscar/", search_views.search, name="search"),
    path(campaign + "diario/<id:character>/", views.diary, name="diary"),
    path("cuenta/avisos/", follow_views.notification_settings, name="notifications"),
    path("mesa/", inbox_views.inbox, name="inbox"),
    path("feeds/<str:token>/mesa/", inbox_views.InboxFeed(), name="inbox_feed"),
    path("avisos/baja/<str:token>/", follow_views.unsubscribe, name="unsubscribe"),
    path(
        "feeds/<str:token>/partidas/<slug:slug>/escenas/<id:pk>/",
        feeds.SceneFeed(),
        name="private_feed",
    ),
]
