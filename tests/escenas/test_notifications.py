"""E-mail notifications: after commit, through the Celery task, per-user setting, once each."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from escenas import diary, notifications, scenes, services, tasks
from escenas.models import NotificationPreference, PostNotification
from mundo.models import Membership
from personajes.models import Character, DiaryEntry
from tests.escenas.conftest import access_for
from tests.escenas.factories import diary_entry, new_key
from tests.factories import CharacterFactory, MembershipFactory

QUERIES = 12


def say(scene, user, body, **kwargs):
    return services.post_create(
        access=access_for(scene, user),
        author=user,
        idempotency_key=new_key(),
        body=body,
        voice=access_for(scene, user).voices[0],
        character=access_for(scene, user).characters[0]
        if access_for(scene, user).voices[0] == "character"
        else None,
        **kwargs,
    )[0]


def test_participants_get_an_email_after_commit(
    story, master, player_a, player_b, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        say(story, master, "La puerta cruje.")
    assert mailoutbox == []  # nothing before the commit
    assert len(callbacks) == 1
    callbacks[0]()
    # Player A plays in the scene; player B only reads it (not a participant); the master wrote.
    assert [m.to for m in mailoutbox] == [[player_a.email]]
    message = mailoutbox[0]
    assert "La gasolinera" in message.subject and "Narrador" in message.subject
    assert "La puerta cruje." in message.body
    assert "/partidas/la-campana/mensajes/" in message.body


def test_a_rolled_back_post_sends_nothing(
    story, player_a, mailoutbox, django_capture_on_commit_callbacks
):
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(services.ServiceError),
    ):
        say(story, player_a, "x", roll=services.RollSpec(kind="expression", expression="1d1"))
    assert mailoutbox == []


def test_running_the_task_twice_sends_once(story, master, player_a, mailoutbox):
    post = say(story, master, "Una vez")
    assert tasks.send_post_notifications.apply(args=[[post.pk]]).get() == 1
    assert tasks.send_post_notifications.apply(args=[[post.pk]]).get() == 0
    assert len(mailoutbox) == 1
    assert PostNotification.objects.count() == 1


def test_settings_each_digest_none(story, master, player_a, mailoutbox):
    notifications.preference_set_mode(user=player_a, mode="none")
    notifications.post_notifications_send(post_ids=[say(story, master, "uno").pk])
    assert mailoutbox == []
    notifications.preference_set_mode(user=player_a, mode="digest")  # from now on
    notifications.post_notifications_send(post_ids=[say(story, master, "dos").pk])
    say(story, master, "tres")
    assert mailoutbox == []
    assert notifications.digests_send() == 1
    assert len(mailoutbox) == 1
    digest = mailoutbox[0].body
    assert "dos" in digest and "tres" in digest and "uno" not in digest
    assert notifications.digests_send() == 0  # nothing new since
    notifications.preference_set_mode(user=player_a, mode="each")
    notifications.post_notifications_send(post_ids=[say(story, master, "cuatro").pk])
    assert len(mailoutbox) == 2


def test_the_digest_shows_only_what_the_reader_may_see(
    campaign, master, player_a, player_b, mailoutbox
):
    offtopic = scenes.offtopic_scene_for(campaign)
    notifications.preference_set_mode(user=player_b, mode="digest")
    NotificationPreference.objects.filter(user=player_b).update(
        digest_sent_until=timezone.now() - datetime.timedelta(minutes=1)
    )
    say(offtopic, player_a, "Público para todos")
    say(offtopic, player_a, "Sólo para el máster", whisper=True)
    assert notifications.digests_send() == 1
    body = mailoutbox[0].body
    assert "Público para todos" in body and "Sólo para el máster" not in body


def test_a_user_without_email_or_inactive_gets_nothing(story, master, player_a, mailoutbox):
    player_a.email = ""
    player_a.save()
    notifications.post_notifications_send(post_ids=[say(story, master, "hola").pk])
    assert mailoutbox == []


def test_the_notification_settings_page(player_a, client):
    client.force_login(player_a)
    response = client.get("/cuenta/avisos/")
    assert response.status_code == 200
    response = client.post("/cuenta/avisos/", {"mode": "digest"})
    assert response.status_code == 302
    assert NotificationPreference.objects.get(user=player_a).mode == "digest"
    old = NotificationPreference.objects.get(user=player_a).feed_token
    client.post("/cuenta/avisos/", {"regenerate": "1"})
    assert NotificationPreference.objects.get(user=player_a).feed_token not in ("", old)
    client.post("/cuenta/avisos/", {"revoke": "1"})
    assert NotificationPreference.objects.get(user=player_a).feed_token == ""
    assert client.post("/cuenta/avisos/", {"mode": "sometimes"}).status_code == 200


def _diary_posts(campaign, count):
    """``count`` diary posts as the tick makes them: one per character, each character of a
    different player (a member), each in its own diary scene."""
    characters = []
    for _ in range(count):
        membership = MembershipFactory(campaign=campaign, role=Membership.Role.PLAYER)
        characters.append(
            CharacterFactory(
                campaign=campaign, player=membership.user, status=Character.Status.APPROVED
            )
        )
    entries = [diary_entry(c, 7) for c in characters]
    DiaryEntry.objects.bulk_create(entries)
    return diary.diary_posts_create(
        entries=DiaryEntry.objects.filter(character__in=characters).select_related("character")
    )


def test_post_notifications_cost_the_same_for_one_post_or_many(
    campaign, master, mailoutbox, django_assert_num_queries
):
    one = _diary_posts(campaign, 1)
    many = _diary_posts(campaign, 10)
    # The same queries whatever the number of posts (each to the post's player and the master):
    # posts with scene, campaign and diary character (1); their whisper recipients (1), scene
    # participants (1) and rolls (1); the campaigns' members with their users (1) and
    # characters (1); the recipients' settings (1); then, in one transaction (savepoint and
    # release, 2), lock the posts (1), read what was already sent (1) and insert the rest (1).
    with django_assert_num_queries(QUERIES):
        assert notifications.post_notifications_send(post_ids=[p.pk for p in one]) == 2
    with django_assert_num_queries(QUERIES):
        assert notifications.post_notifications_send(post_ids=[p.pk for p in many]) == 20
    assert len(mailoutbox) == 22
    assert PostNotification.objects.count() == 22
    # Sent once: a second run sends nothing.
    assert notifications.post_notifications_send(post_ids=[p.pk for p in one + many]) == 0
    assert len(mailoutbox) == 22
