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
