"""The API of supplies that move and of requests to enter a scene (issue 11 item 3's API):
who may read and write what, and what each answer holds.

Cast: the matrix's (tests/api/conftest.py ``world``): ``master`` runs ``la-campana``;
``player_a`` plays Ana (``char_a``, approved, carrying 2 units of a food item); ``player_b``
plays there too (draft Beto); ``outsider``, ``anonymous``, ``token_a`` (player_a's token) and
``revoked``. Added here: Ana lives in the Polideportivo of Villarejo, whose stash holds 3 L of
water; ``cellar`` is a story scene every member reads and nobody takes part in (Ana may ask to
enter); ``asked`` is Ana's pending request to enter the ``cellar``.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.api.conftest import ACTORS
from tests.api.test_permissions import API, Row

pytestmark = pytest.mark.django_db

TAKE_WATER = {"action": "take", "item_type": 0, "quantity": "1"}  # 0: the water's id
ENTER = {"character": 0}  # 0: Ana's id
ACCEPT = {"accept": True}


@pytest.fixture
def places_world(world):
    from escenas import joining, scenes
    from escenas.access import access_scene
    from escenas.models import Scene
    from personajes.models import Character
    from tests.mundo.factories import ShelterFactory
    from tests.partida.tick_helpers import item, stash

    home = ShelterFactory(settlement=world["village"], name="Polideportivo")
    Character.objects.filter(pk=world["char_a"].pk).update(
        shelter=home, settlement=world["village"]
    )
    water = item(world["campaign"], "water", name="Litro de agua")
    stash(home, water, 3)
    cellar = scenes.scene_create(
        campaign=world["campaign"],
        master=world["master"],
        title="El sótano",
        readers=Scene.Readers.MEMBERS,
        participants=[],
    )
    other = scenes.scene_create(
        campaign=world["campaign"],
        master=world["master"],
        title="El tejado",
        readers=Scene.Readers.MEMBERS,
        participants=[],
    )
    asked = joining.join_request_create(
        access=access_scene(world["player_a"], other.pk),
        user=world["player_a"],
        character_id=world["char_a"].pk,
    )
    return {**world, "home": home, "water": water, "cellar": cellar, "asked": asked}


def body(row: Row, w: dict) -> dict | None:
    if row.body is TAKE_WATER:
        return {**TAKE_WATER, "item_type": w["water"].pk}
    if row.body is ENTER:
        return {"character": w["char_a"].pk}
    return row.body


def do(client, row: Row, w: dict):
    ids = {name: thing.pk for name, thing in w.items() if hasattr(thing, "pk")}
    url = API + row.url.format(slug=w["campaign"].slug, **ids)
    kwargs = {"format": "json"} if row.body is not None else {}
    return getattr(client, row.method.lower())(url, body(row, w), **kwargs)


# fmt: off
#                    master player_a player_b outsider anonymous token_a revoked
MATRIX: list[Row] = [
    Row("GET", "/characters/{char_a}/movements/",
                        (200,   200,     403,     404,     404,      200,    401)),
    Row("POST", "/characters/{char_a}/movements/",
                        (201,   201,     403,     404,     401,      201,    401), TAKE_WATER),
    Row("GET", "/places/{home}/movements/",
                        (200,   404,     404,     404,     401,      404,    401)),
    Row("POST", "/scenes/{cellar}/join-requests/",
                        (400,   201,     400,     404,     401,      201,    401), ENTER),
    Row("GET", "/campaigns/{slug}/join-requests/",
                        (200,   404,     404,     404,     401,      404,    401)),
    Row("POST", "/join-requests/{asked}/decision/",
                        (200,   404,     404,     404,     401,      404,    401), ACCEPT),
]
# fmt: on

CELLS = [
    pytest.param(row, actor, expected, id=f"{row.method} {row.url} as {actor}")
    for row in MATRIX
    for actor, expected in zip(ACTORS, row.expected, strict=True)
]


@pytest.mark.parametrize(("row", "actor", "expected"), CELLS)
def test_world_api_permissions(places_world, clients, row, actor, expected):
    response = do(clients[actor], row, places_world)
    assert response.status_code == expected, response.content[:300]


def test_a_take_from_the_stash_is_a_movement_in_both_histories(places_world, clients):
    w = places_world
    made = clients["player_a"].post(
        f"{API}/characters/{w['char_a'].pk}/movements/",
        {"action": "take", "item_type": w["water"].pk, "quantity": "2,5"},
        format="json",
    )
    assert made.status_code == 201
    assert made.json() | {"id": 0, "created_at": ""} == {
        "id": 0,
        "day": 7,
        "item": "Litro de agua",
        "item_type": w["water"].pk,
        "quantity": "2.500",
        "from_character": None,
        "from_place": w["home"].pk,
        "to_character": w["char_a"].pk,
        "to_place": None,
        "reason": "stash_take",
        "reverses": None,
        "made_by": "alicia",
        "created_at": "",
    }
    too_much = clients["player_a"].post(
        f"{API}/characters/{w['char_a'].pk}/movements/",
        {"action": "take", "item_type": w["water"].pk, "quantity": "1"},
        format="json",
    )
    assert too_much.status_code == 400
    assert too_much.json()["quantity"] == ["Litro de agua: sólo hay 0.5; no se pueden quitar 1."]
    mine = clients["player_a"].get(f"{API}/characters/{w['char_a'].pk}/movements/").json()
    place = clients["master"].get(f"{API}/places/{w['home'].pk}/movements/").json()
    assert mine["count"] == place["count"] == 1
    assert Decimal(mine["results"][0]["quantity"]) == Decimal("2.5")
    bad = clients["player_a"].post(
        f"{API}/characters/{w['char_a'].pk}/movements/", {"action": "steal"}, format="json"
    )
    assert bad.status_code == 400 and "action" in bad.json()


def test_the_master_lists_and_decides_join_requests(places_world, clients):
    w = places_world
    listed = clients["master"].get(f"{API}/campaigns/{w['campaign'].slug}/join-requests/").json()
    assert [(r["character_name"], r["scene_title"], r["status"]) for r in listed["results"]] == [
        ("Ana", "El tejado", "pending")
    ]
    url = f"{API}/join-requests/{w['asked'].pk}/decision/"
    decided = clients["master"].post(url, {"accept": True}, format="json")
    assert decided.status_code == 200 and decided.json()["status"] == "accepted"
    assert w["asked"].scene.participants.filter(pk=w["char_a"].pk).exists()
    again = clients["master"].post(url, {"accept": False}, format="json")
    assert again.status_code == 400
    empty = clients["master"].get(f"{API}/campaigns/{w['campaign'].slug}/join-requests/").json()
    assert empty["count"] == 0
