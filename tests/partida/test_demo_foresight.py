"""The demo shows a forecast warning, the rules page, a stash the master stocked and a danger in
the master's pending list (issue 11 items 5, 6, 8, 10)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from mundo.models import Campaign
from personajes.forecast import character_forecast
from personajes.models import Character
from tests.partida.test_demo import load_demo
from tests.world_page import opened


@pytest.mark.django_db
def test_the_demo_shows_a_forecast_warning_and_the_rules_page():
    load_demo()
    campaign = Campaign.objects.get(slug="valle-gris")
    tomas = Character.objects.get(campaign=campaign, name="Tomás Vidal")
    forecast = character_forecast(tomas)
    # Tomás lives at San Roque, whose water the demo's master took away (found fouled,
    # partida.demo_places): he carries one 1.5 L bottle, short of tomorrow's 2 L (R6), and
    # then three days without water kill him on day 10 (7: 1.5 L, 8–10: none).
    assert forecast is not None and forecast.thirsty_tomorrow
    assert (forecast.death_cause, forecast.death_day) == ("thirst", 10)
    warning = "Muerte por sed el día 10 si nada cambia"
    master = Client()
    assert master.login(username="master", password="partida-master")
    page = master.get(campaign.get_absolute_url()).content.decode()
    assert "Quién está en peligro" in page and warning in page
    bruno = Client()
    assert bruno.login(username="bruno", password="partida-bruno")
    # bruno reads in English (the demo's reader preferences): the same warning in his language.
    english = "Death by thirst on day 10 if nothing changes"
    assert english in bruno.get(tomas.get_absolute_url()).content.decode()
    rules_url = reverse("mundo:rules_read", args=[campaign.slug])
    assert f'href="{rules_url}"' in bruno.get(campaign.get_absolute_url()).content.decode()
    rules = bruno.get(rules_url)
    assert rules.status_code == 200 and 'id="R18"' in rules.content.decode()


@pytest.mark.django_db
def test_the_demo_shows_a_stocked_stash_and_a_danger_in_the_pending_list():
    from escenas.pending import master_pending_items
    from mundo.models import Membership
    from personajes.models import Movement, ShelterStash

    load_demo()
    campaign = Campaign.objects.get(slug="valle-gris")
    master = Membership.objects.get(campaign=campaign, role="master").user
    (stocked,) = Movement.objects.filter(
        campaign=campaign, reason="master_give", to_place__isnull=False
    )
    assert (stocked.to_place.name, stocked.item_type.name, stocked.quantity) == (
        "Polideportivo municipal",
        "Rollo de papel higiénico",
        6,
    )
    assert stocked.from_place is None and stocked.from_character is None
    client = Client()
    assert client.login(username="master", password="partida-master")
    world = opened(client, reverse("mundo:world", args=[campaign.slug]))
    assert "el máster" in world[world.index('id="place-movements"') :]
    (fouled,) = Movement.objects.filter(campaign=campaign, reason="master_take")
    assert (fouled.from_place.name, fouled.item_type.name, fouled.to_place) == (
        "Iglesia de San Roque",
        "Botella de agua",
        None,
    )
    tomas = Character.objects.get(campaign=campaign, name="Tomás Vidal")
    items = master_pending_items(campaign, user=master)
    assert [(i.kind, i.character) for i in items if i.kind == "danger"] == [("danger", tomas)]
    # The thirst first; the odds of falling ill may follow, by the demo's random weather (R10).
    assert items[0].label.startswith(
        "Tomás Vidal: Sed mañana; Muerte por sed el día 10 si nada cambia"
    )
    assert items[0].link_text == "Darle agua"
    page = client.get(campaign.get_absolute_url()).content.decode()
    pending = page[page.index('id="pending"') : page.index('id="danger"')]
    assert items[0].label in pending and "Hoja de Elena Soto (carla)" in pending
    # The link opens the world page's give form set for Tomás and a bottle of water.
    fix = client.get(items[0].url.split("#")[0]).content.decode()
    assert f'<option value="{tomas.pk}" selected>Tomás Vidal</option>' in fix
    # Loading again stocks nothing more.
    paper = ShelterStash.objects.get(shelter=stocked.to_place, item_type=stocked.item_type)
    load_demo()
    assert (
        Movement.objects.filter(
            campaign=campaign, reason="master_give", to_place__isnull=False
        ).count()
        == 1
    )
    assert ShelterStash.objects.get(pk=paper.pk).quantity == paper.quantity
