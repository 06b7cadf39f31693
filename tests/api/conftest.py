"""Fixtures of the API tests: clients for the whole cast, tokens, and a clean throttle.

The cast (tests/conftest.py) plus two credentials:
- ``token_a``  player_a's API token (``Authorization: Token <key>``): player_a's rights exactly;
- ``revoked``  a revoked token of player_a: 401 everywhere, even on public data.
"""

from __future__ import annotations

import pytest
from django.core.cache.backends.locmem import LocMemCache
from rest_framework.test import APIClient

ACTORS = ("master", "player_a", "player_b", "outsider", "anonymous", "token_a", "revoked")


@pytest.fixture(autouse=True)
def fresh_throttle_cache(monkeypatch):
    """Each test counts requests from zero, in memory: the throttles never share counts with
    another test (ids repeat on SQLite) nor touch the real cache (Redis in CI)."""
    from partida.throttling import ApiClientThrottle, ApiUserThrottle

    cache = LocMemCache("api-throttle-test", {})
    cache.clear()
    monkeypatch.setattr(ApiClientThrottle, "cache", cache)
    monkeypatch.setattr(ApiUserThrottle, "cache", cache)
    return cache


@pytest.fixture
def key_a(player_a) -> str:
    from partida.services import token_create

    return token_create(user=player_a, name="bot de alicia").key


@pytest.fixture
def revoked_key(player_a) -> str:
    from partida.services import token_create, token_revoke

    made = token_create(user=player_a, name="viejo")
    token_revoke(token=made.token, user=player_a)
    return made.key


def token_client(key: str, keyword: str = "Token") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{keyword} {key}")
    return client


def session_client(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


class Clients(dict):
    """An API client per actor of ``ACTORS``, made on first use (a session login is a write:
    the matrix makes only the one it needs)."""

    def __init__(self, cast: dict, key_a: str, revoked_key: str) -> None:
        super().__init__()
        self.cast, self.key_a, self.revoked_key = cast, key_a, revoked_key

    def __missing__(self, actor: str) -> APIClient:
        if actor == "token_a":
            client = token_client(self.key_a)
        elif actor == "revoked":
            client = token_client(self.revoked_key, keyword="Bearer")
        else:
            client = session_client(self.cast[actor])
        self[actor] = client
        return client


@pytest.fixture
def clients(cast, key_a, revoked_key) -> Clients:
    """An API client per actor of ``ACTORS``."""
    return Clients(cast, key_a, revoked_key)


@pytest.fixture
def world(campaign, master, player_a, player_b, key_a):
    """What the matrix reads, in the private ``campaign`` (day 7):

    - ``village``  a settlement (K = 200: 170 zombies, 30 survivors on day 7);
    - ``char_a``   player_a's approved character (Fuerza 2), with a can of food and one action
      roll whose threshold the master has not set yet (``roll_a``);
    - ``draft_b``  player_b's draft: only player_b and the master see it;
    - ``token_a``  the ApiToken of ``key_a``;
    - ``open``     a public campaign run by someone else, with one settlement;
    - ``diary``    Ana's diary entries of days 4, 5 and 6 (R25 rows);
    - scenes (``make_scenes``): ``story`` (Ana takes part; only participants and the master
      read it) with ``post_a`` (player_a as Ana, with an action roll ``post_roll``) and a
      master's post with a hidden event roll, probability not set (``hidden_roll``);
      ``watch`` (every player reads, Ana's player writes); ``offtopic`` (every member);
      ``notes`` (the master's); ``diary_scene`` (Ana's, with ``diary_post``); a pending roll
      request ``request`` for Ana.
    """
    from partida.models import ApiToken
    from personajes.models import Character
    from personajes.rolls import roll_action_for_character
    from tests.factories import (
        CampaignFactory,
        CharacterFactory,
        InventoryItemFactory,
        MembershipFactory,
        SettlementFactory,
        UserFactory,
    )

    village = SettlementFactory(
        campaign=campaign, name="Villarejo", slug="villarejo", population=200, area_m2=160_000
    )
    char_a = CharacterFactory(
        campaign=campaign,
        player=player_a,
        name="Ana",
        status=Character.Status.APPROVED,
        allocation={"fuerza": 2, "agilidad": 8},
    )
    InventoryItemFactory(character=char_a, quantity=2)
    roll_a = roll_action_for_character(
        character=char_a, trait="fuerza", threshold=None, made_by=player_a
    )
    draft_b = CharacterFactory(campaign=campaign, player=player_b, name="Beto")
    open_campaign = CampaignFactory(name="Abierta", slug="abierta", is_public=True)
    MembershipFactory(
        campaign=open_campaign, user=UserFactory(username="otro-master"), role="master"
    )
    SettlementFactory(campaign=open_campaign, name="Llano", slug="llano")
    diary = [diary_entry(char_a, day) for day in (4, 5, 6)]
    scenes = make_scenes(campaign, master, player_a, char_a)
    return {
        **scenes,
        "diary": diary,
        "campaign": campaign,
        "master": master,
        "player_a": player_a,
        "player_b": player_b,
        "village": village,
        "char_a": char_a,
        "roll_a": roll_a,
        "draft_b": draft_b,
        "token_a": ApiToken.objects.get(user=player_a, name="bot de alicia"),
        "open": open_campaign,
    }


def diary_entry(character, day: int, **overrides):
    """A diary row (R25) as the tick writes it: a hungry day by default."""
    import datetime

    from personajes.models import DiaryEntry

    values = dict(
        character=character,
        day=day,
        date=datetime.date(2026, 11, 1) + datetime.timedelta(days=day),
        weather_label="nublado",
        min_temp_c=3.5,
        kcal_eaten=1500.0,
        kcal_needed=2000.0,
        water_l=2.0,
        water_needed_l=2.0,
        sleep_h=8.0,
        sleep_needed_h=6.0,
        hygiene_ok=True,
        hunger_days=1,
        thirst_days=0,
        fatigue_days=0,
        unhygienic_days=0,
        dirty=False,
        extra_dirt=False,
        disease_day=0,
        disease_duration=0,
        infection_day=0,
        infection_duration=0,
        penalty_total=10,
        penalty_breakdown=[{"source": "hunger", "label": "Hambre (1 día)", "points": 10}],
        disease_p=12,
        disease_breakdown=[
            {"source": "season", "label": "Otoño", "points": 2},
            {"source": "hunger", "label": "Hambre", "points": 10},
        ],
        disease_die=57,
        fell_ill=False,
        status="alive",
        death_cause="",
    )
    values.update(overrides)
    return DiaryEntry.objects.create(**values)


def make_scenes(campaign, master, player_a, char_a) -> dict:
    """The scenes of the matrix, with posts made through the scene services."""
    import uuid

    from escenas import access as escenas_access
    from escenas import scenes, services
    from escenas.models import PostRoll, Scene
    from personajes.models import Trait

    story = scenes.scene_create(
        campaign=campaign,
        master=master,
        title="La gasolinera",
        readers=Scene.Readers.PARTICIPANTS,
        participants=[char_a],
    )
    offtopic = scenes.offtopic_scene_for(campaign)
    notes = scenes.scene_create(
        campaign=campaign, master=master, title="Notas", kind=Scene.Kind.NOTES
    )
    diary_scene = scenes.diary_scene_for(char_a)
    watch = scenes.scene_create(  # every player reads it; only Ana's player writes in it
        campaign=campaign,
        master=master,
        title="La plaza",
        readers=Scene.Readers.MEMBERS,
        participants=[char_a],
    )

    def post(scene, user, **kwargs):
        access = escenas_access.access_scene(user, scene.pk, campaign=campaign)
        return services.post_create(
            access=access, author=user, idempotency_key=uuid.uuid4().hex, **kwargs
        )[0]

    post_a = post(
        story,
        player_a,
        body="Empujo la puerta.",
        voice="character",
        character=char_a,
        roll=services.RollSpec(kind="action", character=char_a, trait="fuerza"),
    )
    master_post = post(
        story,
        master,
        body="Algo se mueve.",
        voice="narrator",
        roll=services.RollSpec(kind="event", probability=None, hidden=True),
    )
    diary_post = post(diary_scene, player_a, body="Hoy he comido poco.")
    access = escenas_access.access_scene(master, story.pk, campaign=campaign)
    request = services.roll_request_create(
        access=access,
        master=master,
        character=char_a,
        trait=Trait.objects.get(campaign=campaign, slug="percepcion"),
        threshold=40,
        reason="¿Oyes algo?",
    )
    return {
        "story": story,
        "watch": watch,
        "offtopic": offtopic,
        "notes": notes,
        "diary_scene": diary_scene,
        "post_a": post_a,
        "post_roll": PostRoll.objects.get(post=post_a).roll,
        "hidden_roll": PostRoll.objects.get(post=master_post).roll,
        "diary_post": diary_post,
        "request": request,
    }
