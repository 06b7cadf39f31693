"""The master's world actions (R16–R18, R22, R23): services, ledger, refusals in Spanish.

Cast: ``master`` runs ``campaign`` (day 7); ``player_a`` plays there and may not act on the
world; ``outsider`` belongs to no campaign.
"""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from mundo import services
from mundo.models import Grid, Location, Settlement, WorldRoll
from nucleo.errors import ServiceError
from reglas.core import RollPurpose, make_rng
from reglas.search import roll_search
from reglas.supplies import SHOP_TYPES, roll_shop_supplies
from tests.factories import SettlementFactory
from tests.mundo.factories import LocationFactory, ShopFactory


@pytest.fixture(autouse=True)
def spanish():
    # Messages are checked in Spanish; a page test run earlier may leave another language
    # active in this thread (LocaleMiddleware does not deactivate).
    with translation.override("es"):
        yield


@pytest.fixture
def town(campaign):
    # R18's example town: 100 × 100 m, K = 173 → 150 zombies on day 7.
    return SettlementFactory(campaign=campaign, name="Robledo", population=173, area_m2=10_000)


def test_shop_types_follow_the_engine():
    from mundo.models import SHOP_TYPE_CHOICES

    assert [c for c, _ in SHOP_TYPE_CHOICES] == list(SHOP_TYPES)


def test_discovering_a_shop_rolls_its_stock_once_with_its_dice(master, town):
    shop = ShopFactory(settlement=town, shop_type="farmacia")
    roll = services.shop_discover(location=shop, user=master)
    shop.refresh_from_db()
    # The same key gives the same dice: the ledger can be checked against the engine.
    expected = roll_shop_supplies(
        "farmacia", 7, make_rng(town.campaign.entropy_int, roll.generator_key)
    )
    assert roll.generator_key == [7, RollPurpose.SHOP, shop.pk, 0]
    assert roll.dice[0] == expected.die
    assert shop.discovered_day == 7
    assert shop.stock_medicine_doses == expected.medicine_doses
    assert shop.stock_food_kcal == expected.food_kcal
    assert "d100 =" in roll.description
    with pytest.raises(ServiceError, match="ya se descubrió el día 7"):
        services.shop_discover(location=shop, user=master)
    assert WorldRoll.objects.filter(location=shop).count() == 1


def test_only_the_master_acts_on_the_world(player_a, town):
    shop = ShopFactory(settlement=town)
    with pytest.raises(ServiceError, match="Sólo el máster"):
        services.shop_discover(location=shop, user=player_a)
    shop.refresh_from_db()
    assert shop.discovered_day is None
    assert not WorldRoll.objects.exists()


def test_only_shops_are_discovered_and_dwellings_or_shops_searched(master, town):
    house = LocationFactory(settlement=town)
    well = LocationFactory(settlement=town, kind=Location.Kind.WATER_SOURCE)
    with pytest.raises(ServiceError, match="tienda"):
        services.shop_discover(location=house, user=master)
    with pytest.raises(ServiceError, match="vivienda"):
        services.location_search(location=well, user=master)


def test_searching_a_dwelling_stores_every_die_once(master, town):
    house = LocationFactory(settlement=town)
    roll = services.location_search(location=house, user=master)
    expected = roll_search(make_rng(town.campaign.entropy_int, roll.generator_key))
    assert roll.dice == list(expected.dice)
    assert roll.result["kind"] == expected.kind
    with pytest.raises(ServiceError, match="ya se registró"):
        services.location_search(location=house, user=master)


def test_route_check_uses_the_rulebook_cells_and_todays_zombies(master, town):
    normal = services.route_check(settlement=town, user=master, path_m=20, mode="normal")
    assert normal.result["cells_swept"] == 75  # RULES.md R18: 10 × 30 m / 4
    assert normal.result["zombies"] == 150
    assert normal.result["p_cell"] == pytest.approx(0.06)
    aggressive = services.route_check(settlement=town, user=master, path_m=20, mode="agresivo")
    assert aggressive.result["cells_swept"] == 200
    # Two checks of the same place on the same day get their own generator (sequence 0, 1).
    assert [normal.generator_key[3], aggressive.generator_key[3]] == [0, 1]


def test_route_check_counts_the_masters_tally(master, town):
    services.settlement_adjust(settlement=town, user=master, zombies_destroyed=100)
    roll = services.route_check(settlement=town, user=master, path_m=20)
    assert roll.result["zombies"] == 50


@pytest.mark.parametrize(
    ("path_m", "mode", "message"),
    [(-5, "normal", "negativa"), (float("inf"), "normal", "negativa"), (10, "volando", "Modo")],
)
def test_bad_route_is_refused_and_nothing_rolled(master, town, path_m, mode, message):
    with pytest.raises(ServiceError, match=message):
        services.route_check(settlement=town, user=master, path_m=path_m, mode=mode)
    assert not WorldRoll.objects.exists()


def test_restoring_power_or_water(master, campaign):
    grid = Grid.objects.create(campaign=campaign, power_on=False, power_cut_day=5)
    with pytest.raises(ServiceError, match="no está cortado"):
        services.utility_restore(grid=grid, user=master, water=True)
    with pytest.raises(ServiceError, match="Elige"):
        services.utility_restore(grid=grid, user=master)
    roll = services.utility_restore(grid=grid, user=master, power=True)
    grid.refresh_from_db()
    assert (grid.power_on, grid.power_cut_day) == (True, None)
    assert roll.kind == WorldRoll.Kind.RESTORE
    assert roll.dice == []


@pytest.mark.parametrize(
    ("values", "field", "message"),
    [
        ({"population": 200, "area_m2": 0}, "area_m2", "al menos una casilla"),
        ({"population": -1, "area_m2": 100}, "population", "al menos 1 habitante"),
        ({"population": 200, "area_m2": 100, "growth_rate": 0}, "growth_rate", "mayor que 0"),
    ],
)
def test_bad_settlement_is_refused_in_spanish(master, campaign, values, field, message):
    with pytest.raises(ServiceError) as excinfo:
        services.settlement_create(campaign=campaign, user=master, name="Nada", **values)
    assert message in " ".join(excinfo.value.message_dict[field])
    assert not Settlement.objects.filter(name="Nada").exists()


def test_settlement_tally_is_never_negative(master, town):
    with pytest.raises(ServiceError) as excinfo:
        services.settlement_adjust(settlement=town, user=master, survivors_rescued=-3)
    assert "negativo" in " ".join(excinfo.value.message_dict["survivors_rescued"])
    town.refresh_from_db()
    assert town.survivors_rescued == 0
    # A tally larger than the population clamps at 0 (R17: never below 0).
    services.settlement_adjust(settlement=town, user=master, survivors_rescued=500)
    from mundo.selectors import settlement_status

    assert settlement_status(town, 7).survivors == 0


def test_a_shop_needs_a_type_and_a_distance_cannot_be_negative(master, town):
    with pytest.raises(ServiceError, match="tipo de tienda"):
        services.location_create(settlement=town, user=master, name="X", kind="shop")
    with pytest.raises(ServiceError, match="negativa"):
        services.location_create(
            settlement=town, user=master, name="Y", kind="shelter", latrine_distance_m=-1
        )
    assert not Location.objects.exists()


# --- the master's world page ------------------------------------------------------------------


def client_for(user):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.parametrize(("who", "status"), [("master", 200), ("player_a", 404), ("outsider", 404)])
def test_world_page_is_the_masters(cast, campaign, who, status):
    url = reverse("mundo:world", kwargs={"slug": campaign.slug})
    assert client_for(cast[who]).get(url).status_code == status


def test_world_page_discovers_a_shop_and_shows_the_dice(master, town):
    shop = ShopFactory(settlement=town, name="Súper")
    client = client_for(master)
    url = reverse("mundo:world", kwargs={"slug": town.campaign.slug})
    response = client.post(url, {"action": "discover", "discover-location": shop.pk}, follow=True)
    assert response.status_code == 200
    html = response.content.decode()
    roll = WorldRoll.objects.get()
    assert f"[{roll.dice[0]}" in html
    assert "Súper" in html


def test_world_page_rerenders_a_refused_action_with_its_message(master, town):
    client = client_for(master)
    url = reverse("mundo:world", kwargs={"slug": town.campaign.slug})
    response = client.post(
        url,
        {
            "action": "route",
            "route-settlement": town.pk,
            "route-path_m": "-3",
            "route-mode": "normal",
        },
    )
    assert response.status_code == 400
    assert "no puede ser negativa" in response.content.decode()
    assert not WorldRoll.objects.exists()


def test_settlement_curve_shades_the_days_played(master, town):
    response = client_for(master).get(town.get_absolute_url())
    chart = response.context["chart"]
    assert chart.shaded_until_x is not None
    assert 'class="played"' in response.content.decode()
