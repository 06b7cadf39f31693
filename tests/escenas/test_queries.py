"""Query counts of the scene pages: constant in the number of posts (and rolls).

If one of these fails after a change, the new query must be justified: a per-post query means
the page no longer scales (the benchmark has 1 000 posts). The scene page's queries for a player
re-reading the last page of an unchanged scene, in order: user (the session comes from the
cache), the scene with its campaign, diary character, the viewer's membership role and
characters, the posts' version (count, newest id, newest ``updated_at``), whether it has fights
or a pending roll request, the read marker and whether the reader has a draft there, all in
one query (``access_scene(..., with_version=True, page_state=True)``); its participants; then,
the post list being cached under that version (``escenas.fragments``), no post query and no
read-marker write; the campaign's traits, the members (whisper recipients), the trait values
(roll widget), the reader's feed token with their follow/mute choice for the scene (the
per-scene e-mail mode; one query): 7. A pending roll request and a draft are read only when
the version says there is one: 9 then (``test_a_request_and_a_draft_are_read_when_there``). The
waiting-on line is cached under the same version; a scene without fights asks nothing for the
combat panel (with fights 4–5 more, pinned in test_combat_pages).

A changed scene (a new post) misses the list: the last page's count and rows (2) and the posts
whose fragment is not cached (2: the posts with character, author, revision counts; their
rolls; their whisper recipients only when one of them is a whisper): 4 more, and the read-marker
update for a reader who had not seen the new posts. The first page of many has no post form:
fewer.

Those are the render's queries, which a page not kept whole still makes (measured here with
``ESCENAS_VIEWER_PAGES`` off). Kept whole (``escenas.viewer_pages``, the default), the same
warm re-read asks for the user only: 1 (``test_a_kept_page_asks_for_the_user_only``).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from escenas import notifications, scenes, services
from escenas.models import Draft, Post, PostRoll
from escenas.selectors import PAGE_SIZE
from personajes.models import Trait
from tests.escenas.conftest import access_for, client_for
from tests.escenas.factories import PostFactory, new_key


def add_posts(scene, author, n, *, rolls=True, character=None):
    access = access_for(scene, author)
    for i in range(n):
        services.post_create(
            access=access,
            author=author,
            idempotency_key=new_key(),
            body=f"Mensaje {i}",
            voice="character" if character else access.voices[0],
            character=character,
            roll=services.RollSpec(kind="expression", expression="2d6+1") if rolls else None,
        )


def count_queries(client, url, *, warm: bool = False) -> int:
    """Queries of one GET (the response must be 200); ``warm``: of a third GET, once the
    page's post fragments and its post list are in the cache (the first GET may move the read
    marker, which is in the list's key: the second stores the list as read)."""
    if warm:
        client.get(url)
        client.get(url)
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.parametrize("who", ["player_a", "master", "player_b"])
@override_settings(ESCENAS_VIEWER_PAGES=False)
def test_scene_page_queries_do_not_grow_with_posts(who, cast, story, master, player_a, char_a):
    """The same page (the last, with the post form; and the first) with 1 post and with 30
    posts with a roll each (two pages): the same number of queries."""
    client = client_for(cast[who])
    add_posts(story, master, 1)  # the master's post: the waiting-on line has its 2 queries
    client.get(story.get_absolute_url())  # the first visit creates the read marker
    url = story.get_absolute_url()
    one_last = count_queries(client, url + "?page=last", warm=True)
    one_first = count_queries(client, url + "?page=1", warm=True)
    add_posts(story, player_a, 29, character=char_a)
    assert Post.objects.count() == PostRoll.objects.count() == 30 > PAGE_SIZE
    # Read in order, as a reader does: the last page then moves the marker (one UPDATE), as it
    # did with one post. (Jumping to the last page over unread posts leaves the marker alone:
    # one query fewer; test_reading.py.)
    client.get(url + "?page=1")
    cold_last = count_queries(client, url + "?page=last")
    many_last = count_queries(client, url + "?page=last", warm=True)
    many_first = count_queries(client, url + "?page=1", warm=True)
    assert many_last == one_last, f"{who}: {one_last} queries with 1 post, {many_last} with 30"
    # A changed scene: the list's rows and counts, the posts not in the fragment cache (the
    # posts, their rolls; no whisper among them, so no recipients) and, for a reader, the
    # read-marker update. The new posts are player A's (posting moved their read marker): no
    # update for them.
    assert cold_last == many_last + 4 + (who != "player_a"), (cold_last, many_last)
    if who == "player_a":
        # Pinned (see the module docstring for the list): justify any new query.
        # 7 and 4: the feed token and the follow/mute choice in one query (issue 14: 10, 6),
        # no request or draft read when the version says there is none (9, 5 before).
        assert (one_last, many_first) == (7, 4), (one_last, many_first)
    # The first page of many is not the last: no post form, its queries are not made.
    assert many_first <= one_first


@override_settings(ESCENAS_VIEWER_PAGES=False)
def test_a_request_and_a_draft_are_read_when_there(story, master, player_a, char_a):
    """The version says whether the scene has a pending roll request and the reader a draft:
    the page reads each (one query) only then, and shows it."""
    client = client_for(player_a)
    url = story.get_absolute_url() + "?page=last"
    add_posts(story, master, 1)
    assert count_queries(client, url, warm=True) == 7
    master_before = count_queries(client_for(master), url, warm=True)
    services.roll_request_create(
        access=access_for(story, master),
        master=master,
        character=char_a,
        trait=Trait.objects.get(campaign=story.campaign, slug="fuerza"),
        threshold=40,
        reason="¿Aguantas la puerta?",
    )
    assert count_queries(client, url, warm=True) == 8
    Draft.objects.create(
        user=player_a, scene=story, body="A medio escribir", idempotency_key=new_key(), data={}
    )
    assert count_queries(client, url, warm=True) == 9
    html = client.get(url).content.decode()
    assert "¿Aguantas la puerta?" in html and "A medio escribir" in html
    # Player A's draft is not the master's: the master's page reads the request, no draft.
    assert count_queries(client_for(master), url, warm=True) == master_before + 1


@pytest.mark.parametrize("who", ["player_a", "master", "player_b"])
def test_a_kept_page_asks_for_the_user_only(who, cast, story, master, player_a, char_a):
    """Kept whole, a warm re-read of the last and the first page is the user's query, with 1
    post and with 30 (two pages)."""
    client = client_for(cast[who])
    url = story.get_absolute_url()
    add_posts(story, master, 1)
    assert count_queries(client, url + "?page=last", warm=True) == 1
    add_posts(story, player_a, 29, character=char_a)
    assert count_queries(client, url + "?page=last", warm=True) == 1
    assert count_queries(client, url + "?page=1", warm=True) == 1


def test_default_page_is_the_first_unread(story, master, player_b, char_a):
    client = client_for(player_b)
    add_posts(story, master, PAGE_SIZE + 5)
    response = client.get(story.get_absolute_url())
    assert response.context["page"].number == 1  # never read: from the beginning
    client.get(story.get_absolute_url() + "?page=2")  # read everything
    add_posts(story, master, 1)
    response = client.get(story.get_absolute_url())
    assert response.context["page"].number == 2
    html = response.content.decode()
    assert html.count('class="badge new-badge"') == 1


@override_settings(ESCENAS_VIEWER_PAGES=False)
def test_scene_list_queries_do_not_grow_with_scenes_or_posts(campaign, master, player_a, char_a):
    """The list's render (not kept whole: ``ESCENAS_VIEWER_PAGES`` off) with 1 scene and 11."""
    url = reverse("escenas:scene_list", args=[campaign.slug])
    client = client_for(player_a)
    scene = scenes.scene_create(
        campaign=campaign, master=master, title="Una", participants=[char_a]
    )
    PostFactory(scene=scene, author=master)
    client.get(url)  # creates the off-topic scene and the diaries once
    one = count_queries(client, url)
    for i in range(10):
        s = scenes.scene_create(
            campaign=campaign, master=master, title=f"Escena {i}", participants=[char_a]
        )
        for _ in range(3):
            PostFactory(scene=s, author=master)
    many = count_queries(client, url)
    assert many == one
    # User (the session is cached), campaign, characters, the off-topic scene and the diaries
    # (the create-on-read checks, one query), the count, the page of scenes, participants,
    # last posts (the page shows no diary's character: the list does not prefetch it).
    assert many == 8, many


@override_settings(ESCENAS_VIEWER_PAGES=False)
def test_scene_list_is_paginated(campaign, master, player_a, char_a):
    """A player with more scenes than a page (here: dead characters' diaries, the 500-diary
    case of the benchmark in small) gets one page; the next page holds the rest, in the same
    order as one long list, and costs the same queries."""
    from escenas.listing import SCENE_LIST_SIZE
    from tests.factories import CharacterFactory

    url = reverse("escenas:scene_list", args=[campaign.slug])
    story = scenes.scene_create(
        campaign=campaign, master=master, title="La gasolinera", participants=[char_a]
    )
    PostFactory(scene=story, author=master)
    for i in range(SCENE_LIST_SIZE + 5):
        scenes.diary_scene_for(
            CharacterFactory(campaign=campaign, player=player_a, name=f"P{i:03}")
        )
    client = client_for(player_a)
    client.get(url)  # create-on-read: the off-topic scene and char_a's diary
    with CaptureQueriesContext(connection) as ctx:
        first = client.get(url)
    second = client.get(url + "?page=2")
    rows = first.context["rows"] + second.context["rows"]
    assert len(first.context["rows"]) == SCENE_LIST_SIZE
    assert len(rows) == SCENE_LIST_SIZE + 5 + 3  # + the story, the off-topic, char_a's diary
    assert [r.scene.kind for r in rows[:2]] == ["story", "offtopic"]
    assert [r.scene.title for r in rows[2:]] == sorted(r.scene.title for r in rows[2:])
    assert 'rel="next"' in first.content.decode()
    assert count_queries(client, url + "?page=2") == len(ctx.captured_queries)


def test_a_kept_scene_list_asks_for_the_user_only(campaign, master, player_a, char_a):
    """Kept whole (``escenas.viewer_pages``), a warm re-read of the list is the user's query,
    with 1 scene and with 11; the render that created the off-topic scene and the diary is
    not taken as current (the next request renders)."""
    url = reverse("escenas:scene_list", args=[campaign.slug])
    client = client_for(player_a)
    scene = scenes.scene_create(
        campaign=campaign, master=master, title="Una", participants=[char_a]
    )
    PostFactory(scene=scene, author=master)
    assert client.get(url).templates  # creates the off-topic scene and the diary
    assert client.get(url).templates  # rendered again: the first one wrote scenes
    assert count_queries(client, url) == 1
    for i in range(10):
        scenes.scene_create(
            campaign=campaign, master=master, title=f"Escena {i}", participants=[char_a]
        )
    assert count_queries(client, url, warm=True) == 1


def test_poll_queries_do_not_grow_with_new_posts(story, player_a, master, char_a):
    client = client_for(player_a)
    url = reverse("escenas:poll", args=[story.campaign.slug, story.pk]) + "?after=0&since=0"
    add_posts(story, master, 1)
    client.get(url)  # the first visit creates the read marker
    add_posts(story, master, 1)
    one = count_queries(client, url)
    add_posts(story, master, 15)
    assert count_queries(client, url) == one


def test_a_poll_with_nothing_new_reads_no_post(story, player_a, master, char_a):
    """The usual poll (every 15 s from every open tab): nothing was posted or changed since
    the page was shown. In order: the user (the session comes from the cache), then the
    scene's access with its version and the read marker in one query, its participants: 3,
    with 1 post or with 40 in the scene, and no post is read (8 before, issue 14). Something
    new is read as before: the new posts with their rolls (2), the changed ones (1) and the
    read marker's update (1): 4 more; 5 when a new post is a whisper (its recipients)."""
    client = client_for(player_a)
    add_posts(story, master, 1)
    client.get(story.get_absolute_url())  # the page: the read marker is at its last post
    last = Post.objects.latest("pk")
    url = reverse("escenas:poll", args=[story.campaign.slug, story.pk])
    quiet = f"{url}?after={last.pk}&since={last.updated_at.timestamp() + 1}"
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(quiet).status_code == 200
    assert len(ctx.captured_queries) == 3
    assert not any("escenas_post" in q["sql"].split(" FROM ")[1] for q in ctx.captured_queries)
    add_posts(story, player_a, 39, character=char_a)
    client.get(story.get_absolute_url() + "?page=last")
    last = Post.objects.latest("pk")
    quiet = f"{url}?after={last.pk}&since={last.updated_at.timestamp() + 1}"
    assert count_queries(client, quiet) == 3
    add_posts(story, master, 1)
    assert count_queries(client, quiet) == 3 + 4
    last = Post.objects.latest("pk")
    quiet = f"{url}?after={last.pk}&since={last.updated_at.timestamp() + 1}"
    services.post_create(
        access=access_for(story, master),
        author=master,
        idempotency_key=new_key(),
        body="Sólo para ti",
        voice="narrator",
        whisper_to=[player_a],
    )
    with CaptureQueriesContext(connection) as ctx:
        answer = client.get(quiet).content.decode()
    assert len(ctx.captured_queries) == 3 + 5
    assert "Sólo para ti" in answer and f"susurro a {player_a.username}" in answer


def test_feed_queries_do_not_grow_with_posts(story, player_a, master, char_a):
    token = notifications.preference_get_or_create(user=player_a).feed_token
    url = reverse("escenas:private_feed", args=[token, story.campaign.slug, story.pk])
    client = client_for(None)
    add_posts(story, master, 1)
    one = count_queries(client, url)
    add_posts(story, master, 12)
    assert count_queries(client, url) == one


def _post_with_action_roll(scene, author, character) -> list[str]:
    """The SQL of one post with an action roll, through the service."""
    access = access_for(scene, author)
    with CaptureQueriesContext(connection) as ctx:
        services.post_create(
            access=access,
            author=author,
            idempotency_key=new_key(),
            body="Fuerzo la persiana.",
            voice="character",
            character=character,
            roll=services.RollSpec(
                kind="action", character=character, trait="fuerza", threshold=30
            ),
        )
    return [q["sql"] for q in ctx.captured_queries]


def test_posting_with_a_roll_costs_the_same_with_1_or_20_posts_in_the_scene(
    story, player_a, char_a
):
    """Writing is pinned too: 17 statements, 13 of them queries, on SQLite; on PostgreSQL two
    more (the idempotency key's lock and the roll sequence's ledger lock, ``nucleo.locks``:
    the price of posts of a campaign running side by side instead of one at a time).
    In order: the campaign lock (shared), [the key's lock], the idempotency key, the post; the
    author's dice seed (the player's share mixed into the roll, issue 16); the roll (in a
    savepoint, under the post's lock: the campaign row is not read again): the character's
    lock, the trait, its value, [the ledger lock], the ledger's sequence count, the roll; then
    the post's roll link, the draft, the read marker; last, the scene's last-post time (its
    row lock held only until the commit). Its e-mails are no longer queued here (14 queries
    fewer than before, issue 13): the post is written ``fan_out_pending`` and fanned out after
    the commit (``escenas.post_fanout``; ``test_notifications`` pins that).
    Justify any new query: the number must not grow with the scene. (The author's first post
    in a scene also creates their read marker: the warm-up post below.)"""
    add_posts(story, player_a, 1, character=char_a)
    second = _post_with_action_roll(story, player_a, char_a)
    add_posts(story, player_a, 18, character=char_a)
    twenty_first = _post_with_action_roll(story, player_a, char_a)
    assert Post.objects.filter(scene=story).count() == 21
    assert len(second) == len(twenty_first), "\n".join([*second, "-----", *twenty_first])
    statements = [sql for sql in second if "SAVEPOINT" not in sql]
    locks = 2 if connection.vendor == "postgresql" else 0
    assert (len(second), len(statements)) == (17 + locks, 13 + locks), "\n".join(second)
