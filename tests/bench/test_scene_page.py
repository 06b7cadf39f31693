"""Benchmark: a scene page with 1 000 posts and their rolls (``make bench``, not ``make test``).

1. Queries per request: the scene page (first and last page) re-read with 30 posts and with
   1 000 posts must make the same number of queries (asserted: a count, not a time).
2. Requests per second served by gunicorn: the scene page (first and last page) against an
   empty signed-in view (session and user lookup: ``/_bench/signed-in/``, from
   ``tests/bench/urls.py``) and a bare health view (``/salud/``), on the same server, in the same
   run, alternated A/B/A/B; printed as ratios (target: the scene page ≥ 0.5 × the signed-in
   view). It never fails on time.

Everything runs in subprocesses (migrate, fill, gunicorn on a free localhost port) against the
run's own database: ``make bench``'s fresh PostgreSQL database when ``DATABASE_URL`` is set,
else a temporary SQLite file; nothing touches the development database.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.bench import report

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
GUNICORN = str(Path(PYTHON).with_name("gunicorn"))
SECONDS_PER_ENDPOINT = 8.0
MAX_REQUESTS = 400

FILL = r"""
import json, uuid
import django
django.setup()
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from escenas import scenes
from escenas import services
from escenas.models import Post, PostRoll, Scene
from escenas.rendering import render_markdown
from mundo.models import Campaign, Membership
from personajes.models import Character, Roll
from personajes.traits import campaign_traits
from reglas import ENGINE_VERSION
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

campaign = CampaignFactory(slug="banco", name="Banco de pruebas")
master = UserFactory(username="master")
alicia = UserFactory(username="alicia")
Membership.objects.create(campaign=campaign, user=master, role="master")
Membership.objects.create(campaign=campaign, user=alicia, role="player")
ana = CharacterFactory(campaign=campaign, player=alicia, name="Ana", status="approved",
                       allocation={"fuerza": 2})
scene = scenes.scene_create(campaign=campaign, master=master, title="Mil mensajes",
                              participants=[ana])
fuerza = [t for t in campaign_traits(campaign=campaign) if t.slug == "fuerza"][0]
body = ("Ana avanza por el pasillo **a oscuras**, tanteando la pared. " * 6).strip()
html = render_markdown(body)
made = 0

def add(n):
    # Bulk rows shaped exactly as services.post_create writes them (a post, an action roll).
    global made
    now = timezone.now()
    rolls = Roll.objects.bulk_create([
        Roll(campaign=campaign, character=ana, made_by=alicia, day=7, kind="action",
             trait=fuerza, trait_name="Fuerza", trait_value=2, base_threshold=30,
             effective_threshold=30, dice=[(7 * (made + i)) % 100 + 1, 50, 99],
             successes=1, success=True, generator_key=[7, 1, ana.pk, made + i],
             engine_version=ENGINE_VERSION, reason="Avanzar")
        for i in range(n)])
    posts = Post.objects.bulk_create([
        Post(campaign=campaign, scene=scene, author=alicia, voice="character", character=ana,
             speaker_name="Ana", body=body, body_html=html, day=7,
             idempotency_key=uuid.uuid4().hex, created_at=now, updated_at=now)
        for _ in range(n)])
    PostRoll.objects.bulk_create([PostRoll(post=p, roll=r) for p, r in zip(posts, rolls)])
    made += n

def queries(client, url):
    # A re-read, as the timed loop makes: the first GET may move the read marker (in the post
    # list's cache key), the second stores the list as read, the third is counted.
    client.get(url)
    client.get(url)
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, response.status_code
    return len(ctx.captured_queries)

client = Client()
client.force_login(alicia)
url = scene.get_absolute_url()
add(30)  # two pages: the first (20 posts) and the last (with the post form)
client.get(url)
small = {"first": queries(client, url + "?page=1"), "last": queries(client, url + "?page=last")}
add(970)
large = {"first": queries(client, url + "?page=1"), "last": queries(client, url + "?page=last")}
if connection.vendor == "postgresql":  # the timed phase: fresh statistics, no dirty buffers
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
        cursor.execute("CHECKPOINT")
print(json.dumps({
    "posts": Post.objects.count(), "rolls": PostRoll.objects.count(),
    "queries_30": small, "queries_1000": large,
    "url": url, "cookie": client.cookies["sessionid"].value,
}))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rate(url: str, cookie: str | None, seconds: float = SECONDS_PER_ENDPOINT) -> tuple[float, int]:
    """Requests per second of sequential GETs (bounded by count and time)."""
    headers = {"Cookie": f"sessionid={cookie}"} if cookie else {}
    done = 0
    start = time.perf_counter()
    while done < MAX_REQUESTS and time.perf_counter() - start < seconds:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as r:
            assert r.status == 200
            r.read()
        done += 1
    return done / (time.perf_counter() - start), done


def test_scene_page_with_1000_posts(tmp_path):
    env = dict(os.environ)
    env.setdefault("DATABASE_URL", f"sqlite:///{tmp_path / 'bench.sqlite3'}")
    env.update(
        DJANGO_SETTINGS_MODULE="tests.bench.settings",
        PYTHONPATH=str(ROOT),
        DEBUG="0",
        LOG_LEVEL="WARNING",
    )
    env.pop("REDIS_URL", None)  # tasks run in-process; no broker needed for page views
    subprocess.run([PYTHON, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    fill = subprocess.run(
        [PYTHON, "-c", FILL], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    data = json.loads(fill.stdout.strip().splitlines()[-1])
    print()
    print(f"posts: {data['posts']}, rolls: {data['rolls']}")
    print(f"queries per scene page, 30 posts:    {data['queries_30']}")
    print(f"queries per scene page, 1000 posts:  {data['queries_1000']}")
    assert data["queries_30"] == data["queries_1000"], "queries grow with the number of posts"

    port = free_port()
    server = subprocess.Popen(
        [
            GUNICORN,
            "partida.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/salud/", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        cookie = data["cookie"]
        endpoints = {
            "health": (base + "/salud/", None),
            "signed_in": (base + "/_bench/signed-in/", cookie),
            "first": (base + data["url"] + "?page=1", cookie),
            "last": (base + data["url"] + "?page=last", cookie),
        }
        for url, sent in endpoints.values():  # warm both workers on every endpoint
            rate(url, sent, seconds=1.0)
        rates: dict[str, list[float]] = {name: [] for name in endpoints}
        for _ in range(2):  # A/B/A/B: a slower moment of the machine weighs on every endpoint
            for name, (url, sent) in endpoints.items():
                rates[name].append(rate(url, sent)[0])
                print(f"{name}: {rates[name][-1]:.1f} req/s", flush=True)
    finally:
        server.terminate()
        try:  # gunicorn stops gracefully; on a loaded machine that may take a while
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)
    best = {name: max(values) for name, values in rates.items()}
    vendor = "postgresql" if env["DATABASE_URL"].startswith("postgres") else "sqlite"
    signed = best["signed_in"]
    report.record(f"empty signed-in view ({vendor}, gunicorn 2 workers)", signed, "req/s")
    report.record(
        "bare health view /salud/",
        best["health"],
        "req/s",
        reference=signed,
        reference_name="signed-in view",
    )
    report.record(
        "scene page 1 of 50, 1 000 posts",
        best["first"],
        "req/s",
        reference=signed,
        reference_name="signed-in view",
        target="ratio ≥ 0.5",
        key="scene_page_first_ratio",
    )
    report.record(
        "scene page 50 of 50 (+ post form)",
        best["last"],
        "req/s",
        reference=signed,
        reference_name="signed-in view",
        target="ratio ≥ 0.5",
        key="scene_page_last_ratio",
    )
    report.record(
        "scene page queries, 30 and 1 000 posts (page 1)", data["queries_1000"]["first"], ""
    )
