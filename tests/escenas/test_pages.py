"""The scene pages and their htmx fragments: posting without reload, polling, the roll chance,
the waiting-on line, unread markers, scene management, diaries."""

from __future__ import annotations

import datetime
from unittest.mock import patch

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from escenas import scenes, services, views
from escenas.models import Post, Scene
from escenas.scene_version import SceneVersion
from personajes.models import Character
from tests.escenas.conftest import access_for, client_for
from tests.escenas.factories import new_key


def say(scene, user, body, **kwargs):
    access = access_for(scene, user)
    voice = kwargs.pop("voice", access.voices[0])
    return services.post_create(
        access=access,
        author=user,
        idempotency_key=new_key(),
        body=body,
        voice=voice,
        character=access.characters[0] if voice == "character" else None,
        **kwargs,
    )[0]


def test_htmx_post_answers_a_fresh_form_and_triggers_the_poller(story, player_a, char_a):
    client = client_for(player_a)
    page = client.get(story.get_absolute_url())
    assert page["Vary"] and "HX-Request" in page["Vary"]
    key = page.context["form"].initial["idempotency_key"]
    response = client.post(
        reverse("escenas:post_create", args=[story.campaign.slug, story.pk]),
        {"idempotency_key": key, "voice": f"character:{char_a.pk}", "body": "Sin recargar"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert response["HX-Trigger"] == "posted"
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="post-form"')
    assert "<html" not in html
    assert key not in html  # a new key for the next post
    assert Post.objects.get().body == "Sin recargar"


def test_htmx_post_with_an_error_keeps_the_text(story, player_a, char_a):
    response = client_for(player_a).post(
        reverse("escenas:post_create", args=[story.campaign.slug, story.pk]),
        {
            "idempotency_key": new_key(),
            "voice": f"character:{char_a.pk}",
            "body": "Mi texto largo",
            "roll_kind": "expression",
            "roll_expression": "2x6",
        },
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert response.status_code == 200 and "HX-Trigger" not in response
    assert "Mi texto largo" in html and "no es válida" in html
    assert Post.objects.count() == 0


def test_poll_appends_new_posts_and_replaces_changed_ones(story, master, player_a, char_a):
    first = say(
        story,
        player_a,
        "Primero",
        voice="character",
        roll=services.RollSpec(kind="action", character=char_a, trait="fuerza"),
    )
    url = reverse("escenas:poll", args=[story.campaign.slug, story.pk])
    client = client_for(player_a)
    response = client.get(url, {"after": first.pk, "since": "0"}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert 'id="poller"' in html and f"after={first.pk}" in html
    assert "Primero" in html and 'hx-swap-oob="true"' in html  # changed since 0: replaced
    since = response.context["now_ts"]
    second = say(story, master, "Segundo")
    services.roll_threshold_set(post_roll=first.post_rolls.get(), master=master, threshold=50)
    html = client.get(
        url, {"after": first.pk, "since": str(since)}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "Segundo" in html and f"after={second.pk}" in html
    assert f'id="post-{first.pk}" hx-swap-oob="true"' in html  # the threshold was set
    assert client.get(url, {"after": "x"}).status_code == 404


def test_a_poll_finds_an_edit_one_microsecond_after_its_clock(story, master, player_a, char_a):
    """The poll skips its post queries only when no post has an id above ``after`` or an
    ``updated_at`` after ``since`` (``SceneVersion.unchanged_since``), to the microsecond,
    as the database compares: an edit at ``since`` is not new, one a microsecond later is."""
    first = say(story, player_a, "Primero", voice="character")
    since = datetime.datetime(2026, 12, 7, 10, 0, 0, 123457, tzinfo=datetime.UTC)
    url = reverse("escenas:poll", args=[story.campaign.slug, story.pk])
    client = client_for(player_a)
    query = {"after": first.pk, "since": f"{since.timestamp():.6f}"}
    Post.objects.filter(pk=first.pk).update(updated_at=since)  # not after ``since``: quiet
    quiet = client.get(url, query, HTTP_HX_REQUEST="true").content.decode()
    assert 'id="poller"' in quiet and f'id="post-{first.pk}"' not in quiet
    moved = since + datetime.timedelta(microseconds=1)
    Post.objects.filter(pk=first.pk).update(updated_at=moved)
    html = client.get(url, query, HTTP_HX_REQUEST="true").content.decode()
    assert f'id="post-{first.pk}" hx-swap-oob="true"' in html


def test_an_edit_made_while_a_poll_runs_reaches_the_next_poll(story, master, player_a):
    """A quiet poll gives the next one its ``since`` from before it read the scene's version,
    so an edit committed after that read (not in it) is later than it: found next time."""
    first = say(story, player_a, "Primero", voice="character")
    url = reverse("escenas:poll", args=[story.campaign.slug, story.pk])
    client = client_for(player_a)
    access_scene = views.scene_access.access_scene

    def edited_meanwhile(*args, **kwargs):
        found = access_scene(*args, **kwargs)
        Post.objects.filter(pk=first.pk).update(updated_at=timezone.now())
        return found

    query = {"after": first.pk, "since": f"{first.updated_at.timestamp():.6f}"}
    with patch.object(views.scene_access, "access_scene", edited_meanwhile):
        quiet = client.get(url, query, HTTP_HX_REQUEST="true")
    assert f'id="post-{first.pk}"' not in quiet.content.decode()  # not in the version it read
    query["since"] = f"{quiet.context['now_ts']:.6f}"
    html = client.get(url, query, HTTP_HX_REQUEST="true").content.decode()
    assert f'id="post-{first.pk}" hx-swap-oob="true"' in html


def test_a_quiet_poll_answers_what_the_full_poll_answers(story, master, player_a, char_a):
    """Byte for byte: the poll that skips its post queries (nothing new) and the one that runs
    them, at the same instant, for the same reader."""
    first = say(story, player_a, "Primero", voice="character")
    url = reverse("escenas:poll", args=[story.campaign.slug, story.pk])
    client = client_for(player_a)
    query = {"after": first.pk, "since": f"{first.updated_at.timestamp() + 1:.6f}"}
    with time_machine.travel(first.updated_at + datetime.timedelta(seconds=5), tick=False):
        quiet = client.get(url, query, HTTP_HX_REQUEST="true")
        with patch.object(SceneVersion, "unchanged_since", return_value=False):
            full = client.get(url, query, HTTP_HX_REQUEST="true")
    assert quiet.status_code == full.status_code == 200
    assert quiet.content == full.content
    assert b'id="poller"' in quiet.content


def test_roll_chance_is_exact(story, player_a, char_a):
    url = reverse("escenas:roll_chance", args=[story.campaign.slug, story.pk])
    client = client_for(player_a)
    # Fuerza 2 → 3 d100 at 30 %: 1 − 0.7³ = 65.70 %.
    html = client.get(
        url, {"roll_character": char_a.pk, "roll_trait": "fuerza", "roll_threshold": "30"}
    )
    assert "65,70" in html.content.decode()
    # Two days of hunger: −20 → 10 %: 1 − 0.9³ = 27.10 %. Source: RULES.md R3, R9.
    Character.objects.filter(pk=char_a.pk).update(hunger_days=2)
    html = client.get(
        url, {"voice": f"character:{char_a.pk}", "roll_trait": "fuerza", "roll_threshold": "30"}
    )
    text = html.content.decode()
    assert "27,10" in text and "− penalización 20 = 10 %" in text
    empty = client.get(url, {"roll_character": char_a.pk, "roll_trait": "fuerza"}).content.decode()
    assert "Escribe una dificultad" in empty
    # Another player's character: nothing is computed.
    assert (
        client.get(url, {"roll_character": 9999, "roll_trait": "fuerza"})
        .content.decode()
        .count("d100")
        == 0
    )


def test_waiting_on_line(story, master, player_a, char_a, char_b):
    story.participants.add(char_b)
    client = client_for(player_a)
    assert "Esperando a" not in client.get(story.get_absolute_url()).content.decode()
    say(story, master, "¿Qué hacéis?")
    html = client.get(story.get_absolute_url()).content.decode()
    assert "Esperando a:</strong> Ana Forastera, Bruno Herrero" in html
    say(story, player_a, "Miro alrededor", voice="character")
    html = client.get(story.get_absolute_url()).content.decode()
    assert "Esperando a:</strong> Bruno Herrero" in html
    # A whisper does not count (and is not revealed by the line).
    say(story, get_player(char_b), "psst", voice="character", whisper=True)
    assert (
        "Esperando a:</strong> Bruno Herrero"
        in client.get(story.get_absolute_url()).content.decode()
    )


def get_player(character):
    return Character.objects.select_related("player").get(pk=character.pk).player


def test_scene_list_shows_unread_counts(story, master, player_a, char_a):
    url = reverse("escenas:scene_list", args=[story.campaign.slug])
    client = client_for(player_a)
    offtopic = scenes.offtopic_scene_for(story.campaign)
    for text in ("a", "b", "c"):  # post ids no longer match scene ids
        say(offtopic, master, f"Fuera de juego {text}")
    say(story, master, "Uno")
    say(story, master, "Dos")
    html = client.get(url).content.decode()
    assert "2 nuevos" in html and "3 nuevos" in html
    client.get(story.get_absolute_url())
    html = client.get(url).content.decode()
    assert "2 nuevos" not in html and "3 nuevos" in html
    assert "Dos" in html  # the preview of the last post
    client.get(offtopic.get_absolute_url())
    html = client.get(url).content.decode()
    assert "nuevos" not in html
    # The list creates the off-topic scene and the diaries (create-on-read).
    assert Scene.objects.filter(kind="offtopic").count() == 1
    assert Scene.objects.filter(kind="diary", diary_character=char_a).count() == 1
    assert "Diario de Ana Forastera" in html


def test_master_creates_and_edits_scenes(campaign, master, player_a, char_a, char_b):
    url = reverse("escenas:scene_create", args=[campaign.slug])
    assert client_for(player_a).get(url).status_code == 404
    response = client_for(master).post(
        url,
        {
            "kind": "story",
            "title": "El hospital",
            "summary": "De noche.",
            "readers": "participants",
            "participants": [char_a.pk],
        },
    )
    scene = Scene.objects.get(title="El hospital")
    assert response.status_code == 302 and list(scene.participants.all()) == [char_a]
    edit = reverse("escenas:scene_edit", args=[campaign.slug, scene.pk])
    client_for(master).post(
        edit,
        {
            "title": "El hospital (noche)",
            "readers": "members",
            "participants": [char_a.pk, char_b.pk],
        },
    )
    scene.refresh_from_db()
    assert scene.title == "El hospital (noche)" and scene.participants.count() == 2
    assert client_for(player_a).get(edit).status_code == 404


def test_diary_url_creates_the_diary_for_its_player_and_the_master_only(
    campaign, master, player_a, player_b, char_a
):
    url = reverse("escenas:diary", args=[campaign.slug, char_a.pk])
    assert client_for(player_b).get(url).status_code == 404
    response = client_for(player_a).get(url)
    scene = Scene.objects.get(diary_character=char_a)
    assert response["Location"] == scene.get_absolute_url()
    assert client_for(master).get(url)["Location"] == scene.get_absolute_url()
    html = client_for(player_a).get(scene.get_absolute_url()).content.decode()
    assert "Registro diario" in html
    assert scenes.diary_scene_for(char_a) == scene


def test_npc_voice_and_search_snippet(campaign, story, master, player_b):
    say(
        story,
        master,
        "Un hombre grita: **¡Fuera de aquí!** " + "relleno " * 40,
        voice="npc",
        npc_name="El guarda",
    )
    html = client_for(master).get(story.get_absolute_url()).content.decode()
    assert "El guarda" in html and "<strong>¡Fuera de aquí!</strong>" in html
    result = client_for(player_b).get(
        reverse("escenas:search", args=[campaign.slug]), {"q": "fuera"}
    )
    text = result.content.decode()
    assert "El guarda" in text and "¡<mark>Fuera</mark> de aquí!" in text
    assert "<strong>¡" not in text and "**" not in text  # the excerpt is text, not HTML


@pytest.mark.parametrize("kind", ["notes", "offtopic"])
def test_master_notes_and_offtopic_voices(campaign, master, player_a, kind):
    scene = (
        scenes.offtopic_scene_for(campaign)
        if kind == "offtopic"
        else scenes.scene_create(campaign=campaign, master=master, title="N", kind="notes")
    )
    master_voices = access_for(scene, master).voices
    assert "narrator" in master_voices
    if kind == "offtopic":
        assert access_for(scene, player_a).voices == ("player",)
        with pytest.raises(services.ServiceError):
            services.post_create(
                access=access_for(scene, player_a),
                author=player_a,
                idempotency_key=new_key(),
                body="en personaje",
                voice="character",
            )


def test_an_expired_session_goes_to_login_and_the_draft_waits(story, player_a, char_a):
    client = client_for(player_a)
    key = client.get(story.get_absolute_url()).context["form"].initial["idempotency_key"]
    client.post(
        reverse("escenas:draft", args=[story.campaign.slug, story.pk]),
        {"idempotency_key": key, "body": "Casi terminado"},
        HTTP_HX_REQUEST="true",
    )
    client.logout()  # the session expires
    response = client.post(
        reverse("escenas:post_create", args=[story.campaign.slug, story.pk]),
        {"idempotency_key": key, "voice": f"character:{char_a.pk}", "body": "Casi terminado"},
        HTTP_HX_REQUEST="true",
    )
    # The page stays (finding 6: no jump to the login mid-sentence): a 401 htmx swaps into the
    # draft status, with a sign-in link for another tab.
    assert response.status_code == 401 and "HX-Redirect" not in response
    assert response["HX-Retarget"] == "#draft-status"
    assert reverse("login") in response.content.decode()
    assert Post.objects.count() == 0
    client.force_login(player_a)
    form = client.get(story.get_absolute_url()).context["form"]
    assert (form.initial["body"], form.initial["idempotency_key"]) == ("Casi terminado", key)
