"""Every API list is paginated (issue 14): DRF's default pagination is the project's, every
list view has one, and a scene's fights come a page at a time."""

from __future__ import annotations

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.mixins import ListModelMixin
from rest_framework.settings import api_settings

from nucleo.pagination import PageNumberPagination
from tests.api.conftest import session_client


def _api_views(patterns, prefix=""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _api_views(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            cls = getattr(entry.callback, "cls", None)
            if cls is not None and (prefix + str(entry.pattern)).startswith("api/v1/"):
                yield prefix + str(entry.pattern), cls


def test_the_default_pagination_is_the_projects():
    assert api_settings.DEFAULT_PAGINATION_CLASS is PageNumberPagination
    assert PageNumberPagination.page_size == 50 and PageNumberPagination.max_page_size == 500


def test_every_api_list_view_is_paginated():
    views = list(_api_views(get_resolver().url_patterns))
    lists = [(route, cls) for route, cls in views if issubclass(cls, ListModelMixin)]
    assert len(lists) >= 8  # campaigns, settlements, characters, scenes, diary, rolls, …
    unpaginated = [route for route, cls in lists if cls.pagination_class is None]
    assert unpaginated == []
    combats = next(cls for route, cls in views if route.endswith("combats/"))
    assert combats.pagination_class is PageNumberPagination


@pytest.mark.django_db
def test_a_scenes_fights_come_a_page_at_a_time(campaign, master, player_a):
    from escenas import scenes
    from escenas.combat import combat_open
    from personajes.models import Character
    from tests.factories import CharacterFactory

    char_a = CharacterFactory(
        campaign=campaign, player=player_a, name="Ana", status=Character.Status.APPROVED
    )
    story = scenes.scene_create(
        campaign=campaign, master=master, title="La gasolinera", participants=[char_a]
    )

    for i in range(3):
        combat_open(
            scene=story, master=master, kind="zombies", title=f"Pelea {i}", characters=[char_a]
        )
    client = session_client(player_a)
    url = f"/api/v1/scenes/{story.pk}/combats/"
    first = client.get(url, {"page_size": 2}).json()
    assert first["count"] == 3 and first["next"] and first["previous"] is None
    assert [f["title"] for f in first["results"]] == ["Pelea 0", "Pelea 1"]
    second = client.get(first["next"]).json()
    assert [f["title"] for f in second["results"]] == ["Pelea 2"] and second["next"] is None
    assert client.get(url, {"page": 9}).status_code == 404
