"""API tokens: made on the profile page and shown once, stored as a hash, used, revoked;
throttled per token, per user and per anonymous IP.
"""

from __future__ import annotations

import hashlib

import pytest
from django.test import Client
from django.utils import timezone

from partida.models import ApiToken
from tests.api.conftest import session_client, token_client

ME = "/api/v1/me/"
PROFILE = "/cuentas/perfil/"


def test_token_lifecycle_made_on_the_profile_page(player_a):
    browser = Client()
    browser.force_login(player_a)

    # Made: the key is on this page, once.
    response = browser.post(PROFILE, {"name": "hoja de cálculo"})
    assert response.status_code == 201
    assert response["Cache-Control"] == "no-store"
    key = response.context["new_key"]
    assert len(key) >= 40
    assert key in response.content.decode()

    # Stored: the hash and the first 8 characters, never the key.
    token = ApiToken.objects.get(user=player_a)
    assert token.name == "hoja de cálculo"
    assert token.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert token.prefix == key[:8]
    assert key not in {str(getattr(token, f.attname)) for f in ApiToken._meta.fields}
    assert token.last_used is None and token.revoked_at is None

    # Never shown again.
    page = browser.get(PROFILE).content.decode()
    assert key not in page
    assert f"{key[:8]}…" in page

    # Used: the request is player_a's, and last_used is set.
    response = token_client(key).get(ME)
    assert response.status_code == 200
    assert response.json()["username"] == "alicia"
    assert response.json()["authenticated_by"] == "token"
    token.refresh_from_db()
    assert token.last_used is not None
    assert token_client(key, keyword="Bearer").get(ME).status_code == 200

    # Revoked from the page: 401 with a message that says so.
    response = browser.post(PROFILE, {"revoke": token.pk})
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    response = token_client(key).get(ME)
    assert response.status_code == 401
    assert "revocado" in response.json()["detail"]  # Spanish by default
    assert response["WWW-Authenticate"].startswith("Token")


def test_profile_page_needs_sign_in_and_lists_only_my_tokens(player_a, player_b):
    from partida.services import token_create

    token_create(user=player_b, name="de bruno")
    assert Client().get(PROFILE).status_code == 302
    browser = Client()
    browser.force_login(player_a)
    page = browser.get(PROFILE).content.decode()
    assert "de bruno" not in page
    bruno_token = ApiToken.objects.get(user=player_b)
    assert browser.post(PROFILE, {"revoke": bruno_token.pk}).status_code == 404
    bruno_token.refresh_from_db()
    assert bruno_token.revoked_at is None
    # An empty name is refused on the form, nothing made.
    response = browser.post(PROFILE, {"name": "   "})
    assert response.status_code == 200
    assert response.context["form"].errors
    assert not ApiToken.objects.filter(user=player_a).exists()


def test_nav_links_to_the_profile(player_a):
    browser = Client()
    browser.force_login(player_a)
    assert f'href="{PROFILE}"' in browser.get("/").content.decode()


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("Token no-such-key", "desconocido"),
        ("Bearer", "mal formada"),
        ("Token a b", "mal formada"),
    ],
)
def test_bad_credentials_are_401_with_a_clear_message(db, header, message):
    client = Client()
    response = client.get("/api/v1/campaigns/", HTTP_AUTHORIZATION=header)
    assert response.status_code == 401
    assert message in response.json()["detail"]


def test_tokens_over_the_api(player_a, player_b, key_a):
    browser = session_client(player_a)
    response = browser.post("/api/v1/tokens/", {"name": "móvil"}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "name", "prefix", "created", "last_used", "revoked_at", "key"}
    assert body["prefix"] == body["key"][:8]
    listed = browser.get("/api/v1/tokens/").json()["results"]
    assert {t["name"] for t in listed} == {"móvil", "bot de alicia"}
    assert all("key" not in t for t in listed)

    # A token cannot make tokens; it can revoke (here: the new one).
    bot = token_client(key_a)
    assert bot.post("/api/v1/tokens/", {"name": "x"}, format="json").status_code == 403
    assert bot.delete(f"/api/v1/tokens/{body['id']}/").status_code == 204
    assert ApiToken.objects.get(pk=body["id"]).revoked_at is not None
    assert token_client(body["key"]).get(ME).status_code == 401

    # Someone else's token is not there at all.
    assert session_client(player_b).delete(f"/api/v1/tokens/{body['id']}/").status_code == 404
    assert session_client(None).get("/api/v1/tokens/").status_code == 401


def test_last_used_is_written_at_most_once_a_minute(player_a, key_a, django_assert_num_queries):
    token = ApiToken.objects.get(user=player_a)
    client = token_client(key_a)
    # find the token + update last_used; the view itself needs no query.
    with django_assert_num_queries(2):
        client.get(ME)
    with django_assert_num_queries(1):
        client.get(ME)
    ApiToken.objects.filter(pk=token.pk).update(
        last_used=timezone.now() - timezone.timedelta(minutes=2)
    )
    with django_assert_num_queries(2):
        client.get(ME)


@pytest.fixture
def low_rates(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            "anon": "2/min",
            "token": "3/min",
            "session": "3/min",
            "user": "6/min",
        },
    }


def test_throttled_per_token_and_per_user(player_a, key_a, low_rates):
    from partida.services import token_create

    first = token_client(key_a)
    assert [first.get(ME).status_code for _ in range(4)] == [200, 200, 200, 429]
    # Another token of the same user has its own bucket, under the user's ceiling (6/min),
    # which counted all four requests above (DRF asks every throttle, refused requests too).
    second = token_client(token_create(user=player_a, name="otro").key)
    assert [second.get(ME).status_code for _ in range(3)] == [200, 200, 429]
    response = second.get(ME)
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0


def test_anonymous_clients_are_throttled_by_ip(db, low_rates):
    client = Client()
    codes = [client.get("/api/v1/campaigns/").status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    other_ip = Client(REMOTE_ADDR="10.0.0.9")
    assert other_ip.get("/api/v1/campaigns/").status_code == 200


def test_session_writes_need_the_csrf_token(player_a):
    from rest_framework.test import APIClient

    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(player_a)
    response = browser.post("/api/v1/tokens/", {"name": "sin csrf"}, format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    assert not ApiToken.objects.filter(user=player_a).exists()


def test_messages_are_spanish_whatever_accept_language_says_unless_the_cookie(db):
    client = Client(HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    spanish = client.get("/api/v1/me/")
    assert spanish.status_code == 401
    assert spanish.json()["detail"] == "Las credenciales de autenticación no se proveyeron."
    assert spanish["Content-Language"] == "es"
    client.cookies["django_language"] = "en"
    english = client.get("/api/v1/me/")
    assert english.json()["detail"] == "Authentication credentials were not provided."


@pytest.mark.parametrize("path", ["/api/v1/docs/", "/api/v1/redoc/", "/api/v1/schema/"])
def test_documentation_pages_are_served(db, path):
    response = Client().get(path)
    assert response.status_code == 200
    if path.endswith("schema/"):
        assert b"openapi: 3" in response.content


@pytest.mark.parametrize("path", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_documentation_pages_use_no_cdn(db, path):
    # Swagger UI and ReDoc come from drf-spectacular-sidecar's static files: the docs work on
    # a machine without internet access.
    html = Client().get(path).content.decode()
    assert "/static/drf_spectacular_sidecar/" in html
    assert "cdn.jsdelivr.net" not in html
