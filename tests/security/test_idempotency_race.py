"""Two concurrent sends with one idempotency key: one post, exactly one 201 and one 200.

The service decides under the campaign lock (``escenas.services.post_create``): the second send
waits on the lock, then finds the post the first stored. PostgreSQL, two threads, two
connections; the first send is slowed while it holds the lock so the second really waits.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection
from rest_framework.test import APIClient

from escenas import services
from escenas.models import Post
from personajes.models import Roll

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_two_concurrent_sends_with_one_key_make_one_post(
    needs_postgres, monkeypatch, story, player_a, char_a
):
    real = services._post_written

    def slow(post, **kwargs):
        time.sleep(0.4)  # the first send holds the campaign lock a while
        return real(post, **kwargs)

    monkeypatch.setattr(services, "_post_written", slow)
    barrier = threading.Barrier(2)
    statuses: list[int] = []
    ids: list[int] = []
    errors: list[Exception] = []

    def send() -> None:
        try:
            client = APIClient()
            client.force_login(player_a)
            barrier.wait()
            response = client.post(
                f"/api/v1/scenes/{story.pk}/posts/",
                {
                    "body": "Una sola vez",
                    "voice": "character",
                    "character": char_a.pk,
                    "roll": {"kind": "expression", "expression": "1d6"},
                },
                format="json",
                HTTP_IDEMPOTENCY_KEY="carrera-0001",
            )
            statuses.append(response.status_code)
            ids.append(response.json()["id"])
        except Exception as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=send) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert sorted(statuses) == [200, 201]
    assert ids[0] == ids[1]
    assert Post.objects.filter(idempotency_key="carrera-0001").count() == 1
    assert Roll.objects.count() == 1
