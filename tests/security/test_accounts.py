"""Accounts under attack (issue 12, finding 5, finding 7, "sign-up tells which e-mails are
registered"), and the account pages allauth lacks: my data, my account's deletion.

Cast (tests/conftest.py): ``master`` runs ``campaign``; ``player_a`` (alicia) plays in it;
``outsider`` (olga) has an account and no campaign. Every factory user's password is
``password``. The cache (the rate-limit counters) starts empty in each test.
"""

from __future__ import annotations

import datetime
import json
import re
import time
from unittest import mock

import pytest
import time_machine
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from escenas import scenes
from escenas.models import Draft, Post, Scene
from mundo.models import Membership
from nucleo.models import OutboxMessage
from partida.models import ApiToken
from partida.services import token_create
from personajes.models import Character
from tests.factories import CharacterFactory
from tests.outbox import delivered

ME = "/api/v1/me/"
TOO_MANY = re.compile(
    r"Demasiados intentos fallidos de inicio de sesión\. Vuelve a intentarlo dentro de (\d+) "
    r"minutos?\."
)
WRONG = "y/o la contraseña que ha indicado no son correct"  # allauth's, by username or e-mail


def sign_in(client: Client, login: str, password: str, **extra: str):
    return client.post(reverse("login"), {"login": login, "password": password, **extra})


def code_from(to: str) -> str:
    message = [m for m in delivered() if to in m.to][-1]
    return re.search(r"^([A-Z0-9]{4}-[A-Z0-9]{4})$", message.body, re.M).group(1)


def verified(user: AbstractBaseUser) -> AbstractBaseUser:
    """Give a factory user the verified address a sign-up would have given them."""
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user


# --- finding 5: sign-in is throttled per account ------------------------------------------------


def test_20_wrong_passwords_in_a_minute_the_6th_and_later_are_refused_unchecked(outsider):
    verified(outsider)
    client = Client()
    user_model = get_user_model()
    with (
        time_machine.travel(timezone.now(), tick=False) as clock,
        mock.patch.object(
            user_model, "check_password", autospec=True, side_effect=user_model.check_password
        ) as checked,
    ):
        answers, checks = [], []
        for attempt in range(20):
            # By username and by e-mail in turn: both name one account, one count.
            login = "olga" if attempt % 2 else "olga@example.com"
            answers.append(sign_in(client, login, f"mala-{attempt}").content.decode())
            checks.append(checked.call_count)
            clock.shift(datetime.timedelta(seconds=2.5))  # 20 attempts in 50 s
        assert [WRONG in html for html in answers[:5]] == [True] * 5
        assert all(b > a for a, b in zip([0, *checks[:4]], checks[:5], strict=True))
        assert checks[5:] == [checks[4]] * 15  # the 6th and later never reach the password
        for html in answers[5:]:
            assert WRONG not in html
            assert TOO_MANY.search(html), html
        # "When to try again": the first attempt leaves the 5-minute window 4 min 12 s after
        # the 20th, which the message rounds up to 5 minutes.
        assert TOO_MANY.search(answers[-1]).group(1) == "5"

        # The right password is refused as well, unchecked, while the account waits.
        response = sign_in(client, "olga", "password")
        assert TOO_MANY.search(response.content.decode())
        assert checked.call_count == checks[4]
        assert "_auth_user_id" not in client.session

        clock.shift(datetime.timedelta(minutes=5))
        response = sign_in(client, "olga", "password")
        assert response.status_code == 302
        assert client.session["_auth_user_id"] == str(outsider.pk)


def test_an_unknown_login_is_refused_alike(db):
    client = Client()
    answers = [sign_in(client, "nadie", "x").content.decode() for _ in range(6)]
    assert WRONG in answers[4]
    assert TOO_MANY.search(answers[5])


def test_the_admin_sign_in_counts_against_the_same_limit(master):
    client = Client()
    for _ in range(5):
        response = client.post("/admin/login/", {"username": "master", "password": "mala"})
        assert response.status_code == 200
    response = client.post("/admin/login/", {"username": "master", "password": "password"})
    assert TOO_MANY.search(response.content.decode())
    assert "_auth_user_id" not in client.session
    # ... and the site's form sees the same count.
    assert TOO_MANY.search(sign_in(Client(), "master", "password").content.decode())


def test_a_right_password_gives_its_attempt_back(outsider):
    verified(outsider)
    for _ in range(4):
        sign_in(Client(), "olga", "mala")
    for _ in range(3):  # right ones do not use up the fifth
        assert sign_in(Client(), "olga", "password").status_code == 302
    assert WRONG in sign_in(Client(), "olga", "mala").content.decode()
    assert TOO_MANY.search(sign_in(Client(), "olga", "mala").content.decode())


def test_sign_in_by_email_goes_back_to_next(outsider):
    verified(outsider)
    response = sign_in(Client(), "OLGA@example.com", "password", next="/invitacion/abc/")
    assert response.status_code == 302
    assert response["Location"] == "/invitacion/abc/"


# --- no enumeration ----------------------------------------------------------------------------


def test_sign_up_with_a_registered_email_answers_like_a_new_one(outsider):
    verified(outsider)

    def sign_up(username: str, email: str):
        return Client().post(
            reverse("signup"),
            {
                "username": username,
                "email": email,
                "password1": "una-clave-larga-9",
                "password2": "una-clave-larga-9",
            },
        )

    taken = sign_up("intruso", "olga@example.com")
    fresh = sign_up("nueva", "nueva@example.com")
    assert (taken.status_code, taken["Location"]) == (fresh.status_code, fresh["Location"])
    assert taken["Location"] == reverse("account_email_verification_sent")
    assert not get_user_model().objects.filter(username="intruso").exists()
    # The owner of the address is told someone tried; the form told the visitor nothing.
    to_olga = [m for m in delivered() if "olga@example.com" in m.to]
    assert len(to_olga) == 1
    assert to_olga[0].subject == "[Partida] La cuenta ya existe"
    # ... and the new address got its code, as any sign-up does.
    assert [m.subject for m in delivered() if "nueva@example.com" in m.to] == [
        "[Partida] Por favor, confirme su dirección de correo electrónico"
    ]


def test_sign_up_with_a_taken_username_answers_like_a_new_one(outsider):
    def sign_up(username: str, email: str):
        client = Client()
        first = client.post(
            reverse("signup"),
            {
                "username": username,
                "email": email,
                "password1": "una-clave-larga-9",
                "password2": "una-clave-larga-9",
            },
        )
        return first, client.get(first["Location"])

    taken, taken_page = sign_up("OLGA", "otra@example.com")  # olga's, in another case
    fresh, fresh_page = sign_up("nueva", "nueva@example.com")
    assert (taken.status_code, taken["Location"]) == (fresh.status_code, fresh["Location"])
    assert taken["Location"] == reverse("account_email_verification_sent")
    assert taken_page.status_code == fresh_page.status_code == 200
    assert b"otra@example.com" in taken_page.content  # the code page names the address
    assert "usuario" not in taken_page.content.decode().lower()
    assert get_user_model().objects.filter(username__iexact="olga").count() == 1
    assert not get_user_model().objects.filter(email="otra@example.com").exists()
    # The typed address is told (and only it); olga is not bothered.
    to_otra = [m for m in delivered() if "otra@example.com" in m.to]
    assert [m.subject for m in to_otra] == ["[Partida] Ese nombre de usuario ya está cogido"]
    assert "«OLGA»" in to_otra[0].body
    assert "http://testserver/cuentas/signup/" in to_otra[0].body
    assert not any("olga@example.com" in m.to for m in delivered())


def test_a_bad_username_is_still_refused_on_the_form(db):
    response = Client().post(
        reverse("signup"),
        {
            "username": "no válido!",
            "email": "nueva@example.com",
            "password1": "una-clave-larga-9",
            "password2": "una-clave-larga-9",
        },
    )
    assert response.status_code == 200
    assert response.context["form"].errors["username"]


def test_allauth_mails_go_through_the_outbox(outsider):
    verified(outsider)
    Client().post(reverse("password_reset"), {"email": "olga@example.com"})
    row = OutboxMessage.objects.get(recipient="olga@example.com")
    assert row.state == OutboxMessage.State.PENDING  # not sent inside the request's transaction
    assert row.topic == "account:password_reset_key"
    assert row.subject == "[Partida] Correo electrónico para restablecer contraseña"
    assert "/cuentas/password/reset/key/" in row.body_text
    sent = delivered()
    assert [m.to for m in sent] == [["olga@example.com"]]
    row.refresh_from_db()
    assert row.state == OutboxMessage.State.SENT


def test_password_reset_answers_alike_for_unknown_addresses(outsider):
    verified(outsider)
    known = Client().post(reverse("password_reset"), {"email": "olga@example.com"})
    unknown = Client().post(reverse("password_reset"), {"email": "nadie@example.com"})
    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"])
    assert known["Location"] == reverse("account_reset_password_done")
    assert "/cuentas/password/reset/key/" in delivered()[0].body
    assert all("/cuentas/password/reset/key/" not in m.body for m in delivered()[1:])


# --- finding 7: a password change or reset revokes tokens and other sessions -------------------


def test_a_password_change_revokes_tokens_and_signs_out_the_other_sessions(outsider):
    verified(outsider)
    key = token_create(user=outsider, name="bot").key
    here, elsewhere = Client(), Client()
    assert sign_in(here, "olga", "password").status_code == 302
    assert sign_in(elsewhere, "olga", "password").status_code == 302
    assert Client(HTTP_AUTHORIZATION=f"Token {key}").get(ME).status_code == 200

    response = here.post(
        reverse("account_change_password"),
        {"oldpassword": "password", "password1": "otra-clave-9x", "password2": "otra-clave-9x"},
    )
    assert response.status_code == 302

    answer = Client(HTTP_AUTHORIZATION=f"Token {key}").get(ME)
    assert answer.status_code == 401
    assert answer.json()["detail"] == "Este token ha sido revocado."
    assert ApiToken.objects.get(user=outsider).revoked_at is not None
    assert here.get(reverse("profile")).status_code == 200  # this session stays
    assert elsewhere.get(reverse("profile")).status_code == 302  # the other is signed out


def test_a_password_reset_revokes_tokens(outsider):
    verified(outsider)
    key = token_create(user=outsider, name="bot").key
    client = Client()
    client.post(reverse("password_reset"), {"email": "olga@example.com"})
    link = re.search(r"http://testserver(/cuentas/password/reset/key/\S+)", delivered()[0].body)
    form_url = client.get(link.group(1))["Location"]  # allauth hides the key from the URL
    response = client.post(form_url, {"password1": "otra-clave-9x", "password2": "otra-clave-9x"})
    assert response.status_code == 302
    assert Client(HTTP_AUTHORIZATION=f"Token {key}").get(ME).status_code == 401


def test_signing_in_revokes_nothing(outsider):
    verified(outsider)
    token_create(user=outsider, name="bot")
    sign_in(Client(), "olga", "password")  # saves last_login (and may re-hash the password)
    outsider.refresh_from_db()
    outsider.first_name = "Olga"
    outsider.save()
    assert ApiToken.objects.get(user=outsider).revoked_at is None


# --- finding 5: bad API tokens are rate-limited ---------------------------------------------


def test_bad_tokens_are_throttled_per_ip(outsider, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "bad_token": "10/min",
        },
    }
    good = token_create(user=outsider, name="bot").key
    attacker = {"REMOTE_ADDR": "203.0.113.7"}
    # The windows are fixed minutes: start 5 s into one (the next), so the requests below
    # cannot straddle two windows (a run that did saw its 11th attempt counted afresh).
    with time_machine.travel((time.time() // 60 + 1) * 60 + 5, tick=True):
        answers = [
            Client(HTTP_AUTHORIZATION=f"Token adivina-{n}", **attacker).get(ME).status_code
            for n in range(12)
        ]
        assert answers == [401] * 10 + [429] * 2
        # Past the limit even a right key from that address waits, without being looked up.
        response = Client(HTTP_AUTHORIZATION=f"Token {good}", **attacker).get(ME)
        assert response.status_code == 429
        assert 0 < int(response["Retry-After"]) <= 60
        assert ApiToken.objects.get(user=outsider).last_used is None
        # Another address is not affected.
        other = Client(HTTP_AUTHORIZATION=f"Token {good}", REMOTE_ADDR="198.51.100.1")
        assert other.get(ME).status_code == 200


# --- my data -----------------------------------------------------------------------------------


def _played(campaign, player_a, master) -> tuple[Character, Post]:
    character = CharacterFactory(
        campaign=campaign, player=player_a, name="Ana", status=Character.Status.APPROVED
    )
    scene = scenes.scene_create(
        campaign=campaign,
        master=master,
        title="La puerta",
        readers=Scene.Readers.PARTICIPANTS,
        participants=[character],
    )
    post = Post.objects.create(
        campaign=campaign,
        scene=scene,
        author=player_a,
        voice=Post.Voice.CHARACTER,
        character=character,
        speaker_name="Ana",
        body="Ana empuja la puerta.",
        idempotency_key="k1",
    )
    return character, post


def test_my_data_is_a_json_of_everything_mine(campaign, master, player_a, player_b,
                                               django_assert_num_queries):  # fmt: skip
    character, post = _played(campaign, player_a, master)
    _played(campaign, player_b, master)  # someone else's: not in alicia's file
    token_create(user=player_a, name="bot")
    client = Client()
    client.force_login(player_a)
    # user (the session is cached), then: e-mails, memberships, characters, posts, tokens
    with django_assert_num_queries(6):
        response = client.get(reverse("account_data"))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="partida-datos-')
    data = json.loads(response.content)
    assert data["profile"]["username"] == "alicia"
    assert data["profile"]["email"] == "alicia@example.com"
    assert data["memberships"] == [
        {
            "campaign": "la-campana",
            "campaign_name": "La Campaña",
            "role": "player",
            "joined_at": data["memberships"][0]["joined_at"],
        }
    ]
    assert [(c["id"], c["name"]) for c in data["characters"]] == [(character.pk, "Ana")]
    assert [(p["id"], p["body"], p["scene_title"]) for p in data["posts"]] == [
        (post.pk, "Ana empuja la puerta.", "La puerta")
    ]
    assert [t["name"] for t in data["api_tokens"]] == ["bot"]
    assert "key_hash" not in data["api_tokens"][0]


def test_my_data_needs_a_sign_in(db):
    response = Client().get(reverse("account_data"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


# --- deleting my account -------------------------------------------------------------------


def test_deleting_my_account_keeps_the_story_and_erases_me(campaign, master, player_a):
    verified(player_a)
    character, post = _played(campaign, player_a, master)
    token_create(user=player_a, name="bot")
    Draft.objects.create(user=player_a, scene=post.scene, body="a medias", idempotency_key="k2")
    client, elsewhere = Client(), Client()
    sign_in(client, "alicia", "password")
    sign_in(elsewhere, "alicia", "password")

    response = client.post(reverse("account_delete"), {"password": "password"})
    assert response.status_code == 302
    assert response["Location"] == reverse("mundo:campaign_list")

    user = get_user_model().objects.get(pk=player_a.pk)
    assert user.username == f"cuenta-borrada-{player_a.pk}"
    assert (user.email, user.is_active, user.has_usable_password()) == ("", False, False)
    assert not EmailAddress.objects.filter(user=user).exists()
    assert not ApiToken.objects.filter(user=user).exists()
    assert not Draft.objects.filter(user=user).exists()
    # The story stays: the character, the post and the membership, under the new name.
    assert Character.objects.get(pk=character.pk).player_id == user.pk
    assert Post.objects.get(pk=post.pk).body == "Ana empuja la puerta."
    assert Membership.objects.filter(user=user, campaign=campaign).exists()
    # Signed out everywhere, and nobody signs in as alicia any more.
    assert client.get(reverse("profile")).status_code == 302
    assert elsewhere.get(reverse("profile")).status_code == 302
    assert WRONG in sign_in(Client(), "alicia@example.com", "password").content.decode()


def test_deleting_needs_the_password(player_a):
    client = Client()
    client.force_login(player_a)
    response = client.post(reverse("account_delete"), {"password": "mala"})
    assert response.status_code == 200
    assert "Contraseña incorrecta." in response.content.decode()
    player_a.refresh_from_db()
    assert player_a.is_active and player_a.username == "alicia"


def test_the_only_master_of_a_campaign_with_players_cannot_delete(master, player_a):
    client = Client()
    client.force_login(master)
    response = client.post(reverse("account_delete"), {"password": "password"})
    assert response.status_code == 200
    assert (
        "Eres el único máster de «La Campaña», donde juegan otros: cédela"
        in response.content.decode()
    )
    master.refresh_from_db()
    assert master.is_active


def test_the_only_master_hands_the_campaign_over_then_deletes(campaign, master, player_a):
    client = Client()
    client.force_login(master)
    page = client.get(reverse("account_delete")).content.decode()
    hand_over_url = reverse("campaign_hand_over", args=[campaign.slug])
    assert f'href="{hand_over_url}"' in page
    assert "Cede cada una a otro miembro antes de borrar tu cuenta" in page

    form = client.get(hand_over_url)
    assert form.status_code == 200
    assert [c[0] for c in form.context["form"].fields["to_user"].choices] == [player_a.pk]
    response = client.post(hand_over_url, {"to_user": player_a.pk})
    assert response.status_code == 302
    assert response["Location"] == reverse("account_delete")
    roles = dict(Membership.objects.filter(campaign=campaign).values_list("user__username", "role"))
    assert roles == {"master": "player", "alicia": "master"}

    assert client.post(reverse("account_delete"), {"password": "password"}).status_code == 302
    master.refresh_from_db()
    assert not master.is_active


def test_a_campaign_is_handed_only_to_one_of_its_members(campaign, master, player_a, outsider):
    client = Client()
    client.force_login(master)
    url = reverse("campaign_hand_over", args=[campaign.slug])
    for bad in (outsider.pk, master.pk, "x"):
        response = client.post(url, {"to_user": bad})
        assert response.status_code == 200
        assert response.context["form"].errors["to_user"]
    assert Membership.objects.get(campaign=campaign, user=master).role == "master"


def test_only_a_master_sees_the_hand_over_page(campaign, master, player_a):
    client = Client()
    client.force_login(player_a)
    url = reverse("campaign_hand_over", args=[campaign.slug])
    assert client.get(url).status_code == 404
    assert client.post(url, {"to_user": player_a.pk}).status_code == 404
    assert Membership.objects.get(campaign=campaign, user=master).role == "master"


# --- e-mail change -----------------------------------------------------------------------------


def test_changing_my_email_asks_for_the_password_and_verifies_the_new_one(outsider):
    verified(outsider)
    client = Client()
    client.force_login(outsider)  # a session whose password was not typed here
    change = {"action_add": "", "email": "o2@example.com"}
    response = client.post(reverse("account_email"), change)
    assert response["Location"].startswith(reverse("account_reauthenticate"))
    assert not any("o2@example.com" in m.to for m in delivered())
    # The password again, and the change goes on where it stopped: a code to the new address.
    response = client.post(response["Location"], {"password": "password"})
    assert response["Location"] == reverse("account_email_verification_sent")
    response = client.post(response["Location"], {"code": code_from("o2@example.com")})
    assert response.status_code == 302
    outsider.refresh_from_db()
    assert outsider.email == "o2@example.com"
    assert list(EmailAddress.objects.filter(user=outsider).values_list("email", "verified")) == [
        ("o2@example.com", True)
    ]
    # The old address is told.
    assert any("olga@example.com" in m.to for m in delivered())


@pytest.mark.parametrize(
    "name", ["login", "logout", "signup", "password_reset", "account_email", "account_delete"]
)
def test_account_urls_live_under_cuentas(name):
    assert reverse(name).startswith("/cuentas/")


def test_sign_ups_are_limited_per_ip(db):
    def sign_up(n: int):
        return Client(REMOTE_ADDR="203.0.113.9").post(
            reverse("signup"),
            {
                "username": f"bot{n}",
                "email": f"bot{n}@example.com",
                "password1": "una-clave-larga-9",
                "password2": "una-clave-larga-9",
            },
        )

    assert [sign_up(n).status_code for n in range(10)] == [302] * 10
    refused = sign_up(10)
    assert refused.status_code == 429
    assert "Lo has intentado demasiadas veces en poco tiempo." in refused.content.decode()
    assert not get_user_model().objects.filter(username="bot10").exists()
    other = Client(REMOTE_ADDR="198.51.100.1").post(
        reverse("signup"),
        {
            "username": "persona",
            "email": "persona@example.com",
            "password1": "una-clave-larga-9",
            "password2": "una-clave-larga-9",
        },
    )
    assert other.status_code == 302
