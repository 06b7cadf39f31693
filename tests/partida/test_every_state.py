"""Every page of a character in every state, with every kind of roll the tick and the pages store.

Cast: ``master`` runs ``campaign`` (day 7); ``player_a`` plays the seven characters below, one
per state; ``player_b`` plays in the campaign too (reads the approved sheets, the campaign and
the scene, not the diaries).

How the states are made: one real tick (day 7 → 8) with the disease odds at 100 %, so every
healthy character falls ill and the tick stores its R12 duration roll (an expression roll), and
``recovering`` ends its disease (the tick stores its R12 resistance roll, an action roll). Before
the tick ``player_a`` posts in the story scene with an action roll with its threshold, one
waiting for it, an event roll and a free dice roll. After it each character is put in its state
(the counters as the tick would leave them after more days). Then the sheet, the diary, the
scene, the campaign page and the API's detail, rolls and diary answer 200 to the owner and the
master, and show the stored dice.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from escenas import services
from escenas.access import access_scene
from mundo.models import Campaign
from partida.tick import advance_day
from personajes.models import Character, Roll
from tests.escenas.factories import SceneFactory, new_key
from tests.factories import SettlementFactory
from tests.partida.tick_helpers import NO_DISEASE, good_shelter, survivor

pytestmark = pytest.mark.django_db

# The state each character is put in after the tick (fields of Character).
HEALTHY = {"disease_day": 0, "disease_duration": 0, "disease_days_treated": 0}
STATES: dict[str, dict[str, object]] = {
    "healthy": HEALTHY,
    "hungry": {
        **HEALTHY,
        "hunger_days": 3,
        "thirst_days": 1,
        "fatigue_days": 2,
        "unhygienic_days": 2,
        "dirty": True,
    },
    "sick": {},  # as the tick left it: day 1 of a disease of 3..8 days
    "infected": {**HEALTHY, "infection_day": 2, "infection_duration": 4},
    "amputated": {**HEALTHY, "amputations": ["brazo izquierdo"]},
    "dead": {**HEALTHY, "status": Character.Status.DEAD, "death_cause": "thirst", "death_day": 7},
    "risen": {
        **HEALTHY,
        "status": Character.Status.RISEN,
        "death_cause": "infection",
        "death_day": 7,
    },
}


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _post_rolls(scene, player, character: Character) -> None:
    """The four kinds of roll a post stores, for ``character`` (R2, R3, R4)."""
    access = access_scene(player, scene.pk, campaign=scene.campaign)
    specs = [
        services.RollSpec(kind="action", character=character, trait="fuerza", threshold=30),
        services.RollSpec(kind="action", character=character, trait="percepcion"),
        services.RollSpec(kind="event", probability=26, reason="¿Zombis?"),
        services.RollSpec(kind="expression", expression="2d6+1 daño"),
    ]
    for spec in specs:
        services.post_create(
            access=access,
            author=player,
            idempotency_key=new_key(),
            voice="character",
            character=character,
            body=f"{character.name} lo intenta.",
            roll=spec,
        )


@pytest.fixture
def world(campaign, master, player_a, player_b):
    """The seven characters after the tick, by state; the story scene."""
    ill = {k: 100 if k.startswith("season_base") else 0 for k in NO_DISEASE}
    Campaign.objects.filter(pk=campaign.pk).update(rule_overrides=ill)
    campaign.refresh_from_db()
    shelter = good_shelter(SettlementFactory(campaign=campaign))
    cast = {
        state: survivor(
            campaign, shelter=shelter, player=player_a, name=f"PJ {state}", allocation={"fuerza": 3}
        )
        for state in STATES
    }
    recovering = survivor(
        campaign,
        shelter=shelter,
        player=player_a,
        name="PJ recovering",
        allocation={"resistencia": 4},
        disease_day=3,
        disease_duration=3,
    )
    scene = SceneFactory(campaign=campaign, participants=[*cast.values(), recovering])
    for character in cast.values():
        _post_rolls(scene, player_a, character)
    advance_day(campaign)
    for state, fields in STATES.items():
        Character.objects.filter(pk=cast[state].pk).update(**fields)
    return {"cast": cast, "recovering": recovering, "scene": scene}


def test_the_tick_stored_both_of_its_roll_kinds(world):
    sick = world["cast"]["sick"]
    duration = Roll.objects.get(character=sick, kind=Roll.Kind.EXPRESSION, expression="1d6+2")
    # One entry per dice term, as every expression roll: 1d6 with its face, total = face + 2.
    (term,) = duration.dice
    assert term["expression"] == "1d6" and term["sign"] == 1 and term["successes"] is None
    assert term["faces"] == [term["value"]] and 1 <= term["value"] <= 6
    assert duration.total == term["value"] + 2
    sick.refresh_from_db()
    assert (sick.disease_day, sick.disease_duration) == (1, duration.total)
    resistance = Roll.objects.get(character=world["recovering"], kind=Roll.Kind.ACTION)
    assert resistance.trait_name == "Resistencia" and resistance.trait_value == 4
    # R3: trait + 1 dice.
    assert len(resistance.dice) == 4 + 1 and all(1 <= d <= 100 for d in resistance.dice)


@pytest.mark.parametrize("state", list(STATES))
def test_every_page_of_a_character_in_each_state_answers(state, world, master, player_a, campaign):
    character = world["cast"][state]
    character.refresh_from_db()
    rolls = list(Roll.objects.filter(character=character))
    # The post's four rolls (made in the character's voice, so they are the character's) and
    # the tick's duration roll.
    kinds = sorted(r.kind for r in rolls)
    assert kinds == ["action", "action", "event", "expression", "expression"]
    pages = {
        "sheet": reverse("personajes:character", kwargs={"pk": character.pk}),
        "diary": reverse(
            "escenas:diary", kwargs={"slug": campaign.slug, "character": character.pk}
        ),
        "scene": world["scene"].get_absolute_url(),
        "campaign": campaign.get_absolute_url(),
        "api detail": reverse("v1:character-detail", kwargs={"pk": character.pk}),
        "api rolls": reverse("v1:character-roll-list", kwargs={"pk": character.pk}),
        "api diary": reverse("v1:character-diary", kwargs={"pk": character.pk}),
    }
    for who, user in (("owner", player_a), ("master", master)):
        client = _client(user)
        for name, url in pages.items():
            response = client.get(url, follow=True)
            assert response.status_code == 200, (state, who, name, url)
        sheet = client.get(pages["sheet"]).content.decode()
        # The duration's die shown as a die, after the roll's expression.
        duration = next(r for r in rolls if r.expression == "1d6+2")
        face = duration.dice[0]["faces"][0]
        shown = sheet.split("<code>1d6+2</code>", 1)[1]
        assert f'<li class="die">{face}<span' in shown.split("</ol>", 1)[0]
        assert character.name in sheet
