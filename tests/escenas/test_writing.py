"""Writing in a scene (issue 15, item 1): reply, quote, @mentions, live preview, toolbar.

The cast (tests/escenas/conftest.py): the master; alicia plays «Ana Forastera», who takes part
in ``story`` (every player may read it); bruno plays «Bruno Herrero», who does not take part
(he reads ``story``, he cannot write in it); olga is an outsider; anonymous sees nothing of
the private campaign.
"""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from escenas import quoting, scenes, services, tasks
from escenas.models import NotificationPreference, Post, PostNotification, Scene
from escenas.rendering import MentionTarget, render_post
from tests.escenas.conftest import access_for, client_for
from tests.escenas.factories import new_key

pytestmark = pytest.mark.django_db


def write(scene, user, body="", **kwargs):
    access = access_for(scene, user)
    kwargs.setdefault("voice", access.voices[0])
    return services.post_create(
        access=access, author=user, idempotency_key=new_key(), body=body, **kwargs
    )[0]


def told(post) -> set[str]:
    """Who was told about ``post``, once its fan-out has run (after the commit: the worker's
    sweep here, as a test's transaction never commits)."""
    tasks.fan_out_pending_posts()
    return set(PostNotification.objects.filter(post=post).values_list("user__username", flat=True))


# --- Rendering -------------------------------------------------------------------------------


def test_mentions_link_the_longest_known_name_and_say_who_was_named():
    targets = [
        MentionTarget("ana", 1, "/u/ana"),
        MentionTarget("Lucía Romero", 2, "/c/2"),
        MentionTarget("Lucía", 3, "/c/3"),
    ]
    html, named = render_post(
        "Hola @Ana y @lucía romero; @Lucía. a@ana.com `@ana` @anabel \\@ana", mentions=targets
    )
    assert named == {1, 2, 3}
    assert re.findall(r'<a href="([^"]+)" class="mention"[^>]*>([^<]+)</a>', html) == [
        ("/u/ana", "@Ana"),
        ("/c/2", "@lucía romero"),
        ("/c/3", "@Lucía"),
    ]
    # An e-mail address, code, a longer word and an escaped @ are not mentions.
    assert "a@ana.com" in html and "<code>@ana</code>" in html and "@anabel" in html
    assert html.count('class="mention"') == 3


def test_a_spoiler_block_is_a_closed_details_element_and_code_fences_are_left_alone():
    html, _named = render_post(
        "Antes\n\n::: spoiler El sótano\nHay **un zombi**\n:::\n\n```\n::: spoiler\n```"
    )
    assert "<details><summary>El sótano</summary><p>Hay <strong>un zombi</strong></p>" in html
    assert "<pre><code>::: spoiler\n</code></pre>" in html
    untitled, _named = render_post("::: spoiler\nfin\n:::")
    assert untitled.startswith("<details><summary>Spoiler</summary>")
    # The sanitiser still refuses details typed as HTML (raw HTML is text).
    raw, _named = render_post('<details open onclick="x">a</details>')
    assert "<details" not in raw


# --- Reply -----------------------------------------------------------------------------------


def test_a_reply_names_and_links_the_post_it_answers(story, master, player_a, char_a, player_b):
    first = write(story, master, "La puerta cruje.")
    reply = write(story, player_a, "¿Quién anda ahí?", character=char_a, reply_to=first.pk)
    assert reply.reply_to_id == first.pk
    page = client_for(player_b).get(story.get_absolute_url() + "?page=last")
    html = page.content.decode()
    link = f'href="/partidas/la-campana/mensajes/{first.pk}/"'
    assert link in html and "en respuesta a Narrador" in html
    # The permanent link finds the post on whatever page it is.
    found = client_for(player_b).get(f"/partidas/la-campana/mensajes/{first.pk}/")
    assert found.status_code == 302 and f"#post-{first.pk}" in found["Location"]


def test_a_reply_to_another_scene_or_to_an_unseen_whisper_is_refused_by_field(
    campaign, story, master, player_a, char_a
):
    offtopic = scenes.offtopic_scene_for(campaign)
    elsewhere = write(offtopic, master, "Fuera de juego")
    to_master = write(story, master, "Para mis ojos", whisper=True)  # nobody else reads it
    to_alicia = write(story, master, "Sólo para Alicia", whisper=True, whisper_to=[player_a])
    for target in (elsewhere.pk, to_master.pk, 10**9):
        with pytest.raises(services.ServiceError) as error:
            write(story, player_a, "Respondo", character=char_a, reply_to=target)
        assert "reply_to" in error.value.message_dict
    # Alicia, a recipient, may answer the whisper to her.
    assert write(story, player_a, "Vale", character=char_a, reply_to=to_alicia.pk).reply_to_id


def test_a_reply_to_a_whisper_names_it_only_to_who_saw_it(
    story, master, player_a, player_b, char_a
):
    whisper = write(story, master, "Sólo para Alicia", whisper=True, whisper_to=[player_a])
    write(story, player_a, "Entendido, en voz alta.", character=char_a, reply_to=whisper.pk)
    line = "en respuesta a Narrador"
    url = story.get_absolute_url() + "?page=last"
    assert line in client_for(master).get(url).content.decode()
    assert line in client_for(player_a).get(url).content.decode()
    for_bruno = client_for(player_b).get(url).content.decode()
    assert "Entendido, en voz alta." in for_bruno and line not in for_bruno


def test_deleting_the_answered_post_removes_the_line_from_cached_pages(
    story, master, player_a, player_b, char_a
):
    first = write(story, player_a, "Miro por la ventana.", character=char_a)
    write(story, master, "Ves sombras.", reply_to=first.pk)
    url = story.get_absolute_url() + "?page=last"
    line = "en respuesta a Ana Forastera"
    assert line in client_for(player_b).get(url).content.decode()  # now cached
    services.post_delete(post=first, user=player_a)
    assert line not in client_for(player_b).get(url).content.decode()
    assert line in client_for(master).get(url).content.decode()


def test_reply_and_quote_links_show_only_where_the_reader_can_write(story, master, player_b):
    write(story, master, "La puerta cruje.")
    url = story.get_absolute_url() + "?page=last"
    assert 'id="post-list" aria-label="Mensajes" class="can-write"' in (
        client_for(master).get(url).content.decode()
    )
    bruno = client_for(player_b).get(url).content.decode()
    assert 'class="can-write"' not in bruno  # the links are in the fragment, hidden by CSS


# --- Quote: built from what the quoting reader may see -------------------------------------


@pytest.fixture
def quotable(story, master, player_a, char_a):
    """A public post with a hidden roll, a whisper to alicia, a post with a note to the master,
    and a deleted post."""
    public = write(
        story,
        master,
        "Texto público de la narración.",
        roll=services.RollSpec(kind="event", probability=40, reason="Tirada secreta", hidden=True),
    )
    whisper = write(story, master, "Secreto para Alicia.", whisper=True, whisper_to=[player_a])
    noted = write(
        story, player_a, "Abro la puerta.", character=char_a, note_to_master="Nota escondida"
    )
    deleted = write(story, player_a, "Texto borrado.", character=char_a)
    services.post_delete(post=deleted, user=player_a)
    return {"public": public, "whisper": whisper, "noted": noted, "deleted": deleted}


QUOTE_MATRIX = {
    # who: the posts they may quote (the others are a 404; anonymous is sent to sign in)
    "master": {"public", "whisper", "noted"},
    "player_a": {"public", "whisper", "noted"},
    "player_b": {"public", "noted"},
    "outsider": set(),
}
NEVER_QUOTED = ("Tirada secreta", "Nota escondida", "Texto borrado", "40")


@pytest.mark.parametrize("who", [*QUOTE_MATRIX, "anonymous"])
def test_the_quote_of_each_post_follows_the_permission_matrix(quotable, cast, who):
    client = client_for(cast[who])
    for name, post in quotable.items():
        response = client.get(f"/partidas/la-campana/mensajes/{post.pk}/citar/")
        if who == "anonymous":  # sent to sign in, told nothing
            assert response.status_code == 302 and post.body not in response.content.decode()
            continue
        allowed = name in QUOTE_MATRIX[who]
        assert response.status_code == (200 if allowed else 404), (who, name)
        if allowed:
            text = response.content.decode()
            assert text.startswith(f"> **{post.speaker_name}** [escribió](/partidas/")
            assert f"/mensajes/{post.pk}/" in text
            assert post.body in text
            # Without the link's address, whose post id may hold the hidden roll's "40".
            words = re.sub(r"\]\([^)]*\)", "]()", text)
            for secret in NEVER_QUOTED:
                assert secret not in words, (who, name, secret)


def test_a_quote_leaves_out_quotes_and_spoilers_escapes_mentions_and_is_short(story, master):
    post = write(
        story,
        master,
        "> lo que dijo otro\n\nVeo a @alicia.\n\n::: spoiler\nEl final\n:::\n" + "palabra " * 80,
    )
    text = quoting.quote_markdown(post)
    assert "lo que dijo otro" not in text and "El final" not in text and "(…)" in text
    assert "\\@alicia" in text
    assert len(text) < quoting.QUOTE_MAX_CHARS + 120 and text.rstrip().endswith("…")
    html, named = render_post(text, mentions=[MentionTarget("alicia", 1, "/u")])
    assert named == frozenset() and "<blockquote>" in html


def test_a_quote_link_without_javascript_fills_the_form(quotable, player_a):
    public = quotable["public"]
    url = f"/partidas/la-campana/escenas/{public.scene_id}/?page=last&quote={public.pk}"
    html = client_for(player_a).get(url).content.decode()
    assert f'name="reply_to" value="{public.pk}"' in html
    assert "&gt; **Narrador** [escribió](/partidas/la-campana/mensajes/" in html
    assert "En respuesta a Narrador" in html
    # A post the reader may not see fills nothing.
    hidden = quotable["whisper"]
    url = f"/partidas/la-campana/escenas/{hidden.scene_id}/?page=last&quote={hidden.pk}"
    # bruno cannot write in the scene: no form at all; alicia sees it; outsiders 404.
    assert client_for(player_a).get(url).status_code == 200


# --- Mentions notify who may read -------------------------------------------------------------


def test_a_mention_tells_a_reader_who_is_not_a_participant(story, player_a, player_b, char_a):
    post = write(story, player_a, "@bruno, ¿nos ayudas?", character=char_a)
    assert set(post.mentions.values_list("username", flat=True)) == {"bruno"}
    assert 'class="mention"' in post.body_html
    assert "bruno" in told(post)
    # By character name too.
    again = write(story, player_a, "¡@Bruno Herrero, ven!", character=char_a)
    assert "bruno" in told(again)


def test_a_mention_in_a_whisper_tells_nobody_who_cannot_read_it(
    story, master, player_a, player_b, char_a
):
    post = write(
        story, player_a, "Que no se entere @bruno", character=char_a, whisper=True, whisper_to=[]
    )
    assert set(post.mentions.values_list("username", flat=True)) == {"bruno"}
    assert told(post) == {"master"}


def test_a_mention_follows_the_mentioned_members_settings(story, player_a, player_b, char_a):
    NotificationPreference.objects.create(user=player_b, mode=NotificationPreference.Mode.NONE)
    post = write(story, player_a, "@bruno mira", character=char_a)
    assert "bruno" not in told(post)


def test_the_mention_email_says_so_in_the_readers_language(
    story, master, player_a, player_b, char_a
):
    from nucleo.models import OutboxMessage, UserSettings

    UserSettings.objects.create(user=player_b, language="en", time_zone="Europe/Madrid")
    post = write(story, player_a, "@bruno y @master, mirad esto", character=char_a)
    tasks.fan_out_pending_posts()  # the e-mails are queued after the commit
    mails = {m.recipient: m for m in OutboxMessage.objects.filter(topic=f"post:{post.pk}")}
    bruno, boss = mails["bruno@example.com"], mails["master@example.com"]
    # bruno reads English; the master (no settings) the site's Spanish.
    assert bruno.subject == "[La Campaña] La gasolinera: Ana Forastera mentioned you"
    assert "Ana Forastera mentioned you in “La gasolinera” (La Campaña):" in bruno.body_text
    assert "because you were mentioned in this scene" in bruno.body_text
    assert "mentioned you in" in bruno.body_html
    assert boss.subject == "[La Campaña] La gasolinera: Ana Forastera te ha mencionado"
    assert "Ana Forastera te ha mencionado en «La gasolinera» (La Campaña):" in boss.body_text
    assert "porque te han mencionado en esta escena" in boss.body_text
    # A participant who is not named gets the ordinary e-mail.
    plain = write(story, master, "Sin nombres.", voice="narrator")
    tasks.fan_out_pending_posts()
    (told_a,) = OutboxMessage.objects.filter(topic=f"post:{plain.pk}")
    assert "mencionado" not in told_a.subject + told_a.body_text


def test_an_edit_that_adds_a_mention_tells_only_the_newly_named(story, player_a, player_b, char_a):
    post = write(story, player_a, "Sin nombres", character=char_a)
    before = told(post)
    edited = services.post_edit(post=post, editor=player_a, body="Ahora sí: @bruno")
    assert "mention" in edited.body_html
    assert told(post) == before | {"bruno"}


# --- Preview -----------------------------------------------------------------------------------


def test_the_preview_renders_like_a_post(story, player_a, outsider):
    url = f"/partidas/la-campana/escenas/{story.pk}/vista-previa/"
    response = client_for(player_a).post(url, {"body": "**hola** @bruno <script>x</script>"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "<strong>hola</strong>" in html and 'class="mention"' in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert client_for(outsider).post(url, {"body": "x"}).status_code == 404
    assert client_for(None).post(url, {"body": "x"}).status_code == 302


def test_the_post_form_and_the_edit_page_have_the_toolbar_and_the_preview(story, player_a, char_a):
    html = client_for(player_a).get(story.get_absolute_url()).content.decode()
    for piece in ('role="toolbar"', 'data-md="bold"', 'data-md="dice"', "vista-previa/"):
        assert piece in html
    assert "::: spoiler" in html  # the plain Markdown hint, for readers without JavaScript
    post = write(story, player_a, "Texto", character=char_a)
    edit = client_for(player_a).get(f"/partidas/la-campana/mensajes/{post.pk}/editar/")
    page = edit.content.decode()
    assert 'role="toolbar"' in page and "vista-previa/" in page and 'data-md="dice"' not in page


# --- API -----------------------------------------------------------------------------------------


def test_the_api_takes_reply_to_and_refuses_one_of_another_scene_by_field(
    campaign, story, master, player_a, char_a
):
    first = write(story, master, "La puerta cruje.")
    elsewhere = write(scenes.offtopic_scene_for(campaign), master, "Fuera")
    api = APIClient()
    api.force_login(player_a)
    url = f"/api/v1/scenes/{story.pk}/posts/"
    bad = api.post(
        url, {"body": "x", "reply_to": elsewhere.pk, "idempotency_key": new_key()}, format="json"
    )
    assert bad.status_code == 400 and "reply_to" in bad.json()
    good = api.post(
        url,
        {"body": "Voy", "reply_to": first.pk, "idempotency_key": new_key()},
        format="json",
    )
    assert good.status_code == 201
    assert good.json()["reply_to"] == first.pk
    assert good.json()["reply_to_speaker"] == "Narrador"
    listed = api.get(url).json()["results"]
    assert [p["reply_to"] for p in listed] == [None, first.pk]
    assert Post.objects.get(pk=good.json()["id"]).scene.kind == Scene.Kind.STORY
