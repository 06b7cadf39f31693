"""The campaign and settlement pages: real figures (R17, R18), visibility, Spanish, queries.

Who sees what: a public campaign is readable by everyone, anonymous included; a private one
only by its members — others (a superuser who is not a member too) get 404, which does not
reveal that it exists.
"""

import pytest
from django.test import Client
from django.urls import reverse

from mundo.world_page import PAGE_SIZE
from tests.factories import CampaignFactory, SettlementFactory


@pytest.fixture
def village(campaign):
    # The rulebook's village: K = 200 → on day 7, 170 zombies and 30 survivors (R17).
    return SettlementFactory(
        campaign=campaign, name="Villarejo", slug="villarejo", population=200, area_m2=160_000
    )


@pytest.fixture
def town(campaign):
    # The rulebook's 100 × 100 m town: 150 zombies on day 7 → 2500 cells, 6 % (R18).
    return SettlementFactory(
        campaign=campaign, name="Robledo", slug="robledo", population=173, area_m2=10_000
    )


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_campaign_page_shows_todays_population_and_p_per_cell(master, village, town):
    response = client_for(master).get(village.campaign.get_absolute_url())
    assert response.status_code == 200
    rows = {s.settlement.slug: s for s in response.context["statuses"]}
    assert (rows["villarejo"].zombies, rows["villarejo"].survivors) == (170, 30)
    assert rows["robledo"].zombies == 150
    assert rows["robledo"].cells == 2500
    assert rows["robledo"].p_cell == pytest.approx(0.06)
    html = response.content.decode()
    assert '<td class="num zombies">170</td>' in html
    assert '<td class="num survivors">30</td>' in html
    assert "6,00&nbsp;%" in html  # Spanish decimal comma
    # The rows' links are made with one reverse for the page: each is the settlement's URL.
    urls = [url for _status, url in response.context["settlement_rows"]]
    assert urls == [s.settlement.get_absolute_url() for s in response.context["statuses"]]
    assert f'<a href="{village.get_absolute_url()}">' in html


def test_pages_speak_spanish_by_default(master, village):
    html = client_for(master).get(village.campaign.get_absolute_url()).content.decode()
    assert 'lang="es"' in html
    assert "Poblaciones" in html
    assert "Supervivientes" in html


def test_settlement_page_has_an_accessible_chart_and_the_numbers_as_a_table(master, village):
    response = client_for(master).get(village.get_absolute_url())
    assert response.status_code == 200
    html = response.content.decode()
    assert 'role="img"' in html
    assert 'aria-labelledby="chart-title chart-desc"' in html
    assert '<title id="chart-title">' in html
    # The description states today's figures in words.
    assert "170 zombis y 30 supervivientes" in html
    rows = response.context["rows"]
    assert [day for day, _pop in rows] == list(range(31))
    day7 = dict(rows)[7]
    assert (day7.zombies, day7.survivors) == (170, 30)
    assert 'aria-current="date"' in html  # today is marked in the table
    assert response.context["chart"].marker_x is not None  # and on the chart


@pytest.mark.parametrize(
    ("who", "status"),
    [("master", 200), ("player_a", 200), ("player_b", 200), ("outsider", 404), ("anonymous", 404)],
)
def test_private_campaign_is_readable_by_members_only(cast, village, who, status):
    client = client_for(cast[who])
    assert client.get(village.campaign.get_absolute_url()).status_code == status
    assert client.get(village.get_absolute_url()).status_code == status


@pytest.mark.parametrize("who", ["master", "player_a", "outsider", "anonymous"])
def test_public_campaign_is_readable_by_everyone(cast, who):
    public = CampaignFactory(slug="abierta", is_public=True)
    place = SettlementFactory(campaign=public, slug="aldea")
    client = client_for(cast[who])
    assert client.get(public.get_absolute_url()).status_code == 200
    assert client.get(place.get_absolute_url()).status_code == 200


def test_campaign_list_shows_only_readable_campaigns(cast, campaign):
    CampaignFactory(name="Pública", slug="publica", is_public=True)
    CampaignFactory(name="Secreta", slug="secreta", is_public=False)
    index = reverse("mundo:campaign_list")
    anonymous = client_for(None).get(index).content.decode()
    assert "Pública" in anonymous
    assert "Secreta" not in anonymous
    assert campaign.name not in anonymous
    member = client_for(cast["player_a"]).get(index).content.decode()
    assert "Pública" in member
    assert campaign.name in member
    assert "Secreta" not in member


def test_unknown_settlement_is_404(master, campaign):
    url = reverse("mundo:settlement", kwargs={"slug": campaign.slug, "settlement": "nada"})
    assert client_for(master).get(url).status_code == 404


def test_campaign_page_queries_do_not_grow_with_settlements(
    master, campaign, django_assert_num_queries
):
    client = client_for(master)
    SettlementFactory(campaign=campaign)
    # user (session cached), campaign (visibility, with the role in the same query), settlements
    # (a page of them by name: their count, the page),
    # approved characters with their players (personajes' {% approved_characters %} tag: their
    # count, and a page of them when there are any: none here),
    # today's weather records and the grids with their settlements (mundo.selectors.world_on:
    # 2 queries for any number), and for the master the pending list (escenas' {% master_pending
    # %} tag: submitted sheets with their players, rolls waiting for a threshold, roll requests,
    # join requests; its danger items
    # are the danger list's forecasts, read once), and the danger list (personajes'
    # {% campaign_forecasts %} tag: the living characters; none here). With characters:
    # tests/escenas/test_pending.py pins 17, whatever their number.
    with django_assert_num_queries(12):
        client.get(campaign.get_absolute_url())
    SettlementFactory.create_batch(PAGE_SIZE + 5, campaign=campaign)
    with django_assert_num_queries(12):
        response = client.get(campaign.get_absolute_url())
    assert len(response.context["statuses"]) == PAGE_SIZE
    response = client.get(campaign.get_absolute_url(), {"page": 2})
    assert len(response.context["statuses"]) == 6
    assert "página 2 de 2" in response.content.decode()


def test_spanish_even_for_an_english_browser_until_english_is_chosen(master, village):
    client = client_for(master)
    url = village.campaign.get_absolute_url()
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9").content.decode()
    assert "Supervivientes" in html
    client.post("/i18n/setlang/", {"language": "en", "next": url})
    html = client.get(url).content.decode()
    assert 'lang="en"' in html
    assert "Survivors" in html
