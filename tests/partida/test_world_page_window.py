"""The world page is bounded (issue 14): settlements by page with a name filter, one chosen
settlement whose places, weather, grids, characters and form choices are shown, the forms
still accepting any row of the campaign; the same number of queries at 1 and many rows.

Cast: ``master`` runs ``campaign`` (day 7).
"""

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from mundo.models import Grid, Membership
from mundo.world_page import PAGE_SIZE, WINDOW
from personajes.models import Character, InventoryItem
from tests.factories import CharacterFactory, ItemTypeFactory, SettlementFactory
from tests.mundo.factories import LocationFactory, ShelterFactory, ShopFactory
from tests.world_page import opened

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def spanish():
    with translation.override("es"):
        yield


def _client(master):
    client = Client()
    client.force_login(master)
    return client


def _world(campaign, n, player):
    """``n`` settlements named Pueblo 000…, each with a shelter, a dwelling, a grid and two
    approved characters living there."""
    made = []
    for i in range(n):
        town = SettlementFactory(campaign=campaign, name=f"Pueblo {i:03}", slug=f"p-{i:03}")
        home = ShelterFactory(settlement=town, name=f"Refugio {i:03}")
        LocationFactory(settlement=town, name=f"Casa {i:03}")
        Grid.objects.create(campaign=campaign, settlement=town)
        for j in range(2):
            CharacterFactory(
                campaign=campaign,
                player=player,
                name=f"Vecino {i:03}-{j}",
                status=Character.Status.APPROVED,
                settlement=town,
                shelter=home,
            )
        made.append(town)
    ItemTypeFactory(campaign=campaign, name="Agua embotellada", kind="water")
    return made


def _options(html, name):
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S)
    assert select is not None, name
    return re.findall(r"<option[^>]*>([^<]*)</option>", select.group(1))


# The queries of each task section fetched alone (htmx, ``?open=<name>``), beside the page's
# own: the user (session cached), the campaign with the role, the settlements (their count,
# the page), then what the section shows. characters: the characters offered, the chosen
# settlement's places (one read for every place field), the latest moves; supplies: the
# characters, the items (one read for both item fields), the places, the places' movements;
# places: the places (the table and both place fields); routes: today's weather and the
# grids (mundo.selectors.world_on; the grid field offers the same rows); tallies: the
# settlements' status is the page's rows (no query); schedule: none.
SECTION_QUERIES = {
    "characters": 7,
    "supplies": 8,
    "places": 5,
    "routes": 6,
    "tallies": 4,
    "schedule": 4,
}


@pytest.mark.parametrize("n", [1, 3 * PAGE_SIZE])
def test_the_world_page_costs_the_same_queries_at_one_and_many_settlements(
    n, master, player_a, campaign, django_assert_num_queries, settings
):
    # The render's own count: the kept page (partida.world_views.world_page) off.
    settings.ESCENAS_VIEWER_PAGES = False
    _world(campaign, n, player_a)
    client = _client(master)
    url = reverse("mundo:world", kwargs={"slug": campaign.slug})
    client.get(url)
    # The page, its sections closed: the four above, today's weather and the grids, the
    # pending route checks (partida's {% pending_routes %}), the world rolls.
    with django_assert_num_queries(8):
        response = client.get(url)
    assert response.status_code == 200
    for section, queries in SECTION_QUERIES.items():
        with django_assert_num_queries(queries):
            response = client.get(url, {"open": section}, headers={"HX-Request": "true"})
        assert response.status_code == 200
        assert response.content.decode().startswith('<div class="task-body">')


def _tokens(html):
    return re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)


def _untokened(html):
    """The page with its per-request values taken out: the CSRF tokens (the forms' and the
    htmx header's) and the CSP nonces."""
    html = re.sub(r'"X-CSRFToken": "[^"]+"', "", html)
    html = re.sub(r'nonce="[^"]+"', "", html)
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)


def test_a_kept_world_page_is_the_render_with_this_requests_token_until_a_write(
    master, player_a, campaign, django_assert_num_queries
):
    towns = _world(campaign, 3, player_a)
    client = _client(master)
    url = reverse("mundo:world", kwargs={"slug": campaign.slug})
    first = client.get(url)
    # Kept: the user's query only (session cached), the same page apart from the token.
    with django_assert_num_queries(1):
        again = client.get(url)
    assert again.status_code == 200
    html, kept = first.content.decode(), again.content.decode()
    assert len(_tokens(kept)) == len(_tokens(html)) == 2  # signing out, the language
    assert "\x00" not in kept
    other = _client(master).get(url).content.decode()
    assert _tokens(other)[0] != _tokens(kept)[0]
    assert _untokened(kept) == _untokened(html)
    # A section fetched alone is kept the same way, under its own address.
    hx = {"HX-Request": "true"}
    section = client.get(url, {"open": "tallies"}, headers=hx).content.decode()
    with django_assert_num_queries(1):
        kept_section = client.get(url, {"open": "tallies"}, headers=hx).content.decode()
    assert len(_tokens(kept_section)) == len(_tokens(section)) == 3  # its three forms
    assert _untokened(kept_section) == _untokened(section)
    assert "<html" not in kept_section and "Pueblo 002" in kept_section
    # A write to a table the page read (any path: here an update()) makes it fresh.
    type(towns[0]).objects.filter(pk=towns[0].pk).update(name="Villa Nueva")
    assert "Villa Nueva" in client.get(url).content.decode()
    assert "Villa Nueva" in client.get(url, {"open": "tallies"}, headers=hx).content.decode()


def test_the_world_page_after_an_action_shows_its_message_once(master, player_a, campaign):
    towns = _world(campaign, 1, player_a)
    client = _client(master)
    url = reverse("mundo:world", kwargs={"slug": campaign.slug})
    client.get(url)
    response = client.post(
        reverse("world_control", args=[campaign.slug, "tally"]),
        {"tally-settlement": towns[0].pk, "tally-destroyed": 2, "tally-rescued": 0},
        follow=True,
    )
    assert response.status_code == 200
    # The page after the redirect, its tallies open, shows the message (rendered, not kept:
    # a message waited)…
    back = response.redirect_chain[-1][0]
    assert back == f"{url}?en={towns[0].pk}&open=tallies#tallies"
    shown = response.content.decode()
    assert '<ul class="messages" role="status">' in shown
    assert '<details class="task" id="tallies" open>' in shown
    # …and the next GET does not (a kept page never holds one), the tally shown.
    again = client.get(back.split("#")[0]).content.decode()
    assert '<ul class="messages"' not in again
    assert '<td class="num">2</td>' in again  # the tally's zombies destroyed


def test_the_world_page_shows_one_page_of_settlements_and_the_chosen_ones_rows(
    master, player_a, campaign
):
    towns = _world(campaign, PAGE_SIZE + 5, player_a)
    client = _client(master)
    url = reverse("mundo:world", kwargs={"slug": campaign.slug})
    html = opened(client, url)
    # The first page: PAGE_SIZE settlements in the tallies; the first is chosen.
    assert "Pueblo 000" in html and f"Pueblo {PAGE_SIZE - 1:03}" in html
    assert f"Pueblo {PAGE_SIZE:03}" not in html
    assert "Población: Pueblo 000" in html
    assert _options(html, "shelter-character") == ["— elige —", "Vecino 000-0", "Vecino 000-1"]
    assert _options(html, "transfer-to_place") == [
        "— el máster: se retira —",
        "Refugio 000 (refugio)",
    ]
    assert _options(html, "tally-settlement") == ["— elige —", "Pueblo 000"]
    assert len(_options(html, "move-settlement")) == PAGE_SIZE + 1
    assert "Casa 001" not in html
    # Page 2, another settlement chosen: its rows, the filter kept in the forms' URLs.
    last = towns[-1]
    html = opened(client, url, {"page": 2, "en": last.pk})
    assert f"Población: {last.name}" in html
    assert _options(html, "shelter-shelter") == [
        "— ninguno: a la intemperie —",
        "Refugio 024 (refugio)",
    ]
    assert f'mundo/control/give/?en={last.pk}"' in html
    assert "Pueblo 000" not in html.split('id="tallies"')[1].split("</table>")[0]


def test_the_name_filter_finds_a_settlement_on_any_page(master, player_a, campaign):
    _world(campaign, PAGE_SIZE + 5, player_a)
    client = _client(master)
    url = reverse("mundo:world", kwargs={"slug": campaign.slug})
    html = client.get(url, {"q": "pueblo 02"}).content.decode()
    assert "Población: Pueblo 020" in html
    assert "Pueblo 019" not in html
    html = client.get(url, {"q": "Nadaparecido"}).content.decode()
    assert "Ninguna población coincide con ese nombre." in html


def test_a_form_accepts_a_row_it_did_not_offer_and_comes_back_to_the_same_settlement(
    master, player_a, campaign
):
    towns = _world(campaign, 3, player_a)
    far = Character.objects.get(name="Vecino 002-1")
    water = campaign.item_types.get(name="Agua embotellada")
    client = _client(master)
    url = reverse("world_control", kwargs={"slug": campaign.slug, "action": "give"})
    # The page chose Pueblo 000; the character lives in Pueblo 002 (posted by hand).
    response = client.post(
        f"{url}?en={towns[0].pk}",
        {
            "give-character": far.pk,
            "give-direction": "give",
            "give-item_type": water.pk,
            "give-quantity": "2",
        },
    )
    world = reverse("mundo:world", kwargs={"slug": campaign.slug})
    assert response.status_code == 302
    assert response["Location"] == f"{world}?en={towns[0].pk}&open=supplies#supplies"
    assert InventoryItem.objects.get(character=far, item_type=water).quantity == 2
    # A character of no campaign row is refused with the field's message, the page's
    # settlement's choices offered again.
    response = client.post(
        f"{url}?en={towns[1].pk}",
        {
            "give-character": 999_999,
            "give-direction": "give",
            "give-item_type": water.pk,
            "give-quantity": "2",
        },
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert "Escoja una opción válida" in html
    assert _options(html, "give-character") == ["— elige —", "Vecino 001-0", "Vecino 001-1"]


@pytest.mark.parametrize("extra", [0, WINDOW])
def test_each_place_field_offers_its_kinds_of_the_chosen_settlements_places(
    extra, master, player_a, campaign
):
    # The settlement's places are read once and each field keeps its own kinds; with more
    # than WINDOW places (extra dwellings, named to sort last) each field reads its own.
    (town,) = _world(campaign, 1, player_a)
    ShopFactory(settlement=town, name="Tienda cerrada")
    ShopFactory(settlement=town, name="Tienda vista", discovered_day=3, searched_day=4)
    LocationFactory(settlement=town, name="Casa registrada", searched_day=2)
    for i in range(extra):
        LocationFactory(settlement=town, name=f"Zona {i:03}")
    html = opened(_client(master), reverse("mundo:world", kwargs={"slug": campaign.slug}))
    assert _options(html, "discover-location") == ["— elige —", "Tienda cerrada (tienda)"]
    assert _options(html, "search-location")[:3] == [
        "— elige —",
        "Casa 000 (vivienda)",
        "Tienda cerrada (tienda)",
    ]
    assert _options(html, "shelter-shelter") == [
        "— ninguno: a la intemperie —",
        "Refugio 000 (refugio)",
    ]
    assert _options(html, "transfer-from_place") == [
        "— el máster: suministros nuevos —",
        "Refugio 000 (refugio)",
        "Tienda cerrada (tienda)",
        "Tienda vista (tienda)",
    ]
    moves = _options(html, "move-location")
    assert moves[:4] == [
        "— la calle —",
        "Casa 000 (vivienda)",
        "Casa registrada (vivienda)",
        "Refugio 000 (refugio)",
    ]
    assert len(moves) == 1 + min(5 + extra, WINDOW)


def test_a_kept_world_page_is_not_served_once_the_master_is_no_longer_one(
    master, player_a, campaign
):
    _world(campaign, 1, player_a)
    client = _client(master)
    url = reverse("mundo:world", kwargs={"slug": campaign.slug})
    assert client.get(url).status_code == 200
    assert client.get(url).status_code == 200  # kept
    Membership.objects.filter(campaign=campaign, user=master).update(role="player")
    assert client.get(url).status_code == 404
