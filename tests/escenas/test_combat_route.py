"""A fight against the zombies an R18 route check met, opened from the check's result on the
master's world page; the zombies killed leave the check's settlement (R17)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from escenas import combat
from escenas.models import Combat, Combatant
from mundo import services as world
from mundo.models import Settlement, WorldRoll
from nucleo.errors import ServiceError
from tests.escenas.combat_helpers import force_dice
from tests.escenas.conftest import client_for
from tests.factories import SettlementFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def town(campaign):
    return SettlementFactory(campaign=campaign, name="Robledo", population=173, area_m2=10_000)


@pytest.fixture
def route(master, town):
    """A route check whose stored result met 3 zombies (the count is the fight's input here)."""
    roll = world.route_check(settlement=town, user=master, path_m=20)
    WorldRoll.objects.filter(pk=roll.pk).update(result={**roll.result, "zombies_met": 3})
    roll.refresh_from_db()
    return roll


def url(campaign, roll):
    return reverse("escenas:combat_from_route", args=[campaign.slug, roll.pk])


def test_the_world_page_offers_a_fight_with_the_zombies_met(master, campaign, route):
    page = client_for(master).get(reverse("mundo:world", args=[campaign.slug])).content.decode()
    assert url(campaign, route) in page


def test_the_master_opens_it_in_a_scene_and_a_kill_leaves_the_settlement(
    monkeypatch, master, campaign, story, char_a, route, town
):
    client = client_for(master)
    chooser = client.get(url(campaign, route)).content.decode()
    assert "La gasolinera" in chooser and "3 zombis" in chooser
    response = client.post(url(campaign, route), {"scene": story.pk})
    assert response.status_code == 302 and response["Location"].endswith("#combat")
    fight = Combat.objects.get(route_roll=route)
    assert (fight.scene_id, fight.settlement_id, fight.kind) == (story.pk, town.pk, "zombies")
    assert fight.combatants.filter(side="zombie").count() == 3
    assert fight.combatants.get(side="character").character == char_a
    ana = fight.combatants.get(side="character")
    z1 = fight.combatants.filter(side="zombie").order_by("position").first()
    combat.declaration_make(
        combat=fight, combatant=ana, user=char_a.player, action="attack", target=z1
    )
    force_dice(monkeypatch, [10, 1, 99, 99, 90, 90])  # hit, wound kills; two grabs fail
    from escenas import combat_resolve

    combat_resolve.turn_resolve(combat=fight, master=master)
    assert Settlement.objects.get(pk=town.pk).zombies_destroyed == 1
    assert not Combatant.objects.get(pk=z1.pk).alive
    # The same check again: refused, and the chooser links the fight instead.
    again = client.post(url(campaign, route), {"scene": story.pk})
    assert again.status_code == 400
    assert Combat.objects.filter(route_roll=route).count() == 1
    assert fight.get_kind_display() and str(fight) in again.content.decode()


def test_only_the_master_and_only_route_checks_with_zombies(
    player_a, master, campaign, story, route, town
):
    assert client_for(player_a).get(url(campaign, route)).status_code == 404
    assert client_for(player_a).post(url(campaign, route), {"scene": story.pk}).status_code == 404
    assert not Combat.objects.exists()
    WorldRoll.objects.filter(pk=route.pk).update(result={**route.result, "zombies_met": 0})
    route.refresh_from_db()
    with pytest.raises(ServiceError) as none_met:
        combat.combat_open_from_route(scene=story, master=master, route_roll=route)
    assert "route_roll" in none_met.value.message_dict
