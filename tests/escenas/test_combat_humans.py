"""Fights between humans in a scene (R21) and the Medicina cure (R12), with forced dice."""

from __future__ import annotations

import pytest

from escenas import combat, combat_resolve, medicine
from escenas.models import Combat, Combatant, MedicineCure
from nucleo.errors import ServiceError
from personajes.models import Character, TraitValue
from tests.escenas.combat_helpers import force_dice
from tests.reglas.world_helpers import ScriptedRng

pytestmark = pytest.mark.django_db


@pytest.fixture
def duel(story, master, char_a):
    c = combat.combat_open(scene=story, master=master, kind=Combat.Kind.HUMANS, characters=[char_a])
    combat.combatants_add(
        combat=c,
        master=master,
        npc_name="Saqueador",
        npc_traits={"armas_cac": 1, "fuerza": 0},
        npc_weapon="martillo",
    )
    return c


def rows(duel):
    ana = Combatant.objects.get(combat=duel, side=Combatant.Side.CHARACTER)
    npc = Combatant.objects.get(combat=duel, side=Combatant.Side.NPC)
    return ana, npc


def test_simultaneous_deaths(monkeypatch, duel, master, char_a):
    ana, npc = rows(duel)
    combat.declaration_make(
        combat=duel, combatant=ana, user=char_a.player, action="attack", target=npc
    )
    combat.declaration_make(combat=duel, combatant=npc, user=master, action="attack", target=ana)
    # Ana unarmed: to hit [10] ≤ 60, wound Fuerza 2 [1, 99, 99] ≤ 5. The NPC's hammer: to hit
    # Armas CaC 1 [99, 20] ≤ 60, wound Fuerza 0 [25] ≤ 30. A wound kills: both die.
    rng = force_dice(monkeypatch, [10, 1, 99, 99, 99, 20, 25])
    turn = combat_resolve.turn_resolve(combat=duel, master=master)
    assert rng.exhausted
    ana.refresh_from_db(), npc.refresh_from_db(), char_a.refresh_from_db()
    assert not ana.alive and not npc.alive
    assert char_a.status == Character.Status.DEAD
    assert sorted(turn.log["dead"]) == sorted([ana.pk, npc.pk])
    duel.refresh_from_db()
    assert duel.state == Combat.State.FINISHED


def test_a_wound_kills_without_hit_points(monkeypatch, duel, master, char_a):
    ana, npc = rows(duel)
    combat.declaration_make(combat=duel, combatant=npc, user=master, action="attack", target=ana)
    force_dice(monkeypatch, [1, 99, 30])  # hit, one wound die exactly at 30 %
    combat_resolve.turn_resolve(combat=duel, master=master)
    char_a.refresh_from_db()
    assert char_a.status == Character.Status.DEAD


def test_no_escape_between_humans(duel, char_a):
    ana, npc = rows(duel)
    with pytest.raises(ServiceError):
        combat.declaration_make(
            combat=duel, combatant=ana, user=char_a.player, action="escape", target=npc
        )


@pytest.fixture
def sick(char_b):
    Character.objects.filter(pk=char_b.pk).update(disease_day=2, disease_duration=5)
    char_b.refresh_from_db()
    return char_b


def test_medicine_cure_once_a_day(monkeypatch, sick, char_a):
    TraitValue.objects.filter(character=char_a, trait__slug="medicina").update(value=1)
    dice = ScriptedRng([90, 30])
    monkeypatch.setattr("nucleo.ledger.make_rng", lambda entropy, key: dice)
    cure = medicine.medicine_cure(patient=sick, healer=char_a, user=char_a.player)
    assert cure.cured and cure.roll.base_threshold == 30 and cure.roll.dice == [90, 30]
    sick.refresh_from_db()
    assert sick.disease_day == 0 and sick.disease_duration == 0
    Character.objects.filter(pk=sick.pk).update(disease_day=1, disease_duration=4)
    with pytest.raises(ServiceError, match="ya ha intentado curar hoy"):
        medicine.medicine_cure(patient=sick, healer=char_a, user=char_a.player)
    assert MedicineCure.objects.count() == 1


def test_medicine_cure_needs_the_players_own_healer(sick, char_a, player_b):
    TraitValue.objects.filter(character=char_a, trait__slug="medicina").update(value=1)
    with pytest.raises(ServiceError):
        medicine.medicine_cure(patient=sick, healer=char_a, user=player_b)


def test_medicine_cure_of_a_healthy_character_is_refused(char_a, char_b):
    with pytest.raises(ServiceError, match="no está enfermo"):
        medicine.medicine_cure(patient=char_b, healer=char_a, user=char_a.player)
