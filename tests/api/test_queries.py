"""Every API list costs the same number of queries for 1 row and for 20 (no N+1).

Each case makes one row, counts the queries of a GET, adds 19 rows, counts again; the two
counts must be equal and equal to the pinned budget. A new query in a list must be justified
here: say what it fetches, then raise the number. Session authentication (2 queries: the
session and the user) is in every budget; a token costs 1 (plus a write at most once a minute).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.api.conftest import session_client


@dataclass(frozen=True)
class ListCase:
    url: str
    who: str
    add: Callable[[dict[str, Any], int], None]  # add n more rows
    budget: int
    queries: str  # what they are, for whoever changes the budget


def _campaigns(world: dict[str, Any], n: int) -> None:
    from tests.factories import CampaignFactory, MembershipFactory

    for _ in range(n):
        MembershipFactory(campaign=CampaignFactory(), user=world["master"], role="master")


def _settlements(world: dict[str, Any], n: int) -> None:
    from tests.factories import SettlementFactory

    for _ in range(n):
        SettlementFactory(campaign=world["campaign"])


def _characters(world: dict[str, Any], n: int) -> None:
    from personajes.models import Character
    from tests.factories import CharacterFactory

    for _ in range(n):
        CharacterFactory(
            campaign=world["campaign"], player=world["player_a"], status=Character.Status.APPROVED
        )


def _rolls(world: dict[str, Any], n: int) -> None:
    from personajes.rolls import roll_action_for_character

    for _ in range(n):
        roll_action_for_character(
            character=world["char"], trait="fuerza", threshold=30, made_by=world["master"]
        )


def _tokens(world: dict[str, Any], n: int) -> None:
    from partida.services import token_create

    for i in range(n):
        token_create(user=world["player_a"], name=f"t{i}")


def _scenes(world: dict[str, Any], n: int) -> None:
    from escenas import scenes

    for i in range(n):
        scenes.scene_create(
            campaign=world["campaign"],
            master=world["master"],
            title=f"Escena {i}",
            participants=[world["char"]],
        )


def _post(world: dict[str, Any], scene: Any, user: Any, **kwargs: Any) -> None:
    import uuid

    from escenas import access as escenas_access
    from escenas import services

    access = escenas_access.access_scene(user, scene.pk, campaign=world["campaign"])
    services.post_create(access=access, author=user, idempotency_key=uuid.uuid4().hex, **kwargs)


def _posts(world: dict[str, Any], n: int) -> None:
    from escenas.services import RollSpec

    for i in range(n):
        # Every other post with an action roll by Ana, the others whispered by the master with
        # a hidden event roll: what the prefetches must cover.
        if i % 2:
            _post(
                world,
                world["story"],
                world["player_a"],
                body=f"Post {i}",
                voice="character",
                character=world["char"],
                roll=RollSpec(kind="action", character=world["char"], trait="fuerza"),
            )
        else:
            _post(
                world,
                world["story"],
                world["master"],
                body=f"Post {i}",
                voice="narrator",
                whisper_to=[world["player_a"]],
                roll=RollSpec(kind="event", probability=26, hidden=True),
            )


def _diary_posts(world: dict[str, Any], n: int) -> None:
    for i in range(n):
        _post(world, world["diary_scene"], world["player_a"], body=f"Día {i}")


def _combats(world: dict[str, Any], n: int) -> None:
    from escenas.combat import combat_open

    for i in range(n):
        combat_open(
            scene=world["story"],
            master=world["master"],
            kind="zombies",
            title=f"Pelea {i}",
            characters=[world["char"]],
        )


def _diary(world: dict[str, Any], n: int) -> None:
    from tests.api.conftest import diary_entry

    start = world.setdefault("next_day", 1)
    for day in range(start, start + n):
        diary_entry(world["char"], day)
    world["next_day"] = start + n


def _requests(world: dict[str, Any], n: int) -> None:
    from escenas import access as escenas_access
    from escenas import services
    from personajes.models import Trait

    access = escenas_access.access_scene(
        world["master"], world["story"].pk, campaign=world["campaign"]
    )
    trait = Trait.objects.get(campaign=world["campaign"], slug="percepcion")
    for _ in range(n):
        services.roll_request_create(
            access=access, master=world["master"], character=world["char"], trait=trait
        )


CASES = {
    "campaigns": ListCase(
        "/api/v1/campaigns/?role=master",
        "master",
        _campaigns,
        3,
        "user (session cached), count, page (with my role as a subquery)",
    ),
    "settlements": ListCase(
        "/api/v1/campaigns/la-campana/settlements/",
        "master",
        _settlements,
        4,
        "user (session cached), campaign, count, the page of settlements (their statuses "
        "computed in Python for that page only)",
    ),
    "campaign characters": ListCase(
        "/api/v1/campaigns/la-campana/characters/",
        "master",
        _characters,
        4,
        "user (session cached), campaign with my role beside it, count, page (campaign and "
        "player joined)",
    ),
    "my characters": ListCase(
        "/api/v1/characters/", "player_a", _characters, 3, "user (session cached), count, page"
    ),
    "character rolls": ListCase(
        "/api/v1/characters/{char}/rolls/",
        "master",
        _rolls,
        6,
        "user (session cached), character (campaign, player joined), my role (once, in "
        "access_character: the full view is the master's and the owner's), my role again "
        "(hidden rolls are the master's: character_rolls), count, page (made_by, trait, "
        "campaign joined)",
    ),
    "character rolls (player)": ListCase(
        "/api/v1/characters/{char}/rolls/",
        "player_a",
        _rolls,
        5,
        "user (session cached), character (campaign, player joined: its owner needs no role), "
        "my role (hidden rolls are the master's: character_rolls), count, page (the rolls newest "
        "first along roll_recent, each one's post link checked by a NOT EXISTS; made_by, trait, "
        "campaign joined)",
    ),
    "tokens": ListCase(
        "/api/v1/tokens/", "player_a", _tokens, 3, "user (session cached), count, page"
    ),
    "scenes": ListCase(
        "/api/v1/campaigns/la-campana/scenes/",
        "player_a",
        _scenes,
        7,
        "user (session cached), campaign with my role beside it, my characters, count, the page of "
        "scenes with unread counts, the page's diary characters, participants (no last posts: "
        "the API shows no preview)",
    ),
    "posts": ListCase(
        "/api/v1/scenes/{story}/posts/",
        "player_a",
        _posts,
        8,
        "user (session cached), the scene with its campaign, my role and characters (one "
        "query), participants, the page's post ids (no count: cursor; on the scene's index), "
        "those posts, their rolls, whisper recipients, the rolls' makers",
    ),
    "diary posts": ListCase(
        "/api/v1/characters/{char}/diary/posts/",
        "player_a",
        _diary_posts,
        9,
        "user (session cached), character, role checks, diary scene id, viewer (2), scene (a "
        "diary: no participants), the page's post ids, those posts, rolls (no whisper in a "
        "diary: no recipients)",
    ),
    "diary": ListCase(
        "/api/v1/characters/{char}/diary/",
        "player_a",
        _diary,
        6,
        "user (session cached), character, role checks, ETag aggregate, last tick, count, page",
    ),
    "combats": ListCase(
        "/api/v1/scenes/{story}/combats/",
        "player_a",
        _combats,
        8,
        "user (session cached), the scene with its campaign, my role and characters (one "
        "query), participants, count, the page of fights, their combatants, declarations, "
        "turns (and one for the turns' rolls once a fight has turns)",
    ),
    "roll requests": ListCase(
        "/api/v1/scenes/{story}/roll-requests/",
        "master",
        _requests,
        4,
        "user (session cached), the scene with its campaign, my role and characters (one "
        "query), participants, the requests (trait and character joined)",
    ),
}


@pytest.fixture
def list_world(campaign, master, player_a):
    from personajes.models import Character
    from tests.factories import CharacterFactory

    char = CharacterFactory(
        campaign=campaign,
        player=player_a,
        name="Ana",
        status=Character.Status.APPROVED,
        allocation={"fuerza": 2},
    )
    from escenas import scenes

    story = scenes.scene_create(
        campaign=campaign, master=master, title="La gasolinera", participants=[char]
    )
    return {
        "campaign": campaign,
        "master": master,
        "player_a": player_a,
        "char": char,
        "story": story,
        "diary_scene": scenes.diary_scene_for(char),
    }


def count_queries(client, url: str) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    return len(ctx.captured_queries), len(response.json()["results"])


@pytest.mark.parametrize("name", list(CASES))
def test_list_query_count_does_not_grow_with_rows(list_world, name):
    case = CASES[name]
    url = case.url.format(char=list_world["char"].pk, story=list_world["story"].pk)
    client = session_client(list_world[case.who])
    # The first row (the fixture's own for some lists), then 19 more.
    if name not in {"campaigns", "campaign characters", "my characters"}:
        case.add(list_world, 1)
    queries_1, rows_1 = count_queries(client, url)
    case.add(list_world, 19)
    queries_20, rows_20 = count_queries(client, url)
    assert rows_1 >= 1 and rows_20 == rows_1 + 19
    assert queries_1 == queries_20, (
        f"{name}: {queries_1} queries for {rows_1} rows, {queries_20} for {rows_20}"
    )
    assert queries_20 == case.budget, f"{name}: {queries_20} queries; budget: {case.queries}"
