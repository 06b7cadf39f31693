"""The API's kept pages of posts (``escenas.api_pages``): byte for byte what the uncached list
answers, for every viewer of the permission matrix and after every kind of change; a new post
after a kept page leaves it kept; a warm read of a kept page costs two queries with a token
(the token and the page's version: no access check).
"""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from tests.api.conftest import session_client, token_client

VIEWERS = ("master", "player_a", "player_b", "outsider", "anonymous", "token_a")


@pytest.fixture
def scene_world(campaign, master, player_a, player_b, key_a):
    """A public story scene of a public campaign (everyone reads it; Ana and Beto take part)
    with 40 posts: Ana's with action rolls and notes to the master, the master's whispers to
    player_a with hidden event rolls, a reply to a whisper, and one deleted post."""
    from escenas import access as escenas_access
    from escenas import scenes, services
    from escenas.models import Scene
    from personajes.models import Character
    from tests.factories import CharacterFactory

    campaign.is_public = True
    campaign.save()
    ana = CharacterFactory(
        campaign=campaign,
        player=player_a,
        name="Ana",
        status=Character.Status.APPROVED,
        allocation={"fuerza": 2},
    )
    beto = CharacterFactory(
        campaign=campaign,
        player=player_b,
        name="Beto",
        status=Character.Status.APPROVED,
        allocation={"fuerza": 3},
    )
    story = scenes.scene_create(
        campaign=campaign,
        master=master,
        title="El súper",
        readers=Scene.Readers.PUBLIC,
        participants=[ana, beto],
    )

    def post(user, **kwargs):
        access = escenas_access.access_scene(user, story.pk, campaign=campaign)
        key = uuid.uuid4().hex
        return services.post_create(access=access, author=user, idempotency_key=key, **kwargs)[0]

    posts = []
    for i in range(40):
        if i % 3 == 0:
            posts.append(
                post(
                    player_a,
                    body=f"Ana {i}",
                    voice="character",
                    character=ana,
                    note_to_master=f"nota {i}",
                    reply_to=posts[1].pk if i == 3 else None,
                    roll=services.RollSpec(kind="action", character=ana, trait="fuerza"),
                )
            )
        elif i % 3 == 1:
            posts.append(
                post(
                    master,
                    body=f"Susurro {i}",
                    voice="narrator",
                    whisper_to=[player_a.pk],
                    roll=services.RollSpec(kind="event", probability=None, hidden=True),
                )
            )
        else:
            posts.append(
                post(
                    player_b,
                    body=f"Beto {i}",
                    voice="character",
                    character=beto,
                    reply_to=posts[0].pk if i == 2 else None,
                )
            )
    services.post_delete(post=posts[5], user=player_b)
    return {
        "scene": story,
        "posts": posts,
        "master": master,
        "player_a": player_a,
        "player_b": player_b,
        "key_a": key_a,
        "ana": ana,
        "post": post,
    }


def client_for(world, viewer, outsider=None):
    if viewer == "token_a":
        return token_client(world["key_a"])
    if viewer == "anonymous":
        return session_client(None)
    return session_client(outsider if viewer == "outsider" else world[viewer])


def pages(client, url):
    """Every page's bytes, following ``next`` (the first page's size from ``url``)."""
    out = []
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.content[:300]
        out.append(response.content)
        url = response.json()["next"]
    return out


def fresh(client, url):
    with override_settings(ESCENAS_API_PAGES=False):
        return pages(client, url)


@pytest.mark.parametrize("viewer", VIEWERS)
@pytest.mark.parametrize("size", ["", "?page_size=7"])
def test_kept_pages_are_the_uncached_bytes_for_every_viewer(scene_world, outsider, viewer, size):
    client = client_for(scene_world, viewer, outsider)
    url = f"/api/v1/scenes/{scene_world['scene'].pk}/posts/{size}"
    expected = fresh(client, url)
    assert len(expected) >= 2  # at least one closed page (kept), and the open last one
    assert pages(client, url) == expected  # kept now
    assert pages(client, url) == expected  # served from the cache


def test_every_change_to_a_kept_page_is_seen(scene_world):
    from escenas import services
    from escenas.models import PostRoll

    world = scene_world
    url = f"/api/v1/scenes/{world['scene'].pk}/posts/?page_size=10"
    viewers = [
        session_client(world["master"]),
        token_client(world["key_a"]),
        session_client(world["player_b"]),
    ]

    def same() -> None:
        for client in viewers:
            assert pages(client, url) == fresh(client, url)

    same()
    first = world["posts"][0]
    services.post_edit(post=first, editor=world["player_a"], body="Ana, otra vez")
    same()
    assert "Ana, otra vez" in pages(viewers[1], url)[0].decode()
    services.post_delete(post=world["posts"][3], user=world["player_a"])
    same()
    hidden = PostRoll.objects.filter(post=world["posts"][1]).get()
    services.roll_threshold_set(post_roll=hidden, master=world["master"], threshold=40)
    same()
    world["player_b"].username = "bruno-nuevo"
    world["player_b"].save()
    same()
    assert "bruno-nuevo" in pages(viewers[0], url)[0].decode()
    world["ana"].name = "Ana María"
    world["ana"].save()
    same()


def test_a_new_post_keeps_the_closed_pages_and_a_warm_read_costs_two_queries(scene_world):
    world = scene_world
    client = token_client(world["key_a"])
    url = f"/api/v1/scenes/{world['scene'].pk}/posts/"
    first = client.get(url).content  # kept
    world["post"](
        world["player_b"],
        body="Uno más",
        voice="character",
        character=world["ana"].__class__.objects.get(name="Beto"),
    )
    with CaptureQueriesContext(connection) as warm:
        again = client.get(url)
    assert again.content == first
    # the token, then the page's version (the scene row and its posts' range); the access
    # check's reads are in the kept page's generations
    assert len(warm.captured_queries) == 2
    with override_settings(ESCENAS_API_PAGES=False), CaptureQueriesContext(connection) as cold:
        assert client.get(url).content == first
    # test_queries.py's "posts" (8), the token's lookup in place of the session's user
    assert len(cold.captured_queries) == 8


def test_a_kept_page_answers_404_once_its_reader_loses_the_scene(scene_world, outsider):
    """The key is taken before the access check (``escenas.api_pages``): the check's own
    reads (the scene's readers, the memberships) make a kept page old, so a reader who loses
    the scene gets the 404 of a fresh check, not the page it kept."""
    from escenas.models import Scene

    world = scene_world
    url = f"/api/v1/scenes/{world['scene'].pk}/posts/?page_size=10"
    reader = session_client(outsider)
    assert reader.get(url).status_code == 200
    assert reader.get(url).status_code == 200  # kept
    Scene.objects.filter(pk=world["scene"].pk).update(readers=Scene.Readers.PARTICIPANTS)
    assert reader.get(url).status_code == 404
    participant = session_client(world["player_b"])
    assert participant.get(url).status_code == 200


def test_a_scene_narrowed_between_the_check_and_the_page_is_not_served_kept(
    scene_world, outsider, monkeypatch
):
    """The master narrows the scene after the reader's access check and before the page's
    snapshot (found in review): the version's scene part is the check's row, so the next
    read checks access again and answers 404, not the page kept from the wider scene."""
    from escenas import api as escenas_api
    from escenas.models import Scene

    pk = scene_world["scene"].pk
    url = f"/api/v1/scenes/{pk}/posts/?page_size=10"
    reader = session_client(outsider)
    checked = escenas_api.scene_access_for_api

    def narrowed_after_the_check(scene_pk, user):
        access = checked(scene_pk, user)
        Scene.objects.filter(pk=pk).update(readers=Scene.Readers.PARTICIPANTS)
        return access

    monkeypatch.setattr(escenas_api, "scene_access_for_api", narrowed_after_the_check)
    assert reader.get(url).status_code == 200  # it could read when it was checked
    monkeypatch.setattr(escenas_api, "scene_access_for_api", checked)
    assert reader.get(url).status_code == 404
