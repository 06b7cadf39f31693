"""After the load test: is every acknowledged post and roll in the database, and did the
retried idempotency keys make no duplicates? (``make load``; also tests/partida/test_load.py.)

Run as ``python -m tests.load.check ACKS.json SCENE_ID`` on the run's database; prints the
counts and exits 1 when anything is lost or duplicated.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Any

import django


@dataclass(frozen=True)
class Verdict:
    """Counts of the check: ``acknowledged`` posts (distinct keys), ``retried`` keys, posts
    ``stored`` in the scene, acknowledged posts ``lost`` (key, post or a roll missing, or the
    post not the one acknowledged), ``duplicated`` keys (more than one post, or a retry that
    answered another post or other rolls) and ``extra_rolls`` (rolls linked to a post beyond
    the one it was acknowledged with)."""

    acknowledged: int
    retried: int
    stored: int
    lost: int
    duplicated: int
    extra_rolls: int

    @property
    def ok(self) -> bool:
        return self.lost == 0 and self.duplicated == 0 and self.extra_rolls == 0


def check(acks: list[dict[str, Any]], retries: list[dict[str, Any]], scene_id: int) -> Verdict:
    """Compare the acknowledged posts with the scene's rows (see ``Verdict``)."""
    from escenas.models import Post, PostRoll
    from personajes.models import Roll

    posts = dict(
        Post.objects.filter(scene_id=scene_id).values_list("idempotency_key", "pk").iterator()
    )
    per_key = Counter(
        Post.objects.filter(scene_id=scene_id).values_list("idempotency_key", flat=True)
    )
    links: dict[int, set[int]] = {}
    for post_id, roll_id in PostRoll.objects.filter(post__scene_id=scene_id).values_list(
        "post_id", "roll_id"
    ):
        links.setdefault(post_id, set()).add(roll_id)
    acked_rolls = {roll for ack in acks for roll in ack["rolls"]}
    rolls_stored = set(Roll.objects.filter(pk__in=acked_rolls).values_list("pk", flat=True))
    by_key = {ack["key"]: ack for ack in acks}
    lost = sum(
        1
        for ack in by_key.values()
        if posts.get(ack["key"]) != ack["post"]
        or not set(ack["rolls"]) <= rolls_stored
        or not set(ack["rolls"]) <= links.get(ack["post"], set())
    )
    duplicated = sum(1 for count in per_key.values() if count > 1) + sum(
        1
        for retry in retries
        if retry["key"] not in by_key
        or by_key[retry["key"]]["post"] != retry["post"]
        or sorted(by_key[retry["key"]]["rolls"]) != sorted(retry["rolls"])
    )
    extra = sum(len(links.get(ack["post"], set()) - set(ack["rolls"])) for ack in by_key.values())
    return Verdict(
        acknowledged=len(by_key),
        retried=len(retries),
        stored=len(posts),
        lost=lost,
        duplicated=duplicated,
        extra_rolls=extra,
    )


if __name__ == "__main__":
    django.setup()
    with open(sys.argv[1]) as handle:
        data = json.load(handle)
    verdict = check(data["acks"], data["retries"], int(sys.argv[2]))
    print(
        f"acknowledged posts {verdict.acknowledged}, stored in the scene {verdict.stored}, "
        f"retried keys {verdict.retried}: lost {verdict.lost}, duplicated {verdict.duplicated}, "
        f"extra rolls {verdict.extra_rolls}"
    )
    sys.exit(0 if verdict.ok else 1)
