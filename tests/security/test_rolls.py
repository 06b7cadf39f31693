"""The "also" items about rolls: another player's character named in a roll, Unicode digits in
a dice expression, and a secret roll that still told its kind and id."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from escenas import services
from escenas.models import Post
from personajes.models import Roll
from reglas.errors import RulesError
from reglas.expressions import parse_expression
from tests.escenas.conftest import access_for, client_for

pytestmark = pytest.mark.django_db


def api_client(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


@pytest.fixture
def both_in_story(story, char_b):
    story.participants.add(char_b)
    return story


@pytest.mark.parametrize("kind", ["event", "expression"])
def test_a_roll_naming_another_players_character_is_refused_by_field(
    both_in_story, player_a, char_b, kind
):
    roll = {"kind": kind, "character": char_b.pk}
    roll |= {"probability": 50} if kind == "event" else {"expression": "1d6"}
    response = api_client(player_a).post(
        f"/api/v1/scenes/{both_in_story.pk}/posts/",
        {"body": "Tiro por Bruno", "roll": roll},
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"ajeno-{kind}",
    )
    assert response.status_code == 400, response.content
    assert list(response.json()["roll"]) == ["character"]
    assert not Post.objects.exists() and not Roll.objects.exists()


def test_the_service_refuses_it_too_and_the_master_may(both_in_story, player_a, master, char_b):
    with pytest.raises(services.ServiceError) as exc:
        services.post_create(
            access=access_for(both_in_story, player_a),
            author=player_a,
            idempotency_key="ajeno-srv-1",
            body="x",
            roll=services.RollSpec(kind="event", probability=40, character=char_b),
        )
    assert list(exc.value.message_dict) == ["roll.character"]
    post, _ = services.post_create(
        access=access_for(both_in_story, master),
        author=master,
        idempotency_key="ajeno-srv-2",
        voice="narrator",
        body="x",
        roll=services.RollSpec(kind="event", probability=40, character=char_b),
    )
    assert Roll.objects.get(post_roll__post=post).character == char_b


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("١d٦", "expression_unexpected"),
        ("2d٦", "expression_missing_faces"),
        ("1d6+٣", "expression_unexpected"),
        ("३d100<=٤٠", "expression_unexpected"),
        ("1d6>=５", "expression_missing_number"),
    ],
)
def test_unicode_digits_are_refused_in_dice_expressions(text, code):
    with pytest.raises(RulesError) as exc:
        parse_expression(text)
    assert exc.value.code == code


def test_unicode_digits_are_refused_through_the_api(story, player_a, char_a):
    response = api_client(player_a).post(
        f"/api/v1/scenes/{story.pk}/posts/",
        {"roll": {"kind": "expression", "expression": "١d٦"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="arabigo-01",
    )
    assert response.status_code == 400
    assert list(response.json()["roll"]) == ["expression"]
    assert not Roll.objects.exists()


def test_a_secret_roll_shows_neither_its_kind_nor_its_id(story, master, player_a, char_a):
    services.post_create(
        access=access_for(story, master),
        author=master,
        idempotency_key="secreta-001",
        voice="narrator",
        body="Algo se mueve.",
        roll=services.RollSpec(kind="expression", expression="1d6", hidden=True),
    )
    roll = Roll.objects.get()
    html = client_for(player_a).get(story.get_absolute_url()).content.decode()
    assert "Algo se mueve." in html
    assert "roll-expression" not in html and "roll-hidden" in html
    (item,) = api_client(player_a).get(f"/api/v1/scenes/{story.pk}/posts/").json()["results"]
    (shown,) = item["rolls"]
    assert shown == {"id": None, "hidden": True, "masked": True, "request": None, "roll": None}
    # The master sees it whole.
    master_html = client_for(master).get(story.get_absolute_url()).content.decode()
    assert "roll-expression" in master_html
    (item,) = api_client(master).get(f"/api/v1/scenes/{story.pk}/posts/").json()["results"]
    assert item["rolls"][0]["id"] == roll.pk
