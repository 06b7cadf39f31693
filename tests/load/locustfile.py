"""The load test's simulated players (``make load``; locust, headless, loopback only).

Each simulated player takes one player of ``LOAD_CAST`` (the JSON ``tests/load/fill.py``
printed: the scene and a token and character per player) and, until the run's time is up,
reads the scene's posts (``GET /api/v1/scenes/<id>/posts/``, weight 2) and writes a post with
an action roll (``POST`` there, weight 1) under a fresh idempotency key. A player's first post,
and every ``RETRY_EVERY``-th after it, is sent a second time with the same key: the answer
must be 200 with the same post id (a retry rolls nothing again); anything else is a failure.

Every acknowledged post (201, or the 200 of its retry) is recorded with its key, post id and
roll ids; when the run stops they are written to ``LOAD_ACKS`` (JSON) for ``tests/load/check.py``.
"""

from __future__ import annotations

import itertools
import json
import os
import threading
import uuid
from typing import Any

from locust import FastHttpUser, between, events, task

RETRY_EVERY = 3
"""Posts 1, 4, 7… of a player are retried with their key (a client that lost the answer), so
even a slow run retries some."""

ACKS: list[dict[str, Any]] = []
RETRIES: list[dict[str, Any]] = []
_LOCK = threading.Lock()
_SEATS = itertools.count()


def cast() -> dict[str, Any]:
    """The fill's JSON: ``{"scene": id, "players": [{"token", "character"}, ...]}``."""
    with open(os.environ["LOAD_CAST"]) as handle:
        return dict(json.load(handle))


def acknowledged(response_json: dict[str, Any], key: str) -> dict[str, Any]:
    """The record of one acknowledged post: key, post id and the ids of its rolls."""
    return {
        "key": key,
        "post": response_json["id"],
        "rolls": [item["id"] for item in response_json.get("rolls", [])],
    }


class Player(FastHttpUser):
    """One player of the scene: reads it and posts in it with a roll, 0.5–1.5 s apart.

    ``FastHttpUser`` (geventhttpclient, in the dev lock): the same checks as ``HttpUser`` at a
    fraction of its CPU, which on this 2-core machine the server would otherwise lose to the
    load generator.
    """

    wait_time = between(0.5, 1.5)

    def on_start(self) -> None:
        data = cast()
        seat = next(_SEATS) % len(data["players"])
        me = data["players"][seat]
        self.url = f"/api/v1/scenes/{data['scene']}/posts/"
        self.character = me["character"]
        self.auth = {"Authorization": f"Token {me['token']}"}
        self.posts = 0

    @task(2)
    def read_scene(self) -> None:
        self.client.get(self.url, headers=self.auth, name="GET scene posts")

    @task(1)
    def post_with_roll(self) -> None:
        key = uuid.uuid4().hex
        body = {
            "body": "Fuerzo la persiana del súper.",
            "voice": "character",
            "character": self.character,
            "roll": {"kind": "action", "trait": "fuerza", "threshold": 30},
        }
        headers = {**self.auth, "Idempotency-Key": key}
        with self.client.post(
            self.url, json=body, headers=headers, name="POST post+roll", catch_response=True
        ) as response:
            if response.status_code != 201:
                response.failure(f"{response.status_code}: {response.text[:200]}")
                return
            record = acknowledged(response.json(), key)
        with _LOCK:
            ACKS.append(record)
        self.posts += 1
        if self.posts % RETRY_EVERY != 1:
            return
        with self.client.post(
            self.url, json=body, headers=headers, name="POST retry (same key)", catch_response=True
        ) as again:
            if again.status_code != 200 or again.json().get("id") != record["post"]:
                again.failure(f"retry answered {again.status_code}: {again.text[:200]}")
                return
            with _LOCK:
                RETRIES.append(acknowledged(again.json(), key))


@events.test_stop.add_listener
def write_acks(**_kwargs: Any) -> None:
    """Write what the server acknowledged, for the checker."""
    path = os.environ.get("LOAD_ACKS")
    if path:
        with _LOCK, open(path, "w") as handle:
            json.dump({"acks": ACKS, "retries": RETRIES}, handle)
