"""``manage.py cargar_demo``: the rulebook's campaign, loaded idempotently."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from mundo.models import Campaign, Membership, Settlement
from mundo.selectors import settlement_status


def load_demo() -> str:
    out = StringIO()
    call_command("cargar_demo", stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_demo_loads_the_rulebook_places_on_day_7():
    output = load_demo()
    campaign = Campaign.objects.get(slug="valle-gris")
    assert campaign.current_day == 7
    assert campaign.is_public
    village = Settlement.objects.get(campaign=campaign, slug="villarejo")
    town = Settlement.objects.get(campaign=campaign, slug="robledo")
    assert (settlement_status(village, 7).zombies, settlement_status(village, 7).survivors) == (
        170,
        30,
    )
    town_status = settlement_status(town, 7)
    assert (town_status.zombies, town_status.cells) == (150, 2500)
    assert town_status.p_cell == pytest.approx(0.06)
    # The logins are printed, and work.
    for username, password in [("master", "partida-master"), ("ana", "partida-ana")]:
        assert f"{username} / {password}" in output
        assert Client().login(username=username, password=password)
    assert Membership.objects.get(campaign=campaign, user__username="master").role == "master"


@pytest.mark.django_db
def test_loading_the_demo_twice_duplicates_nothing():
    load_demo()
    counts = (
        Campaign.objects.count(),
        Settlement.objects.count(),
        Membership.objects.count(),
        get_user_model().objects.count(),
    )
    campaign = Campaign.objects.get(slug="valle-gris")
    campaign.current_day = 9  # days played since are not rewound by a second load
    campaign.save()
    load_demo()
    assert (
        Campaign.objects.count(),
        Settlement.objects.count(),
        Membership.objects.count(),
        get_user_model().objects.count(),
    ) == counts
    assert Campaign.objects.get(slug="valle-gris").current_day == 9


@pytest.mark.django_db
def test_demo_campaign_page_is_public_and_shows_170_and_30():
    load_demo()
    html = Client().get("/partidas/valle-gris/").content.decode()
    assert '<td class="num zombies">170</td>' in html
    assert '<td class="num survivors">30</td>' in html
