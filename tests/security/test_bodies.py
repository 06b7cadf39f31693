"""Finding 8 and the big bodies: deep JSON was a RecursionError (500), a 10 MB API body an HTML
400, and a form body over 2.5 MB Django's bare English 400 with the text lost."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.urls import reverse
from rest_framework.test import APIClient

from escenas.models import Draft, Post
from tests.escenas.conftest import client_for

pytestmark = pytest.mark.django_db


FORM = {"content_type": "application/x-www-form-urlencoded"}


def form_body(**fields: str) -> str:
    """A browser's body of the post form (urlencoded, the CSRF token first as in the page)."""
    return urlencode({"csrfmiddlewaretoken": "x", "voice": "player", **fields})


def api_client(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def posts_url(scene) -> str:
    return f"/api/v1/scenes/{scene.pk}/posts/"


def test_deeply_nested_json_is_a_400_with_a_message(story, player_a):
    client = api_client(player_a)
    response = client.post(
        posts_url(story),
        data=b'{"body":"x","roll":' + b"[" * 100_000,
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="profundo-01",
    )
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/json")
    assert "demasiada profundidad" in str(response.json())
    assert not Post.objects.exists()


def test_json_deeper_than_the_limit_names_its_field(story, player_a):
    deep = "[" * 40 + "]" * 40
    response = api_client(player_a).post(
        posts_url(story),
        data=f'{{"body":"x","roll":{deep}}}'.encode(),
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="profundo-02",
    )
    assert response.status_code == 400
    assert list(response.json()) == ["roll"]
    assert not Post.objects.exists()


def test_a_10_mb_api_body_is_a_413_in_json(story, player_a):
    response = api_client(player_a).post(
        posts_url(story),
        data=b'{"body":"' + b"x" * 10_000_000 + b'"}',
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="enorme-0001",
    )
    assert response.status_code == 413
    body = response.json()
    assert "demasiado grande" in body["detail"]
    assert body["non_field_errors"] == [body["detail"]]


def test_a_form_body_over_the_limit_keeps_the_text_with_a_spanish_message(story, player_a):
    url = reverse("escenas:post_create", kwargs={"slug": story.campaign.slug, "pk": story.pk})
    text = "Érase una vez " * 200_000  # 2.8 MB of text, 5 MB url-encoded
    client = client_for(player_a)
    response = client.post(url, form_body(idempotency_key="enorme-0002", body=text), **FORM)
    assert response.status_code == 400
    form = response.context["form"]
    assert any("demasiado grande" in e for e in form.non_field_errors())
    kept = form.data["body"]
    assert len(kept) > 100_000 and text.startswith(kept)  # the text that fit, in the textarea
    assert "Érase una vez" in response.content.decode()
    assert not Post.objects.exists()
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 2_621_440
    # The draft endpoint says so too, and keeps the draft it had.
    Draft.objects.create(scene=story, user=player_a, body="antes", idempotency_key="enorme-0002")
    draft_url = reverse("escenas:draft", kwargs={"slug": story.campaign.slug, "pk": story.pk})
    response = client.post(
        draft_url,
        form_body(idempotency_key="enorme-0002", body=text),
        HTTP_HX_REQUEST="true",
        **FORM,
    )
    assert response.status_code == 200
    assert "demasiado grande" in response.content.decode()
    assert Draft.objects.get(scene=story, user=player_a).body == "antes"


def test_a_form_over_the_limit_elsewhere_is_a_413_page_that_acts_on_nothing(campaign, master):
    # Views that do not keep the text themselves never act on a cut body.
    url = reverse("escenas:scene_create", kwargs={"slug": campaign.slug})
    body = form_body(title="Enorme", summary="x" * 3_000_000, readers="members", kind="story")
    response = client_for(master).post(url, body, **FORM)
    assert response.status_code == 413
    assert "demasiado grande" in response.content.decode()
    from escenas.models import Scene

    assert not Scene.objects.filter(title="Enorme").exists()
