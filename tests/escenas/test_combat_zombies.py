"""Fights against zombies in a scene (R20, R13, R17) with forced dice.

char_a ("Ana Forastera"): Fuerza 2, every other trait 0 — one die to hit unarmed (Pelea 0,
60 %), three dice to wound (Fuerza 2, unarmed 5 %), one die to escape (40 %).
Dice order of a turn: humans first, then each human's zombies: bites, then grabs (position
order); the infection's 1d6 after the rolls of the turn.
"""

from __future__ import annotations

import pytest

from escenas import combat, combat_resolve, medicine
from escenas.models import Combat, Combatant, CombatTurn, Declaration, Post
from nucleo.errors import ServiceError
from personajes.models import Character, Roll, TraitValue
from tests.escenas.combat_helpers import force_dice
from tests.factories import SettlementFactory
from tests.reglas.world_helpers import ScriptedRng

pytestmark = pytest.mark.django_db


@pytest.fixture
def fight(story, master, char_a):
    c = combat.combat_open(
        scene=story,
        master=master,
        kind=Combat.Kind.ZOMBIES,
        title="Gasolinera",
        characters=[char_a],
    )
    return c


def zombies(fight, master, n, **state):
    made = combat.combatants_add(combat=fight, master=master, zombies=n)
    if state:
        Combatant.objects.filter(pk__in=[z.pk for z in made]).update(**state)
    return [Combatant.objects.get(pk=z.pk) for z in made]


def human(fight):
    return Combatant.objects.get(combat=fight, side=Combatant.Side.CHARACTER)


def resolve(monkeypatch, fight, master, faces):
    rng = force_dice(monkeypatch, faces)
    turn = combat_resolve.turn_resolve(combat=Combat.objects.get(pk=fight.pk), master=master)
    assert rng.exhausted, "the turn rolled fewer dice than scripted"
    return turn


def test_zombies_are_given_to_the_human(fight, master):
    z = zombies(fight, master, 2)
    assert [x.victim_id for x in z] == [human(fight).pk] * 2


def test_humans_act_first_a_killed_zombie_never_grabs(monkeypatch, fight, master, char_a):
    z1, z2 = zombies(fight, master, 2)
    combat.declaration_make(
        combat=fight, combatant=human(fight), user=char_a.player, action="attack", target=z1
    )
    # to hit 10 ≤ 60; wound 3 dice [1, 99, 99]: 1 ≤ 5 kills; only zombie 2 rolls to grab (90).
    turn = resolve(monkeypatch, fight, master, [10, 1, 99, 99, 90])
    z1.refresh_from_db(), z2.refresh_from_db()
    assert not z1.alive and z2.alive and not z2.grabbing
    assert turn.log["killed_zombies"] == [z1.pk]
    assert Roll.objects.filter(pk__in=turn.roll_ids).count() == 3
    rolls = list(Roll.objects.filter(pk__in=turn.roll_ids).order_by("pk"))
    assert [r.dice for r in rolls] == [[10], [1, 99, 99], [90]]
    assert [r.kind for r in rolls] == ["action", "action", "event"]
    assert rolls[0].trait_name == "Pelea" and rolls[0].effective_threshold == 60


def test_grab_then_escape(monkeypatch, fight, master):
    (z,) = zombies(fight, master, 1)
    resolve(monkeypatch, fight, master, [10])  # no declaration, not grabbed: no roll; grab 10
    z.refresh_from_db()
    assert z.grabbing
    # Turn 2, still no declaration: it defends, so it escapes (Agilidad 0: one die, 30 ≤ 40);
    # the zombie lets go and rolls to grab again (90: fails).
    resolve(monkeypatch, fight, master, [30, 90])
    z.refresh_from_db()
    assert not z.grabbing and z.consecutive_bites == 0


def test_a_non_declaring_character_does_not_attack(monkeypatch, fight, master):
    zombies(fight, master, 1)
    turn = resolve(monkeypatch, fight, master, [90])  # only the zombie's grab
    assert len(turn.roll_ids) == 1


def test_failed_escape_then_bite_infects_and_opens_the_amputation(
    monkeypatch, fight, master, char_a
):
    (z,) = zombies(fight, master, 1, grabbing=True)
    # escape 80 > 40 fails; bite 10 ≤ 60; infection 1d6 = 3 → 3 + 2 = 5 days.
    resolve(monkeypatch, fight, master, [80, 10, 3])
    char_a.refresh_from_db()
    victim = human(fight)
    assert victim.infected and victim.amputation_open and victim.alive
    assert (char_a.infection_day, char_a.infection_duration) == (1, 5)
    diary = Post.objects.get(scene__diary_character=char_a)
    assert "infectado durante 5 días" in diary.body
    assert char_a.status == Character.Status.APPROVED
    z.refresh_from_db()
    assert z.grabbing and z.consecutive_bites == 1


def test_three_bites_in_one_turn_kill(monkeypatch, fight, master, char_a):
    zombies(fight, master, 3, grabbing=True)
    resolve(monkeypatch, fight, master, [90, 10, 10, 10])
    char_a.refresh_from_db()
    assert char_a.status == Character.Status.DEAD and char_a.death_cause == "combat"
    diary = Post.objects.get(scene__diary_character=char_a)
    assert "Murió en el combate" in diary.body
    assert char_a.death_day == char_a.campaign.current_day
    fight.refresh_from_db()
    assert fight.state == Combat.State.FINISHED


def test_two_bites_in_one_turn_do_not_kill(monkeypatch, fight, master, char_a):
    zombies(fight, master, 2, grabbing=True)
    resolve(monkeypatch, fight, master, [90, 10, 10, 3])
    char_a.refresh_from_db()
    assert char_a.is_alive and char_a.infection_day == 1


def test_three_consecutive_bites_by_one_zombie_kill(monkeypatch, fight, master, char_a):
    zombies(fight, master, 1, grabbing=True, consecutive_bites=2)
    Combatant.objects.filter(pk=human(fight).pk).update(infected=True)
    resolve(monkeypatch, fight, master, [90, 10])
    char_a.refresh_from_db()
    assert char_a.status == Character.Status.DEAD


def test_bites_by_different_zombies_on_consecutive_turns_do_not_kill(
    monkeypatch, fight, master, char_a
):
    zombies(fight, master, 2, grabbing=True)
    resolve(monkeypatch, fight, master, [90, 10, 90, 3])  # zombie 1 bites
    resolve(monkeypatch, fight, master, [90, 90, 10])  # zombie 2 bites
    resolve(monkeypatch, fight, master, [90, 10, 90])  # zombie 1 bites
    char_a.refresh_from_db()
    assert char_a.is_alive


def test_a_failed_bite_breaks_the_streak(monkeypatch, fight, master, char_a):
    (z,) = zombies(fight, master, 1, grabbing=True, consecutive_bites=2)
    Combatant.objects.filter(pk=human(fight).pk).update(infected=True)
    resolve(monkeypatch, fight, master, [90, 61])  # the bite fails (61 > 60)
    z.refresh_from_db()
    char_a.refresh_from_db()
    assert z.consecutive_bites == 0 and char_a.is_alive


def test_amputation_success_cures_and_is_offered_once(monkeypatch, fight, master, char_a):
    zombies(fight, master, 1, grabbing=True)
    resolve(monkeypatch, fight, master, [80, 10, 3])
    victim = human(fight)
    # Ana heals herself: Medicina 1 → two dice; 15 ≤ 20 succeeds.
    TraitValue.objects.filter(character=char_a, trait__slug="medicina").update(value=1)
    dice = ScriptedRng([90, 15])
    monkeypatch.setattr("nucleo.ledger.make_rng", lambda entropy, key: dice)
    roll = medicine.amputation_try(combat=fight, patient=victim, healer=char_a, user=char_a.player)
    assert roll.success and roll.dice == [90, 15] and roll.base_threshold == 20
    char_a.refresh_from_db()
    victim.refresh_from_db()
    assert char_a.infection_day == 0 and char_a.infection_duration == 0
    assert len(char_a.amputations) == 1
    assert victim.amputated and not victim.infected and not victim.amputation_open
    with pytest.raises(ServiceError, match="solo se ofrece justo después del mordisco"):
        medicine.amputation_try(combat=fight, patient=victim, healer=char_a, user=char_a.player)


def test_the_amputation_closes_with_the_next_turn(monkeypatch, fight, master, char_a):
    zombies(fight, master, 1, grabbing=True)
    resolve(monkeypatch, fight, master, [80, 10, 3])
    resolve(monkeypatch, fight, master, [80, 90])
    assert not human(fight).amputation_open


def test_a_killed_zombie_leaves_the_settlement(monkeypatch, story, master, char_a, campaign):
    town = SettlementFactory(campaign=campaign)
    before = town.zombies_destroyed
    fight = combat.combat_open(
        scene=story, master=master, kind=Combat.Kind.ZOMBIES, settlement=town, characters=[char_a]
    )
    (z,) = zombies(fight, master, 1)
    combat.declaration_make(
        combat=fight, combatant=human(fight), user=char_a.player, action="attack", target=z
    )
    resolve(monkeypatch, fight, master, [10, 1, 99, 99])
    town.refresh_from_db()
    assert town.zombies_destroyed == before + 1
    fight.refresh_from_db()
    assert fight.state == Combat.State.FINISHED


def test_double_resolution_and_late_declaration_are_refused(monkeypatch, fight, master, char_a):
    (z,) = zombies(fight, master, 2)[:1]
    resolve(monkeypatch, fight, master, [90, 90])
    with pytest.raises(ServiceError, match="ya está resuelto"):
        combat_resolve.turn_resolve(combat=fight, master=master, turn=1)
    assert CombatTurn.objects.filter(combat=fight).count() == 1
    with pytest.raises(ServiceError, match="ya está resuelto"):
        combat.declaration_make(
            combat=fight,
            combatant=human(fight),
            user=char_a.player,
            action="attack",
            target=z,
            turn=1,
        )
    assert not Declaration.objects.filter(combat=fight).exists()


def test_one_summary_post_per_turn_with_every_roll(monkeypatch, fight, master):
    zombies(fight, master, 2)
    turn = resolve(monkeypatch, fight, master, [10, 90])
    post = Post.objects.get(pk=turn.post_id)
    assert post.scene_id == fight.scene_id and post.by_master
    assert sorted(post.post_rolls.values_list("roll_id", flat=True)) == sorted(turn.roll_ids)
    assert "Agarrar" in post.body and "10" in post.body


def test_a_player_declares_only_for_its_own_character(fight, master, player_b, char_a):
    (z,) = zombies(fight, master, 1)
    with pytest.raises(ServiceError, match="No puedes declarar"):
        combat.declaration_make(
            combat=fight, combatant=human(fight), user=player_b, action="attack", target=z
        )
    d = combat.declaration_make(combat=fight, combatant=human(fight), user=master, action="defend")
    assert d.action == "defend"


def test_a_grabbed_character_attacks_only_its_grabber(fight, master, char_a):
    z1, z2 = zombies(fight, master, 2)
    Combatant.objects.filter(pk=z1.pk).update(grabbing=True)
    with pytest.raises(ServiceError):
        combat.declaration_make(
            combat=fight, combatant=human(fight), user=char_a.player, action="attack", target=z2
        )
    with pytest.raises(ServiceError):
        combat.declaration_make(
            combat=fight, combatant=human(fight), user=char_a.player, action="escape", target=z2
        )


def test_every_stored_combat_roll_is_reproduced_by_its_key(fight, master, char_a):
    """No forced dice: each roll's faces come from make_rng(entropy, its stored key)."""
    from reglas.core import RollPurpose, make_rng

    zombies(fight, master, 3, grabbing=True)
    combat.combatants_add(combat=fight, master=master, zombies=2)
    turn = combat_resolve.turn_resolve(combat=fight, master=master)
    rolls = list(Roll.objects.filter(pk__in=turn.roll_ids))
    # Real dice, so how many depends on them: at least her escape from one zombie and the bites
    # of the two others holding her (a fight of 3 holding + 2 free zombies makes 3 to 8 rolls).
    assert len(rolls) == len(turn.roll_ids) >= 3
    entropy = fight.campaign.entropy_int
    for roll in rolls:
        assert roll.generator_key[1] == RollPurpose.COMBAT
        assert roll.generator_key[2] == char_a.pk
        rng = make_rng(entropy, roll.generator_key)
        if roll.kind == "expression":
            assert [f for t in roll.dice for f in t["faces"]] == list(rng.integers(1, 7, size=1))
        else:
            assert roll.dice == list(rng.integers(1, 101, size=len(roll.dice)))
