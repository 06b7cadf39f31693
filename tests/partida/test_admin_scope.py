"""The admin is the masters' too, scoped to the campaigns they master.

Cast: ``master`` runs ``campaign`` (A) and is NOT staff (a master signs in by mastering a
campaign); ``bea`` runs campaign B; ``root`` is a superuser who belongs to neither; ``alicia``
(player_a) plays in A and may not sign in. A and B each have a settlement, a place, a trait, an
item type, a character with an item, a scene with a post and a day tick, so every changelist has
rows of both campaigns to tell apart.
"""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.test import Client

from mundo.admin_scope import CAMPAIGN_PATHS, CampaignScopedAdmin
from mundo.models import Campaign, DayTick, Location, Membership
from personajes.models import Character
from tests.escenas.factories import PostFactory, SceneFactory
from tests.factories import (
    CampaignFactory,
    CharacterFactory,
    InventoryItemFactory,
    ItemTypeFactory,
    MembershipFactory,
    SettlementFactory,
    TraitFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def _world(campaign: Campaign, master) -> dict:
    settlement = SettlementFactory(campaign=campaign)
    place = Location.objects.create(
        settlement=settlement,
        name=f"Tienda {campaign.slug}",
        kind=Location.Kind.SHOP,
        shop_type="tienda",
    )
    character = CharacterFactory(campaign=campaign, settlement=settlement)
    InventoryItemFactory(character=character, item_type=ItemTypeFactory(campaign=campaign))
    TraitFactory(campaign=campaign)
    scene = SceneFactory(campaign=campaign)
    PostFactory(scene=scene, author=master)
    DayTick.objects.create(campaign=campaign, day=7, trigger=DayTick.Trigger.COMMAND)
    return {"settlement": settlement, "place": place, "character": character, "scene": scene}


@pytest.fixture
def two_worlds(campaign, master, player_a):
    other = CampaignFactory(name="Otra", slug="otra")
    bea = UserFactory(username="bea")
    MembershipFactory(campaign=other, user=bea, role=Membership.Role.MASTER)
    return {"a": _world(campaign, master), "b": _world(other, bea), "other": other}


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _scoped_admins():
    return [
        (model, model_admin)
        for model, model_admin in admin.site._registry.items()
        if isinstance(model_admin, CampaignScopedAdmin)
    ]


def _url(model, suffix: str) -> str:
    return f"/admin/{model._meta.app_label}/{model._meta.model_name}/{suffix}"


def test_every_campaign_model_is_scoped():
    scoped = {model for model, _admin in _scoped_admins()}
    names = {m._meta.label for m in scoped}
    # The campaign's own rows, in every app; user-owned rows (drafts, notification settings,
    # API tokens) stay superuser-only.
    assert {
        "mundo.Campaign", "mundo.Settlement", "mundo.Location", "mundo.Membership",
        "personajes.Character", "personajes.Roll", "personajes.InventoryItem",
        "escenas.Scene", "escenas.Post", "escenas.RollRequest",
    } <= names  # fmt: skip
    assert "escenas.Draft" not in names
    assert all(model in CAMPAIGN_PATHS for model in scoped)


def test_a_master_who_is_not_staff_signs_in(campaign, master):
    assert not master.is_staff
    client = Client()
    response = client.post(
        "/admin/login/?next=/admin/", {"username": "master", "password": "password"}
    )
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


def test_a_player_may_not_sign_in(campaign, player_a):
    client = Client()
    response = client.post("/admin/login/", {"username": "alicia", "password": "password"})
    assert response.status_code == 200  # the form again, with its error
    assert not response.context["form"].is_valid()
    assert client_for(player_a).get("/admin/").status_code == 302  # to the login page


def test_each_changelist_shows_a_master_only_their_campaigns_rows(two_worlds, master):
    client = client_for(master)
    for model, model_admin in _scoped_admins():
        response = client.get(_url(model, ""))
        assert response.status_code == 200, model
        rows = list(response.context["cl"].queryset)
        path = model_admin.campaign_path
        outside = model.objects.filter(pk__in=[r.pk for r in rows]).exclude(
            **{f"{path}__in": [two_worlds["a"]["settlement"].campaign_id]}
        )
        assert not outside.exists(), model
    # And the rows of A are there (not an empty scope).
    response = client.get(_url(Character, ""))
    assert [c.pk for c in response.context["cl"].queryset] == [two_worlds["a"]["character"].pk]


def test_a_superuser_sees_every_campaign_in_the_admin(two_worlds):
    root = UserFactory(username="root", is_staff=True, is_superuser=True)
    response = client_for(root).get(_url(Character, ""))
    assert {c.pk for c in response.context["cl"].queryset} == {
        two_worlds["a"]["character"].pk,
        two_worlds["b"]["character"].pk,
    }


def test_a_master_cannot_open_another_campaigns_rows(two_worlds, master):
    client = client_for(master)
    mine, theirs = two_worlds["a"], two_worlds["b"]
    assert client.get(_url(Character, f"{mine['character'].pk}/change/")).status_code == 200
    for key, model in [("character", Character), ("place", Location)]:
        for view in ("change/", "delete/", "history/"):
            assert client.get(_url(model, f"{theirs[key].pk}/{view}")).status_code == 404
    assert client.get(_url(Campaign, f"{two_worlds['other'].pk}/change/")).status_code == 404
    # The same answer as a row that does not exist.
    assert client.get(_url(Character, "999999/change/")).status_code == 404


def test_choice_lists_hold_only_the_masters_campaigns(two_worlds, master, campaign):
    client = client_for(master)
    form = client.get(_url(Location, "add/")).context["adminform"].form
    assert list(form.fields["settlement"].queryset) == [two_worlds["a"]["settlement"]]
    form = client.get(_url(Character, "add/")).context["adminform"].form
    assert list(form.fields["campaign"].queryset) == [campaign]
    assert two_worlds["b"]["settlement"] not in form.fields["settlement"].queryset
    # Users: the members of the master's campaigns only.
    assert "bea" not in {u.username for u in form.fields["player"].queryset}
    assert "alicia" in {u.username for u in form.fields["player"].queryset}


def test_actions_on_another_campaigns_rows_are_refused(two_worlds, master, campaign):
    client = client_for(master)
    other = two_worlds["other"]
    client.post(
        _url(Campaign, ""),
        {"action": "advance_campaigns", "_selected_action": [other.pk]},
    )
    assert Campaign.objects.get(pk=other.pk).current_day == 7
    theirs = two_worlds["b"]["place"]
    client.post(_url(Location, ""), {"action": "discover_shops", "_selected_action": [theirs.pk]})
    assert Location.objects.get(pk=theirs.pk).discovered_day is None
    client.post(
        _url(Character, ""),
        {"action": "delete_selected", "_selected_action": [two_worlds["b"]["character"].pk],
         "post": "yes"},
    )  # fmt: skip
    assert Character.objects.filter(pk=two_worlds["b"]["character"].pk).exists()
    # The master's own campaign advances from the admin.
    client.post(
        _url(Campaign, ""), {"action": "advance_campaigns", "_selected_action": [campaign.pk]}
    )
    assert Campaign.objects.get(pk=campaign.pk).current_day == 8


def test_a_master_may_not_add_a_campaign_in_the_admin(campaign, master):
    # A campaign made here would have no master; it is made on its page.
    assert client_for(master).get(_url(Campaign, "add/")).status_code == 403
