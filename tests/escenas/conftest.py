"""The scene tests' cast, on top of tests/conftest.py:

- ``char_a``: player A's approved character (Fuerza 2, Percepción 1), in the story scenes.
- ``char_b``: player B's approved character, in no story scene (B reads "members" scenes only).
- ``story``: a story scene with ``char_a``; every player of the campaign may read it.
- the master runs everything; the outsider and anonymous see nothing of the private campaign.
"""

from __future__ import annotations

import pytest
from django.test import Client

from escenas import access as escenas_access
from escenas import scenes
from escenas.models import Scene
from personajes.models import Character
from tests.factories import CharacterFactory


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def access_for(scene: Scene, user) -> escenas_access.SceneAccess:
    return escenas_access.scene_access(
        Scene.objects.select_related("campaign", "diary_character").get(pk=scene.pk),
        escenas_access.character_viewer_for(scene.campaign, user),
    )


@pytest.fixture
def char_a(campaign, player_a):
    return CharacterFactory(
        campaign=campaign,
        player=player_a,
        name="Ana Forastera",
        status=Character.Status.APPROVED,
        allocation={"fuerza": 2, "percepcion": 1},
    )


@pytest.fixture
def char_b(campaign, player_b):
    return CharacterFactory(
        campaign=campaign,
        player=player_b,
        name="Bruno Herrero",
        status=Character.Status.APPROVED,
        allocation={"fuerza": 1, "sigilo": 3},
    )


@pytest.fixture
def story(campaign, master, char_a, char_b):
    return scenes.scene_create(
        campaign=campaign,
        master=master,
        title="La gasolinera",
        readers=Scene.Readers.MEMBERS,
        participants=[char_a],
    )
