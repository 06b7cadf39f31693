"""The permission matrix: every endpoint × method × member of the cast, with the status each
one gets — generated from the table below, one test per cell.

Who is who (tests/conftest.py, tests/api/conftest.py): ``master`` runs the private campaign
``la-campana``; ``player_a`` owns the approved character Ana (``char_a``) and its roll
(``roll_a``, threshold not set yet); ``player_b`` plays there too and owns the draft Beto
(``draft_b``); ``outsider`` is signed in but in no campaign; ``anonymous`` has no credentials;
``token_a`` is player_a's API token (player_a's rights exactly); ``revoked`` is a revoked token
(401 everywhere). ``abierta`` is a public campaign of someone else.

The rules are the pages' (the same selectors): a private campaign and everything in it is 404
to non-members (its existence is not revealed); a character the user cannot see at all is 404;
its private parts (rolls, diary) are 403 to those who see only its public part; writes need a
user (401) and the right role (403).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.api.conftest import ACTORS

API = "/api/v1"


@dataclass(frozen=True)
class Row:
    method: str
    url: str
    expected: tuple[int, int, int, int, int, int, int]  # in the order of ACTORS
    body: dict[str, Any] | None = None


THRESHOLD_40 = {"threshold": 40}
NEW_TOKEN = {"name": "nuevo"}
HELLO = {"body": "Hola.", "as": "player", "idempotency_key": "matrix-0001"}
ASK_ANA = {"character": 0, "trait": "fuerza"}  # 0: Ana's id, filled in by body_of

# fmt: off
#                    master player_a player_b outsider anonymous token_a revoked
MATRIX: list[Row] = [
    Row("GET", "/campaigns/",
                        (200,   200,     200,     200,     200,      200,    401)),
    Row("GET", "/campaigns/?role=master",
                        (200,   200,     200,     200,     200,      200,    401)),
    Row("POST", "/campaigns/",
                        (405,   405,     405,     405,     405,      405,    401), {}),
    Row("GET", "/campaigns/{slug}/",
                        (200,   200,     200,     404,     404,      200,    401)),
    Row("PUT", "/campaigns/{slug}/",
                        (405,   405,     405,     405,     405,      405,    401), {}),
    Row("GET", "/campaigns/abierta/",
                        (200,   200,     200,     200,     200,      200,    401)),
    Row("GET", "/campaigns/{slug}/settlements/",
                        (200,   200,     200,     404,     404,      200,    401)),
    Row("GET", "/campaigns/{slug}/settlements/villarejo/",
                        (200,   200,     200,     404,     404,      200,    401)),
    Row("GET", "/campaigns/abierta/settlements/",
                        (200,   200,     200,     200,     200,      200,    401)),
    Row("GET", "/campaigns/{slug}/characters/",
                        (200,   200,     200,     404,     404,      200,    401)),
    Row("GET", "/characters/",
                        (200,   200,     200,     200,     200,      200,    401)),
    Row("GET", "/characters/{char_a}/",
                        (200,   200,     200,     404,     404,      200,    401)),
    Row("DELETE", "/characters/{char_a}/",
                        (405,   405,     405,     405,     405,      405,    401)),
    Row("GET", "/characters/{draft_b}/",
                        (200,   404,     200,     404,     404,      404,    401)),
    Row("GET", "/characters/{char_a}/rolls/",
                        (200,   200,     403,     404,     404,      200,    401)),
    Row("GET", "/characters/{draft_b}/rolls/",
                        (200,   404,     200,     404,     404,      404,    401)),
    Row("GET", "/rolls/{roll_a}/",
                        (200,   200,     404,     404,     404,      200,    401)),
    Row("POST", "/rolls/{roll_a}/threshold/",
                        (200,   403,     404,     404,     401,      403,    401), THRESHOLD_40),
    Row("GET", "/rolls/{roll_a}/threshold/",
                        (405,   405,     405,     405,     405,      405,    401)),
    Row("GET", "/characters/{char_a}/diary/",
                        (200,   200,     403,     404,     404,      200,    401)),
    Row("GET", "/characters/{char_a}/diary/?day_min=5&day_max=5",
                        (200,   200,     403,     404,     404,      200,    401)),
    Row("POST", "/characters/{char_a}/diary/",
                        (405,   405,     405,     405,     405,      405,    401), {}),
    Row("GET", "/characters/{draft_b}/diary/",
                        (200,   404,     200,     404,     404,      404,    401)),
    Row("GET", "/characters/{char_a}/diary/posts/",
                        (200,   200,     403,     404,     404,      200,    401)),
    Row("GET", "/campaigns/{slug}/scenes/",
                        (200,   200,     200,     404,     404,      200,    401)),
    Row("GET", "/campaigns/abierta/scenes/",
                        (200,   200,     200,     200,     200,      200,    401)),
    Row("GET", "/scenes/{story}/posts/",
                        (200,   200,     404,     404,     404,      200,    401)),
    Row("POST", "/scenes/{story}/posts/",
                        (201,   201,     404,     404,     401,      201,    401), HELLO),
    Row("PUT", "/scenes/{story}/posts/",
                        (405,   405,     405,     405,     405,      405,    401), HELLO),
    Row("GET", "/scenes/{watch}/posts/",
                        (200,   200,     200,     404,     404,      200,    401)),
    Row("POST", "/scenes/{watch}/posts/",
                        (201,   201,     403,     404,     401,      201,    401), HELLO),
    Row("GET", "/scenes/{offtopic}/posts/",
                        (200,   200,     200,     404,     404,      200,    401)),
    Row("POST", "/scenes/{offtopic}/posts/",
                        (201,   201,     201,     404,     401,      201,    401), HELLO),
    Row("GET", "/scenes/{notes}/posts/",
                        (200,   404,     404,     404,     404,      404,    401)),
    Row("POST", "/scenes/{diary_scene}/posts/",
                        (201,   201,     404,     404,     401,      201,    401), HELLO),
    Row("GET", "/rolls/{post_roll}/",
                        (200,   200,     404,     404,     404,      200,    401)),
    Row("GET", "/rolls/{hidden_roll}/",
                        (200,   404,     404,     404,     404,      404,    401)),
    Row("POST", "/rolls/{post_roll}/threshold/",
                        (200,   403,     404,     404,     401,      403,    401), THRESHOLD_40),
    Row("POST", "/rolls/{hidden_roll}/threshold/",
                        (200,   404,     404,     404,     401,      404,    401), THRESHOLD_40),
    Row("GET", "/scenes/{story}/roll-requests/",
                        (200,   200,     404,     404,     404,      200,    401)),
    Row("POST", "/scenes/{story}/roll-requests/",
                        (201,   403,     404,     404,     401,      403,    401), ASK_ANA),
    Row("GET", "/me/",
                        (200,   200,     200,     200,     401,      200,    401)),
    Row("GET", "/tokens/",
                        (200,   200,     200,     200,     401,      200,    401)),
    Row("POST", "/tokens/",
                        (201,   201,     201,     201,     401,      403,    401), NEW_TOKEN),
    Row("GET", "/tokens/{token_a}/",
                        (404,   200,     404,     404,     401,      200,    401)),
    Row("DELETE", "/tokens/{token_a}/",
                        (404,   204,     404,     404,     401,      204,    401)),
]
# fmt: on


def url_of(row: Row, world: dict[str, Any]) -> str:
    ids = {name: thing.pk for name, thing in world.items() if hasattr(thing, "pk")}
    return API + row.url.format(slug=world["campaign"].slug, **ids)


def body_of(row: Row, world: dict[str, Any]) -> dict[str, Any] | None:
    if row.body is ASK_ANA:
        return {**ASK_ANA, "character": world["char_a"].pk}
    return row.body


def call(client: Any, row: Row, world: dict[str, Any]) -> Any:
    kwargs = {"format": "json"} if row.body is not None else {}
    return getattr(client, row.method.lower())(url_of(row, world), body_of(row, world), **kwargs)


# Reads change nothing: one world per row, every actor in turn (one readable diff per row).
# Writes do: one fresh world per row and actor.
READS = [pytest.param(row, id=f"{row.method} {row.url}") for row in MATRIX if row.method == "GET"]
WRITES = [
    pytest.param(row, actor, expected, id=f"{row.method} {row.url} as {actor}")
    for row in MATRIX
    if row.method != "GET"
    for actor, expected in zip(ACTORS, row.expected, strict=True)
]


@pytest.mark.parametrize("row", READS)
def test_permission_matrix_reads(world, clients, row):
    got = {}
    for actor in ACTORS:
        response = call(clients[actor], row, world)
        got[actor] = response.status_code
        if response.status_code >= 400:
            assert "detail" in response.json()  # every refusal says why
    assert got == dict(zip(ACTORS, row.expected, strict=True))


@pytest.mark.parametrize(("row", "actor", "expected"), WRITES)
def test_permission_matrix_writes(world, clients, row, actor, expected):
    response = call(clients[actor], row, world)
    assert response.status_code == expected, response.content[:300]
    if expected >= 400:
        assert "detail" in response.json()  # every refusal says why


@pytest.mark.parametrize(
    ("actor", "view"),
    [
        ("master", "private"),
        ("player_a", "private"),
        ("token_a", "private"),
        ("player_b", "public"),
    ],
)
def test_character_shows_its_private_part_only_to_its_player_and_the_master(
    world, clients, actor, view
):
    body = clients[actor].get(f"{API}/characters/{world['char_a'].pk}/").json()
    assert body["view"] == view
    private_fields = {"condition", "penalty", "disease", "inventory", "review_comment"}
    if view == "private":
        assert private_fields <= set(body)
        assert body["inventory"][0]["quantity"] == 2
    else:
        assert not private_fields & set(body)
    assert [t["value"] for t in body["traits"] if t["slug"] == "fuerza"] == [2]


def test_lists_show_what_each_one_may_see(world, clients):
    def names(actor: str, url: str) -> set[str]:
        return {
            row.get("name") or row.get("slug") for row in clients[actor].get(url).json()["results"]
        }

    chars = f"{API}/campaigns/{world['campaign'].slug}/characters/"
    assert names("master", chars) == {"Ana", "Beto"}
    assert names("player_b", chars) == {"Ana", "Beto"}  # Beto is player_b's own draft
    assert names("player_a", chars) == {"Ana"}
    assert names("anonymous", f"{API}/campaigns/") == {"Abierta"}
    assert names("outsider", f"{API}/campaigns/") == {"Abierta"}
    assert names("player_a", f"{API}/campaigns/") == {"La Campaña", "Abierta"}
    assert names("master", f"{API}/campaigns/?role=master") == {"La Campaña"}
    assert names("player_a", f"{API}/campaigns/?role=master") == set()
    assert names("player_a", f"{API}/campaigns/?role=player") == {"La Campaña"}
    assert names("anonymous", f"{API}/campaigns/?role=player") == set()
    assert names("player_a", f"{API}/characters/") == {"Ana"}
    assert names("anonymous", f"{API}/characters/") == set()


def test_campaign_and_settlement_figures(world, clients):
    campaign = clients["player_a"].get(f"{API}/campaigns/la-campana/").json()
    assert campaign["day"] == 7
    assert campaign["date"] == "2026-11-08"
    assert campaign["is_public"] is False
    assert campaign["role"] == "player"
    village = clients["player_a"].get(f"{API}/campaigns/la-campana/settlements/villarejo/").json()
    # RULES.md R17: K = 200, day 7 → 170 zombies, 30 survivors; R18: 160 000 m² → 40 000 cells.
    assert (village["zombies"], village["survivors"], village["cells"]) == (170, 30, 40_000)
    assert village["p_cell_percent"] == pytest.approx(100 * 170 / 40_000)


def test_master_sets_a_threshold_once(world, clients):
    url = f"{API}/rolls/{world['roll_a'].pk}/threshold/"
    response = clients["master"].post(url, {"threshold": 40}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["base_threshold"] == 40
    assert body["dice"] == world["roll_a"].dice  # the stored dice, never re-rolled
    assert body["success"] == any(d <= body["effective_threshold"] for d in body["dice"])
    again = clients["master"].post(url, {"threshold": 50}, format="json")
    assert again.status_code == 409


def test_campaign_shows_todays_weather_and_outages(world, clients):
    from mundo.models import Grid, WeatherRecord

    campaign = world["campaign"]
    WeatherRecord.objects.create(
        campaign=campaign,
        day=7,
        season="autumn",
        sky="rain",
        sky_label="lluvia",
        precipitation=True,
        min_c=4,
        max_c=11,
    )
    WeatherRecord.objects.create(  # another day: not today's
        campaign=campaign,
        day=6,
        season="autumn",
        sky="clear",
        sky_label="despejado",
        precipitation=False,
        min_c=5,
        max_c=15,
    )
    Grid.objects.create(campaign=campaign, power_on=False, power_cut_day=5, water_on=True)
    Grid.objects.create(campaign=campaign, settlement=world["village"])
    body = clients["player_b"].get(f"{API}/campaigns/la-campana/").json()
    assert body["weather"] == [
        {
            "settlement": None,
            "day": 7,
            "season": "autumn",
            "sky": "rain",
            "sky_label": "lluvia",
            "precipitation": True,
            "min_c": 4,
            "max_c": 11,
        }
    ]
    assert body["grids"] == [
        {
            "settlement": None,
            "power_on": False,
            "water_on": True,
            "power_cut_day": 5,
            "water_cut_day": None,
        },
        {
            "settlement": "villarejo",
            "power_on": True,
            "water_on": True,
            "power_cut_day": None,
            "water_cut_day": None,
        },
    ]
