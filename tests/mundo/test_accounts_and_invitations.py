"""Accounts (sign-up, sign-in, password reset), campaign creation and invitations.

Cast: ``master`` runs ``campaign``; ``outsider`` has an account but no campaign; anonymous
visitors have none.
"""

import datetime
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from mundo import services
from mundo.models import Campaign, Invitation, Membership
from tests.outbox import delivered


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def sign_up(client: Client, next_url: str = "", **fields) -> HttpResponse:
    data = {
        "username": "nuevo",
        "email": "nuevo@example.com",
        "password1": "una-clave-larga-9",
        "password2": "una-clave-larga-9",
        **fields,
    }
    if next_url:
        data["next"] = next_url
    return client.post(reverse("signup") + (f"?next={next_url}" if next_url else ""), data)


def type_the_code(client: Client, to: str = "nuevo@example.com") -> HttpResponse:
    """Type the verification code of the last mail sent to ``to`` on the page sign-up led to."""
    message = [m for m in delivered() if to in m.to][-1]
    code = re.search(r"^([A-Z0-9]{4}-[A-Z0-9]{4})$", message.body, re.M).group(1)
    return client.post(reverse("account_email_verification_sent"), {"code": code})


def test_an_invited_visitor_signs_up_verifies_the_code_and_joins(master, campaign):
    # The flow changed by design: sign-up now verifies the e-mail (a code typed in the same
    # tab) before signing in, and only then goes back to ``next``: the invitation.
    invitation = services.invitation_create(campaign=campaign, created_by=master)
    client = Client()
    response = sign_up(client, next_url=invitation.get_absolute_url())
    assert response.status_code == 302
    assert response["Location"] == reverse("account_email_verification_sent")
    user = get_user_model().objects.get(username="nuevo")
    assert "_auth_user_id" not in client.session  # not signed in before the code
    response = type_the_code(client)
    assert response.status_code == 302
    assert response["Location"] == invitation.get_absolute_url()
    assert client.session["_auth_user_id"] == str(user.pk)
    assert client.post(invitation.get_absolute_url()).status_code == 302
    assert Membership.objects.get(campaign=campaign, user=user).role == "player"


@pytest.mark.django_db
def test_a_wrong_code_signs_in_nobody():
    client = Client()
    sign_up(client)
    response = client.post(reverse("account_email_verification_sent"), {"code": "AAAA-AAAA"})
    assert response.status_code == 200
    assert "Código incorrecto." in response.content.decode()
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_sign_up_errors_are_spanish_and_nothing_is_saved():
    response = sign_up(Client(), username="x", email="no-es-correo", password1="a", password2="b")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Introduzca una dirección de correo electrónico válida." in html
    assert "La contraseña es demasiado corta." in html
    response = sign_up(Client(), username="x", password2="otra-clave-larga-9")
    assert "Debe escribir la misma contraseña cada vez." in response.content.decode()
    assert not get_user_model().objects.filter(username="x").exists()


@pytest.mark.django_db
def test_sign_up_refuses_an_open_redirect():
    client = Client()
    sign_up(client, next_url="https://evil.example/")
    response = type_the_code(client)
    assert response["Location"] == reverse("escenas:inbox")  # LOGIN_REDIRECT_URL: «Mi mesa»


def test_password_reset_sends_an_email(outsider):
    response = Client().post(reverse("password_reset"), {"email": outsider.email})
    assert response.status_code == 302
    assert len(delivered()) == 1
    assert outsider.email in delivered()[0].to


def test_sign_in_page_is_ours_and_spanish(db):
    html = Client().get(reverse("login")).content.decode()
    assert "Iniciar sesión" in html
    assert "¿Has olvidado tu contraseña?" in html


def test_any_signed_in_user_creates_a_campaign_and_becomes_its_master(outsider):
    response = client_for(outsider).post(
        reverse("mundo:campaign_create"),
        {
            "name": "Mi Partida",
            "apocalypse_date": "2026-10-01",
            "current_day": "0",
            "time_zone": "Europe/Madrid",
        },
    )
    campaign = Campaign.objects.get(name="Mi Partida")
    assert response.status_code == 302
    assert response["Location"] == campaign.get_absolute_url()
    assert campaign.slug == "mi-partida"
    assert Membership.objects.get(campaign=campaign, user=outsider).role == "master"


def test_a_campaign_named_nueva_gets_a_slug_whose_page_answers(outsider):
    # "nueva" is the new-campaign form's address: a campaign with that slug had no page.
    client = client_for(outsider)
    form = {"apocalypse_date": "2026-10-01", "current_day": "0", "time_zone": "Europe/Madrid"}
    response = client.post(reverse("mundo:campaign_create"), {"name": "Nueva", **form})
    campaign = Campaign.objects.get(name="Nueva")
    assert campaign.slug == "nueva-2"
    assert response["Location"] == "/partidas/nueva-2/"
    page = client.get(response["Location"])
    assert page.status_code == 200 and "Nueva" in page.content.decode()
    assert client.get("/partidas/nueva/").context["form"] is not None  # still the form


def test_the_reserved_slug_is_refused_where_a_slug_is_typed(campaign):
    campaign.slug = "nueva"
    with pytest.raises(ValidationError) as refused:
        campaign.full_clean()
    assert refused.value.error_dict["slug"][0].code == "reserved"
    assert "elige otro identificador" in refused.value.message_dict["slug"][0]


def test_campaign_creation_needs_a_login(db):
    response = Client().get(reverse("mundo:campaign_create"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_campaign_form_errors_rerender_and_save_nothing(outsider):
    response = client_for(outsider).post(
        reverse("mundo:campaign_create"),
        {"name": "", "apocalypse_date": "ayer", "current_day": "-1", "time_zone": "Marte/Base"},
    )
    assert response.status_code == 200
    form = response.context["form"]
    assert set(form.errors) >= {"name", "apocalypse_date", "current_day", "time_zone"}
    assert Campaign.objects.count() == 0


@pytest.mark.parametrize(("who", "status"), [("master", 200), ("player_a", 404), ("outsider", 404)])
def test_only_the_master_sees_the_invitation_page(cast, campaign, who, status):
    url = reverse("mundo:invitations", kwargs={"slug": campaign.slug})
    assert client_for(cast[who]).get(url).status_code == status


def test_anonymous_is_sent_to_sign_in_from_master_pages(campaign):
    url = reverse("mundo:invitations", kwargs={"slug": campaign.slug})
    assert Client().get(url).status_code == 302


def test_an_invitation_link_admits_a_player_once(master, campaign, outsider):
    invitation = services.invitation_create(campaign=campaign, created_by=master)
    client = client_for(outsider)
    assert client.get(invitation.get_absolute_url()).status_code == 200
    response = client.post(invitation.get_absolute_url())
    assert response.status_code == 302
    assert Membership.objects.get(campaign=campaign, user=outsider).role == "player"
    # Reused by someone else: refused with a clear message, nothing created.
    other = get_user_model().objects.create_user("otra", "otra@example.com", "x")
    response = client_for(other).post(invitation.get_absolute_url())
    assert response.status_code == 410
    assert "Esta invitación ya se ha usado." in response.content.decode()
    assert not Membership.objects.filter(user=other).exists()


def test_an_expired_invitation_is_refused(master, campaign, outsider):
    invitation = services.invitation_create(
        campaign=campaign, created_by=master, single_use=False, valid_days=2
    )
    Invitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - datetime.timedelta(minutes=1)
    )
    response = client_for(outsider).post(invitation.get_absolute_url())
    assert response.status_code == 410
    assert "Esta invitación ha caducado." in response.content.decode()
    assert not Membership.objects.filter(user=outsider).exists()


def test_a_reusable_invitation_admits_several_until_it_expires(master, campaign, outsider):
    invitation = services.invitation_create(
        campaign=campaign, created_by=master, single_use=False, valid_days=7
    )
    other = get_user_model().objects.create_user("otra", "otra@example.com", "x")
    for user in (outsider, other):
        services.invitation_accept(token=invitation.token, user=user)
    invitation.refresh_from_db()
    assert invitation.uses == 2


def test_a_revoked_invitation_is_refused(master, campaign, outsider):
    invitation = services.invitation_create(campaign=campaign, created_by=master)
    client_for(master).post(
        reverse("mundo:invitations", kwargs={"slug": campaign.slug}), {"revoke": invitation.token}
    )
    with pytest.raises(services.ServiceError, match="ha revocado"):
        services.invitation_accept(token=invitation.token, user=outsider)


def test_a_member_following_the_link_again_uses_nothing(master, campaign, player_a):
    invitation = services.invitation_create(campaign=campaign, created_by=master)
    membership = services.invitation_accept(token=invitation.token, user=player_a)
    assert membership.role == "player"
    invitation.refresh_from_db()
    assert invitation.uses == 0


def test_only_the_master_can_invite(campaign, player_a):
    with pytest.raises(services.ServiceError):
        services.invitation_create(campaign=campaign, created_by=player_a)


def test_a_reusable_invitation_needs_an_expiry(master, campaign):
    response = client_for(master).post(
        reverse("mundo:invitations", kwargs={"slug": campaign.slug}),
        {"kind": "reusable", "valid_days": ""},
    )
    assert response.status_code == 200
    assert "valid_days" in response.context["form"].errors
    assert not Invitation.objects.exists()


def test_anonymous_visitor_of_an_invitation_is_offered_sign_up(master, campaign):
    invitation = services.invitation_create(campaign=campaign, created_by=master)
    html = Client().get(invitation.get_absolute_url()).content.decode()
    assert reverse("signup") + "?next=" in html
    response = Client().post(invitation.get_absolute_url())
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_unknown_invitation_is_404(db):
    assert Client().get("/invitacion/nada/").status_code == 404
