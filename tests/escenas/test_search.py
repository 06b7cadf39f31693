"""Searching posts like a forum (escenas.search, issue 15 item 10): case and accents folded on
both back ends (``SÓLO`` finds ``sólo``), ranked with highlighted excerpts on PostgreSQL, filters
by author, character, scene, day range and "has a roll", bad filters answered in the form.
What a reader may not see is never found: tests/escenas/test_permissions.py runs the search for
every viewer of the permission matrix."""

from __future__ import annotations

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from escenas import scenes, search, services
from escenas.models import Post, Scene
from tests.escenas.conftest import access_for, client_for
from tests.escenas.factories import new_key


def say(scene, user, body, *, day=None, roll=None):
    access = access_for(scene, user)
    voice = access.voices[0]
    post = services.post_create(
        access=access,
        author=user,
        idempotency_key=new_key(),
        body=body,
        voice=voice,
        character=access.characters[0] if voice == "character" else None,
        roll=roll,
    )[0]
    if day is not None:
        Post.objects.filter(pk=post.pk).update(day=day)
    return post


def found(user, campaign, **params) -> list[str]:
    response = client_for(user).get(reverse("escenas:search", args=[campaign.slug]), params)
    assert response.status_code == 200
    page = response.context["page"]
    return [hit.post.body for hit in page.object_list] if page else []


def test_case_and_accents_are_folded(campaign, story, player_a, master):
    say(story, player_a, "Sólo queda agua para un día.")
    say(story, player_a, "Nada que ver aquí.")
    for words in ("SÓLO", "solo", "sólo", "SOLO"):
        assert found(master, campaign, q=words) == ["Sólo queda agua para un día."], words


def test_the_excerpt_marks_the_match_and_escapes_the_post(campaign, story, player_a, master):
    say(story, player_a, "Escribe <script>alert(1)</script> y luego grita **socorro** fuerte.")
    response = client_for(master).get(
        reverse("escenas:search", args=[campaign.slug]), {"q": "socorro"}
    )
    html = response.content.decode()
    assert "<mark>socorro</mark>" in html
    assert "<script>alert" not in html


def test_filters_by_author_character_scene_days_and_roll(
    campaign, story, master, player_a, player_b, char_a, char_b
):
    other = scenes.scene_create(
        campaign=campaign,
        master=master,
        title="El puente",
        readers=Scene.Readers.MEMBERS,
        participants=[char_a, char_b],
    )
    say(story, player_a, "linterna en la gasolinera", day=3)
    say(other, player_b, "linterna en el puente", day=5)
    say(
        other,
        player_a,
        "linterna y dados",
        day=8,
        roll=services.RollSpec(kind="expression", expression="1d6", reason="luz"),
    )
    all_three = ["linterna y dados", "linterna en el puente", "linterna en la gasolinera"]
    assert sorted(found(master, campaign, q="linterna")) == sorted(all_three)
    assert found(master, campaign, q="linterna", author=player_b.username.upper()) == [
        "linterna en el puente"
    ]
    # A character by its whole name, a scene by a part of its title (case folded).
    assert sorted(found(master, campaign, q="linterna", character=char_a.name.upper())) == [
        "linterna en la gasolinera",
        "linterna y dados",
    ]
    assert found(master, campaign, q="linterna", character=char_a.name[:-1]) == []
    assert sorted(found(master, campaign, q="linterna", scene="el PUEN")) == [
        "linterna en el puente",
        "linterna y dados",
    ]
    assert found(master, campaign, q="linterna", day_from=4, day_to=6) == ["linterna en el puente"]
    assert found(master, campaign, q="linterna", has_roll="on") == ["linterna y dados"]
    # Filters alone, without words, list the newest matching posts.
    assert found(master, campaign, day_from=8) == ["linterna y dados"]


def test_the_character_and_scene_filters_fold_case_and_accents(campaign, master, player_a, char_a):
    """As the words do (``SÓLO`` finds ``sólo``), on SQLite as on PostgreSQL: SQLite's LIKE
    folds the case of ASCII letters only."""
    from personajes.models import Character

    Character.objects.filter(pk=char_a.pk).update(name="Ángela Núñez")
    station = scenes.scene_create(
        campaign=campaign,
        master=master,
        title="La Estación del Norte",
        readers=Scene.Readers.MEMBERS,
        participants=[Character.objects.get(pk=char_a.pk)],
    )
    say(station, player_a, "Un tren oxidado.")
    expected = ["Un tren oxidado."]
    assert found(master, campaign, q="tren", character="ÁNGELA NÚÑEZ") == expected
    assert found(master, campaign, q="tren", character="angela nunez") == expected
    assert found(master, campaign, q="tren", character="Ángela") == []  # the whole name
    assert found(master, campaign, q="tren", scene="ESTACIÓN") == expected
    assert found(master, campaign, q="tren", scene="estacion del") == expected
    assert found(master, campaign, q="tren", scene="estación sur") == []


def test_the_filters_are_typed_so_the_page_does_not_grow_with_the_campaign(
    campaign, story, master, player_a, django_assert_num_queries
):
    """No filter is a list of the campaign's characters or scenes (issue 14): the page's HTML
    and queries are the same with 30 more characters, each with its diary."""
    from personajes.models import Character

    url = reverse("escenas:search", args=[campaign.slug])
    client = client_for(master)
    client.get(url, {"q": "nada"})  # the session and the caches warm

    def page() -> tuple[bytes, int]:
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, {"q": "nada"})
        assert response.status_code == 200
        return response.content, len(queries.captured_queries)

    before, queries = page()
    for i in range(30):
        Character.objects.create(
            campaign=campaign, player=player_a, name=f"Extra {i}", status=Character.Status.APPROVED
        )
    scenes.diaries_ensure(campaign=campaign)
    after, queries_after = page()
    # (the page's only select is the footer's language choice)
    assert after.count(b"<option") == before.count(b"<option") == 2 and b"Extra" not in after
    assert len(after) == len(before) and queries_after == queries


def test_a_backwards_day_range_is_refused_in_the_form(campaign, story, master):
    response = client_for(master).get(
        reverse("escenas:search", args=[campaign.slug]), {"q": "agua", "day_from": 9, "day_to": 2}
    )
    assert response.status_code == 200
    assert "El último día no puede ser anterior al primero." in response.content.decode()
    assert response.context["page"] is None


def test_a_scene_the_reader_cannot_read_is_never_searched(campaign, story, master, player_b):
    secret = scenes.scene_create(
        campaign=campaign, master=master, title="Solo el máster", readers=Scene.Readers.PARTICIPANTS
    )
    say(secret, master, "Queda agua en el pozo.")
    assert found(master, campaign, q="agua", scene="solo el") == ["Queda agua en el pozo."]
    assert found(player_b, campaign, q="agua", scene="solo el") == []
    assert found(player_b, campaign, q="agua") == []


def test_search_is_two_queries_for_many_posts_and_pages_them(
    campaign, story, player_a, master, django_assert_num_queries
):
    """The ids found (up to ``SEARCH_RESULTS``) and the page's posts, however many posts
    match; the page's links keep the words and the filters."""
    from escenas.access import access_campaign_viewer

    for i in range(30):
        say(story, player_a, f"ruido número {i}")
    campaign_row, viewer = access_campaign_viewer(master, slug=campaign.slug)
    with django_assert_num_queries(2):
        page = search.search_posts(campaign_row, viewer, search.SearchFilters(query="ruido"))
        assert page is not None
        hits = page.object_list
        # What the page shows of each hit: its scene and its link (the campaign's slug).
        links = [(hit.post.scene.title, hit.post.get_absolute_url()) for hit in hits]
    assert page.paginator.count == 30 and len(hits) == search.RESULTS_PAGE == 20
    assert links[0] == (story.title, f"/partidas/{campaign.slug}/mensajes/{hits[0].post.pk}/")
    assert hits[0].url == links[0][1]
    second = search.search_posts(campaign_row, viewer, search.SearchFilters(query="ruido"), "2")
    assert second is not None and len(second.object_list) == 10 and not second.has_next()
    first_ids = {hit.post.pk for hit in hits}
    assert first_ids.isdisjoint(hit.post.pk for hit in second.object_list)
    # Anything but a page number is the first page; past the end, the last.
    assert search.search_posts(campaign_row, viewer, search.SearchFilters(query="ruido"), "x")
    past = search.search_posts(campaign_row, viewer, search.SearchFilters(query="ruido"), "9")
    assert past is not None and past.number == 2
    html = (
        client_for(master)
        .get(reverse("escenas:search", args=[campaign.slug]), {"q": "ruido", "scene": "Gasol"})
        .content.decode()
    )
    assert 'href="?q=ruido&amp;scene=Gasol&amp;page=2" rel="next"' in html


needs_postgresql = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL full-text search (set DATABASE_URL; CI does)",
    ),
]


@needs_postgresql[0]
@needs_postgresql[1]
def test_postgresql_ranks_and_stems_in_spanish(campaign, story, player_a, master):
    say(story, player_a, "Un perro pasa.")
    say(story, player_a, "Perros, perros y más perros en la calle de los perros.")
    say(story, player_a, "Las calles están vacías.")
    # Stemming: "perros" finds "perro"; the post that says it most comes first.
    assert found(master, campaign, q="perros") == [
        "Perros, perros y más perros en la calle de los perros.",
        "Un perro pasa.",
    ]
    # "calles" finds "calle"; a quoted phrase must match in order.
    assert len(found(master, campaign, q="calles")) == 2
    assert found(master, campaign, q='"calles están"') == ["Las calles están vacías."]
    response = client_for(master).get(
        reverse("escenas:search", args=[campaign.slug]), {"q": "pasa"}
    )
    assert "<mark>pasa</mark>" in response.content.decode()


@needs_postgresql[0]
@needs_postgresql[1]
def test_postgresql_uses_the_gin_index(campaign, story, player_a):
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'post_body_search'")
        (definition,) = cursor.fetchone()
        cursor.execute(
            "SELECT generation_expression FROM information_schema.columns "
            "WHERE table_name = 'escenas_post' AND column_name = 'body_search'"
        )
        (generated,) = cursor.fetchone()
    assert "gin" in definition and "(body_search)" in definition
    assert "to_tsvector('partida_es'::regconfig, COALESCE(body, ''::text))" in generated


@needs_postgresql[0]
@needs_postgresql[1]
def test_postgresql_ranks_the_stored_vector_which_follows_every_edit(
    campaign, story, player_a, master
):
    """The ranked search reads each post's stored vector (migration 0019), never computing it
    again from the text; PostgreSQL regenerates it on every write, an edit included."""
    post = say(story, player_a, "Una farola parpadea.")
    assert found(master, campaign, q="farolas") == ["Una farola parpadea."]
    services.post_edit(post=post, editor=player_a, body="Un semáforo parpadea.")
    assert found(master, campaign, q="farolas") == []
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        assert found(master, campaign, q="semáforos") == ["Un semáforo parpadea."]
    sqls = [q["sql"] for q in queries.captured_queries]
    ranked = [sql for sql in sqls if "ts_rank" in sql]
    headlined = [sql for sql in sqls if "ts_headline" in sql]
    # The ids found, ranked on the stored vector; then the page's posts with their headlines.
    assert len(ranked) == len(headlined) == 1 and ranked != headlined
    assert 'ts_rank("escenas_post"."body_search"' in ranked[0]
    assert not any("to_tsvector" in sql for sql in sqls)


def test_a_post_deleted_after_its_id_was_found_is_left_out(
    campaign, story, player_a, master, monkeypatch
):
    """The page's posts are read after their ids: one deleted in between (by its author, or
    for good from the admin) is not shown, and the page still answers."""
    say(story, player_a, "agua en el pozo")
    gone = say(story, player_a, "agua en la fuente")
    found_ids = search._found

    def raced(*args):  # what a search found before the deletion below
        ids = found_ids(*args)
        return ids + [pk for pk in (gone.pk, 999_999_999) if pk not in ids]

    monkeypatch.setattr(search, "_found", raced)
    Post.objects.filter(pk=gone.pk).update(deleted_at=timezone.now())
    assert found(player_a, campaign, q="agua") == ["agua en el pozo"]
    # The master reads deleted posts: the one deleted in between is theirs to see.
    assert sorted(found(master, campaign, q="agua")) == ["agua en el pozo", "agua en la fuente"]
