"""CPU time and queries per request of the load test's two endpoints, in-process.

``python -m tests.load.cpu [N] [--profile get|post]`` with DATABASE_URL (a database of its own:
it is filled like ``make load``'s, ``tests/load/fill.py``) and REDIS_URL as for the load run.
Sends N reads (``GET /api/v1/scenes/<id>/posts/``) and N posts with a roll, each player in
turn, through Django's test client, alternating GET/POST, and prints for each endpoint the
median and mean CPU time (``time.process_time``, ms: the server's own cost, not the machine's
load) and the queries of one request. ``--profile get|post`` prints cProfile's top functions
(CPU time) too, by ``--sort KEY`` (``cumulative`` unless told: ``tottime`` shows the leaves),
its first ``CPU_PROFILE_ROWS`` rows (45).
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import statistics
import sys
import time
import uuid

import django


def main(argv: list[str]) -> None:
    """Fill, warm up, then measure (see the module's docstring)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "partida.settings")
    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from tests.load.fill import fill

    n = int(argv[0]) if argv and argv[0].isdigit() else 200
    profile = argv[argv.index("--profile") + 1] if "--profile" in argv else ""
    cast = fill(50)
    url = f"/api/v1/scenes/{cast['scene']}/posts/"
    clients = []
    for me in cast["players"]:
        client = Client(HTTP_AUTHORIZATION=f"Token {me['token']}", SERVER_NAME="127.0.0.1")
        clients.append((client, me["character"]))

    def get(i: int) -> None:
        response = clients[i % len(clients)][0].get(url)
        assert response.status_code == 200, response.content[:300]

    def post(i: int) -> None:
        client, character = clients[i % len(clients)]
        body = {
            "body": "Fuerzo la persiana del súper.",
            "voice": "character",
            "character": character,
            "roll": {"kind": "action", "trait": "fuerza", "threshold": 30},
        }
        response = client.post(
            url,
            json.dumps(body),
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex,
        )
        assert response.status_code == 201, response.content[:300]

    for i in range(60):  # warm: imports, connections, more than one page of posts
        post(i)
        get(i)
    times: dict[str, list[float]] = {"GET": [], "POST": []}
    profiler = cProfile.Profile(time.process_time)  # CPU, as the medians: not the waits on PG
    for i in range(n):
        for name, call in (("GET", get), ("POST", post)):
            if profile and profile.upper() == name:
                profiler.enable()
            start = time.process_time()
            call(i)
            times[name].append(time.process_time() - start)
            if profile and profile.upper() == name:
                profiler.disable()
    queries = {}
    for name, call in (("GET", get), ("POST", post)):
        with CaptureQueriesContext(connection) as captured:
            call(n)
        queries[name] = captured.captured_queries
    if profile:
        order = argv[argv.index("--sort") + 1] if "--sort" in argv else "cumulative"
        rows = int(os.environ.get("CPU_PROFILE_ROWS", "45"))
        pstats.Stats(profiler).sort_stats(order).print_stats(rows)
    for name, values in times.items():
        print(
            f"{name:<5} n={len(values)} cpu median {statistics.median(values) * 1000:.1f} ms, "
            f"mean {statistics.fmean(values) * 1000:.1f} ms, queries {len(queries[name])}"
        )
    if "--sql" in argv:
        for name, captured in queries.items():
            print(f"--- {name}")
            for q in captured:
                print("  ", q["sql"][:220])


if __name__ == "__main__":
    main(sys.argv[1:])
