"""The diary, the settlements and the character lists of the API kept whole
(``nucleo.api_answers``): an unchanged re-read costs the session's user only, a 304 the same,
and a write to a table the answer read (the tick's diary row, a renamed settlement or
character, a membership removed) makes the next read fresh."""

from __future__ import annotations

import pytest

from tests.api.conftest import diary_entry, session_client

pytestmark = pytest.mark.django_db


def test_an_unchanged_diary_is_kept_and_its_etag_answers_304_without_a_query(
    world, django_assert_num_queries
):
    client = session_client(world["player_a"])
    url = f"/api/v1/characters/{world['char_a'].pk}/diary/"
    first = client.get(url)
    assert first.status_code == 200 and first.json()["count"] == 3
    with django_assert_num_queries(1):  # the user (session cached): no diary query
        again = client.get(url)
    assert again.content == first.content
    assert again["ETag"] == first["ETag"] and again.get("Last-Modified") is None  # no tick yet
    with django_assert_num_queries(1):
        unchanged = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert unchanged.status_code == 304 and unchanged["ETag"] == first["ETag"]
    # The tick writes day 7: fresh, a new ETag, and the old one no longer matches.
    diary_entry(world["char_a"], 7)
    changed = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed.json()["count"] == 4
    assert changed["ETag"] != first["ETag"]
    # Another filter is another answer, kept under its own address.
    assert [r["day"] for r in client.get(url + "?day_min=6").json()["results"]] == [6, 7]


def test_a_kept_diary_is_not_served_to_who_lost_the_right(world):
    from mundo.models import Membership

    client = session_client(world["master"])
    url = f"/api/v1/characters/{world['char_a'].pk}/diary/"
    assert client.get(url).status_code == 200
    assert session_client(world["player_b"]).get(url).status_code == 403  # its own answer
    Membership.objects.filter(campaign=world["campaign"], user=world["master"]).delete()
    assert client.get(url).status_code == 404


def test_the_settlements_are_kept_until_one_changes(world, django_assert_num_queries):
    client = session_client(world["player_a"])
    url = f"/api/v1/campaigns/{world['campaign'].slug}/settlements/"
    first = client.get(url).json()
    assert [(s["name"], s["zombies"]) for s in first["results"]] == [("Villarejo", 170)]
    with django_assert_num_queries(1):
        assert client.get(url).json() == first
    type(world["village"]).objects.filter(pk=world["village"].pk).update(name="Villa Nueva")
    assert [s["name"] for s in client.get(url).json()["results"]] == ["Villa Nueva"]


def test_the_character_lists_are_kept_per_user_until_a_character_changes(
    world, django_assert_num_queries
):
    from personajes.models import Character

    url = f"/api/v1/campaigns/{world['campaign'].slug}/characters/"
    as_master, as_a = session_client(world["master"]), session_client(world["player_a"])
    names = lambda client, u=url: [r["name"] for r in client.get(u).json()["results"]]  # noqa: E731
    assert names(as_master) == ["Ana", "Beto"]  # the master sees player_b's draft
    assert names(as_a) == ["Ana"]  # player_a does not: each user's own answer
    with django_assert_num_queries(1):
        assert names(as_a) == ["Ana"]
    assert names(as_a, "/api/v1/characters/") == ["Ana"]
    with django_assert_num_queries(1):
        assert names(as_a, "/api/v1/characters/") == ["Ana"]
    Character.objects.filter(pk=world["char_a"].pk).update(name="Ana María")
    assert names(as_a) == ["Ana María"]
    assert names(as_a, "/api/v1/characters/") == ["Ana María"]
    assert names(as_master) == ["Ana María", "Beto"]
