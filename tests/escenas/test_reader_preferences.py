"""Per-user preferences (issue 15 item 6): language and time zone on the profile, pages and
e-mails in the READER's language and zone, and the per-scene e-mail mode (follow, mute).

The cast (tests/conftest.py, tests/escenas/conftest.py): the master runs ``campaign``;
player A (``char_a``) is in ``story``; player B (``char_b``) may read ``story`` (members) but
takes no part in it, so by default no e-mail about it reaches B; the outsider sees nothing.
"""

from __future__ import annotations

import datetime
import zoneinfo

import pytest
from django.urls import reverse
from django.utils import timezone

from escenas import notifications, scenes, services
from escenas.models import NotificationPreference, Scene
from nucleo import readers
from nucleo.models import UserSettings
from tests.escenas.conftest import access_for, client_for
from tests.escenas.factories import new_key
from tests.outbox import delivered


def say(scene, user, body, character=None):
    access = access_for(scene, user)
    voice = "character" if character else access.voices[0]
    return services.post_create(
        access=access,
        author=user,
        idempotency_key=new_key(),
        body=body,
        voice=voice,
        character=character,
    )[0]


def mexican(user):
    return UserSettings.objects.create(user=user, language="en", time_zone="America/Mexico_City")


# --- The profile: language and time zone ---------------------------------------------------


def test_profile_saves_language_and_zone_and_pages_use_them(story, player_a, char_a):
    client = client_for(player_a)
    page = client.get(reverse("profile"))
    assert page.status_code == 200
    assert '<option value="Europe/Madrid" selected>Europe/Madrid</option>' in page.text
    saved = client.post(reverse("profile"), {"language": "en", "time_zone": "America/Mexico_City"})
    assert saved.status_code == 302
    assert readers.readers_of([player_a.pk])[player_a.pk] == readers.Reader(
        "en", "America/Mexico_City"
    )
    post = say(story, player_a, "Hola.", character=char_a)
    post.created_at = datetime.datetime(2026, 1, 15, 17, 5, tzinfo=datetime.UTC)
    post.save(update_fields=["created_at"])
    scene_page = client.get(story.get_absolute_url() + "?page=1")
    assert scene_page.headers["Content-Language"] == "en"
    assert '<html lang="en"' in scene_page.text
    # 17:05 UTC is 11:05 in Mexico City (UTC-6 in January), with its label.
    assert "15 Jan 2026, 11:05 CST" in scene_page.text
    # Another user, on the defaults: Spanish, Madrid (18:05 CET).
    madrid = client_for(story.campaign.memberships.get(role="master").user).get(
        story.get_absolute_url() + "?page=1"
    )
    assert madrid.headers["Content-Language"] == "es"
    assert "15 Ene 2026, 18:05 CET" in madrid.text


def test_a_bad_zone_re_renders_the_form_with_the_message(player_a):
    client = client_for(player_a)
    answer = client.post(reverse("profile"), {"language": "xx", "time_zone": "Mars/Olympus"})
    assert answer.status_code == 400
    assert answer.text.count("Escoja una opción válida.") == 2  # both fields, beside them
    assert not UserSettings.objects.filter(user=player_a).exists()


def test_settings_follow_the_user_into_a_new_session(player_a):
    mexican(player_a)
    page = client_for(player_a).get(reverse("profile"))  # force_login: a new session
    assert page.headers["Content-Language"] == "en"
    assert "America/Mexico_City" in page.text


def test_the_footer_switch_saves_a_signed_in_users_language(player_a):
    client = client_for(player_a)
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert UserSettings.objects.get(user=player_a).language == "en"
    # Even without the cookie (another device), the pages are in English.
    client.cookies.pop("django_language", None)
    assert client.get(reverse("profile")).headers["Content-Language"] == "en"


def test_anonymous_pages_stay_on_the_cookie_and_cost_no_session_query(campaign):
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    client.cookies["django_language"] = "en"
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/").headers["Content-Language"] == "en"
    assert not [q for q in queries.captured_queries if "django_session" in q["sql"]]


# --- E-mail in the reader's language and zone ---------------------------------------------


def test_each_email_is_in_its_readers_language_and_zone(
    story, master, player_a, char_a, mailoutbox
):
    mexican(player_a)
    post = say(story, master, "La gasolinera está vacía.")
    say(story, player_a, "Entro.", character=char_a)
    delivered()  # the posts' fan-out, then the delivery
    by_to = {m.to[0]: m for m in mailoutbox}
    to_a, to_master = by_to[player_a.email], by_to[master.email]
    assert "Read it and answer:" in to_a.body and "Léelo y contesta:" not in to_a.body
    assert "Léelo y contesta:" in to_master.body
    assert post.pk


def test_the_digest_is_in_its_readers_language(story, master, player_a, mailoutbox):
    mexican(player_a)
    notifications.preference_set_mode(user=player_a, mode=NotificationPreference.Mode.DIGEST)
    NotificationPreference.objects.filter(user=player_a).update(
        digest_sent_until=timezone.now() - datetime.timedelta(hours=1)
    )
    post = say(story, master, "Ruido en el almacén.")
    assert notifications.digests_send() == 1
    delivered()  # the posts' fan-out, then the delivery
    (digest,) = [m for m in mailoutbox if m.to == [player_a.email]]
    assert digest.subject == "Partida: 1 new posts"
    when = timezone.localtime(post.created_at, zoneinfo.ZoneInfo("America/Mexico_City"))
    assert f"{when:%H:%M} C" in digest.body  # CST or CDT, the reader's zone


# --- Per-scene mode: follow, mute, default -------------------------------------------------


def test_following_a_scene_mails_a_reader_who_takes_no_part(story, master, player_b, mailoutbox):
    say(story, master, "Primero.")
    delivered()  # the posts' fan-out, then the delivery
    assert player_b.email not in {m.to[0] for m in mailoutbox}
    notifications.scene_mode_set(user=player_b, scene=story, mode=notifications.FOLLOW)
    say(story, master, "Segundo.")
    delivered()  # the posts' fan-out, then the delivery
    assert [m.to[0] for m in mailoutbox].count(player_b.email) == 1


def test_a_followed_scene_wins_over_a_muted_campaign_and_a_muted_scene_over_the_default(
    story, master, player_a, mailoutbox
):
    pref = notifications.preference_get_or_create(user=player_a)
    pref.muted_campaigns.add(story.campaign)
    notifications.scene_mode_set(user=player_a, scene=story, mode=notifications.FOLLOW)
    say(story, master, "Uno.")
    delivered()  # the posts' fan-out, then the delivery
    assert [m.to[0] for m in mailoutbox] == [player_a.email]
    pref.muted_campaigns.clear()
    notifications.scene_mode_set(user=player_a, scene=story, mode=notifications.MUTE)
    say(story, master, "Dos.")
    delivered()  # the posts' fan-out, then the delivery
    assert [m.to[0] for m in mailoutbox] == [player_a.email]  # nothing new
    notifications.scene_mode_set(user=player_a, scene=story, mode="default")
    say(story, master, "Tres.")
    delivered()  # the posts' fan-out, then the delivery
    assert [m.to[0] for m in mailoutbox] == [player_a.email] * 2


def test_a_muted_scene_is_left_out_of_the_digest(story, master, player_a, mailoutbox):
    notifications.preference_set_mode(user=player_a, mode=NotificationPreference.Mode.DIGEST)
    NotificationPreference.objects.filter(user=player_a).update(
        digest_sent_until=timezone.now() - datetime.timedelta(hours=1)
    )
    notifications.scene_mode_set(user=player_a, scene=story, mode=notifications.MUTE)
    say(story, master, "Nadie lo leerá por correo.")
    assert notifications.digests_send() == 0


def test_the_scene_button_sets_the_mode(story, player_a, player_b, outsider):
    client = client_for(player_b)
    url = reverse("escenas:scene_follow", args=[story.campaign.slug, story.pk])
    page = client.get(story.get_absolute_url())
    assert "Correo: tus ajustes de siempre." in page.text
    assert f'action="{url}"' in page.text
    answer = client.post(url, {"mode": "follow"})
    assert answer.status_code == 302
    assert notifications.scene_mode_of(user=player_b, scene=story) == notifications.FOLLOW
    page = client.get(story.get_absolute_url())
    assert "Correo: sigues esta escena (uno por mensaje)." in page.text
    client.post(url, {"mode": "bogus"})
    assert notifications.scene_mode_of(user=player_b, scene=story) == notifications.FOLLOW
    assert client_for(outsider).post(url, {"mode": "follow"}).status_code == 404
    assert client_for(None).post(url, {"mode": "follow"}).status_code == 302  # to sign in


@pytest.mark.parametrize("zone", ["UTC", "Europe/Madrid", "America/Mexico_City", "Asia/Tokyo"])
def test_the_zone_list_has_the_usual_zones(zone):
    assert zone in readers.time_zone_names()
    assert not any(n.startswith("Etc/") for n in readers.time_zone_names())


def test_a_scene_page_shows_the_readers_choice_for_that_scene_only(
    campaign, story, master, player_b
):
    """The feed link and the e-mail line come from the reader's own choices about this scene
    (``selectors.scene_choices``: one query); another scene's choice does not leak in."""
    client = client_for(player_b)
    other = scenes.scene_create(
        campaign=campaign, master=master, title="El sótano", readers=Scene.Readers.MEMBERS
    )
    page = client.get(story.get_absolute_url()).text
    assert "Correo: tus ajustes de siempre." in page and "application/atom+xml" not in page
    token = notifications.preference_get_or_create(user=player_b).feed_token
    notifications.scene_mode_set(user=player_b, scene=other, mode=notifications.MUTE)
    page = client.get(story.get_absolute_url()).text
    assert "Correo: tus ajustes de siempre." in page
    feed = reverse("escenas:private_feed", args=[token, campaign.slug, story.pk])
    assert f'<a href="{feed}" rel="alternate" type="application/atom+xml">' in page
    assert "Correo: esta escena está silenciada." in client.get(other.get_absolute_url()).text
    notifications.scene_mode_set(user=player_b, scene=story, mode=notifications.FOLLOW)
    assert (
        "Correo: sigues esta escena (uno por mensaje)." in client.get(story.get_absolute_url()).text
    )


def test_a_scene_both_followed_and_muted_counts_as_followed_everywhere(story, player_b):
    """Only the admin can put a scene in both of a reader's lists; the scene page and the
    e-mails then agree on FOLLOW, whatever order the database returns the rows in."""
    preference = notifications.preference_get_or_create(user=player_b)
    preference.muted_scenes.add(story)
    preference.followed_scenes.add(story)
    assert notifications.scene_mode_of(user=player_b, scene=story) == notifications.FOLLOW
    modes = notifications.scene_modes_of([story.pk])
    assert modes == {(player_b.pk, story.pk): notifications.FOLLOW}
