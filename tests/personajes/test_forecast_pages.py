"""Foresight in the pages (issue 11 item 5): the sheet, the diary and the master's campaign
page show each character's forecast from what it carries and its stash; the campaign page lists
who is in danger first, in a fixed number of queries.

Cast (tests/conftest.py): ``master`` runs ``campaign``; ``player_a`` plays in it.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from personajes.forecast import campaign_forecasts, character_forecast
from personajes.models import ItemType
from tests.factories import SettlementFactory
from tests.partida.tick_helpers import give, good_shelter, item, stash, survivor

pytestmark = pytest.mark.django_db


def _thirsty(campaign, **fields):
    """Carries 1.5 L of water and 10 days of food: thirsty tomorrow."""
    pc = survivor(campaign, water=False, **fields)
    give(pc, item(campaign, ItemType.Kind.WATER), 1.5)
    return pc


def test_the_forecast_reads_carried_water_and_the_shared_stash(campaign):
    shelter = good_shelter(SettlementFactory(campaign=campaign))
    a = survivor(campaign, shelter=shelter, water=False, name="Ana")
    b = survivor(campaign, shelter=shelter, water=False, name="Bea")
    stash(shelter, item(campaign, ItemType.Kind.WATER), 6)
    give(a, item(campaign, ItemType.Kind.WATER), 1)
    fa = character_forecast(a)
    assert fa is not None
    assert fa.water_l == pytest.approx(4.0)  # 1 L carried + half of the 6 L stash
    assert fa.water_days == pytest.approx(2.0)
    fb = character_forecast(b)
    assert fb is not None and fb.water_l == pytest.approx(3.0)
    day = campaign.current_day
    assert fb.thirst_death_day == day + 1 + 3  # 2 L, 1 L (short), then three days without


def test_the_sheet_and_the_diary_show_the_warning(client, campaign, player_a):
    pc = _thirsty(campaign, player=player_a)
    client.force_login(player_a)
    sheet = client.get(pc.get_absolute_url()).content.decode()
    assert "Sed mañana" in sheet
    death = character_forecast(pc).death_day
    assert f"Muerte por sed el día {death} si nada cambia" in sheet
    response = client.get(reverse("escenas:diary", args=[campaign.slug, pc.pk]), follow=True)
    assert response.status_code == 200
    assert "Sed mañana" in response.content.decode()


def test_the_master_sees_who_is_in_danger_first(client, campaign, master):
    fine = survivor(campaign, name="Aitana")
    thirsty = _thirsty(campaign, name="Zoe")
    order = [cf.character.pk for cf in campaign_forecasts(campaign)]
    assert order == [thirsty.pk, fine.pk]
    client.force_login(master)
    html = client.get(campaign.get_absolute_url()).content.decode()
    section = html[html.index('id="danger"') :]
    assert section.index("Zoe") < section.index("Aitana")
    assert "en peligro" in section


def test_the_forecasts_take_five_queries_whatever_the_number(campaign, django_assert_num_queries):
    shelter = good_shelter(SettlementFactory(campaign=campaign))
    survivor(campaign, shelter=shelter)
    # characters, carried sums, stash sums, shelters, today's weather
    with django_assert_num_queries(5):
        one = campaign_forecasts(campaign)
    for _ in range(4):
        _thirsty(campaign, shelter=shelter)
    with django_assert_num_queries(5):
        many = campaign_forecasts(campaign)
    assert (len(one), len(many)) == (1, 5)


def test_a_forecast_is_kept_until_what_it_read_changes(campaign, django_assert_num_queries):
    pc = _thirsty(campaign)
    first = character_forecast(pc)
    assert first is not None and first.thirsty_tomorrow
    with django_assert_num_queries(0):  # kept (personajes.forecast.KeptForecast)
        assert character_forecast(pc) == first
    give(pc, item(campaign, ItemType.Kind.WATER, name="Garrafa"), 10)  # carried: fresh
    again = character_forecast(pc)
    assert again is not None and again.water_l == pytest.approx(first.water_l + 10)
    assert not again.thirsty_tomorrow


def test_a_kept_diary_page_goes_old_with_a_kept_forecast_it_showed(client, campaign, player_a):
    """The diary page re-rendered after a write the forecast did not read takes the kept
    forecast, and names its tables as its own reads (``table_writes.depend_on``): water given
    afterwards makes the page fresh, not a kept page with yesterday's warning."""
    from escenas.models import Scene

    pc = _thirsty(campaign, player=player_a)
    client.force_login(player_a)
    url = reverse("escenas:diary", args=[campaign.slug, pc.pk])
    assert "Sed mañana" in client.get(url, follow=True).content.decode()
    Scene.objects.filter(diary_character=pc).update(title="Diario de la sed")
    page = client.get(url, follow=True).content.decode()
    assert "Diario de la sed" in page and "Sed mañana" in page
    give(pc, item(campaign, ItemType.Kind.WATER, name="Garrafa"), 10)
    assert "Sed mañana" not in client.get(url, follow=True).content.decode()


def test_a_diary_page_kept_with_a_fresh_forecast_goes_old_with_what_it_read(
    client, campaign, player_a
):
    """The forecast read inside the page's first render keeps its own entry; the tables it
    read count for the page too (a nested ``table_writes.reading``)."""
    pc = _thirsty(campaign, player=player_a)
    client.force_login(player_a)
    url = reverse("escenas:diary", args=[campaign.slug, pc.pk])
    assert "Sed mañana" in client.get(url, follow=True).content.decode()
    give(pc, item(campaign, ItemType.Kind.WATER, name="Garrafa"), 10)
    assert "Sed mañana" not in client.get(url, follow=True).content.decode()
