"""Per-user generations (issue 14): a read marker moved or a draft saved by one user keeps every
other reader's kept scene page (``escenas.viewer_pages``), and changes the writer's own; and
``nucleo.user_rows`` tells whose rows a statement reads or writes only for the plain shapes."""

from __future__ import annotations

import pytest
from django.test import override_settings

from escenas import services
from escenas.models import Draft, SceneRead
from nucleo import table_writes, user_rows
from tests.escenas.conftest import access_for, client_for
from tests.escenas.test_fragment_cache import LOCMEM
from tests.escenas.test_permissions import write
from tests.escenas.test_viewer_pages import get, warm

pytestmark = pytest.mark.usefixtures("locmem")


@pytest.fixture
def locmem():
    with override_settings(CACHES=LOCMEM):
        yield


def test_another_users_marker_and_draft_keep_a_readers_page(story, master, player_a, player_b):
    """Player A's page (with A's own draft form) stays a hit, one query and no render, while
    player B's marker moves and the master saves drafts; the master's own page shows the
    master's draft at once."""
    write(story, master, "La gasolinera está a oscuras.")
    url = story.get_absolute_url() + "?page=last"
    reader, marker_mover, drafter = client_for(player_a), client_for(player_b), client_for(master)
    warm(marker_mover, url)
    warm(drafter, url)
    new = write(story, master, "Se oye un motor.")  # a new post: every page is old, by design
    warm(reader, url)
    assert get(reader, url)[2] is False

    marker_mover.get(url)  # B's page moves B's marker over the new post
    assert SceneRead.objects.get(scene=story, user=player_b).last_post_id == new.pk
    html, queries, rendered = get(reader, url)
    assert not rendered and len(queries) == 1, queries

    for text in ("Llega la noche.", "Llega la noche. Frío"):  # an insert, then an upsert
        services.draft_save(
            access=access_for(story, master),
            user=master,
            idempotency_key="f" * 32,
            body=text,
        )
        html, queries, rendered = get(reader, url)
        assert not rendered and len(queries) == 1, queries
        assert "Llega la noche" not in html
        own, _q, own_rendered = get(drafter, url)
        assert own_rendered and f"{text}</textarea>" in own
    assert Draft.objects.get(user=master, scene=story).body == "Llega la noche. Frío"


def test_the_writers_own_marker_reaches_their_page(story, master, player_a, player_b):
    """B's kept page counts the unread post; B's marker moved elsewhere (another tab's poll, an
    ``update()``) reaches it at once."""
    write(story, master, "Uno.")
    url = story.get_absolute_url() + "?page=last"
    reader = client_for(player_b)
    warm(reader, url)
    SceneRead.objects.filter(scene=story, user=player_b).update(last_post_id=0)
    assert get(reader, url)[2]  # rendered again: the unread flags changed


def test_a_write_of_unknown_rows_reaches_every_page(story, master, player_a):
    """A delete by primary key names no user: every reader's page is old (never stale)."""
    write(story, master, "Uno.")
    url = story.get_absolute_url() + "?page=last"
    reader = client_for(player_a)
    warm(reader, url)
    Draft.objects.create(user=master, scene=story, body="x", idempotency_key="a" * 32, data={})
    assert not get(reader, url)[2]  # the master's own insert keeps A's page
    Draft.objects.get(user=master).delete()  # by id: whose row is not in the SQL
    assert get(reader, url)[2]


# --- nucleo.user_rows ------------------------------------------------------------------------

T = "escenas_sceneread"
ACCESS = (
    'SELECT "s"."id", (SELECT "U0"."role" FROM "mundo_membership" "U0" WHERE '
    '("U0"."campaign_id" = ("s"."campaign_id") AND "U0"."user_id" = %s) LIMIT 1) AS "r", '
    '(SELECT "U0"."last_post_id" FROM "escenas_sceneread" "U0" WHERE '
    '("U0"."scene_id" = ("s"."id") AND "U0"."user_id" = %s) LIMIT 1) AS "v" '
    'FROM "escenas_scene" "s" WHERE "s"."id" = %s'
)


def test_reads_only_follows_each_reference_to_its_own_subquery():
    assert user_rows.reads_only(ACCESS, (7, 2, 1), T, "user_id", 2)
    # The membership subquery's "U0"."user_id" is another table's: it restricts nothing here.
    assert not user_rows.reads_only(ACCESS, (2, 7, 1), T, "user_id", 2)
    unrestricted = ACCESS.replace('AND "U0"."user_id" = %s) LIMIT 1) AS "v"', ") LIMIT 1) AS ")
    assert not user_rows.reads_only(unrestricted, (2, 1), T, "user_id", 2)
    either = f'SELECT * FROM "{T}" WHERE ("{T}"."user_id" = %s OR "{T}"."scene_id" = %s)'
    assert not user_rows.reads_only(either, (2, 1), T, "user_id", 2)
    negated = f'SELECT * FROM "{T}" WHERE NOT ("{T}"."user_id" = %s)'
    assert not user_rows.reads_only(negated, (2,), T, "user_id", 2)
    assert not user_rows.reads_only(f'SELECT * FROM "{T}"', (), T, "user_id", 2)


def test_written_users_only_for_writes_that_name_them():
    update = (
        f'UPDATE "{T}" SET "last_post_id" = %s '
        f'WHERE ("{T}"."scene_id" = %s AND "{T}"."user_id" = %s)'
    )
    assert user_rows.written_users(update, (9, 1, 4), False, T, "user_id") == {4}
    by_pk = f'UPDATE "{T}" SET "last_post_id" = %s WHERE "{T}"."id" = %s'
    assert user_rows.written_users(by_pk, (9, 1), False, T, "user_id") is None
    moved = f'UPDATE "{T}" SET "user_id" = %s WHERE "{T}"."user_id" = %s'
    assert user_rows.written_users(moved, (5, 4), False, T, "user_id") is None
    delete = f'DELETE FROM "{T}" WHERE "{T}"."user_id" IN (%s, %s)'
    assert user_rows.written_users(delete, (4, 5), False, T, "user_id") == {4, 5}
    insert = f'INSERT INTO "{T}" ("user_id", "scene_id") VALUES (%s, %s), (%s, %s) RETURNING "id"'
    assert user_rows.written_users(insert, (4, 1, 5, 1), False, T, "user_id") == {4, 5}
    unnest = (
        f'INSERT INTO "{T}" ("scene_id", "user_id") SELECT * FROM UNNEST((%s)::int[], (%s)::int[])'
    )
    assert user_rows.written_users(unnest, ([1, 1], [4, 6]), False, T, "user_id") == {4, 6}
    upsert = insert.replace(
        " RETURNING", ' ON CONFLICT("user_id", "scene_id") DO UPDATE SET "x" = 1 RETURNING'
    )
    assert user_rows.written_users(upsert, (4, 1, 5, 1), False, T, "user_id") == {4, 5}
    other_key = insert.replace(" RETURNING", ' ON CONFLICT("id") DO UPDATE SET "x" = 1 RETURNING')
    assert user_rows.written_users(other_key, (4, 1, 5, 1), False, T, "user_id") is None
    select = f'INSERT INTO "{T}" ("user_id", "scene_id") SELECT "id", %s FROM "auth_user"'
    assert user_rows.written_users(select, (1,), False, T, "user_id") is None


def test_a_per_user_write_sets_the_table_and_the_users_generation(story, player_a, player_b):
    """Through the execute wrapper: A's marker update sets the table's and A's generations, not
    B's; a write by primary key sets the unknown users' one."""
    names = [
        T,
        table_writes.user_generation(T, player_a.pk),
        table_writes.user_generation(T, player_b.pk),
        table_writes.user_generation(T, table_writes.ANY_USER),
    ]

    def changed(do) -> list[bool]:
        before = table_writes.snapshot(player_a.pk) | table_writes.snapshot(player_b.pk)
        do()
        after = table_writes.snapshot(player_a.pk) | table_writes.snapshot(player_b.pk)
        return [before[n] != after[n] for n in names]

    SceneRead.objects.create(scene=story, user=player_a, last_post_id=1)
    assert changed(
        lambda: SceneRead.objects.filter(scene=story, user=player_a).update(last_post_id=2)
    ) == [True, True, False, False]
    marker = SceneRead.objects.get(user=player_a)
    assert changed(lambda: marker.save()) == [True, False, False, True]
