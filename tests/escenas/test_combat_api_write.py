"""The combat API's writes: open a fight, add combatants, resolve a turn (with the master's aims
and the turn's deadline), the amputation and the Medicina cure; their permission matrix and
their field-level 400s. Dice forced as in tests/escenas/test_combat_zombies.py (char_a: Fuerza 2,
every other trait 0)."""

from __future__ import annotations

import datetime

import pytest
from rest_framework.test import APIClient

from escenas import combat
from escenas.models import Combat, Combatant, CombatTurn, MedicineCure, Post
from personajes.models import Character, TraitValue
from tests.escenas.combat_helpers import force_dice
from tests.factories import SettlementFactory
from tests.reglas.world_helpers import ScriptedRng

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def fight(story, master, char_a):
    c = combat.combat_open(scene=story, master=master, kind="zombies", characters=[char_a])
    combat.combatants_add(combat=c, master=master, zombies=1)
    return c


def human(fight) -> Combatant:
    """Ana's combatant (the fixture's character)."""
    return Combatant.objects.get(combat=fight, side="character", character__name="Ana Forastera")


def zombie(fight) -> Combatant:
    return Combatant.objects.filter(combat=fight, side="zombie").order_by("position").first()


# --- who may: the permission matrix -----------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "status"),
    [("master", 201), ("player_a", 403), ("player_b", 403), ("outsider", 404), ("anonymous", 401)],
)
def test_open_permissions(who, status, cast, story):
    response = api(cast[who]).post(
        f"/api/v1/scenes/{story.pk}/combats/", {"kind": "zombies"}, format="json"
    )
    assert response.status_code == status, response.content
    assert Combat.objects.count() == (1 if status == 201 else 0)


@pytest.mark.parametrize(
    ("who", "status"),
    [("master", 201), ("player_a", 403), ("player_b", 403), ("outsider", 404), ("anonymous", 401)],
)
def test_add_and_resolve_permissions(monkeypatch, who, status, cast, fight):
    client = api(cast[who])
    added = client.post(f"/api/v1/combats/{fight.pk}/combatants/", {"zombies": 2}, format="json")
    assert added.status_code == status
    force_dice(monkeypatch, [90, 90, 90] if status == 201 else [])
    resolved = client.post(f"/api/v1/combats/{fight.pk}/turns/", {"turn": 1}, format="json")
    assert resolved.status_code == status
    assert CombatTurn.objects.count() == (1 if status == 201 else 0)
    zombies = Combatant.objects.filter(combat=fight, side="zombie").count()
    assert zombies == (3 if status == 201 else 1)


# --- opening and adding ---------------------------------------------------------------------


def test_the_master_opens_a_fight_with_zombies_on_a_chosen_character(
    story, master, char_a, char_b, campaign
):
    story.participants.add(char_b)
    settlement = SettlementFactory(campaign=campaign)
    response = api(master).post(
        f"/api/v1/scenes/{story.pk}/combats/",
        {
            "kind": "zombies",
            "title": "La gasolinera",
            "zombies": 3,
            "victim": char_b.pk,
            "settlement": settlement.pk,
            "turn_hours": 24,
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["title"] == "La gasolinera" and body["settlement"] == settlement.pk
    assert body["turn_hours"] == 24 and body["deadline"] is not None
    humans = {c["name"]: c["id"] for c in body["combatants"] if c["side"] == "character"}
    assert set(humans) == {"Ana Forastera", "Bruno Herrero"}
    victims = [c["victim"] for c in body["combatants"] if c["side"] == "zombie"]
    assert victims == [humans["Bruno Herrero"]] * 3  # all on Bruno, not spread


def test_without_a_chosen_victim_zombies_spread_over_the_humans(story, master, char_a, char_b):
    story.participants.add(char_b)
    body = (
        api(master)
        .post(
            f"/api/v1/scenes/{story.pk}/combats/", {"kind": "zombies", "zombies": 4}, format="json"
        )
        .json()
    )
    victims = [c["victim"] for c in body["combatants"] if c["side"] == "zombie"]
    assert sorted(victims.count(v) for v in set(victims)) == [2, 2]


def test_open_refusals_are_field_level(story, master, char_b, campaign):
    client = api(master)
    url = f"/api/v1/scenes/{story.pk}/combats/"
    outside = client.post(url, {"kind": "zombies", "characters": [char_b.pk]}, format="json")
    assert outside.status_code == 400 and "characters" in outside.json()
    hours = client.post(url, {"kind": "zombies", "turn_hours": 0}, format="json")
    assert hours.status_code == 400 and "turn_hours" in hours.json()
    kind = client.post(url, {"kind": "dragones"}, format="json")
    assert kind.status_code == 400 and "kind" in kind.json()
    unknown = client.post(url, {"kind": "zombies", "dice": [1]}, format="json")
    assert unknown.status_code == 400 and "dice" in unknown.json()
    humans = client.post(url, {"kind": "humans", "zombies": 2}, format="json")
    assert humans.status_code == 400 and "zombies" in humans.json()
    assert Combat.objects.filter(kind="humans").count() == 0  # all or nothing
    assert Combat.objects.count() == 0


def test_the_master_adds_an_npc_with_traits_and_a_table_weapon(fight, master):
    response = api(master).post(
        f"/api/v1/combats/{fight.pk}/combatants/",
        {"npc_name": "Sargento", "npc_traits": {"armas_cac": 2}, "npc_weapon": "desarmado"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    (npc,) = response.json()
    assert npc["side"] == "npc" and npc["name"] == "Sargento"
    assert Combatant.objects.get(pk=npc["id"]).traits == {"armas_cac": 2}
    bad = api(master).post(
        f"/api/v1/combats/{fight.pk}/combatants/",
        {"npc_name": "X", "npc_weapon": "lanzallamas"},
        format="json",
    )
    assert bad.status_code == 400 and "weapon" in bad.json()


# --- resolving --------------------------------------------------------------------------------


def test_resolve_then_resolve_again_is_a_400(monkeypatch, fight, master):
    force_dice(monkeypatch, [10])  # the zombie grabs
    first = api(master).post(f"/api/v1/combats/{fight.pk}/turns/", {"turn": 1}, format="json")
    assert first.status_code == 201, first.json()
    turn = first.json()
    assert turn["number"] == 1 and len(turn["rolls"]) == 1
    assert zombie(fight).grabbing
    again = api(master).post(f"/api/v1/combats/{fight.pk}/turns/", {"turn": 1}, format="json")
    assert again.status_code == 400 and "non_field_errors" in again.json()
    assert CombatTurn.objects.count() == 1


def test_the_master_aims_a_zombie_at_another_human(monkeypatch, story, fight, master, char_b):
    story.participants.add(char_b)
    combat.combatants_add(combat=fight, master=master, characters=[char_b])
    bruno = Combatant.objects.get(combat=fight, character=char_b)
    z = zombie(fight)
    assert z.victim_id == human(fight).pk
    force_dice(monkeypatch, [90])  # its grab on Bruno fails
    response = api(master).post(
        f"/api/v1/combats/{fight.pk}/turns/",
        {"aims": [{"zombie": z.pk, "victim": bruno.pk}]},
        format="json",
    )
    assert response.status_code == 201, response.json()
    z.refresh_from_db()
    assert z.victim_id == bruno.pk
    (event,) = response.json()["log"]["events"]
    assert event["victim"] == bruno.pk


def test_a_bad_aim_is_a_400_and_rolls_nothing(fight, master):
    response = api(master).post(
        f"/api/v1/combats/{fight.pk}/turns/",
        {"aims": [{"zombie": human(fight).pk, "victim": human(fight).pk}]},
        format="json",
    )
    assert response.status_code == 400 and "victim" in response.json()
    assert CombatTurn.objects.count() == 0


def test_before_the_deadline_the_master_waits_for_every_declaration(
    monkeypatch, story, master, char_a, player_a
):
    fight = combat.combat_open(
        scene=story, master=master, kind="zombies", characters=[char_a], turn_hours=12
    )
    combat.combatants_add(combat=fight, master=master, zombies=1)
    url = f"/api/v1/combats/{fight.pk}/turns/"
    early = api(master).post(url, {}, format="json")
    assert early.status_code == 400
    assert "Ana Forastera" in early.json()["non_field_errors"][0]
    # Past the deadline: it resolves, Ana (no declaration) defends only: no roll of hers.
    Combat.objects.filter(pk=fight.pk).update(
        turn_started_at=fight.turn_started_at - datetime.timedelta(hours=12)
    )
    force_dice(monkeypatch, [90])
    late = api(master).post(url, {}, format="json")
    assert late.status_code == 201 and len(late.json()["rolls"]) == 1
    # Turn 2 has its own deadline from the resolution: once Ana declares, it resolves at once.
    fight.refresh_from_db()
    assert fight.deadline > fight.turn_started_at
    declared = api(player_a).post(
        f"/api/v1/combats/{fight.pk}/declarations/",
        {"combatant": human(fight).pk, "action": "defend"},
        format="json",
    )
    assert declared.status_code == 201
    force_dice(monkeypatch, [90])
    assert api(master).post(url, {"turn": 2}, format="json").status_code == 201


# --- Medicina ------------------------------------------------------------------------------


def test_the_amputation_by_the_player_then_refused(monkeypatch, fight, master, player_a, char_a):
    Combatant.objects.filter(pk=zombie(fight).pk).update(grabbing=True)
    force_dice(monkeypatch, [80, 10, 3])  # escape fails, bite, infection 1d6 = 3
    api(master).post(f"/api/v1/combats/{fight.pk}/turns/", {}, format="json")
    TraitValue.objects.filter(character=char_a, trait__slug="medicina").update(value=1)
    dice = ScriptedRng([99, 5])  # Medicina 1: two dice; 5 is under any threshold it has
    monkeypatch.setattr("nucleo.ledger.make_rng", lambda entropy, key: dice)
    url = f"/api/v1/combats/{fight.pk}/amputations/"
    payload = {"patient": human(fight).pk, "healer": char_a.pk}
    response = api(player_a).post(url, payload, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["success"] is True and response.json()["dice"] == [99, 5]
    char_a.refresh_from_db()
    assert char_a.infection_day == 0 and len(char_a.amputations) == 1
    again = api(player_a).post(url, payload, format="json")
    assert again.status_code == 400 and "non_field_errors" in again.json()


def test_a_player_amputates_only_with_its_own_character(
    story, fight, master, player_b, char_b, char_a
):
    story.participants.add(char_b)
    Combatant.objects.filter(pk=human(fight).pk).update(infected=True, amputation_open=True)
    url = f"/api/v1/combats/{fight.pk}/amputations/"
    response = api(player_b).post(
        url, {"patient": human(fight).pk, "healer": char_a.pk}, format="json"
    )
    assert response.status_code == 400 and "healer" in response.json()
    assert human(fight).amputation_open


def test_the_cure_once_a_day(monkeypatch, story, player_a, char_a, player_b):
    Character.objects.filter(pk=char_a.pk).update(disease_day=1, disease_duration=4)
    TraitValue.objects.filter(character=char_a, trait__slug="medicina").update(value=1)
    dice = ScriptedRng([99, 80])  # 25 %: both fail
    monkeypatch.setattr("nucleo.ledger.make_rng", lambda entropy, key: dice)
    url = f"/api/v1/scenes/{story.pk}/cures/"
    payload = {"patient": char_a.pk, "healer": char_a.pk}
    assert api(player_b).post(url, payload, format="json").status_code == 400  # not B's
    first = api(player_a).post(url, payload, format="json")
    assert first.status_code == 201, first.json()
    assert first.json()["success"] is False and first.json()["threshold"] == 25
    again = api(player_a).post(url, payload, format="json")
    assert again.status_code == 400 and "non_field_errors" in again.json()
    assert MedicineCure.objects.count() == 1
    assert Post.objects.filter(scene=story).count() == 1
    missing = api(player_a).post(url, {"patient": 0, "healer": char_a.pk}, format="json")
    assert missing.status_code == 400 and "patient" in missing.json()
