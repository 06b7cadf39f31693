"""Diaries (R25): one per character, the tick's daily posts, the table and chart on the page."""

from __future__ import annotations

from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from escenas import diary, scenes
from escenas.models import Post, Scene
from personajes.models import Character, DiaryEntry
from tests.escenas.conftest import client_for
from tests.escenas.factories import diary_entry
from tests.factories import CharacterFactory


def saved_entries(characters, day, **overrides):
    entries = [diary_entry(c, day, **overrides) for c in characters]
    DiaryEntry.objects.bulk_create(entries)
    return list(DiaryEntry.objects.filter(day=day).select_related("character"))


def test_diary_scene_for_is_idempotent(char_a):
    scene = scenes.diary_scene_for(char_a)
    assert scenes.diary_scene_for(char_a) == scene
    assert (scene.kind, scene.title) == ("diary", "Diario de Ana Forastera")
    assert Scene.objects.filter(kind="diary").count() == 1


def test_diary_posts_create_in_constant_queries(
    campaign, player_a, char_a, mailoutbox, django_capture_on_commit_callbacks
):
    few = [char_a]
    many = few + [
        CharacterFactory(campaign=campaign, player=player_a, status=Character.Status.APPROVED)
        for _ in range(12)
    ]
    with CaptureQueriesContext(connection) as one:
        posts = diary.diary_posts_create(entries=saved_entries(few, 7))
    assert len(posts) == 1
    with CaptureQueriesContext(connection) as lots:
        posts = diary.diary_posts_create(entries=saved_entries(many, 8))
    assert len(posts) == 13
    assert len(lots.captured_queries) == len(one.captured_queries)
    # Idempotent: the same day again adds nothing.
    with django_capture_on_commit_callbacks(execute=True):
        assert diary.diary_posts_create(entries=saved_entries(many[:0], 8)) == []
        assert diary.diary_posts_create(entries=list(DiaryEntry.objects.filter(day=8))) == []
    assert Post.objects.filter(day=8).count() == 13
    assert Scene.objects.filter(kind="diary").count() == 13


def test_diary_post_text_and_notification(
    campaign, master, player_a, char_a, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        (post,) = diary.diary_posts_create(entries=saved_entries([char_a], 7))
    assert post.voice == "narrator" and post.author is None and post.speaker_name == "Diario"
    body = post.body
    assert "**Día 7** (08/11/2026) · Lluvia, mínima 4,5 °C" in body
    assert "Comida: 1500 / 2000 kcal · agua: 1,5 / 2 L" in body
    assert "Penalización a las acciones: 20 (Hambre (1 día) 10, Sed (1 día) 10)" in body
    assert "d100 = 57 contra 12 % → sigue sano" in body
    assert "<strong>Día 7</strong>" in post.body_html
    # Player A and the master are told; the e-mail has the day's summary.
    assert sorted(m.to[0] for m in mailoutbox) == sorted([player_a.email, master.email])


def test_each_diary_post_is_in_its_players_language(campaign, master, player_a, player_b, char_a):
    from nucleo.models import UserSettings

    UserSettings.objects.create(user=player_a, language="en", time_zone="Europe/Madrid")
    bruno = CharacterFactory(campaign=campaign, player=player_b, status=Character.Status.APPROVED)
    posts = diary.diary_posts_create(entries=saved_entries([char_a, bruno], 7))
    by_character = {p.scene.diary_character_id: p for p in posts}
    english, spanish = by_character[char_a.pk], by_character[bruno.pk]
    assert english.speaker_name == "Diary" and "**Day 7** (08/11/2026)" in english.body
    assert "Action penalty: 20" in english.body
    assert spanish.speaker_name == "Diario" and "**Día 7** (08/11/2026)" in spanish.body


def test_diary_page_shows_the_table_and_an_accessible_chart(campaign, player_a, player_b, char_a):
    for day in (5, 6, 7):
        diary.diary_posts_create(
            entries=saved_entries([char_a], day, hunger_days=day - 4, penalty_total=10 * (day - 4))
        )
    scene = scenes.diary_scene_for(char_a)
    response = client_for(player_a).get(scene.get_absolute_url())
    html = response.content.decode()
    assert response.status_code == 200
    assert '<table class="data compact diary-table"' in html
    assert html.count("<tr>") >= 4  # header + 3 days
    assert 'role="img"' in html and '<title id="chart-title">' in html
    assert "Contadores y penalización de Ana Forastera" in html
    assert html.index("diary-table") < html.index('id="posts"')  # the table above the posts
    assert client_for(player_b).get(scene.get_absolute_url()).status_code == 404


def test_the_diary_says_why_a_sleep_was_short_and_the_tick_reads_only_the_hours(
    campaign, player_a, char_a, django_assert_num_queries
):
    # R6/R15: the tick reads the hours slept of the master's mark (sleep_h), never why; the
    # reason (guard duty, travel) is shown beside the hours in the diary table, read in the
    # same query as the rows (a subquery on the day's DayRecord).
    from escenas.selectors import diary_entries
    from personajes.models import DayRecord

    DayRecord.objects.create(character=char_a, day=6, sleep_h=3, sleep_reason="guard_duty")
    DayRecord.objects.create(character=char_a, day=7, sleep_h=5)
    for day in (5, 6, 7):
        saved_entries([char_a], day, sleep_h={5: 8, 6: 3, 7: 5}[day])
    with django_assert_num_queries(1):
        rows = diary_entries(char_a)
    assert [(r.day, r.sleep_reason) for r in rows] == [(5, ""), (6, "guard_duty"), (7, "")]
    html = client_for(player_a).get(scenes.diary_scene_for(char_a).get_absolute_url())
    page = html.content.decode()
    start = page.index("diary-table")
    table = page[start : page.index("</table>", start)]
    assert table.count('<small class="help">guardia</small>') == 1


@override_settings(ESCENAS_VIEWER_PAGES=False)
def test_the_diary_page_reads_its_campaign_once_and_its_days_in_one_query(campaign, char_a):
    """The diary page rendered (not kept whole), with 1 day and with 14 days in its table:
    the same queries, and one read of the campaign, in the access query (its diary's
    character gets that row: the forecast reads ``character.campaign``)."""
    scene = scenes.diary_scene_for(char_a)
    client = client_for(char_a.player)
    url = scene.get_absolute_url()
    saved_entries([char_a], 1)
    client.get(url)  # the read marker, the kept pieces

    def queries() -> list[str]:
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(url)
        assert response.status_code == 200
        return [q["sql"] for q in ctx.captured_queries]

    one_day = queries()
    for day in range(2, 15):
        saved_entries([char_a], day)
    many = queries()
    assert len(many) == len(one_day)
    # The user; the access with the campaign, the viewer and the version; the campaign's
    # traits, the reader's feed token and e-mail mode, the trait values (the post form's roll
    # widget); the days. No participants (a diary has none), no whisper recipients, roll
    # request or draft (none), no waiting-on line (a story's): 6 (issue 14; 10 before).
    assert len(many) == 6, many
    assert not any("escenas_scene_participants" in sql for sql in many)
    assert sum(' FROM "mundo_campaign"' in sql for sql in many) == 0
    assert sum('"mundo_campaign"."rule_overrides"' in sql for sql in many) == 1
