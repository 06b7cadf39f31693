"""Finding 4: a NUL byte in a draft was a 500 on PostgreSQL and the draft was lost.

Every user text goes through ``nucleo.text``: NUL and the other invisible control characters
are removed (the text is kept), and one-line texts (names, titles, reasons) lose their line
breaks. Run on PostgreSQL too (it refuses NUL in text columns).
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from escenas.models import Draft, Post, Scene
from personajes.models import Character, Roll
from tests.escenas.conftest import client_for

pytestmark = pytest.mark.django_db

NUL_DRAFT = {
    "idempotency_key": "clave-nul-0001",
    "body": "Abro\x00 la puerta\r\ny miro.",
    "note_to_master": "no\x00ta",
    "roll_reason": "por\x00que sí",
    "roll_kind": "event",
}


def draft_url(scene) -> str:
    return reverse("escenas:draft", kwargs={"slug": scene.campaign.slug, "pk": scene.pk})


@pytest.mark.parametrize("htmx", [True, False])
def test_a_nul_byte_in_a_draft_is_removed_and_the_draft_kept(story, player_a, htmx):
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = client_for(player_a).post(draft_url(story), NUL_DRAFT, **headers)
    assert response.status_code == (200 if htmx else 302)
    draft = Draft.objects.get(scene=story, user=player_a)
    assert draft.body == "Abro la puerta\ny miro."
    assert draft.note_to_master == "nota"
    assert draft.data["roll_reason"] == "porque sí"


def test_save_draft_from_the_post_form_with_a_nul_byte(story, player_a):
    url = reverse("escenas:post_create", kwargs={"slug": story.campaign.slug, "pk": story.pk})
    response = client_for(player_a).post(url, {**NUL_DRAFT, "save_draft": "1", "voice": "player"})
    assert response.status_code == 302
    assert Draft.objects.get(scene=story, user=player_a).body == "Abro la puerta\ny miro."


def test_a_post_with_nul_bytes_is_written_without_them(story, player_a, char_a):
    url = reverse("escenas:post_create", kwargs={"slug": story.campaign.slug, "pk": story.pk})
    data = {
        "idempotency_key": "clave-nul-0002",
        "voice": f"character:{char_a.pk}",
        "body": "Ho\x00la",
        "note_to_master": "\x00",
        "roll_kind": "event",
        "roll_probability": 50,
        "roll_reason": "sue\x00rte\u2028mala",
    }
    response = client_for(player_a).post(url, data)
    assert response.status_code == 302, response.context["form"].errors
    post = Post.objects.get(scene=story, idempotency_key="clave-nul-0002")
    assert (post.body, post.note_to_master) == ("Hola", "")
    assert Roll.objects.get(post_roll__post=post).reason == "suerte mala"


def test_the_api_removes_nul_bytes_too(story, player_a, char_a):
    client = APIClient()
    client.force_login(player_a)
    response = client.post(
        f"/api/v1/scenes/{story.pk}/posts/",
        {
            "body": "A\x00B",
            "voice": "character",
            "character": char_a.pk,
            "roll": {"kind": "expression", "expression": "1d6", "reason": "x\x00y"},
        },
        format="json",
        HTTP_IDEMPOTENCY_KEY="clave-nul-0003",
    )
    assert response.status_code == 201, response.content
    assert response.json()["body"] == "AB"
    assert Roll.objects.get(post_roll__post__idempotency_key="clave-nul-0003").reason == "xy"


def test_names_and_titles_lose_line_breaks_and_controls(campaign, master, player_a, char_a):
    from escenas import scenes
    from personajes import sheets

    scene = scenes.scene_create(
        campaign=campaign,
        master=master,
        title="La\u2028gasolinera\x00\r\n",
        summary="uno\x00\ndos",
        readers=Scene.Readers.MEMBERS,
        participants=[char_a],
    )
    assert (scene.title, scene.summary) == ("La gasolinera", "uno\ndos")
    made = sheets.character_create(
        campaign=campaign, player=master, name="Aaron\u2028Rata\x0b\x00", concept="a\x00b"
    )
    made = Character.objects.get(pk=made.pk)
    assert (made.name, made.concept) == ("Aaron Rata", "ab")
