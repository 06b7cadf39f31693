"""A new character's arrival and the sheet workflow's notices (issue 11 items 1 and 6).

Cast (tests/conftest.py): ``master`` runs ``campaign`` (day 7); ``player_a`` (alicia) submits
the sheet of Ana; ``player_b`` plays Bruno, approved and in no scene. The campaign has a
shelter in Villarejo, chosen as the default shelter, a story scene open to new characters
(«La gasolinera») and one that is not («El sótano»).
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from escenas import joining
from escenas.models import JoinRequest, NotificationPreference
from mundo import rules
from mundo.models import Arrival
from personajes import sheets
from personajes.models import Character, InventoryItem, ItemType, Movement
from tests.escenas.factories import SceneFactory
from tests.factories import CharacterFactory, ItemTypeFactory, SettlementFactory
from tests.mundo.factories import ShelterFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def spanish():
    with translation.override("es"):
        yield


@pytest.fixture
def world(campaign, master, player_a, player_b):
    for user, address in ((master, "m@example.org"), (player_a, "a@example.org")):
        user.email = address
        user.save(update_fields=["email"])
    shelter = ShelterFactory(settlement=SettlementFactory(campaign=campaign, name="Villarejo"))
    Arrival.objects.create(campaign=campaign, shelter=shelter)
    ana = CharacterFactory(
        campaign=campaign,
        player=player_a,
        name="Ana",
        status=Character.Status.DRAFT,
        allocation={"fuerza": 10},
    )
    bruno = CharacterFactory(
        campaign=campaign, player=player_b, name="Bruno", status=Character.Status.APPROVED
    )
    open_scene = SceneFactory(campaign=campaign, title="La gasolinera", open_to_new_characters=True)
    closed = SceneFactory(campaign=campaign, title="El sótano")
    return {"shelter": shelter, "ana": ana, "bruno": bruno, "open": open_scene, "closed": closed}


def _submit(character, player, captured):
    with captured(execute=True):
        sheets.sheet_save(character=character, user=player, allocation={"fuerza": 10}, submit=True)


def test_submitting_tells_the_master_and_lists_the_sheet_as_pending(
    world, master, player_a, campaign, mailoutbox, django_capture_on_commit_callbacks
):
    _submit(world["ana"], player_a, django_capture_on_commit_callbacks)
    assert [m.to for m in mailoutbox] == [["m@example.org"]]
    assert mailoutbox[0].subject == "[La Campaña] Hoja que revisar: Ana"
    assert f"/personajes/{world['ana'].pk}/revision/" in mailoutbox[0].body
    client = Client()
    client.force_login(master)
    page = client.get(campaign.get_absolute_url()).content.decode()
    # Ana's sheet, and Bruno (approved, carrying nothing) thirsty tomorrow: in danger.
    assert "2 pendientes" in page
    assert "Hoja de Ana (alicia) esperando tu revisión" in page
    assert "Bruno: Sed mañana" in page


def test_a_master_who_wants_no_mail_gets_none_but_still_sees_the_count(
    world, master, player_a, mailoutbox, django_capture_on_commit_callbacks
):
    NotificationPreference.objects.create(user=master, mode=NotificationPreference.Mode.NONE)
    _submit(world["ana"], player_a, django_capture_on_commit_callbacks)
    assert mailoutbox == []


def test_approval_gives_the_kit_the_shelter_and_the_open_scenes_and_tells_the_player(
    world, master, player_a, campaign, mailoutbox, django_capture_on_commit_callbacks
):
    can = ItemTypeFactory(
        campaign=campaign, name="Lata", kind=ItemType.Kind.FOOD, kcal_per_unit=400
    )
    ItemTypeFactory(
        campaign=campaign, name="Leche", kind=ItemType.Kind.FOOD, kcal_per_unit=600, perishable=True
    )
    _submit(world["ana"], player_a, django_capture_on_commit_callbacks)
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        ana = sheets.sheet_review(
            character=world["ana"], master=master, approve=True, comment="¡Bienvenida!"
        )
    carried = {
        i.item_type.name: i.quantity
        for i in InventoryItem.objects.filter(character=ana).select_related("item_type")
    }
    # 2 days × 2000 kcal = 10 cans of 400 kcal (the perishable milk is not a kit item); 2 × 2 L
    # = 4 bottles of 1 L, added to the catalogue; one toilet roll, added too.
    assert carried == {
        "Lata": Decimal("10.000"),
        "Agua embotellada (1 L)": Decimal("4.000"),
        "Rollo de papel higiénico": Decimal("1.000"),
    }
    assert can.pk in {i.item_type_id for i in InventoryItem.objects.filter(character=ana)}
    # Each kit line is a movement of the ledger (from nowhere, by the master who approved).
    arrived = Movement.objects.filter(to_character=ana).values_list("reason", "quantity", "made_by")
    assert sorted(arrived) == [
        ("arrival", Decimal("1.000"), master.pk),
        ("arrival", Decimal("4.000"), master.pk),
        ("arrival", Decimal("10.000"), master.pk),
    ]
    ana.refresh_from_db()
    assert ana.shelter == world["shelter"] and ana.settlement == world["shelter"].settlement
    assert list(ana.scenes.values_list("title", flat=True)) == ["La gasolinera"]
    (mail,) = mailoutbox
    assert mail.to == ["a@example.org"]
    assert mail.subject == "[La Campaña] Tu hoja Ana ha sido aprobada"
    assert "¡Bienvenida!" in mail.body and "10 × Lata" in mail.body
    assert "La gasolinera" in mail.body


def test_returning_a_sheet_tells_the_player_the_masters_comment_and_gives_nothing(
    world, master, player_a, mailoutbox, django_capture_on_commit_callbacks
):
    _submit(world["ana"], player_a, django_capture_on_commit_callbacks)
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        sheets.sheet_review(
            character=world["ana"], master=master, approve=False, comment="Falta el trasfondo."
        )
    (mail,) = mailoutbox
    assert mail.subject == "[La Campaña] Tu hoja Ana ha sido devuelta"
    assert "Falta el trasfondo." in mail.body
    assert not InventoryItem.objects.filter(character=world["ana"]).exists()
    assert not world["open"].participants.exists()


def test_the_kit_follows_the_campaigns_settings(world, master, player_a, campaign):
    rules.rule_settings_save(
        campaign=campaign,
        user=master,
        group="R15",
        values={"arrival_food_days": 0, "arrival_water_days": 3, "arrival_toilet_paper_rolls": 0.5},
    )
    world["ana"].refresh_from_db()
    sheets.sheet_save(character=world["ana"], user=player_a, allocation={"fuerza": 10}, submit=True)
    sheets.sheet_review(character=world["ana"], master=master, approve=True)
    carried = dict(
        InventoryItem.objects.filter(character=world["ana"]).values_list(
            "item_type__kind", "quantity"
        )
    )
    assert carried == {"water": Decimal("6.000"), "toilet_paper": Decimal("0.500")}


def test_a_player_who_cannot_post_is_told_why_and_may_ask_to_enter(
    world, master, player_b, campaign
):
    closed, bruno = world["closed"], world["bruno"]
    client = Client()
    client.force_login(player_b)
    page = client.get(closed.get_absolute_url()).content.decode()
    assert "Tu personaje no participa en esta escena" in page
    assert "Pedir entrar con Bruno" in page
    url = reverse("escenas:join_request", kwargs={"slug": campaign.slug, "pk": closed.pk})
    assert client.post(url, {"character": bruno.pk}).status_code == 302
    assert client.post(url, {"character": bruno.pk}).status_code == 302  # asked twice: one row
    (request,) = JoinRequest.objects.all()
    assert (request.character, request.status) == (bruno, JoinRequest.Status.PENDING)
    page = client.get(closed.get_absolute_url()).content.decode()
    assert "Bruno pidió entrar; el máster aún no ha contestado." in page
    # The master sees it in the pending list and lets Bruno in.
    master_client = Client()
    master_client.force_login(master)
    home = master_client.get(campaign.get_absolute_url()).content.decode()
    assert "Bruno (bruno) pide entrar en «El sótano»" in home
    decide = reverse("escenas:join_decide", kwargs={"slug": campaign.slug, "pk": request.pk})
    assert client.post(decide, {"decision": "accept"}).status_code == 404  # not the master
    assert master_client.post(decide, {"decision": "accept"}).status_code == 302
    request.refresh_from_db()
    assert request.status == JoinRequest.Status.ACCEPTED
    assert list(closed.participants.all()) == [bruno]
    page = client.get(closed.get_absolute_url()).content.decode()
    assert 'id="post-form"' in page and "Pedir entrar" not in page


def test_a_player_with_a_sheet_in_review_is_told_so(world, player_a, campaign):
    Character.objects.filter(pk=world["ana"].pk).update(status=Character.Status.SUBMITTED)
    block = joining.post_block(
        __import__("escenas.access", fromlist=["access_scene"]).access_scene(
            player_a, world["closed"].pk, campaign=campaign
        )
    )
    assert block is not None and block.can_ask == ()
    assert block.reason == "La hoja de tu personaje espera la aprobación del máster."


def test_the_rules_page_shows_the_kit_and_saves_the_default_shelter(world, master, campaign):
    other = ShelterFactory(settlement=world["shelter"].settlement, name="Nave")
    client = Client()
    client.force_login(master)
    url = reverse("mundo:rules", kwargs={"slug": campaign.slug})
    page = client.get(url).content.decode()
    assert "Comida: 2 días = 4000 kcal (a 2000 kcal al día)" in page
    assert "Agua: 2 días = 4 L (a 2 L al día)" in page
    response = client.post(url, {"action": "arrival", "arrival-shelter": other.pk})
    assert response.status_code == 302
    assert rules.arrival_shelter(campaign) == other
    bad = client.post(url, {"action": "arrival", "arrival-shelter": 999999})
    assert bad.status_code == 400
    assert rules.arrival_shelter(campaign) == other
