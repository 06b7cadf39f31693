"""A signed-in reader's whole scene page kept in the cache (``escenas.viewer_pages``) and the
write generations it is checked against (``nucleo.table_writes``).

A warm re-read costs the user's query and nothing else, is the same HTML as a render with no
cache (but for the per-request token, nonce, clock and fresh idempotency key), and every write
to what the page read, through any path (``save``, ``update()``, a cascade), reaches the next
request: a membership removed loses the page at once.
"""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from escenas import fragments, services
from escenas.models import Draft, Post, Scene
from mundo.models import Membership
from nucleo import table_writes
from personajes.models import Character
from tests.escenas.conftest import access_for, client_for
from tests.escenas.test_fragment_cache import DUMMY, LOCMEM, normal
from tests.escenas.test_permissions import write

pytestmark = pytest.mark.usefixtures("locmem")


@pytest.fixture
def locmem():
    with override_settings(CACHES=LOCMEM):
        yield


def get(client, url) -> tuple[str, list[str], bool]:
    """The page's HTML, its queries and whether it was rendered from its template."""
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, response.status_code
    html = response.content.decode()
    return html, [q["sql"] for q in ctx.captured_queries], bool(response.templates)


def warm(client, url) -> str:
    """Read until the page is kept (the first read may move the marker), then once more."""
    get(client, url)
    get(client, url)
    return get(client, url)[0]


def kept_as_rendered(client, url) -> str:
    """Warm the page, then read it kept: no render, the user's query alone, and the bytes of a
    render without any cache (but for the per-request values). Returns its HTML."""
    warm(client, url)
    html, queries, rendered = get(client, url)
    assert not rendered
    assert len(queries) == 1 and queries[0].startswith('SELECT "auth_user"'), queries
    with override_settings(CACHES=DUMMY):
        reference = client.get(url).content.decode()
    assert normal(html) == normal(reference)
    return html


@pytest.mark.parametrize("who", ["master", "player_a", "player_b"])
@pytest.mark.parametrize("page", ["?page=last", "?page=1", ""])
def test_a_warm_page_costs_only_the_user(who, page, cast, story, master, player_a):
    """The third visit renders nothing and asks only for the user; its bytes are those of a
    render without any cache."""
    write(story, master, "La gasolinera está a oscuras.")
    write(story, player_a, "Ana entra.")
    client = client_for(cast[who])
    url = story.get_absolute_url() + page
    html = kept_as_rendered(client, url)
    assert "Ana entra." in html


def test_the_fresh_idempotency_key_is_new_on_every_hit(story, player_a):
    """The post form's key is made per request (two tabs never share one); a draft's is kept."""
    client = client_for(player_a)
    url = story.get_absolute_url() + "?page=last"
    warm(client, url)
    first, _q, rendered = get(client, url)
    second, _q, _r = get(client, url)
    assert not rendered
    key = 'name="idempotency_key" value="'
    assert first.count(key) == 1
    assert first.split(key)[1][:32] != second.split(key)[1][:32]
    assert len(first.split(key)[1].split('"')[0]) == 32
    draft = services.draft_save(
        access=access_for(story, player_a),
        user=player_a,
        idempotency_key="b" * 32,
        body="Ana duda.",
    )
    html = warm(client, url)
    assert f'{key}{draft.idempotency_key}"' in html and "Ana duda." in html


def test_a_hit_carries_this_responses_nonce_and_a_working_token(story, player_a):
    """The scripts' nonce is the one the response's CSP header allows, and the page's CSRF
    token is accepted by a post (an htmx draft save)."""
    import re

    client = client_for(player_a)
    client.handler.enforce_csrf_checks = True
    url = story.get_absolute_url() + "?page=last"
    warm(client, url)
    response = client.get(url)
    assert not response.templates
    html = response.content.decode()
    header = response.headers["Content-Security-Policy"]
    nonces = set(re.findall(r'nonce="([^"]+)"', html))
    assert len(nonces) == 1 and f"'nonce-{nonces.pop()}'" in header
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    saved = client.post(
        story.get_absolute_url() + "borrador/",
        {"body": "Ana espera.", "idempotency_key": "e" * 32, "csrfmiddlewaretoken": token},
        headers={"HX-Request": "true"},
    )
    assert saved.status_code in (200, 204), saved.status_code
    assert Draft.objects.filter(user=player_a, body="Ana espera.").exists()


def test_a_removed_membership_loses_the_page_at_once(story, player_b):
    """Player B reads a members' scene from the cache; removed from the campaign, the very next
    request is a 404."""
    client = client_for(player_b)
    url = story.get_absolute_url()
    warm(client, url)
    assert not get(client, url)[2]
    Membership.objects.get(campaign=story.campaign, user=player_b).delete()
    assert client.get(url).status_code == 404


def test_a_new_names_generation_alone_makes_the_kept_page_old(story, player_a):
    """The page is kept with the names generation (its post fragments show names): bumped
    with no row written, as a rename's signal does, the next read renders again."""
    write(story, player_a, "Ana entra.")
    client = client_for(player_a)
    url = story.get_absolute_url()
    warm(client, url)
    assert not get(client, url)[2]
    fragments.names_changed()
    assert get(client, url)[2]


def test_a_role_changed_by_update_reaches_the_page(story, player_b):
    """A bulk ``update()`` (no signal) of the role: the master's extras appear at once."""
    client = client_for(player_b)
    url = story.get_absolute_url()
    edit = reverse("escenas:scene_edit", args=[story.campaign.slug, story.pk])
    assert edit not in warm(client, url)
    Membership.objects.filter(user=player_b).update(role=Membership.Role.MASTER)
    html, _q, rendered = get(client, url)
    assert rendered and edit in html


def test_bulk_writes_reach_the_kept_page(story, master, player_b, char_a):
    """A post's text and a participant's name changed with ``update()`` (no signal, no
    ``save``): both show on the next request."""
    post = write(story, master, "Antes.")
    client = client_for(player_b)
    url = story.get_absolute_url() + "?page=last"
    assert "Antes." in warm(client, url)
    Post.objects.filter(pk=post.pk).update(body_html="<p>Después.</p>", updated_at=timezone.now())
    assert "Después." in get(client, url)[0]
    Character.objects.filter(pk=char_a.pk).update(name="Anabel Forastera")
    assert "Anabel Forastera" in get(client, url)[0]


def test_posts_drafts_and_scene_edits_reach_the_kept_page(story, master, player_a, player_b):
    client = client_for(player_a)
    url = story.get_absolute_url() + "?page=last"
    warm(client, url)
    write(story, master, "Llega un coche.")
    assert "Llega un coche." in get(client, url)[0]
    Scene.objects.filter(pk=story.pk).update(title="La gasolinera en llamas")
    assert "La gasolinera en llamas" in get(client, url)[0]
    Draft.objects.create(
        user=player_a, scene=story, body="Ana corre.", idempotency_key="c" * 32, data={}
    )
    assert "Ana corre." in get(client, url)[0]


def test_a_waiting_message_or_a_stash_is_never_kept(rf, story, player_a):
    """A page that shows a message (or takes back a signed-out stash) consumes it: no key."""
    from django.contrib.messages import add_message, constants
    from django.contrib.messages.storage.fallback import FallbackStorage
    from django.contrib.sessions.backends.cache import SessionStore

    from escenas import stash, viewer_pages

    request = rf.get(story.get_absolute_url())
    request.user = player_a
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    assert viewer_pages.page_key(request, story.pk)
    request.session[stash.SESSION_KEY] = {"scene": story.pk, "fields": {"body": "x"}}
    assert viewer_pages.page_key(request, story.pk) == ""
    del request.session[stash.SESSION_KEY]
    add_message(request, constants.SUCCESS, "Guardado.")
    assert viewer_pages.page_key(request, story.pk) == ""
    assert len(list(request._messages)) == 1  # looking did not consume it


def test_the_message_after_a_redirect_is_shown(story, player_a):
    client = client_for(player_a)
    url = story.get_absolute_url() + "?page=last"
    warm(client, url)
    response = client.post(
        story.get_absolute_url() + "borrador/",
        {"body": "Ana espera.", "idempotency_key": "d" * 32, "voice": "character"},
        follow=True,
    )
    assert response.status_code == 200
    assert [str(m) for m in response.context["messages"]]
    assert "Ana espera." in get(client, url)[0]


def test_a_fight_keeps_the_page_rendered(story, master, player_a):
    """The combat panel follows the clock: a scene with a fight is rendered on every request."""
    from escenas.combat_models import Combat

    Combat.objects.create(campaign=story.campaign, scene=story, kind="humans")
    client = client_for(player_a)
    url = story.get_absolute_url()
    get(client, url)
    get(client, url)
    assert get(client, url)[2]


def test_the_setting_turns_it_off(story, player_a):
    client = client_for(player_a)
    url = story.get_absolute_url()
    with override_settings(ESCENAS_VIEWER_PAGES=False):
        get(client, url)
        get(client, url)
        assert get(client, url)[2]


def test_the_scene_list_is_kept_and_follows_new_posts_and_scenes(
    campaign, story, master, player_b, char_b
):
    """The scene list is kept like a scene page: a warm re-read asks for the user only and is
    the bytes of a render without any cache; a new post (its unread badge) and a new scene
    reach the next request."""
    from escenas import scenes

    client = client_for(player_b)
    url = reverse("escenas:scene_list", args=[campaign.slug])
    html = kept_as_rendered(client, url)
    assert "new-badge" not in html
    write(story, master, "Llega un coche.")
    html, _q, rendered = get(client, url)
    assert rendered and "1 nuevo" in html
    warm(client, url)
    client.get(story.get_absolute_url() + "?page=last")  # reads it: the marker moves
    html, _q, rendered = get(client, url)
    assert rendered and "new-badge" not in html
    scenes.scene_create(campaign=campaign, master=master, title="El puente", participants=[char_b])
    html, _q, rendered = get(client, url)
    assert rendered and "El puente" in html


@pytest.mark.parametrize("who", ["master", "player_a"])
def test_the_campaign_page_is_kept_and_follows_the_world_and_the_cast(
    who, cast, campaign, char_a, player_a
):
    """The campaign's page is kept for a signed-in member (issue 14: its template was most of
    its 46 ms): a warm re-read asks for the user only and is the bytes of a render without
    any cache, the master's pending list included; a new day, a renamed character and a new
    settlement reach the next request. An anonymous visitor of a public campaign is
    rendered, never kept."""
    from mundo.models import Campaign
    from tests.factories import CharacterFactory, SettlementFactory

    client = client_for(cast[who])
    url = reverse("mundo:campaign", args=[campaign.slug])
    html = kept_as_rendered(client, url)
    assert "Ana Forastera" in html
    assert f"Día {campaign.current_day} tras el apocalipsis" in html
    Character.objects.filter(pk=char_a.pk).update(name="Anabel Forastera")
    html, _q, rendered = get(client, url)
    assert rendered and "Anabel Forastera" in html
    warm(client, url)
    Campaign.objects.filter(pk=campaign.pk).update(current_day=campaign.current_day + 1)
    html, _q, rendered = get(client, url)
    assert rendered and f"Día {campaign.current_day + 1} tras el apocalipsis" in html
    warm(client, url)
    SettlementFactory(campaign=campaign, name="Villaverde", slug="villaverde")
    html, _q, rendered = get(client, url)
    assert rendered and "Villaverde" in html
    if who == "master":  # a sheet sent for review reaches the master's pending list
        kept_as_rendered(client, url)
        CharacterFactory(campaign=campaign, name="Carla Nueva", status="submitted")
        html, _q, rendered = get(client, url)
        assert rendered and "Carla Nueva" in html
    Campaign.objects.filter(pk=campaign.pk).update(is_public=True)
    client.logout()
    for _ in range(2):
        html, _q, rendered = get(client, url)
        assert rendered and "Anabel Forastera" in html


def test_a_diary_page_is_kept_and_follows_the_ticks_rows(char_a, player_a):
    """A diary page is kept too: the table, chart and forecast are read in the render, so a
    new day's row and post (as the tick writes them) and a change to the character reach the
    next request."""
    from escenas import diary, scenes
    from tests.escenas.test_diary import saved_entries

    diary.diary_posts_create(entries=saved_entries([char_a], 5))
    scene = scenes.diary_scene_for(char_a)
    client = client_for(player_a)
    url = scene.get_absolute_url() + "?page=last"
    html = kept_as_rendered(client, url)
    assert "Día 6" not in html
    diary.diary_posts_create(entries=saved_entries([char_a], 6))
    html, _q, rendered = get(client, url)
    assert rendered and "Día 6" in html
    warm(client, url)
    Character.objects.filter(pk=char_a.pk).update(name="Anabel Forastera")
    html, _q, rendered = get(client, url)
    assert rendered and "Anabel Forastera" in html


# --- nucleo.table_writes ---------------------------------------------------------------------


def test_every_kind_of_write_bumps_its_table(story, player_a):
    """``save``, ``update()``, ``delete()`` and raw SQL each give the table a new generation;
    a read inside ``reading`` records its tables."""
    table = Scene._meta.db_table
    key = table_writes.key(table)

    def changes(write_it) -> bool:
        before = table_writes.snapshot()[table]
        write_it()
        return table_writes.snapshot()[table] != before

    assert changes(lambda: Scene.objects.filter(pk=story.pk).update(summary="x"))
    assert changes(lambda: story.save())
    with connection.cursor() as cursor:
        assert changes(lambda: cursor.execute(f"UPDATE \"{table}\" SET summary = 'y'"))
    assert not changes(lambda: list(Scene.objects.all()))
    with table_writes.reading() as tables:
        list(Scene.objects.filter(campaign__slug="x"))
    assert {table, "mundo_campaign"} <= tables
    kept = table_writes.generations(table_writes.snapshot(), tables)
    assert kept is not None and key in kept and table_writes.unchanged(kept)
    Scene.objects.filter(pk=story.pk).delete()
    assert not table_writes.unchanged(kept)


def test_a_commit_bumps_the_table_again(story, django_capture_on_commit_callbacks):
    """Inside a transaction the write bumps at once and again at the commit (a reader that kept
    a page between the two read the rows before the commit), with no ``on_commit`` callback of
    its own (the application's callbacks are counted by tests). The test's transaction never
    commits: the wrapped commit is checked on a stand-in connection."""
    table = Scene._meta.db_table
    with django_capture_on_commit_callbacks() as callbacks, transaction.atomic():
        Scene.objects.filter(pk=story.pk).update(summary="z")
    assert callbacks == []
    assert table in getattr(connection, table_writes.PENDING)

    class StandIn:
        execute_wrappers: list = []
        commits = 0

        def commit(self):
            self.commits += 1

    stand_in = StandIn()
    table_writes.install(connection=stand_in)
    table_writes.install(connection=stand_in)  # once per connection object
    assert stand_in.execute_wrappers == [table_writes.track]
    setattr(stand_in, table_writes.PENDING, {table})
    before = table_writes.snapshot()[table]
    stand_in.commit()
    assert stand_in.commits == 1
    assert table_writes.snapshot()[table] != before
    assert getattr(stand_in, table_writes.PENDING) == set()
