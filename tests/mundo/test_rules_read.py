"""The rules in the product (issue 11 item 8): R1–R25 for everyone in the campaign, with its
current numbers, the readings we chose and its tables; breakdowns link to its anchors.

Cast (tests/conftest.py): ``master`` runs ``campaign``; ``player_a`` plays in it.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from mundo.models import Campaign
from tests.factories import SettlementFactory

pytestmark = pytest.mark.django_db


def url(campaign: Campaign) -> str:
    return reverse("mundo:rules_read", args=[campaign.slug])


def test_a_player_reads_every_rule_with_the_campaigns_numbers(client, campaign, player_a):
    Campaign.objects.filter(pk=campaign.pk).update(
        rule_overrides={"daily_water_l": 3.0, "resistance_base": 60}
    )
    client.force_login(player_a)
    response = client.get(url(campaign))
    assert response.status_code == 200
    html = response.content.decode()
    for n in range(1, 26):
        assert f'id="R{n}"' in html
    # The campaign's numbers, not the defaults: 3 L a day, a quarter of it is 0,75 L.
    assert "3 L de agua" in html
    assert "0,75 L" in html
    assert "al 60 %" in html
    # The readings we chose.
    assert "el 50 % es nuestro" in html  # R12's base, said even when the campaign changed it
    assert "75" in html and "52" in html  # R18
    assert "dos contadores" in html  # R6
    # The tables (R19's calibers among them).
    assert 'id="table-combat"' in html and "9mm" in html


def test_the_rules_page_in_english(client, campaign, player_a):
    client.force_login(player_a)
    with translation.override("en"):
        html = client.get(url(campaign), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Percentile dice" in html or "Dados percentiles" in html


def test_breakdowns_link_to_the_rules_page(client, campaign, master):
    SettlementFactory(campaign=campaign)  # the population caption links R17
    client.force_login(master)
    html = client.get(campaign.get_absolute_url()).content.decode()
    assert f"{url(campaign)}#R17" in html
    assert f'href="{url(campaign)}"' in html
