"""The deployed topology as real processes, started by scripts/run as compose starts them.

Two gunicorn servers and two Celery workers on one PostgreSQL database and one Redis, plus one
beat: the readiness check sees both heartbeats, beat's schedule advances a due campaign exactly
one day, players post with rolls over HTTP through both servers (a retried idempotency key
makes no duplicate), the workers fan the posts out after their commits and e-mail each other
reader once (console back end: the mail is in a worker's output, the ``PostNotification`` rows
in the database), and every process stops cleanly on SIGTERM.

Needs PostgreSQL (the processes share the test database) and ``REDIS_URL``; skipped otherwise.
The processes use the Redis database of ``REDIS_URL``, flushed first.
"""

from __future__ import annotations

import datetime
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = str(ROOT / "scripts" / "run")
POSTS_PER_SERVER = 6

pytestmark = [
    pytest.mark.redis,
    pytest.mark.postgres,
    pytest.mark.skipif(
        not os.environ.get("REDIS_URL"),
        reason="needs REDIS_URL: a real Redis broker for the real processes (CI)",
    ),
]


def _database_url() -> str:
    s = connection.settings_dict
    auth = quote(s["USER"] or "")
    if s.get("PASSWORD"):
        auth += ":" + quote(s["PASSWORD"])
    host = s["HOST"] or "localhost"
    port = f":{s['PORT']}" if s.get("PORT") else ""
    return f"postgres://{auth}@{host}{port}/{s['NAME']}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Process:
    name: str
    popen: subprocess.Popen[str]

    def stop(self) -> tuple[int, str]:
        """SIGTERM, then its exit code and everything it wrote."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
        try:
            output, _ = self.popen.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            output, _ = self.popen.communicate()
        return self.popen.returncode, output


def start(role: str, env: dict[str, str], name: str, **extra: str) -> Process:
    popen = subprocess.Popen(
        [SCRIPT, role],
        cwd=ROOT,
        env={**env, **extra},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return Process(name, popen)


def http(method: str, url: str, body: dict | None = None, **headers: str) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    for key, value in headers.items():
        request.add_header(key.replace("_", "-"), value)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def wait_for(check, timeout_s: float, what: str, processes: list[Process]):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            value = check()
        except (OSError, urllib.error.URLError):
            value = None
        if value:
            return value
        for process in processes:
            if process.popen.poll() is not None:
                code, output = process.stop()
                pytest.fail(f"{process.name} exited ({code}) while waiting for {what}:\n{output}")
        time.sleep(0.3)
    pytest.fail(f"timed out waiting for {what}")


@pytest.fixture
def table(transactional_db):
    """A due campaign (day 7) with two players' approved characters in one story scene."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: the processes must see the test database")
    from escenas import scenes
    from mundo.models import Campaign, Membership
    from partida.services import token_create
    from personajes.models import Character
    from tests.factories import CampaignFactory, CharacterFactory, MembershipFactory, UserFactory

    campaign = CampaignFactory(current_day=7)
    Campaign.objects.filter(pk=campaign.pk).update(
        last_scheduled_run=datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=2)
    )
    master = UserFactory(username="topo-master")
    MembershipFactory(campaign=campaign, user=master, role=Membership.Role.MASTER)
    players, characters = [], []
    for name in ("alicia", "bruno"):
        user = UserFactory(username=f"topo-{name}")
        MembershipFactory(campaign=campaign, user=user, role=Membership.Role.PLAYER)
        characters.append(
            CharacterFactory(
                campaign=campaign,
                player=user,
                name=name.title(),
                status=Character.Status.APPROVED,
                allocation={"fuerza": 2, "agilidad": 8},
            )
        )
        players.append(user)
    scene = scenes.scene_create(
        campaign=campaign, master=master, title="La gasolinera", participants=characters
    )
    keys = [token_create(user=user, name="topología").key for user in players]
    return {
        "campaign": campaign,
        "scene": scene,
        "players": players,
        "characters": characters,
        "keys": keys,
    }


def test_two_servers_two_workers_and_beat_tick_once_post_mail_and_stop_cleanly(table, tmp_path):
    from escenas.models import Post, PostNotification
    from mundo.models import Campaign, DayTick
    from personajes.models import Roll

    redis_url = os.environ["REDIS_URL"]
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    ports = [_free_port(), _free_port()]
    env = {
        **os.environ,
        "PYTHON": sys.executable,
        "DATABASE_URL": _database_url(),
        "REDIS_URL": redis_url,
        "SECRET_KEY": os.environ.get("SECRET_KEY") or "topology-" + uuid.uuid4().hex * 2,
        "DEBUG": "0",
        "HTTPS": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend",
        "PARTIDA_BEAT_INTERVAL_S": "2",
        "PARTIDA_HEARTBEAT_INTERVAL_S": "1",
        "BEAT_SCHEDULE_FILE": str(tmp_path / "beat-schedule"),
        "WEB_WORKERS": "1",
        "WEB_THREADS": "4",
        "WORKER_POOL": "solo",
        "WORKER_CONCURRENCY": "1",
        "LOG_LEVEL": "INFO",
    }
    tag = uuid.uuid4().hex[:6]
    processes = [
        *(
            start("web", env, f"web-{i}", WEB_BIND=f"127.0.0.1:{port}")
            for i, port in enumerate(ports)
        ),
        *(start("worker", env, f"worker-{i}", WORKER_NAME=f"w{i}-{tag}@%h") for i in (0, 1)),
        start("beat", env, "beat"),
    ]
    outputs: dict[str, str] = {}
    codes: dict[str, int] = {}
    try:
        # Ready: database, Redis, and fresh worker and beat heartbeats, seen by both servers.
        for port in ports:
            ready = wait_for(
                lambda port=port: http("GET", f"http://127.0.0.1:{port}/salud/listo/")[0] == 200,
                45,
                f"readiness on {port}",
                processes,
            )
            assert ready
        status, body = http("GET", f"http://127.0.0.1:{ports[0]}/salud/listo/")
        assert status == 200 and body["ready"] is True
        assert [c["id"] for c in body["campaigns"]] == [table["campaign"].pk]
        assert set(body["checks"]) == {
            "database",
            "redis",
            "worker",
            "beat",
        }
        campaign_pk = table["campaign"].pk

        # Beat's schedule advances the due campaign (a worker runs the tick).
        wait_for(
            lambda: Campaign.objects.get(pk=campaign_pk).current_day == 8,
            45,
            "the scheduled tick",
            processes,
        )

        # Posts with rolls over HTTP, spread over both servers and both players, in parallel.
        scene_pk = table["scene"].pk
        jobs = []
        for n in range(2 * POSTS_PER_SERVER):
            who = n % 2
            jobs.append(
                (
                    f"http://127.0.0.1:{ports[n % 2]}/api/v1/scenes/{scene_pk}/posts/",
                    {
                        "body": f"Empujo la puerta ({n}).",
                        "as": "character",
                        "character": table["characters"][who].pk,
                        "roll": {"kind": "action", "trait": "fuerza", "threshold": 30},
                    },
                    {
                        "Authorization": f"Token {table['keys'][who]}",
                        "Idempotency-Key": f"topo-{tag}-{n:03d}",
                    },
                )
            )
        with ThreadPoolExecutor(max_workers=4) as pool:
            answers = list(pool.map(lambda job: http("POST", job[0], job[1], **job[2]), jobs))
        assert [status for status, _ in answers] == [201] * len(jobs), answers
        # A retry of the first post through the other server: the same post, nothing new.
        retry_url = jobs[0][0].replace(str(ports[0]), str(ports[1]))
        retry = http("POST", retry_url, jobs[0][1], **jobs[0][2])
        assert retry == (200, answers[0][1])

        post_ids = {answer["id"] for _, answer in answers}
        assert len(post_ids) == len(jobs)
        posts = Post.objects.filter(pk__in=post_ids)
        assert posts.count() == len(jobs)  # none lost
        assert Post.objects.filter(scene_id=scene_pk).count() == len(jobs)  # none doubled
        assert Roll.objects.filter(post_roll__post__in=posts).count() == len(jobs)

        # Each post is fanned out by a worker after its commit; each reader is e-mailed once
        # (escenas.first_notice: nobody visits the scene in between): the master about the
        # first post, each player about the other's first.
        wait_for(
            lambda: not Post.objects.filter(pk__in=post_ids, fan_out_pending=True).exists(),
            30,
            "the posts' fan-out",
            processes,
        )
        assert PostNotification.objects.filter(post_id__in=post_ids).count() == 3
        time.sleep(2)  # beat fires a few more times: the campaign is not due again today
        campaign = Campaign.objects.get(pk=campaign_pk)
        assert campaign.current_day == 8
        assert list(
            DayTick.objects.filter(campaign_id=campaign_pk).values_list("day", "trigger")
        ) == [(8, DayTick.Trigger.SCHEDULE)]
    finally:
        for process in processes:
            codes[process.name], outputs[process.name] = process.stop()
    everything = "\n".join(f"--- {name}\n{text}" for name, text in outputs.items())
    assert codes == dict.fromkeys(codes, 0), everything  # SIGTERM: every process stops cleanly
    assert (
        "Shutting down: Master" in outputs["web-0"] and "Shutting down: Master" in outputs["web-1"]
    )
    mails = outputs["worker-0"] + outputs["worker-1"]
    assert mails.count("To: topo-master@example.com") >= 1, everything
    assert "partida.advance_campaign_day" in mails
    for name in ("worker-0", "worker-1"):  # both workers took tasks from the shared queue
        assert "Task partida.heartbeat" in outputs[name] or "Task escenas." in outputs[name], name
    assert outputs["beat"].count("partida.advance_due_campaigns") >= 2
