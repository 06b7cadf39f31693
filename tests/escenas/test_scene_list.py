"""The scene list's order from stored columns (issue 14): each scene's newest post id and newest
public post id (``Scene.last_post_id``, ``Scene.last_public_post_id``), kept by every writer of
posts and filled for existing scenes by migration 0016, so the list is ordered and windowed
without a subquery per scene. The master's order follows every post; everyone else's the
public ones, while a player's row still previews the newest whisper they may read."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from escenas import diary, listing, scenes, services
from escenas.access import character_viewer_for
from escenas.models import Post, Scene, scene_last_posts
from personajes.models import DiaryEntry
from tests.escenas.conftest import access_for
from tests.escenas.factories import diary_entry, new_key


def write(scene, user, body, **kwargs):
    access = access_for(scene, user)
    kwargs.setdefault("voice", access.voices[0])
    return services.post_create(
        access=access, author=user, idempotency_key=new_key(), body=body, **kwargs
    )[0]


def stored(scene) -> tuple[int, int]:
    scene = Scene.objects.get(pk=scene.pk)
    return scene.last_post_id, scene.last_public_post_id


def story_rows(campaign, user) -> list[tuple[str, str]]:
    """(title, previewed post's body) of the story scenes of the first page, in list order."""
    viewer = character_viewer_for(campaign, user)
    page = listing.scene_list(campaign, viewer)[: listing.SCENE_LIST_SIZE]
    return [
        (row.scene.title, row.last_post.body if row.last_post else "")
        for row in listing.scene_rows(page, viewer, campaign)
        if row.scene.kind == Scene.Kind.STORY
    ]


def test_posts_whispers_and_deletions_keep_the_stored_ids(story, master, player_a, char_a):
    assert stored(story) == (0, 0)
    first = write(story, master, "Primero")
    assert stored(story) == (first.pk, first.pk)
    whisper = write(story, master, "Para Alicia", whisper=True, whisper_to=[player_a])
    assert stored(story) == (whisper.pk, first.pk)  # a whisper is not public
    second = write(story, player_a, "Segundo", voice="character", character=char_a)
    assert stored(story) == (second.pk, second.pk)
    services.post_delete(post=second, user=player_a)
    assert stored(story) == (second.pk, first.pk)  # back to the newest public one
    services.post_delete(post=first, user=master)
    assert stored(story) == (second.pk, 0)  # none public left; the master still sees them


def test_the_order_follows_what_each_reader_sees(campaign, master, player_a, player_b, char_a):
    older = scenes.scene_create(campaign=campaign, master=master, title="Vieja", readers="members")
    newer = scenes.scene_create(campaign=campaign, master=master, title="Nueva", readers="members")
    write(older, master, "Antes")
    write(newer, master, "Después")
    write(older, master, "Susurro", whisper=True, whisper_to=[player_a])
    # The master sees the whisper: the older scene is the most recently active.
    assert story_rows(campaign, master) == [("Vieja", "Susurro"), ("Nueva", "Después")]
    # Players are ordered by public posts; Alicia's row shows the whisper she received, Bruno's
    # the last public post.
    assert story_rows(campaign, player_a) == [("Nueva", "Después"), ("Vieja", "Susurro")]
    assert story_rows(campaign, player_b) == [("Nueva", "Después"), ("Vieja", "Antes")]
    assert story_rows(campaign, None) == []  # a private campaign: nothing for anonymous


def test_the_tick_diary_posts_move_their_scenes(campaign, player_a, char_a):
    scene = scenes.diary_scene_for(char_a)
    DiaryEntry.objects.bulk_create([diary_entry(char_a, 7)])
    (post,) = diary.diary_posts_create(entries=list(DiaryEntry.objects.filter(day=7)))
    assert stored(scene) == (post.pk, post.pk)


def test_migration_fills_existing_scenes(story, master, player_a, char_a):
    public = write(story, master, "Público")
    whisper = write(story, master, "Sólo el máster", whisper=True)
    empty = scenes.scene_create(campaign=story.campaign, master=master, title="Vacía")
    Scene.objects.update(last_post_id=0, last_public_post_id=0)  # as before the migration
    migration = importlib.import_module("escenas.migrations.0016_scene_last_posts")
    migration.fill_last_posts(apps, None)
    assert stored(story) == (whisper.pk, public.pk)
    assert stored(empty) == (0, 0)
    # The same values as the writers' exact recomputation.
    Scene.objects.update(**scene_last_posts(exact=True))
    assert stored(story) == (whisper.pk, public.pk)
    assert Post.objects.filter(scene=story).count() == 2


def test_the_list_makes_the_off_topic_scene_and_missing_diaries_once_and_then_checks_in_one_query(
    campaign, char_a, django_assert_num_queries
):
    scenes.list_scenes_ensure(campaign=campaign)
    assert Scene.objects.filter(campaign=campaign, kind=Scene.Kind.OFFTOPIC).count() == 1
    assert Scene.objects.get(diary_character=char_a).kind == Scene.Kind.DIARY
    with django_assert_num_queries(1):  # both checks, nothing to make
        scenes.list_scenes_ensure(campaign=campaign)
    Scene.objects.filter(diary_character=char_a).delete()
    scenes.list_scenes_ensure(campaign=campaign)  # a diary lost is made again, only it
    assert Scene.objects.filter(diary_character=char_a).count() == 1
    assert Scene.objects.filter(campaign=campaign, kind=Scene.Kind.OFFTOPIC).count() == 1


def test_the_compiled_pages_are_the_scene_lists_rows(
    campaign, master, player_a, player_b, outsider, char_a, char_b, story, django_assert_num_queries
):
    """``listing.ScenePages`` (compiled queries) gives every viewer the rows of
    ``scene_list`` (the plain queryset), in any window, with the same unread counts,
    newest whispers, participants by name and diary characters; the count is what the
    viewer may read. Public campaign: the outsider and an anonymous visitor read its public
    scene."""
    from django.contrib.auth.models import AnonymousUser

    from tests.factories import CharacterFactory

    campaign.is_public = True
    campaign.save()
    public = scenes.scene_create(
        campaign=campaign, master=master, title="A la vista", readers="public"
    )
    write(public, master, "Todos leen")
    write(story, master, "Solo para Bea", whisper=True, whisper_to=[player_b])
    write(story, player_a, "Alicia habla", voice="character", character=char_a)
    for i in range(4):
        scenes.diary_scene_for(CharacterFactory(campaign=campaign, player=player_a, name=f"D{i}"))
    scenes.offtopic_scene_for(campaign)

    def shown(scene):
        return (
            scene.pk,
            scene.title,
            getattr(scene, "unread_count", None),
            getattr(scene, "my_whisper_id", None),
            [(c.pk, c.name, c.status) for c in scene.participants.all()],
            scene.diary_character and (scene.diary_character.pk, scene.diary_character.status),
        )

    for user in (master, player_a, player_b, outsider, AnonymousUser()):
        viewer = character_viewer_for(campaign, user)
        expected = [shown(s) for s in listing.scene_list(campaign, viewer)]
        pages = listing.ScenePages(campaign, viewer, diaries=True)
        assert len(pages) == len(expected) > 0, user
        assert [shown(s) for s in pages] == expected, user
        assert [shown(s) for s in pages[0:2] + pages[2:50]] == expected, user
        assert shown(pages[len(expected) - 1]) == expected[-1]
        assert pages[3:3] == [] and pages[len(expected) : len(expected) + 5] == []
    assert len(expected) == 1  # anonymous: the public scene alone
    story.participants.add(char_b)
    viewer = character_viewer_for(campaign, player_a)
    pages = listing.ScenePages(campaign, viewer)
    # The scenes, their participants, no diary character: two queries a page.
    with django_assert_num_queries(2):
        rows = pages[0:3]
        assert [(s.title, s.kind) for s in rows[:2]] == [
            ("La gasolinera", "story"),
            ("A la vista", "story"),
        ]
        assert rows[2].kind == "offtopic"
        assert [c.name for c in rows[0].participants.all()] == ["Ana Forastera", "Bruno Herrero"]


def test_every_page_and_page_size_shares_one_compiled_window(
    campaign, master, player_a, char_a, monkeypatch
):
    """The page's bounds are parameters: the API's pages of 1 to 7 scenes, and the short
    last pages, all run the one compiled query of the viewer's shape; indexing from the end
    and iterating (``_CHUNK`` at a time) give the list's scenes."""
    from django.db import connections

    from nucleo import compiled
    from tests.api.conftest import session_client
    from tests.factories import CharacterFactory

    for i in range(6):
        scenes.diary_scene_for(CharacterFactory(campaign=campaign, player=player_a, name=f"D{i}"))
    client = session_client(player_a)
    kept = connections["default"].__dict__.setdefault(compiled._KEPT, {})
    kept.clear()
    for size in range(1, 8):
        for page in (1, 2):
            client.get(f"/api/v1/campaigns/{campaign.slug}/scenes/?page_size={size}&page={page}")
    windows = [key for key in kept if key[0] is listing._LISTED]
    assert len(windows) == 1
    viewer = character_viewer_for(campaign, player_a)
    pages = listing.ScenePages(campaign, viewer)
    every = [s.pk for s in listing.scene_list(campaign, viewer)]
    assert len(every) == 6  # the diaries (the API makes no scene on read)
    assert pages[-1].pk == every[-1] and pages[-6].pk == every[0]
    monkeypatch.setattr(listing, "_CHUNK", 3)
    assert [s.pk for s in pages] == every
    assert [s.pk for s in pages[1:6]] == every[1:6]  # across two chunks
    for bad in (slice(0, 4, 2), slice(-2, None)):
        with pytest.raises(ValueError):
            pages[bad]
    with pytest.raises(IndexError):
        pages[-7]
