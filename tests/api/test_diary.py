"""A character's diary over the API: the R25 rows, filtered by day, cheap to poll (ETag,
Last-Modified, 304)."""

from __future__ import annotations

import datetime

from django.utils import timezone
from django.utils.http import http_date

from mundo.models import DayTick
from tests.api.conftest import diary_entry


def diary_url(world, query: str = "") -> str:
    return f"/api/v1/characters/{world['char_a'].pk}/diary/{query}"


def test_the_rows_are_the_r25_table(world, clients):
    body = clients["token_a"].get(diary_url(world)).json()
    assert body["count"] == 3
    row = body["results"][0]
    assert row["day"] == 4 and row["date"] == "2026-11-05"
    assert (row["kcal_eaten"], row["kcal_needed"]) == (1500.0, 2000.0)
    assert (row["water_l"], row["sleep_h"], row["min_temp_c"]) == (2.0, 8.0, 3.5)
    assert row["hunger_days"] == 1 and row["penalty_total"] == 10
    assert row["penalty_breakdown"] == [
        {"source": "hunger", "label": "Hambre (1 día)", "points": 10}
    ]
    assert row["disease_p"] == 12 and row["disease_die"] == 57 and row["fell_ill"] is False
    assert row["status"] == "alive"


def test_filtered_by_day(world, clients):
    client = clients["player_a"]
    days = lambda q: [r["day"] for r in client.get(diary_url(world, q)).json()["results"]]  # noqa: E731
    assert days("") == [4, 5, 6]
    assert days("?day_min=5") == [5, 6]
    assert days("?day_max=5") == [4, 5]
    assert days("?day_min=5&day_max=5") == [5]
    assert days("?day_min=9") == []
    bad = client.get(diary_url(world, "?day_min=ayer"))
    assert bad.status_code == 400 and "day_min" in bad.json()


def test_etag_gives_304_until_the_diary_changes(world, clients):
    client = clients["token_a"]
    first = client.get(diary_url(world))
    etag = first["ETag"]
    assert etag.startswith('"') and first["Cache-Control"] == "private, no-cache"
    assert "Authorization" in first["Vary"]
    unchanged = client.get(diary_url(world), HTTP_IF_NONE_MATCH=etag)
    assert unchanged.status_code == 304
    assert unchanged.content == b""
    assert unchanged["ETag"] == etag
    # Another filter is another representation: another ETag.
    assert client.get(diary_url(world, "?day_min=5"), HTTP_IF_NONE_MATCH=etag).status_code == 200
    # The tick writes day 7: the old ETag no longer matches.
    diary_entry(world["char_a"], 7)
    changed = client.get(diary_url(world), HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200
    assert changed["ETag"] != etag
    assert changed.json()["count"] == 4


def test_last_modified_is_the_tick_that_wrote_it(world, clients):
    tick = DayTick.objects.create(campaign=world["campaign"], day=7, trigger="master")
    written = tick.created_at
    client = clients["player_a"]
    response = client.get(diary_url(world))
    assert response["Last-Modified"] == http_date(written.timestamp())
    since = http_date((written + datetime.timedelta(seconds=1)).timestamp())
    assert client.get(diary_url(world), HTTP_IF_MODIFIED_SINCE=since).status_code == 304
    before = http_date((written - datetime.timedelta(days=1)).timestamp())
    assert client.get(diary_url(world), HTTP_IF_MODIFIED_SINCE=before).status_code == 200
    assert timezone.is_aware(written)
