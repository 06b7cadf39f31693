"""Benchmark: a post with a roll and a read of the posts through the API in the load test's
scene (50 players, ``tests/load/fill.py``), and the worker's fan-out of the posts' e-mails
(``escenas.post_fanout``, after the commit since issue 13). ``make bench``; prints figures in
CPU milliseconds (``time.process_time``, steadier than wall time on a shared machine), never
fails on time.

The request's figure leaves the fan-out out (it runs after the commit, in the worker); the
fan-out is measured for the first post alone (every reader's first notice: 50 e-mails
rendered), for the later posts in one batch (tasks coalescing under load; the readers were
told already and have not visited, so ``escenas.first_notice`` renders no e-mail) and for a
later post alone (one task a post, what the worker does under ``make load``).
"""

from __future__ import annotations

import time
import uuid

import pytest
from rest_framework.test import APIClient

from escenas import post_fanout
from escenas.models import Post
from tests.bench import report
from tests.load.fill import fill

POSTS = 20


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2] * 1000


@pytest.mark.django_db
def test_post_and_fan_out_figures():
    cast = fill(50)
    url = f"/api/v1/scenes/{cast['scene']}/posts/"
    clients = []
    for seat in cast["players"]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {seat['token']}")
        clients.append((client, seat["character"]))
    body = {"body": "Fuerzo la persiana del súper.", "voice": "character"}
    roll = {"kind": "action", "trait": "fuerza", "threshold": 30}

    def post(i: int) -> None:
        client, character = clients[i % len(clients)]
        answer = client.post(
            url,
            {**body, "character": character, "roll": roll},
            format="json",
            HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex,
        )
        assert answer.status_code == 201, answer.content

    def read(i: int) -> None:
        assert clients[i % len(clients)][0].get(url).status_code == 200

    post(0), read(0)  # warm-up
    posts, reads = [], []
    for i in range(1, POSTS + 1):  # alternated
        start = time.process_time()
        post(i)
        posts.append(time.process_time() - start)
        start = time.process_time()
        read(i)
        reads.append(time.process_time() - start)
    pending = list(Post.objects.filter(fan_out_pending=True).values_list("pk", flat=True))
    assert len(pending) == POSTS + 1
    start = time.process_time()
    assert post_fanout.posts_fan_out(post_ids=pending[:1])[0] == 1
    alone = time.process_time() - start
    start = time.process_time()
    assert post_fanout.posts_fan_out()[0] == POSTS
    batched = (time.process_time() - start) / POSTS
    later = []  # one task a post, as under ``make load``: each fanned out alone
    for i in range(POSTS + 1, 2 * POSTS + 1):
        post(i)
        (pk,) = Post.objects.filter(fan_out_pending=True).values_list("pk", flat=True)
        start = time.process_time()
        assert post_fanout.posts_fan_out(post_ids=[pk]) == (1, 0)
        later.append(time.process_time() - start)
    print(
        f"\nAPI post with a roll, 50 players: {_median(posts):.1f} ms CPU (median of {POSTS}); "
        f"read of the posts: {_median(reads):.1f} ms; fan-out {alone * 1000:.1f} ms for the "
        f"first post (50 e-mails), {batched * 1000:.1f} ms a post in a batch of {POSTS} later "
        f"ones, {_median(later):.1f} ms for a later one alone"
    )
    report.record(
        "API post with a roll (50 players), CPU", _median(posts), "ms", key="api_post_cpu_ms"
    )
    report.record("API read of a scene's posts, CPU", _median(reads), "ms", key="api_read_cpu_ms")
    report.record(
        "first post's fan-out (50 e-mails)", alone * 1000, "ms", key="fan_out_alone_cpu_ms"
    )
    report.record(
        f"later posts' fan-out, a batch of {POSTS}, a post",
        batched * 1000,
        "ms",
        reference=alone * 1000,
        reference_name="the first",
        key="fan_out_batched_cpu_ms",
        key_value=batched * 1000,
    )
    report.record(
        "a later post's fan-out alone (no e-mail)",
        _median(later),
        "ms",
        reference=alone * 1000,
        reference_name="the first",
        key="fan_out_later_cpu_ms",
        key_value=_median(later),
    )
