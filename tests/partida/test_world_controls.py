"""The master's world controls (issue 11 items 3 and 4): moving characters with the R18 route
check, their shelters (which the tick reads for the stash, R15), giving and taking, moving
stock between places, the settlements' tallies, and every undo.

Cast: ``master`` runs ``campaign`` (day 7, K = 200 → 170 zombies by the curve, R17);
``player_a`` plays Ana and ``player_b`` Bruno, both approved, living in the Polideportivo of
Villarejo. Robledo is a tiny town (400 m² = 100 cells, so p = 1 per cell: every cell swept
holds a zombie, which makes a route's outcome exact, R18); its Colegio is a shelter with 4 L
of water in its stash; its Ultramarinos a discovered shop with 1 200 kcal and 1 L.
"""

from __future__ import annotations

import re
import threading
from decimal import Decimal

import pytest
from django.db import connection, connections
from django.test import Client
from django.urls import reverse
from django.utils import translation

from mundo import tally
from mundo.models import DayTick, Location, Settlement, WorldRoll
from nucleo.errors import NotFound, ServiceError
from partida.tick import advance_day
from personajes import days, master_supplies, movements, places
from personajes.models import Character, CharacterMove, InventoryItem, Movement, ShelterStash
from tests.factories import CharacterFactory, SettlementFactory
from tests.mundo.factories import ShelterFactory
from tests.partida.tick_helpers import give, item, no_disease, stash
from tests.world_page import opened

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def spanish():
    with translation.override("es"):
        yield


@pytest.fixture
def world(campaign, player_a, player_b):
    village = SettlementFactory(campaign=campaign, name="Villarejo", slug="villarejo")
    town = SettlementFactory(campaign=campaign, name="Robledo", slug="robledo", area_m2=400.0)
    home = ShelterFactory(settlement=village, name="Polideportivo")
    school = ShelterFactory(settlement=town, name="Colegio")
    shop = Location.objects.create(
        settlement=town,
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
    water = item(campaign, "water", name="Litro de agua")
    can = item(campaign, "food", name="Lata", kcal_per_unit=400.0)
    stash(school, water, 4)
    return {
        "village": village,
        "town": town,
        "home": home,
        "school": school,
        "shop": shop,
        "ana": ana,
        "bruno": bruno,
        "water": water,
        "can": can,
    }


def units(model, item_type, **holder) -> Decimal:
    row = model.objects.filter(item_type=item_type, **holder).first()
    return row.quantity if row else Decimal(0)


# --- moves (item 3) ----------------------------------------------------------------------------


def test_a_group_moves_with_one_route_check_and_its_zombies_wait(world, campaign, master):
    ana, bruno, school = world["ana"], world["bruno"], world["school"]
    result = places.character_move(
        campaign_id=campaign.pk,
        user=master,
        character_ids=[bruno.pk, ana.pk],
        location_id=school.pk,
        make_home=True,
        route_m=20,
    )
    roll = result.route_check
    # R18 with the rulebook's reading: 20 m at d = 5 m sweeps 10 × 30 m = 75 cells; Robledo's
    # 100 cells hold 170 zombies, so p = 1 and all 75 cells hold one: 75 met (≤ 170).
    assert roll.kind == WorldRoll.Kind.ROUTE and roll.settlement == world["town"]
    assert roll.result["cells_swept"] == 75 and roll.result["p_cell"] == 1.0
    assert result.zombies_met == 75
    assert WorldRoll.objects.filter(kind=WorldRoll.Kind.ROUTE).count() == 1  # one for the group
    moves = CharacterMove.objects.order_by("character__name")
    assert [(m.character.name, m.zombies_met, m.outcome) for m in moves] == [
        ("Ana", 75, "pending"),
        ("Bruno", 75, "pending"),
    ]
    assert moves[0].from_shelter == world["home"] and moves[0].to_shelter == school
    assert moves[0].from_settlement == world["village"] and moves[0].day == 7
    for c in (ana, bruno):
        c.refresh_from_db()
        assert (c.settlement, c.location, c.shelter) == (world["town"], school, school)
    assert (
        places.move_outcome_set(
            campaign_id=campaign.pk, user=master, route_check_id=roll.pk, outcome="narrated"
        )
        == 2
    )
    with pytest.raises(ServiceError, match="esperando"):
        places.move_outcome_set(
            campaign_id=campaign.pk, user=master, route_check_id=roll.pk, outcome="combat"
        )


def test_a_move_without_a_route_keeps_the_shelter_and_checks_its_inputs(
    world, campaign, master, player_a
):
    ana = world["ana"]
    places.character_move(
        campaign_id=campaign.pk, user=master, character_ids=[ana.pk], location_id=world["shop"].pk
    )
    ana.refresh_from_db()
    assert (ana.location, ana.settlement, ana.shelter) == (
        world["shop"],
        world["town"],
        world["home"],
    )
    assert not WorldRoll.objects.exists()
    assert CharacterMove.objects.get().outcome == "none"
    bad = [
        (
            {"user": player_a, "character_ids": [ana.pk], "settlement_id": world["town"].pk},
            "máster",
        ),
        (
            {"character_ids": [ana.pk], "location_id": world["shop"].pk, "make_home": True},
            "refugio",
        ),
        ({"character_ids": [], "settlement_id": world["town"].pk}, "personajes"),
        (
            {
                "character_ids": [ana.pk],
                "settlement_id": world["village"].pk,
                "location_id": world["school"].pk,
            },
            "otra población",
        ),
        ({"character_ids": [ana.pk], "settlement_id": world["town"].pk, "route_m": -1}, "negativa"),
    ]
    for kwargs, words in bad:
        with pytest.raises(ServiceError, match=words):
            places.character_move(**{"campaign_id": campaign.pk, "user": master, **kwargs})
    assert CharacterMove.objects.count() == 1


def test_undoing_a_move_takes_the_character_back_once(world, campaign, master):
    ana = world["ana"]
    first = places.character_move(
        campaign_id=campaign.pk,
        user=master,
        character_ids=[ana.pk],
        location_id=world["school"].pk,
        make_home=True,
    ).moves[0]
    second = places.character_move(
        campaign_id=campaign.pk, user=master, character_ids=[ana.pk], location_id=world["shop"].pk
    ).moves[0]
    with pytest.raises(ServiceError, match="se ha movido"):
        places.character_move_undo(campaign_id=campaign.pk, user=master, move_id=first.pk)
    places.character_move_undo(campaign_id=campaign.pk, user=master, move_id=second.pk)
    back = places.character_move_undo(campaign_id=campaign.pk, user=master, move_id=first.pk)
    ana.refresh_from_db()
    assert (ana.settlement, ana.location, ana.shelter) == (world["village"], None, world["home"])
    assert back.reverses == first and back.route_check is None
    with pytest.raises(ServiceError, match="ya se deshizo"):
        places.character_move_undo(campaign_id=campaign.pk, user=master, move_id=first.pk)
    with pytest.raises(NotFound):
        places.character_move_undo(campaign_id=campaign.pk, user=master, move_id=10**9)


def test_an_undo_and_a_route_outcome_come_back_to_their_section_and_settlement(
    world, campaign, master
):
    client = Client()
    client.force_login(master)
    town, school, ana = world["town"], world["school"], world["ana"]
    world_url = reverse("mundo:world", kwargs={"slug": campaign.slug})
    moved = places.character_move(
        campaign_id=campaign.pk,
        user=master,
        character_ids=[ana.pk],
        location_id=school.pk,
        route_m=20,
    )
    # The page with Robledo chosen: the buttons keep it in their addresses.
    page = opened(client, world_url, {"en": town.pk})
    outcome = reverse("route_outcome", args=[campaign.slug, moved.route_check.pk])
    undo = reverse("world_undo", args=[campaign.slug, "move", moved.moves[0].pk])
    assert f'action="{outcome}?en={town.pk}"' in page
    assert f'action="{undo}?en={town.pk}"' in page
    done = client.post(f"{outcome}?en={town.pk}", {"outcome": "narrated"})
    assert done["Location"] == f"{world_url}?en={town.pk}&open=characters#characters"
    done = client.post(f"{undo}?en={town.pk}")
    assert done["Location"] == f"{world_url}?en={town.pk}&open=characters#characters"
    ana.refresh_from_db()
    assert ana.location is None  # taken back
    # A tally's undo comes back to the world rolls, where its row is (posted without a
    # settlement: the page's first by name is chosen, as on the page itself).
    roll = tally.tally_record(settlement=world["village"], user=master, destroyed=1)
    done = client.post(reverse("world_undo", args=[campaign.slug, "tally", roll.pk]))
    assert done["Location"] == f"{world_url}?en={town.pk}#history"


def test_the_tick_reads_the_new_shelter_for_the_stash(world, campaign, master):
    # R15: Ana carries nothing; her new shelter's stash has 4 L, her old one none. After the
    # shelter is assigned, the tick's consumption takes her 2 L from the Colegio's stash.
    no_disease(campaign)
    ana, bruno = world["ana"], world["bruno"]
    Character.objects.filter(pk=bruno.pk).update(status=Character.Status.DEAD)
    give(ana, world["can"], 5)
    places.character_shelter_set(character=ana, user=master, shelter_id=world["school"].pk)
    advance_day(campaign, expected_day=7, trigger=DayTick.Trigger.MASTER)
    assert units(ShelterStash, world["water"], shelter=world["school"]) == Decimal("2.000")
    entry = ana.diary_entries.get(day=7)
    assert entry.water_l == 2.0 and entry.thirst_days == 0
    with pytest.raises(ServiceError, match="ya es donde vive"):
        places.character_shelter_set(character=ana, user=master, shelter_id=world["school"].pk)


# --- supplies (item 4) -------------------------------------------------------------------------


def test_stock_moves_between_places_in_units_and_kcal_and_is_undone(world, campaign, master):
    school, shop, water, can = world["school"], world["shop"], world["water"], world["can"]
    moved = master_supplies.movement_place_transfer(
        campaign_id=campaign.pk,
        user=master,
        from_place_id=school.pk,
        to_place_id=shop.pk,
        item_type_id=water.pk,
        quantity="1,5",
    )
    shop.refresh_from_db()
    # 1.5 L of stash water into the shop: its stock counts whole litres, rounded up (R23).
    assert units(ShelterStash, water, shelter=school) == Decimal("2.500")
    assert shop.stock_water_l == 3
    assert (moved.from_place, moved.to_place, moved.reason) == (school, shop, "master_move")
    master_supplies.movement_place_transfer(
        campaign_id=campaign.pk,
        user=master,
        from_place_id=shop.pk,
        to_place_id=school.pk,
        item_type_id=can.pk,
        quantity=3,
    )
    shop.refresh_from_db()
    assert shop.stock_food_kcal == 0 and units(ShelterStash, can, shelter=school) == 3
    with pytest.raises(ServiceError, match="demasiado poco"):
        master_supplies.movement_place_transfer(
            campaign_id=campaign.pk,
            user=master,
            from_place_id=shop.pk,
            to_place_id=school.pk,
            item_type_id=can.pk,
            quantity=1,
        )
    with pytest.raises(ServiceError, match="otro lugar"):
        master_supplies.movement_place_transfer(
            campaign_id=campaign.pk,
            user=master,
            from_place_id=shop.pk,
            to_place_id=shop.pk,
            item_type_id=can.pk,
            quantity=1,
        )
    undo = master_supplies.movement_undo(campaign_id=campaign.pk, user=master, movement_id=moved.pk)
    shop.refresh_from_db()
    assert units(ShelterStash, water, shelter=school) == Decimal("4.000")
    assert shop.stock_water_l == 1
    assert (undo.from_place, undo.to_place, undo.reverses, undo.reason) == (
        shop,
        school,
        moved,
        "undo",
    )
    with pytest.raises(ServiceError, match="ya se deshizo"):
        master_supplies.movement_undo(campaign_id=campaign.pk, user=master, movement_id=moved.pk)
    with pytest.raises(ServiceError, match="no se deshace"):
        master_supplies.movement_undo(campaign_id=campaign.pk, user=master, movement_id=undo.pk)


def test_the_master_stocks_a_stash_and_takes_it_away_each_undone(world, campaign, master):
    # From "the master" (no source): new supplies into the Colegio's stash, a movement from
    # nowhere (master_give); to "the master" (no destination): taken away (master_take).
    school, water = world["school"], world["water"]
    stocked = master_supplies.movement_place_transfer(
        campaign_id=campaign.pk,
        user=master,
        from_place_id=None,
        to_place_id=school.pk,
        item_type_id=water.pk,
        quantity=200,
    )
    assert units(ShelterStash, water, shelter=school) == Decimal("204.000")
    assert (stocked.from_place, stocked.from_character, stocked.to_place, stocked.reason) == (
        None,
        None,
        school,
        "master_give",
    )
    assert (stocked.day, stocked.made_by, stocked.quantity) == (7, master, Decimal("200.000"))
    removed = master_supplies.movement_place_transfer(
        campaign_id=campaign.pk,
        user=master,
        from_place_id=school.pk,
        to_place_id=None,
        item_type_id=water.pk,
        quantity="4,5",
    )
    assert units(ShelterStash, water, shelter=school) == Decimal("199.500")
    assert (removed.from_place, removed.to_place, removed.reason) == (school, None, "master_take")
    with pytest.raises(ServiceError, match=r"sólo hay 199\.5; no se pueden quitar 500"):
        master_supplies.movement_place_transfer(
            campaign_id=campaign.pk,
            user=master,
            from_place_id=school.pk,
            to_place_id=None,
            item_type_id=water.pk,
            quantity=500,
        )
    with pytest.raises(ServiceError, match="Elige el lugar que lo da o lo recibe"):
        master_supplies.movement_place_transfer(
            campaign_id=campaign.pk,
            user=master,
            from_place_id=None,
            to_place_id=None,
            item_type_id=water.pk,
            quantity=1,
        )
    # The undo of the stocking takes the 200 back out of the stash, to nowhere: refused while
    # only 199.5 are left, done once the take-away is undone (its 4.5 come back from nowhere).
    with pytest.raises(ServiceError, match=r"sólo hay 199\.5"):
        master_supplies.movement_undo(campaign_id=campaign.pk, user=master, movement_id=stocked.pk)
    master_supplies.movement_undo(campaign_id=campaign.pk, user=master, movement_id=removed.pk)
    back = master_supplies.movement_undo(
        campaign_id=campaign.pk, user=master, movement_id=stocked.pk
    )
    assert units(ShelterStash, water, shelter=school) == Decimal("4.000")
    assert (back.from_place, back.to_place, back.reverses, back.reason) == (
        school,
        None,
        stocked,
        "undo",
    )


def test_the_stock_control_posts_from_the_world_page(world, campaign, master):
    client = Client()
    client.force_login(master)
    url = reverse("world_control", kwargs={"slug": campaign.slug, "action": "transfer"})
    school, water = world["school"], world["water"]
    done = client.post(
        url,
        {"transfer-to_place": school.pk, "transfer-item_type": water.pk, "transfer-quantity": "6"},
        follow=True,
    )
    text = done.content.decode()
    assert "Abastecido: 6 × Litro de agua añadido a Colegio." in text
    assert units(ShelterStash, water, shelter=school) == Decimal("10.000")
    # The history names the master as the source, with the undo button.
    history = text[text.index('id="place-movements"') :]
    assert re.search(r"<td>el máster</td>\s*<td>Colegio</td>", history)
    assert "dado por el máster" in history
    refused = client.post(url, {"transfer-item_type": water.pk, "transfer-quantity": "1"})
    assert refused.status_code == 400
    assert "Elige el lugar que lo da o lo recibe." in refused.content.decode()
    page = opened(client, reverse("mundo:world", kwargs={"slug": campaign.slug}))
    assert "— el máster: suministros nuevos —" in page and "— el máster: se retira —" in page


def test_a_danger_link_presets_the_give_form_and_opens_supplies(world, campaign, master):
    client = Client()
    client.force_login(master)
    url = reverse("mundo:world", kwargs={"slug": campaign.slug})
    plain = client.get(url).content.decode()
    assert '<details class="task" id="supplies">' in plain
    assert 'id="give"' not in plain  # a closed section is fetched when opened
    ana, water = world["ana"], world["water"]
    page = client.get(url, {"give": ana.pk, "kind": "water", "open": "supplies"})
    page = page.content.decode()
    assert '<details class="task" id="supplies" open>' in page
    give = page[page.index('id="give"') : page.index('id="transfer"')]
    assert f'<option value="{ana.pk}" selected>Ana</option>' in give
    assert f'<option value="{water.pk}" selected>Litro de agua</option>' in give
    assert client.get(url, {"give": "x", "kind": "nada", "open": "supplies"}).status_code == 200
    # A give link without ``open`` (an older one) opens the supplies too.
    page = client.get(url, {"give": ana.pk, "kind": "water"}).content.decode()
    assert '<details class="task" id="supplies" open>' in page
    # Opened in the browser (htmx), the section keeps the preset of the page's address.
    page = opened(client, url, {"give": ana.pk, "kind": "water"})
    give = page[page.index('id="give"') : page.index('id="transfer"')]
    assert f'<option value="{ana.pk}" selected>Ana</option>' in give


def test_a_players_give_is_undone_unless_the_units_are_gone(world, campaign, master, player_a):
    ana, bruno, water = world["ana"], world["bruno"], world["water"]
    give(ana, water, 2)
    given = movements.movement_give(
        character=ana, user=player_a, to_character_id=bruno.pk, item_type_id=water.pk, quantity=2
    )
    with pytest.raises(ServiceError, match="máster"):
        master_supplies.movement_undo(campaign_id=campaign.pk, user=player_a, movement_id=given.pk)
    InventoryItem.objects.filter(character=bruno).update(quantity=1)  # Bruno drank one
    with pytest.raises(ServiceError, match="sólo hay 1"):
        master_supplies.movement_undo(campaign_id=campaign.pk, user=master, movement_id=given.pk)
    InventoryItem.objects.filter(character=bruno).update(quantity=2)
    master_supplies.movement_undo(campaign_id=campaign.pk, user=master, movement_id=given.pk)
    assert units(InventoryItem, water, character=ana) == 2
    assert units(InventoryItem, water, character=bruno) == 0
    assert (
        Movement.objects.filter(reason="undo", from_character=bruno, to_character=ana).count() == 1
    )


def test_a_tally_record_adds_and_its_undo_takes_it_off(world, campaign, master):
    town = world["town"]
    roll = tally.tally_record(settlement=town, user=master, destroyed=12, rescued=3)
    town.refresh_from_db()
    assert (town.zombies_destroyed, town.survivors_rescued) == (12, 3)
    assert (
        roll.kind == "tally" and roll.dice == [] and roll.result == {"destroyed": 12, "rescued": 3}
    )
    with pytest.raises(ServiceError, match="negativo"):
        tally.tally_record(settlement=town, user=master, destroyed=-1)
    with pytest.raises(ServiceError, match="Di cuántos"):
        tally.tally_record(settlement=town, user=master)
    Settlement.objects.filter(pk=town.pk).update(zombies_destroyed=5)  # corrected by hand
    with pytest.raises(ServiceError, match="por debajo de cero"):
        tally.tally_undo(campaign_id=campaign.pk, user=master, roll_id=roll.pk)
    Settlement.objects.filter(pk=town.pk).update(zombies_destroyed=12)
    undo = tally.tally_undo(campaign_id=campaign.pk, user=master, roll_id=roll.pk)
    town.refresh_from_db()
    assert (town.zombies_destroyed, town.survivors_rescued) == (0, 0)
    assert undo.result == {"destroyed": -12, "rescued": -3, "undoes": roll.pk}
    with pytest.raises(ServiceError, match="ya se deshizo"):
        tally.tally_undo(campaign_id=campaign.pk, user=master, roll_id=roll.pk)


def test_day_marks_record_guard_duty_and_an_inappropriate_relief(world, campaign, master):
    ana = world["ana"]
    with pytest.raises(ServiceError, match="cuántas horas"):
        days.day_record_save(character=ana, user=master, day=7, sleep_reason="guard_duty")
    record = days.day_record_save(
        character=ana,
        user=master,
        day=7,
        sleep_reason="guard_duty",
        sleep_h=4,
        relieved_inappropriately=True,
    )
    assert (record.sleep_reason, record.sleep_h, record.relieved_inappropriately) == (
        "guard_duty",
        4,
        True,
    )


# --- the world page --------------------------------------------------------------------------


def test_the_world_page_groups_the_controls_and_they_post(world, campaign, master, player_a):
    client = Client()
    client.force_login(master)
    url = reverse("mundo:world", kwargs={"slug": campaign.slug})
    page = opened(client, url)
    for section in ('id="characters"', 'id="supplies"', 'id="places"', 'id="tallies"'):
        assert f'<details class="task" {section}' in page
    assert "Select an option" not in page and "— elige —" in page
    assert 'type="radio" name="route-mode"' in page  # two modes: radio buttons, no blank
    move = reverse("world_control", kwargs={"slug": campaign.slug, "action": "move"})
    done = client.post(
        move,
        {
            "move-characters": [world["ana"].pk],
            "move-settlement": world["town"].pk,
            "move-route_m": "20",
            "move-route_mode": "normal",
        },
        follow=True,
    )
    text = done.content.decode()
    assert "Ana se ha movido a Robledo" in text and "75 zombis" in text
    assert 'id="route-' in text  # the route check waits, with its hook for the combat pages
    refused = client.post(move, {"move-characters": [world["ana"].pk]})
    assert refused.status_code == 400 and "Este campo es requerido" in refused.content.decode()
    give = reverse("world_control", kwargs={"slug": campaign.slug, "action": "give"})
    too_much = client.post(
        give,
        {
            "give-character": world["bruno"].pk,
            "give-direction": "take",
            "give-item_type": world["water"].pk,
            "give-quantity": "3",
        },
    )
    assert too_much.status_code == 400 and "sólo hay 0" in too_much.content.decode()
    player = Client()
    player.force_login(player_a)
    assert player.get(url).status_code == 404
    assert player.post(move, {}).status_code == 404
    history = reverse("world_history", kwargs={"slug": campaign.slug, "what": "moves"})
    assert "Ana" in client.get(history).content.decode()
    assert client.get(history.replace("moves", "nada")).status_code == 404


def test_the_world_page_makes_as_many_queries_with_one_move_as_with_many(
    world, campaign, master, settings
):
    from django.db import connection as conn
    from django.test.utils import CaptureQueriesContext

    # The renders' own counts: the kept pages (partida.world_views.world_page) off.
    settings.ESCENAS_VIEWER_PAGES = False

    client = Client()
    client.force_login(master)
    url = reverse("mundo:world", kwargs={"slug": campaign.slug})
    ana = world["ana"]
    places.character_move(
        campaign_id=campaign.pk,
        user=master,
        character_ids=[ana.pk],
        location_id=world["shop"].pk,
        route_m=5,
    )
    # The page with every section opened (the lists are in the characters and supplies ones).
    with CaptureQueriesContext(conn) as one:
        opened(client, url)
    for place in ("school", "home", "shop", "school"):
        places.character_move(
            campaign_id=campaign.pk,
            user=master,
            character_ids=[ana.pk],
            location_id=world[place].pk,
            route_m=5,
        )
        master_supplies.movement_place_transfer(
            campaign_id=campaign.pk,
            user=master,
            from_place_id=world["school"].pk,
            to_place_id=world["home"].pk,
            item_type_id=world["water"].pk,
            quantity="0,1",
        )
    with CaptureQueriesContext(conn) as many:
        page = opened(client, url)
    assert page.count("/mundo/deshacer/move/") == 5 and 'id="place-movements"' in page
    # Each list is one query whatever its length (select_related; the undo state included).
    assert len(many.captured_queries) == len(one.captured_queries)


# --- concurrency (PostgreSQL) -------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_moves_of_the_last_unit_from_a_place_one_succeeds(world, campaign, master):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite has no row locks and runs one writer at a time")
    school, water = world["school"], world["water"]
    ShelterStash.objects.filter(shelter=school, item_type=water).update(quantity=1)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def move(to_place):
        try:
            barrier.wait()
            master_supplies.movement_place_transfer(
                campaign_id=campaign.pk,
                user=master,
                from_place_id=school.pk,
                to_place_id=to_place.pk,
                item_type_id=water.pk,
                quantity=1,
            )
            outcomes.append("ok")
        except ServiceError as exc:
            outcomes.append(" ".join(exc.messages))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=move, args=(world[p],)) for p in ("home", "shop")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["Litro de agua: ya no queda.", "ok"]
    assert units(ShelterStash, water, shelter=school) == 0
    assert Movement.objects.filter(from_place=school).count() == 1
