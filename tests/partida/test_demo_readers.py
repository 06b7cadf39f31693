"""The demo shows the reading preferences (issue 15 item 6): bruno reads in English with
Mexico City's time, carla follows the petrol station by e-mail; loading twice changes nothing."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from escenas import notifications
from escenas.models import NotificationPreference, Scene
from nucleo.models import UserSettings
from partida.demo_escenas import STORY_TITLE


def load_demo() -> str:
    out = StringIO()
    call_command("cargar_demo", stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_the_demo_has_an_english_reader_in_mexico_and_a_followed_scene():
    out = load_demo()
    assert "Preferencias: bruno lee en inglés con la hora de America/Mexico_City" in out
    load_demo()
    (bruno,) = UserSettings.objects.filter(user__username="bruno")
    assert (bruno.language, bruno.time_zone) == ("en", "America/Mexico_City")
    story = Scene.objects.get(title=STORY_TITLE)
    carla = NotificationPreference.objects.get(user__username="carla")
    assert list(carla.followed_scenes.all()) == [story]
    assert notifications.scene_mode_of(user=carla.user, scene=story) == notifications.FOLLOW
    client = Client()
    assert client.login(username="bruno", password="partida-bruno")
    page = client.get(story.get_absolute_url() + "?page=1")
    assert page.headers["Content-Language"] == "en"
    assert " CST<" in page.text or " CDT<" in page.text  # post times in Mexico City's zone


@pytest.mark.django_db
def test_the_demo_words_the_rules_lines_and_the_mention_in_each_readers_language():
    """bruno (English) reads his sheet's R9/R10 lines in English, ana (Spanish) hers in
    Spanish; the demo's quoting reply mentions ana once, and her e-mail about it would say she
    was mentioned. Loaded twice: one reply, one mention."""
    from django.utils import translation

    from escenas.models import Post
    from nucleo.rules_labels import line_label
    from personajes import selectors
    from personajes.models import Character

    load_demo()
    load_demo()
    for username, language in (("bruno", "en"), ("ana", "es")):
        character = Character.objects.get(player__username=username, campaign__slug="valle-gris")
        _p, lines = selectors.disease_modifier_breakdown(character)
        lines += selectors.penalty_breakdown(character)
        client = Client()
        assert client.login(username=username, password=f"partida-{username}")
        page = client.get(character.get_absolute_url())
        assert page.headers["Content-Language"] == language
        with translation.override(language):
            worded = [line_label(m) for m in lines]
        assert lines and all(w in page.text for w in worded), (username, worded)
        if language == "en":
            assert not [m.label for m in lines if m.label in page.text]  # no Spanish line
    (reply,) = Post.objects.filter(idempotency_key="demo-escena-09")
    assert [u.username for u in reply.mentions.all()] == ["ana"]
    ana = reply.mentions.get()
    with translation.override("es"):  # ana's language (the site's): her e-mail about it
        (post,) = notifications._posts_for_mail([reply.pk])
        view = next(v for u, v in notifications.post_recipients(post) if u == ana)
        mail = notifications._post_message(ana, post, view, notifications._PostBodies())
    assert mail.subject.endswith("te ha mencionado")
    assert "te han mencionado en esta escena" in mail.body_text
