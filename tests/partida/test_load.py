"""The load test's pieces (``make load`` runs them for real): the fill makes the cast the
locustfile reads, the locustfile imports, and the checker counts lost and duplicated posts."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from escenas.models import Post, PostRoll
from tests.load.check import check
from tests.load.fill import fill

ROOT = Path(__file__).resolve().parents[2]


def test_the_locustfile_imports_and_defines_the_player():
    # A subprocess: importing locust patches the standard library with gevent.
    code = (
        "from collections import Counter; from tests.load import locustfile as f; "
        "print(f.Player.__name__, dict(Counter(t.__name__ for t in f.Player.tasks)), "
        "f.RETRY_EVERY)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "Player {'read_scene': 2, 'post_with_roll': 1} 3"


def post(player: dict, scene: int, key: str) -> dict:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {player['token']}")
    body = {
        "body": "Fuerzo la persiana.",
        "voice": "character",
        "character": player["character"],
        "roll": {"kind": "action", "trait": "fuerza", "threshold": 30},
    }
    response = client.post(
        f"/api/v1/scenes/{scene}/posts/", body, format="json", HTTP_IDEMPOTENCY_KEY=key
    )
    assert response.status_code in (200, 201), response.content
    data = response.json()
    return {"key": key, "post": data["id"], "rolls": [r["id"] for r in data["rolls"]]}


@pytest.mark.django_db
def test_the_checker_finds_every_acknowledged_post_and_counts_what_is_wrong():
    cast = fill(2)
    scene = cast["scene"]
    first, second = cast["players"]
    acks = [post(first, scene, uuid.uuid4().hex) for _ in range(3)]
    acks.append(post(second, scene, uuid.uuid4().hex))
    retry = post(first, scene, acks[0]["key"])  # the same key: the same post, no new roll
    assert retry == acks[0]
    verdict = check(acks, [retry], scene)
    assert (verdict.acknowledged, verdict.retried, verdict.stored) == (4, 1, 4)
    assert (verdict.lost, verdict.duplicated, verdict.extra_rolls) == (0, 0, 0)
    assert verdict.ok

    # A post whose roll link is gone, a post deleted, an acknowledged post never stored:
    PostRoll.objects.filter(post_id=acks[1]["post"]).delete()
    Post.objects.filter(pk=acks[2]["post"]).delete()
    ghost = {"key": uuid.uuid4().hex, "post": acks[3]["post"] + 1000, "rolls": []}
    # and a retry that answered another post than the first answer:
    wrong_retry = {**acks[3], "post": acks[0]["post"]}
    verdict = check([*acks, ghost], [retry, wrong_retry], scene)
    assert (verdict.acknowledged, verdict.retried, verdict.stored) == (5, 2, 3)
    assert (verdict.lost, verdict.duplicated, verdict.extra_rolls) == (3, 1, 0)
    assert not verdict.ok


@pytest.mark.django_db
def test_the_checker_counts_a_roll_linked_beyond_the_acknowledged_one():
    cast = fill(1)
    (player,) = cast["players"]
    one, other = (post(player, cast["scene"], uuid.uuid4().hex) for _ in range(2))
    # The other post's roll moved onto the first: one roll too many there, one post lost.
    PostRoll.objects.filter(post_id=other["post"]).update(post_id=one["post"], position=1)
    verdict = check([one, other], [], cast["scene"])
    assert (verdict.lost, verdict.duplicated, verdict.extra_rolls) == (1, 0, 1)
