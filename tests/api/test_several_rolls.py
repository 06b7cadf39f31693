"""Several rolls in one post through the API (issue 15 item 2): ``rolls: [...]`` made in order,
each with its own dice; field-level 400s under the roll's index (``rolls[1].expression`` is
``{"rolls": {"1": {"expression": [...]}}}``), from the serializer and from the service alike;
a retry with the same key returns the same post and rolls none of them again; the single
``roll`` keeps working."""

from __future__ import annotations

import pytest

from escenas.models import Post
from personajes.models import Roll


def posts_url(scene) -> str:
    return f"/api/v1/scenes/{scene.pk}/posts/"


def counts() -> tuple[int, int]:
    return Post.objects.count(), Roll.objects.count()


def two_rolls(world) -> dict:
    return {
        "body": "Fuerzo la persiana y cuento cartuchos.",
        "as": "character",
        "character": world["char_a"].pk,
        "rolls": [
            {"kind": "action", "trait": "fuerza"},  # the master sets the threshold later
            {"kind": "expression", "expression": "1d6+2", "reason": "cartuchos"},
        ],
    }


def test_a_list_of_rolls_is_made_in_order_and_a_retry_rolls_nothing(world, clients):
    client = clients["token_a"]
    before = counts()
    first = client.post(
        posts_url(world["story"]), two_rolls(world), format="json", HTTP_IDEMPOTENCY_KEY="k-2r-0001"
    )
    assert first.status_code == 201, first.content
    rolls = [r["roll"] for r in first.json()["rolls"]]
    assert [r["kind"] for r in rolls] == ["action", "expression"]
    assert len(rolls[0]["dice"]) == 3 and rolls[0]["base_threshold"] is None
    assert 3 <= rolls[1]["total"] <= 8 and rolls[1]["reason"] == "cartuchos"
    assert counts() == (before[0] + 1, before[1] + 2)
    again = client.post(
        posts_url(world["story"]), two_rolls(world), format="json", HTTP_IDEMPOTENCY_KEY="k-2r-0001"
    )
    assert again.status_code == 200
    assert again.json() == first.json()
    assert counts() == (before[0] + 1, before[1] + 2)


@pytest.mark.parametrize(
    ("rolls", "index", "field"),
    [
        # The serializer's refusals (shape) …
        ([{"kind": "event"}, {"kind": "expression"}], 1, "expression"),
        ([{"kind": "event"}, {"kind": "event", "dice": [1]}], 1, "dice"),
        ([{"kind": "zombi"}], 0, "kind"),
        # … and the service's (rules), under the same path.
        ([{"kind": "event"}, {"kind": "expression", "expression": "101d6"}], 1, "expression"),
        ([{"kind": "event"}, {"kind": "event"}, {"kind": "action", "trait": "volar"}], 2, "trait"),
        ([{"kind": "event"}, {"kind": "event", "character": 999_999}], 1, "character"),
    ],
)
def test_a_bad_roll_is_a_400_under_its_index_and_writes_nothing(
    world, clients, rolls, index, field
):
    before = counts()
    response = clients["player_a"].post(
        posts_url(world["story"]),
        {"body": "x", "as": "character", "character": world["char_a"].pk, "rolls": rolls},
        format="json",
        HTTP_IDEMPOTENCY_KEY="bad-2r-00001",
    )
    assert response.status_code == 400, response.content
    # DRF's shape for a list's items, the serializer's refusals and the service's alike:
    # {"rolls": {"1": {"expression": [...]}}}.
    errors = response.json()["rolls"]
    assert list(errors) == [str(index)], errors
    assert list(errors[str(index)]) == [field], errors
    assert counts() == before


def test_roll_and_rolls_together_or_too_many_rolls_are_refused(world, clients):
    client = clients["player_a"]
    url = posts_url(world["story"])
    before = counts()
    both = client.post(
        url,
        {"body": "x", "roll": {"kind": "event"}, "rolls": [{"kind": "event"}]},
        format="json",
        HTTP_IDEMPOTENCY_KEY="bad-2r-00002",
    )
    assert both.status_code == 400 and "rolls" in both.json()
    many = client.post(
        url,
        {"body": "x", "rolls": [{"kind": "event"}] * 6},
        format="json",
        HTTP_IDEMPOTENCY_KEY="bad-2r-00003",
    )
    assert many.status_code == 400 and "rolls" in many.json()
    assert counts() == before
