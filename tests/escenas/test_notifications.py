"""E-mail notifications: queued after the post's commit (its fan-out task, or beat's sweep),
delivered after theirs, per-user setting, once each, one until the reader visits again; the
one-click unsubscribe link."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from escenas import diary, notifications, scenes, services, tasks
from escenas.models import NotificationPreference, PostNotification, Scene
from mundo.models import Membership
from nucleo.mail import outbox_deliver
from nucleo.models import OutboxMessage
from personajes.models import Character, DiaryEntry
from tests.escenas.conftest import access_for
from tests.escenas.factories import diary_entry, new_key
from tests.factories import CharacterFactory, MembershipFactory

QUERIES = 17  # see the list in the test below


def sent() -> int:
    """What the worker does after posts' commits (none in a test): their fan-out (beat's sweep
    of pending posts), then the delivery. Returns how many e-mails went out."""
    tasks.fan_out_pending_posts()
    return outbox_deliver().sent


def visit(scene, user):
    """``user`` opens the scene page: read up to its last post."""
    services.scene_mark_read(scene=scene, user=user, post_id=scene.posts.order_by("-pk")[0].pk)


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
    assert len(callbacks) == 1  # the post's fan-out task
    with django_capture_on_commit_callbacks(execute=True) as delivery:
        callbacks[0]()  # queues the e-mails; their delivery follows the fan-out's commit
    assert len(delivery) == 1
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


def test_a_post_queues_its_mails_after_its_commit_and_once(story, master, player_a, mailoutbox):
    post = say(story, master, "Una vez")
    # New contract (issue 13: the load test's p95): the post's transaction writes no e-mail;
    # its fan-out runs after the commit (never, in a test's transaction).
    assert post.fan_out_pending and not OutboxMessage.objects.exists()
    # A post whose fan-out task never ran is caught by beat's sweep.
    assert tasks.fan_out_pending_posts.apply().get() == 1
    (queued,) = OutboxMessage.objects.all()
    assert (queued.recipient, queued.state, queued.attempts) == (player_a.email, "pending", 0)
    post.refresh_from_db()
    assert not post.fan_out_pending
    # Once: the post's own task arriving late, the sweep again and the old task find it done.
    assert tasks.fan_out_posts.apply(args=[[post.pk]]).get() == 0
    assert tasks.fan_out_pending_posts.apply().get() == 0
    assert tasks.send_post_notifications.apply(args=[[post.pk]]).get() == 0
    assert mailoutbox == []
    assert outbox_deliver().sent == 1
    assert outbox_deliver().sent == 0
    assert len(mailoutbox) == 1
    assert PostNotification.objects.count() == 1
    queued.refresh_from_db()
    assert (queued.state, queued.attempts, queued.claim) == ("sent", 1, "")
    assert queued.sent_at is not None


def test_a_failed_fan_out_leaves_the_post_pending_for_the_sweep(story, master, monkeypatch):
    post = say(story, master, "Falla")

    def broken(**_kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(notifications, "post_notifications_queue", broken)
    with pytest.raises(RuntimeError):
        tasks.fan_out_posts.apply(args=[[post.pk]]).get()
    post.refresh_from_db()
    assert post.fan_out_pending and not OutboxMessage.objects.exists()  # rolled back whole
    monkeypatch.undo()
    assert tasks.fan_out_pending_posts.apply().get() == 1
    assert OutboxMessage.objects.count() == 1


def test_one_email_until_the_reader_visits_the_scene_again(
    campaign, story, master, player_a, char_a, mailoutbox
):
    def bodies() -> list[str]:  # alicia's e-mails so far, by the post's text
        sent()
        mine = [m.body.splitlines()[1:] for m in mailoutbox if m.to == [player_a.email]]
        return [next(line for line in lines if line) for lines in mine]  # after "X wrote…"

    say(story, master, "Uno")
    say(story, master, "Dos")
    say(story, master, "Tres")
    assert bodies() == ["Uno"]  # the later posts wait for a visit
    say(story, master, "Cuatro")
    assert bodies() == ["Uno"]
    visit(story, player_a)  # the scene page, up to "Cuatro"
    say(story, master, "Cinco")
    say(story, master, "Seis")
    assert bodies() == ["Uno", "Cinco"]
    # Their own post is no visit: "Seis" was not shown to them (``escenas.reading``).
    say(story, player_a, "Voy")
    say(story, master, "Siete")
    assert bodies() == ["Uno", "Cinco"]
    # A mention always tells; a followed scene e-mails each post.
    say(story, master, "Mira, @alicia")
    notifications.scene_mode_set(user=player_a, scene=story, mode=notifications.FOLLOW)
    say(story, master, "Ocho")
    say(story, master, "Nueve")
    assert bodies()[2:] == [bodies()[2], "Ocho", "Nueve"] and "Mira" in bodies()[2]
    # The master was told once too: about alicia's post, the only one not theirs.
    assert [m.to for m in mailoutbox].count([master.email]) == 1


def test_a_post_nobody_is_left_to_tell_about_costs_ten_queries_whatever_the_scene(
    campaign, story, master, char_a, mailoutbox, django_assert_num_queries
):
    def crowd(count: int) -> list:
        players = []
        for _ in range(count):
            member = MembershipFactory(campaign=campaign, role=Membership.Role.PLAYER)
            CharacterFactory(campaign=campaign, player=member.user, status="approved")
            players.append(member.user)
        story.participants.set(Character.objects.filter(campaign=campaign))
        return players

    for count in (1, 9):
        players = crowd(count)
        first = say(story, master, "Todos a la vez")
        assert notifications.post_notifications_queue(post_ids=[first.pk]) >= count
        later = say(story, master, "Y otra vez")
        # Everyone was told about the first post and has not visited: the plain rows answer
        # (posts, mentions, members, participants; follows; settings, mutes, characters;
        # queued; markers) and no reader is loaded nor checked.
        with django_assert_num_queries(10):
            assert notifications.post_notifications_queue(post_ids=[later.pk]) == 0
    # A visit lets the next post through the narrowing, to that reader alone.
    visit(story, players[0])
    again = say(story, master, "Tú sí")
    assert notifications.post_notifications_queue(post_ids=[again.pk]) == 1
    assert OutboxMessage.objects.order_by("-pk")[0].recipient == players[0].email


def test_a_whisper_passes_the_narrowing_and_still_tells_only_its_readers(
    story, master, player_a, player_b, char_a, char_b, mailoutbox
):
    story.participants.add(char_b)
    whisper = say(story, master, "Solo tú", whisper_to=[player_b])
    # Both players may be told as far as the plain rows know (neither was told yet); the
    # page's rule then leaves player A out: a whisper is for its recipients.
    assert notifications.post_notifications_queue(post_ids=[whisper.pk]) == 1
    assert list(OutboxMessage.objects.values_list("recipient", flat=True)) == [player_b.email]
    # Player A was not told, so the next open post is their first notice.
    public = say(story, master, "Para todos")
    assert notifications.post_notifications_queue(post_ids=[public.pk]) == 1
    assert OutboxMessage.objects.order_by("-pk")[0].recipient == player_a.email


def test_settings_each_digest_none(story, master, player_a, mailoutbox):
    notifications.preference_set_mode(user=player_a, mode="none")
    say(story, master, "uno")
    assert sent() == 0
    notifications.preference_set_mode(user=player_a, mode="digest")  # from now on
    say(story, master, "dos")
    say(story, master, "tres")
    assert sent() == 0
    assert notifications.digests_send() == 1
    assert outbox_deliver().sent == 1
    assert len(mailoutbox) == 1
    # By line: the body's signed unsubscribe links are random text ("…yunoh4…" once).
    digest = mailoutbox[0].body.splitlines()
    assert "dos" in digest and "tres" in digest and "uno" not in digest
    assert notifications.digests_send() == 0  # nothing new since
    notifications.preference_set_mode(user=player_a, mode="each")
    say(story, master, "cuatro")
    assert sent() == 1
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
    outbox_deliver()
    body = mailoutbox[0].body
    assert "Público para todos" in body and "Sólo para el máster" not in body


def test_a_user_without_email_or_inactive_gets_nothing(story, master, player_a, mailoutbox):
    player_a.email = ""
    player_a.save()
    say(story, master, "hola")
    outbox_deliver()
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
    PostNotification.objects.all().delete()  # as if the posts had been made before the outbox
    OutboxMessage.objects.all().delete()
    # The same queries whatever the number of posts (each to the post's player and the master).
    # Narrowing on plain rows (``post_audience``): the posts with their scenes (1), their
    # mentions (1), the campaigns' members (1; diaries, so no participants query); the
    # scenes' follows and mutes (1, one union); the readers' settings (1) and mutes (1), their
    # characters in those campaigns (1: nobody here plays only dead ones, so no follows
    # query); what was already queued (1) and the readers' markers (1). Then the pairs left:
    # posts with scene, campaign and diary character (1) (no whisper among them: no query for
    # whisper recipients, issue 14), scene participants (1), mentioned members with their
    # reader settings (1) and rolls (1); the campaigns' members with their users and reader
    # settings (1) and characters (1); the notification rows (1) and the outbox rows (1) (a
    # diary's readers are always told, so no last notice is written; the test's transaction).
    with django_assert_num_queries(QUERIES):
        assert notifications.post_notifications_queue(post_ids=[p.pk for p in one]) == 2
    with django_assert_num_queries(QUERIES):
        assert notifications.post_notifications_queue(post_ids=[p.pk for p in many]) == 20
    assert PostNotification.objects.count() == OutboxMessage.objects.count() == 22
    # Queued once: a second run queues nothing.
    assert notifications.post_notifications_queue(post_ids=[p.pk for p in one + many]) == 0
    assert outbox_deliver().sent == 22
    assert len(mailoutbox) == 22


def test_every_post_mail_has_a_one_click_unsubscribe(story, master, player_a, mailoutbox, client):
    say(story, master, "Primero")
    sent()
    (message,) = mailoutbox
    link = message.extra_headers["List-Unsubscribe"].strip("<>")
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert link.startswith("http://127.0.0.1:8000/avisos/baja/")
    assert link in message.body and link in message.alternatives[0].content
    assert f"No recibir más correos de esta campaña: {link}" in message.body
    path = link.removeprefix("http://127.0.0.1:8000")
    # The page asks first (a GET, e.g. a link scanner, changes nothing)...
    page = client.get(path)
    assert page.status_code == 200
    assert "¿Dejar de recibir los correos de «La Campaña»?" in page.content.decode()
    assert not NotificationPreference.objects.filter(user=player_a).exists()
    # ...the mail client's one-click POST needs no session nor CSRF token.
    client.handler.enforce_csrf_checks = True
    done = client.post(path, {"List-Unsubscribe": "One-Click"})
    assert "no recibirás más correos de «La Campaña»" in done.content.decode()
    assert list(player_a.scene_preference.muted_campaigns.all()) == [story.campaign]
    # Muted: nothing more about that campaign, and the settings page can undo it.
    visit(story, player_a)  # read: the next post may be e-mailed (one until a visit)
    say(story, master, "Segundo")
    assert sent() == 0
    client.force_login(player_a)
    assert "La Campaña" in client.get("/cuenta/avisos/").content.decode()
    client.handler.enforce_csrf_checks = False
    client.post("/cuenta/avisos/", {"unmute": str(story.campaign.pk)})
    assert not player_a.scene_preference.muted_campaigns.exists()
    say(story, master, "Tercero")
    assert sent() == 1


def test_a_forged_or_damaged_unsubscribe_link_is_a_404(story, player_a, client):
    token = notifications.unsubscribe_token(user_id=player_a.pk, campaign_id=story.campaign_id)
    other = notifications.unsubscribe_token(user_id=10**9, campaign_id=story.campaign_id)
    assert client.post(f"/avisos/baja/{token[:-2]}xx/").status_code == 404
    assert client.post(f"/avisos/baja/{other}/").status_code == 404
    assert client.get("/avisos/baja/nada/").status_code == 404
    assert not NotificationPreference.objects.filter(user=player_a).exists()


def test_the_digest_link_switches_every_mail_off(campaign, master, player_a, mailoutbox, client):
    offtopic = scenes.offtopic_scene_for(campaign)
    notifications.preference_set_mode(user=player_a, mode="digest")
    NotificationPreference.objects.filter(user=player_a).update(
        digest_sent_until=timezone.now() - datetime.timedelta(minutes=1)
    )
    say(offtopic, master, "Para el resumen")
    assert notifications.digests_send() == 1
    outbox_deliver()
    (digest,) = mailoutbox
    link = digest.extra_headers["List-Unsubscribe"].strip("<>")
    assert link in digest.body
    assert client.post(link.removeprefix("http://127.0.0.1:8000")).status_code == 200
    assert NotificationPreference.objects.get(user=player_a).mode == "none"


def test_a_line_break_in_a_scene_title_cannot_add_a_header(story, master, player_a, mailoutbox):
    Scene.objects.filter(pk=story.pk).update(title="La\u2028gasolinera\r\nBcc: x@example.com")
    story.refresh_from_db()
    say(story, master, "Uno")
    assert sent() == 1
    (message,) = mailoutbox
    assert "La gasolinera Bcc: x@example.com" in message.subject
    assert message.message()["Bcc"] is None


def test_a_player_whose_characters_are_all_dead_gets_no_mail_unless_following(
    campaign, story, master, player_a, char_a, mailoutbox
):
    say(story, master, "Antes")
    assert sent() == 1  # alive: told
    visit(story, player_a)  # read: the next post may be e-mailed (one until a visit)
    Character.objects.filter(pk=char_a.pk).update(status=Character.Status.DEAD)
    say(story, master, "Después")
    assert sent() == 0  # dead: not told
    # Following the campaign brings the e-mails back (the notification settings page).
    notifications.campaign_follow(user=player_a, campaign_id=campaign.pk, follow=True)
    say(story, master, "Sigue")
    assert sent() == 1
    assert [m.to for m in mailoutbox] == [[player_a.email], [player_a.email]]
    assert "Sigue" in mailoutbox[-1].body
    # A living character again (a new one) is enough without following.
    notifications.campaign_follow(user=player_a, campaign_id=campaign.pk, follow=False)
    assert notifications.players_of_the_dead({player_a.pk}, {campaign.pk}) == {
        (player_a.pk, campaign.pk)
    }
    CharacterFactory(campaign=campaign, player=player_a, status=Character.Status.SUBMITTED)
    assert notifications.players_of_the_dead({player_a.pk}, {campaign.pk}) == set()


def test_a_diary_mail_subject_names_the_diary_once_and_the_day(campaign, master, mailoutbox):
    (post,) = _diary_posts(campaign, 1)
    assert outbox_deliver().sent == 2  # the player and the master
    subjects = {m.subject for m in mailoutbox}
    (name,) = Character.objects.filter(pk=post.scene.diary_character_id).values_list(
        "name", flat=True
    )
    assert subjects == {f"[La Campaña] Diario de {name}, día 7"}


def test_the_settings_page_follows_a_campaign_of_the_dead(campaign, player_a, char_a, client):
    Character.objects.filter(pk=char_a.pk).update(status=Character.Status.DEAD)
    client.force_login(player_a)
    page = client.get("/cuenta/avisos/")
    assert page.context["quiet"] == [campaign] and page.context["followed"] == []
    assert "Seguir" in page.content.decode()
    assert client.post("/cuenta/avisos/", {"follow": str(campaign.pk)}).status_code == 302
    page = client.get("/cuenta/avisos/")
    assert page.context["quiet"] == [] and page.context["followed"] == [campaign]
    client.post("/cuenta/avisos/", {"unfollow": str(campaign.pk)})
    assert client.get("/cuenta/avisos/").context["followed"] == []
    assert client.post("/cuenta/avisos/", {"follow": "x"}).status_code == 302
