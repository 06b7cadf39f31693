"""Portraits beside posts and the master's NPCs (issue 15 item 3).

Cast: the master; player A (alicia) plays Ana Forastera in the story scene (readers: every
player); player B (bruno) reads it; olga is an outsider of this private campaign.
Thumbnails are made on upload (96 px and 192 px, next to the original); a post by a character
shows its thumbnail (``srcset`` 2x), a post without one the speaker's initials; a new portrait
changes the page at once (the post fragment cache's key, the URL's ``?v=``); the master's NPCs
have a name and a portrait, are chosen as the voice of a post, and their portraits are served
to whoever may read the campaign only.
"""

from __future__ import annotations

import io
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse
from PIL import Image

from escenas import npcs, services
from escenas.models import NonPlayerCharacter, Post
from escenas.templatetags.portraits import initials
from nucleo.errors import ServiceError
from personajes.portraits import portrait_assign, portrait_from_admin_form
from tests.escenas.conftest import access_for, client_for
from tests.escenas.factories import new_key


def png(colour: str = "teal", size: tuple[int, int] = (300, 200)) -> SimpleUploadedFile:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return SimpleUploadedFile("cara.png", out.getvalue(), "image/png")


def say(scene, user, **kwargs) -> Post:
    post, _created = services.post_create(
        access=access_for(scene, user), author=user, idempotency_key=new_key(), **kwargs
    )
    return post


def portrait_src(page: str, post: Post) -> str:
    """The ``src`` of the portrait beside ``post`` on ``page`` ("" for the initials)."""
    block = page.split(f'id="post-{post.pk}"', 1)[1].split("</header>", 1)[0]
    found = re.search(r'<img class="post-portrait" src="([^"]+)"', block)
    return found.group(1) if found else ""


def test_initials():
    assert initials("Ana Forastera") == "AF"
    assert initials("máster") == "M"
    assert initials("Jean-Luc de la Torre") == "JL"
    assert initials("") == "?"


def test_a_character_post_shows_its_thumbnail_and_another_its_initials(
    story, master, player_a, player_b, char_a
):
    portrait_assign(char_a, png())  # as the sheet and the admin do
    char_a.save()
    post = say(story, player_a, voice="character", character=char_a, body="Hola.")
    narrated = say(story, master, voice="narrator", body="Llueve.")
    page = client_for(player_b).get(story.get_absolute_url()).content.decode()
    stem = char_a.portrait.name.rsplit("/", 1)[1].removesuffix(".webp")
    src = portrait_src(page, post)
    assert src == reverse("personajes:portrait_thumb", args=[char_a.pk]) + f"?v={stem}-96"
    assert f'srcset="{src} 1x, ' in page and f"mini/2x/?v={stem}-96 2x" in page
    assert portrait_src(page, narrated) == ""
    block = page.split(f'id="post-{narrated.pk}"', 1)[1].split("</header>", 1)[0]
    assert '<span class="post-portrait initials" aria-hidden="true">N</span>' in block
    assert client_for(player_b).get(src).status_code == 200
    assert client_for(player_b).get(src.replace("mini/", "mini/2x/")).status_code == 200


def test_a_new_portrait_shows_at_once_through_the_fragment_cache(story, player_a, char_a):
    post = say(story, player_a, voice="character", character=char_a, body="Hola.")
    client = client_for(player_a)
    assert portrait_src(client.get(story.get_absolute_url()).content.decode(), post) == ""
    # The master uploads one in the admin (``portrait_from_admin_form``, then the save): the
    # cached fragment of the post must not be served again.
    upload = png("olive")
    portrait_from_admin_form(char_a, FakeForm({"portrait": upload}))
    char_a.save()
    first = portrait_src(client.get(story.get_absolute_url()).content.decode(), post)
    assert first.startswith(reverse("personajes:portrait_thumb", args=[char_a.pk]))
    portrait_assign(char_a, png("maroon"))
    char_a.save(update_fields=["portrait", "portrait_thumb", "portrait_thumb_2x"])
    second = portrait_src(client.get(story.get_absolute_url()).content.decode(), post)
    assert second and second != first
    portrait_from_admin_form(char_a, FakeForm({"portrait": False}))  # "clear" in the admin
    char_a.save()
    assert portrait_src(client.get(story.get_absolute_url()).content.decode(), post) == ""


class FakeForm:
    """What ``portrait_from_admin_form`` reads of an admin form."""

    def __init__(self, cleaned: dict) -> None:
        self.cleaned_data = cleaned
        self.changed_data = list(cleaned)


def test_the_master_makes_an_npc_with_a_portrait_and_speaks_as_it(
    story, master, player_b, outsider
):
    url = reverse("escenas:npcs", args=[story.campaign.slug])
    response = client_for(master).post(
        url, {"name": "Doña Remedios", "description": "La boticaria.", "portrait": png()}
    )
    assert response.status_code == 302
    npc = NonPlayerCharacter.objects.get()
    assert (npc.name, npc.description) == ("Doña Remedios", "La boticaria.")
    assert npc.portrait_thumb.name.endswith("-96.webp")
    assert npc.portrait_thumb_2x.name.endswith("-192.webp")
    with Image.open(npc.portrait_thumb_2x.open("rb")) as retina:
        assert retina.size == (192, 192)
    # The master's post form offers it as a voice; the post speaks with its name and portrait.
    page = client_for(master).get(story.get_absolute_url()).content.decode()
    assert f'<option value="npc:{npc.pk}">Doña Remedios</option>' in page
    response = client_for(master).post(
        reverse("escenas:post_create", args=[story.campaign.slug, story.pk]),
        {"idempotency_key": new_key(), "voice": f"npc:{npc.pk}", "body": "¿Qué os pongo?"},
    )
    assert response.status_code == 302, response.content
    post = Post.objects.get()
    assert (post.voice, post.speaker_name, post.npc) == ("npc", "Doña Remedios", npc)
    page = client_for(player_b).get(story.get_absolute_url()).content.decode()
    src = portrait_src(page, post)
    assert src.startswith(reverse("escenas:npc_portrait_thumb", args=[story.campaign.slug, npc.pk]))
    assert client_for(player_b).get(src).status_code == 200
    assert client_for(outsider).get(src).status_code == 404  # a private campaign's NPC
    assert client_for(None).get(src).status_code == 404


def test_npc_pages_are_the_masters_and_refuse_bad_input(story, master, player_a):
    url = reverse("escenas:npcs", args=[story.campaign.slug])
    assert client_for(player_a).get(url).status_code == 404
    assert client_for(player_a).post(url, {"name": "Intruso"}).status_code == 404
    bad = client_for(master).post(
        url,
        {"name": "Fulano", "portrait": SimpleUploadedFile("x.png", b"not a png", "image/png")},
    )
    assert bad.status_code == 400
    assert "JPEG, PNG, WebP o GIF" in bad.content.decode() or bad.context["form"].errors
    assert NonPlayerCharacter.objects.count() == 0
    client_for(master).post(url, {"name": "Fulano"})
    twice = client_for(master).post(url, {"name": "fulano"})
    assert twice.status_code == 400 and list(twice.context["form"].errors) == ["name"]
    assert NonPlayerCharacter.objects.count() == 1


def test_an_npc_renamed_or_repainted_changes_its_posts(story, master, player_b):
    npc = npcs.npc_save(campaign=story.campaign, master=master, name="Remedios")
    post = say(story, master, voice="npc", npc=npc, body="Buenas.")
    client = client_for(player_b)
    assert portrait_src(client.get(story.get_absolute_url()).content.decode(), post) == ""
    npcs.npc_save(campaign=story.campaign, master=master, npc=npc, name="Remedios", portrait=png())
    assert portrait_src(client.get(story.get_absolute_url()).content.decode(), post)
    npcs.npc_save(
        campaign=story.campaign, master=master, npc=npc, name="Remedios", remove_portrait=True
    )
    assert portrait_src(client.get(story.get_absolute_url()).content.decode(), post) == ""


def test_an_npc_of_another_campaign_cannot_speak_here(story, master):
    from tests.factories import CampaignFactory

    other = NonPlayerCharacter.objects.create(campaign=CampaignFactory(), name="Ajeno")
    with pytest.raises(ServiceError) as refused:
        say(story, master, voice="npc", npc=other, body="Hola.")
    assert list(refused.value.message_dict) == ["npc"]


def test_the_api_posts_as_an_npc_by_id(story, master, player_a):
    from rest_framework.test import APIClient

    npc = npcs.npc_save(campaign=story.campaign, master=master, name="Remedios")
    client = APIClient()
    client.force_authenticate(master)
    url = f"/api/v1/scenes/{story.pk}/posts/"
    made = client.post(
        url,
        {"voice": "npc", "npc": npc.pk, "body": "Buenas."},
        format="json",
        HTTP_IDEMPOTENCY_KEY="npc-key-0001",
    )
    assert made.status_code == 201, made.content
    assert made.json()["speaker_name"] == "Remedios"
    bad = client.post(
        url,
        {"voice": "npc", "npc": 999_999, "body": "x"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="npc-key-0002",
    )
    assert bad.status_code == 400 and list(bad.json()) == ["npc"]


NO_CACHE = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}


def _page_queries(client, url) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


@override_settings(CACHES=NO_CACHE)
def test_portraits_cost_no_query_on_the_scene_page(story, master, player_a, player_b, char_a):
    """The portraits come with the posts' rows (character and NPC select_related): a page of
    posts with portraits costs what the same page without them does (every post rendered: no
    fragment cache)."""
    npc = npcs.npc_save(campaign=story.campaign, master=master, name="Remedios")
    for i in range(3):
        say(story, player_a, voice="character", character=char_a, body=f"Hola {i}.")
        say(story, master, voice="npc", npc=npc, body=f"Buenas {i}.")
    client = client_for(player_b)
    client.get(story.get_absolute_url())  # the read marker
    without = _page_queries(client, story.get_absolute_url())
    portrait_assign(char_a, png("olive"))
    char_a.save()
    npcs.npc_save(campaign=story.campaign, master=master, npc=npc, name="Remedios", portrait=png())
    page = client.get(story.get_absolute_url()).content.decode()
    assert page.count('<img class="post-portrait"') == 6
    assert _page_queries(client, story.get_absolute_url()) == without
