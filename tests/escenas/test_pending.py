"""The master's pending list (issue 11 item 6): characters in danger, sheets submitted and
requests to enter a scene, from one selector (``escenas.pending.master_pending_items``, which
"Mi mesa" reuses), each one click from what deals with it; the campaign page shows it in as
many queries with one character as with many.

Cast (tests/conftest.py): ``master`` runs ``campaign`` (day 7); ``player_a`` plays Zoe (1.5 L
of water: thirsty tomorrow), Aitana (supplied for ten days: fine) and Bea (a sheet submitted);
``player_b`` plays Bruno, who asks to enter “El sótano”; ``outsider`` belongs to no campaign.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from escenas.models import JoinRequest
from escenas.pending import PendingItem, master_pending_items
from mundo.access import access_campaign
from mundo.models import Campaign
from personajes.forecast import character_forecast
from personajes.models import Character, ItemType
from tests.escenas.factories import SceneFactory
from tests.factories import CharacterFactory, SettlementFactory
from tests.partida.tick_helpers import give, good_shelter, item, survivor

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def spanish():
    with translation.override("es"):
        yield


def _thirsty(campaign, **fields) -> Character:
    """Carries 1.5 L of water and ten days of food: thirsty tomorrow (R6)."""
    pc = survivor(campaign, water=False, **fields)
    give(pc, item(campaign, ItemType.Kind.WATER), 1.5)
    return pc


@pytest.fixture
def table(campaign, player_a, player_b):
    zoe = _thirsty(campaign, player=player_a, name="Zoe")
    aitana = survivor(campaign, player=player_a, name="Aitana")
    bea = CharacterFactory(
        campaign=campaign, player=player_a, name="Bea", status=Character.Status.SUBMITTED
    )
    bruno = survivor(campaign, player=player_b, name="Bruno")
    cellar = SceneFactory(campaign=campaign, title="El sótano")
    asked = JoinRequest.objects.create(scene=cellar, character=bruno, requested_by=player_b)
    return {
        "zoe": zoe,
        "aitana": aitana,
        "bea": bea,
        "bruno": bruno,
        "cellar": cellar,
        "asked": asked,
    }


def test_danger_then_sheets_then_joins_each_one_click_away(campaign, master, table):
    zoe, bea, bruno, cellar = table["zoe"], table["bea"], table["bruno"], table["cellar"]
    death = character_forecast(zoe).death_day
    items = master_pending_items(campaign, user=master)
    assert [(i.kind, i.character) for i in items] == [
        ("danger", zoe),
        ("sheet", bea),
        ("join", bruno),
    ]
    danger, sheet, join = items
    assert danger == PendingItem(
        "danger",
        f"Zoe: Sed mañana; Muerte por sed el día {death} si nada cambia",
        reverse("mundo:world", kwargs={"slug": campaign.slug})
        + f"?give={zoe.pk}&kind=water&open=supplies#give",
        "Darle agua",
        character=zoe,
        key=f"danger-{zoe.pk}-{campaign.current_day}",
    )
    assert (sheet.label, sheet.url, sheet.link_text) == (
        "Hoja de Bea (alicia) esperando tu revisión",
        reverse("personajes:review", kwargs={"pk": bea.pk}),
        "Revisar",
    )
    assert join.label == "Bruno (bruno) pide entrar en «El sótano»"
    assert join.scene == cellar and join.url == cellar.get_absolute_url()
    assert join.action_url == reverse(
        "escenas:join_decide", kwargs={"slug": campaign.slug, "pk": table["asked"].pk}
    )


def test_only_the_master_has_pending_items(campaign, table, player_a, outsider):
    from django.contrib.auth.models import AnonymousUser

    for user in (player_a, outsider, AnonymousUser(), None):
        assert master_pending_items(campaign, user=user) == []
    # A campaign read by access_campaign for the player carries the player's role: still none.
    as_player = access_campaign(player_a, slug=campaign.slug)[0]
    assert master_pending_items(as_player, user=player_a) == []


def test_high_odds_of_falling_ill_link_to_the_sheet(campaign, master):
    # Every season's base at 40 %: a supplied character is in danger by the odds alone (R10,
    # reglas.forecast.DANGER_DISEASE_P = 25 %), which no give fixes: the link is its sheet.
    Campaign.objects.filter(pk=campaign.pk).update(
        rule_overrides={f"season_base_{s}": 40 for s in ("winter", "spring", "summer", "autumn")}
    )
    campaign.refresh_from_db()
    hugo = survivor(campaign, name="Hugo")
    (danger,) = master_pending_items(campaign, user=master)
    # Ten days of water: his death by thirst is foreseen, but far; the odds are the danger.
    assert danger.label == (
        f"Hugo: Muerte por sed el día {campaign.current_day + 12} si nada cambia; "
        "40 % de probabilidad de enfermar mañana"
    )
    assert (danger.url, danger.link_text) == (hugo.get_absolute_url(), "Ver la ficha")


def test_hungry_tomorrow_links_to_giving_food(campaign, master):
    hungry = survivor(campaign, name="Iker", food=False)
    give(hungry, item(campaign, ItemType.Kind.FOOD), 1)  # 500 kcal of 2000
    (danger,) = master_pending_items(campaign, user=master)
    assert danger.label.startswith("Iker: Hambre mañana")
    assert danger.url.endswith(f"?give={hungry.pk}&kind=food&open=supplies#give")
    assert danger.link_text == "Darle comida"


def test_the_campaign_page_lists_them_and_a_join_is_decided_there(campaign, master, table):
    client = Client()
    client.force_login(master)
    html = client.get(campaign.get_absolute_url()).content.decode()
    pending = html[html.index('id="pending"') : html.index('id="danger"')]
    assert "3 pendientes" in html
    assert pending.index("Zoe: Sed mañana") < pending.index("Hoja de Bea") < pending.index("Bruno")
    assert f"?give={table['zoe'].pk}&amp;kind=water&amp;open=supplies#give" in pending
    assert "Aitana" not in pending  # supplied: not in danger
    decide = reverse("escenas:join_decide", kwargs={"slug": campaign.slug, "pk": table["asked"].pk})
    assert f'action="{decide}"' in pending


def test_the_campaign_page_makes_as_many_queries_with_one_character_as_with_many(
    campaign, master, django_assert_num_queries
):
    client = Client()
    client.force_login(master)
    shelter = good_shelter(SettlementFactory(campaign=campaign))
    _thirsty(campaign, name="Zoe", shelter=shelter)
    # user (session cached), campaign with the role, settlements (a page and their count),
    # approved characters with their players (a page and their count), today's weather and the grids
    # (mundo.selectors.world_on), the forecasts read once for the danger table and the pending
    # list (characters, carried sums, stash sums, shelters, weather: personajes.forecast; the
    # stash and shelters ones only when someone has a shelter, as here), submitted sheets,
    # rolls waiting for a threshold, roll requests not answered, join requests
    # (escenas.pending.master_pending_batch). The role is not read again: the campaign comes
    # from access_campaign with it.
    with django_assert_num_queries(17):
        one = client.get(campaign.get_absolute_url())
    for n in range(9):
        _thirsty(campaign, name=f"Sed {n}", shelter=shelter)
    with django_assert_num_queries(17):
        many = client.get(campaign.get_absolute_url())
    assert one.content.decode().count('class="pending-danger"') == 1
    assert many.content.decode().count('class="pending-danger"') == 10
