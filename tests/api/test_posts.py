"""Writing posts with rolls through the API: idempotent, validated field by field, all or
nothing; reading them back with every die (and without the dice of hidden rolls)."""

from __future__ import annotations

import pytest

from escenas.models import Post, PostRoll
from personajes.models import Character, Roll
from tests.factories import CharacterFactory


def posts_url(scene) -> str:
    return f"/api/v1/scenes/{scene.pk}/posts/"


def counts() -> tuple[int, int]:
    return Post.objects.count(), Roll.objects.count()


ACTION = {
    "body": "Fuerzo la persiana.",
    "as": "character",
    "roll": {"kind": "action", "trait": "fuerza", "threshold": 30},
}


def test_a_retry_with_the_same_key_returns_the_same_post_and_rolls_nothing(world, clients):
    client = clients["token_a"]
    body = {**ACTION, "character": world["char_a"].pk}
    before = counts()
    first = client.post(
        posts_url(world["story"]), body, format="json", HTTP_IDEMPOTENCY_KEY="k-0001-abcd"
    )
    assert first.status_code == 201, first.content
    post = first.json()
    assert post["author"] == "alicia" and post["voice"] == "character"
    assert post["speaker_name"] == "Ana"
    (roll,) = (r["roll"] for r in post["rolls"])
    assert roll["kind"] == "action" and roll["trait"] == "fuerza"
    assert len(roll["dice"]) == 3  # Fuerza 2 → 3 d100 (R3)
    assert roll["base_threshold"] == 30
    assert roll["success"] == any(d <= roll["effective_threshold"] for d in roll["dice"])
    assert counts() == (before[0] + 1, before[1] + 1)

    again = client.post(
        posts_url(world["story"]), body, format="json", HTTP_IDEMPOTENCY_KEY="k-0001-abcd"
    )
    assert again.status_code == 200
    assert again.json() == post  # same post, same dice
    assert counts() == (before[0] + 1, before[1] + 1)

    # The key in the body works the same way.
    with_field = client.post(
        posts_url(world["story"]), {**body, "idempotency_key": "k-0001-abcd"}, format="json"
    )
    assert with_field.status_code == 200 and with_field.json()["id"] == post["id"]


def test_event_and_expression_rolls(world, clients):
    client = clients["player_a"]
    event = client.post(
        posts_url(world["story"]),
        {
            "body": "¿Nos ven?",
            "roll": {"kind": "event", "probability": 26},
            "idempotency_key": "ev-000001",
        },
        format="json",
    ).json()
    (roll,) = (r["roll"] for r in event["rolls"])
    assert roll["kind"] == "event" and len(roll["dice"]) == 1
    assert roll["success"] == (roll["dice"][0] <= 26)
    expression = client.post(
        posts_url(world["offtopic"]),
        {"roll": {"kind": "expression", "expression": "2d6+1"}, "idempotency_key": "ex-000001"},
        format="json",
    ).json()
    (roll,) = (r["roll"] for r in expression["rolls"])
    assert roll["kind"] == "expression" and roll["expression"] == "2d6+1"
    assert 3 <= roll["total"] <= 13


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"body": "x", "dice": [100]}, {"dice": ["Campo desconocido."]}),
        ({"body": "x", "author": "master"}, {"author": ["Campo desconocido."]}),
        (
            {"body": "x", "roll": {"kind": "event", "success": True}},
            {"roll": {"success": "Campo desconocido."}},
        ),
        ({"body": ["x"]}, {"body": None}),
        ({"body": "x", "roll": "action"}, {"roll": None}),
        ({"body": "x", "as": "zombi"}, {"as": None}),
        ({"body": "x", "as": "narrator"}, {"as": None}),  # the master's voice
        (
            {"roll": {"kind": "action", "trait": "fuerza", "threshold": 101}},
            {"roll": {"threshold": None}},
        ),
        (
            {"roll": {"kind": "action", "trait": "fuerza", "threshold": "30%"}},
            {"roll": {"threshold": None}},
        ),
        ({"roll": {"kind": "action"}}, {"roll": {"trait": None}}),
        (
            {"as": "character", "roll": {"kind": "action", "trait": "volar"}},
            {"roll": {"trait": None}},
        ),
        ({"roll": {"kind": "event", "probability": -5}}, {"roll": {"probability": None}}),
        ({"roll": {"kind": "event", "trait": "fuerza"}}, {"roll": {"trait": None}}),
        ({"roll": {"kind": "expression", "expression": "101d6"}}, {"roll": {"expression": "100"}}),
        (
            {"roll": {"kind": "expression", "expression": "2d1001"}},
            {"roll": {"expression": "1000"}},
        ),
        ({"roll": {"kind": "expression", "expression": "hola"}}, {"roll": {"expression": None}}),
        ({"body": ""}, {"body": None}),  # neither text nor roll
        ({"body": "x" * 20_001}, {"body": None}),
    ],
)
def test_bad_posts_are_400_by_field_and_write_nothing(world, clients, body, errors):
    before = counts()
    response = clients["player_a"].post(
        posts_url(world["story"]),
        {"character": world["char_a"].pk, **body},
        format="json",
        HTTP_IDEMPOTENCY_KEY="bad-00000001",
    )
    assert response.status_code == 400, response.content
    got = response.json()
    for field, expected in errors.items():
        assert field in got, got
        if isinstance(expected, dict):
            for sub, text in expected.items():
                assert sub in got[field], got
                if text:
                    assert text in " ".join(got[field][sub]), got
        elif expected:
            assert got[field] == expected
    assert counts() == before


def test_without_an_idempotency_key_nothing_is_written(world, clients):
    before = counts()
    response = clients["player_a"].post(posts_url(world["story"]), {"body": "Hola"}, format="json")
    assert response.status_code == 400
    assert "idempotency_key" in response.json()
    bad_key = clients["player_a"].post(
        posts_url(world["story"]), {"body": "Hola"}, format="json", HTTP_IDEMPOTENCY_KEY="corta"
    )
    assert bad_key.status_code == 400
    assert "idempotency_key" in bad_key.json()
    assert counts() == before


def test_nobody_posts_as_or_rolls_for_another_players_character(world, clients, player_b):
    char_b = CharacterFactory(
        campaign=world["campaign"],
        player=player_b,
        name="Beatriz",
        status=Character.Status.APPROVED,
        allocation={"fuerza": 1},
    )
    world["watch"].participants.add(char_b)
    before = counts()
    client = clients["player_a"]
    as_b = client.post(
        posts_url(world["watch"]),
        {"body": "Soy Beatriz.", "as": "character", "character": char_b.pk},
        format="json",
        HTTP_IDEMPOTENCY_KEY="other-000001",
    )
    assert as_b.status_code == 400 and "as" in as_b.json()
    roll_for_b = client.post(
        posts_url(world["watch"]),
        {"body": "Tira tú.", "roll": {"kind": "action", "trait": "fuerza", "character": char_b.pk}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="other-000002",
    )
    assert roll_for_b.status_code == 400 and "character" in roll_for_b.json()["roll"]
    elsewhere = CharacterFactory(status=Character.Status.APPROVED)  # another campaign's
    response = client.post(
        posts_url(world["watch"]),
        {"body": "x", "as": "character", "character": elsewhere.pk},
        format="json",
        HTTP_IDEMPOTENCY_KEY="other-000003",
    )
    assert response.status_code == 400 and "character" in response.json()
    assert counts() == before


def test_posts_are_cursor_paginated_with_their_rolls(world, clients):
    from tests.escenas.factories import PostFactory

    for _ in range(25):
        PostFactory(scene=world["story"], author=world["master"], voice="narrator")
    client = clients["player_a"]
    page = client.get(posts_url(world["story"]) + "?page_size=10").json()
    assert set(page) == {"next", "previous", "results"}
    seen = [p["id"] for p in page["results"]]
    while page["next"]:
        page = client.get(page["next"]).json()
        seen += [p["id"] for p in page["results"]]
    assert seen == sorted(seen) and len(seen) == 27  # 2 of the fixture + 25
    # Back from the last page by ``previous``: the same posts (the page's ids are read alone,
    # then their rows: ``escenas.access.visible_posts``).
    back = [p["id"] for p in page["results"]]
    while page["previous"]:
        page = client.get(page["previous"]).json()
        back = [p["id"] for p in page["results"]] + back
    assert back == seen
    first, hidden = client.get(posts_url(world["story"])).json()["results"][:2]
    assert first["rolls"][0]["roll"]["dice"] == world["post_roll"].dice
    # The master's hidden roll: masked for the player, dice for the master.
    assert hidden["rolls"][0]["masked"] is True and hidden["rolls"][0]["roll"] is None
    master_view = clients["master"].get(posts_url(world["story"])).json()["results"][1]
    assert master_view["rolls"][0]["roll"]["dice"] == world["hidden_roll"].dice


def test_diary_posts(world, clients):
    body = clients["player_a"].get(f"/api/v1/characters/{world['char_a'].pk}/diary/posts/").json()
    assert [p["body"] for p in body["results"]] == ["Hoy he comido poco."]


def test_master_asks_for_a_roll_and_sets_an_event_probability(world, clients):
    url = f"/api/v1/scenes/{world['story'].pk}/roll-requests/"
    client = clients["master"]
    made = client.post(
        url,
        {
            "character": world["char_a"].pk,
            "trait": "sigilo",
            "threshold": 35,
            "reason": "Sin ruido",
        },
        format="json",
    )
    assert made.status_code == 201
    assert made.json()["trait"] == "sigilo" and made.json()["threshold"] == 35
    assert made.json()["base_threshold"] == 35  # its old name, kept for existing clients
    listed = clients["player_a"].get(url).json()["results"]
    assert {r["trait"] for r in listed} == {"percepcion", "sigilo"}
    for bad, field in [
        ({"character": world["char_a"].pk, "trait": "sigilo", "threshold": 101}, "threshold"),
        ({"character": world["char_a"].pk, "trait": "nadar"}, "trait"),
        ({"character": 999999, "trait": "sigilo"}, "character"),
        (
            {"character": world["char_a"].pk, "trait": "sigilo", "fulfilled_roll": 1},
            "fulfilled_roll",
        ),
    ]:
        response = client.post(url, bad, format="json")
        assert response.status_code == 400 and field in response.json(), response.content
    # The hidden event roll's probability, set once from the stored die.
    roll_url = f"/api/v1/rolls/{world['hidden_roll'].pk}/threshold/"
    set_it = client.post(roll_url, {"threshold": 50}, format="json")
    assert set_it.status_code == 200
    assert set_it.json()["success"] == (world["hidden_roll"].dice[0] <= 50)
    assert client.post(roll_url, {"threshold": 60}, format="json").status_code == 409
    assert PostRoll.objects.filter(roll=world["hidden_roll"]).exists()


def test_a_roll_hidden_in_a_post_stays_the_masters_everywhere(world, clients):
    from escenas import access as escenas_access
    from escenas import services

    access = escenas_access.access_scene(
        world["master"], world["story"].pk, campaign=world["campaign"]
    )
    post, _created = services.post_create(
        access=access,
        author=world["master"],
        idempotency_key="hidden-action-1",
        body="Tira en secreto.",
        voice="narrator",
        roll=services.RollSpec(
            kind="action", character=world["char_a"], trait="sigilo", hidden=True
        ),
    )
    hidden = PostRoll.objects.get(post=post).roll
    rolls_url = f"/api/v1/characters/{world['char_a'].pk}/rolls/"
    mine = {r["id"] for r in clients["player_a"].get(rolls_url).json()["results"]}
    assert hidden.pk not in mine and world["post_roll"].pk in mine
    masters = {r["id"] for r in clients["master"].get(rolls_url).json()["results"]}
    assert hidden.pk in masters
    assert clients["player_a"].get(f"/api/v1/rolls/{hidden.pk}/").status_code == 404
    assert clients["master"].get(f"/api/v1/rolls/{hidden.pk}/").status_code == 200


def test_a_whisper_reaches_only_its_recipients_and_the_master(world, clients):
    client = clients["token_a"]
    scene = world["watch"]  # every player reads it; only Ana's player writes
    to_bruno = client.post(
        posts_url(scene),
        {"body": "Bruno, ¿me oyes?", "whisper_to": ["bruno"], "idempotency_key": "w-0001-abcd"},
        format="json",
    )
    assert to_bruno.status_code == 201, to_bruno.content
    assert to_bruno.json()["is_whisper"] is True
    assert to_bruno.json()["whisper_to"] == ["bruno"]
    for_master = client.post(
        posts_url(scene),
        {"body": "Solo para el máster.", "whisper": True, "idempotency_key": "w-0002-abcd"},
        format="json",
    )
    assert for_master.status_code == 201, for_master.content
    assert for_master.json()["whisper_to"] == []

    def bodies(actor: str) -> list[str]:
        response = clients[actor].get(posts_url(scene))
        assert response.status_code == 200
        return [p["body"] for p in response.json()["results"]]

    assert bodies("player_b") == ["Bruno, ¿me oyes?"]
    assert bodies("master") == ["Bruno, ¿me oyes?", "Solo para el máster."]


def test_a_whisper_to_someone_who_cannot_read_it_is_refused_by_field(world, clients):
    before = counts()
    for names in (["nadie-con-este-nombre"], ["olga"]):  # unknown; an outsider
        response = clients["token_a"].post(
            posts_url(world["watch"]),
            {"body": "Psst.", "whisper_to": names, "idempotency_key": "w-0003-abcd"},
            format="json",
        )
        assert response.status_code == 400, response.content
        assert list(response.json()) == ["whisper_to"]
    assert counts() == before


def test_a_post_answers_a_roll_request_once(world, clients):
    request = world["request"]  # Percepción, threshold 40, for Ana
    body = {"body": "Escucho.", "as": "character", "character": world["char_a"].pk}
    first = clients["token_a"].post(
        posts_url(world["story"]),
        {**body, "fulfil": [request.pk], "idempotency_key": "f-0001-abcd"},
        format="json",
    )
    assert first.status_code == 201, first.content
    (roll,) = (r["roll"] for r in first.json()["rolls"])
    assert roll["trait"] == "percepcion" and roll["base_threshold"] == 40
    assert roll["reason"] == "¿Oyes algo?"
    assert len(roll["dice"]) == 1  # Percepción 0 → 1 d100 (R3)
    request.refresh_from_db()
    assert request.fulfilled_roll_id == roll["id"]

    before = counts()
    again = clients["token_a"].post(
        posts_url(world["story"]),
        {**body, "fulfil": [request.pk], "idempotency_key": "f-0002-abcd"},
        format="json",
    )
    assert again.status_code == 400, again.content
    assert counts() == before


def test_voice_is_the_posts_own_name_and_as_still_works(world, clients):
    client = clients["token_a"]
    base = {"character": world["char_a"].pk, "body": "Hola."}
    for n, who in enumerate(({"voice": "character"}, {"as": "character"})):
        made = client.post(
            posts_url(world["story"]),
            {**base, **who},
            format="json",
            HTTP_IDEMPOTENCY_KEY=f"voice-{n:08d}",
        )
        assert made.status_code == 201, made.content
        assert made.json()["voice"] == "character" and made.json()["speaker_name"] == "Ana"
    both = client.post(
        posts_url(world["story"]),
        {**base, "voice": "character", "as": "player"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="voice-both-0001",
    )
    assert both.status_code == 400 and list(both.json()) == ["as"]
    # A service refusal about the voice is reported under the name the client sent.
    narrator = {"body": "x", "voice": "narrator"}  # the master's voice
    refused = client.post(
        posts_url(world["story"]), narrator, format="json", HTTP_IDEMPOTENCY_KEY="voice-narr-01"
    )
    assert refused.status_code == 400 and "voice" in refused.json(), refused.content


def test_a_new_posts_answer_is_what_reading_it_back_shows(world, clients):
    """The 201 is built from the rows just written (``escenas.access.as_campaign_post``, no
    query to read them back): it must be what a retry (the stored post read back) and the
    scene's list show, field for field, for a post with everything — a request answered, an
    action, an expression and an event roll, a note, a reply, Markdown — and for whispers."""
    client = clients["token_a"]
    request = world["request"]
    rich = {
        "body": "**¡Ya!** Fuerzo la persiana.",
        "as": "character",
        "character": world["char_a"].pk,
        "note_to_master": "Si falla, _gritamos_.",
        "reply_to": world["post_a"].pk,
        "fulfil": [request.pk],
        "rolls": [
            {"kind": "action", "trait": "fuerza", "threshold": 30, "reason": "La persiana"},
            {"kind": "expression", "expression": "2d6+1"},
            {"kind": "event", "probability": 26},
        ],
    }
    whisper = {"body": "Bruno, ¿me oyes?", "whisper_to": ["bruno"]}
    answers = []
    for scene, body, key in (
        (world["story"], rich, "same-0001-abcd"),
        (world["watch"], whisper, "same-0002-abcd"),
    ):
        made = client.post(posts_url(scene), body, format="json", HTTP_IDEMPOTENCY_KEY=key)
        assert made.status_code == 201, made.content
        again = client.post(posts_url(scene), body, format="json", HTTP_IDEMPOTENCY_KEY=key)
        assert again.status_code == 200
        assert made.json() == again.json()
        listed = client.get(posts_url(scene) + "?page_size=100").json()["results"]
        assert [p for p in listed if p["id"] == made.json()["id"]] == [made.json()]
        answers.append(made.json())
    first, answer = answers
    assert [r["roll"]["kind"] for r in first["rolls"]] == [
        "action",
        "action",
        "expression",
        "event",
    ]
    assert first["rolls"][0]["request"] == request.pk
    assert first["reply_to"] == world["post_a"].pk and first["note_html"]
    assert answer["whisper_to"] == ["bruno"] and answer["is_whisper"] is True
    reply = {"body": "Sí.", "whisper_to": ["bruno"], "reply_to": answer["id"]}
    made = client.post(
        posts_url(world["watch"]), reply, format="json", HTTP_IDEMPOTENCY_KEY="same-0003-abcd"
    )
    again = client.post(
        posts_url(world["watch"]), reply, format="json", HTTP_IDEMPOTENCY_KEY="same-0003-abcd"
    )
    assert made.status_code == 201 and again.status_code == 200
    assert made.json() == again.json()
    assert made.json()["reply_to"] == answer["id"]
    assert made.json()["reply_to_speaker"] == answer["speaker_name"]
