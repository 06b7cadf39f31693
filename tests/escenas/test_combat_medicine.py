"""Medicina from the places a player writes: the one amputation try offered in the post form
right after a bite (R13; refused afterwards with a clear message), and the cure from the sick
character's sheet (R12; once per in-game day per patient)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from escenas import combat
from escenas.models import Combat, Combatant, MedicineCure, Post
from personajes.models import Character, TraitValue
from tests.escenas.combat_helpers import force_dice
from tests.escenas.conftest import client_for
from tests.escenas.factories import new_key
from tests.reglas.world_helpers import ScriptedRng

pytestmark = pytest.mark.django_db


@pytest.fixture
def bitten(monkeypatch, story, master, char_a):
    """Ana, grabbed, fails her escape and is bitten: the one amputation try is open."""
    from escenas import combat_resolve

    fight = combat.combat_open(scene=story, master=master, kind="zombies", characters=[char_a])
    (z,) = combat.combatants_add(combat=fight, master=master, zombies=1)
    Combatant.objects.filter(pk=z.pk).update(grabbing=True)
    force_dice(monkeypatch, [80, 10, 3])  # escape fails, bite, infection 1d6 = 3
    combat_resolve.turn_resolve(combat=Combat.objects.get(pk=fight.pk), master=master)
    TraitValue.objects.filter(character=char_a, trait__slug="medicina").update(value=1)
    return fight


def ana(fight):
    return Combatant.objects.get(combat=fight, side="character")


def post(client, story, char_a, **extra):
    return client.post(
        reverse("escenas:post_create", args=[story.campaign.slug, story.pk]),
        {"idempotency_key": new_key(), "body": "¡Córtale el brazo!"}
        | {"voice": f"character:{char_a.pk}"}
        | extra,
    )


def test_the_post_form_offers_the_amputation_once(monkeypatch, bitten, story, char_a, player_a):
    client = client_for(player_a)
    page = client.get(story.get_absolute_url()).content.decode()
    value = f"{bitten.pk}:{ana(bitten).pk}"
    assert f'name="combat_amputate" value="{value}"' in page
    dice = ScriptedRng([99, 5])  # Medicina 1: two dice; 5 succeeds
    monkeypatch.setattr("nucleo.ledger.make_rng", lambda entropy, key: dice)
    response = post(client, story, char_a, combat_amputate=value, combat_healer=char_a.pk)
    assert response.status_code == 302
    char_a.refresh_from_db()
    assert char_a.infection_day == 0 and len(char_a.amputations) == 1
    assert ana(bitten).amputated and not ana(bitten).amputation_open
    assert Post.objects.filter(scene=story, body="¡Córtale el brazo!").count() == 1
    assert 'name="combat_amputate"' not in client.get(story.get_absolute_url()).content.decode()
    # A second try (a stale page): the post comes back with the reason, nothing is sent.
    again = post(client, story, char_a, combat_amputate=value, combat_healer=char_a.pk)
    assert again.status_code == 400
    assert "solo se ofrece justo después del mordisco" in again.content.decode()
    assert Post.objects.filter(scene=story, body="¡Córtale el brazo!").count() == 1


def test_the_try_is_over_once_the_next_turn_is_resolved(monkeypatch, bitten, master, story):
    from escenas import combat_resolve

    force_dice(monkeypatch, [80, 90])  # escape fails, the bite misses
    combat_resolve.turn_resolve(combat=Combat.objects.get(pk=bitten.pk), master=master)
    row = ana(bitten)
    assert row.infected and not row.amputation_open
    with pytest.raises(combat.ServiceError) as refused:
        from escenas import medicine

        medicine.amputation_try(
            combat=bitten, patient=row, healer=row.character, user=row.character.player
        )
    assert "solo se ofrece justo después del mordisco" in " ".join(refused.value.messages)


def test_the_cure_from_the_sheet_once_a_day(monkeypatch, char_a, player_a, player_b):
    Character.objects.filter(pk=char_a.pk).update(disease_day=1, disease_duration=4)
    TraitValue.objects.filter(character=char_a, trait__slug="medicina").update(value=1)
    client = client_for(player_a)
    sheet = client.get(char_a.get_absolute_url()).content.decode()
    action = reverse("escenas:medicine_cure_sheet", args=[char_a.campaign.slug, char_a.pk])
    assert action in sheet
    dice = ScriptedRng([99, 24])  # 30 % − 5 (disease day 1, R9) = 25 %: 24 cures
    monkeypatch.setattr("nucleo.ledger.make_rng", lambda entropy, key: dice)
    page = client.post(action, {"healer": char_a.pk}, follow=True).content.decode()
    assert "Medicina de Ana Forastera [99, 24]: Ana Forastera se ha curado." in page
    cure = MedicineCure.objects.get()
    assert cure.cured and cure.roll.dice == [99, 24] and cure.healer == char_a
    char_a.refresh_from_db()
    assert char_a.disease_day == 0
    assert action not in client.get(char_a.get_absolute_url()).content.decode()  # not sick
    # Sick again the same day: refused until tomorrow.
    Character.objects.filter(pk=char_a.pk).update(disease_day=1, disease_duration=4)
    page = client.post(action, {"healer": char_a.pk}, follow=True).content.decode()
    assert "Alguien ya ha intentado curar hoy a Ana Forastera." in page
    assert MedicineCure.objects.count() == 1
    # Another player may not cure through Ana's sheet (they do not see it in full).
    assert client_for(player_b).post(action, {"healer": char_a.pk}).status_code == 404
