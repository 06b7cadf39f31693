"""The campaign role is decided in one place (``mundo.access``), from membership alone, and the
access errors answer alike on every surface.

Cast (tests/conftest.py) plus two: ``root`` is a superuser who belongs to no campaign (the new
rule: no role by being superuser), ``former`` was a player whose membership was deleted (their
character stays, they read as an outsider).

| who       | role   | reads the private campaign | master pages | member actions |
|-----------|--------|----------------------------|--------------|----------------|
| master    | master | yes                        | yes          | yes            |
| player_a  | player | yes                        | 404          | yes            |
| outsider  | None   | 404                        | 404          | 404            |
| anonymous | None   | 404                        | 404          | 404            |
| root      | None   | 404                        | 404          | 404            |
| former    | None   | 404                        | 404          | 404            |

In a public campaign everyone reads; a non-member asking for a member action gets 403.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from rest_framework.test import APIClient

from mundo import access
from mundo.models import Membership
from nucleo.errors import Forbidden, NotFound, ServiceError
from nucleo.locks import LockOrderError, campaign_lock
from tests.factories import CharacterFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(cast, campaign):
    root = UserFactory(username="root", is_superuser=True, is_staff=True)
    former = UserFactory(username="fede")
    CharacterFactory(campaign=campaign, player=former, name="Fede")
    # A former member: the membership row is gone, the character stays.
    Membership.objects.create(campaign=campaign, user=former, role=Membership.Role.PLAYER)
    Membership.objects.filter(campaign=campaign, user=former).delete()
    return {**cast, "root": root, "former": former}


ROLES = {
    "master": ("master", True, True),
    "player_a": ("player", False, True),
    "outsider": (None, False, False),
    "anonymous": (None, False, False),
    "root": (None, False, False),
    "former": (None, False, False),
}


def user_of(people, who):
    return people[who] if people[who] is not None else AnonymousUser()


@pytest.mark.parametrize("who", list(ROLES))
def test_the_role_comes_from_membership_alone(people, campaign, who):
    role, is_master, is_member = ROLES[who]
    user = user_of(people, who)
    assert access.campaign_role(campaign, user) == role
    assert access.campaign_role(campaign.pk, user) == role
    viewer = access.viewer_for(campaign, user)
    assert (viewer.role, viewer.is_master, viewer.is_member) == (role, is_master, is_member)
    assert access.is_master(campaign, user) is is_master


def test_none_is_anonymous(campaign):
    assert access.campaign_role(campaign, None) is None
    viewer = access.viewer_for(campaign, None)
    assert viewer.user_id is None and not viewer.is_member


@pytest.mark.parametrize("who", list(ROLES))
def test_access_campaign_in_a_private_campaign(people, campaign, who):
    role, is_master, is_member = ROLES[who]
    user = user_of(people, who)
    if is_member:
        found, viewer = access.access_campaign(user, slug="la-campana")
        assert found == campaign and viewer.role == role
        found_by_pk, _viewer = access.access_campaign(user, pk=campaign.pk)
        assert found_by_pk == campaign
    else:
        with pytest.raises(NotFound):
            access.access_campaign(user, slug="la-campana")
    if is_master:
        assert access.access_campaign(user, slug="la-campana", master=True)[0] == campaign
    else:
        # Master pages do not reveal themselves: the same error as a missing campaign.
        with pytest.raises(NotFound):
            access.access_campaign(user, slug="la-campana", master=True)


@pytest.mark.parametrize("who", list(ROLES))
def test_a_public_campaign_reads_for_all_and_member_actions_are_forbidden(people, campaign, who):
    campaign.is_public = True
    campaign.save()
    role, _is_master, is_member = ROLES[who]
    user = user_of(people, who)
    assert access.access_campaign(user, slug="la-campana")[1].role == role
    if is_member:
        assert access.access_campaign(user, slug="la-campana", member=True)[0] == campaign
    else:
        with pytest.raises(Forbidden):
            access.access_campaign(user, slug="la-campana", member=True)


@pytest.mark.parametrize(
    "lookup",
    [
        {"slug": "no-such"},
        {"pk": 999_999},
        {"pk": "abc"},
        # A digit to str.isdigit that int() refuses, and an id past the database's integer.
        {"pk": "²"},
        {"pk": "99999999999999999999"},
        {"pk": -1},
    ],
)
def test_a_missing_campaign_is_not_found(master, lookup):
    with pytest.raises(NotFound):
        access.access_campaign(master, **lookup)


def test_campaigns_visible_to_has_no_superuser_rule(people, campaign):
    assert list(access.campaigns_visible_to(people["root"])) == []
    assert list(access.campaigns_visible_to(people["former"])) == []
    assert list(access.campaigns_visible_to(people["player_a"])) == [campaign]
    assert list(access.campaigns_visible_to(None)) == []
    assert list(access.campaigns_mastered_by(people["master"])) == [campaign]
    assert list(access.campaigns_mastered_by(people["player_a"])) == []


@pytest.mark.parametrize("who", list(ROLES))
def test_require_master_is_the_services_check(people, campaign, who):
    user = user_of(people, who)
    if ROLES[who][1]:
        access.require_master(campaign, user)
        return
    with pytest.raises(ServiceError) as excinfo:
        access.require_master(campaign, user, "Only the master may.")
    assert excinfo.value.messages == ["Only the master may."]


def test_lock_reads_under_the_campaign_lock(master, campaign):
    with pytest.raises(LockOrderError):
        access.access_campaign(master, slug="la-campana", lock=True)
    with campaign_lock(campaign.pk):
        found, viewer = access.access_campaign(master, slug="la-campana", lock=True)
    assert found == campaign and viewer.is_master


def test_the_queries_of_access_campaign(master, campaign, django_assert_num_queries):
    # 1: the campaign (visible to the user) with the user's role beside it.
    with django_assert_num_queries(1):
        access.access_campaign(master, slug="la-campana")
    # Anonymous: the campaign only.
    campaign.is_public = True
    campaign.save()
    with django_assert_num_queries(1):
        access.access_campaign(AnonymousUser(), slug="la-campana")
    # A master page: the same one query decides it.
    with django_assert_num_queries(1):
        access.access_campaign(master, slug="la-campana", master=True)


# --- one handler per surface ---------------------------------------------------------------------

# The CSRF token is masked afresh on every response: the only bytes allowed to differ.
_CSRF = re.compile(rb'(value="|"X-CSRFToken": ")[A-Za-z0-9]{32,}"')
_NONCE = re.compile(rb'nonce="[\w-]+"')  # the CSP nonce: new on every response


def _page_body(response, path: str) -> bytes:
    # The page echoes its own path (the language switch comes back to it): not a leak.
    body = _NONCE.sub(b'nonce=""', _CSRF.sub(rb"\1", response.content))
    return body.replace(path.encode(), b"<path>")


def test_a_page_answers_404_alike_for_hidden_and_missing(campaign, outsider):
    client = Client()
    client.force_login(outsider)
    hidden = client.get("/partidas/la-campana/")
    missing = client.get("/partidas/no-existe/")
    assert hidden.status_code == missing.status_code == 404
    assert _page_body(hidden, "/partidas/la-campana/") == _page_body(
        missing, "/partidas/no-existe/"
    )
    assert b"La Campa" not in hidden.content


def test_a_page_answers_403_for_forbidden(campaign, outsider):
    # A public campaign: the outsider reads it, but only members write sheets.
    campaign.is_public = True
    campaign.save()
    client = Client()
    client.force_login(outsider)
    assert client.get("/partidas/la-campana/").status_code == 200
    assert client.get("/partidas/la-campana/personajes/nuevo/").status_code == 403


def test_a_feed_answers_404_alike_for_hidden_and_missing(campaign, master):
    from tests.escenas.factories import SceneFactory

    # A public campaign: the campaign reads for anonymous, the members' scene does not.
    campaign.is_public = True
    campaign.save()
    scene = SceneFactory(campaign=campaign, readers="members")
    client = Client()
    hidden_url = f"/partidas/la-campana/escenas/{scene.pk}/feed/"
    missing_url = "/partidas/la-campana/escenas/999999/feed/"
    hidden, missing = client.get(hidden_url), client.get(missing_url)
    unknown_token = client.get(f"/feeds/no-such-token/partidas/la-campana/escenas/{scene.pk}/")
    assert hidden.status_code == missing.status_code == 404
    assert _page_body(hidden, hidden_url) == _page_body(missing, missing_url)
    assert unknown_token.status_code == 404


def test_the_api_answers_the_same_404_body_for_hidden_and_missing(campaign, outsider):
    client = APIClient()
    client.force_authenticate(outsider)
    hidden = client.get("/api/v1/campaigns/la-campana/")
    missing = client.get("/api/v1/campaigns/no-existe/")
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json() == missing.json()
    assert "detail" in hidden.json()
    hidden_scenes = client.get("/api/v1/campaigns/la-campana/scenes/")
    assert hidden_scenes.status_code == 404 and hidden_scenes.json() == missing.json()


def test_the_api_answers_403_with_the_message_for_forbidden(campaign, master, player_a):
    from escenas.access import access_scene
    from tests.escenas.factories import SceneFactory

    scene = SceneFactory(campaign=campaign, readers="members")
    # A player reads the scene but may not ask for rolls: 403 with the reason.
    client = APIClient()
    client.force_authenticate(player_a)
    response = client.post(f"/api/v1/scenes/{scene.pk}/roll-requests/", {}, format="json")
    assert response.status_code == 403
    assert response.json()["detail"] == "Sólo el máster de la partida puede hacer eso."
    assert access_scene(player_a, scene.pk, campaign=campaign).can_read
