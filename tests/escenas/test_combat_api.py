"""The combat API: a scene's fights, one fight, a declaration; the scene's permission matrix."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from escenas import combat
from escenas.models import Combatant, Declaration, Scene
from tests.escenas.combat_helpers import force_dice

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def fight(story, master, char_a):
    c = combat.combat_open(scene=story, master=master, kind="zombies", characters=[char_a])
    combat.combatants_add(combat=c, master=master, zombies=2)
    return c


@pytest.mark.parametrize(
    ("who", "status"),
    [("master", 200), ("player_a", 200), ("player_b", 200), ("outsider", 404), ("anonymous", 404)],
)
def test_read_permissions(who, status, cast, fight):
    client = api(cast[who])
    assert client.get(f"/api/v1/scenes/{fight.scene_id}/combats/").status_code == status
    assert client.get(f"/api/v1/combats/{fight.pk}/").status_code == status


def test_outsiders_read_fights_of_public_scenes(fight, outsider, campaign):
    campaign.is_public = True
    campaign.save()
    Scene.objects.filter(pk=fight.scene_id).update(readers=Scene.Readers.PUBLIC)
    response = api(outsider).get(f"/api/v1/combats/{fight.pk}/")
    assert response.status_code == 200
    body = response.json()
    assert body["turn"] == 1 and body["state"] == "open"
    assert [c["side"] for c in body["combatants"]] == ["character", "zombie", "zombie"]


def test_declare_then_read_every_roll(monkeypatch, fight, master, player_a, char_a):
    ana = Combatant.objects.get(combat=fight, side="character")
    z1 = Combatant.objects.filter(combat=fight, side="zombie").first()
    response = api(player_a).post(
        f"/api/v1/combats/{fight.pk}/declarations/",
        {
            "combatant": ana.pk,
            "action": "attack",
            "target": z1.pk,
            "weapon": "desarmado",
            "turn": 1,
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["action"] == "attack"
    force_dice(monkeypatch, [99, 10, 90])  # miss; zombie 1 grabs, zombie 2 does not
    from escenas import combat_resolve

    combat_resolve.turn_resolve(combat=fight, master=master)
    body = api(player_a).get(f"/api/v1/combats/{fight.pk}/").json()
    assert body["turn"] == 2
    (turn,) = body["turns"]
    assert len(turn["rolls"]) == 3
    (event,) = turn["log"]["events"]
    dice = event["turn"]["grabs"]
    assert [g["roll"]["dice"] for g in dice] == [[10], [90]]
    grabbing = [c["grabbing"] for c in body["combatants"] if c["side"] == "zombie"]
    assert grabbing == [True, False]
    # A declaration for the resolved turn: 400 with the reason.
    late = api(player_a).post(
        f"/api/v1/combats/{fight.pk}/declarations/",
        {"combatant": ana.pk, "action": "defend", "turn": 1},
        format="json",
    )
    assert late.status_code == 400
    assert "non_field_errors" in late.json()


def test_a_player_declares_only_for_its_own_character(fight, player_b):
    ana = Combatant.objects.get(combat=fight, side="character")
    response = api(player_b).post(
        f"/api/v1/combats/{fight.pk}/declarations/",
        {"combatant": ana.pk, "action": "defend"},
        format="json",
    )
    assert response.status_code == 400
    assert not Declaration.objects.exists()


def test_bad_input_is_a_400(fight, player_a):
    response = api(player_a).post(
        f"/api/v1/combats/{fight.pk}/declarations/",
        {"combatant": "x", "action": "fly"},
        format="json",
    )
    assert response.status_code == 400
    assert set(response.json()) >= {"combatant", "action"}


def test_anonymous_cannot_declare(fight):
    response = api(None).post(f"/api/v1/combats/{fight.pk}/declarations/", {}, format="json")
    assert response.status_code in (401, 403)
