"""«Mi mesa» (issue 15 item 5): one inbox across campaigns, as a page, an Atom feed and the API.

Cast (tests/conftest.py, tests/escenas/conftest.py): the master runs ``campaign``; player A's
character ``char_a`` takes part in ``story``; player B reads it (readers = members) and takes
part in nothing; the outsider belongs to no campaign. A second campaign, when made, has player
A as its master and the master as a player, so each role is seen from both sides.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from escenas import inbox, joining, notifications, scenes, services
from escenas.models import Scene
from escenas.pending import master_pending_items
from mundo.models import Membership
from personajes.models import Character, Trait
from tests.escenas.conftest import access_for, client_for
from tests.escenas.factories import new_key
from tests.escenas.test_queries import add_posts
from tests.factories import CampaignFactory, CharacterFactory, MembershipFactory


def ask_roll(scene, master, character, *, threshold=None):
    return services.roll_request_create(
        access=access_for(scene, master),
        master=master,
        character=character,
        trait=Trait.objects.get(campaign=scene.campaign, slug="fuerza"),
        threshold=threshold,
    )


def action_roll_without_threshold(scene, player, character):
    services.post_create(
        access=access_for(scene, player),
        author=player,
        idempotency_key=new_key(),
        body="Empujo la puerta.",
        voice="character",
        character=character,
        roll=services.RollSpec(kind="action", character=character, trait="fuerza"),
    )


def kinds(items):
    return [item.kind for item in items]


def test_a_player_sees_unread_counts_waiting_scenes_and_roll_requests(
    campaign, story, master, player_a, char_a
):
    add_posts(story, master, 3)
    ask_roll(story, master, char_a, threshold=40)
    mine = inbox.inbox_for(player_a)
    [row] = mine.campaigns
    assert (row.campaign, row.role, row.unread, row.pending) == (campaign, "player", 3, [])
    # The scene with a request is listed once, with the request (the one link that answers it).
    assert kinds(mine.roll_requests) == ["roll_request"] and mine.waiting == []
    assert mine.roll_requests[0].label == (
        "El máster pide a Ana Forastera una tirada de Fuerza en «La gasolinera»"
    )
    assert mine.roll_requests[0].url == story.get_absolute_url() + "?page=last#post-form"
    # Answered: the scene still waits for A's post only while the last post is someone else's.
    client_for(player_a).get(story.get_absolute_url())
    request = story.roll_requests.get()
    request.cancelled_at = request.created_at
    request.save()
    mine = inbox.inbox_for(player_a)
    assert mine.unread == 0 and mine.roll_requests == []
    assert [(i.kind, i.url) for i in mine.waiting] == [("waiting", story.get_absolute_url())]
    add_posts(story, player_a, 1, character=char_a)
    assert inbox.inbox_for(player_a).waiting == []


def test_a_reader_who_plays_no_character_there_waits_on_nothing(story, master, player_b, char_b):
    add_posts(story, master, 2)
    mine = inbox.inbox_for(player_b)
    assert mine.unread == 2  # B reads the scene (readers = members)
    assert mine.waiting == [] and mine.roll_requests == []


def test_the_master_sees_every_pending_item_one_link_away(
    campaign, story, master, player_a, player_b, char_a, char_b
):
    submitted = CharacterFactory(
        campaign=campaign, player=player_b, name="Carla", status=Character.Status.SUBMITTED
    )
    action_roll_without_threshold(story, player_a, char_a)
    ask_roll(story, master, char_a)
    joining.join_request_create(
        access=access_for(story, player_b), user=player_b, character_id=char_b.pk
    )
    [row] = inbox.inbox_for(master).campaigns
    assert row.is_master and row.unread == 1  # A's post
    by_kind = {item.kind: item for item in row.pending}
    assert set(by_kind) >= {"sheet", "threshold", "request", "join"}
    assert by_kind["sheet"].url == reverse("personajes:review", kwargs={"pk": submitted.pk})
    assert by_kind["sheet"].label == "Hoja de Carla (bruno) esperando tu revisión"
    post = story.posts.get()
    assert by_kind["threshold"].url == post.get_absolute_url()
    assert by_kind["request"].url == story.get_absolute_url() + "?page=last#requests"
    join = by_kind["join"]
    assert (join.url, join.link_text) == (join.scene.get_absolute_url(), "Ver la escena")
    assert join.action_url == reverse(
        "escenas:join_decide", kwargs={"slug": campaign.slug, "pk": join.key.split("-")[1]}
    )
    # The same items for the campaign page's selector; nothing for a player.
    assert master_pending_items(campaign, user=master) == row.pending
    assert master_pending_items(campaign, user=player_a) == []
    # A player never sees the master's items.
    assert all(c.pending == [] for c in inbox.inbox_for(player_a).campaigns)


def test_a_character_in_danger_is_a_pending_item(campaign, master, player_a, char_a):
    char_a.thirst_days = 2  # R6: a third day without water kills
    char_a.save()
    danger = [i for i in inbox.inbox_for(master).pending if i.kind == "danger"]
    # The campaign page's words and its link that fixes it (escenas.pending): water, given
    # from the world page's form set for her.
    (item,) = danger
    assert item.label.startswith("Ana Forastera: Sed mañana;")
    assert "Muerte por sed el día" in item.label
    world = reverse("mundo:world", kwargs={"slug": campaign.slug})
    assert item.url == f"{world}?give={char_a.pk}&kind=water&open=supplies#give"


def _second_campaign(n, master, player_a):
    """Another campaign where player A masters, the master plays, with a scene and posts."""
    other = CampaignFactory(name=f"Otra {n}", slug=f"otra-{n}")
    MembershipFactory(campaign=other, user=player_a, role=Membership.Role.MASTER)
    MembershipFactory(campaign=other, user=master, role=Membership.Role.PLAYER)
    hero = CharacterFactory(
        campaign=other,
        player=master,
        name=f"Héroe {n}",
        status=Character.Status.APPROVED,
        allocation={"fuerza": 1},
    )
    scene = scenes.scene_create(
        campaign=other, master=player_a, title=f"Escena {n}", participants=[hero]
    )
    add_posts(scene, player_a, 2)
    ask_roll(scene, player_a, hero)
    CharacterFactory(campaign=other, player=master, status=Character.Status.SUBMITTED)
    return other


def count(user) -> tuple[int, int]:
    client = client_for(user)
    url = reverse("escenas:inbox")
    client.get(url)
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200
    return len(ctx.captured_queries), len(response.context["inbox"].campaigns)


@pytest.mark.parametrize("who", ["master", "player_a"])
def test_the_inbox_costs_the_same_with_two_campaigns_or_five(
    who, cast, campaign, story, master, player_a, char_a
):
    """Pinned: session user (1), memberships (1), the user's characters (1), unread counts (1),
    the master's sheets, thresholds, requests, join requests (4) and the forecasts (3 here:
    characters, carried stock, weather; the shelters' two only when someone has a shelter),
    my roll requests (1), waiting scenes (1), the feed token (1): 14. Both users master one
    campaign and play in another; then in four more of each role."""
    add_posts(story, master, 2)
    _second_campaign(0, master, player_a)
    two, n_two = count(cast[who])
    for n in range(1, 4):
        _second_campaign(n, master, player_a)
    many, n_many = count(cast[who])
    assert (n_two, n_many) == (2, 5)
    assert two == many == 14, (who, two, many)


def test_the_page_lists_everything_with_links(campaign, story, master, player_a, char_a):
    add_posts(story, master, 2)
    ask_roll(story, master, char_a)
    html = client_for(player_a).get(reverse("escenas:inbox")).content.decode()
    assert "<h1>Mi mesa</h1>" in html
    assert "2 mensajes sin leer en tus partidas" in html
    assert "El máster pide a Ana Forastera una tirada de Fuerza" in html
    assert f'href="{story.get_absolute_url()}?page=last#post-form"' in html
    assert "2 sin leer" in html
    html = client_for(master).get(reverse("escenas:inbox")).content.decode()
    assert "Ana Forastera aún no ha tirado Fuerza en «La gasolinera»" in html
    assert 'href="/mesa/"' in html  # the header links it


def test_the_inbox_needs_a_sign_in_and_is_the_landing_page(client, player_a):
    response = client.get(reverse("escenas:inbox"))
    assert response.status_code == 302 and reverse("login") in response["Location"]
    from django.conf import settings

    assert reverse(settings.LOGIN_REDIRECT_URL) == "/mesa/"


def test_the_feed_lists_the_items_behind_the_private_token(story, master, player_a, char_a):
    ask_roll(story, master, char_a)
    token = notifications.feed_token_regenerate(user=player_a).feed_token
    response = client_for(None).get(reverse("escenas:inbox_feed", kwargs={"token": token}))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    body = response.content.decode()
    assert "El máster pide a Ana Forastera una tirada de Fuerza" in body
    assert "partida-inbox-roll_request-" in body
    assert client_for(None).get("/feeds/no-such-token/mesa/").status_code == 404
    # The page links the feed.
    html = client_for(player_a).get(reverse("escenas:inbox")).content.decode()
    assert f'href="/feeds/{token}/mesa/"' in html


def test_the_api_answers_with_the_users_own_rights(story, master, player_a, player_b, char_a):
    ask_roll(story, master, char_a)
    add_posts(story, master, 1)
    url = "/api/v1/inbox/"
    assert client_for(None).get(url).status_code in (401, 403)
    data = client_for(player_a).get(url).json()
    assert data["unread"] == 1
    assert [c["role"] for c in data["campaigns"]] == ["player"]
    assert [i["kind"] for i in data["roll_requests"]] == ["roll_request"]
    assert data["campaigns"][0]["pending"] == []
    data = client_for(master).get(url).json()
    assert data["roll_requests"] == []
    pending = [i["kind"] for i in data["campaigns"][0]["pending"]]
    assert "request" in pending and set(pending) <= {"request", "danger"}
    data = client_for(player_b).get(url).json()
    assert data["roll_requests"] == [] and data["waiting"] == []


def test_the_api_is_in_the_schema(client):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").content.decode()
    assert "/api/v1/inbox/" in schema


def test_a_diary_and_the_off_topic_count_as_unread_too(campaign, story, master, player_a, char_a):
    offtopic = scenes.offtopic_scene_for(campaign)
    add_posts(offtopic, master, 1)
    assert inbox.inbox_for(player_a).unread == 1
    assert Scene.objects.filter(campaign=campaign).count() >= 2
