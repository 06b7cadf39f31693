"""The HTML archive of a scene and of a campaign (issue 15 item 9): one self-contained file
(the stylesheet and its print rules inline, no script, nothing else to load), as an attachment,
linked from the scene and the campaign pages, at a cost that does not grow with the campaign.
Who sees what in it is checked with every other surface in test_permissions.py."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from escenas import scenes, services
from escenas.models import Scene
from tests.escenas.conftest import access_for, client_for
from tests.escenas.factories import new_key
from tests.html_tree import parse


def say(scene, user, body):
    access = access_for(scene, user)
    services.post_create(
        access=access, author=user, idempotency_key=new_key(), body=body, voice=access.voices[0]
    )


def test_the_scene_archive_is_one_self_contained_file(story, master, player_a):
    say(story, master, "La **persiana** cede.")
    url = reverse("escenas:scene_archive", args=[story.campaign.slug, story.pk])
    answer = client_for(player_a).get(url)
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/html; charset=utf-8"
    assert answer["Content-Disposition"] == f'attachment; filename="la-campana-{story.pk}.html"'
    assert "no-store" in answer["Cache-Control"]
    tree = parse(answer.content.decode())
    assert tree.find_all("script") == [] and tree.find_all("link") == []
    assert tree.find_all("img") == []
    (style,) = tree.find_all("style")
    assert "@media print" in style.text() and "--paper" in style.text()
    (h1,) = tree.find_all("h1")
    assert h1.text() == "La gasolinera · La Campaña"
    (post,) = tree.find_all("li", "post")
    assert "La persiana cede." in post.text() and "<strong>persiana</strong>" in answer.text
    assert "Archivo hecho el" in answer.text


def test_the_pages_link_the_archives(story, player_a):
    page = client_for(player_a).get(story.get_absolute_url()).content.decode()
    scene_url = reverse("escenas:scene_archive", args=[story.campaign.slug, story.pk])
    assert f'href="{scene_url}" download>Descargar (HTML)</a>' in page
    campaign_page = client_for(player_a).get(story.campaign.get_absolute_url()).content.decode()
    campaign_url = reverse("escenas:campaign_archive", args=[story.campaign.slug])
    assert f'href="{campaign_url}" download>' in campaign_page


def test_the_campaign_archive_costs_the_same_with_one_scene_or_many(
    campaign, story, master, player_a, char_a
):
    say(story, master, "Uno.")
    url = reverse("escenas:campaign_archive", args=[campaign.slug])
    client = client_for(player_a)
    client.get(url)  # the first read makes the off-topic scene and the diaries
    with CaptureQueriesContext(connection) as few:
        first = client.get(url)
    for n in range(4):
        extra = scenes.scene_create(
            campaign=campaign,
            master=master,
            title=f"Escena {n}",
            readers=Scene.Readers.MEMBERS,
            participants=[char_a],
        )
        for m in range(3):
            say(extra, master, f"Mensaje {n}.{m}")
    with CaptureQueriesContext(connection) as many:
        second = client.get(url)
    assert len(many.captured_queries) == len(few.captured_queries)
    titles = [h2.text() for h2 in parse(second.content.decode()).find_all("h2")]
    assert titles[0] == "Escenas" and "La gasolinera" in titles and "Escena 3" in titles
    assert "Diario de Ana Forastera" in titles  # player A's own diary
    assert first.status_code == second.status_code == 200
