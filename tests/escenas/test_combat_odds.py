"""The master's odds page for a scene's characters before a fight, and the one reading of how
zombies spread over a party that the product (``escenas.combat.assign_victims``) and the
calculator (``reglas.combat.odds.zombies``) share."""

from __future__ import annotations

import pytest
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils import translation

from escenas import combat
from escenas.combat_odds import party_of, scene_odds
from escenas.models import Combatant
from reglas.combat.odds.zombies import _Fights, _reallocate
from tests.escenas.conftest import client_for

pytestmark = pytest.mark.django_db


def url(campaign, scene):
    return reverse("escenas:combat_odds", args=[campaign.slug, scene.pk])


def product_victims(fight, humans):
    order = {h.pk: i for i, h in enumerate(humans)}
    zombies = Combatant.objects.filter(combat=fight, side="zombie").order_by("position", "pk")
    return [order.get(z.victim_id) for z in zombies]


def calculator_victims(f) -> list[int]:
    return [int(t) for t in f.z_target[:, 0]]


@pytest.mark.parametrize(("n_humans", "n_zombies", "falls"), [(2, 3, 0), (3, 5, 1)])
def test_the_product_and_the_calculator_spread_zombies_alike(
    story, master, campaign, n_humans, n_zombies, falls
):
    from tests.factories import CharacterFactory

    people = [
        CharacterFactory(campaign=campaign, name=f"P{i}", status="approved")
        for i in range(n_humans)
    ]
    story.participants.add(*people)
    fight = combat.combat_open(scene=story, master=master, kind="zombies", characters=people)
    combat.combatants_add(combat=fight, master=master, zombies=n_zombies)
    humans = list(fight.combatants.filter(side="character").order_by("position", "pk"))
    f = _Fights.start(1, n_humans, n_zombies)
    assert product_victims(fight, humans) == calculator_victims(f)
    assert calculator_victims(f) == [j % n_humans for j in range(n_zombies)]
    # One human falls: its zombies go, in order, to the least attacked living human.
    Combatant.objects.filter(pk=humans[falls].pk).update(alive=False)
    combat.assign_victims(fight)
    f.h_alive[falls, 0] = False
    _reallocate(f, n_humans)
    assert product_victims(fight, humans) == calculator_victims(f)
    assert falls not in calculator_victims(f)


def test_the_party_is_the_scenes_living_characters_with_their_sheets(campaign, char_a):
    (member,) = party_of(campaign, [char_a])
    assert member.name == "Ana Forastera"
    assert member.traits["fuerza"] == 2 and member.weapon.kind == "unarmed"
    assert member.penalty == 0


def test_one_zombie_one_turn_agrees_with_the_exact_value(campaign, char_a):
    # Seeded, so repeatable; the bound is 4 standard errors of 20 000 fights.
    odds = scene_odds(
        campaign=campaign, characters=[char_a], zombies=1, turns=1, simulations=20_000, seed=7
    )
    exact = odds.exact_one_turn
    for simulated, value in [
        (odds.kill_all.p, exact.p_kill_all),
        (odds.bitten.p, exact.p_bitten),
        (odds.dead.p, exact.p_dead),
    ]:
        bound = 4 * (max(value * (1 - value), 1e-4) / 20_000) ** 0.5
        assert abs(simulated - value) <= bound
    assert 0 < exact.p_kill_all < 1 and odds.simulations == 20_000


@pytest.mark.parametrize(("who", "status"), [("master", 200), ("player_a", 404), ("outsider", 404)])
def test_only_the_master_sees_the_odds_page(who, status, cast, story, campaign):
    assert client_for(cast[who]).get(url(campaign, story)).status_code == status


def test_the_odds_page_simulates_with_a_seed(story, master, campaign):
    client = client_for(master)
    query = {"zombies": 2, "turns": 3, "simulations": 2000, "seed": 11}
    first = client.get(url(campaign, story), query)
    assert first.status_code == 200
    odds = first.context["odds"]
    assert (odds.zombies, odds.turns, odds.simulations) == (2, 3, 2000)
    assert [m.name for m in odds.party] == ["Ana Forastera"]
    again = client.get(url(campaign, story), query).context["odds"]
    assert again.kill_all == odds.kill_all and again.dead == odds.dead  # same seed, same answer
    page = first.content.decode()
    with translation.override("es"):
        shown = floatformat(odds.kill_all.p, 3)
    assert "Ana Forastera" in page and f'<td class="num">{shown}</td>' in page
    bad = client.get(url(campaign, story), {"zombies": 0, "turns": 3, "simulations": 2000})
    assert bad.status_code == 200 and bad.context["odds"] is None
    assert "has-error" in bad.content.decode()
