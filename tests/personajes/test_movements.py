"""Supplies that move (issue 11 item 2): giving, the shelter's stash, a shop's stock, the history.

Cast: ``master`` runs ``campaign`` (day 7); ``player_a`` plays Ana and ``player_b`` Bruno, both
approved, living in the Polideportivo of Villarejo; Carla (player_b too) lives in Robledo.
Ana carries 3 cans and 2 L of water; the stash holds 1 L; the Ultramarinos of Villarejo is a
discovered shop with 1 200 kcal, 1 L and 0 rolls left.
"""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest
from django.db import connection, connections
from django.test import Client
from django.urls import reverse
from django.utils import translation

from mundo.models import Location
from nucleo.errors import ServiceError
from personajes import movements
from personajes.models import Character, InventoryItem, Movement, ShelterStash
from tests.factories import CharacterFactory, SettlementFactory
from tests.mundo.factories import ShelterFactory
from tests.partida.tick_helpers import give, item, stash

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def spanish():
    with translation.override("es"):
        yield


@pytest.fixture
def world(campaign, player_a, player_b):
    village = SettlementFactory(campaign=campaign, name="Villarejo")
    town = SettlementFactory(campaign=campaign, name="Robledo")
    home = ShelterFactory(settlement=village, name="Polideportivo")
    shop = Location.objects.create(
        settlement=village,
        name="Ultramarinos",
        kind=Location.Kind.SHOP,
        shop_type="tienda",
        discovered_day=6,
        stock_food_kcal=1200,
        stock_water_l=1,
        stock_toilet_paper_rolls=0,
    )
    approved = {"status": Character.Status.APPROVED, "shelter": home, "settlement": village}
    ana = CharacterFactory(campaign=campaign, player=player_a, name="Ana", **approved)
    bruno = CharacterFactory(campaign=campaign, player=player_b, name="Bruno", **approved)
    carla = CharacterFactory(
        campaign=campaign,
        player=player_b,
        name="Carla",
        status=Character.Status.APPROVED,
        settlement=town,
    )
    can = item(campaign, "food", name="Lata", kcal_per_unit=400.0)
    water = item(campaign, "water", name="Litro de agua")
    paper = item(campaign, "toilet_paper", name="Rollo")
    give(ana, can, 3)
    give(ana, water, 2)
    stash(home, water, 1)
    return {
        "home": home,
        "shop": shop,
        "ana": ana,
        "bruno": bruno,
        "carla": carla,
        "can": can,
        "water": water,
        "paper": paper,
    }


def held(character, item_type) -> Decimal:
    return (
        InventoryItem.objects.filter(character=character, item_type=item_type)
        .values_list("quantity", flat=True)
        .first()
    ) or Decimal(0)


def test_giving_moves_the_units_and_logs_who_why_and_when(world, player_a, campaign):
    ana, bruno, can = world["ana"], world["bruno"], world["can"]
    movement = movements.movement_give(
        character=ana, user=player_a, to_character_id=bruno.pk, item_type_id=can.pk, quantity="2"
    )
    assert (held(ana, can), held(bruno, can)) == (Decimal("1.000"), Decimal("2.000"))
    row = Movement.objects.get()
    assert row == movement
    assert (row.from_character, row.to_character, row.quantity, row.day) == (
        ana,
        bruno,
        Decimal("2.000"),
        7,
    )
    assert (row.reason, row.made_by, row.item_type) == ("give", player_a, can)
    # More than there is, another place, another player's character: refused, nothing moves.
    with pytest.raises(ServiceError, match="sólo hay 1"):
        movements.movement_give(
            character=ana,
            user=player_a,
            to_character_id=bruno.pk,
            item_type_id=can.pk,
            quantity=2,
        )
    with pytest.raises(ServiceError, match="mismo sitio"):
        movements.movement_give(
            character=ana,
            user=player_a,
            to_character_id=world["carla"].pk,
            item_type_id=can.pk,
            quantity=1,
        )
    with pytest.raises(ServiceError, match="jugador del personaje o el máster"):
        movements.movement_give(
            character=bruno,
            user=player_a,
            to_character_id=ana.pk,
            item_type_id=can.pk,
            quantity=1,
        )
    assert Movement.objects.count() == 1 and held(ana, can) == Decimal("1.000")


def test_the_stash_takes_and_gives_back(world, player_a, master):
    ana, water, home = world["ana"], world["water"], world["home"]
    movements.movement_stash(
        character=ana, user=player_a, item_type_id=water.pk, quantity="1,5", leave=True
    )
    assert held(ana, water) == Decimal("0.500")
    assert ShelterStash.objects.get(shelter=home, item_type=water).quantity == Decimal("2.500")
    movements.movement_stash(
        character=ana, user=master, item_type_id=water.pk, quantity=2, leave=False
    )
    assert held(ana, water) == Decimal("2.500")
    reasons = list(Movement.objects.order_by("id").values_list("reason", "to_place", "from_place"))
    assert reasons == [("stash_leave", home.pk, None), ("stash_take", None, home.pk)]
    with pytest.raises(ServiceError, match=r"sólo hay 0\.5;"):
        movements.movement_stash(
            character=ana, user=player_a, item_type_id=water.pk, quantity=1, leave=False
        )


def test_a_shop_gives_its_stock_until_none_is_left(world, player_a):
    ana, shop, can, water, paper = (world[k] for k in ("ana", "shop", "can", "water", "paper"))
    movements.movement_shop_take(
        character=ana, user=player_a, place_id=shop.pk, item_type_id=can.pk, quantity=3
    )
    shop.refresh_from_db()
    assert (shop.stock_food_kcal, held(ana, can)) == (0, Decimal("6.000"))  # 3 × 400 kcal
    with pytest.raises(ServiceError, match="Lata: ya no queda"):
        movements.movement_shop_take(
            character=ana, user=player_a, place_id=shop.pk, item_type_id=can.pk, quantity=1
        )
    with pytest.raises(ServiceError, match="Rollo: ya no queda"):
        movements.movement_shop_take(
            character=ana, user=player_a, place_id=shop.pk, item_type_id=paper.pk, quantity=1
        )
    movements.movement_shop_take(
        character=ana, user=player_a, place_id=shop.pk, item_type_id=water.pk, quantity=1
    )
    shop.refresh_from_db()
    assert shop.stock_water_l == 0
    assert list(Movement.objects.filter(from_place=shop).values_list("quantity", flat=True)) == [
        Decimal("1.000"),
        Decimal("3.000"),
    ]


def test_the_sheet_lists_the_history_and_its_forms_move(world, player_a, master):
    ana = world["ana"]
    client = Client()
    client.force_login(player_a)
    url = reverse("personajes:supplies", kwargs={"pk": ana.pk})
    response = client.post(
        url, {"action": "take", "item_type": world["water"].pk, "quantity": "0,5"}
    )
    assert response.status_code == 302
    assert held(ana, world["water"]) == Decimal("2.500")
    page = client.get(ana.get_absolute_url()).content.decode()
    assert "Dar a alguien de aquí" in page and "Coger de la despensa de Polideportivo" in page
    assert "tomado de la despensa" in page
    # A refusal comes back as a message, never a 500.
    bad = client.post(url, {"action": "take", "item_type": world["water"].pk, "quantity": "x"})
    assert bad.status_code == 302
    assert "mayor que cero" in client.get(ana.get_absolute_url()).content.decode()
    assert client.post(url, {"action": "nada"}).status_code == 404


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_takes_of_the_last_unit_one_succeeds(world, player_a, player_b):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite has no row locks and runs one writer at a time")
    shop = world["shop"]
    Location.objects.filter(pk=shop.pk).update(stock_water_l=1)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def take(character, user):
        try:
            barrier.wait()
            movements.movement_shop_take(
                character=character,
                user=user,
                place_id=shop.pk,
                item_type_id=world["water"].pk,
                quantity=1,
            )
            outcomes.append("ok")
        except ServiceError as exc:
            outcomes.append(" ".join(exc.messages))
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=take, args=(world["ana"], player_a)),
        threading.Thread(target=take, args=(world["bruno"], player_b)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["Litro de agua: ya no queda.", "ok"]
    shop.refresh_from_db()
    assert shop.stock_water_l == 0
    assert Movement.objects.filter(from_place=shop).count() == 1


def test_the_masters_give_and_take_are_movements_too(world, master):
    from personajes.inventory import inventory_add, inventory_remove

    ana, paper = world["ana"], world["paper"]
    inventory_add(character=ana, item_type=paper, quantity="0,5", user=master)
    inventory_remove(character=ana, item_type=paper, quantity="0.2", user=master)
    assert held(ana, paper) == Decimal("0.300")
    rows = Movement.objects.order_by("id").values_list(
        "reason", "quantity", "to_character", "from_character", "made_by", "day"
    )
    assert list(rows) == [
        ("master_give", Decimal("0.500"), ana.pk, None, master.pk, 7),
        ("master_take", Decimal("0.200"), None, ana.pk, master.pk, 7),
    ]


def test_a_searchs_weapons_can_be_taken_one_by_one_as_combat_weapons(
    world, player_a, player_b, campaign
):
    from mundo.models import WorldRoll

    house = Location.objects.create(
        settlement=world["home"].settlement,
        name="Casa del guarda",
        kind=Location.Kind.DWELLING,
        searched_day=7,
    )
    WorldRoll.objects.create(
        campaign=campaign,
        day=7,
        kind=WorldRoll.Kind.SEARCH,
        settlement=house.settlement,
        location=house,
        generator_key=[7, 0, house.pk, 0],
        engine_version="test",
        dice=[90, 2, 2],
        result={"kind": "weapons", "subtype": "one_handed_firearms", "quantity": 2},
    )
    assert movements.finds_left(house) == ("one_handed_firearms", 2)
    for character, user in ((world["ana"], player_a), (world["bruno"], player_b)):
        movements.movement_find_take(character=character, user=user, place_id=house.pk)
    with pytest.raises(ServiceError, match="Casa del guarda: ya no quedan armas"):
        movements.movement_find_take(character=world["ana"], user=player_a, place_id=house.pk)
    # The combat table's pistol (R19), one each, the same catalogue item.
    ana_pistol, bruno_pistol = (
        InventoryItem.objects.select_related("item_type").get(
            character=world[who], item_type__name="Pistola 9 mm"
        )
        for who in ("ana", "bruno")
    )
    assert ana_pistol.item_type == bruno_pistol.item_type
    assert (ana_pistol.quantity, bruno_pistol.quantity) == (Decimal("1.000"), Decimal("1.000"))
    pistol = ana_pistol.item_type
    assert (pistol.kind, pistol.weapon_kind, pistol.caliber) == (
        "weapon",
        "firearm_one_handed",
        "9mm",
    )
    assert movements.finds_left(house) == ("one_handed_firearms", 0)
    # Another settlement's character cannot take from here.
    with pytest.raises(ServiceError, match="lugar registrado"):
        movements.movement_find_take(character=world["carla"], user=player_b, place_id=house.pk)
