"""The combat panel in the scene page and its forms: the master's controls, the players'
declarations, the permission matrix, the panel's queries."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from escenas import combat
from escenas.models import Combat, Combatant, CombatTurn, Declaration, Scene
from tests.escenas.combat_helpers import force_dice
from tests.escenas.conftest import client_for
from tests.escenas.test_queries import add_posts

pytestmark = pytest.mark.django_db


def url(name, campaign, pk):
    return reverse(f"escenas:{name}", args=[campaign.slug, pk])


@pytest.fixture
def fight(story, master, char_a):
    c = combat.combat_open(scene=story, master=master, kind="zombies", characters=[char_a])
    combat.combatants_add(combat=c, master=master, zombies=3)
    return c


def test_the_master_opens_a_fight_from_the_scene(story, master, char_a, campaign):
    client = client_for(master)
    response = client.post(
        url("combat_open", campaign, story.pk),
        {"kind": "zombies", "title": "Asalto", "zombies": "2"},
    )
    assert response.status_code == 302
    fight = Combat.objects.get(scene=story)
    assert fight.title == "Asalto"
    assert fight.combatants.filter(side="zombie").count() == 2
    assert fight.combatants.get(side="character").character == char_a
    page = client.get(story.get_absolute_url()).content.decode()
    assert "Asalto" in page
    assert "Resolver el turno 1" in page


def test_a_player_cannot_open_a_fight(story, player_a, campaign):
    response = client_for(player_a).post(
        url("combat_open", campaign, story.pk), {"kind": "zombies"}
    )
    assert response.status_code == 404
    assert not Combat.objects.exists()


def test_declare_and_resolve_from_the_page(monkeypatch, fight, master, player_a, campaign):
    ana = Combatant.objects.get(combat=fight, side="character")
    z1 = Combatant.objects.filter(combat=fight, side="zombie").first()
    response = client_for(player_a).post(
        url("combat_declare", campaign, fight.pk),
        {
            "combatant": ana.pk,
            "turn": 1,
            "action": "attack",
            "target": z1.pk,
            "weapon": "desarmado",
        },
    )
    assert response.status_code == 302
    d = Declaration.objects.get(combat=fight)
    assert (d.action, d.target_id, d.weapon["kind"]) == ("attack", z1.pk, "unarmed")
    force_dice(monkeypatch, [99, 90, 90, 90])  # miss; three grabs fail
    response = client_for(master).post(url("combat_resolve", campaign, fight.pk), {"turn": 1})
    assert response.status_code == 302
    assert CombatTurn.objects.filter(combat=fight).count() == 1
    # The same button again (a stale page): refused with a message, nothing rolled.
    response = client_for(master).post(
        url("combat_resolve", campaign, fight.pk), {"turn": 1}, follow=True
    )
    assert (
        "ya está resuelto" in response.content.decode()
        or "already resolved" in response.content.decode()
    )
    assert CombatTurn.objects.filter(combat=fight).count() == 1


def test_a_player_declares_only_for_its_own_character(fight, player_b, campaign):
    ana = Combatant.objects.get(combat=fight, side="character")
    Scene.objects.filter(pk=fight.scene_id).update(readers="members")
    client = client_for(player_b)
    response = client.post(
        url("combat_declare", campaign, fight.pk),
        {"combatant": ana.pk, "turn": 1, "action": "defend"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 400
    assert not Declaration.objects.exists()


def test_a_player_cannot_resolve(fight, player_a, campaign):
    client_for(player_a).post(url("combat_resolve", campaign, fight.pk), {"turn": 1})
    assert not CombatTurn.objects.exists()


@pytest.mark.parametrize(
    ("who", "status"),
    [("master", 200), ("player_a", 200), ("player_b", 200), ("outsider", 404), ("anonymous", 404)],
)
def test_panel_permissions_private_campaign(who, status, cast, fight, campaign):
    response = client_for(cast[who]).get(url("combat_panel", campaign, fight.scene_id))
    assert response.status_code == status


def test_outsiders_read_the_fights_of_public_scenes_only(fight, outsider, campaign):
    campaign.is_public = True
    campaign.save()
    client = client_for(outsider)
    assert client.get(url("combat_panel", campaign, fight.scene_id)).status_code == 404
    Scene.objects.filter(pk=fight.scene_id).update(readers=Scene.Readers.PUBLIC)
    response = client.get(url("combat_panel", campaign, fight.scene_id))
    assert response.status_code == 200
    assert "combat_declare" not in response.content.decode()
    assert 'name="action"' not in response.content.decode()


def test_panel_queries_do_not_grow_with_zombies(fight, master, player_a, campaign):
    client = client_for(player_a)
    panel = url("combat_panel", campaign, fight.scene_id)

    def count():
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(panel).status_code == 200
        return len(ctx.captured_queries)

    few = count()
    combat.combatants_add(combat=fight, master=master, zombies=20)
    assert count() == few
    # user (the session is cached), the scene's access (one query), participants; fights,
    # combatants, declarations, turns, the player's weapons (issue 14: 10 before, the access
    # in four queries).
    assert few == 8


def test_a_panel_without_fights_reads_no_post(story, master, player_a, campaign):
    """Every open tab of a story scene refreshes the panel every 30 s: the user, the access in
    one query, the participants, the fights (none here). No post is read, however many the
    scene has (the scene's version, which counts them, is not asked for)."""
    client = client_for(player_a)
    panel = url("combat_panel", campaign, story.pk)
    add_posts(story, master, 3)
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(panel)
    assert response.status_code == 200 and 'id="combat"' in response.content.decode()
    assert len(ctx.captured_queries) == 4
    assert not any("escenas_post" in q["sql"] for q in ctx.captured_queries)


def _post_data(**extra):
    from tests.escenas.factories import new_key

    return {"idempotency_key": new_key(), "body": "¡Le doy con el puño!"} | extra


def test_a_player_declares_from_the_post_form(fight, player_a, char_a, story):
    ana = Combatant.objects.get(combat=fight, side="character")
    z1 = Combatant.objects.filter(combat=fight, side="zombie").first()
    client = client_for(player_a)
    page = client.get(story.get_absolute_url()).content.decode()
    assert 'name="combat_for"' in page
    response = client.post(
        url("post_create", fight.campaign, story.pk),
        _post_data(
            voice=f"character:{char_a.pk}",
            combat_for=f"{fight.pk}:{ana.pk}",
            combat_action="attack",
            combat_target=z1.pk,
            combat_weapon="desarmado",
            combat_turn=1,
        ),
    )
    assert response.status_code == 302
    d = Declaration.objects.get(combat=fight)
    assert d.post is not None and d.post.body == "¡Le doy con el puño!" and d.target_id == z1.pk


def test_a_refused_declaration_keeps_the_post_unsent(fight, player_a, char_a, story):
    from escenas.models import Post

    ana = Combatant.objects.get(combat=fight, side="character")
    response = client_for(player_a).post(
        url("post_create", fight.campaign, story.pk),
        _post_data(
            voice=f"character:{char_a.pk}",
            combat_for=f"{fight.pk}:{ana.pk}",
            combat_action="attack",
            combat_turn=1,
        ),
    )
    assert response.status_code == 400  # no target: the form comes back with the message
    assert not Post.objects.filter(scene=story).exists()
    assert not Declaration.objects.exists()


def test_medicine_cure_from_the_scene(monkeypatch, story, player_a, char_a, campaign):
    from escenas.models import MedicineCure, Post
    from personajes.models import Character, TraitValue
    from tests.reglas.world_helpers import ScriptedRng

    Character.objects.filter(pk=char_a.pk).update(disease_day=1, disease_duration=4)
    TraitValue.objects.filter(character=char_a, trait__slug="medicina").update(value=1)
    client = client_for(player_a)
    assert "curar/" in client.get(story.get_absolute_url()).content.decode()
    dice = ScriptedRng([99, 24])  # 30 % − 5 (disease day 1, R9) = 25 %
    monkeypatch.setattr("nucleo.ledger.make_rng", lambda entropy, key: dice)
    response = client.post(
        url("medicine_cure", campaign, story.pk), {"patient": char_a.pk, "healer": char_a.pk}
    )
    assert response.status_code == 302
    cure = MedicineCure.objects.get()
    assert cure.cured and cure.roll.dice == [99, 24]
    char_a.refresh_from_db()
    assert char_a.disease_day == 0
    post = Post.objects.get(scene=story)
    assert post.post_rolls.get().roll_id == cure.roll_id
