"""A fight's turn deadline (hours of real time) and the master's choice of a zombie's victim,
from the scene's panel: the open form, the panel's deadline, the resolve form."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from escenas import combat
from escenas.models import Combat, Combatant, CombatTurn
from tests.escenas.combat_helpers import force_dice
from tests.escenas.conftest import client_for

pytestmark = pytest.mark.django_db


def url(name, campaign, pk):
    return reverse(f"escenas:{name}", args=[campaign.slug, pk])


def test_the_open_form_sets_the_deadline_and_the_zombies_victim(
    story, master, char_a, char_b, campaign
):
    story.participants.add(char_b)
    response = client_for(master).post(
        url("combat_open", campaign, story.pk),
        {"kind": "zombies", "zombies": "3", "victim": str(char_b.pk), "turn_hours": "24"},
    )
    assert response.status_code == 302
    fight = Combat.objects.get(scene=story)
    assert fight.turn_hours == 24
    assert fight.deadline == fight.turn_started_at + datetime.timedelta(hours=24)
    bruno = fight.combatants.get(character=char_b)
    assert (
        list(fight.combatants.filter(side="zombie").values_list("victim", flat=True))
        == [bruno.pk] * 3
    )


def test_a_bad_deadline_opens_nothing(story, master, campaign):
    response = client_for(master).post(
        url("combat_open", campaign, story.pk),
        {"kind": "zombies", "zombies": "2", "turn_hours": "0"},
        follow=True,
    )
    assert response.status_code == 200
    assert not Combat.objects.exists()


def test_the_panel_shows_the_deadline_in_the_sites_time_zone(story, master, char_a, campaign):
    fight = combat.combat_open(
        scene=story, master=master, kind="zombies", characters=[char_a], turn_hours=6
    )
    start = datetime.datetime(2026, 7, 1, 10, 0, tzinfo=datetime.UTC)
    Combat.objects.filter(pk=fight.pk).update(turn_started_at=start)
    page = client_for(master).get(url("combat_panel", campaign, story.pk)).content.decode()
    # 16:00 UTC is 18:00 in Madrid (summer time, CEST).
    assert 'datetime="2026-07-01T18:00:00+02:00"' in page
    assert "18:00 CEST" in page
    assert "plazo del turno ha pasado" in page  # 2026-07-01 is before the clock's now


def test_before_the_deadline_the_resolve_button_waits(monkeypatch, story, master, char_a, campaign):
    fight = combat.combat_open(
        scene=story, master=master, kind="zombies", characters=[char_a], turn_hours=48
    )
    combat.combatants_add(combat=fight, master=master, zombies=1)
    page = client_for(master).get(url("combat_panel", campaign, story.pk)).content.decode()
    assert "Declarad antes de:" in page
    response = client_for(master).post(
        url("combat_resolve", campaign, fight.pk), {"turn": 1}, follow=True
    )
    assert "Esperando a Ana Forastera" in response.content.decode()
    assert not CombatTurn.objects.exists()
    Combat.objects.filter(pk=fight.pk).update(
        turn_started_at=timezone.now() - datetime.timedelta(hours=48)
    )
    force_dice(monkeypatch, [90])  # Ana defends only (no roll); the zombie's grab fails
    client_for(master).post(url("combat_resolve", campaign, fight.pk), {"turn": 1})
    assert CombatTurn.objects.get().number == 1


def test_the_resolve_form_sends_a_zombie_for_another_human(
    monkeypatch, story, master, char_a, char_b, campaign
):
    story.participants.add(char_b)
    fight = combat.combat_open(
        scene=story, master=master, kind="zombies", characters=[char_a, char_b]
    )
    combat.combatants_add(combat=fight, master=master, zombies=2)
    ana = fight.combatants.get(character=char_a)
    bruno = fight.combatants.get(character=char_b)
    first = fight.combatants.filter(side="zombie", victim=ana).get()
    force_dice(monkeypatch, [90, 90])  # both zombies' grabs on Bruno fail
    response = client_for(master).post(
        url("combat_resolve", campaign, fight.pk),
        {"turn": 1, "zombie": first.pk, "victim": bruno.pk},
    )
    assert response.status_code == 302
    first.refresh_from_db()
    assert first.victim_id == bruno.pk
    turn = CombatTurn.objects.get()
    assert [e["victim"] for e in turn.log["events"]] == [bruno.pk]


def test_a_zombie_holding_its_victim_does_not_let_go(story, master, char_a, char_b):
    story.participants.add(char_b)
    fight = combat.combat_open(
        scene=story, master=master, kind="zombies", characters=[char_a, char_b]
    )
    (z,) = combat.combatants_add(combat=fight, master=master, zombies=1)
    Combatant.objects.filter(pk=z.pk).update(grabbing=True)
    z.refresh_from_db()
    other = fight.combatants.exclude(pk=z.victim_id).get(side="character")
    with pytest.raises(combat.ServiceError) as refused:
        combat.zombies_aim(combat=fight, master=master, aims=[(z, other)])
    assert "victim" in refused.value.message_dict
    z.refresh_from_db()
    assert z.victim_id != other.pk
