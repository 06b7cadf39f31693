"""Kept API list answers (``nucleo.api_answers``): a re-read of an unchanged list is served
from the cache, and every write to a table the list read (by anyone) makes the next read
fresh; a read marker is per user; each user has their own answer."""

from __future__ import annotations

import uuid

import pytest

from tests.api.conftest import session_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(campaign, master, player_a, player_b):
    from escenas import scenes
    from personajes.models import Character
    from tests.factories import CharacterFactory

    ana = CharacterFactory(
        campaign=campaign,
        player=player_a,
        name="Ana",
        status=Character.Status.APPROVED,
        allocation={"fuerza": 2},
    )
    bruno = CharacterFactory(
        campaign=campaign, player=player_b, name="Bruno", status=Character.Status.APPROVED
    )
    story = scenes.scene_create(
        campaign=campaign, master=master, title="La gasolinera", participants=[ana, bruno]
    )
    scenes.offtopic_scene_for(campaign)
    scenes.diaries_ensure(campaign=campaign)
    return {"ana": ana, "story": story}


def narrate(campaign, master, scene, body="Llueve."):
    from escenas import access, services

    got = access.access_scene(master, scene.pk, campaign=campaign)
    services.post_create(
        access=got, author=master, idempotency_key=uuid.uuid4().hex, body=body, voice="narrator"
    )


def unread(client, campaign) -> int:
    rows = client.get(f"/api/v1/campaigns/{campaign.slug}/scenes/").json()["results"]
    return next(r["unread"] for r in rows if r["title"] == "La gasolinera")


def test_an_unchanged_scene_list_is_served_kept(
    campaign, player_a, world, django_assert_num_queries
):
    client = session_client(player_a)
    url = f"/api/v1/campaigns/{campaign.slug}/scenes/"
    first = client.get(url)
    with django_assert_num_queries(1):  # the user (session cached): no list query
        again = client.get(url)
    assert again.json() == first.json()
    assert again.content == first.content


def test_a_new_post_or_my_read_marker_makes_the_scene_list_fresh(
    campaign, master, player_a, player_b, world
):
    from escenas.reading import scene_mark_read

    client_a, client_b = session_client(player_a), session_client(player_b)
    assert unread(client_a, campaign) == 0 and unread(client_b, campaign) == 0
    narrate(campaign, master, world["story"])
    assert unread(client_a, campaign) == 1 and unread(client_b, campaign) == 1
    last = world["story"].posts.order_by("-pk").first()
    scene_mark_read(scene=world["story"], user=player_b, post_id=last.pk)
    assert unread(client_b, campaign) == 0  # my marker: fresh
    assert unread(client_a, campaign) == 1  # another's marker: kept, and still right


def test_a_member_removed_no_longer_gets_the_kept_list(campaign, player_a, world):
    from mundo.models import Membership

    client = session_client(player_a)
    url = f"/api/v1/campaigns/{campaign.slug}/scenes/"
    assert client.get(url).status_code == 200
    Membership.objects.filter(campaign=campaign, user=player_a).delete()
    assert client.get(url).status_code == 404


def test_each_user_and_address_has_its_own_answer(campaign, master, player_a, world):
    url = f"/api/v1/campaigns/{campaign.slug}/scenes/"

    def diaries(user) -> list[int]:
        rows = session_client(user).get(url).json()["results"]
        return [r["diary_character"] for r in rows if r["kind"] == "diary"]

    everyone = sorted(diaries(master))
    assert len(everyone) == 2 and diaries(player_a) == [world["ana"].pk]
    assert sorted(diaries(master)) == everyone  # the master's own, kept
    small = session_client(player_a).get(url + "?page_size=1").json()
    assert len(small["results"]) == 1 and small["next"].endswith("page=2&page_size=1")


def test_a_new_roll_makes_the_roll_list_fresh(
    campaign, master, player_a, world, django_assert_num_queries
):
    from personajes.rolls import roll_action_for_character

    ana = world["ana"]
    client = session_client(player_a)
    url = f"/api/v1/characters/{ana.pk}/rolls/"
    assert client.get(url).json()["count"] == 0
    with django_assert_num_queries(1):  # kept
        assert client.get(url).json()["count"] == 0
    roll = roll_action_for_character(character=ana, trait="fuerza", threshold=30, made_by=master)
    body = client.get(url).json()
    assert body["count"] == 1 and body["results"][0]["id"] == roll.pk
    assert body["results"][0]["made_by"] == master.username


def test_answers_are_not_kept_when_switched_off(
    campaign, player_a, world, settings, django_assert_num_queries
):
    settings.ESCENAS_API_ANSWERS = False
    client = session_client(player_a)
    url = f"/api/v1/campaigns/{campaign.slug}/scenes/"
    client.get(url)
    with django_assert_num_queries(7):  # the whole list again (tests/api/test_queries.py)
        client.get(url)
