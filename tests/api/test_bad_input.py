"""Bad input gets a 4xx with field-level messages, never a 500, and writes nothing.

Unknown keys are refused by name ("Unknown field."), and so are read-only ones (dice,
outcomes, authors: "This field is read-only.") — refused, not silently ignored, so a client
that believes it set them learns it did not.
"""

from __future__ import annotations

import pytest

from partida.models import ApiToken
from personajes.models import Roll


def threshold_url(world) -> str:
    return f"/api/v1/rolls/{world['roll_a'].pk}/threshold/"


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"threshold": 101}, "threshold", "100"),
        ({"threshold": -1}, "threshold", "0"),
        ({"threshold": "treinta"}, "threshold", "entero"),
        ({"threshold": 30.5}, "threshold", "entero"),
        ({"threshold": None}, "threshold", "nulo"),
        ({}, "threshold", "requerido"),
        ({"threshold": 30, "dice": [1, 1, 1]}, "dice", "Campo desconocido"),
        ({"threshold": 30, "umbral": 30}, "umbral", "Campo desconocido"),
    ],
)
def test_bad_thresholds_are_refused_by_field_and_nothing_changes(
    world, clients, body, field, message
):
    response = clients["master"].post(threshold_url(world), body, format="json")
    assert response.status_code == 400
    errors = response.json()
    assert field in errors
    assert message in " ".join(errors[field])
    roll = Roll.objects.get(pk=world["roll_a"].pk)
    assert roll.base_threshold is None and roll.success is None


@pytest.mark.parametrize("body", ["[1, 2]", '"30"', "{not json", "null"])
def test_bodies_that_are_not_objects_are_400(world, clients, body):
    response = clients["master"].post(threshold_url(world), body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()


def test_other_media_types_are_415(world, clients):
    response = clients["master"].post(
        threshold_url(world), "threshold=30", content_type="text/plain"
    )
    assert response.status_code == 415


def test_read_only_fields_of_a_token_are_refused(player_a):
    from tests.api.conftest import session_client

    client = session_client(player_a)
    response = client.post(
        "/api/v1/tokens/", {"name": "bot", "key": "mi-clave", "prefix": "abcdefgh"}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "key": ["Campo desconocido."],
        "prefix": ["Campo desconocido."],
    }
    assert not ApiToken.objects.filter(user=player_a).exists()
    long_name = client.post("/api/v1/tokens/", {"name": "x" * 61}, format="json")
    assert long_name.status_code == 400 and "name" in long_name.json()
    blank = client.post("/api/v1/tokens/", {"name": "   "}, format="json")
    assert blank.status_code == 400 and "name" in blank.json()
    assert not ApiToken.objects.filter(user=player_a).exists()


def test_too_many_tokens_is_a_400_not_a_500(player_a):
    from partida.services import MAX_ACTIVE_TOKENS, token_create
    from tests.api.conftest import session_client

    for i in range(MAX_ACTIVE_TOKENS):
        token_create(user=player_a, name=f"t{i}")
    response = session_client(player_a).post("/api/v1/tokens/", {"name": "uno más"}, format="json")
    assert response.status_code == 400
    assert "revoca" in " ".join(response.json()["non_field_errors"])
    assert ApiToken.objects.filter(user=player_a).count() == MAX_ACTIVE_TOKENS


def test_another_users_character_is_not_theirs_to_read_in_full(world, clients):
    # player_b sees Ana's public part, not her rolls; player_a cannot see Beto's draft at all.
    assert (
        clients["player_b"].get(f"/api/v1/characters/{world['char_a'].pk}/rolls/").status_code
        == 403
    )
    assert clients["player_a"].get(f"/api/v1/characters/{world['draft_b'].pk}/").status_code == 404
    assert clients["player_a"].get("/api/v1/characters/abc/").status_code == 404


def test_filters_with_bad_values_are_400(world, clients):
    response = clients["player_a"].get("/api/v1/campaigns/?role=zombi")
    assert response.status_code == 400
    assert "role" in response.json()
    assert clients["player_a"].get("/api/v1/campaigns/?page=99").status_code == 404
    assert clients["player_a"].get("/api/v1/campaigns/?page_size=0").status_code == 200


def test_a_revoked_token_is_401_even_for_public_data(world, clients):
    response = clients["revoked"].get("/api/v1/campaigns/abierta/")
    assert response.status_code == 401
    assert response.json() == {"detail": "Este token ha sido revocado."}
