"""The demo shows a forecast warning and links the rules page (issue 11 items 5, 8, 10)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from mundo.models import Campaign
from personajes.forecast import character_forecast
from personajes.models import Character
from tests.partida.test_demo import load_demo


@pytest.mark.django_db
def test_the_demo_shows_a_forecast_warning_and_the_rules_page():
    load_demo()
    campaign = Campaign.objects.get(slug="valle-gris")
    tomas = Character.objects.get(campaign=campaign, name="Tomás Vidal")
    forecast = character_forecast(tomas)
    # Tomás lives at San Roque, whose stash the demo's master topped up with 4 L of water
    # (partida.demo_places): food, not water, runs out first.
    assert forecast is not None and forecast.death_cause == "hunger"
    warning = f"Muerte por hambre el día {forecast.death_day} si nada cambia"
    master = Client()
    assert master.login(username="master", password="partida-master")
    page = master.get(campaign.get_absolute_url()).content.decode()
    assert "Quién está en peligro" in page and warning in page
    bruno = Client()
    assert bruno.login(username="bruno", password="partida-bruno")
    assert warning in bruno.get(tomas.get_absolute_url()).content.decode()
    rules_url = reverse("mundo:rules_read", args=[campaign.slug])
    assert f'href="{rules_url}"' in bruno.get(campaign.get_absolute_url()).content.decode()
    rules = bruno.get(rules_url)
    assert rules.status_code == 200 and 'id="R18"' in rules.content.decode()
