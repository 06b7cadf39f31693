"""Finding 6: typing was lost when the session expired (the autosave jumped to the login page
mid-sentence; a no-JavaScript send after expiry went to the login and lost the post).

Now the text sent while signed out is kept in the session (``escenas.stash``): the autosave
answers a 401 the page shows in place (the textarea untouched), and after signing in the
scene's form holds what was sent, once.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from escenas.models import Post
from tests.escenas.conftest import client_for

pytestmark = pytest.mark.django_db


def urls(scene) -> tuple[str, str]:
    args = [scene.campaign.slug, scene.pk]
    return reverse("escenas:draft", args=args), reverse("escenas:post_create", args=args)


def expire(client) -> None:
    """The server forgets the session (expired); the browser keeps its cookies."""
    client.session.flush()
    client.cookies.pop("sessionid", None)


def test_an_autosave_after_expiry_answers_401_in_place_and_keeps_the_text(story, player_a, char_a):
    client = client_for(player_a)
    key = client.get(story.get_absolute_url()).context["form"].initial["idempotency_key"]
    expire(client)
    draft_url, _post_url = urls(story)
    response = client.post(
        draft_url,
        {"idempotency_key": key, "body": "Escrito tras caducar la sesión", "reason": "x"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 401
    assert "HX-Redirect" not in response
    assert (response["HX-Retarget"], response["HX-Reswap"]) == ("#draft-status", "outerHTML")
    html = response.content.decode()
    assert 'id="draft-status"' in html and "caducado" in html and 'target="_blank"' in html
    # Signing in again (another tab): the scene's form holds what was typed after expiry.
    client.force_login(player_a)
    page = client.get(story.get_absolute_url())
    form = page.context["form"]
    assert form.initial["body"] == "Escrito tras caducar la sesión"
    assert form.initial["idempotency_key"] == key
    assert "Escrito tras caducar la sesión" in page.content.decode()
    # Once: the next visit shows the draft or an empty form, not the stash again.
    assert client.get(story.get_absolute_url()).context["form"].initial.get("body") is None


def test_a_no_js_send_after_expiry_keeps_the_post_through_the_login(story, player_a, char_a):
    client = client_for(player_a)
    key = client.get(story.get_absolute_url()).context["form"].initial["idempotency_key"]
    expire(client)
    _draft_url, post_url = urls(story)
    data = {
        "idempotency_key": key,
        "voice": f"character:{char_a.pk}",
        "body": "Todo el mensaje largo que escribí",
        "note_to_master": "una nota",
    }
    response = client.post(post_url, data)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert Post.objects.count() == 0
    # The real sign-in form (allauth; Django keeps the session's data across the login).
    from allauth.account.models import EmailAddress

    EmailAddress.objects.create(user=player_a, email=player_a.email, verified=True, primary=True)
    user_model = type(player_a)
    player_a.set_password("secreto-123")
    user_model.objects.filter(pk=player_a.pk).update(password=player_a.password)
    login = client.post(reverse("login"), {"login": player_a.username, "password": "secreto-123"})
    assert login.status_code == 302, login.content[:500]
    page = client.get(story.get_absolute_url())
    form = page.context["form"]
    assert form.initial["body"] == "Todo el mensaje largo que escribí"
    assert form.initial["note_to_master"] == "una nota"
    assert form.initial["voice"] == f"character:{char_a.pk}"
    # Sending it now writes the post once, with the key it had.
    sent = client.post(post_url, {**data})
    assert sent.status_code == 302
    assert Post.objects.get().idempotency_key == key


def test_the_stash_is_only_for_the_scene_it_was_sent_to(story, player_a, char_a, campaign, master):
    from escenas import scenes
    from escenas.models import Scene

    other = scenes.scene_create(
        campaign=campaign,
        master=master,
        title="Otra",
        readers=Scene.Readers.MEMBERS,
        participants=[char_a],
    )
    client = client_for(player_a)
    expire(client)
    client.post(urls(story)[0], {"idempotency_key": "clave-0000001", "body": "para la primera"})
    client.force_login(player_a)
    assert client.get(other.get_absolute_url()).context["form"].initial.get("body") is None
    assert client.get(story.get_absolute_url()).context["form"].initial["body"] == "para la primera"
