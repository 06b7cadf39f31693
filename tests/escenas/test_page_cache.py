"""The scene page's larger cached pieces (``escenas.fragments``): the whole post list of a page,
for every viewer, and the whole page for an anonymous reader of a public scene.

Cast (tests/escenas/test_permissions.py): the master, player A (Ana takes part), player B (no
character in the scene), the outsider and anonymous. The byte-for-byte comparison over every
viewer and scene kind, with whispers, notes and hidden rolls, is
tests/escenas/test_fragment_cache.py (it runs through both pieces); here: that a warm page asks
for no post at all, what the anonymous page costs, and that every write that changes what the
page shows reaches it (new posts, edits, deletions, thresholds, renames, read markers, the
scene's own rows).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from escenas import scenes, services
from escenas.models import PostRoll, SceneRead
from tests.escenas.conftest import client_for
from tests.escenas.test_fragment_cache import LOCMEM, normal
from tests.escenas.test_permissions import CAST, READ, make_scene, write

pytestmark = pytest.mark.usefixtures("locmem")


@pytest.fixture
def locmem():
    with override_settings(CACHES=LOCMEM):
        yield


def get(client, url) -> tuple[str, list[str]]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200
    return response.content.decode(), [q["sql"] for q in ctx.captured_queries]


def rendered(client, url) -> bool:
    """Whether the page was rendered from its template (False: written out from the cache)."""
    return bool(client.get(url).templates)


def post_queries(queries: list[str]) -> list[str]:
    """The queries that read posts themselves (not the version subqueries of the access)."""
    return [q for q in queries if q.startswith(('SELECT "escenas_post"', "SELECT COUNT"))]


@pytest.fixture
def public_scene(campaign, master, char_a):
    scene = make_scene("story_public", campaign, master, char_a)
    write(scene, master, "La gasolinera está a oscuras.")
    return scene


@pytest.mark.parametrize("who", CAST)
def test_a_warm_page_reads_no_post(who, cast, public_scene, player_a):
    """Every viewer of a public story scene: the third visit (the first may move the read
    marker, the second stores the list as read) asks for no post, no count, no roll."""
    write(public_scene, player_a, "Ana entra.")
    assert who in READ["story_public"]
    client = client_for(cast[who])
    url = public_scene.get_absolute_url()
    get(client, url)
    get(client, url)
    warm, queries = get(client, url)
    assert normal(warm) == normal(get(client, url)[0])
    assert post_queries(queries) == [], who
    assert not [q for q in queries if '"escenas_postroll"' in q], who
    assert "Ana entra." in warm


def test_the_anonymous_page_is_cached_whole(public_scene, campaign):
    """An anonymous reader of a public scene: the page is stored whole; a re-read is the scene
    (with the campaign and the posts' version) and its participants, nothing else, and the
    same bytes but for the per-request token, nonce and clock."""
    client = client_for(None)
    url = public_scene.get_absolute_url()
    cold, _ = get(client, url)
    assert not rendered(client, url)
    warm, queries = get(client, url)
    assert len(queries) == 2, queries
    assert normal(warm) == normal(cold)
    assert 'name="csrfmiddlewaretoken" value="' in warm  # a real token, filled in
    assert "\x00" not in warm
    # htmx asks for the post list alone: another key, the same list.
    fragment = client.get(url + "?page=1", headers={"HX-Request": "true"}).content.decode()
    assert fragment.lstrip().startswith('<section id="post-list"')


def test_the_anonymous_page_follows_the_scene_rows(public_scene, master, char_a, char_b):
    """Changes of the scene's own rows (title, participants, a participant's name) reach the
    anonymous page, which shows them outside the post list."""
    client = client_for(None)
    url = public_scene.get_absolute_url()
    get(client, url)
    scenes.scene_update(
        scene=public_scene,
        master=master,
        title="La gasolinera (noche)",
        participants=[char_a, char_b],
    )
    html, _ = get(client, url)
    assert "La gasolinera (noche)" in html and char_b.name in html
    char_a.name = "Ana de Noche"
    char_a.save()
    html, _ = get(client, url)
    assert "Ana de Noche" in html


def test_a_session_cookie_skips_the_whole_page(public_scene):
    """A visitor with a session (messages may wait in it) gets a page rendered for them."""
    client = client_for(None)
    url = public_scene.get_absolute_url()
    for _ in range(2):
        client.cookies["sessionid"] = "x"  # an unknown session: the response deletes it
        assert rendered(client, url)


@pytest.mark.parametrize("who", ["master", "player_b", "anonymous"])
def test_writes_reach_the_cached_page(who, cast, public_scene, master, player_a, char_a):
    """A new post, an edit, a deletion, a threshold set and a rename each reach a page whose
    list (or, anonymous, whole page) is cached."""
    client = client_for(cast[who])
    url = public_scene.get_absolute_url() + "?page=last"
    get(client, url)
    get(client, url)

    post = write(public_scene, player_a, "Ana abre la puerta.")
    assert "Ana abre la puerta." in get(client, url)[0]

    services.post_edit(post=post, editor=player_a, body="Ana cierra la puerta.")
    html, _ = get(client, url)
    assert "Ana cierra la puerta." in html and "Ana abre la puerta." not in html

    rolled = write(
        public_scene,
        player_a,
        "Ana empuja.",
        roll=services.RollSpec(kind="action", character=char_a, trait="fuerza"),
    )
    get(client, url)
    services.roll_threshold_set(
        post_roll=PostRoll.objects.get(post=rolled), master=master, threshold=40
    )
    assert "40 %" in get(client, url)[0]

    services.post_delete(post=post, user=player_a)
    html, _ = get(client, url)
    assert ("Ana cierra la puerta." in html) == (who == "master")

    player_a.username = "alicia-de-noche"
    player_a.save()
    assert "alicia-de-noche" in get(client, url)[0]


def test_the_read_marker_moves_the_new_flags(public_scene, player_b, player_a):
    """The read marker is in the list's key: posts after it are flagged new, then not."""
    client = client_for(player_b)
    url = public_scene.get_absolute_url() + "?page=last"
    get(client, url)
    get(client, url)
    write(public_scene, player_a, "Ana llega.")
    html, _ = get(client, url)
    assert html.count('class="badge new-badge"') == 1
    html, _ = get(client, url)  # now read
    assert html.count('class="badge new-badge"') == 0
    marker = SceneRead.objects.get(scene=public_scene, user=player_b)
    SceneRead.objects.filter(pk=marker.pk).update(last_post_id=0)
    html, _ = get(client, url)
    assert html.count('class="badge new-badge"') == 2


def test_fights_keep_the_anonymous_page_uncached(public_scene, master):
    """The combat panel changes with the clock and rows the version does not cover: a scene
    with a fight is rendered for every anonymous request."""
    from escenas.combat_models import Combat

    Combat.objects.create(campaign=public_scene.campaign, scene=public_scene, kind="humans")
    client = client_for(None)
    url = public_scene.get_absolute_url()
    assert rendered(client, url) and rendered(client, url)
